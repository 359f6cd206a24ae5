/* src/cli/cmd_inspect.c — `rxlock inspect` (not implemented yet). */
#include "cli/cli.h"

const char cmd_inspect_usage[] =
    "usage: rxlock inspect ...\n"
    "  (not implemented yet)\n";

int cmd_inspect(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
