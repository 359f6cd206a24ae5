/* src/cli/cmd_lock.c — `rxlock lock` (not implemented yet). */
#include "cli/cli.h"

const char cmd_lock_usage[] =
    "usage: rxlock lock ...\n"
    "  (not implemented yet)\n";

int cmd_lock(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
