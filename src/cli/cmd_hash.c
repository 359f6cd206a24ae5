/* src/cli/cmd_hash.c — `rxlock hash` (not implemented yet). */
#include "cli/cli.h"

const char cmd_hash_usage[] =
    "usage: rxlock hash ...\n"
    "  (not implemented yet)\n";

int cmd_hash(int argc, char **argv) {
    (void)argc;
    return cli_error("%s: not implemented yet", argv[0]);
}
