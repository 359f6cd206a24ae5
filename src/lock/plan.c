/* src/lock/plan.c — tl_plan_create: draw a puzzle's secrets exactly as
 * tl_generate does, and write the plan directory for a cluster: plan.json,
 * one sealed job file per group, plan.secrets, slurm.sbatch and
 * k8s-job.yaml, plus the planner and worker key files (outside the
 * directory).  docs/FORMAT.md §Cluster plan. */
#include "plan_internal.h"
#include "util/util.h"
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


/* Characters allowed in paths written into the job scripts (no quoting,
 * whitespace, shell expansion or Slurm '%' patterns). */
static int script_safe(const char *s) {
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("/._-+,:=@", *s)))
            return 0;
    return 1;
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

static uint64_t mem_mib(tl_work_type w, tl_mode m, uint32_t batch) {
    if (w == TL_WORK_SHA3_256) return 128 + 8ull * batch;
    return (m == TL_MODE_FULL ? 2900 : 512) + 32ull * batch;
}

static int write_scripts(const char *dir, const char *rdir, const char *rwk, const tl_plan_info *pi,
                         char *err, size_t errlen) {
    char id[13], path[PATH_MAX], *buf = malloc(8192);
    if (!buf) return TL_ENOMEM;
    util_hex_encode(id, pi->D, 6);
    const tl_puzzle *pz = &pi->pub;
    const char *wn = tl_work_name(pz->work);
    uint64_t mem = mem_mib(pz->work, pi->mode, pi->batch);
    int n = snprintf(buf, 8192,
        "#!/bin/bash\n"
        "# slurm.sbatch - rxlock plan %s: %u groups x %llu %s steps, %u group(s) per task.\n"
        "# Submit from anywhere:  sbatch %s/slurm.sbatch\n"
        "# Every array task runs `rxlock group DIR $SLURM_ARRAY_TASK_ID`.  A task is\n"
        "# idempotent and checkpoints (sealed) while it runs: a requeued, preempted or\n"
        "# resubmitted task redoes only what is missing.  Then, on the planner's host:\n"
        "#   rxlock assemble %s --planner-key PLANNER.key -o puzzle.json\n"
        "# The tasks read the worker key below; it lets its holder read every job\n"
        "# file (the seeds): keep it where only your jobs can read it (docs/SECURITY.md).\n"
        "# More than MaxArraySize (default 1001) tasks: re-plan with a larger --batch.\n"
        "#SBATCH --job-name=rxlock-%s\n"
        "#SBATCH --array=0-%u\n"
        "#SBATCH --ntasks=1\n"
        "#SBATCH --cpus-per-task=%u\n"
        "#SBATCH --mem=%lluM\n"
        "#SBATCH --output=%s/logs/slurm-%%A_%%a.out\n"
        "#SBATCH --open-mode=append\n"
        "#SBATCH --requeue\n"
        "set -eu\n"
        "RXLOCK=${RXLOCK:-rxlock}\n"
        "RXLOCK_PLAN_DIR=${RXLOCK_PLAN_DIR:-%s}\n"
        "export RXLOCK_WORKER_KEY=${RXLOCK_WORKER_KEY:-%s}\n"
        "exec \"$RXLOCK\" group \"$RXLOCK_PLAN_DIR\" \"$SLURM_ARRAY_TASK_ID\"\n",
        id, pz->groups, (unsigned long long)pz->steps, wn, pi->batch, rdir, rdir, id, pi->tasks - 1,
        pi->batch, (unsigned long long)mem, rdir, rdir, rwk);
    int rc = TL_OK;
    if (n < 0 || n >= 8192) rc = TL_EINVAL;
    else if (tl_plan_path(path, sizeof path, dir, "slurm.sbatch", 0) != 0 ||
             util_write_file_atomic(path, buf, (size_t)n, 1, 0755) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        rc = TL_EIO;
    }
    if (rc == TL_OK) {
        n = snprintf(buf, 8192,
            "# k8s-job.yaml - rxlock plan %s: %u groups x %llu %s steps, %u group(s) per task.\n"
            "# An Indexed Job: pod JOB_COMPLETION_INDEX runs `rxlock group /rxlock/plan`\n"
            "# (the index comes from the environment).  Before `kubectl apply -f k8s-job.yaml`:\n"
            "#  1. put this plan directory at the root of a ReadWriteMany volume and\n"
            "#     name its claim below (claimName);\n"
            "#  2. kubectl create secret generic rxlock-%s-worker --from-file=worker.key=%s\n"
            "#     (then delete that file from anywhere the seeds must not be);\n"
            "#  3. set image to an image that holds the rxlock binary on its PATH.\n"
            "# Then, on the planner's host: rxlock assemble DIR --planner-key PLANNER.key -o puzzle.json\n"
            "apiVersion: batch/v1\n"
            "kind: Job\n"
            "metadata:\n"
            "  name: rxlock-%s\n"
            "  labels:\n"
            "    app.kubernetes.io/name: rxlock\n"
            "spec:\n"
            "  completionMode: Indexed\n"
            "  completions: %u\n"
            "  parallelism: %u\n"
            "  backoffLimit: %u\n"
            "  template:\n"
            "    metadata:\n"
            "      labels:\n"
            "        app.kubernetes.io/name: rxlock\n"
            "    spec:\n"
            "      restartPolicy: OnFailure\n"
            "      containers:\n"
            "        - name: group\n"
            "          image: rxlock:latest\n"
            "          command: [\"rxlock\", \"group\", \"/rxlock/plan\"]\n"
            "          env:\n"
            "            - name: RXLOCK_WORKER_KEY\n"
            "              value: /rxlock/worker-key/worker.key\n"
            "          resources:\n"
            "            requests:\n"
            "              cpu: \"%u\"\n"
            "              memory: %lluMi\n"
            "            limits:\n"
            "              memory: %lluMi\n"
            "          securityContext:\n"
            "            allowPrivilegeEscalation: false\n"
            "            readOnlyRootFilesystem: true\n"
            "          volumeMounts:\n"
            "            - name: plan\n"
            "              mountPath: /rxlock/plan\n"
            "            - name: worker-key\n"
            "              mountPath: /rxlock/worker-key\n"
            "              readOnly: true\n"
            "      volumes:\n"
            "        - name: plan\n"
            "          persistentVolumeClaim:\n"
            "            claimName: rxlock-plan\n"
            "        - name: worker-key\n"
            "          secret:\n"
            "            secretName: rxlock-%s-worker\n"
            "            defaultMode: 0444\n",
            id, pz->groups, (unsigned long long)pz->steps, wn, pi->batch, id, rwk, id, pi->tasks, pi->tasks,
            pi->tasks * 2 > 6 ? pi->tasks * 2 : 6, pi->batch, (unsigned long long)mem,
            (unsigned long long)mem, id);
        if (n < 0 || n >= 8192) rc = TL_EINVAL;
        else if (tl_plan_path(path, sizeof path, dir, "k8s-job.yaml", 0) != 0 ||
                 util_write_file_atomic(path, buf, (size_t)n, 1, 0644) != 0) {
            tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
            rc = TL_EIO;
        }
    }
    free(buf);
    return rc;
}

