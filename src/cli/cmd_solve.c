/* src/cli/cmd_solve.c — `rxlock solve` (not implemented yet). */
#include "cli/cli.h"

const char cmd_solve_usage[] =
    "usage: rxlock solve ...\n"
    "  (not implemented yet)\n";

int cmd_solve(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
