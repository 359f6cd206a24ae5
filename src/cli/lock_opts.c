/* SPDX-License-Identifier: ISC */
/* src/cli/lock_opts.c — parsing and resolution of the options shared by
 * `rxlock lock` and `rxlock lock FILE`, and the generation run both make
 * (see lock_opts.h). */
#include "cli/lock_opts.h"
#include "cli/cli.h"
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
#include <unistd.h>

/* The library never prints: worker trouble and the test mode arrive here. */
static void print_event(const tl_event *ev, void *ctx) {
    cli_lock_opts *o = ctx;
    if (ev->kind == TL_EVENT_STATE && o) o->state_refused = 1;
    fprintf(stderr, "rxlock: %s\n", ev->message);
}

void cli_lock_opts_init(cli_lock_opts *o) {
    memset(o, 0, sizeof *o);
    o->p.work = TL_WORK_RANDOMX_V2;
    strcpy(o->p.rate_source, "none");
    o->go.retries = 1;
    o->go.event = print_event;
    o->go.event_ctx = o;
    o->mode_req = -1;
    o->cpu = "";
    o->pq = -1;
}

void cli_lock_pq_default(cli_lock_opts *o, int dflt) {
    o->p.pq = o->pq < 0 ? dflt : o->pq;
}

int cli_lock_opt(cli_lock_opts *o, int c, const char *arg, const char *cmd) {
    uint64_t v;
    switch (c) {
    case 'w':
        if (tl_work_parse(arg, &o->p.work)) return cli_usage_error(cmd, "unknown work function '%s'", arg);
        return 0;
    case 'g':
        if (cli_parse_u64(arg, 1, TL_MAX_GROUPS, &o->groups)) return cli_usage_error(cmd, "--groups: want 1..%u", TL_MAX_GROUPS);
        return 0;
    case 's':
        if (cli_parse_u64(arg, 1, TL_MAX_STEPS, &o->steps)) return cli_usage_error(cmd, "--steps: want 1..2^40");
        return 0;
    case 't':
        if (cli_parse_duration(arg, &o->duration))
            return cli_usage_error(cmd, "--time '%s': %s", arg, cli_duration_error(arg));
        return 0;
    case 'r':
        if (cli_parse_double(arg, 1e-9, 1e15, &o->rate))
            return cli_usage_error(cmd, "--rate '%s': want a positive number of hashes/s", arg);
        if (o->rate < 0.001)   /* the puzzle records milli-hashes/s: it would be stored as 0 */
            return cli_usage_error(cmd, "--rate '%s': below 0.001 hashes/s, the smallest rate a puzzle records", arg);
        return 0;
    case 'c': o->calib = arg; return 0;
    case 'm':
        if (cli_parse_mode(arg, &o->go.mode)) return cli_usage_error(cmd, "--mode: want light or full");
        o->mode_req = (int)o->go.mode;
        return 0;
    case CLI_OPT_FLOOR: o->floor = 1; return 0;
    case CLI_OPT_FLOOR_TABLE: o->floor_table = arg; return 0;
    case 'n':
        if (cli_parse_u64(arg, 1, 1024, &v)) return cli_usage_error(cmd, "--workers: want 1..1024");
        o->go.workers = (unsigned)v;
        return 0;
    case 'k': o->sign_key = arg; return 0;
    case CLI_OPT_PROGRESS: o->progress = 1; return 0;
    case CLI_OPT_NO_VERIFY: o->go.verify = TL_VERIFY_NONE; return 0;
    case CLI_OPT_VERIFY: {
        double f = 0;
        if (!arg || !strcmp(arg, "full")) o->go.verify = TL_VERIFY_FULL;
        else if (!strcmp(arg, "none")) o->go.verify = TL_VERIFY_NONE;
        else if (!strcmp(arg, "sample")) o->go.verify = TL_VERIFY_SAMPLE;
        else if (!strncmp(arg, "sample:", 7) && cli_parse_double(arg + 7, 1e-6, 1, &f) == 0) {
            o->go.verify = TL_VERIFY_SAMPLE;
            o->go.verify_fraction = f;
        } else return cli_usage_error(cmd, "--verify: want full, sample:F (0 < F <= 1) or none");
        return 0;
    }
    case CLI_OPT_CKPT:
        if (cli_parse_u64(arg, 1, TL_MAX_STEPS, &o->go.checkpoint_steps))
            return cli_usage_error(cmd, "--checkpoint-steps: want 1..2^40");
        return 0;
    case CLI_OPT_PQ:
    case CLI_OPT_CLASSIC:
        if (o->pq == (c == CLI_OPT_PQ ? 0 : 1)) return cli_usage_error(cmd, "give --pq or --classic, not both");
        o->pq = c == CLI_OPT_PQ;
        return 0;
    default: return -1;
    }
}

