/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/keepup.c — the keep-up check that `beacon init` and
 * `beacon run` share: this machine's generation throughput measured as
 * generation runs (tl_measure_gen_rate: the configured workers, SHA3 chains
 * in SIMD lanes, the median of windows; a short measurement first, a longer
 * one when the answer is close), or the operator's --gen-rate, or at `run`
 * the pace of the epochs this beacon generated here (gen_pace.c); the verdict
 * from the library's arithmetic (tl_beacon_keepup_of), said in one line;
 * a refusal names the flags that fix it (--groups, --every, --opens-after,
 * --cluster, --workers only up to the CPUs this machine has) and says when
 * no sealed schedule can keep up here at all.  Also the groups that fill
 * workers x lanes (bcn_fill_groups), which `beacon init` picks; and
 * init's sealing line (bcn_say_sealing), whose advice for a schedule that
 * seals nothing names only an --every or --opens-after this throughput
 * keeps up with (or says that none does). */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

double bcn_verify_share(const tl_beacon_config *c) {
    return c->verify == TL_VERIFY_FULL ? 1.0 : c->verify == TL_VERIFY_SAMPLE ? c->verify_permille / 1000.0 : 0.0;
}

unsigned bcn_workers_here(unsigned configured) {
    unsigned cpus = util_cpus_usable();
    return configured && configured < cpus ? configured : cpus < 1 ? 1 : cpus;
}

uint32_t bcn_fill_groups(tl_work_type work, unsigned workers) {
    unsigned W = bcn_workers_here(workers), L = tl_work_lanes(work);
    return (uint32_t)(W * (L < 1 ? 1 : L > 8 ? 8 : L));
}

/* Say (at init on stderr, at run as a log line). */
static void say(int at_init, const char *text) {
    if (at_init) fprintf(stderr, "rxlock: %s\n", text);
    else bcn_log("%s", text);
}

/* Why no sealed schedule keeps up at ku's rate: sealing asks the floor
 * work to span a period, so generation must outpace the floor hardware. */
static void seal_outpace(char *buf, size_t cap, const tl_beacon_sched *s, const bcn_keepup *ku) {
    char sr[32], rs[32];
    util_format_rate(sr, sizeof sr, ku->k.seal_rate);
    util_format_rate(rs, sizeof rs, ku->rate);
    snprintf(buf, cap, "sealing needs the floor work (the fastest known hardware, %s) to span a period, so generation "
             "must outpace it: %sH/s with %.0f%% verified, this machine makes %sH/s", s->floor_row, sr,
             ku->verify_share * 100, rs);
}

int bcn_keepup_check(const tl_beacon_config *c, tl_mode mode, double given_rate, const char *given_source, int at_init,
                     const volatile int *stop, bcn_keepup *out) {
    const tl_beacon_sched *s = &c->s;
    memset(out, 0, sizeof *out);
    double vs = bcn_verify_share(c);
    tl_gen_rate g;
    memset(&g, 0, sizeof g);
    if (given_rate > 0) {
        out->rate = given_rate;
        snprintf(out->source, sizeof out->source, "%s", given_source ? given_source : "given by --gen-rate");
    } else {
        /* a short measurement; a longer one when the verdict is within 2x.
         * Said first: RandomX builds its cache (and in full mode its 2 GiB
         * dataset, tens of seconds on a small machine) before it measures */
        if (s->work != TL_WORK_SHA3_256)
            say(at_init, mode == TL_MODE_FULL
                             ? "measuring this machine's generation throughput: the RandomX dataset (2 GiB, full "
                               "mode) is built first, which takes a while, then a few seconds of hashing"
                             : "measuring this machine's generation throughput: the RandomX cache (light mode) is "
                               "built first, then a few seconds of hashing");
        double secs[2] = { 0.6, 3.0 };
        for (int pass = 0; pass < 2; pass++) {
            int rc = tl_measure_gen_rate(s->work, mode, c->workers, s->groups, secs[pass], stop, &g);
            if (rc) return cli_work_error("measuring the generation throughput", rc, s->work);
            tl_beacon_keepup k;
            if (tl_beacon_keepup_of(s, g.rate, vs, &k) != TL_OK) return cli_error("the schedule's keep-up figures are out of range");
            if (k.margin >= 2.0 || k.margin <= 0.5) break;
        }
        out->rate = g.rate;
        char lo[32], hi[32];
        util_format_rate(lo, sizeof lo, g.rate_min);
        util_format_rate(hi, sizeof hi, g.rate_max);
        snprintf(out->source, sizeof out->source, "measured here: %u worker%s x %u lane%s, median of %u windows over "
                 "%.1f s, %s..%sH/s", g.workers, g.workers == 1 ? "" : "s", g.lanes, g.lanes == 1 ? "" : "s",
                 g.windows, g.seconds, lo, hi);
        out->workers = g.workers;
        out->lanes = g.lanes;
    }
    if (tl_beacon_keepup_of(s, out->rate, vs, &out->k) != TL_OK) return cli_error("the schedule's keep-up figures are out of range");
    const tl_beacon_keepup *k = &out->k;
    out->verify_share = vs;
    out->gen_seconds = k->per_epoch / out->rate;   /* one epoch key */
    char ps[32], ev[32], rs[32], ns[32], line[1400];
    util_format_duration(ps, sizeof ps, k->seconds);
    util_format_duration(ev, sizeof ev, (double)s->every);
    util_format_rate(rs, sizeof rs, out->rate);
    util_format_rate(ns, sizeof ns, k->need_rate);
    if (k->keeps_up) {
        snprintf(line, sizeof line, "keeps up: a period's epochs take about %s of generation at %sH/s (%s; %.0f%% "
                 "verified) per period of %s: margin %.2fx (needs %sH/s)", ps, rs, out->source, vs * 100, ev, k->margin, ns);
        say(at_init, line);
        return CLI_OK;
    }
    /* the refusal, with every way out that applies */
    size_t n = (size_t)snprintf(line, sizeof line, "this machine cannot keep up: a period's epochs need about %s of "
                                "generation at %sH/s (%s; %.0f%% verified), the period is %s (margin %.2fx; needs "
                                "%sH/s).  Ways out:", ps, rs, out->source, vs * 100, ev, k->margin, ns);
    unsigned cpus = util_cpus_usable(), fill = bcn_fill_groups(s->work, 0);
    if (c->workers && c->workers < cpus && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " --workers %u (this machine has %u CPUs);", cpus, cpus);
    if (s->groups < fill && tl_work_lanes(s->work) > 1 && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " --groups %u at `beacon init` (fills %u workers x %u SIMD "
                              "lanes; %u groups leave lanes idle);", fill, bcn_workers_here(0),
                              fill / bcn_workers_here(0), s->groups);
    char me[32], mo[32];
    util_format_duration(me, sizeof me, k->min_every);
    util_format_duration(mo, sizeof mo, k->max_opens_after);
    if (n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " --every %s or longer%s;", me,
                              k->sealed ? " (then unsealed: sealing needs the floor work to span a period)" : "");
    if (n < sizeof line && k->max_opens_after >= 1)
        n += (size_t)snprintf(line + n, sizeof line - n, " --opens-after %s or shorter%s;", mo,
                              k->sealed && k->max_opens_after < (double)s->every ? " (then unsealed)" : "");
    if (n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, " (--every and --opens-after make a new beacon: `beacon "
                              "init`); or `beacon run --cluster slurm|k8s` (generation on a cluster)");
    if (k->sealed && !k->sealed_possible && n < sizeof line) {
        char why[400];
        seal_outpace(why, sizeof why, s, out);
        n += (size_t)snprintf(line + n, sizeof line - n, ".  No SEALED schedule keeps up here at any period: %s", why);
    }
    (void)n;
    return cli_error("%s", line);
}

