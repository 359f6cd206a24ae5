/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/cluster_run.c — `rxlock beacon run DIR --cluster slurm|k8s`:
 * the service with generation on a cluster.  For each epoch still to make
 * (the next `ahead`, oldest first, --in-flight epoch keys at once, or as many as the measured pace needs) it writes the
 * plan with its job files (bcn_plan_epoch), submits it through the
 * cluster's own tools (cluster_sched.c), follows it (the plan's results,
 * read as `plan status` does, and the scheduler's state), assembles the
 * puzzle with the planner and signer keys it holds in private/, seals and
 * publishes it, and goes on, while it releases every puzzle at its time.
 * A submission whose jobs end with tasks missing is submitted again (the
 * tasks are idempotent: done groups are skipped) up to --retries times;
 * then the epoch is reported and skipped.  An assembly that fails (a
 * result or a verified segment that does not hold) never publishes: the
 * plan is set aside and the epoch planned again.  Every step is recorded
 * in DIR/private/cluster/STEM.state before the next, and each submission
 * carries a job name recorded before it is made, so a kill -9 at any point
 * is resumed by the next start without submitting anything twice.  The
 * time each epoch took on the cluster is measured (and kept across
 * restarts); the first epoch of the window that would be assembled after
 * its release at that pace, --in-flight epoch keys at once, is warned
 * about once, while there is time to act. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <errno.h>
#include <stdarg.h>
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
    uint8_t *sk;
    const volatile int *stop;
    int k8s;
    const char *ns;               /* k8s namespace or NULL                  */
    unsigned retries;
    double poll, cmd_timeout;
    cli_plan_jobs jobs;
    double last_epoch_seconds;    /* the cluster's last epoch key, first submission to done
                                     (kept in DIR/private/cluster/pace) */
    unsigned in_flight;           /* epoch keys on the cluster at once       */
    int in_flight_given;          /* --in-flight N: kept; else chosen from the pace */
    int64_t warned;               /* the last epoch warned about as late (-1 none) */
    bcn_service sv;
    bcn_releaser rel;             /* releases on the clock (releaser.c), as `beacon run` */
} cl_ctx;

