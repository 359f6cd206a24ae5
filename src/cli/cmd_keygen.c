/* SPDX-License-Identifier: ISC */
/* src/cli/cmd_keygen.c — `rxlock keygen`: a new age identity file (mode
 * 0600, no clobber without --force), X25519 or, with --pq, the hybrid
 * post-quantum mlkem768x25519 kind; prints its recipient (as age-keygen). */
#include "cli/cli.h"
#include "rxlock/age.h"
#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

const char cmd_keygen_usage[] =
    "usage: rxlock keygen [--pq] [--force] -o FILE\n"
    "\n"
    "Create an age identity file (written mode 0600, never over an existing file\n"
    "without --force) and print its recipient on stdout.\n"
    "      --pq           a post-quantum hybrid identity (AGE-SECRET-KEY-PQ-1...,\n"
    "                     recipient age1pq1..., mlkem768x25519: ML-KEM-768 +\n"
    "                     X25519); opened by age >= 1.3 and typage, not age 1.1\n"
    "  -o, --output FILE  the identity file\n"
    "      --force        replace an existing FILE\n"
    "exit: 0 ok, 1 failure, 2 usage error\n";

int cmd_keygen(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
        {"pq", no_argument, 0, 'p'}, {0, 0, 0, 0}
    };
    const char *out = NULL;
    int force = 0, pq = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'p': pq = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(argv[0], "missing -o FILE");
    if (sodium_init() < 0) return cli_error("random generator failed");
    uint8_t sk[32], pk[32];
    static uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES];
    static char rec[TL_AGE_PQ_RECIPIENT_MAX];
    randombytes_buf(sk, sizeof sk);
    int rc = pq ? tl_age_pq_identity_file_write(out, sk, NULL, force)
                : tl_age_identity_file_write(out, sk, NULL, force);
    int saved = errno;
    if (rc == 0)
        rc = pq ? (tl_age_pq_public_key(sk, rcp) || tl_age_pq_recipient_encode(rcp, rec))
                : (tl_age_public_key(sk, pk) || tl_age_recipient_encode(pk, rec));
    sodium_memzero(sk, sizeof sk);
    if (rc == TL_AGE_EIO)
        return cli_error("%s: %s", out, saved == EEXIST ? "already exists (use --force to overwrite)" : strerror(saved));
    if (rc) return cli_error("keygen: %s", tl_age_strerror(rc));
    printf("%s\n", rec);
    return CLI_OK;
}