static int rate_source_valid(const char *s) {
    size_t n = strnlen(s, TL_RATE_SOURCE_MAX);
    if (n >= TL_RATE_SOURCE_MAX) return 0;
    for (size_t k = 0; k < n; k++) if (s[k] < 0x20 || s[k] > 0x7e) return 0;
    return 1;
}

int tl_plan_create(const tl_params *p, const tl_plan_opts *o, const char *dir,
                   uint8_t pk[32], char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!p || !o || !dir || !pk || !o->planner_key || !o->worker_key) return TL_EINVAL;
    if (!tl_work_name(p->work) || p->groups < 1 || p->groups > TL_MAX_GROUPS || p->steps < 1 ||
        p->steps > TL_MAX_STEPS || p->steps > TL_MAX_TOTAL / p->groups || !rate_source_valid(p->rate_source) ||
        p->rate_mhps > (1ull << 62) || p->target_seconds > (1ull << 62) ||
        (o->mode != TL_MODE_LIGHT && o->mode != TL_MODE_FULL) || o->batch > p->groups)
        return TL_EINVAL;
    if (sodium_init() < 0) return TL_ERANDOM;
    const uint32_t G = p->groups;
    char path[PATH_MAX], rdir[PATH_MAX], rpk[PATH_MAX], rwk[PATH_MAX], wkabs[PATH_MAX];
    struct stat st;

    /* The directory: new, or (with force) an old plan's.  One we create is
     * removed again if the checks below refuse the plan. */
    int made = mkdir(dir, 0755) == 0;
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
        tl_set_err(err, errlen, "%s: already exists (use --force to overwrite)",
                lstat(o->planner_key, &st) == 0 ? o->planner_key : o->worker_key);
        { if (made) rmdir(dir); return TL_EIO; }
    }

    /* Secrets: x, then (nonce_g, s_g, r_g); planner and worker keys. */
    size_t ptlen = 32 + (size_t)G * TL_SECRETS_ENTRY, blen = tl_secrets_size(G);
    uint8_t *sec = sodium_malloc(ptlen + 64);
    uint8_t *blob = malloc(blen);
    tl_plan_info *pi = calloc(1, sizeof *pi);
    tl_job *job = sodium_malloc(sizeof *job);
    int rc = TL_OK;
    if (!sec || !blob || !pi || !job) { rc = TL_ENOMEM; goto out; }
    uint8_t *x = sec, *planner_sk = sec + ptlen, *worker_sk = sec + ptlen + 32;
    tl_puzzle *pz = &pi->pub;
    tl_puzzle_from_params(pz, p);
    if ((rc = tl_random(pz->id, 16, "puzzle-id", 0)) || (rc = tl_random(pz->key, 32, "key", 0)) ||
        (rc = tl_random(x, 32, "epoch-secret", 0)))
        goto out;
    for (uint32_t g = 1; g <= G; g++) {
        uint8_t *e = sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY;
        if ((rc = tl_random(e + 24, 32, "seed", g)) || (rc = tl_random(e, 24, "nonce", g)) ||
            (rc = tl_random(e + 56, 32, "plan-result-key", g)))
            goto out;
    }
    if ((rc = tl_random(planner_sk, 32, "plan-planner-key", 0)) || (rc = tl_random(worker_sk, 32, "plan-worker-key", 0)))
        goto out;
    if (tl_epoch_public(pz, x) != 0 || crypto_scalarmult_base(pi->planner_pk, planner_sk) != 0 ||
        crypto_scalarmult_base(pi->worker_pk, worker_sk) != 0) { rc = TL_ERANDOM; goto out; }
    memcpy(pz->seed, sec + 32 + 24, 32);
    if ((rc = tl_header_digest(pz, pi->D))) goto out;
    memcpy(pz->header_digest, pi->D, 32);
    pi->mode = o->mode;
    pi->batch = o->batch ? o->batch : 1;
    pi->tasks = (G + pi->batch - 1) / pi->batch;

    /* Keys first (no clobber without force), then the directory's files;
     * plan.json last: a directory without it is an unfinished plan. */
    char id[17], title[160];
    util_hex_encode(id, pi->D, 8);
    snprintf(title, sizeof title, "rxlock planner key for plan %s (X25519): keep it off the workers' storage", id);
    if ((rc = tl_plan_key_save(o->planner_key, planner_sk, title, o->force))) {
        tl_set_err(err, errlen, "%s: %s", o->planner_key, strerror(errno));
        goto out;
    }
    snprintf(title, sizeof title, "rxlock worker key for plan %s (X25519): opens its job files (the seeds)", id);
    if ((rc = tl_plan_key_save(o->worker_key, worker_sk, title, o->force))) {
        tl_set_err(err, errlen, "%s: %s", o->worker_key, strerror(errno));
        goto out;
    }
    if (o->force) { clear_groups(dir, "jobs"); clear_groups(dir, "results"); }
    const char *subs[] = { "jobs", "results", "logs" };
    for (int k = 0; k < 3; k++)
        if (tl_plan_path(path, sizeof path, dir, subs[k], 0) != 0 || mkdir_p1(path) != 0) {
            tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
            rc = TL_EIO;
            goto out;
        }
    job->work = p->work;
    job->mode = o->mode;
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
        if (tl_plan_path(path, sizeof path, dir, "job", g) != 0 ||
            util_write_file_atomic(path, jf, sizeof jf, 1, 0644) != 0) {
            tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
            rc = TL_EIO;
            goto out;
        }
    }
    if ((rc = tl_secrets_seal(blob, pi->D, G, sec, planner_sk))) goto out;
    if (tl_plan_path(path, sizeof path, dir, "plan.secrets", 0) != 0 ||
        util_write_file_atomic(path, blob, blen, 1, 0600) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        rc = TL_EIO;
        goto out;
    }
    if ((rc = write_scripts(dir, rdir, wkabs, pi, err, errlen))) goto out;
    char *txt = NULL;
    size_t tlen = 0;
    if ((rc = tl_plan_info_json(pi, &txt, &tlen))) goto out;
    if (tl_plan_path(path, sizeof path, dir, "plan.json", 0) != 0 ||
        util_write_file_atomic(path, txt, tlen, o->force, 0644) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        rc = TL_EIO;
    }
    free(txt);
    if (rc == TL_OK) memcpy(pk, pz->epoch_pk, 32);
out:
    if (sec) sodium_free(sec);
    if (job) sodium_free(job);
    free(blob);
    if (pi) { sodium_memzero(pi, sizeof *pi); free(pi); }
    return rc;
}
