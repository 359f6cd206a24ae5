/* SPDX-License-Identifier: ISC */
/* src/lock/group.c — tl_plan_task: what one cluster task runs.  Opens its
 * groups' job files with the worker key, skips groups whose valid result
 * is already there (idempotent), resumes from a sealed checkpoint, runs the
 * chain, and commits each result atomically (temp file + rename).  Several
 * groups of one task run in forked processes that share the work function
 * (one RandomX dataset per task). */
#include "gen_internal.h"
#include "util/util.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>


/* Read a file of exactly `size` bytes: 0, 1 (absent), -1 (other size / error). */
static int read_exact(const char *path, uint8_t *buf, size_t size) {
    uint8_t *data = NULL;
    size_t len = 0;
    if (util_read_file(path, size + 1, &data, &len) != 0) return errno == ENOENT ? 1 : -1;
    int rc = len == size ? 0 : -1;
    if (rc == 0) memcpy(buf, data, size);
    sodium_memzero(data, len);
    free(data);
    return rc;
}

typedef struct {
    const char *dir;
    const tl_plan_info *pi;
    const tl_task_opts *o;
    int resumed;
    char host[TL_HOST_MAX];
} run_ctx;

/* ---- issue 20: where a group's chain starts, what it records ------------ */
/* The start of group g's chain: d_i at *i (s_g at 0): for a plan that
 * verifies, the last chain value the group recorded (.segs), then a sealed
 * checkpoint past it (inside the next segment).  *resumed = 1 when either
 * was used. */
static int chain_start(const run_ctx *c, uint32_t g, const tl_job *job, const char *cpath, uint64_t *i,
                       uint8_t d[32], int *resumed) {
    const tl_plan_info *pi = c->pi;
    const int vp = TL_PLAN_VERIFIES(pi);
    uint8_t ck[TL_CKPT_SIZE];
    uint64_t seg_i = 0;
    *i = 0;
    *resumed = 0;
    memcpy(d, job->seed, 32);
    if (vp) {
        tl_plan_chain r = { .val = sodium_malloc(((size_t)pi->nseg + 1) * 32) };
        int rr = r.val ? tl_plan_chain_read(c->dir, pi, g, job->rkey, 1, &r) : TL_ENOMEM;
        if (rr == TL_OK && r.have) {
            *i = seg_i = tl_plan_seg_end(pi, r.have);
            memcpy(d, r.val + (size_t)r.have * 32, 32);
            *resumed = 1;
        }
        if (r.val) sodium_free(r.val);
        if (rr) return rr;
    }
    if (read_exact(cpath, ck, sizeof ck) == 0) {
        uint64_t ci;
        uint8_t cd[32];
        if (tl_ckpt_open(&ci, cd, ck, pi->D, g, job->rkey) == TL_OK && ci <= pi->pub.steps && ci > *i &&
            (!vp || ci < seg_i + pi->ckpt_steps)) {
            *i = ci;
            memcpy(d, cd, 32);
            *resumed = 1;
        }
        sodium_memzero(cd, sizeof cd);
    }
    sodium_memzero(ck, sizeof ck);
    return TL_OK;
}

/* A plan that verifies: group g's chain reached step i with value d; at
 * the end of a segment (a multiple of C, or S) it is recorded (sealed,
 * fdatasync'd) before the chain goes on. */
static int chain_record(const run_ctx *c, uint32_t g, const tl_job *job, uint64_t i, const uint8_t d[32]) {
    const tl_plan_info *pi = c->pi;
    char spath[PATH_MAX];
    if (!TL_PLAN_VERIFIES(pi) || (i % pi->ckpt_steps != 0 && i != pi->pub.steps)) return TL_OK;
    if (tl_plan_path(spath, sizeof spath, c->dir, "segs", g)) return TL_EINVAL;
    return tl_seg_file_append(spath, pi->D, g, TL_SEG_CHAIN, i, d, (long)getpid(), c->host, job->rkey);
}

