/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/run.c — `rxlock beacon run DIR`: the service.  States
 * whether this machine keeps up (G x S per period against workers x
 * generation rate) and refuses a schedule it cannot sustain; then keeps
 * the next `ahead` epochs generated (tl_generate with a state directory
 * per epoch under DIR/private/state/: a kill -9 loses at most a
 * checkpoint), seals each new epoch, releases each puzzle at its release
 * time (also while a generation runs), and republishes the signed feed on
 * every change.  One log line per event; SIGINT / SIGTERM / SIGHUP stop it
 * cleanly (the generation state is kept for the next run). */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/calibrate.h"
#include "util/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    bcn_dir b;
    uint8_t *sk;                  /* locked memory */
    const volatile int *stop;
    int64_t next_due;             /* the next release time (by the clock now) */
    bcn_clock ck;                 /* wall-clock changes (clock.c)          */
    uint64_t skipped_to;          /* epochs below: their passing was said  */
    uint64_t gen_hi;              /* none at or above was ever generated   */
    tl_mode mode;
    int failed;                   /* a publish failed inside a generation */
    double gen_seconds;           /* one epoch key's generation here (the keep-up check's
                                     estimate at the measured rate); 0 = none */
    bcn_service sv;               /* the operator's instruments (metrics.c) */
    double sv_written;            /* when sv was last written */
} run_ctx;

static void on_event(const tl_event *ev, void *ctx) {
    (void)ctx;
    bcn_log("generation: %s", ev->message);
}

static int64_t next_release(const tl_beacon_sched *s, int64_t now) {
    int before = 0;
    uint64_t E = tl_beacon_epoch_at(s, now, &before);
    return before ? s->start : tl_beacon_release(s, E + 1);
}

/* The first epoch still open for encryption (release in the future). */
static uint64_t first_open(const tl_beacon_sched *s, int64_t now) {
    int before = 0;
    uint64_t E = tl_beacon_epoch_at(s, now, &before);
    return before ? 0 : E + 1;
}

static int have_puzzle(const bcn_dir *b, uint64_t E, int kind);

/* The epochs from r->skipped_to up to n0 (release times passed) that were
 * never generated: how many, the first and last (one line says them all). */
static uint64_t passed_ungenerated(run_ctx *r, uint64_t n0, uint64_t *first, uint64_t *last) {
    int kinds[2];
    unsigned nk = bcn_kinds(r->b.cfg.s.kinds, kinds);
    uint64_t c = 0;
    for (uint64_t E = r->skipped_to; E < n0; E++) {
        if (E >= r->gen_hi) {   /* beyond what was ever generated ahead: none is there */
            if (!c) *first = E;
            c += n0 - E;
            *last = n0 - 1;
            break;
        }
        int all = 1;
        for (unsigned q = 0; q < nk; q++) all = all && have_puzzle(&r->b, E, kinds[q]) == 1;
        if (!all) {
            if (!c) *first = E;
            c++;
            *last = E;
        }
    }
    if (n0 > r->skipped_to) r->skipped_to = n0;
    return c;
}

/* One line per wall-clock change (clock.c noticed it). */
static void clock_event(run_ctx *r, int64_t jump, int64_t now) {
    const tl_beacon_sched *s = &r->b.cfg.s;
    char d[32], when[48];
    util_format_duration(d, sizeof d, (double)(jump < 0 ? -jump : jump));
    if (jump < 0) {
        bcn_time(when, sizeof when, next_release(s, now));
        bcn_log("the clock went back by %lld s (%s): releases wait until it reaches their release times again; the "
                "next is at %s", (long long)-jump, d, when);
        return;
    }
    uint64_t first = 0, last = 0, n = passed_ungenerated(r, first_open(s, now), &first, &last);
    if (n)
        bcn_log("the clock jumped forward by %lld s (%s): %llu epoch%s (%llu..%llu) passed %s release time "
                "ungenerated; what the clock makes due is released now", (long long)jump, d, (unsigned long long)n,
                n == 1 ? "" : "s", (unsigned long long)first, (unsigned long long)last, n == 1 ? "its" : "their");
    else
        bcn_log("the clock jumped forward by %lld s (%s): no epoch passed ungenerated; what the clock makes due is "
                "released now", (long long)jump, d);
}

/* Release what is due and republish the feed when anything changed (or
 * when force); jump: a wall-clock change just noticed (0: none). */
