/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/group.c — tl_plan_task: what one cluster task runs.  Opens its
 * groups' job files with the worker key, skips groups whose valid result
 * is already there (idempotent), resumes from a sealed checkpoint, runs the
 * chain, and commits each result atomically (temp file + rename).  Several
 * groups of one task run in bundles (up to tl_pool_bundle groups
 * whose SHA3 chains advance together in SIMD lanes; RandomX and the
 * verification task: one group per bundle), one forked process per bundle
 * when there are several, sharing the work function (one RandomX dataset
 * per task). */
#include "cluster_internal.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
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
    if (util_read_at(AT_FDCWD, path, size + 1, &data, &len) != 0) return errno == ENOENT ? 1 : -1;
    int rc = len == size ? 0 : -1;
    if (rc == 0) memcpy(buf, data, size);
    sodium_memzero(data, len);
    free(data);
    return rc;
}

/* A verifying plan's group is done only while its segment records are
 * all there (the verification and assemble need them): 1, or 0 when they
 * are lost or cut (the group task computes the chain again). */
static int chain_recorded(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t rkey[32]) {
    if (!TL_PLAN_VERIFIES(pi)) return 1;
    tl_plan_chain r = { .val = sodium_malloc(((size_t)pi->nseg + 1) * 32) };
    int ok = r.val && tl_plan_chain_read(dir, pi, g, rkey, 0, &r) == TL_OK && r.have == pi->nseg;
    if (r.val) sodium_free(r.val);
    return ok;
}

typedef struct {
    const char *dir;
    const tl_plan_info *pi;
    const tl_task_opts *o;
    int resumed;
    char host[TL_HOST_MAX];
} run_ctx;

/* ---- where a group's chain starts, what it records ------------ */
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
    return tl_seg_file_append(AT_FDCWD, spath, pi->D, g, TL_SEG_CHAIN, i, d, (long)getpid(), c->host, job->rkey);
}

/* ---- a bundle of groups' chains in one process ----------------- */
/* A chain's checkpoint and result file names (not secret: plain memory). */
typedef struct { char ckpt[PATH_MAX], result[PATH_MAX]; } lane_paths;

/* A bundle's state (sodium_malloc: chain values and sealed buffers). */
typedef struct {
    unsigned n;
    uint32_t g[TL_BUNDLE_MAX];
    const tl_job *job[TL_BUNDLE_MAX];
    tl_stepper sp[TL_BUNDLE_MAX];
    uint64_t i[TL_BUNDLE_MAX];
    uint8_t d[TL_BUNDLE_MAX][32];
    uint8_t buf[TL_RESULT_SIZE > TL_CKPT_SIZE ? TL_RESULT_SIZE : TL_CKPT_SIZE];
    lane_paths *path;          /* n, calloc */
} bundle;

/* Chain k's sealed checkpoint at its step i (< S). */
static int lane_ckpt(const run_ctx *c, bundle *b, unsigned k) {
    const tl_plan_info *pi = c->pi;
    tl_ckpt_seal(b->buf, pi->D, b->g[k], b->i[k], b->d[k], b->job[k]->rkey);
    int rc = util_write_file_atomic(b->path[k].ckpt, b->buf, TL_CKPT_SIZE, 1, 0600) != 0 ? TL_EIO : TL_OK;
    sodium_memzero(b->buf, sizeof b->buf);
    return rc;
}

/* Chain k reached S: its result committed (temp file + rename), its
 * checkpoint removed. */
static int lane_result(const run_ctx *c, bundle *b, unsigned k) {
    const tl_plan_info *pi = c->pi;
    int rc = tl_result_seal(b->buf, pi->D, b->g[k], pi->pub.steps, b->d[k], b->job[k]->planner_pk, b->job[k]->rkey);
    if (rc == TL_OK) {
        if (util_write_file_atomic(b->path[k].result, b->buf, TL_RESULT_SIZE, 1, 0644) != 0) rc = TL_EIO;
        else (void)unlink(b->path[k].ckpt);
    }
    sodium_memzero(b->buf, sizeof b->buf);
    return rc;
}

/* Each chain of the bundle from where chain_start says; one already at S
 * (every segment recorded) has its result committed at once. */
static int bundle_open(run_ctx *c, bundle *b, const uint32_t *gs, const tl_job *jobs, unsigned n) {
    b->n = n;
    for (unsigned k = 0; k < n; k++) {
        int resumed = 0, rc;
        b->g[k] = gs[k];
        b->job[k] = &jobs[k];
        if (tl_plan_path(b->path[k].ckpt, sizeof b->path[k].ckpt, c->dir, "ckpt", gs[k]) ||
            tl_plan_path(b->path[k].result, sizeof b->path[k].result, c->dir, "result", gs[k]))
            return TL_EINVAL;
        if ((rc = chain_start(c, gs[k], &jobs[k], b->path[k].ckpt, &b->i[k], b->d[k], &resumed))) return rc;
        c->resumed += resumed;
        tl_stepper_init(&b->sp[k], gs[k], 1);
        if (b->i[k] >= c->pi->pub.steps && (rc = lane_result(c, b, k))) return rc;
    }
    return TL_OK;
}