/* issue 19: a light-mode rate never sizes a RandomX puzzle. */
static int refuse_light_rate(const cli_lock_opts *o) {
    char r[32];
    util_format_rate(r, sizeof r, tl_calibration_sizing_rate(&o->cal));
    return cli_error("%s: a light-mode rate (%sH/s) cannot size a RandomX puzzle: anyone with 2.3 GiB of\n"
                     "  memory solves in full mode, %s faster (recorded), so it would open in as little as\n"
                     "  1/%.1f of the time promised.  Calibrate in full mode: rxlock calibrate --work %s --mode full",
                     o->calib, r, TL_FULL_LIGHT_RANGE, TL_FULL_LIGHT_RATIO, tl_work_name(o->p.work));
}

static int load_calibration(cli_lock_opts *o) {
    tl_params *p = &o->p;
    tl_calibration *cal = &o->cal;
    char err[256];
    if (tl_calibration_load(o->calib, cal, err, sizeof err)) return cli_error("%s", err);
    if (cal->work != p->work)
        return cli_error("%s: calibration is for %s, not %s", o->calib, tl_work_name(cal->work), tl_work_name(p->work));
    if (p->work != TL_WORK_SHA3_256 && cal->mode != TL_MODE_FULL) return refuse_light_rate(o);
    o->rate = tl_calibration_sizing_rate(cal);   /* the fastest window */
    o->setup = cal->setup_seconds;
    o->cpu = cal->cpu;
    /* what applies: RandomX mode (and engine when recorded); nothing for SHA3 */
    if (!cal->engine.mode) snprintf(p->rate_source, sizeof p->rate_source, "calibration");
    else if (!cal->engine.engine) snprintf(p->rate_source, sizeof p->rate_source, "calibration (%s)", cal->engine.mode);
    else snprintf(p->rate_source, sizeof p->rate_source, "calibration (%s, %s)", cal->engine.mode,
                  !strcmp(cal->engine.engine, "jit") ? "jit" : "interp");
    return 0;
}

/* --time: G*S from the duration.  Without --floor the duration is hashing
 * PLUS setup on the rate's machine; with --floor it is the fastest known
 * CPU's hashing alone (its setup may be done in parallel, on many cores). */
static int size_from_time(cli_lock_opts *o, const char *cmd, double *total) {
    tl_params *p = &o->p;
    if (o->floor) {
        const tl_floor_row *row = tl_floor_fastest(&o->ft, p->work);
        if (!row) return cli_error("--floor: the %s has no fastest known CPU for %s; give --floor-table FILE",
                                   o->ft.origin, tl_work_name(p->work));
        uint64_t h;
        if (tl_floor_hashes(row, o->duration, &h) != 0) return cli_error("--floor: --time x %.4g H/s exceeds 2^48 hashes", row->rate);
        *total = (double)h;
        if (!(o->rate > 0)) {   /* no rate of ours: the puzzle assumes the floor's */
            o->rate = row->rate;
            snprintf(p->rate_source, sizeof p->rate_source, "floor: %.24s", row->machine);
        }
        return 0;
    }
    if (!(o->rate > 0)) return cli_usage_error(cmd, "--time needs --rate, --calibration or --floor");
    if (o->duration <= o->setup)
        return cli_error("--time %.0f s is not more than the %.1f s of setup (dataset build) the calibrated machine needs",
                         o->duration, o->setup);
    *total = ceil((o->duration - o->setup) * o->rate);
    return 0;
}