/* One group's chain, from where chain_start says, recording what
 * chain_record says. */
static int run_group(run_ctx *c, tl_work *w, uint32_t g, const tl_job *job, int show) {
    const tl_plan_info *pi = c->pi;
    const tl_task_opts *o = c->o;
    const uint64_t S = pi->pub.steps;
    const uint64_t C = TL_PLAN_VERIFIES(pi) ? pi->ckpt_steps : 0;
    char cpath[PATH_MAX], rpath[PATH_MAX];
    uint8_t d[32], ck[TL_CKPT_SIZE], res[TL_RESULT_SIZE];
    uint64_t i = 0;
    int resumed = 0;
    if (tl_plan_path(cpath, sizeof cpath, c->dir, "ckpt", g) || tl_plan_path(rpath, sizeof rpath, c->dir, "result", g))
        return TL_EINVAL;
    int rc0 = chain_start(c, g, job, cpath, &i, d, &resumed);
    if (rc0) { sodium_memzero(d, sizeof d); return rc0; }
    c->resumed += resumed;
    double every = o->checkpoint_seconds > 0 ? o->checkpoint_seconds : 60;
    double pint = o->progress_interval > 0 ? o->progress_interval : 0.5;
    double t0 = tl_now(), last_ck = t0, last_p = t0;
    uint64_t i_start = i;
    tl_stepper sp;
    tl_stepper_init(&sp, g, 1);
    int rc = TL_OK;
    while (i < S) {
        if ((rc = tl_stepper_run(&sp, w, &i, S, C, d))) break;
        double now = tl_now();
        if ((rc = chain_record(c, g, job, i, d))) break;
        int stop = o->stop && *o->stop;
        if ((now - last_ck >= every || stop) && i < S) {
            tl_ckpt_seal(ck, pi->D, g, i, d, job->rkey);
            if (util_write_file_atomic(cpath, ck, sizeof ck, 1, 0600) != 0) { rc = TL_EIO; break; }
            last_ck = now;
        }
        if (stop) { rc = TL_EINTR; break; }
        if (show && o->progress && now - last_p >= pint) {
            last_p = now;
            tl_progress p = {0};
            p.hashes_total = S;
            p.hashes_done = i;
            p.rate = now > t0 ? (double)(i - i_start) / (now - t0) : 0;
            p.eta_seconds = p.rate > 0 ? (double)(S - i) / p.rate : -1;
            p.groups_total = 1;
            p.group = g;
            p.step = i;
            if (o->progress(&p, o->progress_ctx)) {
                tl_ckpt_seal(ck, pi->D, g, i, d, job->rkey);
                (void)util_write_file_atomic(cpath, ck, sizeof ck, 1, 0600);
                rc = TL_EINTR;
                break;
            }
        }
    }
    if (rc == TL_OK) rc = tl_result_seal(res, pi->D, g, S, d, job->planner_pk, job->rkey);
    if (rc == TL_OK) {
        if (util_write_file_atomic(rpath, res, sizeof res, 1, 0644) != 0) rc = TL_EIO;
        else (void)unlink(cpath);
    }
    sodium_memzero(d, sizeof d);
    sodium_memzero(ck, sizeof ck);
    return rc;
}

/* ---- issue 20: a verification task's group -------------------------------- */
/* Recompute group g's picked segments from its recorded chain values and
 * record each result (kind VERIFIED: the value this task got, equal or
 * not) in the group's .verify file.  TL_EWORKER when one differs. */
