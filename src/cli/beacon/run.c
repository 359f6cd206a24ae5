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
    bcn_releaser rel;             /* releases on the clock (releaser.c)    */
    tl_mode mode;
    int failed;                   /* a publish failed inside a generation */
    double gen_seconds;           /* one epoch key's generation here (the keep-up check's
                                     estimate at the measured rate); 0 = none */
    bcn_service sv;               /* the operator's instruments (metrics.c) */
    int slow_said;                /* the pace kept no longer keeps up: said  */
} run_ctx;

static void on_event(const tl_event *ev, void *ctx) {
    (void)ctx;
    bcn_log("generation: %s", ev->message);
}

static int have_puzzle(const bcn_dir *b, uint64_t E, int kind);

static int on_progress(const tl_progress *p, void *ctx) {
    run_ctx *r = ctx;
    if (*r->stop) return 1;
    r->sv.done = (double)p->hashes_done;
    r->sv.total = (double)p->hashes_total;
    r->sv.eta = p->eta_seconds;
    if (bcn_rel_poll(&r->rel) != CLI_OK) r->failed = 1;
    return 0;
}

static int have_puzzle(const bcn_dir *b, uint64_t E, int kind) {
    uint8_t *buf = NULL;
    size_t len = 0;
    int r = bcn_puzzle_read(b, E, kind, &buf, &len, NULL);
    free(buf);
    return r;
}

/* An epoch key generated from its start in `took` seconds: its pace kept
 * (gen_pace.c), and the estimate and margin from the pace kept so far; a
 * pace that no longer keeps up is said once (and again after it did). */
static void pace_kept(run_ctx *r, double took) {
    const tl_beacon_config *c = &r->b.cfg;
    unsigned W = bcn_workers_here(c->workers);
    bcn_gen_pace_add(&r->b, (double)c->s.groups * (double)c->s.steps * (1.0 + bcn_verify_share(c)), took, W);
    double med, lo, hi;
    unsigned n;
    tl_beacon_keepup k;
    if (!bcn_gen_pace_median(&r->b, W, &med, &lo, &hi, &n) || tl_beacon_keepup_of(&c->s, med, bcn_verify_share(c), &k) != TL_OK)
        return;
    r->gen_seconds = k.per_epoch / med;   /* one epoch key */
    r->sv.margin = k.margin;
    if (k.keeps_up) { r->slow_said = 0; return; }
    if (r->slow_said) return;
    r->slow_said = 1;
    char rs[32], ps[32], ev[32];
    util_format_rate(rs, sizeof rs, med);
    util_format_duration(ps, sizeof ps, k.seconds);
    util_format_duration(ev, sizeof ev, (double)c->s.every);
    bcn_log("warning: at the pace of the last %u epoch keys generated here (median %sH/s) a period's epochs take %s, "
            "longer than the period (%s): margin %.2fx; epochs will pass their release ungenerated unless the load "
            "drops (more CPUs, or `beacon run --cluster`)", n, rs, ps, ev, k.margin);
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
    if (!st.resumed) pace_kept(r, util_now() - t0);
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
    char kept[200] = "";
    double pmed, plo, phi;
    unsigned nrec;
    if (!(gen_rate > 0) && bcn_gen_pace_median(&r.b, bcn_workers_here(r.b.cfg.workers), &pmed, &plo, &phi, &nrec)) {
        char a[32], z[32];   /* the pace of the epochs generated here: the real work, start-up included */
        util_format_rate(a, sizeof a, plo);
        util_format_rate(z, sizeof z, phi);
        snprintf(kept, sizeof kept, "as this beacon generated its last %u epoch keys here: median, %s..%sH/s; "
                 "private/gen-pace, remove it to measure again", nrec, a, z);
        gen_rate = pmed;
    }
    int rc = plan_only ? CLI_OK : bcn_keepup_check(&r.b.cfg, r.mode, gen_rate, kept[0] ? kept : NULL, 0, r.stop, &ku);
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
    bcn_rel_start(&r.rel, &r.b, r.sk, &r.sv);
    /* repair what a kill left (seals missing for generated epochs), then publish */
    if ((rc = bcn_rel_repair(&r.rel)) != CLI_OK || (rc = bcn_rel_tick(&r.rel, 1, 0)) != CLI_OK) goto out;
    bcn_log("serving %s: an epoch every %llu s, %u ahead%s", r.b.dir, (unsigned long long)s->every, s->ahead,
            once ? " (one pass)" : "");
    while (!*r.stop && rc == CLI_OK) {
        if ((rc = bcn_rel_poll(&r.rel)) != CLI_OK) break;   /* a clock change: said with what passed, in one line */
        uint64_t n0 = bcn_first_open(s, tl_beacon_now());
        uint64_t first = 0, last = 0, np = bcn_rel_passed(&r.rel, n0, &first, &last);
        bcn_rel_say_passed(np, first, last);
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
                if (bcn_rel_seal(&r.rel, E, &ch) == CLI_OK) rc = bcn_rel_tick(&r.rel, 1, 0);
            }
        }
        if (rc == CLI_OK && !did) rc = bcn_rel_reseal(&r.rel, n0);   /* a seal a full disk held back */
        if (r.failed) rc = CLI_FAIL;
        if (did || rc || *r.stop) continue;
        if (once) break;
        /* nothing to generate: sleep (monotonic) until the next release by
         * the clock now, or a clock change; waking at least once a minute so
         * that the record (private/service.json, --metrics) stays fresh (a
         * record older than that means the service is gone) */
        rc = bcn_rel_sleep(&r.rel, BCN_SERVICE_REFRESH, r.stop);
    }
    if (rc == CLI_OK && (r.rel.publish_pending || r.rel.seal_pending)) {   /* --once, or a stop: said; --once fails */
        bcn_log("ending with %s", r.rel.publish_pending ? "feed.json not published: the feed served is the last one"
                                                         : "an epoch not sealed: it is not offered until it is");
        rc = CLI_FAIL;
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
