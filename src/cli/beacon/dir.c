/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/dir.c — a beacon directory's files (docs/FORMAT.md
 * §Beacon feed, Files): beacon.json, the signer key, each epoch's puzzle
 * (private until its release time, then public), the release step (never
 * a puzzle before its time) and the sealed release (each puzzle encrypted
 * to the recipient of its sealing epoch); the beacon's log line, times as
 * text, digests and identity parsing shared by the beacon commands. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void bcn_log(const char *fmt, ...) {
    char t[32];
    time_t now = (time_t)tl_beacon_now();
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%SZ", &tm);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s rxlock beacon: ", t);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void bcn_sha256(const uint8_t *buf, size_t len, uint8_t out[32]) {
    crypto_hash_sha256(out, buf, len);
}

int bcn_signer_load(const bcn_dir *b, uint8_t sk[64]) {
    char p[PATH_MAX];
    uint8_t pk[32];
    bcn_file(b, p, "private/signer.key");
    int rc = tl_signer_load(p, sk, pk);
    if (rc) return cli_error("%s: cannot load the signer key: %s", p, rc == TL_EIO ? strerror(errno) : rxlock_strerror(rc));
    if (memcmp(pk, b->cfg.s.signer, 32) != 0) {
        sodium_memzero(sk, 64);
        return cli_error("%s: not the signer beacon.json names", p);
    }
    return CLI_OK;
}

unsigned bcn_kinds(unsigned kinds, int out[2]) {
    unsigned n = 0;
    if (kinds & TL_BEACON_CLASSIC) out[n++] = TL_BEACON_CLASSIC;
    if (kinds & TL_BEACON_PQ) out[n++] = TL_BEACON_PQ;
    return n;
}

/* 1 read, 0 absent, -1 error (message). */
static int read_opt(const char *path, size_t max, uint8_t **buf, size_t *len) {
    *buf = NULL;
    if (util_read_file(path, max, buf, len) == 0) return 1;
    if (errno == ENOENT) return 0;
    cli_error("%s: %s", path, strerror(errno));
    return -1;
}

int bcn_puzzle_read(const bcn_dir *b, uint64_t E, int kind, uint8_t **buf, size_t *len, int *is_public) {
    char stem[48], p[PATH_MAX];
    bcn_stem(&b->cfg.s, E, kind, stem);
    bcn_file(b, p, "public/puzzles/%s.json", stem);
    int r = read_opt(p, TL_MAX_PUZZLE_BYTES, buf, len);
    if (is_public) *is_public = r == 1;
    if (r) return r;
    bcn_file(b, p, "private/puzzles/%s.json", stem);
    return read_opt(p, TL_MAX_PUZZLE_BYTES, buf, len);
}

static int exists(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0;
}

int bcn_epoch_made(const bcn_dir *b, uint64_t E) {
    int kinds[2];
    unsigned nk = bcn_kinds(b->cfg.s.kinds, kinds);
    for (unsigned q = 0; q < nk; q++) {
        char stem[48], p[PATH_MAX];
        bcn_stem(&b->cfg.s, E, kinds[q], stem);
        bcn_file(b, p, "private/puzzles/%s.json", stem);
        if (exists(p)) continue;
        bcn_file(b, p, "public/puzzles/%s.json", stem);
        if (!exists(p)) return 0;
    }
    return 1;
}

int bcn_release_due(const bcn_dir *b, int64_t now, int *changed) {
    const tl_beacon_sched *s = &b->cfg.s;
    int before = 0;
    uint64_t last = tl_beacon_epoch_at(s, now, &before);
    if (before) return CLI_OK;
    int kinds[2];
    unsigned nk = bcn_kinds(s->kinds, kinds);
    /* the epochs released by now: every E <= last whose private puzzle exists;
     * look back at most the feed's length (older ones were handled then) */
    uint64_t first = last >= TL_BEACON_MAX_EPOCHS ? last - TL_BEACON_MAX_EPOCHS + 1 : 0;
    for (uint64_t E = first; E <= last; E++) {
        if (tl_beacon_release(s, E) > now) break;   /* never before its time */
        for (unsigned q = 0; q < nk; q++) {
            char stem[48], priv[PATH_MAX], pub[PATH_MAX];
            bcn_stem(s, E, kinds[q], stem);
            bcn_file(b, pub, "public/puzzles/%s.json", stem);
            bcn_file(b, priv, "private/puzzles/%s.json", stem);
            if (exists(pub) || !exists(priv)) continue;
            uint8_t *buf = NULL;
            size_t len = 0;
            if (read_opt(priv, TL_MAX_PUZZLE_BYTES, &buf, &len) != 1) return CLI_FAIL;
            int w = util_write_file_atomic(pub, buf, len, 0, 0644);
            free(buf);
            if (w != 0 && errno != EEXIST) return cli_error("%s: %s", pub, strerror(errno));
            util_kill_point("beacon-released");
            bcn_log("released epoch %llu%s%s: %s", (unsigned long long)E, nk > 1 ? " " : "",
                    nk > 1 ? tl_beacon_kind_name(kinds[q]) : "", pub);
            (*changed)++;
        }
    }
    return CLI_OK;
}

