/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/plan.c — tl_plan_create: draw a puzzle's secrets exactly as
 * tl_generate does, and write the plan directory for a cluster: plan.json,
 * one sealed job file per group, plan.secrets, plus the planner and
 * worker key files (outside the directory); the caller's job files (the
 * CLI's slurm.sbatch, k8s-job.yaml, ...) through tl_plan_opts.job_files,
 * from the tl_plan_summary it fills; the tasks' time limit
 * (tl_plan_time_limit).  docs/FORMAT.md §Cluster plan. */
#include "cluster_internal.h"
#include "util/util.h"
#include "rxlock/age.h"
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

_Static_assert(TL_PLAN_RECIPIENT_MAX >= TL_AGE_PQ_RECIPIENT_MAX && TL_PLAN_PATH_MAX >= PATH_MAX,
               "tl_plan_summary's buffers");

/* Letters, digits and /._-+,:=@ only: a path the caller's job scripts may
 * carry unquoted (tl_plan_summary). */
static int script_safe(const char *s) {
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || strchr("/._-+,:=@", *s)))
            return 0;
    return 1;
}

/* Is the plan's rate a light-mode calibration's? */
static int rate_is_light(const tl_params *p) {
    char src[TL_RATE_SOURCE_MAX + 1];
    memcpy(src, p->rate_source, TL_RATE_SOURCE_MAX);
    src[TL_RATE_SOURCE_MAX] = 0;
    return strstr(src, "(light") != NULL;
}

uint64_t tl_plan_time_limit(const tl_params *p, tl_mode mode, uint64_t task_rate_mhps) {
    if (!p) return 0;
    int rx = p->work != TL_WORK_SHA3_256;
    uint64_t mhps = task_rate_mhps;
    if (!mhps) {
        mhps = p->rate_milli_hps;
        if (rx && mode == TL_MODE_LIGHT && !rate_is_light(p)) mhps /= 10;
    }
    if (!mhps || p->steps > TL_MAX_STEPS) return 0;
    uint64_t work = (p->steps * 1000 + mhps - 1) / mhps;        /* steps <= 2^40: no overflow */
    uint64_t setup = !rx ? 0 : mode == TL_MODE_FULL ? 600 : 60;
    uint64_t t = 2 * work + setup + 600;
    return (t + 59) / 60 * 60;
}

/* Is `path` (a file, maybe not yet existing) inside directory `rdir` (a
 * resolved path)?  Its parent directory must exist. */
static int inside(const char *path, const char *rdir, char *rparent) {
    char tmp[PATH_MAX];
    if (strlen(path) >= sizeof tmp) return -1;
    strcpy(tmp, path);
    char *slash = strrchr(tmp, '/');
    const char *parent = slash ? (slash == tmp ? "/" : (*slash = 0, tmp)) : ".";
    if (!realpath(parent, rparent)) return -1;
    size_t n = strlen(rdir);
    return strncmp(rparent, rdir, n) == 0 && (rparent[n] == 0 || rparent[n] == '/' || n == 1);
}

static int mkdir_p1(const char *path) {
    if (mkdir(path, 0755) == 0) return 0;
    struct stat st;
    return errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* With --force: remove the old plan's group files so none is mistaken for
 * this plan's (they would be refused anyway: another plan digest). */
static void clear_groups(const char *dir, const char *sub) {
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, sub) >= (int)sizeof path) return;
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)))
        if (!strncmp(de->d_name, "group-", 6)) {
            char f[PATH_MAX];
            if (snprintf(f, sizeof f, "%s/%s", path, de->d_name) < (int)sizeof f) (void)unlink(f);
        }
    closedir(d);
}

/* ---- a failed plan leaves nothing ------------------------------
 * What tl_plan_create made so far, removed again when it fails: the key
 * files it wrote, the plan's files, the sub-directories and the directory
 * it created. */
typedef struct {
    int made_dir, made_sub[3], began, planner_key, worker_key;
} plan_made;
static const char *const plan_subs[3] = { "jobs", "results", "logs" };

