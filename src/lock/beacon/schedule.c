/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/schedule.c — a beacon's schedule arithmetic (release,
 * encrypt-until, earliest opening at the floor rate, the "about" time),
 * THE sealing rule seal(E), the choice rule ("encrypt to a date"), the
 * schedule's bounds and the beacon's clock (docs/FORMAT.md §Beacon feed). */
#include "rxlock/beacon.h"
#include "util/util.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return TL_EINVAL;
}

/* printable ASCII without '"' and '\\': the feed's string rule */
static int plain(const char *s) {
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\') return 0;
    return 1;
}

int tl_beacon_sched_check(const tl_beacon_sched *s, char *err, size_t errlen) {
    if (!s) return fail(err, errlen, "no schedule");
    if (!tl_work_name(s->work)) return fail(err, errlen, "unknown work");
    if (s->groups < 1 || s->groups > TL_MAX_GROUPS || s->steps < 1 || s->steps > TL_MAX_STEPS ||
        s->steps > TL_MAX_TOTAL / s->groups)
        return fail(err, errlen, "groups x steps out of bounds");
    if (s->every < 1 || s->every > TL_BEACON_MAX_PERIOD) return fail(err, errlen, "every: want 1 .. 2^40 s");
    if (s->opens_after > TL_BEACON_MAX_PERIOD) return fail(err, errlen, "opens_after: want 0 .. 2^40 s");
    if (s->start < 0 || s->start >= TL_BEACON_MAX_TIME) return fail(err, errlen, "start out of range");
    if (s->ahead < 1 || s->ahead > TL_BEACON_MAX_AHEAD) return fail(err, errlen, "ahead: want 1 .. %u", TL_BEACON_MAX_AHEAD);
    if (s->kinds != TL_BEACON_CLASSIC && s->kinds != TL_BEACON_PQ && s->kinds != (TL_BEACON_CLASSIC | TL_BEACON_PQ))
        return fail(err, errlen, "kinds: want classic, pq or both");
    if (s->floor_mhps < 1 || s->floor_mhps >= (1ull << 53)) return fail(err, errlen, "floor rate out of range");
    if (s->assumed_mhps >= (1ull << 53) || s->setup_ms >= (1ull << 40))
        return fail(err, errlen, "assumed rate or setup out of range");
    if (!memchr(s->floor_row, 0, sizeof s->floor_row) || !plain(s->floor_row))
        return fail(err, errlen, "floor row: printable ASCII without quotes or backslashes");
    /* every epoch of the next TL_BEACON_SERVE_YEARS years (at least one)
     * and its opening must be times a feed holds: indices are not capped
     * otherwise (a 1 s beacon runs for centuries) */
    double serve = (double)TL_BEACON_SERVE_YEARS * 365.25 * 86400.0;
    if ((double)s->every > serve) serve = (double)s->every;
    if ((double)s->start + serve + (double)tl_beacon_floor_seconds(s) + (double)tl_beacon_about_seconds(s) >=
        (double)TL_BEACON_MAX_TIME)
        return fail(err, errlen, "cannot be served for %u years: its release and opening times would "
                    "run past the largest time a feed holds (2^53 - 2^42 s)", TL_BEACON_SERVE_YEARS);
    return TL_OK;
}

int64_t tl_beacon_release(const tl_beacon_sched *s, uint64_t E) {
    return s->start + (int64_t)(E * s->every);
}

int64_t tl_beacon_encrypt_until(const tl_beacon_sched *s, uint64_t E) {
    return tl_beacon_release(s, E);
}

static uint64_t total(const tl_beacon_sched *s) { return (uint64_t)s->groups * s->steps; }

/* Whole seconds the floor machine surely needs: rounded down, so that
 * earliest_opening and the sealing rule are never a second early; feeds and
 * beacons of before rounded up (legacy_ceil), and keep their numbers. */
