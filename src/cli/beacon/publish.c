/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/publish.c — feed.json rebuilt from the beacon
 * directory's files alone, so that whatever a kill left is either listed
 * complete or not at all: an epoch is listed when every kind's puzzle
 * exists (private or released) and, where the sealing rule names a
 * generated epoch, its sealed file too.  Signed, and written with the
 * atomic replace under private/feed.lock (the service and a solver on the
 * same DIR both publish), staged under private/ so that a kill never
 * leaves a temp file in the served public/. */
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

/* Epoch indices at or above lo named by DIR/REL's "*.json" files (bounded:
 * lo is the first index not archived, so an old beacon's files below it
 * never fill the bound). */
static int scan(const bcn_dir *b, const char *rel, uint64_t lo, uint64_t **v, size_t *n, size_t *cap) {
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
        if (E < lo || E > (unsigned long long)((TL_BEACON_MAX_TIME - b->cfg.s.start) / (int64_t)b->cfg.s.every)) continue;
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

/* What a long-running service has read already (one feed a second on a
 * 1 s beacon would otherwise parse every listed puzzle each time): an
 * epoch key's recipient and digests, keyed by the files' identity (device,
 * inode, size, modification time).  Every file here is written once and
 * only ever replaced by a new one, so an unchanged identity holds the same
 * bytes. */
#define MEMO_SLOTS 4096
typedef struct {
    uint64_t E;
    int kind, used, pub, has_sealed;
    struct stat pz, sealed;
    char recipient[TL_AGE_PQ_RECIPIENT_MAX];
    uint8_t pz_sha[32], sealed_sha[32];
} memo_t;
static memo_t *memo;

static int same_file(const struct stat *a, const struct stat *b) {
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

static memo_t *memo_slot(uint64_t E, int kind) {
    if (!memo && !(memo = calloc(MEMO_SLOTS, sizeof *memo))) return NULL;   /* none: read every time */
    return &memo[(E * 2 + (kind == TL_BEACON_PQ)) % MEMO_SLOTS];
}

/* Fill key q of epoch E from the files.  1 listed, 0 not (yet), -1 error. */
static int fill_key(const bcn_dir *b, uint64_t E, int kind, tl_beacon_key *y) {
    const tl_beacon_sched *s = &b->cfg.s;
    char err[256], stem[48], p[PATH_MAX];
    struct stat pst;
    bcn_stem(s, E, kind, stem);
    bcn_file(b, p, "public/puzzles/%s.json", stem);
    int spub = lstat(p, &pst) == 0;
    if (!spub) { bcn_file(b, p, "private/puzzles/%s.json", stem); if (lstat(p, &pst) != 0) memset(&pst, 0, sizeof pst); }
    memo_t *m = memo_slot(E, kind);
    int pub = 0;
    if (m && m->used && m->E == E && m->kind == kind && m->pub == spub && pst.st_ino && same_file(&m->pz, &pst)) {
        memcpy(y->recipient, m->recipient, sizeof y->recipient);
        memcpy(y->puzzle_sha256, m->pz_sha, 32);
        pub = spub;
    } else {
        uint8_t *buf = NULL;
        size_t len = 0;
        int r = bcn_puzzle_read(b, E, kind, &buf, &len, &pub);
        if (r != 1) return r;
        tl_puzzle *pz = NULL;
        int rc = tl_puzzle_parse((const char *)buf, len, &pz, err, sizeof err);
        if (rc == 0 && pz->pq_epoch != (kind == TL_BEACON_PQ)) { rc = -1; snprintf(err, sizeof err, "wrong epoch kind"); }
        if (rc == 0 && cli_epoch_recipient(pz, y->recipient) != CLI_OK) rc = -1;
        tl_puzzle_free(pz);
        bcn_sha256(buf, len, y->puzzle_sha256);
        free(buf);
        if (rc) { cli_error("epoch %llu's puzzle: %s", (unsigned long long)E, err); return -1; }
        if (m && pub == spub && pst.st_ino) {   /* the file stat'ed is the one read */
            memset(m, 0, sizeof *m);
            m->used = 1;
            m->E = E;
            m->kind = kind;
            m->pub = pub;
            m->pz = pst;
            memcpy(m->recipient, y->recipient, sizeof m->recipient);
            memcpy(m->pz_sha, y->puzzle_sha256, 32);
        } else if (m) {
            m->used = 0;
        }
    }
    y->kind = kind;
    if (pub) tl_beacon_path(s, "puzzles", E, kind, ".json", y->puzzle_path);
    bcn_file(b, p, "public/identities/%s.txt", stem);
    struct stat ist;
    if (lstat(p, &ist) == 0) {   /* its time of publication: the file's (written once, never replaced) */
        tl_beacon_path(s, "identities", E, kind, ".txt", y->identity);
        y->identity_at = (int64_t)ist.st_mtime;
    }
    uint64_t j;
    if (!tl_beacon_seal(s, E, &j)) return 1;   /* operator-only */
    bcn_file(b, p, "public/sealed/%s.age", stem);
    struct stat sst;
    int h, ms = m && m->used && m->E == E && m->kind == kind;   /* the memo is this key's */
    if (ms && m->has_sealed && lstat(p, &sst) == 0 && same_file(&m->sealed, &sst)) {
        memcpy(y->sealed_sha256, m->sealed_sha, 32);
        h = 1;
    } else {
        int st_ok = lstat(p, &sst) == 0;
        h = file_sha(p, y->sealed_sha256, 2u << 20);
        if (h < 0) { cli_error("%s: %s", p, strerror(errno)); return -1; }
        struct stat after;
        if (ms && h == 1 && st_ok && lstat(p, &after) == 0 && same_file(&sst, &after)) {
            m->sealed = sst;
            memcpy(m->sealed_sha, y->sealed_sha256, 32);
            m->has_sealed = 1;
        }
    }
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
static int64_t previous_updated(const bcn_dir *b, uint64_t *pages) {
    char p[PATH_MAX];
    bcn_file(b, p, "public/feed.json");
    uint8_t *buf = NULL;
    size_t len = 0;
    if (util_read_file(p, TL_BEACON_MAX_FEED_BYTES, &buf, &len) != 0) return 0;
    tl_beacon_feed *f = NULL;
    int64_t u = 0;
    if (tl_beacon_feed_parse((const char *)buf, len, b->cfg.s.signer, &f, NULL, 0) == 0) {
        u = f->updated;
        *pages = f->archive_pages;
    }
    else bcn_log("warning: the published feed.json does not verify; replacing it");
    tl_beacon_feed_free(f);
    free(buf);
    return u;
}

/* Replace public/feed.json with no temp file in the served folder, where
 * a kill would leave one: written (with its own atomic write) under
 * private/, then renamed over it (the same file system; when public/ is
 * on another, written in place atomically).  0 or -1 (errno). */
static int put_feed(const bcn_dir *b, const char *out, const char *text, size_t len) {
    char next[PATH_MAX];
    bcn_file(b, next, "private/feed.json.next");
    if (util_test_enospc("public/feed.json")) return -1;   /* the test build's full disk */
    if (util_write_file_atomic(next, text, len, 1, 0644) != 0) return -1;
    if (rename(next, out) == 0) return 0;
    int e = errno;
    (void)unlink(next);
    if (e != EXDEV) { errno = e; return -1; }
    return util_write_file_atomic(out, text, len, 1, 0644);
}

int bcn_epochs_from_files(const bcn_dir *b, const uint64_t *v, size_t n, tl_beacon_feed **out) {
    int kinds[2];
    unsigned nk = bcn_kinds(b->cfg.s.kinds, kinds);
    tl_beacon_feed *f = tl_beacon_feed_new(n);
    *out = NULL;
    if (!f) return cli_error("out of memory");
    size_t m = 0;
    int rc = CLI_OK;
    for (size_t k = 0; rc == CLI_OK && k < n; k++) {
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
    f->n = m;
    f->beacon = b->cfg.s;
    if (rc) { tl_beacon_feed_free(f); return rc; }
    *out = f;
    return CLI_OK;
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
    uint64_t prev_pages = 0, pages = 0;
    int64_t prev = previous_updated(b, &prev_pages);
    int rc = scan(b, "private/puzzles", prev_pages * TL_BEACON_PAGE_EPOCHS, &v, &n, &cap);
    if (rc == CLI_OK) rc = scan(b, "public/puzzles", prev_pages * TL_BEACON_PAGE_EPOCHS, &v, &n, &cap);
    tl_beacon_feed *f = NULL;
    if (rc == CLI_OK) {
        if (n) qsort(v, n, sizeof *v, cmp_u64);   /* v is NULL while nothing is generated */
        size_t u = 0;
        for (size_t k = 0; k < n; k++)
            if (!u || v[u - 1] != v[k]) v[u++] = v[k];
        n = u;
        /* the window: the epochs of pages not archived.  While it lists more
         * than a page's worth, its lowest page goes to the archive (written
         * once) if every epoch of it is past its release time; so the feed
         * lists at most about 2 pages (ahead <= 1024), and a few epochs made
         * far ahead (a clock that jumped) archive nothing */
        int before = 0;
        uint64_t L = tl_beacon_epoch_at(s, now, &before), open0 = before ? 0 : L + 1, P = TL_BEACON_PAGE_EPOCHS;
        size_t from = 0;
        pages = prev_pages;
        for (;;) {
            while (from < n && v[from] < pages * P) from++;
            if (n - from <= P || (pages + 1) * P > open0) break;
            pages++;
        }
        if (pages > prev_pages) rc = bcn_archive_write(b, sk, v, n, prev_pages, pages, now);
        if (n - from > TL_BEACON_MAX_EPOCHS) from = n - TL_BEACON_MAX_EPOCHS;
        if (rc == CLI_OK) rc = bcn_epochs_from_files(b, v + from, n - from, &f);
    }
    free(v);
    if (rc == CLI_OK) {
        f->archive_pages = pages;
        static int64_t warned_for;   /* said once per feed time kept, not at every publish */
        if (now < prev && warned_for != prev && (warned_for = prev)) bcn_log("warning: the clock (%lld) is behind the last feed's time (%lld) by %lld s: "
                                "the feed keeps its time", (long long)now, (long long)prev, (long long)(prev - now));
        f->updated = now > prev ? now : prev;
        tl_beacon_feed_observe_about(f);
        tl_beacon_feed_derive(f);
        char *text = NULL;
        size_t len = 0;
        int w = tl_beacon_feed_write(f, sk, &text, &len);
        if (w) rc = cli_error("cannot build the feed: %s", rxlock_strerror(w));
        else if (put_feed(b, out, text, len) != 0)   /* the last feed stays, whole and signed */
            rc = cli_error("%s not published: %s: the feed served is the last one; free space on the disk of %s (a full "
                           "disk?): a running `beacon run` publishes it at its next step, or start `beacon run` again",
                           out, strerror(errno), b->dir);
        else util_kill_point("beacon-feed");
        free(text);
        if (listed) *listed = f->n;
    }
    tl_beacon_feed_free(f);
    close(lfd);   /* releases the lock */
    return rc;
}