static int verify_group(run_ctx *c, tl_work *w, uint32_t g, const tl_job *job, int show) {
    const tl_plan_info *pi = c->pi;
    const tl_task_opts *o = c->o;
    const uint32_t ns = pi->nseg;
    char vpath[PATH_MAX];
    if (tl_plan_path(vpath, sizeof vpath, c->dir, "verify", g)) return TL_EINVAL;
    tl_plan_chain r = { .val = sodium_malloc(((size_t)ns + 1) * 32) };
    uint8_t *done = calloc((size_t)ns + 1, 1), d[32];
    tl_plan_checks vr = { .state = done };
    int rc = r.val && done ? TL_OK : TL_ENOMEM;
    if (rc == TL_OK) {
        memcpy(r.val, job->seed, 32);
        rc = tl_plan_chain_read(c->dir, pi, g, job->rkey, 0, &r);
    }
    if (rc == TL_OK && r.have < ns) rc = TL_EFORMAT;    /* the group task has not finished */
    if (rc == TL_OK) rc = tl_plan_checks_read(c->dir, pi, g, job->rkey, 1, &r, &vr);
    uint64_t total = 0, dn = 0;
    for (uint32_t k = 1; rc == TL_OK && k <= ns; k++)
        if (!done[k] && tl_plan_verify_pick(job->rkey, k, pi->verify_ppm))
            total += tl_plan_seg_end(pi, k) - tl_plan_seg_end(pi, k - 1);
    double pint = o->progress_interval > 0 ? o->progress_interval : 0.5, t0 = tl_now(), last_p = t0;
    uint32_t bad = vr.bad;
    if (bad) c->resumed = (int)vr.first_bad;
    for (uint32_t k = 1; rc == TL_OK && k <= ns; k++) {
        if (done[k] || !tl_plan_verify_pick(job->rkey, k, pi->verify_ppm)) continue;
        uint64_t i = tl_plan_seg_end(pi, k - 1), end = tl_plan_seg_end(pi, k);
        tl_stepper sp;
        tl_stepper_init(&sp, g, 0);
        memcpy(d, r.val + (size_t)(k - 1) * 32, 32);
        while (rc == TL_OK && i < end) {
            uint64_t i0 = i;
            if ((rc = tl_stepper_run(&sp, w, &i, end, 0, d))) break;
            dn += i - i0;
            double now = tl_now();
            if (o->stop && *o->stop) rc = TL_EINTR;
            if (rc == TL_OK && show && o->progress && now - last_p >= pint) {
                last_p = now;
                tl_progress p = {0};
                p.hashes_total = total;
                p.hashes_done = dn;
                p.rate = now > t0 ? (double)dn / (now - t0) : 0;
                p.eta_seconds = p.rate > 0 ? (double)(total - dn) / p.rate : -1;
                p.groups_total = 1;
                p.group = g;
                p.step = i;
                if (o->progress(&p, o->progress_ctx)) rc = TL_EINTR;
            }
        }
        if (rc) break;
        rc = tl_seg_file_append(vpath, pi->D, g, TL_SEG_VERIFIED, end, d, (long)getpid(), c->host, job->rkey);
        if (sodium_memcmp(d, r.val + (size_t)k * 32, 32) != 0 && bad++ == 0) c->resumed = (int)k;  /* the first */
    }
    if (rc == TL_OK && bad) rc = TL_EWORKER;
    sodium_memzero(d, sizeof d);
    if (r.val) sodium_free(r.val);
    free(done);
    return rc;
}

static int run_one(run_ctx *c, tl_work *w, uint32_t g, const tl_job *job, int show) {
    return c->o->verify ? verify_group(c, w, g, job, show) : run_group(c, w, g, job, show);
}

