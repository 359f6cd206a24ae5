/* SPDX-License-Identifier: ISC */
/* src/cli/lock_opts.c — parsing and resolution of the options shared by
 * `rxlock lock` and `rxlock lock FILE` (and `rxlock plan`, `rxlock beacon
 * init`): options only (see lock_opts.h); the estimate and --dry-run are
 * lock_estimate.c's, generating is the lock room's (lock/generate.c). */
#include "cli/lock_opts.h"
#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include "rxlock/calibrate.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The library never prints: worker trouble and the test mode arrive here. */
static void print_event(const tl_event *ev, void *ctx) {
    cli_lock_opts *o = ctx;
    if (ev->kind == TL_EVENT_STATE && o) o->state_refused = 1;
    if (ev->kind == TL_EVENT_STATE && o && ev->group) {   /* a write mid-generation: the final error says it */
        snprintf(o->state_write, sizeof o->state_write, "%s", ev->message);
        return;
    }
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

/* --until: YYYY-MM-DD(T| )HH:MM[:SS] then Z or +HH:MM / -HH:MM (or
 * +HHMM / +HH): Unix seconds, or -1. */
static long long parse_until(const char *s) {
    int Y, M, D, h, m, sec = 0, n = 0, k = 0;
    if (strlen(s) > 40 || sscanf(s, "%4d-%2d-%2d%n", &Y, &M, &D, &n) != 3 || n != 10) return -1;
    if (s[n] != 'T' && s[n] != 't' && s[n] != ' ') return -1;
    s += n + 1;
    if (sscanf(s, "%2d:%2d%n", &h, &m, &k) != 2 || k != 5) return -1;
    s += k;
    if (*s == ':') { if (sscanf(s + 1, "%2d%n", &sec, &k) != 1 || k != 2) return -1; s += 3; }
    long off = 0;
    if ((*s == 'Z' || *s == 'z') && !s[1]) off = 0;
    else if (*s == '+' || *s == '-') {
        int oh = 0, om = 0;
        const char *z = s + 1;
        size_t zl = strlen(z);
        if (zl == 5 && z[2] == ':' && sscanf(z, "%2d:%2d", &oh, &om) == 2) {}
        else if (zl == 4 && sscanf(z, "%2d%2d", &oh, &om) == 2) {}
        else if (zl == 2 && sscanf(z, "%2d", &oh) == 1) {}
        else return -1;
        for (size_t i = 0; i < zl; i++) if (z[i] != ':' && (z[i] < '0' || z[i] > '9')) return -1;
        if (oh > 23 || om > 59) return -1;
        off = (*s == '+' ? 1 : -1) * (long)(oh * 3600 + om * 60);
    } else return -1;
    if (Y < 1970 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60 || h < 0 || m < 0 || sec < 0)
        return -1;
    struct tm tm = { .tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m, .tm_sec = sec };
    time_t t = timegm(&tm);
    if (t == (time_t)-1 || tm.tm_mday != D) return -1;   /* 2026-02-30 normalised away: refused */
    return (long long)t - off;
}

int cli_lock_opt(cli_lock_opts *o, int c, const char *arg, const char *cmd) {
    uint64_t v;
    switch (c) {
    case CLI_OPT_UNTIL:
        if ((o->until = parse_until(arg)) <= 0)
            return cli_usage_error(cmd, "--until '%s': want an ISO 8601 date and time with its zone, e.g. "
                                   "2027-01-01T12:00Z or 2027-01-01T13:00+01:00", arg);
        return 0;
    case CLI_OPT_DRY_RUN: o->dry_run = 1; return 0;
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
        return cli_parse_span_opt(cmd, "--time", arg, 0, HUGE_VAL, &o->duration);
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

/* a light-mode rate never sizes a RandomX puzzle. */
static int refuse_light_rate(const cli_lock_opts *o) {
    char r[32];
    util_format_rate(r, sizeof r, tl_calibration_sizing_rate(&o->cal));
    return cli_error("%s: a light-mode rate (%sH/s) cannot size a RandomX puzzle: anyone with 2.3 GiB of\n"
                     "  memory solves in full mode, %s faster (recorded), so it would open in as little as\n"
                     "  1/%.1f of the time promised.  Calibrate in full mode: rxlock calibrate --work %s --mode full",
                     o->calib, r, TL_FULL_LIGHT_RANGE, TL_FULL_LIGHT_RATIO, tl_work_name(o->p.work));
}

/* The assumed rate from o->cal: its typical rate (the best placement's
 * mean, else the run's), its setup and CPU; the source names what applies:
 * RandomX mode (and engine when recorded); nothing for SHA3. */
static void use_calibration(cli_lock_opts *o, const char *label) {
    tl_params *p = &o->p;
    const tl_calibration *cal = &o->cal;
    o->rate = tl_calibration_sizing_rate(cal);
    o->setup = cal->setup_seconds;
    o->cpu = cal->cpu;
    if (!cal->engine.mode) snprintf(p->rate_source, sizeof p->rate_source, "%s", label);
    else if (!cal->engine.engine) snprintf(p->rate_source, sizeof p->rate_source, "%s (%s)", label, cal->engine.mode);
    else snprintf(p->rate_source, sizeof p->rate_source, "%s (%s, %s)", label, cal->engine.mode,
                  !strcmp(cal->engine.engine, "jit") ? "jit" : "interp");
}

static int load_calibration(cli_lock_opts *o) {
    tl_params *p = &o->p;
    tl_calibration *cal = &o->cal;
    char err[256];
    char looks[64] = "";
    struct stat sb;   /* a regular file of another kind: say which (a FIFO is left to the reader) */
    int fd = stat(o->calib, &sb) == 0 && S_ISREG(sb.st_mode) ? open(o->calib, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
    cli_file_kind k = fd >= 0 ? cli_file_kind_fd(fd) : CLI_KIND_OTHER;
    if (fd >= 0 && k == CLI_KIND_OTHER) cli_file_looks(fd, looks, sizeof looks);
    if (fd >= 0) close(fd);
    if (k != CLI_KIND_OTHER)
        return cli_error("--calibration %s: %s, not a calibration: give the file `rxlock calibrate -o FILE` wrote",
                         o->calib, cli_kind_name(k));
    if (tl_calibration_load(o->calib, cal, err, sizeof err)) {   /* name the file and the way out */
        if (looks[0] && (strstr(err, "missing \"rxlock_calibration\"") || strstr(err, "not valid JSON")))
            /* no calibration at all: what it is */
            return cli_error("--calibration %s: %s, not a calibration: give the file `rxlock calibrate -o FILE` "
                             "wrote", o->calib, looks);
        return cli_error("--calibration %s: %s%s", o->calib, err, strstr(err, o->calib) ? ""
                         : " (want a file from rxlock calibrate -o FILE)");
    }
    if (cal->work != p->work)
        return cli_error("%s: calibration is for %s, not %s", o->calib, tl_work_name(cal->work), tl_work_name(p->work));
    if (p->work != TL_WORK_SHA3_256 && cal->mode != TL_MODE_FULL) return refuse_light_rate(o);
    use_calibration(o, "calibration");
    return 0;
}

/* --time: G*S from the duration.  With --rate / --calibration the duration
 * is hashing PLUS setup on the rate's machine; against the floor (--floor,
 * or --time alone) it is the fastest known hardware's hashing alone (its
 * setup may be done in parallel, on many cores). */
static int size_from_time(cli_lock_opts *o, const char *cmd, double *total) {
    tl_params *p = &o->p;
    if (o->floor) {
        const tl_floor_row *row = tl_floor_fastest(&o->ft, p->work);
        if (!row) return cli_error("%s: the %s has no fastest known hardware for %s; give --floor-table FILE%s",
                                   o->implied_floor ? "--time" : "--floor", o->ft.origin, tl_work_name(p->work),
                                   o->implied_floor ? ", or --rate / --calibration" : "");
        uint64_t h;
        if (tl_floor_hashes(row, o->duration, &h) != 0) return cli_error("--time x %.4g H/s (the floor) exceeds 2^48 hashes", row->rate);
        *total = (double)h;
        return 0;
    }
    if (!(o->rate > 0)) return cli_usage_error(cmd, "--time needs a rate");
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
    if (o->until && o->duration > 0) return cli_usage_error(cmd, "give --time or --until, not both");
    if (o->until) {   /* counted from now; the promise gives the real dates */
        o->duration = (double)(o->until - (long long)time(NULL));
        if (!(o->duration >= 1)) return cli_usage_error(cmd, "--until: that moment is not in the future");
    }
    if (o->duration > 0 && o->steps) return cli_usage_error(cmd, "give --steps or --time / --until, not both");
    if (!(o->duration > 0) && (!o->groups || !o->steps))
        return cli_usage_error(cmd, "need --groups G --steps S, or --time DURATION, or --until DATE");
    if (o->floor && !(o->duration > 0)) return cli_usage_error(cmd, "--floor needs --time or --until");
    /* --time alone sizes against the floor: the one honest default
     * without a measurement */
    if (o->duration > 0 && !(o->rate > 0) && !o->calib && !o->floor) o->floor = o->implied_floor = 1;
    o->have_saved = cli_calib_load_saved(p->work, &o->saved, NULL, 0);
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
        if (o->groups && (double)o->groups > total)   /* never silently fewer groups */
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
    /* no rate of ours: the saved calibration gives "about T here", or the
     * puzzle records none (never the floor's: that is T_min).  A RandomX
     * light-mode one is not a solver's rate (full mode is faster). */
    if (!(o->rate > 0) && o->have_saved && (p->work == TL_WORK_SHA3_256 || o->saved.mode == TL_MODE_FULL)) {
        o->cal = o->saved;
        use_calibration(o, "saved calibration");
        o->rate_saved = 1;
    }
    if (o->steps > TL_MAX_TOTAL / o->groups) return cli_error("groups x steps exceeds 2^48");
    if (o->go.checkpoint_steps > o->steps) o->go.checkpoint_steps = o->steps;
    if (o->go.checkpoint_steps && (o->steps + o->go.checkpoint_steps - 1) / o->go.checkpoint_steps * o->groups > 65536)
        return cli_usage_error(cmd, "--checkpoint-steps: groups x segments exceeds 65536; give a larger C");
    p->groups = (uint32_t)o->groups;
    p->steps = o->steps;
    p->rate_milli_hps = (uint64_t)llround(o->rate * 1000.0);
    /* RandomX rates are full-mode rates (a light calibration was
     * refused above; --rate is documented as one); setup counted */
    p->rate_mode = rx && o->rate > 0 ? TL_RATE_MODE_FULL : TL_RATE_MODE_NONE;
    p->setup_ms = (uint64_t)llround(o->setup * 1000.0);
    /* the generation's mode: the one policy */
    if (tl_mode_resolve(p->work, o->mode_req, &o->mc) != 0) return cli_error("bad work / mode");
    o->go.mode = o->mc.mode;
    cli_mode_warn(&o->mc);
    return 0;
}

/* ---- before the work: the generation estimate and --dry-run ------------- */
