/* SPDX-License-Identifier: ISC */
/* src/lock/measure/promise.c — issue 19: what a puzzle promises, in numbers and in
 * one sentence, the same everywhere (lock's summary, inspect, the .rxlock
 * notice): no sooner than T_min on the fastest known CPU (the floor), and
 * about T on the machine whose rate sized it, T = hashing + setup (the
 * cache / dataset build a solver does first). */
#include "measure_internal.h"
#include "util/util.h"
#include <stdio.h>
#include <string.h>

void tl_promise_of(const tl_puzzle *pz, const tl_floor_table *ft, tl_promise *out) {
    memset(out, 0, sizeof *out);
    out->hash_seconds = out->here_seconds = out->floor_seconds = -1;
    if (!pz) return;
    out->total = (uint64_t)pz->groups * pz->steps;
    out->rate = (double)pz->rate_milli_hps / 1000.0;
    out->setup_seconds = (double)pz->setup_ms / 1000.0;
    if (out->rate > 0) {
        out->hash_seconds = (double)out->total / out->rate;
        out->here_seconds = out->hash_seconds + out->setup_seconds;
    }
    out->floor = tl_floor_fastest(ft, pz->work);
    out->floor_seconds = tl_floor_seconds(out->floor, out->total);
}

static const char *rate_mode_name(int m) {
    return m == TL_RATE_MODE_FULL ? "full-mode rate" : m == TL_RATE_MODE_LIGHT ? "LIGHT-mode rate" : NULL;
}

void tl_promise_text(char *buf, size_t cap, const tl_puzzle *pz, const tl_floor_table *ft) {
    if (!buf || !cap) return;
    tl_promise p;
    tl_promise_of(pz, ft, &p);
    char fl[200], here[200], a[32], b[32], c[32], r[32];
    if (p.floor) {
        util_format_duration(a, sizeof a, p.floor_seconds);
        util_format_rate(r, sizeof r, p.floor->rate);
        snprintf(fl, sizeof fl, "opens no sooner than %s on the fastest known CPU (%.48s, %sH/s)", a, p.floor->machine, r);
    } else {
        snprintf(fl, sizeof fl, "opens no sooner than ? (no fastest known CPU for %s)", pz ? tl_work_name(pz->work) : "?");
    }
    if (p.here_seconds >= 0) {
        util_format_duration(a, sizeof a, p.here_seconds);
        util_format_duration(b, sizeof b, p.hash_seconds);
        util_format_duration(c, sizeof c, p.setup_seconds);
        const char *rm = pz->version >= 2 ? rate_mode_name(pz->rate_mode) : NULL;
        snprintf(here, sizeof here, "about %s at the assumed rate (%s hashing + %s setup%s%s)", a, b, c, rm ? ", " : "", rm ? rm : "");
    } else {
        snprintf(here, sizeof here, "no solver rate recorded");
    }
    snprintf(buf, cap, "%s, %s", fl, here);
}
