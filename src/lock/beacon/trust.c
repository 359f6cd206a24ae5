/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/trust.c — what every beacon client checks itself before
 * it believes a signed feed about time (docs/SECURITY.md §What a beacon
 * client checks): its own floor (the faster of its table's row and the
 * feed's, exact integer arithmetic, openings rounded to the earlier whole
 * second so a stated opening is never after the true one), the sane ranges
 * of the signed numbers, the checked choice rule, signer continuity and no
 * rollback.  Every refusal names a stable reason keyword and the field. */
#include "rxlock/beacon.h"
#include "util/util.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const reason_names[] = { "ok", "format", "signature", "signer_changed", "field",
                                            "clock_behind", "rollback", "schedule_changed", "no_epoch",
                                            "note_mismatch" };

const char *tl_beacon_reason_name(int reason) {
    return reason >= 0 && (size_t)reason < sizeof reason_names / sizeof reason_names[0] ? reason_names[reason] : "?";
}

static int refuse(tl_beacon_verdict *v, int reason, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(tl_beacon_verdict *v, int reason, const char *field, const char *fmt, ...) {
    if (v) {
        v->reason = reason;
        snprintf(v->field, sizeof v->field, "%s", field ? field : "");
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(v->msg, sizeof v->msg, fmt, ap);
        va_end(ap);
    }
    return TL_EINVAL;
}

static int ok(tl_beacon_verdict *v) {
    if (v) { v->reason = TL_BEACON_R_OK; v->field[0] = 0; v->msg[0] = 0; }
    return TL_OK;
}

/* "50m", "2h05m", "7d00h": how far apart two clocks are */
static void span(char *buf, size_t cap, int64_t s) {
    if (s < 0) s = -s;
    if (s < 60) snprintf(buf, cap, "%llds", (long long)s);
    else if (s < 3600) snprintf(buf, cap, "%lldm", (long long)(s / 60));
    else if (s < 86400) snprintf(buf, cap, "%lldh%02lldm", (long long)(s / 3600), (long long)(s % 3600 / 60));
    else snprintf(buf, cap, "%lldd%02lldh", (long long)(s / 86400), (long long)(s % 86400 / 3600));
}

/* ---- the client's floor ------------------------------------------------ */

uint64_t tl_beacon_table_mhps(const tl_floor_table *table, tl_work_type work) {
    tl_floor_table bt;
    if (!table) {
        tl_floor_builtin(&bt);
#ifdef RXLOCK_TESTING   /* the tests' slow floor rows, as tl_beacon_now's clock skew */
        const char *ins = getenv("RXLOCK_TEST_INSECURE"), *tt = getenv("RXLOCK_TEST_FLOOR_TABLE");
        if (ins && !strcmp(ins, "1") && tt && *tt && tl_floor_load(tt, &bt, NULL, 0) != TL_OK) tl_floor_builtin(&bt);
#endif
        table = &bt;
    }
    const tl_floor_row *r = tl_floor_fastest(table, work);
    if (!r || !(r->rate > 0)) return 0;
    double m = ceil(r->rate * 1000.0);   /* rounded up: the faster, the earlier */
    return m >= 9007199254740991.0 ? 9007199254740991ull : (uint64_t)m;
}

void tl_beacon_floor_of(const tl_beacon_sched *s, uint64_t client_mhps, tl_beacon_floor *out) {
    memset(out, 0, sizeof *out);
    out->feed_mhps = s->floor_mhps;
    out->client_mhps = client_mhps;
    out->recomputed = client_mhps > s->floor_mhps;
    out->mhps = out->recomputed ? client_mhps : s->floor_mhps;
    if (!out->mhps) out->mhps = 1;
    unsigned __int128 w = (unsigned __int128)s->groups * s->steps * 1000u;   /* < 2^58 */
    out->seconds = (uint64_t)(w / out->mhps);   /* rounded down: never a second late */
}

int64_t tl_beacon_floor_opening(const tl_beacon_sched *s, const tl_beacon_floor *fl, uint64_t E) {
    return tl_beacon_release(s, E) + (int64_t)fl->seconds;
}

/* ---- sane ranges --------------------------------------------------------- */

static void date(char *buf, size_t cap, int64_t t) { tl_promise_date(buf, cap, t); }

int tl_beacon_feed_sane(const tl_beacon_feed *f, int64_t now, tl_beacon_verdict *v) {
    const tl_beacon_sched *s = &f->beacon;
    char a[48], b[48], field[64];
    if (f->updated <= 0) return refuse(v, TL_BEACON_R_FIELD, "updated", "the feed's \"updated\" is 0: no beacon wrote it");
    if (f->updated > now + TL_BEACON_FUTURE_MAX) {
        date(a, sizeof a, f->updated);
        return refuse(v, TL_BEACON_R_FIELD, "updated", "the feed's \"updated\" (%s) is more than a year ahead of this "
                      "machine's clock: a false field", a);
    }
    if (f->updated > now + TL_BEACON_CLOCK_TOLERANCE) {
        span(a, sizeof a, f->updated - now);
        date(b, sizeof b, f->updated);
        return refuse(v, TL_BEACON_R_CLOCK, "updated", "this machine's clock is %s behind the beacon's (the feed was "
                      "written %s): set the clock right, then try again", a, b);
    }
    /* the generated window when the feed was written: the `ahead` epochs
     * from the first one not yet released (epoch 0 before the start) */
    uint64_t n0 = f->updated < s->start ? 0 : (uint64_t)(f->updated - s->start) / s->every + 1;
    int64_t horizon = tl_beacon_release(s, n0 + s->ahead - 1);
    for (size_t k = 0; k < f->n; k++) {
        const tl_beacon_epoch *e = &f->epochs[k];
        int published = 0;   /* a beacon publishes a puzzle at its release, never before; a
                                * solve may come early (a sealed path, a floor beaten) */
        for (unsigned q = 0; q < e->nkeys; q++) published |= e->keys[q].puzzle_path[0] != 0;
        if (published && e->release > f->updated) {
            snprintf(field, sizeof field, "epochs[%zu].state", k);
            date(a, sizeof a, e->release);
            date(b, sizeof b, f->updated);
            return refuse(v, TL_BEACON_R_FIELD, field, "epoch %llu's puzzle is published before its release time (%s; "
                          "the feed was written %s)", (unsigned long long)e->index, a, b);
        }
        if (e->release > horizon)
            return refuse(v, TL_BEACON_R_FIELD, "ahead", "epoch %llu lies beyond the %u epochs generated ahead when the "
                          "feed was written", (unsigned long long)e->index, s->ahead);
    }
    /* sealed.opening is derived (FORMAT §feed.json): derive it again */
    tl_beacon_feed *c = tl_beacon_feed_new(f->n);
    if (!c) return refuse(v, TL_BEACON_R_FORMAT, "", "out of memory");
    c->beacon = f->beacon;
    c->updated = f->updated;
    memcpy(c->epochs, f->epochs, f->n * sizeof *f->epochs);
    tl_beacon_feed_derive(c);
    for (size_t k = 0; k < f->n; k++)
        for (unsigned q = 0; q < f->epochs[k].nkeys; q++) {
            const tl_beacon_key *x = &f->epochs[k].keys[q], *y = &c->epochs[k].keys[q];
            if (x->has_sealed_opening != y->has_sealed_opening ||
                (x->has_sealed_opening && x->sealed_opening != y->sealed_opening)) {
                snprintf(field, sizeof field, "epochs[%zu].keys[%u].sealed.opening", k, q);
                unsigned long long E = (unsigned long long)f->epochs[k].index;
                tl_beacon_feed_free(c);
                return refuse(v, TL_BEACON_R_FIELD, field, "epoch %llu: sealed.opening disagrees with the schedule "
                              "and the released epochs", E);
            }
        }
    tl_beacon_feed_free(c);
    return ok(v);
}

/* ---- the choice rule ------------------------------------------------------- */

int tl_beacon_choose_checked(const tl_beacon_feed *f, const tl_beacon_floor *fl, int64_t t, int64_t now, int kind,
                             size_t *idx, tl_beacon_verdict *v) {
    if (tl_beacon_feed_sane(f, now, v) != TL_OK) return TL_EINVAL;
    const tl_beacon_sched *s = &f->beacon;
    int64_t after = (now > f->updated ? now : f->updated) + TL_BEACON_CHOICE_MARGIN;
    int64_t last = 0;
    int any = 0;
    for (size_t k = 0; k < f->n; k++) {
        const tl_beacon_epoch *e = &f->epochs[k];
        if (e->state != TL_BEACON_SCHEDULED || e->release < after) continue;
        int has = 0;
        for (unsigned q = 0; q < e->nkeys; q++) has |= e->keys[q].kind == kind;
        if (!has) continue;
        int64_t op = tl_beacon_floor_opening(s, fl, e->index);
        any = 1;
        last = op;
        if (op >= t) { *idx = k; return ok(v); }
    }
    char a[48], b[48];
    date(a, sizeof a, t);
    if (!any) {
        date(b, sizeof b, after);
        return refuse(v, TL_BEACON_R_NO_EPOCH, "", "no epoch of the feed is still scheduled to release after %s "
                      "(the beacon may have stopped; only its operator can release what it lists)", b);
    }
    date(b, sizeof b, last);
    return refuse(v, TL_BEACON_R_NO_EPOCH, "", "no scheduled epoch opens at or after %s at this client's floor: "
                  "the latest listed opens no sooner than %s", a, b);
}

/* ---- continuity -------------------------------------------------------------- */

void tl_beacon_seen_of(const tl_beacon_feed *f, tl_beacon_seen *out) {
    const tl_beacon_sched *s = &f->beacon;
    memset(out, 0, sizeof *out);
    memcpy(out->signer, s->signer, 32);
    out->updated = f->updated;
    out->has_sched = 1;
    out->work = s->work;
    out->groups = s->groups;
    out->steps = s->steps;
    out->every = s->every;
    out->start = s->start;
    out->released_max = out->solved_max = -1;
    for (size_t k = 0; k < f->n; k++) {
        if (f->epochs[k].state >= TL_BEACON_RELEASED) out->released_max = (int64_t)f->epochs[k].index;
        if (f->epochs[k].state == TL_BEACON_SOLVED) out->solved_max = (int64_t)f->epochs[k].index;
    }
}

int tl_beacon_continuity(const tl_beacon_seen *prev, const uint8_t *pin, const uint8_t *accept,
                         const tl_beacon_feed *next, tl_beacon_verdict *v) {
    const tl_beacon_sched *s = &next->beacon;
    const uint8_t *want = prev ? prev->signer : pin;
    char h1[65], h2[65], field[64];
    if (want && memcmp(want, s->signer, 32) != 0 && !(accept && memcmp(accept, s->signer, 32) == 0)) {
        util_hex_encode(h1, want, 32);
        util_hex_encode(h2, s->signer, 32);
        return refuse(v, TL_BEACON_R_SIGNER, "beacon.signer", "the feed is signed by %s, not by %s (%s); a rotation "
                      "is accepted only when named explicitly", h2, h1, prev ? "the signer seen first" : "the pin");
    }
    if (!prev) return ok(v);
    if (prev->has_sched && (prev->work != s->work || prev->groups != s->groups || prev->steps != s->steps ||
                            prev->every != s->every || prev->start != s->start)) {
        const char *fn = prev->work != s->work ? "beacon.work" : prev->groups != s->groups ? "beacon.groups"
                       : prev->steps != s->steps ? "beacon.steps" : prev->every != s->every ? "beacon.every"
                       : "beacon.start";
        return refuse(v, TL_BEACON_R_SCHEDULE, fn, "the feed's schedule changed (%s): a beacon's schedule never "
                      "does; the last good feed is kept", fn);
    }
    if (memcmp(prev->signer, s->signer, 32) != 0) return ok(v);   /* an accepted rotation: its history starts here */
    if (next->updated < prev->updated)
        return refuse(v, TL_BEACON_R_ROLLBACK, "updated", "the feed is older than the last one seen (updated %lld < "
                      "%lld): a rollback; the last good feed is kept", (long long)next->updated,
                      (long long)prev->updated);
    for (size_t k = 0; k < next->n; k++) {
        const tl_beacon_epoch *e = &next->epochs[k];
        int back = (prev->released_max >= 0 && (int64_t)e->index <= prev->released_max &&
                    e->state == TL_BEACON_SCHEDULED) ||
                   (prev->solved_max >= 0 && (int64_t)e->index == prev->solved_max && e->state != TL_BEACON_SOLVED);
        if (back) {
            snprintf(field, sizeof field, "epochs[%zu].state", k);
            return refuse(v, TL_BEACON_R_ROLLBACK, field, "epoch %llu went back to %s after it was seen %s: a "
                          "rollback; the last good feed is kept", (unsigned long long)e->index,
                          e->state == TL_BEACON_SCHEDULED ? "scheduled" : "released",
                          (int64_t)e->index == prev->solved_max ? "solved" : "released");
        }
    }
    return ok(v);
}

/* ---- the .beacon note against the feed ---------------------------------------- */

int tl_beacon_note_check(const tl_beacon_feed *f, const uint8_t signer[32], uint64_t E, int kind,
                         const char *recipient, int64_t earliest_opening, tl_beacon_verdict *v) {
    char h1[65], h2[65];
    if (memcmp(signer, f->beacon.signer, 32) != 0) {
        util_hex_encode(h1, signer, 32);
        util_hex_encode(h2, f->beacon.signer, 32);
        return refuse(v, TL_BEACON_R_NOTE, "signer", "the feed is signed by %s; the note recorded %s", h2, h1);
    }
    long k = tl_beacon_find(f, E);
    if (k < 0) return ok(v);   /* not listed (any more): nothing to compare */
    const tl_beacon_epoch *e = &f->epochs[k];
    const tl_beacon_key *y = NULL;
    for (unsigned q = 0; q < e->nkeys; q++)
        if (e->keys[q].kind == kind) y = &e->keys[q];
    if (!y) return refuse(v, TL_BEACON_R_NOTE, "kind", "epoch %llu has no %s key in the feed; the note recorded one",
                          (unsigned long long)E, tl_beacon_kind_name(kind) ? tl_beacon_kind_name(kind) : "?");
    if (strcmp(y->recipient, recipient) != 0)
        return refuse(v, TL_BEACON_R_NOTE, "recipient", "epoch %llu's recipient in the feed is not the one the note "
                      "recorded (the file was encrypted to another key)", (unsigned long long)E);
    if (e->earliest_opening != earliest_opening)
        return refuse(v, TL_BEACON_R_NOTE, "earliest_opening", "epoch %llu's earliest opening in the feed (%lld) is "
                      "not the one the note recorded (%lld): the schedule changed", (unsigned long long)E,
                      (long long)e->earliest_opening, (long long)earliest_opening);
    return ok(v);
}
