/* SPDX-License-Identifier: ISC */
/* src/cli/lock_estimate.c — before any work, for every command that sizes
 * a puzzle with lock_opts.c (lock, lock FILE, plan): the generation
 * estimate here and the --dry-run plan (declared in lock_opts.h). */
#include "cli/lock_opts.h"
#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_util.h"
#include "rxlock/calibrate.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* This machine's per-worker generation rate: the calibration given with
 * --calibration when it was measured on this CPU model, else the saved
 * calibration's (in the generation's mode: a full-mode rate scaled down by
 * the recorded full/light ratio for a light generation, a light one up by
 * the smaller ratio for a full one), else the floor's rate as an upper
 * bound (then the time is a lower bound).  0 when none is known. */
static double gen_rate(const cli_lock_opts *o, char *src, size_t cap, int *bound, double *setup) {
    *bound = 0;
    *setup = 0;
    char here[sizeof o->cal.cpu];
    tl_cpu_model(here, sizeof here);
    int given = o->calib && o->cal.cpu[0] && strcmp(o->cal.cpu, here) == 0;
    if (given || o->have_saved) {
        const tl_calibration *c = given ? &o->cal : &o->saved;
        double r = tl_calibration_sizing_rate(c);
        const char *scaled = "";
        if (o->p.work != TL_WORK_SHA3_256 && c->mode != o->mc.mode) {
            if (c->mode == TL_MODE_FULL) { r /= TL_FULL_LIGHT_RATIO; scaled = ", its full-mode rate / 4.5 for light mode"; }
            else { r *= TL_FULL_LIGHT_RATIO_MIN; scaled = ", its light-mode rate x 2.7 for full mode"; }
        } else {
            *setup = c->setup_seconds;
        }
        snprintf(src, cap, "%s of %.60s%s", given ? "the --calibration file's rate" : "the saved calibration",
                 c->cpu, scaled);
        return r;
    }
    const tl_floor_row *row = tl_floor_fastest(&o->ft, o->p.work);
    if (!row) { snprintf(src, cap, "no calibration saved here: `rxlock calibrate` measures this machine"); return 0; }
    *bound = 1;
    snprintf(src, cap, "at most the fastest known hardware's rate; no calibration saved here: "
                       "`rxlock calibrate` measures this machine");
    return row->rate;
}

/* The estimate as one line (no "rxlock: " prefix, no newline); *wall gets
 * the wall seconds (-1 unknown). */
static void estimate_text(const cli_lock_opts *o, char *buf, size_t cap, double *wall) {
    const tl_params *p = &o->p;
    double total = (double)p->groups * (double)p->steps, setup;
    unsigned w = o->go.workers ? o->go.workers : util_cpus_usable();
    if (w < 1) w = 1;
    unsigned par = w < p->groups ? w : p->groups;
    char src[200], r[32], a[32], b[32];
    int bound;
    double rate = gen_rate(o, src, sizeof src, &bound, &setup);
    *wall = -1;
    if (!(rate > 0)) {
        snprintf(buf, cap, "%u x %llu = %.0f %s hashes on %u worker%s: no estimate (%s)", p->groups,
                 (unsigned long long)p->steps, total, tl_work_name(p->work), par, par == 1 ? "" : "s", src);
        return;
    }
    double cpu = total / rate;
    *wall = cpu / par + setup;
    util_format_rate(r, sizeof r, rate);
    util_format_duration(a, sizeof a, *wall);
    util_format_duration(b, sizeof b, cpu);
    snprintf(buf, cap, "%u x %llu = %.0f %s hashes%s on %u worker%s at %s%sH/s each (%s): %s %s wall, %s CPU%s",
             p->groups, (unsigned long long)p->steps, total, tl_work_name(p->work),
             p->work == TL_WORK_SHA3_256 ? "" : o->mc.mode == TL_MODE_FULL ? " in full mode" : " in light mode", par,
             par == 1 ? "" : "s", bound ? "no more than " : "", r, src, bound ? "at least" : "about", a, b,
             p->work == TL_WORK_SHA3_256 ? " (one chain per worker; SIMD lanes run several, faster)" : "");
}