static int tick(run_ctx *r, int force, int64_t jump) {
    const tl_beacon_sched *s = &r->b.cfg.s;
    int64_t now = tl_beacon_now();
    if (jump) clock_event(r, jump, now);
    int changed = 0;
    if (bcn_release_due(&r->b, now, &changed) != CLI_OK) return CLI_FAIL;
    r->next_due = next_release(s, now);   /* from the clock now: never one since corrected */
    r->sv.next_release = r->next_due;
    if (changed || force || util_now() - r->sv_written >= 5) {
        bcn_service_write(&r->b, &r->sv);
        r->sv_written = util_now();
    }
    if (!changed && !force) return CLI_OK;
    size_t listed = 0;
    if (bcn_feed_publish(&r->b, r->sk, now, &listed) != CLI_OK) return CLI_FAIL;
    bcn_log("published feed.json (%zu epochs)", listed);
    return CLI_OK;
}

static int on_progress(const tl_progress *p, void *ctx) {
    run_ctx *r = ctx;
    if (*r->stop) return 1;
    r->sv.done = (double)p->hashes_done;
    r->sv.total = (double)p->hashes_total;
    r->sv.eta = p->eta_seconds;
    if (util_now() - r->sv_written >= 5) {
        bcn_service_write(&r->b, &r->sv);
        r->sv_written = util_now();
    }
    int64_t jump, now = bcn_clock_read(&r->ck, &jump);
    if ((jump || now >= r->next_due) && tick(r, 0, jump) != CLI_OK) r->failed = 1;
    return 0;
}

static int have_puzzle(const bcn_dir *b, uint64_t E, int kind) {
    uint8_t *buf = NULL;
    size_t len = 0;
    int r = bcn_puzzle_read(b, E, kind, &buf, &len, NULL);
    free(buf);
    return r;
}

static int generate(run_ctx *r, uint64_t E, int kind) {
    const tl_beacon_config *c = &r->b.cfg;
    const tl_beacon_sched *s = &c->s;
    char stem[48], state[PATH_MAX], out[PATH_MAX];
    bcn_stem(s, E, kind, stem);
    bcn_file(&r->b, state, "private/state/%s", stem);
    bcn_file(&r->b, out, "private/puzzles/%s.json", stem);
    tl_params p;
    bcn_epoch_params(c, kind, &p);
    p.sign_sk = r->sk;
    tl_gen_stats st;
    tl_gen_opts go;
    memset(&go, 0, sizeof go);
    go.workers = c->workers;
    go.mode = r->mode;
    go.progress = on_progress;
    go.progress_ctx = r;
    go.progress_interval = 1.0;
    go.retries = 1;
    go.stop = r->stop;
    go.event = on_event;
    go.state_dir = state;
    go.checkpoint_steps = c->checkpoint_steps;
    go.verify = c->verify;
    go.verify_fraction = c->verify == TL_VERIFY_SAMPLE ? c->verify_permille / 1000.0 : 0;
    go.stats = &st;
    char *json = NULL;
    size_t len = 0;
    uint8_t pk[32];
    double t0 = util_now();
    char est[96] = "";
    if (r->gen_seconds > 0) {
        char d[32];
        util_format_duration(d, sizeof d, r->gen_seconds);
        snprintf(est, sizeof est, "; about %s here, verification included", d);
    }
    bcn_log("generating epoch %llu%s%s (%u x %llu %s hashes%s)", (unsigned long long)E, s->kinds == 3 ? " " : "",
            s->kinds == 3 ? tl_beacon_kind_name(kind) : "", s->groups, (unsigned long long)s->steps, tl_work_name(s->work),
            est);
    r->sv.epoch = (int64_t)E;
    snprintf(r->sv.stem, sizeof r->sv.stem, "%s", stem);
    r->sv.done = 0;
    r->sv.total = (double)s->groups * (double)s->steps;
    r->sv.unit = "hashes";
    r->sv.started = (double)tl_beacon_now();
    r->sv.eta = r->gen_seconds > 0 ? r->gen_seconds : -1;
    r->sv.release = tl_beacon_release(s, E);
    int rc = tl_generate(&p, &go, &json, &len, NULL, pk, NULL);
    r->sv.epoch = -1;
    if (rc) {
        if (*r->stop || rc == TL_EINTR) return -1;
        r->sv.failures++;
        snprintf(r->sv.last_error, sizeof r->sv.last_error, "generation of epoch %llu failed: %s",
                 (unsigned long long)E, rxlock_strerror(rc));
        r->sv.last_error_at = tl_beacon_now();
        bcn_log("generation of epoch %llu failed: %s (its state is kept in %s)", (unsigned long long)E,
                rxlock_strerror(rc), state);
        return CLI_FAIL;
    }
    int w = util_write_file_atomic(out, json, len, 0, 0600);
    free(json);
    if (w != 0 && errno != EEXIST) return cli_error("%s: %s", out, strerror(errno));
    util_kill_point("beacon-generated");
    if (tl_generate_state_remove(state, NULL) != TL_OK) bcn_log("warning: %s: could not remove the generation state", state);
    bcn_log("generated epoch %llu%s%s in %.1f s (%u of %u segments verified%s)", (unsigned long long)E,
            s->kinds == 3 ? " " : "", s->kinds == 3 ? tl_beacon_kind_name(kind) : "", util_now() - t0, st.checked,
            st.segments, st.resumed ? ", resumed" : "");
    return CLI_OK;
}

