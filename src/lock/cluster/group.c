/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/group.c — tl_plan_task: what one cluster task runs.  Opens its
 * groups' job files with the worker key, skips groups whose valid result
 * is already there (idempotent), resumes each chain from its last record
 * or sealed checkpoint, and runs the chains on the generation worker pool
 * (gen/worker.c, the one process pool: SHA3 chains in SIMD-lane bundles,
 * one worker per bundle, sharing the work function: one RandomX dataset
 * per task).  The workers only compute; this process keeps the job keys
 * and writes every record: the .segs values at segment ends, a sealed
 * checkpoint every checkpoint_seconds and when stopped (the pool asks its
 * workers where they are), and each result atomically (temp file +
 * rename).  The verification task runs each picked segment as a pool task
 * and records what it got in .verify. */
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

/* A group of the task, as its chain (or its verification) runs on the
 * worker pool (gen/worker.c): the pool's workers compute, this process
 * keeps the job's keys and writes every record. */
enum { G_QUEUED = 0, G_RUNNING, G_DONE };
typedef struct {
    uint32_t g;
    const tl_job *job;
    int state;                 /* G_*: the chain's                        */
    unsigned attempt;          /* failed worker runs so far               */
    uint64_t i, base;          /* the last value's step; the running task's start */
    uint8_t *d;                /* the value at i (32 bytes; secure arena) */
    uint8_t *rec;              /* verification: the recorded values, (nseg + 1) x 32 */
    uint8_t *seg;              /* verification: nseg + 1, 1 = picked and to do, 0 = none or done */
    uint32_t todo, bad, first_bad;
    char ckpt[PATH_MAX], result[PATH_MAX], verify[PATH_MAX];
} grp;

