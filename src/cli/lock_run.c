/* SPDX-License-Identifier: ISC */
/* src/cli/lock_run.c — running what lock_opts.c parsed (declared in
 * lock_opts.h): the generation estimate and --dry-run before any work,
 * tl_generate with the progress display and the stop signals, and the
 * promise printed after a lock. */
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

void cli_lock_promise(const cli_lock_opts *o, const tl_puzzle *pz, const char *open_cmd) {
    char t[640];
    /* published now: the dates count from the moment the lock exists */
    tl_promise_text_at(t, sizeof t, pz, &o->ft, pz->created ? (int64_t)time(NULL) : 0);
    fprintf(stderr, "rxlock: promise: %s", t);
    if (o->cpu[0]) fprintf(stderr, "; measured on %s%s", o->cpu, o->rate_saved ? " (the saved calibration)" : "");
    else if (!(o->rate > 0)) fprintf(stderr, "; no rate was measured here (`rxlock calibrate` saves one)");
    if (o->duration > 0)
        fprintf(stderr, " [--%s %s]", o->until ? "until" : "time",
                o->floor ? "is the fastest known hardware's hashing" : "includes setup");
    fprintf(stderr, "\n");
    double ps = o->cpu[0] ? tl_calibration_placement_spread(&o->cal) : 0;
    if (ps > 0.10)   /* sized with the fastest placement; a solver may get a slower one */
        fprintf(stderr, "rxlock: note: the calibration's %u placements of the dataset differed by %.0f%%: "
                        "a solve on that machine can take up to about %.0f%% longer than \"about\" says\n",
                o->cal.allocations, ps * 100, ps / (1 - ps) * 100);
    if (open_cmd && pz->work != TL_WORK_SHA3_256)
        fprintf(stderr, "rxlock: open with: %s (full mode when 2.3 GiB of memory is free; light mode is %s slower)\n",
                open_cmd, TL_FULL_LIGHT_RANGE);
    else if (open_cmd)
        fprintf(stderr, "rxlock: open with: %s\n", open_cmd);
}

int cli_lock_generate(cli_lock_opts *o, const char *label, int when, int json,
                      char **text, size_t *len, tl_puzzle **pz, uint8_t pk[32], uint8_t *keep_sk) {
    uint8_t sk[64], spk[32];
    if (o->sign_key) {
        int rc = tl_signer_load(o->sign_key, sk, spk);
        if (rc) return cli_error("%s: cannot load signing key: %s", o->sign_key, rc == TL_EIO ? strerror(errno) : rxlock_strerror(rc));
        o->p.sign_sk = sk;
    }
    cli_progress ui;
    cli_progress_init(&ui, label, (uint64_t)o->p.groups * o->p.steps, when, json);
    o->go.stop = ui.stop = cli_catch_signals();
    o->go.progress = cli_progress_cb;
    o->go.progress_ctx = &ui;
    o->go.stats = &o->stats;
    int rc = tl_generate(&o->p, &o->go, text, len, pz, pk, keep_sk);
    o->engine = ui.engine;
    sodium_memzero(sk, sizeof sk);
    o->p.sign_sk = NULL;
    cli_progress_end(&ui, rc == TL_OK);
    if (rc == TL_OK) return CLI_OK;
    if (keep_sk) sodium_memzero(keep_sk, 32);
    if (rc == TL_ENOMEM && o->go.mode == TL_MODE_FULL)
        fprintf(stderr, "rxlock: not enough memory for full mode; try --mode light\n");
    if (o->go.state_dir && o->stats.steps_total && o->state_write[0] && rc == TL_EIO) {
        /* a state write failed mid-generation (the event named the file):
         * what was sealed before stays, the same command resumes */
        cli_error("lock failed: %s; no puzzle written; the generation state is kept in %s/: run the same command "
                  "again to resume once there is space (or the cause is fixed)", o->state_write, o->go.state_dir);
        return CLI_FAIL;
    }
    if (o->go.state_dir && o->stats.steps_total && (*o->go.stop || rc == TL_EINTR || rc == TL_EWORKER)) {
        /* the sealed state stays; the same command resumes it */
        int intr = *o->go.stop || rc == TL_EINTR;
        if (!intr) (void)cli_work_error("lock stopped", rc, o->p.work);
        cli_error("lock %s: no puzzle written; the generation state is kept in %s: run the same command "
                  "to resume", intr ? "interrupted" : "failed", o->go.state_dir);
        return intr ? cli_interrupted_rc() : CLI_FAIL;
    }
    if (o->state_refused) {   /* the event above named the file and the way out */
        cli_error("lock failed: nothing written (the generation state above)");
        return CLI_FAIL;
    }
    if (*o->go.stop || rc == TL_EINTR) {
        cli_error("lock failed: interrupted; nothing written");
        return cli_interrupted_rc();
    }
    return cli_work_error("lock failed (nothing written)", rc, o->p.work);
}

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
