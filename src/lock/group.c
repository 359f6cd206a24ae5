/* SPDX-License-Identifier: ISC */
/* src/lock/group.c — tl_plan_task: what one cluster task runs.  Opens its
 * groups' job files with the worker key, skips groups whose valid result
 * is already there (idempotent), resumes from a sealed checkpoint, runs the
 * chain, and commits each result atomically (temp file + rename).  Several
 * groups of one task run in bundles (issue 23: up to tl_pool_bundle groups
 * whose SHA3 chains advance together in SIMD lanes; RandomX one group per
 * bundle), one forked process per bundle, sharing the work function (one
 * RandomX dataset per task). */
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
} run_ctx;

/* Seal and write group g's checkpoint (i < S) or result (i = S). */
static int commit_group(run_ctx *c, uint32_t g, const tl_job *job, uint64_t i, const uint8_t d[32],
                        const char *cpath, const char *rpath) {
    const tl_plan_info *pi = c->pi;
    uint8_t buf[TL_RESULT_SIZE > TL_CKPT_SIZE ? TL_RESULT_SIZE : TL_CKPT_SIZE];
    int rc = TL_OK;
    if (i < pi->pub.steps) {
        tl_ckpt_seal(buf, pi->D, g, i, d, job->rkey);
        if (util_write_file_atomic(cpath, buf, TL_CKPT_SIZE, 1, 0600) != 0) rc = TL_EIO;
    } else if ((rc = tl_result_seal(buf, pi->D, g, i, d, job->planner_pk, job->rkey)) == TL_OK) {
        if (util_write_file_atomic(rpath, buf, TL_RESULT_SIZE, 1, 0644) != 0) rc = TL_EIO;
        else (void)unlink(cpath);
    }
    sodium_memzero(buf, sizeof buf);
    return rc;
}

/* A bundle of n groups' chains (issue 23: SHA3 chains advance together in
 * SIMD lanes, tl_work_steps_multi; one group: tl_work_steps), each from its
 * checkpoint when a valid one exists; each result committed when its chain
 * ends, checkpoints of the unfinished ones every checkpoint_seconds. */