typedef struct {
    const char *dir;
    const tl_plan_info *pi;
    const tl_task_opts *o;
    grp *gr;
    uint32_t n;                /* groups this run computes (or checks)    */
    uint64_t left;             /* chains (segments) not finished          */
    uint64_t vdone, vtotal;    /* verification steps                      */
    uint32_t resumed, computed;
    uint32_t err_g;            /* the group a failure is about (0 = none) */
    int lost;                  /* the failure: a worker failed twice      */
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

/* A plan that verifies: group g's chain reached step i with value d (the
 * worker `pid` computed it); at the end of a segment (a multiple of C, or
 * S) it is recorded (sealed, fdatasync'd). */
static int chain_record(const run_ctx *c, const grp *q, uint64_t i, const uint8_t d[32], long pid) {
    const tl_plan_info *pi = c->pi;
    char spath[PATH_MAX];
    if (!TL_PLAN_VERIFIES(pi) || (i % pi->ckpt_steps != 0 && i != pi->pub.steps)) return TL_OK;
    if (tl_plan_path(spath, sizeof spath, c->dir, "segs", q->g)) return TL_EINVAL;
    return tl_seg_file_append(AT_FDCWD, spath, pi->D, q->g, TL_SEG_CHAIN, i, d, pid, c->host, q->job->rkey);
}

/* The chain's sealed checkpoint at its step q->i (< S). */
static int chain_ckpt(const run_ctx *c, const grp *q) {
    uint8_t buf[TL_CKPT_SIZE];
    tl_ckpt_seal(buf, c->pi->D, q->g, q->i, q->d, q->job->rkey);
    int rc = util_write_file_atomic(q->ckpt, buf, TL_CKPT_SIZE, 1, 0600) != 0 ? TL_EIO : TL_OK;
    sodium_memzero(buf, sizeof buf);
    return rc;
}

/* The chain reached S: its result committed (temp file + rename), its
 * checkpoint removed. */
static int chain_result(run_ctx *c, grp *q) {
    const tl_plan_info *pi = c->pi;
    uint8_t buf[TL_RESULT_SIZE];
    int rc = tl_result_seal(buf, pi->D, q->g, pi->pub.steps, q->d, q->job->planner_pk, q->job->rkey);
    if (rc == TL_OK) {
        if (util_write_file_atomic(q->result, buf, TL_RESULT_SIZE, 1, 0644) != 0) rc = TL_EIO;
        else (void)unlink(q->ckpt);
    }
    sodium_memzero(buf, sizeof buf);
    if (rc == TL_OK) { q->state = G_DONE; c->left--; c->computed++; }
    return rc;
}

/* ---- the pool's callbacks: a group task ------------------------ */
/* One task per unfinished chain, from its last value to S, reporting at
 * every segment end (the .segs records) and every checkpoint_seconds (the
 * sealed checkpoint); a chain whose worker failed runs once more from
 * its last value. */
static int chain_next(void *ctx, tl_task *t) {
    run_ctx *c = ctx;
    for (uint32_t k = 0; k < c->n; k++) {
        grp *q = &c->gr[k];
        if (q->state != G_QUEUED) continue;
        memset(t, 0, sizeof *t);
        t->g = q->g;
        t->i0 = q->base = q->i;
        t->i1 = c->pi->pub.steps;
        memcpy(t->d0, q->d, 32);
        t->every = TL_PLAN_VERIFIES(c->pi) ? c->pi->ckpt_steps : 0;
        t->chain = 1;
        t->attempt = q->attempt;
        t->tag = k;
        q->state = G_RUNNING;
        return 1;
    }
    return 0;
}

static int chain_value(void *ctx, const tl_task *t, uint64_t i, const uint8_t d[32], long pid) {
    run_ctx *c = ctx;
    grp *q = &c->gr[t->tag];
    q->i = i;
    memcpy(q->d, d, 32);
    int rc = chain_record(c, q, i, d, pid);
    if (rc == TL_OK && i == c->pi->pub.steps) rc = chain_result(c, q);
    if (rc) c->err_g = q->g;
    return rc;
}

static int chain_ckpt_cb(void *ctx, const tl_task *t, uint64_t i, const uint8_t d[32]) {
    run_ctx *c = ctx;
    grp *q = &c->gr[t->tag];
    q->i = i;
    memcpy(q->d, d, 32);
    int rc = chain_ckpt(c, q);
    if (rc) c->err_g = q->g;
    return rc;
}

/* ---- the pool's callbacks: a verification task ----------------- */
/* One task per picked segment not yet checked, from the value the group
 * task recorded at its start; each result (kind VERIFIED: the value this
 * task got, equal or not) recorded in the group's .verify file. */
static int verify_next(void *ctx, tl_task *t) {
    run_ctx *c = ctx;
    for (uint32_t k = 0; k < c->n; k++) {
        grp *q = &c->gr[k];
        for (uint32_t s = 1; q->todo && s <= c->pi->nseg; s++) {
            if (q->seg[s] != 1) continue;
            memset(t, 0, sizeof *t);
            t->g = q->g;
            t->i0 = tl_plan_seg_end(c->pi, s - 1);
            t->i1 = tl_plan_seg_end(c->pi, s);
            memcpy(t->d0, q->rec + (size_t)(s - 1) * 32, 32);
            t->attempt = q->attempt;
            t->tag = (uint64_t)k << 32 | s;
            q->seg[s] = 2;
            return 1;
        }
    }
    return 0;
}

static int verify_value(void *ctx, const tl_task *t, uint64_t i, const uint8_t d[32], long pid) {
    run_ctx *c = ctx;
    grp *q = &c->gr[t->tag >> 32];
    uint32_t s = (uint32_t)t->tag;
    int rc = tl_seg_file_append(AT_FDCWD, q->verify, c->pi->D, q->g, TL_SEG_VERIFIED, i, d, pid, c->host, q->job->rkey);
    if (rc) { c->err_g = q->g; return rc; }
    if (sodium_memcmp(d, q->rec + (size_t)s * 32, 32) != 0) {
        if (!q->bad++ || s < q->first_bad) q->first_bad = s;
    }
    q->seg[s] = 0;
    q->todo--;
    c->left--;
    c->vdone += t->i1 - t->i0;
    return TL_OK;
}

/* ---- the pool's callbacks: both --------------------------------- */
/* A worker crashed, hung or sent a bad message: its task runs once more
 * (from the chain's last value), a second failure ends the task. */
static int task_lost(void *ctx, const tl_task *t) {
    run_ctx *c = ctx;
    grp *q = &c->gr[c->o->verify ? t->tag >> 32 : t->tag];
    if (++q->attempt > 1) {
        c->err_g = q->g;
        c->lost = 1;
        return TL_EWORKER;
    }
    if (c->o->verify) q->seg[(uint32_t)t->tag] = 1;
    else q->state = G_QUEUED;
    return TL_OK;
}

static int task_done(void *ctx) { return ((run_ctx *)ctx)->left == 0; }

static void task_totals(void *ctx, uint64_t *done, uint64_t *total, uint32_t *gdone, uint32_t *gtotal) {
    const run_ctx *c = ctx;
    const uint64_t S = c->pi->pub.steps;
    *done = c->vdone;
    *total = c->vtotal;
    *gdone = 0;
    *gtotal = c->n;
    for (uint32_t k = 0; k < c->n; k++) {
        const grp *q = &c->gr[k];
        if (c->o->verify) { *gdone += q->todo == 0; continue; }
        *done += q->state == G_DONE ? S : q->state == G_RUNNING ? q->base : q->i;
        *total += S;
        *gdone += q->state == G_DONE;
    }
}

/* ---- setting the groups up ------------------------------------------ */
/* Group task: each chain from where chain_start says; one already at S
 * (every segment recorded) has its result committed at once. */
static int chain_setup(run_ctx *c, grp *q) {
    int resumed = 0, rc = chain_start(c, q->g, q->job, q->ckpt, &q->i, q->d, &resumed);
    if (rc) return rc;
    c->resumed += (uint32_t)resumed;
    c->left++;
    return q->i >= c->pi->pub.steps ? chain_result(c, q) : TL_OK;
}

/* Verification task: the group's recorded chain (complete, or TL_EFORMAT:
 * the group task has not finished), what is already checked (.verify),
 * and the picked segments left. */
static int verify_setup(run_ctx *c, grp *q) {
    const tl_plan_info *pi = c->pi;
    tl_plan_chain r = { .val = q->rec };
    tl_plan_checks vr = { .state = q->seg };
    memcpy(q->rec, q->job->seed, 32);
    int rc = tl_plan_chain_read(c->dir, pi, q->g, q->job->rkey, 0, &r);
    if (rc == TL_OK && r.have < pi->nseg) rc = TL_EFORMAT;
    if (rc == TL_OK) rc = tl_plan_checks_read(c->dir, pi, q->g, q->job->rkey, 1, &r, &vr);
    if (rc) return rc;
    q->bad = vr.bad;
    q->first_bad = vr.first_bad;
    for (uint32_t s = 1; s <= pi->nseg; s++) {
        q->seg[s] = !q->seg[s] && tl_plan_verify_pick(q->job->rkey, s, pi->verify_ppm);
        if (!q->seg[s]) continue;
        q->todo++;
        c->vtotal += tl_plan_seg_end(pi, s) - tl_plan_seg_end(pi, s - 1);
    }
    c->left += q->todo;
    return TL_OK;
}

/* What went wrong with group g, in words. */
static void group_err(char *err, size_t errlen, const run_ctx *c, uint32_t g, int r, uint32_t first_bad) {
    const tl_plan_info *pi = c->pi;
    if (c->lost)
        tl_set_err(err, errlen, "group %u: its worker process failed twice (it crashed, hung or sent a bad message); "
                   "%s: run the task again", g, c->o->verify ? "what was checked is recorded" : "its chain is checkpointed");
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

/* A stopped task: "group G" or "groups G1, G2, ...": the ones not finished. */
static void stopped_err(char *err, size_t errlen, const run_ctx *c) {
    char who[512];
    unsigned m = 0;
    size_t at = 0;
    who[0] = 0;
    for (uint32_t k = 0; k < c->n && at < sizeof who; k++) {
        const grp *q = &c->gr[k];
        if (c->o->verify ? q->todo == 0 : q->state == G_DONE) continue;
        at += (size_t)snprintf(who + at, sizeof who - at, "%s %u", m++ ? "," : "", q->g);
    }
    tl_set_err(err, errlen, "group%s%s: interrupted (%s)", m > 1 ? "s" : "", who,
               c->o->verify ? "what was checked is recorded" : "checkpointed");
}

/* Open groups st->first..st->last's job files with the worker key: the
 * groups to compute (pend[0..*np-1], their jobs in jobs[]), the rest
 * counted as present (a valid result and, for a verified plan, every
 * segment record: a group task skips them). */
static int open_jobs(const char *dir, const tl_plan_info *pi, const tl_task_opts *o, const uint8_t wsk[32],
                     tl_task_stats *st, tl_job *jobs, uint32_t *pend, uint32_t *np, char *err, size_t errlen) {
    const uint32_t G = pi->pub.groups;
    const uint64_t S = pi->pub.steps;
    char path[PATH_MAX];
    *np = 0;
    for (uint32_t g = st->first; g <= st->last; g++) {
        uint8_t jf[TL_JOB_SIZE], res[TL_RESULT_SIZE];
        tl_job *j = &jobs[*np];
        if (tl_plan_path(path, sizeof path, dir, "job", g) || read_exact(path, jf, sizeof jf) != 0) {
            tl_set_err(err, errlen, "group %u: %s: missing or not a job file", g, path);
            return TL_EFORMAT;
        }
        int rc = tl_job_open(j, jf, pi->D, g, wsk);
        if (rc == TL_OK && (j->work != pi->pub.work || j->groups != G || j->steps != S ||
                            memcmp(j->id, pi->pub.id, 16) || memcmp(j->key, pi->pub.key, 32) ||
                            memcmp(j->planner_pk, pi->planner_pk, 32)))
            rc = TL_EFORMAT;
        if (rc) {
            tl_set_err(err, errlen, "group %u: %s does not open with this plan's worker key (%s)", g, path,
                    rc == TL_EAUTH ? "tampered or another plan's" : "another plan's or another group's");
            return rc;
        }
        if (!o->verify && tl_plan_path(path, sizeof path, dir, "result", g) == 0 && read_exact(path, res, sizeof res) == 0 &&
            tl_result_check(res, pi->D, g, S, j->rkey, NULL) == TL_OK && chain_recorded(dir, pi, g, j->rkey)) {
            st->present++;
            continue;
        }
        pend[(*np)++] = g;
    }
    return TL_OK;
}

/* Compute (or check) the np groups pend[] with their jobs[] on the worker
 * pool, the work function w shared by the workers. */
static int run_groups(run_ctx *c, tl_work *w, tl_job *jobs, const uint32_t *pend, uint32_t np, tl_task_stats *st,
                      char *err, size_t errlen) {
    const tl_plan_info *pi = c->pi;
    const tl_task_opts *o = c->o;
    /* the groups' state: values in one secure arena (a chain's value, or a
     * verification's recorded chain), file names and flags in plain memory */
    const size_t per = o->verify ? ((size_t)pi->nseg + 1) * 32 : 32;
    uint8_t *arena = sodium_malloc(np * per), *segs = o->verify ? calloc(np, (size_t)pi->nseg + 1) : NULL;
    int rc = TL_OK;
    c->gr = calloc(np, sizeof *c->gr);
    if (!c->gr || !arena || (o->verify && !segs)) { rc = TL_ENOMEM; goto out; }
    c->n = np;
    if (gethostname(c->host, sizeof c->host - 1) != 0) strcpy(c->host, "localhost");
    c->host[TL_HOST_MAX - 1] = 0;
    for (uint32_t k = 0; k < np && rc == TL_OK; k++) {
        grp *q = &c->gr[k];
        q->g = pend[k];
        q->job = &jobs[k];
        if (tl_plan_path(q->ckpt, sizeof q->ckpt, c->dir, "ckpt", q->g) ||
            tl_plan_path(q->result, sizeof q->result, c->dir, "result", q->g) ||
            tl_plan_path(q->verify, sizeof q->verify, c->dir, "verify", q->g)) {
            rc = TL_EINVAL;
        } else if (o->verify) {
            q->rec = arena + k * per;
            q->seg = segs + k * ((size_t)pi->nseg + 1);
            rc = verify_setup(c, q);
        } else {
            q->d = arena + k * per;
            rc = chain_setup(c, q);
        }
        if (rc == TL_EIO)
            tl_set_err(err, errlen, "group %u: its records in %s/results/ cannot be read (%s): a file there that is "
                       "not a regular file (a link, a FIFO) is refused; remove it and run the task again", q->g,
                       c->dir, strerror(errno));
        else if (rc)
            group_err(err, errlen, c, q->g, rc, 0);
    }
    if (rc) goto out;
    /* The pool: a group task's chains in bundles of B (SHA3 lanes,
     * tl_pool_bundle; RandomX: 1), one worker per bundle, all at once (the
     * task has a core per group); a verification task's segments, one
     * worker per group. */
    const unsigned B = o->verify ? 1 : tl_pool_bundle(pi->pub.work, np, util_cpus_usable());
    tl_pool_cb cb = {
        .ctx = c, .next = o->verify ? verify_next : chain_next, .value = o->verify ? verify_value : chain_value,
        .lost = task_lost, .done = task_done, .totals = task_totals, .lanes = B,
        .ckpt = o->verify ? NULL : chain_ckpt_cb,
        .ckpt_seconds = o->checkpoint_seconds > 0 ? o->checkpoint_seconds : 60,
    };
    tl_gen_opts go = {
        .workers = o->verify ? np : (np + B - 1) / B, .progress = o->progress, .progress_ctx = o->progress_ctx,
        .progress_interval = o->progress_interval, .stop = o->stop,
    };
    tl_wipe wipe = { .p = { jobs, arena }, .len = { np * sizeof *jobs, np * per }, .fd = { -1, -1 } };
    rc = tl_pool_run(w, &cb, &wipe, &go);
    if (rc == TL_EINTR) stopped_err(err, errlen, c);
    else if (rc && c->err_g) group_err(err, errlen, c, c->err_g, rc, 0);
    else if (rc) tl_set_err(err, errlen, "the task's worker processes: %s", tl_strerror(rc));
    for (uint32_t k = 0; rc == TL_OK && k < np; k++)
        if (c->gr[k].bad) {
            rc = TL_EWORKER;
            group_err(err, errlen, c, c->gr[k].g, rc, c->gr[k].first_bad);
        }
    if (rc == TL_OK) {
        st->computed = o->verify ? np : c->computed;
        st->resumed = o->verify ? 0 : c->resumed;
    }
out:
    if (arena) sodium_free(arena);
    free(segs);
    free(c->gr);
    c->gr = NULL;
    return rc;
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
    uint32_t *pend = NULL, np = 0;
    tl_work *w = NULL;
    uint8_t wsk[32], wpk[32];
    int rc = tl_plan_info_load(dir, pi, err, errlen);
    if (rc) goto out;
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
    st.last = st.first + pi->batch - 1 < pi->pub.groups ? st.first + pi->batch - 1 : pi->pub.groups;
    uint32_t n = st.last - st.first + 1;
    jobs = sodium_malloc(n * sizeof *jobs);
    pend = calloc(n, sizeof *pend);
    if (!jobs || !pend) { rc = TL_ENOMEM; goto out; }
    rc = open_jobs(dir, pi, o, wsk, &st, jobs, pend, &np, err, errlen);
    sodium_memzero(wsk, sizeof wsk);   /* the job files are open */
    if (rc || np == 0) goto out;
    tl_mode mode = o->mode == TL_MODE_DEFAULT ? pi->mode : o->mode;
    if ((rc = tl_work_new(&w, pi->pub.work, pi->pub.key, mode))) {
        tl_set_err(err, errlen, "cannot set up the %s work function (%s mode): %s", tl_work_name(pi->pub.work),
                mode == TL_MODE_FULL ? "full" : "light", tl_strerror(rc));
        goto out;
    }
    run_ctx c = { .dir = dir, .pi = pi, .o = o };
    rc = run_groups(&c, w, jobs, pend, np, &st, err, errlen);
out:
    if (w) tl_work_free(w);
    if (jobs) sodium_free(jobs);
    free(pend);
    sodium_memzero(wsk, sizeof wsk);
    if (pi) { sodium_memzero(pi, sizeof *pi); free(pi); }
    if (stats) *stats = st;
    return rc;
}
