/* SPDX-License-Identifier: ISC */
/* src/cli/cmd_encrypt.c — `rxlock encrypt`: encrypt a file or stdin to one
 * or more age recipients (age v1 format, optional ASCII armor): X25519
 * (age1...) or post-quantum mlkem768x25519 (age1pq1...), never both. */
#include "cli/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char cmd_encrypt_usage[] =
    "usage: rxlock encrypt -r RECIPIENT [-r RECIPIENT ...] [-a] [-o OUT] [--force] [FILE|-]\n"
    "  Encrypt FILE (default: stdin) in the age v1 format; 'age -d' opens it.\n"
    "  -r, --recipient R  an age recipient, e.g. an epoch key: X25519 (age1...) or\n"
    "                     post-quantum mlkem768x25519 (age1pq1..., 'rxlock keygen\n"
    "                     --pq', age 1.3, typage); one file takes one kind only\n"
    "  -a, --armor        write PEM ASCII armor instead of binary\n"
    "  -o, --output OUT   write to OUT atomically (default or '-': stdout)\n"
    "      --force        replace an existing OUT\n"
    "usage: rxlock encrypt --feed DIR|URL [--feed DIR|URL ...] [--signer-pin HEX ...]\n"
    "                      --open-after DATE|DURATION [--pq] [-a] [-o OUT] [--force] FILE\n"
    "  Encrypt to a beacon's epoch (`rxlock beacon`): per feed, the earliest epoch that\n"
    "  opens no sooner than DATE (YYYY-MM-DD[THH:MM[:SS]Z] UTC, @UNIX) or DURATION from\n"
    "  now and is still open for encryption; several feeds nest one layer each (the\n"
    "  same as age -r A | age -r B).  Writes OUT (default FILE.age, an age file) and\n"
    "  OUT.beacon naming each feed and epoch; `rxlock decrypt --feed` opens it.\n"
    "  --signer-pin HEX   one per --feed, in order: refuse a feed signed by another key\n"
    "  --pq               the beacon's post-quantum epoch key (age1pq1)\n";

int cmd_encrypt(int argc, char **argv) {
    for (int k = 1; k < argc && strcmp(argv[k], "--"); k++)   /* a beacon's epoch: beacon_client.c */
        if (!strcmp(argv[k], "--feed") || !strncmp(argv[k], "--feed=", 7)) return cmd_encrypt_feed(argc, argv);
    static const struct option opts[] = {
        {"recipient", required_argument, NULL, 'r'},
        {"armor", no_argument, NULL, 'a'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'F'},
        {NULL, 0, NULL, 0}};
    uint8_t pks[TL_AGE_MAX_RECIPIENTS][32];
    static uint8_t pqs[TL_AGE_MAX_RECIPIENTS][TL_AGE_PQ_RECIPIENT_BYTES];   /* 76 KiB */
    size_t npk = 0, npq = 0;
    int armor = 0, force = 0, c;
    const char *out = NULL, *in_path = "-";
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:ao:", opts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (npk + npq == TL_AGE_MAX_RECIPIENTS) return cli_usage_error(argv[0], "too many recipients");
            if (strncmp(optarg, "age1pq1", 7) == 0) {       /* issue 21 */
                if (tl_age_pq_recipient_decode(optarg, pqs[npq]) != 0)
                    return cli_usage_error(argv[0], "'%.40s...' is not an age post-quantum recipient (age1pq1...)", optarg);
                npq++;
            } else {
                if (tl_age_recipient_decode(optarg, pks[npk]) != 0)
                    return cli_usage_error(argv[0], "'%s' is not an age recipient (age1... or age1pq1...)", optarg);
                npk++;
            }
            break;
        case 'a': armor = 1; break;
        case 'o': out = optarg; break;
        case 'F': force = 1; break;
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (npk + npq == 0) return cli_usage_error(argv[0], "missing -r RECIPIENT");
    if (npk && npq)
        return cli_usage_error(argv[0], "post-quantum (age1pq1...) and X25519 (age1...) recipients cannot be "
                                        "mixed: the classic ones would undo the post-quantum protection");
    if (argc - optind > 1) return cli_usage_error(argv[0], "too many arguments");
    if (argc - optind == 1) in_path = argv[optind];

    if (!armor && (!out || !strcmp(out, "-")) && isatty(1))
        return cli_error("refusing to write binary ciphertext to a terminal (use -a or -o)");
    const cli_path files[] = { { in_path, "FILE", CLI_PATH_IN }, { out, "-o", CLI_PATH_OUT } };
    if (cli_paths_check(files, 2, force)) return CLI_FAIL;
    cli_io io;
    int rc = cli_io_open(&io, in_path, out, force, 0644);
    if (rc) return rc;
    int e = npq ? tl_age_pq_encrypt_fd(io.in_fd, io.out_fd, (const uint8_t (*)[TL_AGE_PQ_RECIPIENT_BYTES])pqs, npq, armor)
                : tl_age_encrypt_fd(io.in_fd, io.out_fd, (const uint8_t (*)[32])pks, npk, armor);
    int saved = errno;
    rc = cli_io_finish(&io, e == 0);
    if (e == TL_AGE_EIO) return cli_error("encrypt: %s: %s", tl_age_strerror(e), strerror(saved));
    if (e) return cli_error("encrypt: %s", tl_age_strerror(e));
    return rc;
}
