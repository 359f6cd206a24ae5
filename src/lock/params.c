/* SPDX-License-Identifier: ISC */
/* src/lock/params.c — the bounds of a puzzle's public parameters, checked
 * in one place for every path that makes or reads a puzzle (generate.c,
 * plan.c, puzzle.c): work type, G, S, G*S, rate, target, rate source. */
#include "tl_internal.h"
#include <string.h>

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
           p->rate_mode >= TL_RATE_MODE_NONE && p->rate_mode <= TL_RATE_MODE_FULL &&   /* issue 19 */
           p->setup_ms <= TL_MAX_SETUP_MS;
}