/* What went wrong with group g, in words. */
static void group_err(char *err, size_t errlen, const run_ctx *c, uint32_t g, int r, uint32_t first_bad) {
    const tl_plan_info *pi = c->pi;
    if (r == TL_EINTR)
        tl_set_err(err, errlen, "group %u: interrupted (%s)", g, c->o->verify ? "what was checked is recorded" : "checkpointed");
    else if (c->o->verify && r == TL_EFORMAT)
        tl_set_err(err, errlen, "group %u: its chain is not complete in results/group-%04u.segs: group task %u must "
                   "finish first", g, g, TL_PLAN_TASK_OF(pi, g));
    else if (c->o->verify && r == TL_EWORKER && first_bad)
        tl_set_err(err, errlen, "group %u segment %u (steps %llu..%llu): the recomputation differs from the value "
                   "group task %u recorded; `rxlock assemble` names every such segment and host", g, first_bad,
                   (unsigned long long)tl_plan_seg_end(pi, first_bad - 1), (unsigned long long)tl_plan_seg_end(pi, first_bad),
                   TL_PLAN_TASK_OF(pi, g));
    else if (c->o->verify && r == TL_EWORKER)
        tl_set_err(err, errlen, "group %u: a recomputed segment differs from the value group task %u recorded; "
                   "`rxlock assemble` names every such segment and host", g, TL_PLAN_TASK_OF(pi, g));
    else
        tl_set_err(err, errlen, "group %u: %s", g, tl_strerror(r));
}