/* After a batch: each chain that moved (it was at i0[k] < S) records its
 * value where chain_record says, and its result when it reached S. */
static int bundle_after(run_ctx *c, bundle *b, const uint64_t *i0) {
    const uint64_t S = c->pi->pub.steps;
    int rc = TL_OK;
    for (unsigned k = 0; k < b->n && rc == TL_OK; k++) {
        if (i0[k] >= S) continue;
        rc = chain_record(c, b->g[k], b->job[k], b->i[k], b->d[k]);
        if (rc == TL_OK && b->i[k] == S) rc = lane_result(c, b, k);
    }
    return rc;
}

/* The unfinished chains' checkpoints. */
static int bundle_ckpt(const run_ctx *c, bundle *b) {
    int rc = TL_OK;
    for (unsigned k = 0; k < b->n && rc == TL_OK; k++)
        if (b->i[k] < c->pi->pub.steps) rc = lane_ckpt(c, b, k);
    return rc;
}

/* Report the bundle's progress (a bundle of one: that group's chain); 1 =
 * the caller asked to stop. */
static int bundle_progress(const run_ctx *c, const bundle *b, double t0, uint64_t done0, double now) {
    const uint64_t S = c->pi->pub.steps;
    uint64_t done = 0;
    unsigned slow = 0;
    for (unsigned k = 0; k < b->n; k++) {
        done += b->i[k];
        if (b->i[k] < b->i[slow]) slow = k;
    }
    tl_progress p = {0};
    p.hashes_total = (uint64_t)b->n * S;
    p.hashes_done = done;
    p.rate = now > t0 ? (double)(done - done0) / (now - t0) : 0;
    p.eta_seconds = p.rate > 0 ? (double)(p.hashes_total - done) / p.rate : -1;
    p.groups_total = b->n;
    p.group = b->g[slow];
    p.step = b->i[slow];
    return c->o->progress(&p, c->o->progress_ctx) != 0;
}

/* A bundle of n groups' chains in this process (SHA3 chains
 * advance together in SIMD lanes, tl_stepper_run_multi; RandomX bundles
 * hold one group): each from where chain_start says, each batch stopping
 * at every running chain's next record boundary so chain_record sees each
 * chain's segment ends, each result committed when its chain reaches S,
 * the unfinished chains checkpointed every checkpoint_seconds and on a
 * stop.  The checkpoint, .segs and result files are a lone chain's, byte
 * for byte (the same chain values at the same steps). */
static int run_bundle(run_ctx *c, tl_work *w, const uint32_t *gs, const tl_job *jobs, unsigned n, int show) {
    const tl_task_opts *o = c->o;
    const uint64_t S = c->pi->pub.steps, C = TL_PLAN_VERIFIES(c->pi) ? c->pi->ckpt_steps : 0;
    if (n < 1 || n > TL_BUNDLE_MAX) return TL_EINVAL;
    bundle *b = sodium_malloc(sizeof *b);
    lane_paths *path = calloc(n, sizeof *path);
    if (!b || !path) {
        if (b) sodium_free(b);
        free(path);
        return TL_ENOMEM;
    }
    memset(b, 0, sizeof *b);
    b->path = path;
    int rc = bundle_open(c, b, gs, jobs, n);
    double every = o->checkpoint_seconds > 0 ? o->checkpoint_seconds : 60;
    double pint = o->progress_interval > 0 ? o->progress_interval : 0.5;
    double t0 = util_now(), last_ck = t0, last_p = t0;
    uint64_t i0[TL_BUNDLE_MAX], end[TL_BUNDLE_MAX], rec[TL_BUNDLE_MAX], done0 = 0, left = 0;
    for (unsigned k = 0; k < n; k++) { done0 += b->i[k]; left += b->i[k] < S; end[k] = S; rec[k] = C; }
    while (rc == TL_OK && left) {
        memcpy(i0, b->i, sizeof i0);
        if ((rc = tl_stepper_run_multi(b->sp, n, w, b->i, end, rec, b->d))) break;
        double now = util_now();
        if ((rc = bundle_after(c, b, i0))) break;
        left = 0;
        for (unsigned k = 0; k < n; k++) left += b->i[k] < S;
        int stop = o->stop && *o->stop;
        if ((now - last_ck >= every || stop) && left) {
            if ((rc = bundle_ckpt(c, b))) break;
            last_ck = now;
        }
        if (stop) { rc = TL_EINTR; break; }
        if (show && o->progress && now - last_p >= pint) {
            last_p = now;
            if (bundle_progress(c, b, t0, done0, now)) {
                (void)bundle_ckpt(c, b);
                rc = TL_EINTR;
            }
        }
    }
    sodium_free(b);
    free(path);
    return rc;
}

