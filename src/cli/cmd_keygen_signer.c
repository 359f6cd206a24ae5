/* src/cli/cmd_keygen_signer.c — `rxlock keygen-signer`: a new Ed25519
 * puzzle-signing key file (mode 0600); prints the public key (the pin). */
#include "cli/cli.h"
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

const char cmd_keygen_signer_usage[] =
    "usage: rxlock keygen-signer [--force] -o FILE\n"
    "\n"
    "Create an Ed25519 signing key for `rxlock lock --sign-key FILE` (written\n"
    "mode 0600, never over an existing file without --force).  Prints the public\n"
    "key in hex: solvers pass it as --signer-pin.\n"
    "exit: 0 ok, 1 failure, 2 usage error\n";

int cmd_keygen_signer(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'}, {0, 0, 0, 0}
    };
    const char *out = NULL;
    int force = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(argv[0], "missing -o FILE");
    uint8_t pk[32], sk[64];
    if (tl_signer_keygen(pk, sk) != 0) return cli_error("random generator failed");
    int rc = tl_signer_save(out, sk, force);
    sodium_memzero(sk, sizeof sk);
    if (rc) return cli_error("%s: %s", out, errno == EEXIST ? "already exists (use --force to overwrite)" : strerror(errno));
    char hex[65];
    util_hex_encode(hex, pk, 32);
    printf("%s\n", hex);
    return CLI_OK;
}