static void plan_undo(const char *dir, const tl_plan_opts *o, const plan_made *m) {
    char path[PATH_MAX];
    if (m->planner_key) (void)unlink(o->planner_key);
    if (m->worker_key) (void)unlink(o->worker_key);
    if (!m->began) { if (m->made_dir) (void)rmdir(dir); return; }
    clear_groups(dir, "jobs");
    clear_groups(dir, "results");
    static const char *const files[] = { "plan.secrets", "plan.json" };
    for (int k = 0; k < 2; k++)
        if (tl_plan_path(path, sizeof path, dir, files[k], 0) == 0) (void)unlink(path);
    for (int k = 0; k < 3; k++)
        if (m->made_sub[k] && tl_plan_path(path, sizeof path, dir, plan_subs[k], 0) == 0) (void)rmdir(path);
    if (m->made_dir) (void)rmdir(dir);
}

#ifdef RXLOCK_TESTING
/* Test build: RXLOCK_TEST_PLAN_ENOSPC=N fails the N-th job file's write
 * with ENOSPC (a disk that fills up mid-plan). */
static int plan_fault(uint32_t g) {
    const char *v = getenv("RXLOCK_TEST_PLAN_ENOSPC");
    if (!v || strtoul(v, NULL, 10) != g) return 0;
    errno = ENOSPC;
    return 1;
}
#else
static int plan_fault(uint32_t g) { (void)g; return 0; }
#endif