/* A run stopped after an epoch's puzzle was written and before its
 * generation state was removed left that state (sealed secrets and the key
 * that opens them): every state whose puzzle is there is removed now, as
 * generate() would have.  A state without its puzzle is resumed there. */
static void drop_finished_states(const bcn_dir *b) {
    char sdir[PATH_MAX];
    bcn_file(b, sdir, "private/state");
    DIR *d = opendir(sdir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        char puzzle[PATH_MAX], state[PATH_MAX];
        struct stat st;
        if (de->d_name[0] == '.' || strlen(de->d_name) >= 48) continue;
        bcn_file(b, puzzle, "private/puzzles/%s.json", de->d_name);
        if (lstat(puzzle, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        bcn_file(b, state, "private/state/%s", de->d_name);
        if (tl_generate_state_remove(state, NULL) != TL_OK)
            bcn_log("warning: %s: could not remove the generation state", state);
        else
            bcn_log("removed %s: its puzzle was written by a run that stopped before removing it", state);
    }
    closedir(d);
}

int bcn_cmd_run(int argc, char **argv) {
    static const struct option opts[] = {
        {"once", no_argument, 0, '1'}, {"gen-rate", required_argument, 0, 'g'},
        {"plan-only", no_argument, 0, 'P'}, BCN_RUN_OPTS, {0, 0, 0, 0}
    };
    static bcn_cluster_opts co;
    memset(&co, 0, sizeof co);
    co.retries = 3;
    int once = 0, plan_only = 0, c, cluster = 0, orc;
    double gen_rate = 0;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if ((orc = bcn_cluster_opt(&co, &cluster, c, optarg)) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case '1': once = 1; break;
        case 'P': plan_only = once = 1; break;
        case 'g':
            if (cli_parse_double(optarg, 1e-3, 1e15, &gen_rate)) return cli_usage_error("beacon run", "--gen-rate: want hashes/s");
            break;
        case ':': return cli_usage_error("beacon run", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option("beacon run", optopt, argv[optind - 1]);
        }
    }
    if (optind + 1 != argc) return cli_usage_error("beacon run", "want one DIR");
    if (cluster && (plan_only || gen_rate > 0))
        return cli_usage_error("beacon run", "--cluster: not with --plan-only or --gen-rate (the cluster's pace is measured)");
    if (cluster) {
        co.once = once;
        return bcn_cluster_run(argv[optind], &co);
    }
    static run_ctx r;
    memset(&r, 0, sizeof r);
    r.sv.mode = "local";
    r.sv.epoch = -1;
    r.sv.metrics = co.metrics;
    if (bcn_open(&r.b, argv[optind]) != CLI_OK) return CLI_FAIL;
    const tl_beacon_sched *s = &r.b.cfg.s;
    char p[PATH_MAX], err[256];
    bcn_file(&r.b, p, "private/run.lock");
    int lfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lfd < 0) return cli_error("%s: %s", p, strerror(errno));
    if (flock(lfd, LOCK_EX | LOCK_NB) != 0) { close(lfd); return cli_error("%s: another `beacon run` serves this DIR", argv[optind]); }
    r.mode = cli_mode_pick(s->work, r.b.cfg.mode);
    r.stop = cli_catch_signals();
    bcn_keepup ku;
    int rc = plan_only ? CLI_OK : bcn_keepup_check(&r.b.cfg, r.mode, gen_rate, 0, r.stop, &ku);
    if (!plan_only && rc == CLI_OK) {
        r.gen_seconds = ku.gen_seconds;
        r.sv.margin = ku.k.margin;
    }
    if (rc) { close(lfd); return rc; }
    if (!(r.sk = sodium_malloc(64))) { close(lfd); return cli_error("out of memory"); }
    if ((rc = bcn_signer_load(&r.b, r.sk)) != CLI_OK) goto out;
    drop_finished_states(&r.b);
    bcn_file(&r.b, p, "public");
    if (cli_beacon_web_publish(p, err, sizeof err) != 0) bcn_log("warning: the web page was not published: %s", err);
    int kinds[2];
    unsigned nk = bcn_kinds(s->kinds, kinds);
    /* repair what a kill left: seals missing for generated epochs */
    int64_t now = tl_beacon_now();
    uint64_t n0 = first_open(s, now), lo = n0 > TL_BEACON_MAX_EPOCHS ? n0 - TL_BEACON_MAX_EPOCHS : 0;
    int changed = 0;
    for (uint64_t E = lo; E < n0 + s->ahead && rc == CLI_OK; E++) {
        int all = 1;
        for (unsigned q = 0; q < nk; q++) all = all && have_puzzle(&r.b, E, kinds[q]) == 1;
        if (all) rc = bcn_seal(&r.b, E, &changed);
    }
    int64_t jump0;
    bcn_clock_read(&r.ck, &jump0);
    if (rc || (rc = tick(&r, 1, 0)) != CLI_OK) goto out;
    bcn_log("serving %s: an epoch every %llu s, %u ahead%s", r.b.dir, (unsigned long long)s->every, s->ahead,
            once ? " (one pass)" : "");
    r.skipped_to = n0;
    r.gen_hi = n0 + s->ahead;
    while (!*r.stop && rc == CLI_OK) {
        int64_t jump;
        now = bcn_clock_read(&r.ck, &jump);
        if (jump && (rc = tick(&r, 0, jump)) != CLI_OK) break;   /* said with what passed, in one line */
        n0 = first_open(s, now);
        if (n0 + s->ahead > r.gen_hi) r.gen_hi = n0 + s->ahead;
        uint64_t first = 0, last = 0, np = passed_ungenerated(&r, n0, &first, &last);
        if (np == 1)
            bcn_log("epoch %llu skipped: its release time passed before it was generated", (unsigned long long)first);
        else if (np)
            bcn_log("epochs %llu..%llu (%llu) skipped: their release times passed before they were generated",
                    (unsigned long long)first, (unsigned long long)last, (unsigned long long)np);
        int did = 0;
        for (uint64_t E = n0; E < n0 + s->ahead && !did && rc == CLI_OK && !*r.stop; E++) {
            for (unsigned q = 0; q < nk && rc == CLI_OK && !*r.stop; q++) {
                int h = have_puzzle(&r.b, E, kinds[q]);
                if (h < 0) { rc = CLI_FAIL; break; }
                if (h) continue;
                if (plan_only) { rc = bcn_plan_epoch(&r.b, E, kinds[q], NULL, NULL, NULL, 0); continue; }
                int g = generate(&r, E, kinds[q]);
                if (g < 0) break;   /* stopped */
                rc = g;
                did = 1;
            }
            if (did && rc == CLI_OK && !*r.stop) {
                if (tl_beacon_release(s, E) <= tl_beacon_now())
                    bcn_log("warning: epoch %llu was generated after its release time: nobody could encrypt to it",
                            (unsigned long long)E);
                int ch = 0;
                if ((rc = bcn_seal(&r.b, E, &ch)) == CLI_OK) rc = tick(&r, 1, 0);
            }
        }
        if (r.failed) rc = CLI_FAIL;
        if (did || rc || *r.stop) continue;
        if (once) break;
        /* nothing to generate: sleep (monotonic) until the next release by
         * the clock now, or a clock change; waking at least once a minute so
         * that tick keeps private/service.json and --metrics fresh (a record
         * older than that means the service is gone) */
        int64_t wake = r.next_due;
        if (wake > now + BCN_SERVICE_REFRESH) wake = now + BCN_SERVICE_REFRESH;
        jump = bcn_clock_sleep_until(&r.ck, wake, r.stop);
        if (!*r.stop) rc = tick(&r, 0, jump);
    }
    if (*r.stop) {
        bcn_log("stopping on a signal; generation state is kept under %s/private/state/", r.b.dir);
        rc = CLI_OK;
    }
out:
    sodium_free(r.sk);
    close(lfd);
    return rc;
}
