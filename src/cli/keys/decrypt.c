/* SPDX-License-Identifier: ISC */
/* src/cli/keys/decrypt.c — `rxlock decrypt`: open an age v1 file (binary or
 * armored) with age identity files, X25519 or post-quantum, e.g. a solved
 * epoch identity. */
#include "cli/keys/keys_cli.h"
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_decrypt_usage[] =
    "usage: rxlock decrypt -i IDENTITY [-i IDENTITY ...] [-o OUT] [--force] [FILE|-]\n"
    "  Decrypt an age v1 file (binary or ASCII-armored; default: stdin).\n"
    "  -i, --identity F   an age identity file (AGE-SECRET-KEY-1... or the\n"
    "                     post-quantum AGE-SECRET-KEY-PQ-1...), e.g. the identity\n"
    "                     'rxlock solve' wrote\n"
    "  -o, --output OUT   write the plaintext to OUT atomically (default or '-':\n"
    "                     stdout); on any error OUT is not created\n"
    "      --force        replace an existing OUT\n"
    "  exit codes: 0 ok, 1 corrupt/truncated/tampered input or I/O error,\n"
    "              2 usage error, 3 no identity matches the file\n"
    "usage: rxlock decrypt --feed DIR|URL [--feed DIR|URL ...] [--ids OUTDIR ...] [-o OUT]\n"
    "                      [--force] FILE\n"
    "  Open a file `rxlock encrypt --feed` wrote: FILE.beacon names each layer's feed,\n"
    "  signer and epoch; give one --feed per layer, in its order (the recorded place,\n"
    "  or any copy of the beacon's public/ files).  Each identity is fetched from its\n"
    "  feed once published (or read from OUTDIR, where `rxlock beacon solve --ids\n"
    "  OUTDIR` wrote it; several --ids are read; a file there that does not open the\n"
    "  recipient is set aside as FILE.set-aside); when one is not yet, it says when it\n"
    "  is expected.  The feed must agree with FILE.beacon (signer, recipient, earliest\n"
    "  opening).  --floor-table F: this client's floor table.\n";

int cmd_decrypt(int argc, char **argv) {
    for (int k = 1; k < argc && strcmp(argv[k], "--"); k++)   /* a beacon's epochs: feed_client.c */
        if (!strcmp(argv[k], "--feed") || !strncmp(argv[k], "--feed=", 7)) return cmd_decrypt_feed(argc, argv);
    static const struct option opts[] = {
        {"identity", required_argument, NULL, 'i'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'F'},
        {NULL, 0, NULL, 0}};
    uint8_t sks[TL_AGE_MAX_IDENTITIES][32], seeds[TL_AGE_MAX_IDENTITIES][32], key[32];
    size_t nsk = 0, nseed = 0, nid = 0;
    int force = 0, c, rc = CLI_FAIL;
    const char *out = NULL, *in_path = "-";
    const char *ids[TL_AGE_MAX_IDENTITIES];
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":i:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (nid == TL_AGE_MAX_IDENTITIES) return cli_usage_error(argv[0], "too many identities");
            ids[nid++] = optarg;
            break;
        case 'o': out = optarg; break;
        case 'F': force = 1; break;
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (nid == 0) return cli_usage_error(argv[0], "missing -i IDENTITY");
    if (argc - optind > 1) return cli_usage_error(argv[0], "too many arguments");
    if (argc - optind == 1) in_path = argv[optind];
    cli_path files[TL_AGE_MAX_IDENTITIES + 2] = { { in_path, "FILE", CLI_PATH_IN }, { out, "-o", CLI_PATH_OUT } };
    for (size_t i = 0; i < nid; i++) files[2 + i] = (cli_path){ ids[i], "-i", CLI_PATH_IN };
    if (cli_paths_check(files, 2 + nid, force)) return CLI_FAIL;
    for (size_t i = 0; i < nid; i++) {
        if (strcmp(ids[i], "-") == 0 && strcmp(in_path, "-") == 0) {
            rc = cli_usage_error(argv[0], "the identity and the input cannot both be stdin");
            goto wipe;
        }
        int pq = 0;
        if (age_identity_file_read_any(ids[i], key, &pq) != 0) {
            struct stat sb;   /* a regular file only: a FIFO's open could block */
            int e = errno, fd = cli_path_is_std(ids[i]) || stat(ids[i], &sb) != 0 || !S_ISREG(sb.st_mode) ? -1
                                : open(ids[i], O_RDONLY | O_CLOEXEC | O_NONBLOCK);
            cli_file_kind k = fd >= 0 ? cli_file_kind_fd(fd) : CLI_KIND_OTHER;
            if (fd >= 0) close(fd);
            errno = e;
            if (k == CLI_KIND_PUZZLE)   /* the puzzle itself, not what solving it gives */
                rc = cli_error("-i %s: a puzzle, not an identity: solve it first (rxlock solve %s -o IDENTITY), then "
                               "give -i IDENTITY", ids[i], ids[i]);
            else if (k != CLI_KIND_OTHER)
                rc = cli_error("-i %s: %s, not an identity (AGE-SECRET-KEY-1... or AGE-SECRET-KEY-PQ-1...)", ids[i],
                               cli_kind_name(k));
            else
                rc = cli_error("%s: cannot read an age identity (AGE-SECRET-KEY-1... or AGE-SECRET-KEY-PQ-1...): %s",
                               ids[i], errno == EINVAL ? "no valid key line" : strerror(errno));
            goto wipe;
        }
        memcpy(pq ? seeds[nseed++] : sks[nsk++], key, 32);
    }
    cli_io io;
    if ((rc = cli_io_open(&io, in_path, out, force, 0600))) goto wipe;
    /* a puzzle or a .rxlock file: name the command that reads it */
    cli_file_kind kind = io.in_fd > 0 ? cli_file_kind_fd(io.in_fd) : CLI_KIND_OTHER;
    if (kind == CLI_KIND_PUZZLE || kind == CLI_KIND_CONTAINER) {
        cli_io_finish(&io, 0);
        rc = cli_error("%s is not an age file: it is %s", in_path, cli_kind_hint(kind));
        goto wipe;
    }
    /* stdout a regular file: whether anything was written can be seen
     * (a pipe or terminal: it may have been) */
    off_t at0 = io.out_path ? -1 : lseek(io.out_fd, 0, SEEK_CUR);
    int e = age_decrypt_fd_any(io.in_fd, io.out_fd, nsk ? (const uint8_t (*)[32])sks : NULL, nsk,
                                  nseed ? (const uint8_t (*)[32])seeds : NULL, nseed);
    int saved = errno;
    int wrote = !io.out_path && !(at0 >= 0 && lseek(io.out_fd, 0, SEEK_CUR) == at0);
    rc = cli_io_finish(&io, e == 0);
    const char *name = cli_path_is_std(in_path) ? "standard input" : in_path;
    if (e == TL_AGE_EIO) rc = cli_error("decrypt: %s: %s: %s", name, age_strerror(e), strerror(saved));
    else if (e) rc = cli_error("decrypt: %s: %s%s", name, age_strerror(e),   /* header errors come before any output */
                               e == TL_AGE_ENOMATCH ? ": give the identity it was encrypted to with -i"
                               : !wrote || !cli_age_payload_error(e) ? ""
                               : " (output written so far to stdout is not to be trusted)");
    if (e == TL_AGE_ENOMATCH) rc = CLI_VERIFY;
wipe:
    sodium_memzero(sks, sizeof sks);
    sodium_memzero(seeds, sizeof seeds);
    sodium_memzero(key, sizeof key);
    return rc;
}
