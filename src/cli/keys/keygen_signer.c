/* SPDX-License-Identifier: ISC */
/* src/cli/keys/keygen_signer.c — `rxlock keygen-signer`: a new Ed25519
 * puzzle-signing key file (mode 0600); prints the public key (the pin). */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

const char cmd_keygen_signer_usage[] =
    "usage: rxlock keygen-signer [--force] -o, --output FILE|-\n"
    "\n"
    "Create an Ed25519 signing key for `rxlock lock --sign-key FILE` (written\n"
    "mode 0600, never over an existing file without --force).  Prints the public\n"
    "key in hex: solvers pass it as --signer-pin.  '-o -' writes the key file to\n"
    "standard output and the public key to standard error.\n"
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
    const cli_path files[] = { { out, "-o", CLI_PATH_OUT } };
    if (cli_paths_check(files, 1, force)) return CLI_FAIL;
    uint8_t pk[32], sk[64];
    if (tl_signer_keygen(pk, sk) != 0) return cli_error("random generator failed");
    char hex[65];
    util_hex_encode(hex, pk, 32);
    if (cli_path_is_std(out)) {   /* the key file on stdout; the public key on stderr */
        char sec[65];
        util_hex_encode(sec, sk, 32);
        int ok = printf("# rxlock Ed25519 signing key (keep secret)\n# public key: %s\n%s\n", hex, sec) > 0 &&
                 fflush(stdout) == 0;
        sodium_memzero(sec, sizeof sec);
        sodium_memzero(sk, sizeof sk);
        if (!ok) return cli_error("stdout: %s", strerror(errno));
        fprintf(stderr, "%s\n", hex);
        return CLI_OK;
    }
    int rc = tl_signer_save(out, sk, force);
    sodium_memzero(sk, sizeof sk);
    if (rc) return cli_output_error(out);
    printf("%s\n", hex);
    return CLI_OK;
}
