/* SPDX-License-Identifier: ISC */
/* src/cli/lock/verify.c — `rxlock verify`: a puzzle's structure, header
 * digest and signature (and an optional signer pin), without solving. */
#include "cli/cli.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include <jansson.h>
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

const char cmd_verify_usage[] =
    "usage: rxlock verify PUZZLE|FILE.rxlock [--signer-pin HEX] [-q, --quiet | --json]\n"
    "\n"
    "Check a puzzle's structure (fields, bounds, version, header digest, epoch\n"
    "key) and its Ed25519 signature, without solving it.  A .rxlock file's\n"
    "puzzle is checked (its notice text is not authenticated: what this prints\n"
    "is), and its encrypted payload's age header and length (not what it\n"
    "holds: that needs the key; not from standard input).  A version 2\n"
    "signature covers the header and every wrap; a version 1 puzzle's\n"
    "signature covers the header only, and verify says so.\n"
    "  --signer-pin HEX   require a valid signature by this public key (64 hex)\n"
    "  -q, --quiet        print nothing on success\n"
    "  --json             the result as one JSON object on stdout\n"
    "exit: 0 valid, 1 malformed / unreadable, 2 usage error, 3 bad signature or pin mismatch\n";

int cmd_verify(int argc, char **argv) {
    static const struct option opts[] = {
        {"signer-pin", required_argument, 0, 'p'}, {"quiet", no_argument, 0, 'q'},
        {"json", no_argument, 0, 'j'}, {0, 0, 0, 0}
    };
    const char *pinhex = NULL;
    int quiet = 0, json = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
        switch (c) {
        case 'p': pinhex = optarg; break;
        case 'q': quiet = 1; break;
        case 'j': json = 1; break;
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
    tl_puzzle *pz = NULL;
    int container = 0;
    if (cli_puzzle_load(path, 1, &pz, &container)) return CLI_FAIL;
    int ret = cli_check_puzzle(path, pz, pinhex ? pin : NULL);
    /* a container's payload: what can be checked without the key */
    int payload = container && strcmp(path, "-") != 0;
    if (ret == CLI_OK && payload) ret = cli_container_payload_check(path);
    char s[65] = "";
    if (pz->has_signer) util_hex_encode(s, pz->signer, 32);
    const char *covers = !pz->has_signer ? "nothing (unsigned)"
                         : tl_puzzle_signs_wraps(pz) ? "header and wraps"
                                                     : "header only (version 1: the wraps are not covered)";
    if (ret == CLI_OK && json) {
        ret = cli_print_json(json_pack("{s:s, s:s, s:s, s:b, s:b, s:i, s:s, s:i, s:I, s:s?, s:s, s:b}",
                                       "event", "done", "command", "verify", "input", path, "ok", 1, "container", container, "version", pz->version,
                                       "work", tl_work_name(pz->work), "groups", (int)pz->groups,
                                       "steps", (json_int_t)pz->steps, "signer", pz->has_signer ? s : NULL,
                                       "signature_covers", covers, "test_only", pz->test_only));
    } else if (ret == CLI_OK && !quiet) {
        printf("%s: ok: %s, %u x %llu steps, %s%s%s\n", path, tl_work_name(pz->work), pz->groups,
               (unsigned long long)pz->steps, pz->has_signer ? "signed by " : "unsigned",
               pz->has_signer ? s : "", pz->test_only ? " (TEST-ONLY puzzle)" : "");
        if (pz->has_signer) printf("%s: the signature covers the %s\n", path, covers);
        if (payload)
            printf("%s: the encrypted payload's age header is well formed and its length fits age's chunks (a cut "
                   "inside the last chunk shows only when it is opened)\n", path);
        else if (container)
            printf("%s: the encrypted payload was not checked (standard input: only the puzzle is read)\n", path);
        if (container)
            printf("%s: the notice text is not authenticated: rely on the lines above, not on it\n", path);
    }
    tl_puzzle_free(pz);
    return ret;
}
