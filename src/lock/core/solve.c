/* SPDX-License-Identifier: ISC */
/* src/lock/core/solve.c — tl_solve: the sequential solver.  From s_1 run each
 * group's S steps, open its wrap (aad = H || g) to get the next seed, and
 * finally x; check X25519(x, 9) == X.  Progress is journalled (journal.c)
 * every checkpoint interval and at every group boundary; a re-run resumes
 * from the last valid entry.  A journal this call creates and never writes
 * an entry to is removed when the call fails (nothing left behind).
 * tl_solve_from_journal: x from a journal that already holds the final
 * chain state, with nothing computed. */
#include "core_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef RXLOCK_TESTING
/* Test-only work counter that survives kill -9 (a MAP_SHARED file page):
 * RXLOCK_TEST_COUNTER=path with the insecure test mode.  Crash tests use it
 * to bound the recomputation. */
static volatile uint64_t *test_counter(void) {
    const char *path = getenv("RXLOCK_TEST_COUNTER");
    if (!path || !tl_test_mode()) return NULL;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return NULL;
    if (ftruncate(fd, 4096) != 0) { close(fd); return NULL; }
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : (volatile uint64_t *)p;
}
#else
static volatile uint64_t *test_counter(void) { return NULL; }
#endif

/* Open group g's wrap with its final chain value d: the next seed (or,
 * for g = G, x) into pt.  0, or -1 when the tag does not verify. */
static int open_wrap(const tl_puzzle *pz, uint32_t g, const uint8_t d[32], uint8_t pt[32]) {
    const tl_wrap *wr = &pz->wraps[g - 1];
    return tl_wrap_open(pt, wr->ct, d, pz->id, pz->header_digest, g, wr->nonce) != 0 ? -1 : 0;
}

/* the error came from the journal; keep its errno for the caller */
#define JOURNAL_FAILED() (st.journal_failed = 1, st.journal_errno = errno)