static void cl_error(cl_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cl_error(cl_ctx *c, const char *fmt, ...) {
    char msg[sizeof c->sv.last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int64_t now = tl_beacon_now();
    int again = !strcmp(msg, c->sv.last_error) && now - c->sv.last_error_at < 3600;
    if (!again) {   /* the same trouble at every poll is said once (an hour) */
        memcpy(c->sv.last_error, msg, sizeof msg);
        c->sv.last_error_at = now;
        bcn_log("%s", msg);
    }
}

/* ---- the per-epoch record (cluster_state.c) ------------------------------ */
static void state_path(const cl_ctx *c, const char *stem, char out[PATH_MAX]) {
    bcn_file(&c->b, out, "private/cluster/%s.state", stem);
}

static int state_read(const cl_ctx *c, const char *stem, bcn_cl_state *st) {
    return bcn_cl_state_read(&c->b, stem, st);
}

static int state_write(cl_ctx *c, const char *stem, const bcn_cl_state *st) {
    char err[PATH_MAX + 128];
    if (bcn_cl_state_write(&c->b, stem, st, err, sizeof err) == 0) return 0;
    cl_error(c, "cluster: %s (a full disk? nothing is submitted until it is written)", err);
    return -1;
}

/* ---- one epoch key ------------------------------------------------------- */
static void forget(cl_ctx *c, uint64_t E, int kind, int cancel);
static void plan_paths(const cl_ctx *c, const char *stem, char dir[PATH_MAX], char wk[PATH_MAX], char pk[PATH_MAX]) {
    bcn_file(&c->b, dir, "plans/%s", stem);
    bcn_file(&c->b, wk, "private/plans/%s.worker.key", stem);
    bcn_file(&c->b, pk, "private/plans/%s.planner.key", stem);
}

/* The plan's tasks: *done of *total (group tasks, then verification tasks),
 * *groups_done: every group task done; *failed: a result or record that
 * does not hold.  0, or -1 when the plan cannot be read. */
static int plan_progress(const char *dir, const char *wk, uint32_t *done, uint32_t *total, int *groups_done, int *failed) {
    tl_plan_status ps;
    char err[256];
    if (tl_plan_status_read(dir, wk, &ps, err, sizeof err) != TL_OK) return -1;
    *done = *total = 0;
    *groups_done = 1;
    *failed = 0;
    for (uint32_t k = 0; k < ps.n; k++) {
        (*total)++;
        if (ps.task[k].state == TL_TASK_DONE) (*done)++;
        else if (!ps.task[k].verify) *groups_done = 0;
        if (ps.task[k].state == TL_TASK_FAILED) *failed = 1;
    }
    tl_plan_status_free(&ps);
    return 0;
}

/* Set a failed plan aside (DIR/plans/STEM.failed-T) with its keys removed,
 * and forget its record: the next pass plans the epoch again. */
static void replan(cl_ctx *c, const char *stem) {
    char dir[PATH_MAX], wk[PATH_MAX], pk[PATH_MAX], aside[PATH_MAX], sp[PATH_MAX];
    plan_paths(c, stem, dir, wk, pk);
    bcn_file(&c->b, aside, "plans/%s.failed-%lld", stem, (long long)tl_beacon_now());
    if (rename(dir, aside) != 0) cl_error(c, "cluster: %s: %s", dir, strerror(errno));
    unlink(wk);
    unlink(pk);
    state_path(c, stem, sp);
    unlink(sp);
}

static int submit(cl_ctx *c, uint64_t E, const char *stem, const char *dir, const char *wk, bcn_cl_state *st, int verifies) {
    st->attempt++;
    snprintf(st->name, sizeof st->name, "rxlock-%02x%02x%02x%02x-%s-a%u", c->b.cfg.s.signer[0], c->b.cfg.s.signer[1],
             c->b.cfg.s.signer[2], c->b.cfg.s.signer[3], stem, st->attempt);
    st->jobs[0][0] = st->jobs[1][0] = 0;
    st->verify_applied = 0;
    if (!st->first_submit) st->first_submit = tl_beacon_now();
    if (state_write(c, stem, st) != 0) return -1;   /* the name first: a kill now is found by it */
    util_kill_point("cluster-before-submit");
    int rc;
    if (c->k8s) {
        char job[64], secret[96], file[PATH_MAX + 32];
        if (bcn_k8s_job_name(dir, job) != 0) { cl_error(c, "cluster: %s/k8s-job.yaml: no Job name", dir); return -1; }
        snprintf(secret, sizeof secret, "%s-worker", job);
        bcn_k8s_delete(c->ns, "job", job, c->cmd_timeout);
        snprintf(file, sizeof file, "%s-verify", job);
        bcn_k8s_delete(c->ns, "job", file, c->cmd_timeout);
        snprintf(file, sizeof file, "%s/k8s-job.yaml", dir);
        rc = bcn_k8s_secret(c->ns, secret, c->jobs.node_worker_key ? c->jobs.node_worker_key : wk, c->cmd_timeout);
        if (rc == 0) rc = bcn_k8s_apply(c->ns, file, c->cmd_timeout);
        if (rc == 0) snprintf(st->jobs[0], 32, "%.31s", job);
    } else
        rc = bcn_slurm_submit(dir, st->name, verifies, c->cmd_timeout, st->jobs);
    if (rc != 0) {
        c->sv.failures++;
        cl_error(c, "cluster: epoch %llu (%s): the submission was refused (attempt %u of %u); it is tried again at the "
                 "next poll", (unsigned long long)E, stem, st->attempt, c->retries + 1);
        st->jobs[0][0] = st->jobs[1][0] = 0;
        state_write(c, stem, st);
        return -1;
    }
    util_kill_point("cluster-submitted");
    if (state_write(c, stem, st) != 0) return -1;
    bcn_log("cluster: epoch %llu (%s): submitted (attempt %u): %s %s%s%s", (unsigned long long)E, stem, st->attempt,
            c->k8s ? "Job" : "job", st->jobs[0], st->jobs[1][0] ? ", verification job " : "", st->jobs[1]);
    if (st->attempt > 1) c->sv.resubmissions++;
    return 0;
}

/* Is the submission still running?  1 yes, 0 no, -1 unknown. */
static int active(cl_ctx *c, const char *dir, bcn_cl_state *st, int groups_done, int verifies) {
    if (!c->k8s) return bcn_slurm_active((const char (*)[32])st->jobs, c->cmd_timeout);
    char vjob[96], file[PATH_MAX + 32];
    int a = bcn_k8s_active(c->ns, st->jobs[0], c->cmd_timeout);
    if (a != 0) return a;
    if (!verifies) return 0;
    snprintf(vjob, sizeof vjob, "%s-verify", st->jobs[0]);
    if (!st->verify_applied) {
        if (!groups_done) return 0;   /* the group Job ended short: resubmit */
        snprintf(file, sizeof file, "%s/k8s-verify-job.yaml", dir);
        if (bcn_k8s_apply(c->ns, file, c->cmd_timeout) != 0) return -1;
        st->verify_applied = 1;
        snprintf(st->jobs[1], 32, "%.31s", vjob);
        bcn_log("cluster: the group Job %s is complete: applied the verification Job %s", st->jobs[0], vjob);
        return 1;
    }
    return bcn_k8s_active(c->ns, vjob, c->cmd_timeout);
}

static int assemble(cl_ctx *c, uint64_t E, const char *stem, const char *dir, const char *pk, const char *wk) {
    char out[PATH_MAX], err[256];
    bcn_file(&c->b, out, "private/puzzles/%s.json", stem);
    tl_assemble_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.planner_key = pk;
    ao.sign_sk = c->sk;
    char *json = NULL;
    size_t len = 0;
    uint8_t epk[32];
    int rc = tl_plan_assemble(dir, &ao, &json, &len, NULL, epk, NULL, err, sizeof err);
    if (rc) {
        c->sv.failures++;
        cl_error(c, "cluster: epoch %llu (%s): assembly refused: %s; nothing is published, the epoch is planned again "
                 "(the failed plan is kept as %s.failed-*)", (unsigned long long)E, stem, err[0] ? err : rxlock_strerror(rc), dir);
        replan(c, stem);
        return 1;
    }
    int w = util_write_file_atomic(out, json, len, 0, 0600);
    sodium_memzero(json, len);
    free(json);
    if (w != 0 && errno != EEXIST) { cl_error(c, "cluster: %s: %s", out, strerror(errno)); return -1; }
    util_kill_point("cluster-assembled");
    unlink(pk);   /* the planner key opens the plan's secrets: not kept once the puzzle is written */
    unlink(wk);
    return 0;
}

/* Advance epoch E's key of a kind by one step.  1 when it needs the
 * cluster (in flight: nothing later starts), 0 when done or given up,
 * -1 on a failure that stops the service. */
static int step(cl_ctx *c, uint64_t E, int kind) {
    const tl_beacon_sched *s = &c->b.cfg.s;
    char stem[48], dir[PATH_MAX], wk[PATH_MAX], pk[PATH_MAX], puzzle[PATH_MAX];
    bcn_stem(s, E, kind, stem);
    bcn_file(&c->b, puzzle, "private/puzzles/%s.json", stem);
    if (access(puzzle, F_OK) == 0) {   /* made; a kill after its assembly may have left its keys and record */
        char sp[PATH_MAX];
        state_path(c, stem, sp);
        if (access(sp, F_OK) == 0) {
            forget(c, E, kind, c->k8s);
            bcn_log("cluster: epoch %llu (%s): removed its plan keys and record, left by a run stopped after its "
                    "assembly", (unsigned long long)E, stem);
        }
        return 0;
    }
    bcn_cl_state st;
    if (state_read(c, stem, &st) < 0) { cl_error(c, "cluster: %s: unreadable record", stem); return -1; }
    if (st.gave_up) return 0;
    plan_paths(c, stem, dir, wk, pk);
    /* the nodes read the worker key where this DIR is (a shared filesystem;
     * k8s: the Secret made from it), and the plan on the volume's STEM */
    static char wkabs[PATH_MAX];
    char base[PATH_MAX];
    if (!realpath(c->b.dir, base)) { cl_error(c, "cluster: %s: %s", c->b.dir, strerror(errno)); return -1; }
    if ((size_t)snprintf(wkabs, sizeof wkabs, "%s/private/plans/%s.worker.key", base, stem) >= sizeof wkabs) return -1;
    c->jobs.node_worker_key = wkabs;
    if (c->k8s) c->jobs.pvc_subpath = stem;
    int made = 0;
    if (bcn_plan_epoch(&c->b, E, kind, &c->jobs, &made) != CLI_OK) { c->sv.failures++; return -1; }
    uint32_t done = 0, total = 0;
    int groups_done = 0, failed = 0, verifies = c->b.cfg.verify != TL_VERIFY_NONE;
    if (plan_progress(dir, wk, &done, &total, &groups_done, &failed) != 0) {
        cl_error(c, "cluster: %s: the plan's status cannot be read", dir);
        return -1;
    }
    int mine = c->sv.epoch < 0;   /* the record shows the oldest epoch key in flight */
    if (mine) {
        c->sv.epoch = (int64_t)E;
        snprintf(c->sv.stem, sizeof c->sv.stem, "%s", stem);
        c->sv.done = done;
        c->sv.total = total;
        c->sv.unit = "tasks";
        c->sv.started = (double)st.first_submit;
        c->sv.release = tl_beacon_release(s, E);
        snprintf(c->sv.jobs, sizeof c->sv.jobs, "%s%s%s", st.jobs[0], st.jobs[1][0] ? "," : "", st.jobs[1]);
        c->sv.eta = c->last_epoch_seconds > 0 && st.first_submit
                        ? (double)st.first_submit + c->last_epoch_seconds - (double)tl_beacon_now() : -1;
    }
    if (done == total && !failed) {
        int a = assemble(c, E, stem, dir, pk, wk);
        if (a < 0) return -1;
        if (a > 0) return 1;
        double took = st.first_submit ? (double)(tl_beacon_now() - st.first_submit) : 0;
        if (took > 0) {
            char pace[PATH_MAX], text[64];
            c->last_epoch_seconds = took;
            bcn_file(&c->b, pace, "private/cluster/pace");
            int n = snprintf(text, sizeof text, "epoch_seconds=%.0f\n", took);
            if (util_write_file_atomic(pace, text, (size_t)n, 1, 0600) != 0)
                cl_error(c, "cluster: %s: %s", pace, strerror(errno));
        }
        char d[32];
        util_format_duration(d, sizeof d, took);
        bcn_log("cluster: epoch %llu (%s): assembled (%u tasks, %u submission%s, %s on the cluster)",
                (unsigned long long)E, stem, total, st.attempt, st.attempt == 1 ? "" : "s", d);
        if (tl_beacon_release(s, E) <= tl_beacon_now())
            cl_error(c, "warning: epoch %llu was generated after its release time: nobody could encrypt to it",
                     (unsigned long long)E);
        if (c->k8s) forget(c, E, kind, 1);   /* the worker key's Secret and the Jobs go: the epoch is made */
        char sp[PATH_MAX];
        state_path(c, stem, sp);
        unlink(sp);
        if (mine) c->sv.epoch = -1;
        return 0;
    }
    if (failed && st.attempt == 0) {   /* a plan whose results do not hold before anything ran here: plan again */
        cl_error(c, "cluster: %s: a result does not authenticate: the plan is set aside and made again", dir);
        replan(c, stem);
        return 1;
    }
    if (st.attempt && !st.jobs[0][0] && st.name[0] && c->k8s) {
        /* killed between recording the attempt and recording the Job: its name is the plan's */
        char job[64];
        int a = bcn_k8s_job_name(dir, job) == 0 ? bcn_k8s_active(c->ns, job, c->cmd_timeout) : -1;
        if (a < 0) return 1;
        if (a > 0) {
            snprintf(st.jobs[0], 32, "%.31s", job);
            bcn_log("cluster: epoch %llu (%s): found its Job %s after a restart", (unsigned long long)E, stem, job);
            if (state_write(c, stem, &st) != 0) return 1;
        }
    }
    if (st.attempt && !st.jobs[0][0] && st.name[0] && !c->k8s) {
        /* killed between recording the name and recording the jobs: find them */
        int f = bcn_slurm_find(st.name, c->cmd_timeout, st.jobs);
        if (f < 0) return 1;
        if (f == 0) {
            bcn_log("cluster: epoch %llu (%s): found its submission %s by name after a restart", (unsigned long long)E,
                    stem, st.jobs[0]);
            if (state_write(c, stem, &st) != 0) return 1;
        }
    }
    if (st.jobs[0][0]) {
        int a = active(c, dir, &st, groups_done, verifies);
        if (st.verify_applied) state_write(c, stem, &st);
        if (a > 0 && !c->k8s && done == 0 && tl_beacon_now() - st.first_submit > (int64_t)(c->b.cfg.s.every / 2 + 60)) {
            char why[160];
            if (bcn_slurm_pending(st.jobs[0], c->cmd_timeout, why, sizeof why) == 1)
                cl_error(c, "cluster: epoch %llu (%s): job %s has not started (%s): free nodes, or cancel it (scancel %s) "
                         "and let the service resubmit", (unsigned long long)E, stem, st.jobs[0], why, st.jobs[0]);
        }
        if (a != 0) return 1;   /* running, or the scheduler did not answer: wait */
        c->sv.failures++;
        cl_error(c, "cluster: epoch %llu (%s): its jobs ended with %u of %u tasks done%s", (unsigned long long)E, stem,
                 done, total, failed ? " (a result or verified segment does not hold)" : "");
        if (failed) { replan(c, stem); return 1; }
    }
    if (st.attempt > c->retries) {
        st.gave_up = 1;
        state_write(c, stem, &st);
        cl_error(c, "cluster: epoch %llu (%s) GIVEN UP after %u submissions: its logs are in %s/logs; the service goes "
                 "on with the next epoch (remove %s/private/cluster/%s.state to try it again)", (unsigned long long)E,
                 stem, st.attempt, dir, c->b.dir, stem);
        return 0;
    }
    submit(c, E, stem, dir, wk, &st, verifies);
    return 1;
}

/* An epoch key done with: its jobs cancelled (cancel: a skipped epoch; on
 * Kubernetes also the Secret), its keys and record removed (its plan stays
 * for the logs). */
static void forget(cl_ctx *c, uint64_t E, int kind, int cancel) {
    char stem[48], dir[PATH_MAX], wk[PATH_MAX], pk[PATH_MAX], sp[PATH_MAX];
    bcn_cl_state st;
    bcn_stem(&c->b.cfg.s, E, kind, stem);
    if (cancel && state_read(c, stem, &st) == 1 && st.jobs[0][0]) {
        if (!c->k8s) bcn_slurm_cancel((const char (*)[32])st.jobs, c->cmd_timeout);
        else {
            char name[96];
            bcn_k8s_delete(c->ns, "job", st.jobs[0], c->cmd_timeout);
            snprintf(name, sizeof name, "%s-verify", st.jobs[0]);
            bcn_k8s_delete(c->ns, "job", name, c->cmd_timeout);
            snprintf(name, sizeof name, "%s-worker", st.jobs[0]);
            bcn_k8s_delete(c->ns, "secret", name, c->cmd_timeout);
        }
    }
    plan_paths(c, stem, dir, wk, pk);
    unlink(pk);
    unlink(wk);
    state_path(c, stem, sp);
    unlink(sp);
}

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
            if (access(pz, F_OK) == 0 || (state_read(c, stem, &st) == 1 && st.gave_up)) continue;
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
    int64_t now = tl_beacon_now();
    int before = 0;
    uint64_t E0 = tl_beacon_epoch_at(s, now, &before), n0 = before ? 0 : E0 + 1;
    uint64_t lo = n0 > TL_BEACON_MAX_EPOCHS ? n0 - TL_BEACON_MAX_EPOCHS : 0;
    int changed = 0;
    for (uint64_t E = lo; E < n0 + s->ahead && rc == CLI_OK; E++) {   /* seals a kill left missing */
        int all = 1;
        for (unsigned q = 0; q < nk; q++) {
            char stem[48], pz[PATH_MAX];
            bcn_stem(s, E, kinds[q], stem);
            bcn_file(&c.b, pz, "private/puzzles/%s.json", stem);
            struct stat st;
            all = all && (lstat(pz, &st) == 0 || (bcn_file(&c.b, pz, "public/puzzles/%s.json", stem), lstat(pz, &st) == 0));
        }
        if (all) rc = bcn_seal(&c.b, E, &changed);
    }
    bcn_rel_start(&c.rel, &c.b, c.sk, &c.sv);
    if (rc || (rc = bcn_rel_tick(&c.rel, 1, 0)) != CLI_OK) goto out;
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
        now = tl_beacon_now();
        n0 = bcn_first_open(s, now);
        uint64_t np = bcn_rel_passed(&c.rel, n0, &first, &last);
        bcn_rel_say_passed(np, first, last);
        for (uint64_t E = from; E < n0 && E < hi; E++)   /* their jobs cancelled, keys and records gone */
            for (unsigned q = 0; q < nk; q++) forget(&c, E, kinds[q], 1);
        choose_in_flight(&c, nk);
        unsigned busy = 0;
        c.sv.epoch = -1;
        for (uint64_t E = n0; E < n0 + s->ahead && busy < c.in_flight && !*c.stop; E++) {
            int made_all = 1;
            for (unsigned q = 0; q < nk && busy < c.in_flight; q++) {
                int r = step(&c, E, kinds[q]);
                if (r < 0) { rc = CLI_FAIL; break; }
                if (r > 0) busy++;
                char stem[48], pz[PATH_MAX];
                bcn_stem(s, E, kinds[q], stem);
                bcn_file(&c.b, pz, "private/puzzles/%s.json", stem);
                made_all = made_all && access(pz, F_OK) == 0;
            }
            if (rc) break;
            if (made_all) {
                int ch = 0;
                if ((rc = bcn_seal(&c.b, E, &ch)) == CLI_OK && ch) rc = bcn_rel_tick(&c.rel, 1, 0);
            }
        }
        if (rc == CLI_OK) warn_ahead(&c, n0, kinds, nk);
        c.sv.margin = c.last_epoch_seconds > 0 ? (double)s->every / (c.last_epoch_seconds * nk) : 0;
        if (rc == CLI_OK) rc = bcn_rel_tick(&c.rel, 0, 0);   /* releases, and the record with this pass's figures */
        if (rc == CLI_OK) { bcn_service_write(&c.b, &c.sv); c.rel.sv_written = util_now(); }
        if (rc || o->once) break;
        /* until the next --poll or the next release (releasing on time,
         * noticing a clock change, keeping the record fresh meanwhile) */
        double until = util_now() + c.poll;
        int64_t due = c.rel.next_due;
        while (rc == CLI_OK && !*c.stop && util_now() < until && c.rel.next_due == due)
            rc = bcn_rel_sleep(&c.rel, until - util_now(), c.stop);
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