int tl_plan_create(const tl_params *p, const tl_plan_opts *o, const char *dir,
                   tl_plan_summary *s, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!p || !o || !dir || !s || !o->planner_key || !o->worker_key) return TL_EINVAL;
    if (!tl_params_valid(p) || (o->mode != TL_MODE_DEFAULT && o->mode != TL_MODE_LIGHT && o->mode != TL_MODE_FULL) || o->batch > p->groups ||
        o->verify > TL_VERIFY_FULL || o->verify_fraction < 0 || o->verify_fraction > 1 ||
        o->checkpoint_steps > TL_MAX_STEPS ||
        (o->checkpoint_steps && (p->steps + o->checkpoint_steps - 1) / o->checkpoint_steps * p->groups > TL_MAX_SEGMENTS))
        return TL_EINVAL;
    if (sodium_init() < 0) return TL_ERANDOM;
    const uint32_t G = p->groups;
    char path[PATH_MAX], rdir[PATH_MAX], rpk[PATH_MAX], rwk[PATH_MAX], wkabs[PATH_MAX];
    struct stat st;

    /* The directory: new, or (with force) an old plan's.  One we create is
     * removed again if the checks below refuse the plan. */
    int made = mkdir(dir, 0755) == 0;
    plan_made undo = { .made_dir = made };
    if ((!made && mkdir_p1(dir) != 0) || !realpath(dir, rdir)) {
        tl_set_err(err, errlen, "%s: cannot create the plan directory: %s", dir, strerror(errno));
        return TL_EIO;
    }
    if (tl_plan_path(path, sizeof path, dir, "plan.json", 0) != 0) { if (made) rmdir(dir); return TL_EINVAL; }
    if (!o->force && lstat(path, &st) == 0) {
        tl_set_err(err, errlen, "%s: already holds a plan (use --force to replace it)", dir);
        { if (made) rmdir(dir); return TL_EIO; }
    }
    if (!script_safe(rdir)) {
        tl_set_err(err, errlen, "%s: the plan directory's path may hold only letters, digits and /._-+,:=@ "
                             "(it is written into the job scripts)", rdir);
        { if (made) rmdir(dir); return TL_EINVAL; }
    }
    /* Both keys stay off the plan directory (the workers' shared storage). */
    int in1 = inside(o->planner_key, rdir, rpk), in2 = inside(o->worker_key, rdir, rwk);
    if (in1 < 0 || in2 < 0) {
        tl_set_err(err, errlen, "%s: directory does not exist", in1 < 0 ? o->planner_key : o->worker_key);
        { if (made) rmdir(dir); return TL_EIO; }
    }
    if (in1 || in2) {
        tl_set_err(err, errlen, "%s: the %s key must not be inside the plan directory %s (the storage the "
                             "workers share)", in1 ? o->planner_key : o->worker_key, in1 ? "planner" : "worker", dir);
        { if (made) rmdir(dir); return TL_EINVAL; }
    }
    const char *base = strrchr(o->worker_key, '/');
    base = base ? base + 1 : o->worker_key;
    if (snprintf(wkabs, sizeof wkabs, "%s/%s", strcmp(rwk, "/") ? rwk : "", base) >= (int)sizeof wkabs ||
        !*base || !script_safe(wkabs)) {
        tl_set_err(err, errlen, "%s: the worker key's path may hold only letters, digits and /._-+,:=@", o->worker_key);
        { if (made) rmdir(dir); return TL_EINVAL; }
    }
    if (!o->force && (lstat(o->planner_key, &st) == 0 || lstat(o->worker_key, &st) == 0)) {
        tl_set_err(err, errlen, "%s: already exists (use --force to replace it)",
                lstat(o->planner_key, &st) == 0 ? o->planner_key : o->worker_key);
        { if (made) rmdir(dir); return TL_EIO; }
    }

    /* Secrets: x, then (nonce_g, s_g, r_g); planner and worker keys. */
    size_t ptlen = 32 + (size_t)G * TL_SECRETS_ENTRY, blen = tl_secrets_size(G);
    uint8_t *sec = sodium_malloc(tl_draw_size(G));
    uint8_t *blob = malloc(blen);
    tl_plan_info *pi = calloc(1, sizeof *pi);
    tl_job *job = sodium_malloc(sizeof *job);
    int rc = TL_OK;
    if (!sec || !blob || !pi || !job) { rc = TL_ENOMEM; goto out; }
    uint8_t *planner_sk = sec + ptlen, *worker_sk = sec + ptlen + 32;
    tl_puzzle *pz = &pi->pub;
    if ((rc = tl_draw(pi, sec, p))) goto out;   /* the same draw as lock */
    pi->mode = o->mode != TL_MODE_DEFAULT ? o->mode   /* zero: full, the nodes hold the dataset */
               : p->work == TL_WORK_SHA3_256 ? TL_MODE_LIGHT : TL_MODE_FULL;
    pi->batch = o->batch ? o->batch : 1;
    pi->tasks = (G + pi->batch - 1) / pi->batch;
    /* verification tasks (default full on a cluster: docs/SECURITY.md) */
    pi->verify = o->verify == TL_VERIFY_DEFAULT ? TL_VERIFY_FULL : (int)o->verify;
    if (TL_PLAN_VERIFIES(pi)) {
        double f = pi->verify == TL_VERIFY_FULL ? 1 : o->verify_fraction > 0 ? o->verify_fraction : 0.25;
        pi->verify_ppm = (uint32_t)(f * 1e6 + 0.5);
        if (pi->verify_ppm < 1) pi->verify_ppm = 1;
        pi->ckpt_steps = o->checkpoint_steps ? o->checkpoint_steps : tl_sched_default_c(p->work, G, p->steps);
        if (pi->ckpt_steps > p->steps) pi->ckpt_steps = p->steps;
        pi->nseg = (uint32_t)((p->steps + pi->ckpt_steps - 1) / pi->ckpt_steps);
    }

    /* Keys first (no clobber without force), then the directory's files;
     * plan.json last: a directory without it is an unfinished plan. */
    char id[17], title[160];
    util_hex_encode(id, pi->D, 8);
    snprintf(title, sizeof title, "rxlock planner key for plan %s (X25519): keep it off the workers' storage", id);
    undo.began = 1;
    if ((rc = tl_plan_key_save(o->planner_key, planner_sk, title, o->force))) {
        tl_set_err(err, errlen, "%s: %s", o->planner_key, strerror(errno));
        goto out;
    }
    undo.planner_key = 1;
    snprintf(title, sizeof title, "rxlock worker key for plan %s (X25519): opens its job files (the seeds)", id);
    if ((rc = tl_plan_key_save(o->worker_key, worker_sk, title, o->force))) {
        tl_set_err(err, errlen, "%s: %s", o->worker_key, strerror(errno));
        goto out;
    }
    undo.worker_key = 1;
    if (o->force) { clear_groups(dir, "jobs"); clear_groups(dir, "results"); }
    for (int k = 0; k < 3; k++)
        if (tl_plan_path(path, sizeof path, dir, plan_subs[k], 0) != 0 ||
            ((undo.made_sub[k] = mkdir(path, 0755) == 0) == 0 && mkdir_p1(path) != 0)) {
            tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
            rc = TL_EIO;
            goto out;
        }
    job->work = p->work;
    job->mode = pi->mode;
    job->groups = G;
    job->steps = p->steps;
    memcpy(job->id, pz->id, 16);
    memcpy(job->key, pz->key, 32);
    memcpy(job->planner_pk, pi->planner_pk, 32);
    for (uint32_t g = 1; g <= G; g++) {
        uint8_t jf[TL_JOB_SIZE];
        const uint8_t *e = sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY;
        memcpy(job->seed, e + 24, 32);
        memcpy(job->rkey, e + 56, 32);
        if ((rc = tl_job_seal(jf, pi->D, g, job, pi->worker_pk))) goto out;
        if (tl_plan_path(path, sizeof path, dir, "job", g) != 0 || plan_fault(g) ||
            util_write_file_atomic(path, jf, sizeof jf, 1, 0644) != 0) {
            tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
            rc = TL_EIO;
            goto out;
        }
    }
    if ((rc = tl_plan_secrets_seal(blob, pi, sec, planner_sk))) goto out;
    if (tl_plan_path(path, sizeof path, dir, "plan.secrets", 0) != 0 ||
        util_write_file_atomic(path, blob, blen, 1, 0600) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        rc = TL_EIO;
        goto out;
    }
    memset(s, 0, sizeof *s);
    util_hex_encode(s->id, pi->D, 6);
    memcpy(s->dir, rdir, strlen(rdir) + 1);
    memcpy(s->worker_key, wkabs, strlen(wkabs) + 1);
    memcpy(s->epoch_pk, pz->epoch_pk, 32);
    if ((pz->pq_epoch ? age_pq_recipient_encode(pz->pq_recipient, s->recipient)
               : age_recipient_encode(pz->epoch_pk, s->recipient)) != 0) { rc = TL_EINVAL; goto out; }
    s->work = p->work;
    s->mode = o->mode;
    s->groups = G;
    s->steps = p->steps;
    s->batch = pi->batch;
    s->tasks = pi->tasks;
    s->verify = TL_PLAN_VERIFIES(pi) ? (tl_verify)pi->verify : TL_VERIFY_NONE;
    s->ckpt_steps = TL_PLAN_VERIFIES(pi) ? pi->ckpt_steps : 0;
    if (o->job_files && (rc = o->job_files(s, o->job_files_ctx, err, errlen)) != 0) {
        if (rc > 0) rc = TL_EIO;
        goto out;
    }
    char *txt = NULL;
    size_t tlen = 0;
    if ((rc = tl_plan_info_json(pi, &txt, &tlen))) goto out;
    if (tl_plan_path(path, sizeof path, dir, "plan.json", 0) != 0 ||
        util_write_file_atomic(path, txt, tlen, o->force, 0644) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        rc = TL_EIO;
    }
    free(txt);
out:
    if (rc != TL_OK) plan_undo(dir, o, &undo);
    if (sec) sodium_free(sec);
    if (job) sodium_free(job);
    free(blob);
    if (pi) { sodium_memzero(pi, sizeof *pi); free(pi); }
    return rc;
}
