/* SPDX-License-Identifier: ISC */
/* src/lock/chain_steps.c — advancing one group's chain a batch at a time:
 * the batch doubles while a call takes under 20 ms (up to 2^22 steps), it
 * stops at every multiple of the checkpoint interval so the caller can
 * record the value there, and, in the test build, it applies the
 * RXLOCK_TEST_FLIP fault (a defective core).  Used by a cluster task's
 * group chain and its verification segments (group.c); local generation's
 * worker children (worker.c) run the same batching. */
#include "gen_internal.h"
#include <stdio.h>
#include <stdlib.h>

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

int tl_stepper_run(tl_stepper *s, tl_work *w, uint64_t *i, uint64_t end, uint64_t every, uint8_t d[32]) {
    uint64_t at = *i, n = end - at < s->batch ? end - at : s->batch;
    if (every && n > every - at % every) n = every - at % every;          /* stop at the next record */
    if (s->flip != UINT64_MAX && at <= s->flip && n > s->flip + 1 - at) n = s->flip + 1 - at;
    double t0 = tl_now();
    int rc = tl_work_steps(w, s->g, at, n, d);
    if (rc) return rc;
    *i = at + n;
    if (tl_now() - t0 < 0.02 && s->batch < (1u << 22)) s->batch *= 2;
    if (*i == s->flip + 1) d[0] ^= 1;
    return TL_OK;
}
