/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/releaser.c — the half of the service that both ways of
 * generating share (`beacon run` here, `beacon run --cluster` on Slurm or
 * Kubernetes): releasing every puzzle at its time by the wall clock as it
 * reads now (clock.c notices a change and this says it in one line),
 * republishing the signed feed on every change (a feed that cannot be
 * written, a full disk, is said once and tried again at every step while
 * releases go on: the feed served stays the last one, whole; a sealed
 * file likewise, its epoch unlisted until it is sealed), keeping the operator's
 * record (private/service.json, --metrics) fresh, saying in one line the
 * epochs whose release passed before they were generated, and sleeping on
 * the monotonic clock until the next release, a clock change, a stop, or a
 * wake-up the caller asks for. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include <stdio.h>
#include "util/util.h"
#include <stdlib.h>
#include <string.h>

int64_t bcn_next_release(const tl_beacon_sched *s, int64_t now) {
    int before = 0;
    uint64_t E = tl_beacon_epoch_at(s, now, &before);
    return before ? s->start : tl_beacon_release(s, E + 1);
}

uint64_t bcn_first_open(const tl_beacon_sched *s, int64_t now) {
    int before = 0;
    uint64_t E = tl_beacon_epoch_at(s, now, &before);
    return before ? 0 : E + 1;
}

void bcn_rel_start(bcn_releaser *r, bcn_dir *b, const uint8_t *sk, bcn_service *sv) {
    int64_t jump;
    r->b = b;
    r->sk = sk;
    r->sv = sv;
    memset(&r->ck, 0, sizeof r->ck);
    int64_t now = bcn_clock_read(&r->ck, &jump);
    r->skipped_to = bcn_first_open(&b->cfg.s, now);
    r->gen_hi = r->skipped_to + b->cfg.s.ahead;
    r->next_due = bcn_next_release(&b->cfg.s, now);
    r->sv_written = 0;
}

uint64_t bcn_rel_passed(bcn_releaser *r, uint64_t n0, uint64_t *first, uint64_t *last) {
    uint64_t c = 0;
    for (uint64_t E = r->skipped_to; E < n0; E++) {
        if (E >= r->gen_hi) {   /* beyond what was ever generated ahead: none is there */
            if (!c) *first = E;
            c += n0 - E;
            *last = n0 - 1;
            break;
        }
        if (!bcn_epoch_made(r->b, E)) {
            if (!c) *first = E;
            c++;
            *last = E;
        }
    }
    if (n0 > r->skipped_to) r->skipped_to = n0;
    if (n0 + r->b->cfg.s.ahead > r->gen_hi) r->gen_hi = n0 + r->b->cfg.s.ahead;
    r->sv->failures += c;   /* a skipped epoch counts among the service's failures */
    return c;
}

void bcn_rel_say_passed(uint64_t n, uint64_t first, uint64_t last) {
    if (n == 1)
        bcn_log("epoch %llu skipped: its release time passed before it was generated", (unsigned long long)first);
    else if (n)
        bcn_log("epochs %llu..%llu (%llu) skipped: their release times passed before they were generated",
                (unsigned long long)first, (unsigned long long)last, (unsigned long long)n);
}

/* The operator's record, when asked (now) or every 5 s. */
static void record(bcn_releaser *r, int now) {
    if (!now && util_now() - r->sv_written < 5) return;
    bcn_service_write(r->b, r->sv);
    r->sv_written = util_now();
}

/* A write that failed (its message just said, or held): said once in the
 * log with what follows, kept in the record, counted; *pending set, so the
 * next tries are quiet (cli_error_hold) until one succeeds. */
static void failed_once(bcn_releaser *r, int *pending, const char *line) {
    if (!*pending) {
        bcn_log("%s", line);
        snprintf(r->sv->last_error, sizeof r->sv->last_error, "%s", cli_last_error());
        r->sv->last_error_at = tl_beacon_now();
        r->sv->failures++;
    }
    *pending = 1;
}

/* One line per wall-clock change (clock.c noticed it). */
static void clock_event(bcn_releaser *r, int64_t jump, int64_t now) {
    const tl_beacon_sched *s = &r->b->cfg.s;
    char d[32], when[48];
    util_format_duration(d, sizeof d, (double)(jump < 0 ? -jump : jump));
    if (jump < 0) {
        bcn_time(when, sizeof when, bcn_next_release(s, now));
        bcn_log("the clock went back by %lld s (%s): releases wait until it reaches their release times again; the "
                "next is at %s", (long long)-jump, d, when);
        return;
    }
    uint64_t first = 0, last = 0, n = bcn_rel_passed(r, bcn_first_open(s, now), &first, &last);
    if (n)
        bcn_log("the clock jumped forward by %lld s (%s): %llu epoch%s (%llu..%llu) passed %s release time "
                "ungenerated; what the clock makes due is released now", (long long)jump, d, (unsigned long long)n,
                n == 1 ? "" : "s", (unsigned long long)first, (unsigned long long)last, n == 1 ? "its" : "their");
    else
        bcn_log("the clock jumped forward by %lld s (%s): no epoch passed ungenerated; what the clock makes due is "
                "released now", (long long)jump, d);
}