int cli_lock_resolve(cli_lock_opts *o, const char *cmd) {
    tl_params *p = &o->p;
    int rx = p->work != TL_WORK_SHA3_256;
    if (o->rate > 0 && o->calib) return cli_usage_error(cmd, "give --rate or --calibration, not both");
    if (o->duration > 0 && o->steps) return cli_usage_error(cmd, "give --steps or --time, not both");
    if (!(o->duration > 0) && (!o->groups || !o->steps))
        return cli_usage_error(cmd, "need --groups G --steps S, or --time DURATION");
    if (o->floor && !(o->duration > 0)) return cli_usage_error(cmd, "--floor needs --time");
    char err[256];
    if (!o->floor_table) tl_floor_builtin(&o->ft);
    else if (tl_floor_load(o->floor_table, &o->ft, err, sizeof err)) return cli_error("%s", err);
    int rc;
    if (o->calib && (rc = load_calibration(o)) != 0) return rc;
    if (!o->calib && o->rate > 0) strcpy(p->rate_source, "flag");
    if (o->duration > 0) {
        double total = 0;
        if ((rc = size_from_time(o, cmd, &total)) != 0) return rc;
        if (total > (double)TL_MAX_TOTAL) return cli_error("--time x rate = %.3g hashes exceeds 2^48", total);
        if (o->groups && (double)o->groups > total)   /* issue 22: never silently fewer groups */
            return cli_usage_error(cmd, "--time x rate = %.0f hash%s, fewer than --groups %llu: give fewer groups, "
                                   "a longer --time or a higher rate", total, total == 1 ? "" : "es",
                                   (unsigned long long)o->groups);
        if (!o->groups) o->groups = o->go.workers ? o->go.workers : (uint64_t)util_cpus_usable();
        if (o->groups < 1) o->groups = 1;
        if (o->groups > TL_MAX_GROUPS) o->groups = TL_MAX_GROUPS;
        if ((double)o->groups > total) o->groups = (uint64_t)total;
        o->steps = (uint64_t)ceil(total / (double)o->groups);
        if (o->steps > TL_MAX_STEPS)
            return cli_error("--time: %llu steps per group exceeds 2^40; use more --groups", (unsigned long long)o->steps);
        p->target_seconds = (uint64_t)llround(o->duration);
    }
    if (o->steps > TL_MAX_TOTAL / o->groups) return cli_error("groups x steps exceeds 2^48");
    if (o->go.checkpoint_steps > o->steps) o->go.checkpoint_steps = o->steps;
    if (o->go.checkpoint_steps && (o->steps + o->go.checkpoint_steps - 1) / o->go.checkpoint_steps * o->groups > 65536)
        return cli_usage_error(cmd, "--checkpoint-steps: groups x segments exceeds 65536; give a larger C");
    p->groups = (uint32_t)o->groups;
    p->steps = o->steps;
    p->rate_milli_hps = (uint64_t)llround(o->rate * 1000.0);
    /* issue 19: RandomX rates are full-mode rates (a light calibration was
     * refused above; --rate is documented as one); setup counted */
    p->rate_mode = rx && o->rate > 0 ? TL_RATE_MODE_FULL : TL_RATE_MODE_NONE;
    p->setup_ms = (uint64_t)llround(o->setup * 1000.0);
    /* the generation's mode: the one policy */
    if (tl_mode_resolve(p->work, o->mode_req, &o->mc) != 0) return cli_error("bad work / mode");
    o->go.mode = o->mc.mode;
    cli_mode_warn(&o->mc);
    return 0;
}

void cli_lock_promise(const cli_lock_opts *o, const tl_puzzle *pz, const char *open_cmd) {
    char t[320];
    tl_promise_text(t, sizeof t, pz, &o->ft);
    fprintf(stderr, "rxlock: promise: %s", t);
    if (o->cpu[0]) fprintf(stderr, "; measured on %s", o->cpu);
    fprintf(stderr, " [--time %s]\n", o->floor ? "is the fastest known CPU's hashing" : "includes setup");
    double ps = o->cpu[0] ? tl_calibration_placement_spread(&o->cal) : 0;
    if (ps > 0.10)   /* issue 19: sized with the fastest placement; a solver may get a slower one */
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
                      char **text, size_t *len, uint8_t pk[32], uint8_t *keep_sk) {
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
    int rc = tl_generate(&o->p, &o->go, text, len, pk, keep_sk);
    o->engine = ui.engine;
    sodium_memzero(sk, sizeof sk);
    o->p.sign_sk = NULL;
    cli_progress_end(&ui, rc == TL_OK);
    if (rc == TL_OK) return CLI_OK;
    if (keep_sk) sodium_memzero(keep_sk, 32);
    if (rc == TL_ENOMEM && o->go.mode == TL_MODE_FULL)
        fprintf(stderr, "rxlock: not enough memory for full mode; try --mode light\n");
    if (o->go.state_dir && o->stats.steps_total && (*o->go.stop || rc == TL_EINTR || rc == TL_EWORKER)) {
        /* issue 20: the sealed state stays; the same command resumes it */
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