/* The recipient of epoch j that seals later epochs: its post-quantum one
 * where the beacon has that kind.  CLI_OK, or CLI_FAIL (message). */
static int seal_target(const bcn_dir *b, uint64_t j, int *to, uint8_t pk[32], uint8_t *pq) {
    *to = b->cfg.s.kinds & TL_BEACON_PQ ? TL_BEACON_PQ : TL_BEACON_CLASSIC;
    uint8_t *buf = NULL;
    size_t len = 0;
    int r = bcn_puzzle_read(b, j, *to, &buf, &len, NULL);
    if (r != 1) { free(buf); return r == 0 ? CLI_USAGE : CLI_FAIL; }   /* CLI_USAGE: j was never generated */
    tl_puzzle *pz = NULL;
    char err[256];
    int rc = tl_puzzle_parse((const char *)buf, len, &pz, err, sizeof err);
    free(buf);
    if (rc) return cli_error("epoch %llu's puzzle: %s", (unsigned long long)j, err);
    if (*to == TL_BEACON_PQ) memcpy(pq, pz->pq_recipient, TL_AGE_PQ_RECIPIENT_BYTES);
    else memcpy(pk, pz->epoch_pk, 32);
    tl_puzzle_free(pz);
    return CLI_OK;
}

int bcn_seal(const bcn_dir *b, uint64_t E, int *changed) {
    const tl_beacon_sched *s = &b->cfg.s;
    uint64_t j;
    if (!tl_beacon_seal(s, E, &j)) return CLI_OK;   /* operator-only */
    int kinds[2], to;
    unsigned nk = bcn_kinds(s->kinds, kinds);
    uint8_t pk[32], *pq = malloc(TL_AGE_PQ_RECIPIENT_BYTES);
    if (!pq) return cli_error("out of memory");
    int rc = CLI_OK, have_target = 0;
    for (unsigned q = 0; q < nk && rc == CLI_OK; q++) {
        char stem[48], out[PATH_MAX];
        bcn_stem(s, E, kinds[q], stem);
        bcn_file(b, out, "public/sealed/%s.age", stem);
        if (exists(out)) continue;
        if (!have_target) {
            int t = seal_target(b, j, &to, pk, pq);
            if (t == CLI_USAGE) { rc = CLI_OK; break; }   /* j never generated: E stays operator-only */
            if (t) { rc = CLI_FAIL; break; }
            have_target = 1;
        }
        uint8_t *buf = NULL;
        size_t len = 0;
        if (bcn_puzzle_read(b, E, kinds[q], &buf, &len, NULL) != 1) { free(buf); rc = cli_error("epoch %llu: no puzzle to seal", (unsigned long long)E); break; }
        int in = memfd_create("rxlock-seal", MFD_CLOEXEC);
        util_atomic a;
        if (in < 0 || util_write_all(in, buf, len) != 0 || lseek(in, 0, SEEK_SET) != 0) {
            rc = cli_error("sealing epoch %llu: %s", (unsigned long long)E, strerror(errno));
        } else if (util_test_enospc("public/sealed") || util_atomic_open(&a, out, 0, 0644) != 0) {   /* test: a full disk */
            rc = cli_error("%s: %s: epoch %llu is not offered until it is sealed; free space on the disk of %s (a "
                           "full disk?): `beacon run` seals it at its next step", out, strerror(errno),
                           (unsigned long long)E, b->dir);
        } else {
            int e = to == TL_BEACON_PQ
                        ? age_pq_encrypt_fd(in, a.fd, (const uint8_t (*)[TL_AGE_PQ_RECIPIENT_BYTES])pq, 1, 0)
                        : age_encrypt_fd(in, a.fd, (const uint8_t (*)[32])pk, 1, 0);
            if (e) { util_atomic_abort(&a); rc = cli_error("sealing epoch %llu: %s", (unsigned long long)E, age_strerror(e)); }
            else if (util_atomic_commit(&a) != 0) rc = cli_error("%s: %s", out, strerror(errno));
            else {
                util_kill_point("beacon-sealed");
                bcn_log("sealed epoch %llu%s%s to epoch %llu's %s recipient: %s", (unsigned long long)E,
                        nk > 1 ? " " : "", nk > 1 ? tl_beacon_kind_name(kinds[q]) : "", (unsigned long long)j,
                        tl_beacon_kind_name(to), out);
                (*changed)++;
            }
        }
        if (in >= 0) close(in);
        sodium_memzero(buf, len);
        free(buf);
    }
    free(pq);
    return rc;
}
