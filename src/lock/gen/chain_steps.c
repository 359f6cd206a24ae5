/* SPDX-License-Identifier: ISC */
/* src/lock/gen/chain_steps.c — advancing one group's chain a batch at a time:
 * the batch doubles while a call takes under 20 ms (up to 2^22 steps), it
 * stops at every multiple of the checkpoint interval so the caller can
 * record the value there, and, in the test build, it applies the
 * RXLOCK_TEST_FLIP fault (a defective core).  Used by a cluster task's
 * group chain and its verification segments (group.c) and by local
 * generation's worker children (worker.c).  tl_stepper_run_multi advances
 * a bundle of chains together (SHA3 lanes). */
#include "gen_internal.h"
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef RXLOCK_TESTING
/* RXLOCK_TEST_FLIP=G:I flips bit 0 of d_{I+1}(G), in the insecure test
 * mode only. */
static uint64_t flip_step(uint32_t g) {
    const char *f = getenv("RXLOCK_TEST_FLIP");
    unsigned fg = 0;
    unsigned long long fi = 0;
    if (!f || !tl_test_mode() || sscanf(f, "%u:%llu", &fg, &fi) != 2 || fg != g) return UINT64_MAX;
    return (uint64_t)fi;
}
#else
static uint64_t flip_step(uint32_t g) { (void)g; return UINT64_MAX; }
#endif

void tl_stepper_init(tl_stepper *s, uint32_t g, int faults) {
    s->g = g;
    s->batch = 1;
    s->flip = faults ? flip_step(g) : UINT64_MAX;
}

/* How many of n steps chain s may take from `at`: never past end, the next
 * multiple of `every` (0 = none: the caller records the value there) nor
 * the test flip (applied after the step that reaches it). */
static uint64_t step_cap(const tl_stepper *s, uint64_t at, uint64_t end, uint64_t every, uint64_t n) {
    if (n > end - at) n = end - at;
    if (every && n > every - at % every) n = every - at % every;          /* stop at the next record */
    if (s->flip != UINT64_MAX && at <= s->flip && n > s->flip + 1 - at) n = s->flip + 1 - at;
    return n;
}

/* The batch after a call that took t0 .. now: doubled while under 20 ms. */
static uint64_t next_batch(uint64_t batch, double t0) {
    return util_now() - t0 < 0.02 && batch < (1u << 22) ? batch * 2 : batch;
}

int tl_stepper_run(tl_stepper *s, tl_work *w, uint64_t *i, uint64_t end, uint64_t every, uint8_t d[32]) {
    uint64_t at = *i, n = step_cap(s, at, end, every, s->batch);
    double t0 = util_now();
    int rc = tl_work_steps(w, s->g, at, n, d);
    if (rc) return rc;
    *i = at + n;
    s->batch = next_batch(s->batch, t0);
    if (*i == s->flip + 1) d[0] ^= 1;
    return TL_OK;
}

int tl_stepper_run_multi(tl_stepper *s, unsigned nc, tl_work *w, uint64_t *i, const uint64_t *end,
                         const uint64_t *every, uint8_t (*d)[32]) {
    uint8_t dv[TL_BUNDLE_MAX][32];
    uint64_t iv[TL_BUNDLE_MAX], n = UINT64_MAX;
    uint32_t gv[TL_BUNDLE_MAX];
    unsigned map[TL_BUNDLE_MAX], na = 0;
    if (nc > TL_BUNDLE_MAX) return TL_EINVAL;
    for (unsigned k = 0; k < nc; k++) {            /* the running chains, and the one n they all take */
        if (i[k] >= end[k]) continue;
        uint64_t m = step_cap(&s[k], i[k], end[k], every[k], s[k].batch);
        if (m < n) n = m;
        map[na++] = k;
    }
    if (na == 0) return TL_OK;
    if (na == 1) return tl_stepper_run(&s[map[0]], w, &i[map[0]], i[map[0]] + n, 0, d[map[0]]);
    for (unsigned a = 0; a < na; a++) {
        gv[a] = s[map[a]].g;
        iv[a] = i[map[a]];
        memcpy(dv[a], d[map[a]], 32);
    }
    double t0 = util_now();
    int rc = tl_work_steps_multi(w, na, gv, iv, n, dv);
    for (unsigned a = 0; a < na && rc == TL_OK; a++) {
        tl_stepper *sp = &s[map[a]];
        memcpy(d[map[a]], dv[a], 32);
        i[map[a]] += n;
        sp->batch = next_batch(sp->batch, t0);
        if (i[map[a]] == sp->flip + 1) d[map[a]][0] ^= 1;
    }
    sodium_memzero(dv, sizeof dv);
    return rc;
}
