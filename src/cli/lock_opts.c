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
    (void)ctx;
    fprintf(stderr, "rxlock: %s\n", ev->message);
}

void cli_lock_opts_init(cli_lock_opts *o) {
    memset(o, 0, sizeof *o);
    o->p.work = TL_WORK_RANDOMX_V2;
    strcpy(o->p.rate_source, "none");
    o->go.retries = 1;
    o->go.event = print_event;
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
        if (cli_parse_duration(arg, &o->duration)) return cli_usage_error(cmd, "--time: want e.g. 90s, 30m, 12h, 7d, 2w, 1y");
        return 0;
    case 'r':
        if (cli_parse_double(arg, 1e-9, 1e15, &o->rate))
            return cli_usage_error(cmd, "--rate: want a positive number of hashes/s");
        return 0;
    case 'c': o->calib = arg; return 0;
    case 'm':
        if (cli_parse_mode(arg, &o->go.mode)) return cli_usage_error(cmd, "--mode: want light or full");
        return 0;
    case 'n':
        if (cli_parse_u64(arg, 1, 1024, &v)) return cli_usage_error(cmd, "--workers: want 1..1024");
        o->go.workers = (unsigned)v;
        return 0;
    case 'k': o->sign_key = arg; return 0;
    case CLI_OPT_PROGRESS: o->progress = 1; return 0;
    case CLI_OPT_PQ:
    case CLI_OPT_CLASSIC:
        if (o->pq == (c == CLI_OPT_PQ ? 0 : 1)) return cli_usage_error(cmd, "give --pq or --classic, not both");
        o->pq = c == CLI_OPT_PQ;
        return 0;
    default: return -1;
    }
}

int cli_lock_resolve(cli_lock_opts *o, const char *cmd) {
    tl_params *p = &o->p;
    if (o->rate > 0 && o->calib) return cli_usage_error(cmd, "give --rate or --calibration, not both");
    if (o->duration > 0 && o->steps) return cli_usage_error(cmd, "give --steps or --time, not both");
    if (!(o->duration > 0) && (!o->groups || !o->steps))
        return cli_usage_error(cmd, "need --groups G --steps S, or --time DURATION");
    if (o->calib) {
        tl_calibration cal;
        char err[256];
        if (tl_calibration_load(o->calib, &cal, err, sizeof err)) return cli_error("%s", err);
        if (cal.work != p->work)
            return cli_error("%s: calibration is for %s, not %s", o->calib, tl_work_name(cal.work), tl_work_name(p->work));
        o->rate = cal.rate;
        /* what applies: RandomX mode (and engine when recorded); nothing for SHA3 */
        if (!cal.engine.mode) snprintf(p->rate_source, sizeof p->rate_source, "calibration");
        else if (!cal.engine.engine) snprintf(p->rate_source, sizeof p->rate_source, "calibration (%s)", cal.engine.mode);
        else snprintf(p->rate_source, sizeof p->rate_source, "calibration (%s, %s)", cal.engine.mode,
                      !strcmp(cal.engine.engine, "jit") ? "jit" : "interp");
    } else if (o->rate > 0) {
        strcpy(p->rate_source, "flag");
    }
    if (o->duration > 0) {
        if (!(o->rate > 0)) return cli_usage_error(cmd, "--time needs --rate or --calibration");
        double total = ceil(o->duration * o->rate);
        if (total > (double)TL_MAX_TOTAL) return cli_error("--time x rate = %.3g hashes exceeds 2^48", total);
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
    p->groups = (uint32_t)o->groups;
    p->steps = o->steps;
    p->rate_mhps = (uint64_t)llround(o->rate * 1000.0);
    return 0;
}

int cli_lock_generate(cli_lock_opts *o, const char *label, int when, int json,
                      char **text, size_t *len, uint8_t pk[32], uint8_t *keep_sk) {
    uint8_t sk[64], spk[32];
    if (o->sign_key) {
        int rc = tl_signer_load(o->sign_key, sk, spk);
        if (rc) return cli_error("%s: cannot load signing key: %s", o->sign_key, rc == TL_EIO ? strerror(errno) : tl_strerror(rc));
        o->p.sign_sk = sk;
    }
    cli_progress ui;
    cli_progress_init(&ui, label, (uint64_t)o->p.groups * o->p.steps, when, json);
    o->go.stop = ui.stop = cli_catch_signals();
    o->go.progress = cli_progress_cb;
    o->go.progress_ctx = &ui;
    int rc = tl_generate(&o->p, &o->go, text, len, pk, keep_sk);
    o->engine = ui.engine;
    sodium_memzero(sk, sizeof sk);
    o->p.sign_sk = NULL;
    cli_progress_end(&ui, rc == TL_OK);
    if (rc == TL_OK) return CLI_OK;
    if (keep_sk) sodium_memzero(keep_sk, 32);
    if (rc == TL_ENOMEM && o->go.mode == TL_MODE_FULL)
        fprintf(stderr, "rxlock: not enough memory for full mode; try --mode light\n");
    if (*o->go.stop || rc == TL_EINTR) return cli_error("lock failed: interrupted; nothing written");
    return cli_work_error("lock failed (nothing written)", rc, o->p.work);
}
