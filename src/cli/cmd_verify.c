/* src/cli/cmd_verify.c — `rxlock verify`: a puzzle's structure, header
 * digest and signature (and an optional signer pin), without solving. */
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

const char cmd_verify_usage[] =
    "usage: rxlock verify PUZZLE [--signer-pin HEX] [--quiet]\n"
    "\n"
    "Check a puzzle's structure (fields, bounds, version, header digest) and its\n"
    "Ed25519 signature, without solving it.\n"
    "  --signer-pin HEX   require a valid signature by this public key (64 hex)\n"
    "  --quiet            print nothing on success\n"
    "exit: 0 valid, 1 malformed / unreadable, 2 usage error, 3 bad signature or pin mismatch\n";

int cmd_verify(int argc, char **argv) {
    static const struct option opts[] = {
        {"signer-pin", required_argument, 0, 'p'}, {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0}
    };
    const char *pinhex = NULL;
    int quiet = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pinhex = optarg; break;
        case 'q': quiet = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error(argv[0], "missing PUZZLE");
    if (optind + 1 < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind + 1]);
    uint8_t pin[32];
    if (pinhex && cli_parse_pin(pinhex, pin))
        return cli_usage_error(argv[0], "--signer-pin: want 64 hex digits (an Ed25519 public key)");
    const char *path = argv[optind];
    char err[300];
    tl_puzzle *pz = NULL;
    int rc = tl_puzzle_load(path, &pz, err, sizeof err);
    if (rc) return cli_error("%s", err);
    int ret = cli_check_puzzle(path, pz, pinhex ? pin : NULL);
    if (ret == CLI_OK && !quiet) {
        char s[65];
        if (pz->has_signer) util_hex_encode(s, pz->signer, 32);
        printf("%s: ok: %s, %u x %llu steps, %s%s%s\n", path, tl_work_name(pz->work), pz->groups,
               (unsigned long long)pz->steps, pz->has_signer ? "signed by " : "unsigned",
               pz->has_signer ? s : "", pz->test_only ? " (TEST-ONLY puzzle)" : "");
    }
    tl_puzzle_free(pz);
    return ret;
}
