/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/cluster_run.c — `rxlock beacon run DIR --cluster slurm|k8s`:
 * the service with generation on a cluster.  It keeps the next `ahead`
 * epochs being made, oldest first, --in-flight epoch keys at once (or as
 * many as the measured pace needs), each a step at a time (cluster_epoch.c),
 * seals and publishes each made epoch, and releases every puzzle at its time
 * (releaser.c, as `beacon run`).  The time each epoch key took on the
 * cluster is measured (and kept across restarts); the first epoch of the
 * window that would be assembled after its release at that pace is warned
 * about once, while there is time to act.  Also the options it parses. */
#include "cli/beacon/cluster_ctx.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
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


/* Without --in-flight, the epoch keys on the cluster at once follow the
 * measured pace: an epoch (nk keys) is due every period, so at P seconds per
 * key ceil(1.25 x nk x P / every) keys at once keep up with a quarter to
 * spare (when the cluster has the nodes: a crowded one shows it in the next
 * keys' pace), at least 1 and at most the window's keys.  Said when it
 * changes. */
static void choose_in_flight(cl_ctx *c, unsigned nk) {
    if (c->in_flight_given || !(c->last_epoch_seconds > 0)) return;
    const tl_beacon_sched *s = &c->b.cfg.s;
    double want = ceil(1.25 * (double)nk * c->last_epoch_seconds / (double)s->every);
    double cap = (double)s->ahead * (double)nk;
    unsigned n = want < 1 ? 1 : want > cap ? (unsigned)cap : (unsigned)want;
    if (n == c->in_flight) return;
    char d[32], e[32];
    util_format_duration(d, sizeof d, c->last_epoch_seconds);
    util_format_duration(e, sizeof e, (double)s->every);
    bcn_log("cluster: %u epoch key%s on the cluster at once (was %u): the last took %s, an epoch of %u key%s is due "
            "every %s%s", n, n == 1 ? "" : "s", c->in_flight, d, nk, nk == 1 ? "" : "s", e,
            n == (unsigned)cap && want > cap ? "; the window (--ahead) allows no more" : "");
    c->in_flight = n;
}

/* Planning ahead: at the measured pace (the last epoch key's time on the
 * cluster, in_flight at once), when would each missing epoch of the window
 * be assembled?  The first that would come after its release is warned
 * about once, while there is time to act. */
static void warn_ahead(cl_ctx *c, uint64_t n0, const int kinds[2], unsigned nk) {
    const tl_beacon_sched *s = &c->b.cfg.s;
    if (!(c->last_epoch_seconds > 0)) return;
    int64_t now = tl_beacon_now();
    unsigned k = 0;
    for (uint64_t E = n0; E < n0 + s->ahead; E++) {
        for (unsigned q = 0; q < nk; q++) {
            char stem[48], pz[PATH_MAX];
            bcn_cl_state st;
            bcn_stem(s, E, kinds[q], stem);
            bcn_file(&c->b, pz, "private/puzzles/%s.json", stem);
            if (access(pz, F_OK) == 0 || (bcn_cl_state_read(&c->b, stem, &st) == 1 && st.gave_up)) continue;
            double done_at = (double)now + (double)(k / c->in_flight + 1) * c->last_epoch_seconds;
            k++;
            int64_t rel = tl_beacon_release(s, E);
            if (done_at <= (double)rel) continue;
            if (c->warned == (int64_t)E) return;
            c->warned = (int64_t)E;
            char d[32], late[32];
            util_format_duration(d, sizeof d, c->last_epoch_seconds);
            util_format_duration(late, sizeof late, done_at - (double)rel);
            char more[48] = "";
            if (c->in_flight_given) snprintf(more, sizeof more, " --in-flight %u,", c->in_flight + 1);
            cl_error(c, "warning: at the cluster's measured pace (%s per epoch key, %u at once) epoch %llu would be "
                     "assembled about %s after its release: more nodes,%s or a beacon with a longer --every",
                     d, c->in_flight, (unsigned long long)E, late, more);
            return;
        }
    }
}

