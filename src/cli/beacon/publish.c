/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/publish.c — feed.json rebuilt from the beacon
 * directory's files alone, so that whatever a kill left is either listed
 * complete or not at all: an epoch is listed when every kind's puzzle
 * exists (private or released) and, where the sealing rule names a
 * generated epoch, its sealed file too.  Signed, and written with the
 * atomic replace under private/feed.lock (the service and a solver on the
 * same DIR both publish). */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Epoch indices named by DIR/REL's "*.json" files (bounded). */
static int scan(const bcn_dir *b, const char *rel, uint64_t **v, size_t *n, size_t *cap) {
    char p[PATH_MAX];
    bcn_file(b, p, "%s", rel);
    DIR *d = opendir(p);
    if (!d) return errno == ENOENT ? CLI_OK : cli_error("%s: %s", p, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        if (de->d_name[0] < '0' || de->d_name[0] > '9') continue;
        unsigned long long E = strtoull(de->d_name, &end, 10);
        if (strcmp(end, ".json") && strcmp(end, "-classic.json") && strcmp(end, "-pq.json")) continue;
        if (E > 4000000) continue;
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            if (nc > (1u << 24)) break;
            uint64_t *nv = realloc(*v, nc * sizeof *nv);
            if (!nv) { closedir(d); return cli_error("out of memory"); }
            *v = nv;
            *cap = nc;
        }
        (*v)[(*n)++] = E;
    }
    closedir(d);
    return CLI_OK;
}

static int file_sha(const char *p, uint8_t out[32], size_t max) {
    uint8_t *buf = NULL;
    size_t len = 0;
    if (util_read_file(p, max, &buf, &len) != 0) return errno == ENOENT ? 0 : -1;
    bcn_sha256(buf, len, out);
    free(buf);
    return 1;
}

static int exists(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0;
}

/* Fill key q of epoch E from the files.  1 listed, 0 not (yet), -1 error. */
static int fill_key(const bcn_dir *b, uint64_t E, int kind, tl_beacon_key *y) {
    const tl_beacon_sched *s = &b->cfg.s;
    uint8_t *buf = NULL;
    size_t len = 0;
    int pub = 0, r = bcn_puzzle_read(b, E, kind, &buf, &len, &pub);
    if (r != 1) return r;
    tl_puzzle *pz = NULL;
    char err[256], stem[48], p[PATH_MAX];
    int rc = tl_puzzle_parse((const char *)buf, len, &pz, err, sizeof err);
    if (rc == 0 && pz->pq_epoch != (kind == TL_BEACON_PQ)) { rc = -1; snprintf(err, sizeof err, "wrong epoch kind"); }
    if (rc == 0 && cli_epoch_recipient(pz, y->recipient) != CLI_OK) rc = -1;
    tl_puzzle_free(pz);
    bcn_sha256(buf, len, y->puzzle_sha256);
    free(buf);
    if (rc) { cli_error("epoch %llu's puzzle: %s", (unsigned long long)E, err); return -1; }
    y->kind = kind;
    bcn_stem(s, E, kind, stem);
    if (pub) tl_beacon_path(s, "puzzles", E, kind, ".json", y->puzzle_path);
    bcn_file(b, p, "public/identities/%s.txt", stem);
    if (exists(p)) tl_beacon_path(s, "identities", E, kind, ".txt", y->identity);
    uint64_t j;
    if (!tl_beacon_seal(s, E, &j)) return 1;   /* operator-only */
    bcn_file(b, p, "public/sealed/%s.age", stem);
    int h = file_sha(p, y->sealed_sha256, 2u << 20);
    if (h < 0) { cli_error("%s: %s", p, strerror(errno)); return -1; }
    if (h == 0) {
        /* not sealed: never listed while its sealing epoch exists (a kill
         * between the puzzle and the seal; the service seals it next) */
        uint8_t *jb = NULL;
        size_t jl = 0;
        int to = s->kinds & TL_BEACON_PQ ? TL_BEACON_PQ : TL_BEACON_CLASSIC;
        int jr = bcn_puzzle_read(b, j, to, &jb, &jl, NULL);
        free(jb);
        return jr == 0 ? 1 : jr < 0 ? -1 : 0;
    }
    y->has_sealed = 1;
    y->sealed_by = j;
    y->sealed_to = s->kinds & TL_BEACON_PQ ? TL_BEACON_PQ : TL_BEACON_CLASSIC;
    tl_beacon_path(s, "sealed", E, kind, ".age", y->sealed_path);
    return 1;
}

