/* src/cli/cmd_calibrate.c — `rxlock calibrate` (not implemented yet). */
#include "cli/cli.h"

const char cmd_calibrate_usage[] =
    "usage: rxlock calibrate ...\n"
    "  (not implemented yet)\n";

int cmd_calibrate(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
