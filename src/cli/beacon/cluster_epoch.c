/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/cluster_epoch.c — one epoch key on the cluster, a step at
 * a time (cl_step): its plan written with its job files (bcn_plan_epoch),
 * submitted through the cluster's own tools (cluster_sched.c), followed
 * (the plan's results, read as `plan status` does, and the scheduler's
 * state), assembled with the planner and signer keys held in private/.  A
 * submission whose jobs end (or are lost) with tasks missing is submitted
 * again (the tasks are idempotent: done groups are skipped) up to --retries
 * times, over every plan of the epoch; then the epoch is reported and
 * skipped.  An assembly that fails (a result or a verified segment that
 * does not hold) never publishes: the plan is set aside and the epoch
 * planned again.  A refused or unanswered submission, a scheduler that
 * does not answer, a job that does not start and a full disk wait, said
 * once with the way out (cl_error).  Every step is recorded in
 * DIR/private/cluster/STEM.state before the next, and each submission
 * carries a job name recorded before it is made, so a kill -9 at any point
 * is resumed without submitting anything twice. */
#include "cli/beacon/cluster_ctx.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>


int cl_error(cl_ctx *c, const char *fmt, ...) {
    char msg[sizeof c->said[0].msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int64_t now = tl_beacon_now();
    unsigned old = 0;
    for (unsigned k = 0; k < CL_SAID; k++) {
        if (c->said[k].at && !strcmp(c->said[k].msg, msg) && now - c->said[k].at < 3600) return 0;
        if (c->said[k].at < c->said[old].at) old = k;
    }
    memcpy(c->said[old].msg, msg, sizeof msg);
    c->said[old].at = now;
    size_t n = strlen(msg) < sizeof c->sv.last_error ? strlen(msg) : sizeof c->sv.last_error - 1;
    memcpy(c->sv.last_error, msg, n);   /* the record keeps its first 400 bytes */
    c->sv.last_error[n] = 0;
    c->sv.last_error_at = now;
    bcn_log("%s", msg);
    return 1;
}

/* ---- the per-epoch record (cluster_state.c) ------------------------------ */
static void state_path(const cl_ctx *c, const char *stem, char out[PATH_MAX]) {
    bcn_file(&c->b, out, "private/cluster/%s.state", stem);
}

static int state_read(const cl_ctx *c, const char *stem, bcn_cl_state *st) {
    return bcn_cl_state_read(&c->b, stem, st);
}

/* A full disk here stops nothing: the step waits, said once, and is
 * tried again at the next poll. */
static int state_write(cl_ctx *c, const char *stem, const bcn_cl_state *st) {
    char err[PATH_MAX + 128];
    if (bcn_cl_state_write(&c->b, stem, st, err, sizeof err) == 0) return 0;
    cl_error(c, "cluster: %s: the epoch's record cannot be written: nothing is submitted or forgotten until it is; "
             "free space on the disk of %s (it is tried again at every poll)", err, c->b.dir);
    return -1;
}

/* ---- one epoch key ------------------------------------------------------- */
static void plan_paths(const cl_ctx *c, const char *stem, char dir[PATH_MAX], char wk[PATH_MAX], char pk[PATH_MAX]) {
    bcn_file(&c->b, dir, "plans/%s", stem);
    bcn_file(&c->b, wk, "private/plans/%s.worker.key", stem);
    bcn_file(&c->b, pk, "private/plans/%s.planner.key", stem);
}

/* The plan's tasks: *done of *total (group tasks, then verification tasks),
 * *groups_done: every group task done; *failed: a result or record that
 * does not hold.  0, or the library's error with err when the plan cannot
 * be read. */
static int plan_progress(const char *dir, const char *wk, uint32_t *done, uint32_t *total, int *groups_done, int *failed,
                         char *err, size_t errlen) {
    tl_plan_status ps;
    int rc = tl_plan_status_read(dir, wk, &ps, err, errlen);
    if (rc != TL_OK) {
        if (!err[0]) snprintf(err, errlen, "%s", rxlock_strerror(rc));
        return rc;
    }
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

static void gave_up(cl_ctx *c, uint64_t E, const char *stem, const bcn_cl_state *st) {
    if (cl_error(c, "cluster: epoch %llu (%s) GIVEN UP after %u submission%s: its logs are in %s/plans/%s*/logs; the "
                 "service goes on with the next epoch (remove %s/private/cluster/%s.state to try it again)",
                 (unsigned long long)E, stem, st->attempt, st->attempt == 1 ? "" : "s", c->b.dir, stem, c->b.dir, stem))
        c->sv.failures++;
}

/* Set a failed plan aside (DIR/plans/STEM.failed-T) with its keys removed.
 * The record keeps the submissions made (the job names stay unique, and
 * --retries bounds every plan of the epoch together): the next pass plans
 * the epoch again, or, with no submission left, it is given up (said).
 * 1 when given up. */
static int replan(cl_ctx *c, uint64_t E, const char *stem, bcn_cl_state *st) {
    char dir[PATH_MAX], wk[PATH_MAX], pk[PATH_MAX], aside[PATH_MAX];
    plan_paths(c, stem, dir, wk, pk);
    bcn_file(&c->b, aside, "plans/%s.failed-%lld", stem, (long long)tl_beacon_now());
    if (rename(dir, aside) != 0 && errno != ENOENT)
        cl_error(c, "cluster: %s cannot be set aside (%s): move it away by hand (mv %s %s), or the epoch is not planned "
                 "again", dir, strerror(errno), dir, aside);
    unlink(wk);
    unlink(pk);
    st->name[0] = 0;
    st->jobs[0][0] = st->jobs[1][0] = 0;
    st->verify_applied = 0;
    st->gave_up = st->attempt > c->retries;
    state_write(c, stem, st);
    if (st->gave_up) gave_up(c, E, stem, st);
    return st->gave_up;
}

/* Submit the plan.  again (the last attempt never reached the cluster:
 * refused, hung, or a kill before it) keeps its number and job name, so a
 * job that did reach the cluster is found by that name and none is made
 * twice.  0 submitted, -1 not (said once; tried again at the next poll). */
static int submit(cl_ctx *c, uint64_t E, const char *stem, const char *dir, const char *wk, bcn_cl_state *st, int verifies,
                  int again) {
    if (!again || !st->attempt) st->attempt++;
    snprintf(st->name, sizeof st->name, "rxlock-%02x%02x%02x%02x-%s-a%u", c->b.cfg.s.signer[0], c->b.cfg.s.signer[1],
             c->b.cfg.s.signer[2], c->b.cfg.s.signer[3], stem, st->attempt);
    st->jobs[0][0] = st->jobs[1][0] = 0;
    st->verify_applied = 0;
    st->submitted = tl_beacon_now();
    if (!st->first_submit) st->first_submit = st->submitted;
    if (state_write(c, stem, st) != 0) return -1;   /* the name first: a kill now is found by it */
    util_kill_point("cluster-before-submit");
    int rc;
    if (c->k8s) {
        char job[64], secret[96], file[PATH_MAX + 32];
        if (bcn_k8s_job_name(dir, job) != 0) {
            cl_error(c, "cluster: %s/k8s-job.yaml: no Job name: the plan's job files are damaged (remove %s: it is "
                     "planned again)", dir, dir);
            return -1;
        }
        snprintf(secret, sizeof secret, "%s-worker", job);
        snprintf(file, sizeof file, "%s-verify", job);
        rc = bcn_k8s_delete(c->ns, "job", job, c->cmd_timeout);   /* a Job of this plan left by a kill */
        if (rc == 0) rc = bcn_k8s_delete(c->ns, "job", file, c->cmd_timeout);
        snprintf(file, sizeof file, "%s/k8s-job.yaml", dir);
        if (rc == 0) rc = bcn_k8s_secret(c->ns, secret, c->jobs.node_worker_key ? c->jobs.node_worker_key : wk, c->cmd_timeout);
        if (rc == 0) rc = bcn_k8s_apply(c->ns, file, c->cmd_timeout);
        if (rc == 0) snprintf(st->jobs[0], 32, "%.31s", job);
    } else
        rc = bcn_slurm_submit(dir, st->name, verifies, c->cmd_timeout, st->jobs);
    if (rc != 0) {
        if (cl_error(c, "cluster: epoch %llu (%s): not submitted: %s; fix what it says (one that hangs: its controller, "
                     "or a longer --cmd-timeout); tried again at every poll as %s (found by that name if it was made)",
                     (unsigned long long)E, stem, bcn_sched_error(), st->name))
            c->sv.failures++;
        st->jobs[0][0] = st->jobs[1][0] = 0;
        return -1;
    }
    util_kill_point("cluster-submitted");
    if (state_write(c, stem, st) != 0) return -1;   /* the jobs are found by their name at the next poll */
    bcn_log("cluster: epoch %llu (%s): submitted (attempt %u): %s %s%s%s", (unsigned long long)E, stem, st->attempt,
            c->k8s ? "Job" : "job", st->jobs[0], st->jobs[1][0] ? ", verification job " : "", st->jobs[1]);
    if (st->attempt > 1) c->sv.resubmissions++;
    return 0;
}

/* Is the submission still running?  1 yes, 0 no, -1 unknown.  Slurm: why
 * gets squeue's reason while no task of the group job (*which 0) or, after
 * it, of the verification job (*which 1) has started. */
static int active(cl_ctx *c, const char *dir, bcn_cl_state *st, int groups_done, int verifies, char *why, size_t cap,
                  int *which) {
    why[0] = 0;
    *which = 0;
    if (!c->k8s) return bcn_slurm_active((const char (*)[32])st->jobs, st->name, c->cmd_timeout, why, cap, which);
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

/* A submission none of whose tasks has started is said once: at once when
 * the scheduler's reason needs an operator (held, a partition down, an
 * image that cannot be pulled, ...), else once it has waited a quarter of
 * the time from its submission to its epoch's release, or the cluster's
 * measured time for a whole epoch key when that is shorter (at least two
 * polls).  The verification job, started after the group job, only for a
 * reason that needs an operator.  Slurm: why is squeue's reason ("" once a
 * task started), which the job it is about (0 group, 1 verification). */
static void not_started(cl_ctx *c, uint64_t E, const char *stem, const bcn_cl_state *st, const char *slurm_why,
                        int which) {
    char why[208], rel[48];
    if (c->k8s) {
        which = st->verify_applied;
        if (bcn_k8s_pending(c->ns, st->jobs[which], c->cmd_timeout, why, sizeof why) != 1) return;
    } else {
        if (!slurm_why[0]) return;
        snprintf(why, sizeof why, "%s", slurm_why);
    }
    const char *job = st->jobs[which];
    int64_t now = tl_beacon_now(), r = tl_beacon_release(&c->b.cfg.s, E);
    double limit = (double)(r - st->submitted) / 4;
    if (c->last_epoch_seconds > 0 && c->last_epoch_seconds < limit) limit = c->last_epoch_seconds;
    if (limit < 2 * c->poll) limit = 2 * c->poll;
    if (!bcn_sched_needs_operator(why) && (which || (double)(now - st->submitted) < limit)) return;
    bcn_time(rel, sizeof rel, r);
    if (c->k8s)
        cl_error(c, "cluster: epoch %llu (%s): Job %s has not started (%s): unless it starts, the epoch is skipped at its "
                 "release (%s); fix what it names (kubectl describe pods -l job-name=%s), add nodes, or `kubectl delete "
                 "job %s` to have it applied again", (unsigned long long)E, stem, job, why, rel, job, job);
    else
        cl_error(c, "cluster: epoch %llu (%s): job %s has not started (squeue: %s): unless it starts, the epoch is "
                 "skipped at its release (%s); free or add nodes, release it if held (scontrol release %s), or `scancel "
                 "%s` to have it submitted again", (unsigned long long)E, stem, job, why, rel, job, job);
}

static void first_problem(const char *msg, void *ctx) {
    char *first = ctx;
    if (!first[0]) snprintf(first, 256, "%s", msg);
}

/* 0 the puzzle written; 1 refused (nothing published: the plan set aside,
 * planned again or given up); -1 not written (a full disk: said once,
 * tried again at the next poll). */
static int assemble(cl_ctx *c, uint64_t E, const char *stem, const char *dir, const char *pk, const char *wk,
                    bcn_cl_state *st) {
    char out[PATH_MAX], err[256], first[256] = "", fault[80];
    bcn_file(&c->b, out, "private/puzzles/%s.json", stem);
    tl_assemble_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.planner_key = pk;
    ao.sign_sk = c->sk;
    ao.report = first_problem;
    ao.report_ctx = first;
    char *json = NULL;
    size_t len = 0;
    uint8_t epk[32];
    int rc = tl_plan_assemble(dir, &ao, &json, &len, NULL, epk, NULL, err, sizeof err);
    if (rc) {
        if (cl_error(c, "cluster: epoch %llu (%s): assembly refused: %s%s%s; nothing is published, the plan is set aside "
                     "as %s.failed-*%s", (unsigned long long)E, stem, err[0] ? err : rxlock_strerror(rc),
                     first[0] ? ": " : "", first, dir, st->attempt > c->retries ? "" : " and the epoch planned again"))
            c->sv.failures++;
        replan(c, E, stem, st);
        return 1;
    }
    snprintf(fault, sizeof fault, "private/puzzles/%s.json", stem);   /* the test build's full disk */
    int w = util_test_enospc(fault) ? -1 : util_write_file_atomic(out, json, len, 0, 0600), e = errno;
    sodium_memzero(json, len);
    free(json);
    if (w != 0 && e != EEXIST) {
        cl_error(c, "cluster: epoch %llu (%s): its puzzle cannot be written: %s: %s: nothing is published until it is; "
                 "free space on the disk of %s (the assembly is tried again at every poll)", (unsigned long long)E, stem,
                 out, strerror(e), c->b.dir);
        return -1;
    }
    util_kill_point("cluster-assembled");
    unlink(pk);   /* the planner key opens the plan's secrets: not kept once the puzzle is written */
    unlink(wk);
    return 0;
}

/* Advance epoch E's key of a kind by one step.  1 when it needs the
 * cluster (in flight: nothing later starts) or waits on a fault said
 * once (a full disk, a scheduler that refuses or does not answer), 0 when
 * done or given up, -1 on a failure that stops the service. */
int cl_step(cl_ctx *c, uint64_t E, int kind) {
    const tl_beacon_sched *s = &c->b.cfg.s;
    char stem[48], dir[PATH_MAX], wk[PATH_MAX], pk[PATH_MAX], puzzle[PATH_MAX], why[PATH_MAX + 256];
    bcn_stem(s, E, kind, stem);
    bcn_file(&c->b, puzzle, "private/puzzles/%s.json", stem);
    if (access(puzzle, F_OK) == 0) {   /* made; a kill after its assembly may have left its keys and record */
        char sp[PATH_MAX];
        state_path(c, stem, sp);
        if (access(sp, F_OK) == 0) {
            cl_forget(c, E, kind, c->k8s);
            bcn_log("cluster: epoch %llu (%s): removed its plan keys and record, left by a run stopped after its "
                    "assembly", (unsigned long long)E, stem);
        }
        return 0;
    }
    bcn_cl_state st;
    if (state_read(c, stem, &st) < 0) {
        cl_error(c, "cluster: %s: unreadable record (%s): remove it to submit the epoch again", stem, strerror(errno));
        return -1;
    }
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
    if (bcn_plan_epoch(&c->b, E, kind, &c->jobs, &made, why, sizeof why) != CLI_OK) {
        if (cl_error(c, "cluster: epoch %llu (%s): not planned: %s; the service goes on releasing and plans it again at "
                     "every poll (a full disk: free space on the disk of %s)", (unsigned long long)E, stem, why, c->b.dir))
            c->sv.failures++;
        return 1;
    }
    uint32_t done = 0, total = 0;
    int groups_done = 0, failed = 0, verifies = c->b.cfg.verify != TL_VERIFY_NONE;
    int prc = plan_progress(dir, wk, &done, &total, &groups_done, &failed, why, sizeof why);
    if (prc == TL_EIO || prc == TL_ENOMEM) {   /* perhaps passing (a shared filesystem): wait */
        cl_error(c, "cluster: %s: the plan's status cannot be read (%s): tried again at every poll (remove %s to have "
                 "the epoch planned again)", dir, why, dir);
        return 1;
    }
    if (prc != 0) {   /* a plan that does not hold together */
        int up = st.attempt >= c->retries + 1;
        if (cl_error(c, "cluster: %s: the plan's status cannot be read (%s): nothing is published, the plan is set aside "
                     "as %s.failed-*%s", dir, why, dir, up ? "" : " and the epoch planned again"))
            c->sv.failures++;
        if (st.jobs[0][0]) cl_forget(c, E, kind, 1);   /* its jobs are of no use now */
        return replan(c, E, stem, &st) ? 0 : 1;
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
        int a = assemble(c, E, stem, dir, pk, wk, &st);
        if (a != 0) return a > 0 && st.gave_up ? 0 : 1;
        double took = st.first_submit ? (double)(tl_beacon_now() - st.first_submit) : 0;
        if (took > 0) {
            char pace[PATH_MAX], text[64];
            c->last_epoch_seconds = took;
            bcn_file(&c->b, pace, "private/cluster/pace");
            int n = snprintf(text, sizeof text, "epoch_seconds=%.0f\n", took);
            if (util_write_file_atomic(pace, text, (size_t)n, 1, 0600) != 0)
                cl_error(c, "cluster: %s: %s (the pace is measured again at the next epoch)", pace, strerror(errno));
        }
        char d[32];
        util_format_duration(d, sizeof d, took);
        bcn_log("cluster: epoch %llu (%s): assembled (%u tasks, %u submission%s, %s on the cluster)",
                (unsigned long long)E, stem, total, st.attempt, st.attempt == 1 ? "" : "s", d);
        if (tl_beacon_release(s, E) <= tl_beacon_now())
            cl_error(c, "warning: epoch %llu was generated after its release time: nobody could encrypt to it",
                     (unsigned long long)E);
        if (c->k8s) cl_forget(c, E, kind, 1);   /* the worker key's Secret and the Jobs go: the epoch is made */
        char sp[PATH_MAX];
        state_path(c, stem, sp);
        unlink(sp);
        if (mine) c->sv.epoch = -1;
        return 0;
    }
    if (st.attempt && !st.jobs[0][0] && st.name[0] && c->k8s) {
        /* killed between recording the attempt and recording the Job: its name is the plan's */
        char job[64];
        int a = bcn_k8s_job_name(dir, job) == 0 ? bcn_k8s_active(c->ns, job, c->cmd_timeout) : -1;
        if (a < 0) {
            cl_error(c, "cluster: epoch %llu (%s): the scheduler did not answer: %s; asked again at every poll (check it: "
                     "kubectl cluster-info; a slow one: a longer --cmd-timeout)", (unsigned long long)E, stem,
                     bcn_sched_error());
            return 1;
        }
        if (a > 0) {
            snprintf(st.jobs[0], 32, "%.31s", job);
            bcn_log("cluster: epoch %llu (%s): found its Job %s after a restart", (unsigned long long)E, stem, job);
            if (state_write(c, stem, &st) != 0) return 1;
        }
    }
    if (st.attempt && !st.jobs[0][0] && st.name[0] && !c->k8s) {
        /* killed between recording the name and recording the jobs, or sbatch
         * did not answer: find them */
        int f = bcn_slurm_find(st.name, c->cmd_timeout, st.jobs);
        if (f < 0) {
            cl_error(c, "cluster: epoch %llu (%s): the scheduler did not answer: %s; asked again at every poll (check it: "
                     "scontrol ping; a slow one: a longer --cmd-timeout)", (unsigned long long)E, stem, bcn_sched_error());
            return 1;
        }
        if (f == 0) {
            bcn_log("cluster: epoch %llu (%s): found its submission %s by name (made before it was recorded: a stop, or "
                    "an sbatch that did not answer)", (unsigned long long)E, stem, st.jobs[0]);
            if (state_write(c, stem, &st) != 0) return 1;
        }
    }
    if (failed && !st.jobs[0][0]) {   /* results that do not hold, and no job of this plan to wait for */
        int up = st.attempt > c->retries;
        if (cl_error(c, "cluster: %s: a result does not authenticate: nothing is published, the plan is set aside as "
                     "%s.failed-*%s", dir, dir, up ? "" : " and made again"))
            c->sv.failures++;
        return replan(c, E, stem, &st) ? 0 : 1;
    }
    int ran = 0;
    if (st.jobs[0][0]) {
        char pending[208];
        int which = 0, a = active(c, dir, &st, groups_done, verifies, pending, sizeof pending, &which);
        if (st.verify_applied) state_write(c, stem, &st);
        if (a < 0) {
            cl_error(c, "cluster: epoch %llu (%s): the scheduler did not answer about its jobs %s%s%s: %s; they are "
                     "followed again at every poll (check it: %s; a slow one: a longer --cmd-timeout)",
                     (unsigned long long)E, stem, st.jobs[0], st.jobs[1][0] ? "," : "", st.jobs[1], bcn_sched_error(),
                     c->k8s ? "kubectl cluster-info" : "scontrol ping");
            return 1;
        }
        if (a > 0) {   /* running or waiting */
            not_started(c, E, stem, &st, pending, which);
            return 1;
        }
        ran = 1;
        if (failed) {
            int up = st.attempt > c->retries;
            if (cl_error(c, "cluster: epoch %llu (%s): its jobs ended with %u of %u tasks done (a result or verified "
                         "segment does not hold): nothing is published, the plan is set aside as %s.failed-*%s",
                         (unsigned long long)E, stem, done, total, dir, up ? "" : " and the epoch planned again"))
                c->sv.failures++;
            return replan(c, E, stem, &st) ? 0 : 1;
        }
        if (st.attempt > c->retries) {
            st.gave_up = 1;
            state_write(c, stem, &st);
            gave_up(c, E, stem, &st);
            return 0;
        }
        if (cl_error(c, "cluster: epoch %llu (%s): its jobs %s%s%s ended, or the scheduler no longer knows them, with %u "
                     "of %u tasks done: submitted again (the done tasks are kept; submission %u of at most %u)",
                     (unsigned long long)E, stem, st.jobs[0], st.jobs[1][0] ? "," : "", st.jobs[1], done, total,
                     st.attempt + 1, c->retries + 1))
            c->sv.failures++;
    }
    submit(c, E, stem, dir, wk, &st, verifies, st.name[0] && !ran);
    return 1;
}

/* An epoch key done with: its jobs cancelled (cancel: a skipped epoch; on
 * Kubernetes also the Secret), its keys and record removed (its plan stays
 * for the logs).  A cancellation that fails is said with the commands that
 * finish it by hand. */
void cl_forget(cl_ctx *c, uint64_t E, int kind, int cancel) {
    char stem[48], dir[PATH_MAX], wk[PATH_MAX], pk[PATH_MAX], sp[PATH_MAX];
    bcn_cl_state st;
    bcn_stem(&c->b.cfg.s, E, kind, stem);
    if (cancel && state_read(c, stem, &st) == 1 && st.jobs[0][0]) {
        if (!c->k8s) {
            if (bcn_slurm_cancel((const char (*)[32])st.jobs, c->cmd_timeout) != 0)
                cl_error(c, "cluster: epoch %llu (%s): its jobs were not cancelled: %s; cancel them by hand: scancel %s %s",
                         (unsigned long long)E, stem, bcn_sched_error(), st.jobs[0], st.jobs[1]);
        } else {
            char vjob[96], secret[96];
            snprintf(vjob, sizeof vjob, "%s-verify", st.jobs[0]);
            snprintf(secret, sizeof secret, "%s-worker", st.jobs[0]);
            int bad = bcn_k8s_delete(c->ns, "job", st.jobs[0], c->cmd_timeout);
            bad |= bcn_k8s_delete(c->ns, "job", vjob, c->cmd_timeout);
            bad |= bcn_k8s_delete(c->ns, "secret", secret, c->cmd_timeout);
            if (bad)
                cl_error(c, "cluster: epoch %llu (%s): its Jobs or its worker key's Secret were not deleted: %s; delete "
                         "them by hand: kubectl%s%s delete job %s %s --ignore-not-found; kubectl%s%s delete secret %s "
                         "--ignore-not-found", (unsigned long long)E, stem, bcn_sched_error(), c->ns ? " -n " : "",
                         c->ns ? c->ns : "", st.jobs[0], vjob, c->ns ? " -n " : "", c->ns ? c->ns : "", secret);
        }
    }
    plan_paths(c, stem, dir, wk, pk);
    unlink(pk);
    unlink(wk);
    state_path(c, stem, sp);
    unlink(sp);
}