uint64_t tl_beacon_floor_seconds(const tl_beacon_sched *s) {
    uint64_t t = total(s) * 1000u;               /* <= 2^58: no overflow */
    return s->legacy_ceil ? (t + s->floor_mhps - 1) / s->floor_mhps : t / s->floor_mhps;
}

uint64_t tl_beacon_about_seconds(const tl_beacon_sched *s) {
    if (!s->assumed_mhps) return tl_beacon_floor_seconds(s);
    unsigned __int128 ms = ((unsigned __int128)total(s) * 1000000u + s->assumed_mhps - 1) / s->assumed_mhps;
    ms += s->setup_ms;
    return (uint64_t)((ms + 999) / 1000);
}

int64_t tl_beacon_earliest_opening(const tl_beacon_sched *s, uint64_t E) {
    return tl_beacon_release(s, E) + (int64_t)tl_beacon_floor_seconds(s);
}

int64_t tl_beacon_about_opening(const tl_beacon_sched *s, uint64_t E) {
    return tl_beacon_release(s, E) + (int64_t)tl_beacon_about_seconds(s);
}

uint64_t tl_beacon_seal_links(const tl_beacon_sched *s) {
    return tl_beacon_floor_seconds(s) / s->every;
}

uint64_t tl_beacon_epoch_at(const tl_beacon_sched *s, int64_t t, int *before) {
    if (t < s->start) { if (before) *before = 1; return 0; }
    if (before) *before = 0;
    return (uint64_t)(t - s->start) / s->every;
}

/* earliest_opening(j) >= release(E)  <=>  release(j) + F >= release(E)
 * <=>  (E - j) * every <= F  <=>  E - j <= k = floor(F / every).  The
 * earliest such j >= 0 is max(0, E - k); it must be below E (k >= 1). */
int tl_beacon_seal(const tl_beacon_sched *s, uint64_t E, uint64_t *j) {
    uint64_t k = tl_beacon_seal_links(s);
    if (E == 0 || k == 0) return 0;
    *j = E > k ? E - k : 0;
    return 1;
}

uint64_t tl_beacon_operator_only(const tl_beacon_sched *s, uint64_t n) {
    uint64_t c = 0, j;
    for (uint64_t E = 0; E < n; E++) c += !tl_beacon_seal(s, E, &j);
    return c;
}

int tl_beacon_choose(const tl_beacon_feed *f, int64_t t, int64_t now, int kind, size_t *idx) {
    tl_beacon_floor fl;   /* the checked rule at the built-in floor (trust.c) */
    tl_beacon_floor_of(&f->beacon, tl_beacon_table_mhps(NULL, f->beacon.work), &fl);
    return tl_beacon_choose_checked(f, &fl, t, now, kind, idx, NULL);
}

long tl_beacon_find(const tl_beacon_feed *f, uint64_t E) {
    size_t lo = 0, hi = f->n;   /* indices strictly increase */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->epochs[mid].index == E) return (long)mid;
        if (f->epochs[mid].index < E) lo = mid + 1; else hi = mid;
    }
    return -1;
}

int64_t tl_beacon_now(void) {
    int64_t t = (int64_t)time(NULL);
#ifdef RXLOCK_TESTING
    /* "@T": the clock stands at T; "N": N seconds added; "/PATH": the
     * first line of that file, read at every call (either form), so that
     * a test can jump a running service's clock forward and back */
    const char *ins = getenv("RXLOCK_TEST_INSECURE"), *sk = getenv("RXLOCK_TEST_CLOCK_SKEW");
    char line[64];
    if (ins && !strcmp(ins, "1") && sk && *sk == '/') {
        FILE *fp = fopen(sk, "re");
        sk = fp && fgets(line, sizeof line, fp) ? line : NULL;
        if (fp) fclose(fp);
    }
    if (ins && !strcmp(ins, "1") && sk && *sk) t = *sk == '@' ? strtoll(sk + 1, NULL, 10) : t + strtoll(sk, NULL, 10);
#endif
    return t;
}
