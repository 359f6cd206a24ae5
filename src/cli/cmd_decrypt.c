/* src/cli/cmd_decrypt.c — `rxlock decrypt` (not implemented yet). */
#include "cli/cli.h"

const char cmd_decrypt_usage[] =
    "usage: rxlock decrypt ...\n"
    "  (not implemented yet)\n";

int cmd_decrypt(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