int tl_plan_task(const char *dir, uint32_t task, const tl_task_opts *o, tl_task_stats *stats,
                 char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!dir || !o || !o->worker_key) return TL_EINVAL;
    if (o->mode != TL_MODE_DEFAULT && o->mode != TL_MODE_LIGHT && o->mode != TL_MODE_FULL) return TL_EINVAL;
    if (sodium_init() < 0) return TL_ERANDOM;
    tl_plan_info *pi = calloc(1, sizeof *pi);
    if (!pi) return TL_ENOMEM;
    tl_task_stats st = {0};
    tl_job *jobs = NULL;
    uint32_t *pend = NULL;
    tl_work *w = NULL;
    uint8_t wsk[32], wpk[32];
    char path[PATH_MAX];
    int rc = tl_plan_info_load(dir, pi, err, errlen);
    if (rc) goto out;
    const uint32_t G = pi->pub.groups;
    const uint64_t S = pi->pub.steps;
    if (task >= pi->tasks) {
        tl_set_err(err, errlen, "task index %u out of range (this plan has tasks 0..%u)", task, pi->tasks - 1);
        rc = TL_EINVAL;
        goto out;
    }
    if ((rc = tl_plan_key_load_for(o->worker_key, "worker", pi->worker_pk, wsk, wpk, err, errlen))) goto out;
    if (o->verify && !TL_PLAN_VERIFIES(pi)) {
        tl_set_err(err, errlen, "this plan has no verification tasks (it was made with --no-verify)");
        rc = TL_EINVAL;
        goto out;
    }
    /* verification task v checks the groups of group task (v + 1) mod T */
    uint32_t gt = o->verify ? (task + 1) % pi->tasks : task;
    st.first = gt * pi->batch + 1;
    st.last = st.first + pi->batch - 1 < G ? st.first + pi->batch - 1 : G;
    uint32_t n = st.last - st.first + 1, np = 0;
    jobs = sodium_malloc(n * sizeof *jobs);
    pend = calloc(n, sizeof *pend);
    if (!jobs || !pend) { rc = TL_ENOMEM; goto out; }
    for (uint32_t g = st.first; g <= st.last; g++) {
        uint8_t jf[TL_JOB_SIZE], res[TL_RESULT_SIZE];
        tl_job *j = &jobs[np];
        if (tl_plan_path(path, sizeof path, dir, "job", g) || read_exact(path, jf, sizeof jf) != 0) {
            tl_set_err(err, errlen, "group %u: %s: missing or not a job file", g, path);
            rc = TL_EFORMAT;
            goto out;
        }
        rc = tl_job_open(j, jf, pi->D, g, wsk);
        if (rc == TL_OK && (j->work != pi->pub.work || j->groups != G || j->steps != S ||
                            memcmp(j->id, pi->pub.id, 16) || memcmp(j->key, pi->pub.key, 32) ||
                            memcmp(j->planner_pk, pi->planner_pk, 32)))
            rc = TL_EFORMAT;
        if (rc) {
            tl_set_err(err, errlen, "group %u: %s does not open with this plan's worker key (%s)", g, path,
                    rc == TL_EAUTH ? "tampered or another plan's" : "another plan's or another group's");
            goto out;
        }
        if (!o->verify && tl_plan_path(path, sizeof path, dir, "result", g) == 0 && read_exact(path, res, sizeof res) == 0 &&
            tl_result_check(res, pi->D, g, S, j->rkey, NULL) == TL_OK) {
            st.present++;
            continue;
        }
        pend[np++] = g;
    }
    if (np == 0) goto out;
    tl_mode mode = o->mode == TL_MODE_DEFAULT ? pi->mode : o->mode;
    if ((rc = tl_work_new(&w, pi->pub.work, pi->pub.key, mode))) {
        tl_set_err(err, errlen, "cannot set up the %s work function (%s mode): %s", tl_work_name(pi->pub.work),
                mode == TL_MODE_FULL ? "full" : "light", tl_strerror(rc));
        goto out;
    }
    run_ctx c = { .dir = dir, .pi = pi, .o = o };
    if (gethostname(c.host, sizeof c.host - 1) != 0) strcpy(c.host, "localhost");
    c.host[TL_HOST_MAX - 1] = 0;
    if (np == 1) {
        rc = run_one(&c, w, pend[0], &jobs[0], 1);
        if (rc) group_err(err, errlen, &c, pend[0], rc, o->verify ? (uint32_t)c.resumed : 0);
        else { st.computed = 1; st.resumed = o->verify ? 0 : (uint32_t)c.resumed; }
        goto out;
    }
    /* Several groups: one process each, sharing the work function. */
    pid_t *pids = calloc(np, sizeof *pids);
    if (!pids) { rc = TL_ENOMEM; goto out; }
    fflush(NULL);
    for (uint32_t k = 0; k < np; k++) {
        pid_t pid = fork();
        if (pid < 0) { rc = TL_EWORKER; break; }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            for (uint32_t m = 0; m < np; m++) if (m != k) sodium_memzero(&jobs[m], sizeof jobs[m]);
            sodium_memzero(wsk, sizeof wsk);
            int r = run_one(&c, w, pend[k], &jobs[k], 0);
            sodium_memzero(&jobs[k], sizeof jobs[k]);
            tl_work_free_vm(w);
            /* exit status = -code: every error code (-1..-214, docs/DESIGN.md) fits in 1..254 */
            _exit(r == TL_OK ? 0 : r < 0 && r > -255 ? -r : 255);
        }
        pids[k] = pid;
    }
    int forwarded = 0;
    for (uint32_t k = 0; k < np; k++) {
        int status = 0;
        while (pids[k] > 0 && waitpid(pids[k], &status, 0) < 0) {
            if (errno != EINTR) { status = -1; break; }
            if (o->stop && *o->stop && !forwarded) {
                for (uint32_t m = 0; m < np; m++) if (pids[m] > 0) kill(pids[m], SIGTERM);
                forwarded = 1;
            }
        }
        if (pids[k] <= 0) continue;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) { st.computed++; continue; }
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
        int r = code > 0 && code < 255 ? -code : TL_EWORKER;
        if (rc == TL_OK || rc == TL_EINTR) {
            rc = r;
            if (WIFSIGNALED(status))
                tl_set_err(err, errlen, "group %u: its process died (signal %d)", pend[k], WTERMSIG(status));
            else
                group_err(err, errlen, &c, pend[k], r, 0);
        }
    }
    if (rc == TL_OK && o->stop && *o->stop) rc = TL_EINTR;
    free(pids);
out:
    if (w) tl_work_free(w);
    if (jobs) sodium_free(jobs);
    free(pend);
    sodium_memzero(wsk, sizeof wsk);
    if (pi) { sodium_memzero(pi, sizeof *pi); free(pi); }
    if (stats) *stats = st;
    return rc;
}