void bcn_say_sealing(const tl_beacon_sched *s, const bcn_keepup *ku) {
    uint64_t F = tl_beacon_floor_seconds(s), k = tl_beacon_seal_links(s);
    char fs[32], ev[32], line[1200];
    util_format_duration(fs, sizeof fs, (double)F);
    util_format_duration(ev, sizeof ev, (double)s->every);
    if (k) {
        fprintf(stderr, "rxlock: sealing: epoch E is sealed to epoch max(0, E - %llu) (floor work %s = %llu periods "
                        "of %s); only epoch 0 is operator-only\n", (unsigned long long)k, fs, (unsigned long long)k, ev);
        return;
    }
    if (!F) snprintf(fs, sizeof fs, "under 1s");   /* F is rounded down */
    /* the --every that seals: at most F; at least 1 s and the shortest
     * period this machine keeps up with.  A longer --opens-after at this
     * period keeps up only when generation outpaces the floor hardware. */
    uint64_t lo = ku && ku->k.min_every > 1 ? (uint64_t)ku->k.min_every : 1;
    int opens_ok = !ku || ku->k.sealed_possible;
    char way[160], why[400] = "", shortest[160];
    if (lo > 1)   /* whole seconds, as --every takes them */
        snprintf(way, sizeof way, "an --every of at most %llus and at least %llus (the shortest this machine keeps up "
                 "with)", (unsigned long long)F, (unsigned long long)lo);
    else
        snprintf(way, sizeof way, "an --every of at most %llus", (unsigned long long)F);
    snprintf(shortest, sizeof shortest, "the shortest --every%s, %llus, is longer than the floor work",
             lo > 1 ? " this machine keeps up with" : "", (unsigned long long)lo);
    if (!opens_ok) seal_outpace(why, sizeof why, s, ku);
    size_t n = (size_t)snprintf(line, sizeof line, "sealing: EVERY epoch is operator-only: the floor work (%s) is "
                                "shorter than the period (%s), so no earlier epoch opens late enough to seal a later "
                                "one.  ", fs, ev);
    if (F >= lo && opens_ok)
        snprintf(line + n, sizeof line - n, "A longer --opens-after (floor work >= %s) or %s removes it", ev, way);
    else if (F >= lo)
        snprintf(line + n, sizeof line - n, "Only %s removes it; a longer --opens-after would not keep up here: %s",
                 way, why);
    else if (opens_ok)
        snprintf(line + n, sizeof line - n, "No --every removes it (%s); a longer --opens-after (floor work >= %s) "
                 "does", shortest, ev);
    else
        snprintf(line + n, sizeof line - n, "No --every or --opens-after removes it here: %s, and a longer "
                 "--opens-after would not keep up: %s", shortest, why);
    fprintf(stderr, "rxlock: %s\n", line);
}
