/* src/cli/cmd_encrypt.c — `rxlock encrypt` (not implemented yet). */
#include "cli/cli.h"

const char cmd_encrypt_usage[] =
    "usage: rxlock encrypt ...\n"
    "  (not implemented yet)\n";

int cmd_encrypt(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