int bcn_cluster_run(const char *dirarg, const bcn_cluster_opts *o) {
    static cl_ctx c;
    memset(&c, 0, sizeof c);
    if (bcn_open(&c.b, dirarg) != CLI_OK) return CLI_FAIL;
    c.k8s = o->k8s;
    c.ns = o->k8s_namespace;
    c.retries = o->retries;
    c.poll = o->poll > 0 ? o->poll : 30;
    c.cmd_timeout = o->cmd_timeout > 0 ? o->cmd_timeout : 120;
    c.sv.mode = c.k8s ? "k8s" : "slurm";
    c.sv.epoch = -1;
    c.sv.metrics = o->metrics;
    c.jobs = o->jobs;
    c.in_flight = o->in_flight ? o->in_flight : 1;
    c.in_flight_given = o->in_flight != 0;
    c.warned = -1;
    const tl_beacon_sched *s = &c.b.cfg.s;
    char p[PATH_MAX], err[256];
    bcn_file(&c.b, p, "private/run.lock");
    int lfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lfd < 0) return cli_error("%s: %s", p, strerror(errno));
    if (flock(lfd, LOCK_EX | LOCK_NB) != 0) { close(lfd); return cli_error("%s: another `beacon run` serves this DIR", dirarg); }
    c.stop = cli_catch_signals();
    int rc = CLI_OK;
    if (!(c.sk = sodium_malloc(64))) { close(lfd); return cli_error("out of memory"); }
    if ((rc = bcn_signer_load(&c.b, c.sk)) != CLI_OK) goto out;
    bcn_file(&c.b, p, "public");
    if (cli_beacon_web_publish(p, err, sizeof err) != 0) bcn_log("warning: the web page was not published: %s", err);
    int kinds[2];
    unsigned nk = bcn_kinds(s->kinds, kinds);
    bcn_rel_start(&c.rel, &c.b, c.sk, &c.sv);
    /* repair what a kill left (seals missing for made epochs), then publish */
    if ((rc = bcn_rel_repair(&c.rel)) != CLI_OK || (rc = bcn_rel_tick(&c.rel, 1, 0)) != CLI_OK) goto out;
    {   /* the pace measured before a restart */
        uint8_t *buf = NULL;
        size_t len = 0;
        double d = 0;
        bcn_file(&c.b, p, "private/cluster/pace");
        if (util_read_file(p, 64, &buf, &len) == 0 && sscanf((const char *)buf, "epoch_seconds=%lf", &d) == 1 && d > 0 &&
            d < 1e9)
            c.last_epoch_seconds = d;
        free(buf);
    }
    bcn_log("serving %s on %s: an epoch every %llu s, %u ahead, %u resubmissions per epoch, polling every %.0f s",
            c.b.dir, c.k8s ? "Kubernetes" : "Slurm", (unsigned long long)s->every, s->ahead, c.retries, c.poll);
    while (!*c.stop && rc == CLI_OK) {
        uint64_t from = c.rel.skipped_to, hi = c.rel.gen_hi, first = 0, last = 0;
        if ((rc = bcn_rel_poll(&c.rel)) != CLI_OK) break;   /* a clock change: said with what passed, in one line */
        uint64_t n0 = bcn_first_open(s, tl_beacon_now());
        uint64_t np = bcn_rel_passed(&c.rel, n0, &first, &last);
        bcn_rel_say_passed(np, first, last);
        for (uint64_t E = from; E < n0 && E < hi; E++)   /* their jobs cancelled, keys and records gone */
            for (unsigned q = 0; q < nk; q++) cl_forget(&c, E, kinds[q], 1);
        choose_in_flight(&c, nk);
        unsigned busy = 0;
        c.sv.epoch = -1;
        for (uint64_t E = n0; E < n0 + s->ahead && busy < c.in_flight && !*c.stop; E++) {
            for (unsigned q = 0; q < nk && busy < c.in_flight; q++) {
                int r = cl_step(&c, E, kinds[q]);
                if (r < 0) { rc = CLI_FAIL; break; }
                if (r > 0) busy++;
            }
            if (rc) break;
            if (bcn_epoch_made(&c.b, E)) {
                int ch = 0;
                if (bcn_rel_seal(&c.rel, E, &ch) == CLI_OK && ch) rc = bcn_rel_tick(&c.rel, 1, 0);
            }
        }
        if (rc == CLI_OK) rc = bcn_rel_reseal(&c.rel, n0);   /* a seal a full disk held back */
        if (rc == CLI_OK) warn_ahead(&c, n0, kinds, nk);
        c.sv.margin = c.last_epoch_seconds > 0 ? (double)s->every / (c.last_epoch_seconds * nk) : 0;
        c.rel.sv_written = 0;   /* the record with this pass's figures, written by the tick */
        if (rc == CLI_OK) rc = bcn_rel_tick(&c.rel, 0, 0);   /* releases, and the record */
        if (rc || o->once) break;
        /* until the next --poll or the next release (releasing on time,
         * noticing a clock change, keeping the record fresh meanwhile) */
        double until = util_now() + c.poll;
        int64_t due = c.rel.next_due;
        while (rc == CLI_OK && !*c.stop && util_now() < until && c.rel.next_due == due)
            rc = bcn_rel_sleep(&c.rel, until - util_now(), c.stop);
    }
    if (rc == CLI_OK && (c.rel.publish_pending || c.rel.seal_pending)) {   /* --once, or a stop: said; --once fails */
        bcn_log("ending with %s", c.rel.publish_pending ? "feed.json not published: the feed served is the last one"
                                                         : "an epoch not sealed: it is not offered until it is");
        rc = CLI_FAIL;
    }
    if (*c.stop) {
        bcn_log("stopping on a signal; the cluster's jobs go on and the next start follows them");
        rc = CLI_OK;
    }
