/* SPDX-License-Identifier: ISC */
/* src/cli/keys/encrypt.c — `rxlock encrypt`: encrypt a file or stdin to one
 * or more age recipients (age v1 format, optional ASCII armor): X25519
 * (age1...) or post-quantum mlkem768x25519 (age1pq1...), never both; from
 * -r (a recipient, or a puzzle whose epoch recipient it takes) and -R (a
 * recipients file, as age reads one). */
#include "cli/keys/keys_cli.h"
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <limits.h>
#include <getopt.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char cmd_encrypt_usage[] =
    "usage: rxlock encrypt (-r RECIPIENT | -r PUZZLE | -R FILE) ... [-a] [-o OUT] [--force] [FILE|-]\n"
    "  Encrypt FILE (default: stdin) in the age v1 format; 'age -d' opens it.\n"
    "  -r, --recipient R  an age recipient, e.g. an epoch key: X25519 (age1...) or\n"
    "                     post-quantum mlkem768x25519 (age1pq1..., 'rxlock keygen\n"
    "                     --pq', age 1.3, typage); one file takes one kind only.\n"
    "                     A puzzle file (epoch.json, or a .rxlock file) instead: its\n"
    "                     epoch recipient, checked as `rxlock verify` checks it\n"
    "  -R, --recipients-file FILE  recipients one per line, as age reads them ('#'\n"
    "                     comments and blank lines skipped); repeatable\n"
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
    "  --pq               the beacon's post-quantum epoch key (age1pq1)\n"
    "  --floor-table F    this client's floor table (default: the built-in one); the\n"
    "                     faster of its row and the feed's floor gives each opening\n"
    "  Only a scheduled epoch releasing after this clock and the feed's is chosen; a\n"
    "  clock more than 5m behind the feed's is refused (docs/SECURITY.md).\n";

typedef struct {
    uint8_t pks[TL_AGE_MAX_RECIPIENTS][32];
    uint8_t pqs[TL_AGE_MAX_RECIPIENTS][TL_AGE_PQ_RECIPIENT_BYTES];   /* 76 KiB */
    size_t npk, npq;
} recipients;

/* One recipient string; `where` names it in a message ("" for -r).
 * 0, or -1 after a usage error message. */
static int add_recipient(recipients *r, const char *cmd, const char *s, const char *where) {
    if (r->npk + r->npq == TL_AGE_MAX_RECIPIENTS)
        return cli_usage_error(cmd, "too many recipients (at most %d)", TL_AGE_MAX_RECIPIENTS), -1;
    if (strncmp(s, "age1pq1", 7) == 0) {
        if (age_pq_recipient_decode(s, r->pqs[r->npq]) != 0)
            return cli_usage_error(cmd, "%smalformed recipient '%.40s...': not an age post-quantum recipient "
                                   "(age1pq1...)", where, s), -1;
        r->npq++;
    } else {
        if (age_recipient_decode(s, r->pks[r->npk]) != 0)
            return cli_usage_error(cmd, "%smalformed recipient '%.80s': not an age recipient (age1... or "
                                   "age1pq1...)", where, s), -1;
        r->npk++;
    }
    return 0;
}

/* -r PUZZLE: the epoch recipient of a puzzle file (or a .rxlock file's). */
static int add_puzzle(recipients *r, const char *cmd, const char *path) {
    tl_puzzle *pz = NULL;
    static char rcp[TL_AGE_PQ_RECIPIENT_MAX];
    if (cli_puzzle_load(path, 1, &pz, NULL)) return -1;
    int rc = tl_puzzle_verify(pz, NULL) != TL_OK ? cli_error("%s: the puzzle does not verify (rxlock verify %s)", path, path)
             : cli_epoch_recipient(pz, rcp);
    tl_puzzle_free(pz);
    return rc ? -1 : add_recipient(r, cmd, rcp, "");
}

/* -R FILE: age's recipients file: one recipient a line, '#' comments and
 * blank lines skipped; at least one. */
static int add_file(recipients *r, const char *cmd, const char *path) {
    FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
    if (!f) return cli_error("failed to open recipient file: open %s: %s", path, strerror(errno)), -1;
    char line[4096], where[PATH_MAX + 64];
    int n = 0, got = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        n++;
        size_t len = strcspn(line, "\r\n");
        if (line[len] == 0 && !feof(f)) { rc = cli_error("recipients file \"%s\": line %d is too long", path, n); break; }
        line[len] = 0;
        if (line[0] == 0 || line[0] == '#') continue;
        snprintf(where, sizeof where, "recipients file \"%s\" line %d: ", path, n);
        rc = add_recipient(r, cmd, line, where);
        got++;
    }
    if (rc == 0 && ferror(f)) rc = cli_error("failed to read recipients file \"%s\": %s", path, strerror(errno));
    if (rc == 0 && !got) rc = cli_error("no recipients found in file \"%s\"", path);
    if (f != stdin) fclose(f);
    return rc ? -1 : 0;
}

int cmd_encrypt(int argc, char **argv) {
    for (int k = 1; k < argc && strcmp(argv[k], "--"); k++)   /* a beacon's epoch: feed_client.c */
        if (!strcmp(argv[k], "--feed") || !strncmp(argv[k], "--feed=", 7)) return cmd_encrypt_feed(argc, argv);
    static const struct option opts[] = {
        {"recipient", required_argument, NULL, 'r'}, {"recipients-file", required_argument, NULL, 'R'},
        {"armor", no_argument, NULL, 'a'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'F'},
        {NULL, 0, NULL, 0}};
    static recipients rs;
    int armor = 0, force = 0, c;
    const char *out = NULL, *in_path = "-";
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":r:R:ao:", opts, NULL)) != -1) {
        switch (c) {
        case 'r': {
            /* a recipient, or a puzzle file that holds one (not "age1...") */
            int file = strncmp(optarg, "age1", 4) != 0 && access(optarg, F_OK) == 0;
            if (!file && strncmp(optarg, "age1", 4) != 0)
                return cli_usage_error(argv[0], "-r %s: not an age recipient (age1...) and no such puzzle file", optarg);
            if (file ? add_puzzle(&rs, argv[0], optarg) : add_recipient(&rs, argv[0], optarg, ""))
                return file ? CLI_FAIL : CLI_USAGE;
            break;
        }
        case 'R':
            if (add_file(&rs, argv[0], optarg)) return CLI_FAIL;
            break;
        case 'a': armor = 1; break;
        case 'o': out = optarg; break;
        case 'F': force = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    const size_t npk = rs.npk, npq = rs.npq;
    if (npk + npq == 0) return cli_usage_error(argv[0], "missing -r RECIPIENT or -R FILE");
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
    int e = npq ? age_pq_encrypt_fd(io.in_fd, io.out_fd, (const uint8_t (*)[TL_AGE_PQ_RECIPIENT_BYTES])rs.pqs, npq, armor)
                : age_encrypt_fd(io.in_fd, io.out_fd, (const uint8_t (*)[32])rs.pks, npk, armor);
    int saved = errno;
    rc = cli_io_finish(&io, e == 0);
    if (e == TL_AGE_EIO) return cli_error("encrypt: %s: %s", age_strerror(e), strerror(saved));
    if (e) return cli_error("encrypt: %s", age_strerror(e));
    return rc;
}
