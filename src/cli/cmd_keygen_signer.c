/* src/cli/cmd_keygen_signer.c — `rxlock keygen-signer` (not implemented yet). */
#include "cli/cli.h"

const char cmd_keygen_signer_usage[] =
    "usage: rxlock keygen-signer ...\n"
    "  (not implemented yet)\n";

int cmd_keygen_signer(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