int bcn_rel_tick(bcn_releaser *r, int force, int64_t jump) {
    const tl_beacon_sched *s = &r->b->cfg.s;
    int64_t now = tl_beacon_now();
    if (jump) clock_event(r, jump, now);
    int changed = 0;
    if (bcn_release_due(r->b, now, &changed) != CLI_OK) return CLI_FAIL;
    r->next_due = bcn_next_release(s, now);   /* from the clock now: never one since corrected */
    r->sv->next_release = r->next_due;
    record(r, changed || force);
    if (!changed && !force && !r->publish_pending) return CLI_OK;
    size_t listed = 0;
    cli_error_hold(r->publish_pending);   /* said once: tried again quietly */
    int rc = bcn_feed_publish(r->b, r->sk, now, &listed);
    cli_error_hold(0);
    if (rc != CLI_OK) {   /* the feed served stays the last one, whole; releases go on */
        failed_once(r, &r->publish_pending, "the feed was not published (said above); releases go on, and each step "
                    "tries the feed again");
        return CLI_OK;
    }
    if (r->publish_pending) bcn_log("the feed is published again");
    r->publish_pending = 0;
    bcn_log("published feed.json (%zu epochs)", listed);
    return CLI_OK;
}

int bcn_rel_seal(bcn_releaser *r, uint64_t E, int *changed) {
    cli_error_hold(r->seal_pending);   /* said once: tried again quietly */
    int rc = bcn_seal(r->b, E, changed);
    cli_error_hold(0);
    if (rc == CLI_OK) return CLI_OK;
    char line[160];   /* the epoch stays unlisted until sealed (publish.c): nobody encrypts to it */
    snprintf(line, sizeof line, "epoch %llu is not sealed (said above); it is not offered until it is, and each step "
             "tries again", (unsigned long long)E);
    failed_once(r, &r->seal_pending, line);
    return CLI_FAIL;
}

int bcn_rel_reseal(bcn_releaser *r, uint64_t n0) {
    if (!r->seal_pending) return CLI_OK;
    int changed = 0, failed = 0;
    for (uint64_t E = n0; E < n0 + r->b->cfg.s.ahead && !failed; E++)
        if (bcn_epoch_made(r->b, E)) failed = bcn_rel_seal(r, E, &changed) != CLI_OK;
    if (failed) return CLI_OK;
    r->seal_pending = 0;
    bcn_log("the epochs that waited are sealed");
    return changed ? bcn_rel_tick(r, 1, 0) : CLI_OK;
}

int bcn_rel_repair(bcn_releaser *r) {
    uint64_t n0 = bcn_first_open(&r->b->cfg.s, tl_beacon_now()), lo = n0 > TL_BEACON_MAX_EPOCHS ? n0 - TL_BEACON_MAX_EPOCHS : 0;
    int changed = 0, rc = CLI_OK;
    for (uint64_t E = lo; E < n0 + r->b->cfg.s.ahead && rc == CLI_OK; E++)
        if (bcn_epoch_made(r->b, E)) rc = bcn_seal(r->b, E, &changed);
    return rc;
}

int bcn_rel_poll(bcn_releaser *r) {
    int64_t jump, now = bcn_clock_read(&r->ck, &jump);
    if (jump || now >= r->next_due) return bcn_rel_tick(r, 0, jump);
    record(r, 0);
    return CLI_OK;
}

int bcn_rel_sleep(bcn_releaser *r, double at_most, const volatile int *stop) {
    int64_t jump, now = bcn_clock_read(&r->ck, &jump);
    if (!jump) {
        int64_t wake = r->next_due;
        if (at_most > BCN_SERVICE_REFRESH) at_most = BCN_SERVICE_REFRESH;
        if (at_most < 1) at_most = 1;
        if (wake > now + (int64_t)at_most) wake = now + (int64_t)at_most;
        jump = bcn_clock_sleep_until(&r->ck, wake, stop);
    }
    if (stop && *stop) return CLI_OK;
    return bcn_rel_tick(r, 0, jump);
}