/* Past about 10 minutes of generation: the cheaper ways, one line. */
static void cheaper_ways(const cli_lock_opts *o, double wall, FILE *f, const char *lead) {
    if (!(wall > 600)) return;
    char a[32];
    util_format_duration(a, sizeof a, wall);
    fprintf(f, "%s%s of generation here is over 10 minutes; cheaper ways: %s`rxlock plan` (generate on a "
               "cluster, many machines at once), or an epoch of a beacon (`rxlock beacon`: one generation serves "
               "every lock of the epoch)\n", lead, a,
            o->p.work == TL_WORK_SHA3_256 ? "" : "--work sha3-256 (SIMD lanes run several chains per core; "
                                                 "its floor is dedicated hardware, see docs/SECURITY.md), ");
}

void cli_lock_estimate(const cli_lock_opts *o, FILE *f) {
    char t[768];
    double wall;
    estimate_text(o, t, sizeof t, &wall);
    fprintf(f, "rxlock: generation here: %s\n", t);
    cheaper_ways(o, wall, f, "rxlock: ");
}

int cli_lock_dry_run(const cli_lock_opts *o, const char *what) {
    const tl_params *p = &o->p;
    tl_puzzle pz;
    memset(&pz, 0, sizeof pz);
    pz.version = TL_PUZZLE_VERSION;
    pz.work = p->work;
    pz.groups = p->groups;
    pz.steps = p->steps;
    pz.rate_milli_hps = p->rate_milli_hps;
    pz.rate_mode = p->rate_mode;
    pz.setup_ms = p->setup_ms;
    pz.created = (int64_t)time(NULL);
    char t[768], r[32], d[32];
    double wall;
    printf("dry run:       nothing is generated or written (%s)\n", what);
    printf("work:          %s, %u group%s x %llu steps = %llu sequential hashes\n", tl_work_name(p->work), p->groups,
           p->groups == 1 ? "" : "s", (unsigned long long)p->steps, (unsigned long long)p->groups * p->steps);
    if (o->duration > 0) {
        util_format_duration(d, sizeof d, o->duration);
        printf("sized:         %s %s %s\n", o->until ? "--until, from now," : "--time", d,
               o->floor ? "of hashing on the fastest known hardware (the floor)" : "at the assumed rate, setup included");
    } else {
        printf("sized:         --groups / --steps\n");
    }
    if (o->rate > 0) {
        util_format_rate(r, sizeof r, o->rate);
        printf("assumed rate:  %sH/s (%s)%s%s\n", r, p->rate_source, o->cpu[0] ? " measured on " : "", o->cpu);
    } else {
        printf("assumed rate:  none: no rate was measured here (`rxlock calibrate` saves one)\n");
    }
    tl_promise_text_at(t, sizeof t, &pz, &o->ft, pz.created);
    printf("promise:       %s [%s; published now]\n", t, o->ft.origin);
    estimate_text(o, t, sizeof t, &wall);
    printf("generation:    %s\n", t);
    cheaper_ways(o, wall, stdout, "               ");
    unsigned w = o->go.workers ? o->go.workers : util_cpus_usable();
    if (w > p->groups) w = p->groups;
    if (p->work == TL_WORK_SHA3_256)
        printf("memory:        a few MiB (sha3-256 needs no dataset)\n");
    else if (o->mc.mode == TL_MODE_FULL)
        printf("memory:        full mode: %llu MiB (dataset + cache, built once, shared by the %u worker%s) + "
               "2 MiB per worker\n", (unsigned long long)(o->mc.need_bytes >> 20), w, w == 1 ? "" : "s");
    else
        printf("memory:        light mode: 256 MiB (cache, built once, shared by the %u worker%s) + 2 MiB per "
               "worker%s\n", w, w == 1 ? "" : "s", o->mc.low_memory ? " (full mode does not fit here)" : "");
    return fflush(stdout) == 0 ? CLI_OK : cli_error("stdout: write failed");
}
