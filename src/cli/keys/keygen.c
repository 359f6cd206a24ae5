/* SPDX-License-Identifier: ISC */
/* src/cli/keys/keygen.c — `rxlock keygen`: a new age identity file (mode
 * 0600, no clobber without --force), X25519 or, with --pq, the hybrid
 * post-quantum mlkem768x25519 kind; prints its recipient (as age-keygen).
 * `keygen -y FILE` prints the recipient of an existing identity file (as
 * age-keygen -y). */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "rxlock/age.h"
#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

const char cmd_keygen_usage[] =
    "usage: rxlock keygen [--pq] [--force] -o, --output FILE|-\n"
    "       rxlock keygen -y [FILE|-]\n"
    "\n"
    "Create an age identity file (written mode 0600, never over an existing file\n"
    "without --force) and print its recipient on stdout.  '-o -' writes the\n"
    "identity to standard output and the recipient to standard error.\n"
    "      --pq           a post-quantum hybrid identity (AGE-SECRET-KEY-PQ-1...,\n"
    "                     recipient age1pq1..., mlkem768x25519: ML-KEM-768 +\n"
    "                     X25519); opened by age >= 1.3 and typage, not age 1.1\n"
    "  -o, --output FILE  the identity file ('-': standard output)\n"
    "      --force        replace an existing FILE\n"
    "  -y [FILE]          print the recipient of the identity in FILE (default or\n"
    "                     '-': standard input), as age-keygen -y; nothing is written\n"
    "exit: 0 ok, 1 failure, 2 usage error\n";

/* -y: the recipient of an identity file (X25519 or post-quantum). */
static int convert(const char *path) {
    const char *name = strcmp(path, "-") ? path : "/dev/stdin";
    uint8_t *sk = sodium_malloc(32);
    static char rec[TL_AGE_PQ_RECIPIENT_MAX];
    int pq = 0;
    if (!sk) return cli_error("out of memory");
    int rc = age_identity_file_read_any(name, sk, &pq);
    int saved = errno;
    if (rc == 0 && cli_identity_recipient(sk, pq, rec) != 0) rc = TL_AGE_EKEY;
    sodium_free(sk);
    if (rc == TL_AGE_EIO) return cli_error("failed to open input file %s: %s", path, strerror(saved));
    if (rc) return cli_error("failed to parse input %s: %s (want an age identity file: AGE-SECRET-KEY-1... or "
                             "AGE-SECRET-KEY-PQ-1..., from rxlock keygen or age-keygen)", path, age_strerror(rc));
    printf("%s\n", rec);
    return CLI_OK;
}

int cmd_keygen(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
        {"pq", no_argument, 0, 'p'}, {0, 0, 0, 0}
    };
    const char *out = NULL;
    int force = 0, pq = 0, conv = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:y", opts, NULL)) != -1) {
        switch (c) {
        case 'y': conv = 1; break;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'p': pq = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (conv) {
        if (out || force || pq) return cli_usage_error(argv[0], "-y reads an identity: it takes no -o, --force or --pq");
        if (argc - optind > 1) return cli_usage_error(argv[0], "-y: too many arguments");
        return convert(optind < argc ? argv[optind] : "-");
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(argv[0], "missing -o FILE");
    const cli_path files[] = { { out, "-o", CLI_PATH_OUT } };
    if (cli_paths_check(files, 1, force)) return CLI_FAIL;
    if (sodium_init() < 0) return cli_error("random generator failed");
    uint8_t *sk = sodium_malloc(32);
    char *line = sodium_malloc(TL_AGE_IDENTITY_MAX);
    static char rec[TL_AGE_PQ_RECIPIENT_MAX];
    if (!sk || !line) { sodium_free(sk); sodium_free(line); return cli_error("out of memory"); }
    randombytes_buf(sk, 32);
    int rc = cli_identity_recipient(sk, pq, rec) != 0 ? TL_AGE_EKEY : 0;
    int std = cli_path_is_std(out), saved = 0;
    if (rc == 0 && std) {   /* the identity on stdout, the recipient on stderr (as age-keygen) */
        rc = (pq ? age_pq_identity_encode(sk, line) : age_identity_encode(sk, line)) ||
             printf("# public key: %s\n%s\n", rec, line) < 0 || fflush(stdout) != 0 ? TL_AGE_EIO : 0;
        saved = errno;
    } else if (rc == 0) {
        rc = pq ? age_pq_identity_file_write(out, sk, NULL, force) : age_identity_file_write(out, sk, NULL, force);
        saved = errno;
    }
    sodium_free(sk);
    sodium_free(line);
    if (rc == TL_AGE_EIO) {
        errno = saved;
        return cli_output_error(std ? "stdout" : out);
    }
    if (rc) return cli_error("keygen: %s", age_strerror(rc));
    fprintf(std ? stderr : stdout, "%s\n", rec);
    return CLI_OK;
}