static int run_bundle(run_ctx *c, tl_work *w, const uint32_t *gs, const tl_job *jobs, unsigned n, int show) {
    const tl_plan_info *pi = c->pi;
    const tl_task_opts *o = c->o;
    const uint64_t S = pi->pub.steps;
    char cpath[TL_BUNDLE_MAX][PATH_MAX], rpath[TL_BUNDLE_MAX][PATH_MAX];
    uint8_t d[TL_BUNDLE_MAX][32], dv[TL_BUNDLE_MAX][32], ck[TL_CKPT_SIZE];
    uint64_t i[TL_BUNDLE_MAX], iv[TL_BUNDLE_MAX], i_start = 0, done = 0;
    uint32_t gv[TL_BUNDLE_MAX];
    unsigned map[TL_BUNDLE_MAX];
    if (n < 1 || n > TL_BUNDLE_MAX) return TL_EINVAL;
    for (unsigned k = 0; k < n; k++) {
        if (tl_plan_path(cpath[k], sizeof cpath[k], c->dir, "ckpt", gs[k]) ||
            tl_plan_path(rpath[k], sizeof rpath[k], c->dir, "result", gs[k]))
            return TL_EINVAL;
        memcpy(d[k], jobs[k].seed, 32);
        i[k] = 0;
        if (read_exact(cpath[k], ck, sizeof ck) == 0) {
            uint64_t ci;
            uint8_t cd[32];
            if (tl_ckpt_open(&ci, cd, ck, pi->D, gs[k], jobs[k].rkey) == TL_OK && ci <= S) {
                i[k] = ci;
                memcpy(d[k], cd, 32);
                c->resumed++;
            }
            sodium_memzero(cd, sizeof cd);
        }
        i_start += i[k];
    }
    double every = o->checkpoint_seconds > 0 ? o->checkpoint_seconds : 60;
    double pint = o->progress_interval > 0 ? o->progress_interval : 0.5;
    double t0 = tl_now(), last_ck = t0, last_p = t0;
    uint64_t batch = 1;
    int rc = TL_OK;
    for (;;) {
        unsigned na = 0;
        uint64_t m = batch;
        for (unsigned k = 0; k < n; k++) {
            if (i[k] >= S) continue;
            if (m > S - i[k]) m = S - i[k];
            map[na++] = k;
        }
        if (na == 0) break;
        for (unsigned a = 0; a < na; a++) { gv[a] = gs[map[a]]; iv[a] = i[map[a]]; memcpy(dv[a], d[map[a]], 32); }
        double a0 = tl_now();
        rc = na == 1 ? tl_work_steps(w, gv[0], iv[0], m, dv[0]) : tl_work_steps_multi(w, na, gv, iv, m, dv);
        double now = tl_now();
        if (now - a0 < 0.02 && batch < (1u << 22)) batch *= 2;
        int stop = o->stop && *o->stop, ckpt = now - last_ck >= every || stop;
        for (unsigned a = 0; a < na && rc == TL_OK; a++) {
            unsigned k = map[a];
            memcpy(d[k], dv[a], 32);
            i[k] += m;
            if (i[k] == S || ckpt) rc = commit_group(c, gs[k], &jobs[k], i[k], d[k], cpath[k], rpath[k]);
        }
        if (rc) break;
        if (ckpt) last_ck = now;
        if (stop) { rc = TL_EINTR; break; }
        if (show && o->progress && now - last_p >= pint) {
            last_p = now;
            done = 0;
            for (unsigned k = 0; k < n; k++) done += i[k];
            tl_progress p = {0};
            p.hashes_total = (uint64_t)n * S;
            p.hashes_done = done;
            p.rate = now > t0 ? (double)(done - i_start) / (now - t0) : 0;
            p.eta_seconds = p.rate > 0 ? (double)(p.hashes_total - done) / p.rate : -1;
            p.groups_total = n;
            p.group = gs[map[0]];
            p.step = i[map[0]];
            if (o->progress(&p, o->progress_ctx)) {
                for (unsigned k = 0; k < n; k++)
                    if (i[k] < S) (void)commit_group(c, gs[k], &jobs[k], i[k], d[k], cpath[k], rpath[k]);
                rc = TL_EINTR;
                break;
            }
        }
    }
    sodium_memzero(d, sizeof d);
    sodium_memzero(dv, sizeof dv);
    sodium_memzero(ck, sizeof ck);
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
    if ((rc = tl_plan_key_load(o->worker_key, wsk, wpk))) {
        tl_set_err(err, errlen, "%s: cannot read the worker key: %s", o->worker_key,
                rc == TL_EIO ? strerror(errno) : tl_strerror(rc));
        goto out;
    }
    if (sodium_memcmp(wpk, pi->worker_pk, 32) != 0) {
        tl_set_err(err, errlen, "%s: not this plan's worker key", o->worker_key);
        rc = TL_EAUTH;
        goto out;
    }
    st.first = task * pi->batch + 1;
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
        if (tl_plan_path(path, sizeof path, dir, "result", g) == 0 && read_exact(path, res, sizeof res) == 0 &&
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
    /* bundles of B groups (issue 23: SHA3 lanes; RandomX 1), one per core */
    const uint32_t B = tl_pool_bundle(pi->pub.work, np, util_cpus_usable()), nb = (np + B - 1) / B;
    if (nb == 1) {
        rc = run_bundle(&c, w, pend, jobs, np, 1);
        if (rc) tl_set_err(err, errlen, "group%s %u%s: %s", np > 1 ? "s" : "", pend[0], np > 1 ? " .." : "",
                           rc == TL_EINTR ? "interrupted (checkpointed)" : tl_strerror(rc));
        else { st.computed = np; st.resumed = (uint32_t)c.resumed; }
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
            int r = run_bundle(&c, w, pend + b0, jobs + b0, bn, 0);
            sodium_memzero(jobs + b0, bn * sizeof *jobs);
            tl_work_free_vm(w);
            /* exit status = -code: every error code (-1..-214, docs/DESIGN.md) fits in 1..254 */
            _exit(r == TL_OK ? 0 : r < 0 && r > -255 ? -r : 255);
        }
        pids[k] = pid;
    }
    int forwarded = 0;
    for (uint32_t k = 0; k < nb; k++) {
        int status = 0;
        while (pids[k] > 0 && waitpid(pids[k], &status, 0) < 0) {
            if (errno != EINTR) { status = -1; break; }
            if (o->stop && *o->stop && !forwarded) {
                for (uint32_t m = 0; m < nb; m++) if (pids[m] > 0) kill(pids[m], SIGTERM);
                forwarded = 1;
            }
        }
        if (pids[k] <= 0) continue;
        uint32_t b0 = k * B, bn = np - b0 < B ? np - b0 : B;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) { st.computed += bn; continue; }
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
        int r = code > 0 && code < 255 ? -code : TL_EWORKER;
        if (rc == TL_OK || rc == TL_EINTR) {
            rc = r;
            if (WIFSIGNALED(status))
                tl_set_err(err, errlen, "group%s %u%s: its process died (signal %d)", bn > 1 ? "s" : "", pend[b0],
                            bn > 1 ? " .." : "", WTERMSIG(status));
            else
                tl_set_err(err, errlen, "group%s %u%s: %s", bn > 1 ? "s" : "", pend[b0], bn > 1 ? " .." : "", r == TL_EINTR ? "interrupted (checkpointed)" : tl_strerror(r));
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