int tl_solve(const tl_puzzle *pz, const tl_solve_opts *o, uint8_t x[32], tl_solve_stats *stats) {
    tl_solve_stats st = { .huge_share = -1 };
    double t_hash = 0;   /* when the chain started (stats) */
    if (stats) *stats = st;
    if (!pz || !x) return TL_EINVAL;
    int rc = tl_puzzle_verify(pz, NULL);
    if (rc) return rc;
    if (sodium_init() < 0) return TL_ERANDOM;
    const uint32_t G = pz->groups;
    const uint64_t S = pz->steps;
    const uint8_t *H = pz->header_digest;
    double ck_sec = o && o->checkpoint_seconds > 0 ? o->checkpoint_seconds : 60;
    uint64_t ck_steps = o ? o->checkpoint_steps : 0;
    double pint = o && o->progress_interval > 0 ? o->progress_interval : 0.5;
    uint8_t *d = sodium_malloc(64);   /* d (32) and the opened plaintext (32) */
    if (!d) return TL_ENOMEM;
    uint8_t *pt = d + 32;
    uint32_t g = 1;
    uint64_t i = 0;
    memcpy(d, pz->seed, 32);
    tl_journal *j = NULL;
    tl_work *w = NULL;
    volatile uint64_t *ctr = test_counter();
    int made_journal = 0, retried = 0;
    tl_progress p = {0};
    if (o && o->journal) {
        struct stat jst;
        made_journal = lstat(o->journal, &jst) != 0;
        int have = 0;
        uint32_t jg = 0;
        uint64_t ji = 0;
        rc = tl_journal_open(&j, o->journal, H, &have, &jg, &ji, pt);
        if (rc) { JOURNAL_FAILED(); goto out; }
        if (have) {
            /* (G, S): the final chain state, journalled before the last
             * wrap is opened (a failed delivery re-runs instantly) */
            if (jg < 1 || jg > G || ji > S || (ji == S && jg != G)) { rc = TL_EJOURNAL; errno = 0; JOURNAL_FAILED(); goto out; }
            g = jg; i = ji;
            memcpy(d, pt, 32);
            st.resumed_group = g;
            st.resumed_step = i;
        }
        sodium_memzero(pt, 32);
    }
    {   /* the dataset build shows progress, its ETA counts the hashing after it */
        tl_progress sp = { .hashes_total = (uint64_t)G * S, .hashes_done = (uint64_t)(g - 1) * S + i,
                           .groups_total = G, .groups_done = g - 1, .group = g, .step = i };
        double rate = (double)pz->rate_milli_hps / 1000.0;
        double heta = rate > 0 ? (double)(sp.hashes_total - sp.hashes_done) / rate : -1;
        tl_mode mode = tl_mode_effective(pz->work, o ? o->mode : TL_MODE_DEFAULT);
        double ts = util_now();
        if (o && o->progress && mode == TL_MODE_FULL && pz->work != TL_WORK_SHA3_256)
            rc = tl_work_new_progress(&w, pz->work, pz->key, mode, o->progress, o->progress_ctx, &sp, heta);
        else
            rc = tl_work_new(&w, pz->work, pz->key, mode);
        st.setup_seconds = util_now() - ts;
        if (rc) goto out;
        st.huge_share = tl_work_huge_share(w);
    }
    (void)tl_work_engine(w, &st.engine);
    double t0 = util_now(), t_ck = t0, t_prog = t0;
    t_hash = t0;
    uint64_t since_ck = 0, batch = 1;
    uint64_t done0 = (uint64_t)(g - 1) * S + i;
    p.hashes_total = (uint64_t)G * S;
    p.groups_total = G;
    p.engine = &st.engine;
    if (o && o->progress) {   /* once before any work: the engine */
        p.hashes_done = done0;
        p.eta_seconds = -1;
        p.groups_done = g - 1;
        p.group = g;
        p.step = i;
        if (o->progress(&p, o->progress_ctx)) { rc = TL_EINTR; goto out; }
    }
    for (;;) {
        while (i < S) {
            uint64_t n = S - i < batch ? S - i : batch;
            if (ck_steps && j && n > ck_steps - since_ck) n = ck_steps - since_ck;
            double b0 = util_now();
            if ((rc = tl_work_steps(w, g, i, n, d))) goto out;
            i += n;
            since_ck += n;
            st.steps_computed += n;
            if (ctr) *ctr += n;
            double now = util_now();
            if (now - b0 < 0.01 && batch < (1u << 22)) batch *= 2;
            int stop = o && o->stop && *o->stop;
            if (j && i < S && (stop || now - t_ck >= ck_sec || (ck_steps && since_ck >= ck_steps))) {
                if ((rc = tl_journal_append(j, g, i, d))) { JOURNAL_FAILED(); goto out; }
                st.checkpoints++;
                t_ck = now;
                since_ck = 0;
            }
            if (stop) { rc = TL_EINTR; goto out; }
            if (o && o->progress && now - t_prog >= pint) {
                t_prog = now;
                p.hashes_done = (uint64_t)(g - 1) * S + i;
                p.rate = now > t0 ? (double)(p.hashes_done - done0) / (now - t0) : 0;
                p.eta_seconds = p.rate > 0 ? (double)(p.hashes_total - p.hashes_done) / p.rate : -1;
                p.groups_done = g - 1;
                p.group = g;
                p.step = i;
                if (o->progress(&p, o->progress_ctx)) { rc = TL_EINTR; goto out; }
            }
        }
        if (j && g == G && since_ck) {
            if ((rc = tl_journal_append(j, g, S, d))) { JOURNAL_FAILED(); goto out; }
            st.checkpoints++;
        }
        if (open_wrap(pz, g, d, pt) != 0) {
            /* resumed inside this group, the journal's chain value
             * may be the wrong one (its checksum only guards the bytes):
             * once, go back to the group's start and compute it again */
            if (!retried && st.resumed_group == g && st.resumed_step > 0 &&
                (g == 1 || (j && tl_journal_group_start(j, g, d) == TL_OK))) {
                retried = 1;
                if (g == 1) memcpy(d, pz->seed, 32);
                i = 0;
                since_ck = 0;
                if (j && (rc = tl_journal_append(j, g, 0, d))) { JOURNAL_FAILED(); goto out; }
                if (j) st.checkpoints++;
                continue;
            }
            st.failed_group = g;
            rc = TL_EAUTH;
            goto out;
        }
        if (g == G) break;
        memcpy(d, pt, 32);
        g++;
        i = 0;
        if (j) {
            if ((rc = tl_journal_append(j, g, 0, d))) { JOURNAL_FAILED(); goto out; }
            st.checkpoints++;
            t_ck = util_now();
            since_ck = 0;
        }
    }
    if ((rc = tl_epoch_check(pz, pt)) != TL_OK) goto out;
    memcpy(x, pt, 32);
    rc = TL_OK;
out:
    if (t_hash > 0) st.hash_seconds = util_now() - t_hash;
    if (w) tl_work_free(w);
    tl_journal_close(j);
    if (rc && made_journal && st.checkpoints == 0) (void)unlink(o->journal);
    sodium_free(d);
    if (ctr) munmap((void *)(uintptr_t)ctr, 4096);
    if (stats) *stats = st;
    return rc;
}

int tl_solve_from_journal(const tl_puzzle *pz, const char *journal, uint8_t x[32]) {
    if (!pz || !journal || !x) return TL_EINVAL;
    int rc = tl_puzzle_verify(pz, NULL);
    if (rc) return rc;
    if (sodium_init() < 0) return TL_ERANDOM;
    struct stat jst;
    if (lstat(journal, &jst) != 0 || !S_ISREG(jst.st_mode)) return TL_EJOURNAL;   /* never made here */
    uint8_t *d = sodium_malloc(64);   /* the final chain value (32) and x (32) */
    if (!d) return TL_ENOMEM;
    tl_journal *j = NULL;
    int have = 0;
    uint32_t g = 0;
    uint64_t i = 0;
    rc = tl_journal_open(&j, journal, pz->header_digest, &have, &g, &i, d);
    tl_journal_close(j);
    if (rc == TL_OK && !(have && g == pz->groups && i == pz->steps)) rc = TL_EJOURNAL;   /* not the final state */
    if (rc == TL_OK && open_wrap(pz, g, d, d + 32) != 0) rc = TL_EAUTH;
    if (rc == TL_OK) rc = tl_epoch_check(pz, d + 32);
    if (rc == TL_OK) memcpy(x, d + 32, 32);
    sodium_free(d);
    return rc;
}
