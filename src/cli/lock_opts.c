/* src/cli/lock_opts.c — parsing and resolution of the options shared by
 * `rxlock lock` and `rxlock lock FILE` (see lock_opts.h). */
#include "cli/lock_opts.h"
#include "cli/cli.h"
#include "lock/calibrate.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_parse_duration(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end), mul = 1;
    if (errno || end == s || !(v > 0) || !isfinite(v)) return -1;
    if (*end) {
        if (end[1]) return -1;
        switch (*end) {
        case 's': mul = 1; break;
        case 'm': mul = 60; break;
        case 'h': mul = 3600; break;
        case 'd': mul = 86400; break;
        case 'w': mul = 7 * 86400.0; break;
        case 'y': mul = 365.25 * 86400; break;
        default: return -1;
        }
    }
    *out = v * mul;
    return 0;
}

int cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    errno = 0;
    if (!*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

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
    case 'r': {
        char *end;
        errno = 0;
        o->rate = strtod(arg, &end);
        if (errno || *end || !(o->rate > 0) || o->rate > 1e15)
            return cli_usage_error(cmd, "--rate: want a positive number of hashes/s");
        return 0;
    }
    case 'c': o->calib = arg; return 0;
    case 'm':
        if (!strcmp(arg, "light")) o->go.mode = TL_MODE_LIGHT;
        else if (!strcmp(arg, "full")) o->go.mode = TL_MODE_FULL;
        else return cli_usage_error(cmd, "--mode: want light or full");
        return 0;
    case 'n':
        if (cli_parse_u64(arg, 1, 1024, &v)) return cli_usage_error(cmd, "--workers: want 1..1024");
        o->go.workers = (unsigned)v;
        return 0;
    case 'k': o->sign_key = arg; return 0;
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
        snprintf(p->rate_source, sizeof p->rate_source, "calibration (%s)", cal.mode == TL_MODE_FULL ? "full" : "light");
    } else if (o->rate > 0) {
        strcpy(p->rate_source, "flag");
    }
    if (o->duration > 0) {
        if (!(o->rate > 0)) return cli_usage_error(cmd, "--time needs --rate or --calibration");
        double total = ceil(o->duration * o->rate);
        if (total > (double)TL_MAX_TOTAL) return cli_error("--time x rate = %.3g hashes exceeds 2^48", total);
        if (!o->groups) o->groups = o->go.workers ? o->go.workers : (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
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
