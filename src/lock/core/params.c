/* SPDX-License-Identifier: ISC */
/* src/lock/core/params.c — the bounds of a puzzle's public parameters, checked
 * in one place for every path that makes or reads a puzzle (generate.c,
 * plan.c, puzzle.c): work type, G, S, G*S, rate, target, rate source;
 * and the public header fields of a new puzzle from them. */
#include "core_internal.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tl_shape_valid(tl_work_type work, uint32_t G, uint64_t S) {
    return tl_work_name(work) && G >= 1 && G <= TL_MAX_GROUPS && S >= 1 && S <= TL_MAX_STEPS &&
           S <= TL_MAX_TOTAL / G;
}

int tl_rate_source_valid(const char *s) {
    size_t n = strnlen(s, TL_RATE_SOURCE_MAX);
    if (n >= TL_RATE_SOURCE_MAX) return 0;
    for (size_t k = 0; k < n; k++) if (s[k] < 0x20 || s[k] > 0x7e) return 0;
    return 1;
}

int tl_params_valid(const tl_params *p) {
    return p && tl_shape_valid(p->work, p->groups, p->steps) && tl_rate_source_valid(p->rate_source) &&
           p->rate_milli_hps <= TL_RATE_MAX && p->target_seconds <= TL_RATE_MAX &&
           p->rate_mode >= TL_RATE_MODE_NONE && p->rate_mode <= TL_RATE_MODE_FULL &&
           p->setup_ms <= TL_MAX_SETUP_MS;
}

void tl_puzzle_from_params(tl_puzzle *pz, const tl_params *p) {
    pz->version = TL_PUZZLE_VERSION;
    pz->work = p->work;
    pz->groups = p->groups;
    pz->steps = p->steps;
    pz->rate_milli_hps = p->rate_milli_hps;
    strcpy(pz->rate_source, p->rate_source);
    pz->target_seconds = p->target_seconds;
    pz->rate_mode = p->rate_mode;
    pz->setup_ms = p->setup_ms;
    pz->test_only = tl_test_mode();
    pz->created = pz->test_only ? 0 : (int64_t)time(NULL);
    pz->verify_method = TL_VERIFY_NONE;   /* until tl_sched_run says otherwise */
    pz->pq_epoch = p->pq ? 1 : 0;
#ifdef RXLOCK_TESTING
    /* Test build, with the insecure test mode: RXLOCK_TEST_PUZZLE_VERSION=1
     * writes a version-1 puzzle, as rxlock wrote before post-quantum epochs (tests that
     * old puzzles still solve). */
    const char *ver = getenv("RXLOCK_TEST_PUZZLE_VERSION");
    if (ver && strcmp(ver, "1") == 0 && pz->test_only) pz->version = 1;
#endif
}
