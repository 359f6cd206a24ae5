/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/keepup.c — does a generation throughput keep up with a
 * beacon's schedule (tl_beacon_keepup_of): one period's generation work
 * (kinds x G x S, plus the verified share recomputed), the time it takes at
 * the rate, the margin, and what would keep up: the shortest period, the
 * longest opening time at this period, the throughput a SEALED schedule
 * needs at any period (sealing asks the floor work to span a period, so
 * generation must outpace the floor hardware).  Arithmetic only: the CLI
 * measures the rate and words the refusal. */
#include "rxlock/beacon.h"
#include <math.h>
#include <string.h>

static unsigned nkinds(unsigned kinds) {
    return (kinds & TL_BEACON_CLASSIC ? 1u : 0u) + (kinds & TL_BEACON_PQ ? 1u : 0u);
}

int tl_beacon_keepup_of(const tl_beacon_sched *s, double rate, double verify_share, tl_beacon_keepup *k) {
    if (!s || !k || !(rate > 0) || !isfinite(rate) || !(verify_share >= 0) || verify_share > 1 || !s->every ||
        !s->floor_mhps)
        return TL_EINVAL;
    memset(k, 0, sizeof *k);
    double kinds = (double)(nkinds(s->kinds) ? nkinds(s->kinds) : 1);
    k->per_epoch = (double)s->groups * (double)s->steps * (1.0 + verify_share);
    k->hashes = kinds * k->per_epoch;
    k->seconds = k->hashes / rate;
    k->need_rate = k->hashes / (double)s->every;
    k->margin = (double)s->every / k->seconds;
    k->keeps_up = k->seconds <= (double)s->every;
    k->min_every = ceil(k->seconds);
    double open = (double)(s->opens_after ? s->opens_after : tl_beacon_about_seconds(s));
    k->max_opens_after = floor(open * k->margin);
    k->sealed = tl_beacon_seal_links(s) >= 1;
    k->seal_rate = (double)s->floor_mhps / 1000.0 * kinds * (1.0 + verify_share);
    k->sealed_possible = rate >= k->seal_rate;
    return TL_OK;
}
