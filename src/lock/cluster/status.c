/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/status.c — tl_plan_status_read: how far a plan's tasks
 * are, from its results/ files (docs/FORMAT.md §Cluster plan): per group
 * task, the results present (authenticated with the worker key when given)
 * or the age of its newest checkpoint; per verification task, the picked
 * segments matched, differing or still missing.  Reads only. */
#include "cluster_internal.h"
#include <errno.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The newest modification time of the named kinds of group g (0 = none). */
static time_t newest(const char *dir, uint32_t g, const char *const *kinds, int n) {
    char path[PATH_MAX];
    struct stat st;
    time_t t = 0;
    for (int k = 0; k < n; k++)
        if (tl_plan_path(path, sizeof path, dir, kinds[k], g) == 0 && stat(path, &st) == 0 && st.st_mtime > t)
            t = st.st_mtime;
    return t;
}

static int read_exact(const char *path, uint8_t *buf, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(buf, 1, size, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    return n == size && !extra ? 0 : -1;
}

/* Group g's job opened with the worker key: its result key. */
static int open_rkey(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t wsk[32], uint8_t rkey[32]) {
    char path[PATH_MAX];
    uint8_t jf[TL_JOB_SIZE];
    tl_job *j = sodium_malloc(sizeof *j);
    if (!j) return TL_ENOMEM;
    int rc = tl_plan_path(path, sizeof path, dir, "job", g) || read_exact(path, jf, sizeof jf) ? TL_EFORMAT
             : tl_job_open(j, jf, pi->D, g, wsk);
    if (rc == TL_OK) memcpy(rkey, j->rkey, 32);
    sodium_free(j);
    return rc;
}

/* One group: result present / authentic (1 / 0 / -1 bad); verification:
 * *vstate 0 none recorded, 1 some, 2 every picked segment matched, 3 a
 * mismatch (*vseg the segment). */
typedef struct { uint8_t *val, *state; } bufs;
static int one_group(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t *rkey, bufs *b,
                     int *vstate, uint32_t *vseg) {
    char path[PATH_MAX];
    uint8_t res[TL_RESULT_SIZE];
    struct stat st;
    int have = 0;
    *vstate = 0;
    *vseg = 0;
    if (tl_plan_path(path, sizeof path, dir, "result", g) == 0 && read_exact(path, res, sizeof res) == 0)
        have = !rkey || tl_result_check(res, pi->D, g, pi->pub.steps, rkey, NULL) == TL_OK ? 1 : -1;
    if (!TL_PLAN_VERIFIES(pi)) return have;
    if (tl_plan_path(path, sizeof path, dir, "verify", g) != 0) return have;
    if (stat(path, &st) != 0) {   /* no record: done only when none of its segments is picked */
        uint32_t picked = 0;
        for (uint32_t k = 1; rkey && k <= pi->nseg; k++) picked += tl_plan_verify_pick(rkey, k, pi->verify_ppm) != 0;
        if (rkey && !picked) *vstate = 2;
        return have;
    }
    *vstate = 1;
    if (!rkey) return have;
    tl_plan_chain c = { .val = b->val };
    tl_plan_checks v = { .state = b->state };
    if (tl_plan_chain_read(dir, pi, g, rkey, 0, &c) != TL_OK || tl_plan_checks_read(dir, pi, g, rkey, 0, &c, &v) != TL_OK)
        return have;
    if (v.bad) { *vstate = 3; *vseg = v.first_bad; return have; }
    uint32_t missing = 0;
    for (uint32_t k = 1; k <= pi->nseg; k++)
        if (tl_plan_verify_pick(rkey, k, pi->verify_ppm) && v.state[k] != TL_PLAN_MATCHED) missing++;
    if (!missing) *vstate = 2;
    return have;
}

int tl_plan_status_read(const char *dir, const char *worker_key, tl_plan_status *out, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!dir || !out) return TL_EINVAL;
    memset(out, 0, sizeof *out);
    if (sodium_init() < 0) return TL_ERANDOM;
    tl_plan_info *pi = calloc(1, sizeof *pi);
    if (!pi) return TL_ENOMEM;
    uint8_t wsk[32], wpk[32], rkey[32];
    bufs b = {0};
    int rc = tl_plan_info_load(dir, pi, err, errlen);
    if (rc) goto done;
    if (worker_key && (rc = tl_plan_key_load_for(worker_key, "worker", pi->worker_pk, wsk, wpk, err, errlen))) goto done;
    const int V = TL_PLAN_VERIFIES(pi);
    out->groups = pi->pub.groups;
    out->batch = pi->batch;
    out->tasks = pi->tasks;
    out->verifies = V;
    out->authenticated = worker_key != NULL;
    out->n = pi->tasks * (V ? 2u : 1u);
    out->task = calloc(out->n, sizeof *out->task);
    if (V) {
        b.val = malloc(((size_t)pi->nseg + 1) * 32);
        b.state = malloc((size_t)pi->nseg + 1);
    }
    if (!out->task || (V && (!b.val || !b.state))) { rc = TL_ENOMEM; goto done; }
    static const char *const gkinds[] = { "result", "ckpt", "segs" }, *const vkinds[] = { "verify" };
    const time_t now = time(NULL);
    for (uint32_t t = 0; t < pi->tasks; t++) {
        tl_task_status *gt = &out->task[t], *vt = V ? &out->task[pi->tasks + (t + pi->tasks - 1) % pi->tasks] : NULL;
        gt->task = t;
        gt->first = t * pi->batch + 1;
        gt->last = gt->first + pi->batch - 1 < pi->pub.groups ? gt->first + pi->batch - 1 : pi->pub.groups;
        time_t gnew = 0, vnew = 0;
        uint32_t vdone = 0, vany = 0, vbad = 0;
        for (uint32_t g = gt->first; g <= gt->last; g++) {
            const uint8_t *rk = NULL;
            if (worker_key) {
                if ((rc = open_rkey(dir, pi, g, wsk, rkey)) != TL_OK) {
                    tl_set_err(err, errlen, "group %u: jobs/group-%04u.job does not open with this worker key", g, g);
                    goto done;
                }
                rk = rkey;
            }
            int vs;
            uint32_t vseg;
            int have = one_group(dir, pi, g, rk, &b, &vs, &vseg);
            if (have > 0) gt->groups_done++;
            if (have < 0 && gt->state != TL_TASK_FAILED) { gt->state = TL_TASK_FAILED; gt->bad_group = g; }
            time_t m = newest(dir, g, gkinds, 3);
            if (m > gnew) gnew = m;
            if (vt) {
                m = newest(dir, g, vkinds, 1);
                if (m > vnew) vnew = m;
                vany += vs != 0;
                vdone += vs == 2;
                if (vs == 3 && !vbad++) { vt->bad_group = g; vt->bad_segment = vseg; }
            }
        }
        uint32_t n = gt->last - gt->first + 1;
        gt->checkpoint_age = gnew ? difftime(now, gnew) : -1;
        if (gt->state != TL_TASK_FAILED)
            gt->state = gt->groups_done == n ? TL_TASK_DONE : gnew ? TL_TASK_RUNNING : TL_TASK_MISSING;
        if (vt) {
            vt->task = (t + pi->tasks - 1) % pi->tasks;
            vt->verify = 1;
            vt->first = gt->first;
            vt->last = gt->last;
            vt->groups_done = vdone;
            vt->checkpoint_age = vnew ? difftime(now, vnew) : -1;
            vt->state = vbad ? TL_TASK_FAILED : vdone == n ? TL_TASK_DONE : !vany ? TL_TASK_MISSING
                        : !worker_key && vany == n ? TL_TASK_RECORDED : TL_TASK_RUNNING;
        }
    }
done:
    if (rc) tl_plan_status_free(out);
    free(b.val);
    free(b.state);
    sodium_memzero(wsk, sizeof wsk);
    sodium_memzero(rkey, sizeof rkey);
    if (pi) { sodium_memzero(pi, sizeof *pi); free(pi); }
    return rc;
}

void tl_plan_status_free(tl_plan_status *st) {
    if (!st) return;
    free(st->task);
    st->task = NULL;
    st->n = 0;
}
