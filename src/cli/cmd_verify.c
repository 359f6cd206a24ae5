/* src/cli/cmd_verify.c — `rxlock verify` (not implemented yet). */
#include "cli/cli.h"

const char cmd_verify_usage[] =
    "usage: rxlock verify ...\n"
    "  (not implemented yet)\n";

int cmd_verify(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