/* ---- a verification task's group -------------------------------- */
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
    double pint = o->progress_interval > 0 ? o->progress_interval : 0.5, t0 = util_now(), last_p = t0;
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
            double now = util_now();
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
        rc = tl_seg_file_append(AT_FDCWD, vpath, pi->D, g, TL_SEG_VERIFIED, end, d, (long)getpid(), c->host, job->rkey);
        if (sodium_memcmp(d, r.val + (size_t)k * 32, 32) != 0 && bad++ == 0) c->resumed = (int)k;  /* the first */
    }
    if (rc == TL_OK && bad) rc = TL_EWORKER;
    sodium_memzero(d, sizeof d);
    if (r.val) sodium_free(r.val);
    free(done);
    return rc;
}

/* What one process runs: a verification task's group (bundles of one) or
 * a group task's bundle of n groups. */
static int run_one(run_ctx *c, tl_work *w, const uint32_t *gs, const tl_job *jobs, unsigned n, int show) {
    return c->o->verify ? verify_group(c, w, gs[0], jobs, show) : run_bundle(c, w, gs, jobs, n, show);
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

/* What went wrong with a bundle of n groups (one: group_err), in words;
 * sig: the signal its process died of (0 = none). */
static void bundle_err(char *err, size_t errlen, const run_ctx *c, const uint32_t *gs, unsigned n, int r,
                       uint32_t first_bad, int sig) {
    char who[TL_BUNDLE_MAX * 12 + 8];
    size_t at = (size_t)snprintf(who, sizeof who, "group%s", n > 1 ? "s" : "");
    for (unsigned k = 0; k < n && at < sizeof who; k++)
        at += (size_t)snprintf(who + at, sizeof who - at, "%s %u", k ? "," : "", gs[k]);
    if (sig)
        tl_set_err(err, errlen, "%s: %s process died (signal %d)", who, n > 1 ? "their" : "its", sig);
    else if (n == 1)
        group_err(err, errlen, c, gs[0], r, first_bad);
    else
        tl_set_err(err, errlen, "%s: %s", who, r == TL_EINTR ? "interrupted (checkpointed)" : tl_strerror(r));
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
            tl_result_check(res, pi->D, g, S, j->rkey, NULL) == TL_OK && chain_recorded(dir, pi, g, j->rkey)) {
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
    /* bundles of B groups (SHA3 lanes, tl_pool_bundle; RandomX and
     * verification: 1), one process per bundle when there are several */
    const uint32_t B = o->verify ? 1 : tl_pool_bundle(pi->pub.work, np, util_cpus_usable());
    const uint32_t nb = (np + B - 1) / B;
    if (nb == 1) {
        rc = run_one(&c, w, pend, jobs, np, 1);
        if (rc) bundle_err(err, errlen, &c, pend, np, rc, o->verify ? (uint32_t)c.resumed : 0, 0);
        else { st.computed = np; st.resumed = o->verify ? 0 : (uint32_t)c.resumed; }
        goto out;
    }
    /* Several bundles: one process each, sharing the work function. */
    pid_t *pids = calloc(nb, sizeof *pids);
    if (!pids) { rc = TL_ENOMEM; goto out; }
    fflush(NULL);
    for (uint32_t k = 0; k < nb; k++) {
        uint32_t b0 = k * B, bn = np - b0 < B ? np - b0 : B;
        pid_t pid = fork();
        if (pid < 0) { rc = TL_EWORKER; break; }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            for (uint32_t m = 0; m < np; m++) if (m < b0 || m >= b0 + bn) sodium_memzero(&jobs[m], sizeof jobs[m]);
            sodium_memzero(wsk, sizeof wsk);
            int r = run_one(&c, w, pend + b0, jobs + b0, bn, 0);
            sodium_memzero(jobs + b0, bn * sizeof *jobs);
            tl_work_free_vm(w);
            /* exit status = -code for the engine, time-lock and age ranges
             * (-1..-299 of include/rxlock/error.h; those a task raises fit in
             * 1..254); anything else, a post-quantum code included, reads as
             * 255: a worker failure (TL_EWORKER) */
            _exit(r == TL_OK ? 0 : r < 0 && r > -255 ? -r : 255);
        }
        pids[k] = pid;
    }
    int forwarded = 0;
    for (uint32_t k = 0; k < nb; k++) {
        uint32_t b0 = k * B, bn = np - b0 < B ? np - b0 : B;
        int status = 0;
        while (pids[k] > 0 && waitpid(pids[k], &status, 0) < 0) {
            if (errno != EINTR) { status = -1; break; }
            if (o->stop && *o->stop && !forwarded) {
                for (uint32_t m = 0; m < nb; m++) if (pids[m] > 0) kill(pids[m], SIGTERM);
                forwarded = 1;
            }
        }
        if (pids[k] <= 0) continue;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) { st.computed += bn; continue; }
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
        int r = code > 0 && code < 255 ? -code : TL_EWORKER;
        if (rc == TL_OK || rc == TL_EINTR) {
            rc = r;
            bundle_err(err, errlen, &c, pend + b0, bn, r, 0, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
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