/* The previous feed's time, so that `updated` never goes back. */
static int64_t previous_updated(const bcn_dir *b) {
    char p[PATH_MAX];
    bcn_file(b, p, "public/feed.json");
    uint8_t *buf = NULL;
    size_t len = 0;
    if (util_read_file(p, TL_BEACON_MAX_FEED_BYTES, &buf, &len) != 0) return 0;
    tl_beacon_feed *f = NULL;
    int64_t u = 0;
    if (tl_beacon_feed_parse((const char *)buf, len, b->cfg.s.signer, &f, NULL, 0) == 0) u = f->updated;
    else bcn_log("warning: the published feed.json does not verify; replacing it");
    tl_beacon_feed_free(f);
    free(buf);
    return u;
}

int bcn_feed_publish(const bcn_dir *b, const uint8_t sk[64], int64_t now, size_t *listed) {
    const tl_beacon_sched *s = &b->cfg.s;
    char lockp[PATH_MAX], out[PATH_MAX];
    bcn_file(b, lockp, "private/feed.lock");
    bcn_file(b, out, "public/feed.json");
    int lfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lfd < 0 || flock(lfd, LOCK_EX) != 0) {
        if (lfd >= 0) close(lfd);
        return cli_error("%s: %s", lockp, strerror(errno));
    }
    uint64_t *v = NULL;
    size_t n = 0, cap = 0;
    int rc = scan(b, "private/puzzles", &v, &n, &cap);
    if (rc == CLI_OK) rc = scan(b, "public/puzzles", &v, &n, &cap);
    tl_beacon_feed *f = NULL;
    if (rc == CLI_OK) {
        qsort(v, n, sizeof *v, cmp_u64);
        size_t u = 0;
        for (size_t k = 0; k < n; k++)
            if (!u || v[u - 1] != v[k]) v[u++] = v[k];
        n = u;
        size_t from = n > TL_BEACON_MAX_EPOCHS ? n - TL_BEACON_MAX_EPOCHS : 0;
        if (!(f = tl_beacon_feed_new(n - from))) rc = cli_error("out of memory");
        int kinds[2];
        unsigned nk = bcn_kinds(s->kinds, kinds);
        size_t m = 0;
        for (size_t k = from; rc == CLI_OK && k < n; k++) {
            tl_beacon_epoch *e = &f->epochs[m];
            memset(e, 0, sizeof *e);
            e->index = v[k];
            e->nkeys = nk;
            int all = 1;
            for (unsigned q = 0; q < nk && all; q++) {
                int r = fill_key(b, v[k], kinds[q], &e->keys[q]);
                if (r < 0) rc = CLI_FAIL;
                all = r == 1;
            }
            if (all && rc == CLI_OK) m++;
        }
        if (f) f->n = m;
    }
    free(v);
    if (rc == CLI_OK) {
        f->beacon = *s;
        int64_t prev = previous_updated(b);
        if (now < prev) bcn_log("warning: the clock (%lld) is behind the last feed's time (%lld) by %lld s: "
                                "the feed keeps its time", (long long)now, (long long)prev, (long long)(prev - now));
        f->updated = now > prev ? now : prev;
        tl_beacon_feed_derive(f);
        char *text = NULL;
        size_t len = 0;
        int w = tl_beacon_feed_write(f, sk, &text, &len);
        if (w) rc = cli_error("cannot build the feed: %s", rxlock_strerror(w));
        else if (util_write_file_atomic(out, text, len, 1, 0644) != 0) rc = cli_error("%s: %s", out, strerror(errno));
        else util_kill_point("beacon-feed");
        free(text);
        if (listed) *listed = f->n;
    }
    tl_beacon_feed_free(f);
    close(lfd);   /* releases the lock */
    return rc;
}