out:
    sodium_free(c.sk);
    close(lfd);
    return rc;
}

int bcn_cluster_opt(bcn_cluster_opts *o, int *cluster, int c, const char *arg) {
    static const char *extra[CLI_PLAN_SBATCH_EXTRA_MAX];
    double d;
    uint64_t u;
    switch (c) {
    case BCN_OPT_CLUSTER:
        if (!strcmp(arg, "slurm")) o->k8s = 0;
        else if (!strcmp(arg, "k8s")) o->k8s = 1;
        else return cli_usage_error("beacon run", "--cluster: want slurm or k8s");
        *cluster = 1;
        return 0;
    case BCN_OPT_RETRIES:
        if (cli_parse_u64(arg, 0, 100, &u)) return cli_usage_error("beacon run", "--retries: want 0..100");
        o->retries = (unsigned)u;
        return 0;
    case BCN_OPT_POLL:
    case BCN_OPT_CMDTIME: {
        int rc = cli_parse_span_opt("beacon run", c == BCN_OPT_POLL ? "--poll" : "--cmd-timeout", arg, 1, 86400, &d);
        if (rc) return rc;
        *(c == BCN_OPT_POLL ? &o->poll : &o->cmd_timeout) = d;
        return 0;
    }
    case BCN_OPT_METRICS: o->metrics = arg; return 0;
    case BCN_OPT_INFLIGHT:
        if (cli_parse_u64(arg, 1, TL_BEACON_MAX_AHEAD, &u)) return cli_usage_error("beacon run", "--in-flight: want 1..%u", TL_BEACON_MAX_AHEAD);
        o->in_flight = (unsigned)u;
        return 0;
    case BCN_OPT_SBATCH:
        if (o->jobs.n_sbatch_extra >= CLI_PLAN_SBATCH_EXTRA_MAX)
            return cli_usage_error("beacon run", "--sbatch: at most %u", CLI_PLAN_SBATCH_EXTRA_MAX);
        extra[o->jobs.n_sbatch_extra++] = arg;
        o->jobs.sbatch_extra = extra;
        return 0;
    case BCN_OPT_IMAGE: o->jobs.image = arg; return 0;
    case BCN_OPT_PVC: o->jobs.pvc = arg; return 0;
    case BCN_OPT_NS: o->k8s_namespace = o->jobs.k8s_namespace = arg; return 0;
    default: return -1;
    }
}
