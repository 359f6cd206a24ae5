/* src/cli/cmd_unlock.c — `rxlock unlock` (not implemented yet). */
#include "cli/cli.h"

const char cmd_unlock_usage[] =
    "usage: rxlock unlock ...\n"
    "  (not implemented yet)\n";

int cmd_unlock(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
