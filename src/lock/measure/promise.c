/* SPDX-License-Identifier: ISC */
/* src/lock/measure/promise.c — what a puzzle promises, in numbers and in
 * one sentence, the same everywhere (lock's summary, inspect, the .rxlock
 * notice): no sooner than T_min on the fastest known hardware (the floor:
 * its row, rate and kind), and about T at the assumed rate, T = hashing +
 * setup (the cache / dataset build a solver does first); with the moment
 * it was published, both also as UTC dates. */
#include "measure_internal.h"
#include "util/util.h"
#include <stdio.h>
#include <string.h>
#include <time.h>

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

void tl_promise_date(char *buf, size_t cap, int64_t t) {
    struct tm tm;
    time_t tt = (time_t)t;
    if (!buf || !cap) return;
    /* past year 9999 (or before 1970) a date says nothing useful */
    if (t < 0 || t > 253402300799LL || !gmtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M UTC", &tm))
        snprintf(buf, cap, "after 9999");
}

/* " (DATE)" for published + s, or "" without a publication time. */
static void at_date(char *buf, size_t cap, int64_t published, double s) {
    char d[32];
    buf[0] = 0;
    if (published <= 0 || !(s >= 0)) return;
    tl_promise_date(d, sizeof d, s < 3e11 ? published + (int64_t)(s + 0.5) : -1);
    snprintf(buf, cap, " (%s)", d);
}

void tl_promise_text_at(char *buf, size_t cap, const tl_puzzle *pz, const tl_floor_table *ft, int64_t published) {
    if (!buf || !cap) return;
    tl_promise p;
    tl_promise_of(pz, ft, &p);
    char fl[320], here[240], pub[64] = "", a[32], b[32], c[32], r[32], d[48];
    if (published > 0) {
        tl_promise_date(d, sizeof d, published);
        snprintf(pub, sizeof pub, "published %s: ", d);
    }
    if (p.floor) {
        util_format_duration(a, sizeof a, p.floor_seconds);
        util_format_rate(r, sizeof r, p.floor->rate);
        at_date(d, sizeof d, published, p.floor_seconds);
        snprintf(fl, sizeof fl, "opens no sooner than %s%s on the fastest known hardware (%.63s, %sH/s, %s)", a, d,
                 p.floor->machine, r, tl_floor_kind_name(p.floor->kind));
    } else {
        snprintf(fl, sizeof fl, "opens no sooner than ? (no fastest known hardware for %s)", pz ? tl_work_name(pz->work) : "?");
    }
    if (p.here_seconds >= 0) {
        util_format_duration(a, sizeof a, p.here_seconds);
        util_format_duration(b, sizeof b, p.hash_seconds);
        util_format_duration(c, sizeof c, p.setup_seconds);
        at_date(d, sizeof d, published, p.here_seconds);
        const char *rm = pz->version >= 2 ? rate_mode_name(pz->rate_mode) : NULL;
        snprintf(here, sizeof here, "about %s%s at the assumed rate (%s hashing + %s setup%s%s)", a, d, b, c,
                 rm ? ", " : "", rm ? rm : "");
    } else {
        snprintf(here, sizeof here, "no solver rate recorded");
    }
    snprintf(buf, cap, "%s%s, %s", pub, fl, here);
}

void tl_promise_text(char *buf, size_t cap, const tl_puzzle *pz, const tl_floor_table *ft) {
    tl_promise_text_at(buf, cap, pz, ft, 0);
}
