/* SPDX-License-Identifier: ISC */
/* src/cli/plan_scripts.c — the job files of `rxlock plan` and `beacon run --cluster`: slurm.sbatch (a Slurm
 * array job), k8s-job.yaml (a Kubernetes Indexed Job) and, for a verified
 * plan, slurm-verify.sbatch, slurm-submit.sh and k8s-verify-job.yaml,
 * written from the plan's tl_plan_summary and the operator's settings in
 * cli_plan_jobs (time limit, partition, account, extra #SBATCH lines, the
 * worker key's path on the nodes; image, volume claim, namespace, pod
 * user).  Owns the checks of those settings (run before plan writes
 * anything) and the memory request.  docs/FORMAT.md §Job scripts. */
#include "cli/plan_scripts.h"
#include "util/util.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TL_K8S_DEFAULT_ID 65532u   /* the image's USER (tools/Containerfile) */
#define TL_K8S_RETRIES    3        /* backoffLimitPerIndex */
#define VERIFIES(s) ((s)->verify != TL_VERIFY_NONE)

/* What one job file is written from. */
typedef struct {
    const tl_plan_summary *s;
    const cli_plan_jobs *o;
    uint64_t time_limit;          /* seconds, 0 = none                       */
    uint32_t uid, gid;            /* the pod's user and group                */
} job_in;

/* Letters, digits and the characters of `extra`; 1..max characters. */
static int charset_ok(const char *s, const char *extra, size_t max) {
    size_t n = strnlen(s, max + 1);
    if (n == 0 || n > max) return 0;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr(extra, c)))
            return 0;
    }
    return 1;
}

/* A Kubernetes name: RFC 1123 label (dots = 0) or subdomain (dots = 1). */
static int k8s_name_ok(const char *s, size_t max, int dots) {
    size_t n = strnlen(s, max + 1);
    if (n == 0 || n > max) return 0;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' && k > 0 && k + 1 < n) && !(dots && c == '.' && k > 0 && k + 1 < n)) return 0;
    }
    return 1;
}

static int script_safe(const char *s) {
    return *s == 0 || charset_ok(s, "/._-+,:=@", PATH_MAX);
}

int cli_plan_jobs_check(const cli_plan_jobs *o, char *err, size_t errlen) {
#define BAD(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
    if (o->slurm_partition && !charset_ok(o->slurm_partition, "_.,-", 256))
        BAD("--slurm-partition: want letters, digits and _.,- (at most 256)");
    if (o->slurm_account && !charset_ok(o->slurm_account, "_.,-", 256))
        BAD("--slurm-account: want letters, digits and _.,- (at most 256)");
    if (o->n_sbatch_extra > CLI_PLAN_SBATCH_EXTRA_MAX || (o->n_sbatch_extra && !o->sbatch_extra))
        BAD("--sbatch: at most %u extra lines", CLI_PLAN_SBATCH_EXTRA_MAX);
    for (uint32_t k = 0; k < o->n_sbatch_extra; k++) {
        const char *s = o->sbatch_extra[k];
        if (!s || s[0] != '-' || s[1] != '-' || !charset_ok(s + 2, "_=.,:/+@%-", 256))
            BAD("--sbatch '%.64s': want --option or --option=value (letters, digits and _=.,:/+@%%-)", s ? s : "");
    }
    if (o->node_worker_key && (o->node_worker_key[0] != '/' || strnlen(o->node_worker_key, PATH_MAX) >= PATH_MAX ||
                               !script_safe(o->node_worker_key)))
        BAD("--node-worker-key: want an absolute path of letters, digits and /._-+,:=@");
    if (o->image && !charset_ok(o->image, "._/:@-", 512))
        BAD("--image: want a reference like registry.example/rxlock:0.1.0 (letters, digits and ._/:@-)");
    if (o->pvc && !k8s_name_ok(o->pvc, 253, 1))
        BAD("--pvc: want a claim name (lower-case letters, digits, - and .)");
    if (o->pvc_subpath && (!charset_ok(o->pvc_subpath, "._-/", 1024) || o->pvc_subpath[0] == '/' ||
                           strstr(o->pvc_subpath, "..")))
        BAD("--pvc: the path inside the volume must be relative, without '..' (letters, digits and ._-/)");
    if (o->k8s_namespace && !k8s_name_ok(o->k8s_namespace, 63, 0))
        BAD("--namespace: want a namespace name (lower-case letters, digits and -, at most 63)");
    if (o->slurm_time > 3650ull * 86400)
        BAD("--slurm-time: at most 3650 days");
    if (o->slurm_log_dir && (!*o->slurm_log_dir || strnlen(o->slurm_log_dir, PATH_MAX) >= PATH_MAX - 64 ||
                             !script_safe(o->slurm_log_dir)))
        BAD("--slurm-log-dir: want a directory path of letters, digits and /._-+,:=@ (as the nodes see it)");
    if (o->k8s_priority_class && !k8s_name_ok(o->k8s_priority_class, 253, 1))
        BAD("--k8s-priority-class: want a PriorityClass name (lower-case letters, digits, - and .)");
    if (o->n_k8s_pull_secret > CLI_PLAN_K8S_LIST_MAX || o->n_k8s_node_selector > CLI_PLAN_K8S_LIST_MAX ||
        o->n_k8s_toleration > CLI_PLAN_K8S_LIST_MAX)
        BAD("--image-pull-secret, --k8s-node-selector, --k8s-toleration: at most %u each", CLI_PLAN_K8S_LIST_MAX);
    for (uint32_t k = 0; k < o->n_k8s_pull_secret; k++)
        if (!k8s_name_ok(o->k8s_pull_secret[k], 253, 1))
            BAD("--image-pull-secret '%.64s': want a Secret name (lower-case letters, digits, - and .)", o->k8s_pull_secret[k]);
    for (uint32_t k = 0; k < o->n_k8s_node_selector; k++) {
        const char *s = o->k8s_node_selector[k], *eq = strchr(s, '=');
        char key[254];
        if (!eq || eq == s || (size_t)(eq - s) >= sizeof key) BAD("--k8s-node-selector '%.64s': want KEY=VALUE", s);
        memcpy(key, s, (size_t)(eq - s));
        key[eq - s] = 0;
        if (!charset_ok(key, "._-/", 253) || (eq[1] && !charset_ok(eq + 1, "._-", 63)))
            BAD("--k8s-node-selector '%.64s': want a label KEY=VALUE (letters, digits and ._-/; value at most 63)", s);
    }
    for (uint32_t k = 0; k < o->n_k8s_toleration; k++) {
        const char *s = o->k8s_toleration[k], *colon = strrchr(s, ':'), *eq = strchr(s, '=');
        char key[254], val[64];
        if (eq && colon && eq > colon) eq = NULL;
        const char *kend = eq ? eq : colon;
        if (!colon || !kend || kend == s || (size_t)(kend - s) >= sizeof key ||
            (eq && (size_t)(colon - eq - 1) >= sizeof val) ||
            (strcmp(colon + 1, "NoSchedule") && strcmp(colon + 1, "PreferNoSchedule") && strcmp(colon + 1, "NoExecute")))
            BAD("--k8s-toleration '%.64s': want KEY[=VALUE]:NoSchedule|PreferNoSchedule|NoExecute", s);
        memcpy(key, s, (size_t)(kend - s));
        key[kend - s] = 0;
        if (eq) { memcpy(val, eq + 1, (size_t)(colon - eq - 1)); val[colon - eq - 1] = 0; }
        if (!charset_ok(key, "._-/", 253) || (eq && val[0] && !charset_ok(val, "._-", 63)))
            BAD("--k8s-toleration '%.64s': want a taint KEY[=VALUE] of letters, digits and ._-/", s);
    }
    return 0;
#undef BAD
}

uint64_t cli_plan_jobs_time_limit(const cli_plan_jobs *o, const tl_params *p, tl_mode mode) {
    if (o->slurm_time) return (o->slurm_time + 59) / 60 * 60;
    return tl_plan_time_limit(p, mode, o->task_rate_mhps);
}

/* Memory of one task (MiB): RandomX full mode the 2080 MiB dataset and the
 * 256 MiB cache, light mode the cache; 256 MiB margin; 32 MiB per group
 * process (VM, 2 MiB scratchpad, JIT code). */
static uint64_t mem_mib(tl_work_type w, tl_mode m, uint32_t batch) {
    if (w == TL_WORK_SHA3_256) return 128 + 8ull * batch;
    return (m == TL_MODE_FULL ? 2080u + 256u : 256u) + 256u + 32ull * batch;
}

static int put_file(const char *dir, const char *name, char *buf, size_t len, int ok, mode_t mode,
                    char *err, size_t errlen) {
    char path[PATH_MAX];
    int rc = TL_OK;
    if (!ok || !buf) rc = TL_ENOMEM;
    else if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
             util_write_file_atomic(path, buf, len, 1, mode) != 0) {
        snprintf(err, errlen, "%s/%s: %s", dir, name, strerror(errno));
        rc = TL_EIO;
    }
    free(buf);
    return rc;
}

/* slurm.sbatch (vf = 0) or slurm-verify.sbatch (vf = 1: the verification
 * array, submitted after the group array by slurm-submit.sh). */
static void sbatch(FILE *f, const job_in *in, int vf) {
    const tl_plan_summary *pi = in->s, *pz = in->s;
    const cli_plan_jobs *o = in->o;
    const char *wn = tl_work_name(pz->work), *md = pi->mode == TL_MODE_FULL ? "full" : "light";
    char wkdef[PATH_MAX + 64];
    if (o->node_worker_key) snprintf(wkdef, sizeof wkdef, "%s", o->node_worker_key);
    else snprintf(wkdef, sizeof wkdef, "$HOME/.rxlock/%s", strrchr(in->s->worker_key, '/') + 1);
    const int vp = VERIFIES(pi);
    fprintf(f, "#!/bin/bash\n");
    if (vf)
        fprintf(f,
            "# slurm-verify.sbatch - rxlock plan %s: the verification array.  Task v recomputes\n"
            "# the picked chain segments (%s, every %llu steps) of the groups of group task\n"
            "# (v + 1) mod %u, from the sealed values those tasks recorded, and records what it\n"
            "# got; `rxlock assemble` refuses until every picked segment matched.\n"
            "# It needs the group array done: submit both with  sh %s/slurm-submit.sh\n"
            "# (it submits this array with --dependency=afterok on the group array), or, once\n"
            "# every group task has finished, from the plan directory:\n"
            "#   cd %s && sbatch slurm-verify.sbatch\n"
            "# Every array task runs `rxlock group --verify DIR $SLURM_ARRAY_TASK_ID`; it is\n"
            "# idempotent and records each segment as it is checked (a re-run goes on).\n",
            in->s->id, pi->verify == TL_VERIFY_FULL ? "all of them" : "a sample", (unsigned long long)pi->ckpt_steps,
            pi->tasks, in->s->dir, in->s->dir);
    else
        fprintf(f,
            "# slurm.sbatch - rxlock plan %s: %u groups x %llu %s steps (%s mode), %u group(s) per task.\n"
            "# Submit it as it is:  %s%s%s\n"
            "# Every array task runs `rxlock group DIR $SLURM_ARRAY_TASK_ID`.  A task is\n"
            "# idempotent and checkpoints (sealed) while it runs and on SIGTERM: a requeued,\n"
            "# preempted, timed-out or resubmitted task redoes only what is missing.\n",
            in->s->id, pz->groups, (unsigned long long)pz->steps, wn, md, pi->batch, vp ? "sh " : "cd ", in->s->dir,
            vp ? "/slurm-submit.sh" : " && sbatch slurm.sbatch");
    if (vp && !vf)
        fprintf(f,
            "# The plan verifies its chains (%s): slurm-submit.sh submits this array and then\n"
            "# slurm-verify.sbatch after it (--dependency=afterok); the tasks record a sealed\n"
            "# chain value every %llu steps for it.\n",
            pi->verify == TL_VERIFY_FULL ? "every segment" : "a sample of the segments",
            (unsigned long long)pi->ckpt_steps);
    if (o->slurm_log_dir)
        fprintf(f, "# The tasks' logs go to %s (rxlock plan --slurm-log-dir).\n", o->slurm_log_dir);
    else
        fprintf(f,
            "# The job runs in the directory sbatch is called from (or its --chdir): submit it\n"
            "# from the plan directory as the nodes see it; the tasks' logs go to logs/ there\n"
            "# (sbatch from elsewhere: the job fails, having no logs/ to write to) and the\n"
            "# tasks use that directory (RXLOCK_PLAN_DIR sets another).\n");
    fprintf(f,
        "# Before submitting:\n"
        "#  - rxlock on the nodes' PATH (or export RXLOCK=/path/to/rxlock);\n"
        "#  - the worker key at %s on the nodes, e.g. on a shared home:\n"
        "#      install -D -m 600 %s %s\n"
        "#    It opens every job file (the seeds): only your jobs may read it; delete it\n"
        "#    when the array is done (docs/SECURITY.md).\n"
        "# Then, on the planner's host:\n"
        "#   rxlock assemble %s --planner-key PLANNER.key -o puzzle.json\n"
        "# More than MaxArraySize (default 1001) tasks: re-plan with a larger --batch.\n",
        wkdef, in->s->worker_key, wkdef, in->s->dir);
    if (in->time_limit)
        fprintf(f, "# Time limit: %s.\n", o->slurm_time ? "from rxlock plan --slurm-time"
                   : o->task_rate_mhps ? "twice one group's work at rxlock plan --task-rate, plus setup and 10 min"
                   : "twice one group's work at the plan's rate, plus setup and 10 min (rxlock plan\n"
                     "# --slurm-time or --task-rate set it; nodes slower than that rate need it)");
    else
        fprintf(f, "# No --time: the plan has no rate (--steps without --rate), so the partition's\n"
                   "# default limit applies; re-plan with --slurm-time or --task-rate to set one.\n");
    fprintf(f,
        "#SBATCH --job-name=rxlock-%s%s\n"
        "#SBATCH --array=0-%u\n"
        "#SBATCH --ntasks=1\n"
        "#SBATCH --cpus-per-task=%u\n"
        "#SBATCH --mem=%lluM\n",
        in->s->id, vf ? "-verify" : "", pi->tasks - 1, pi->batch,
        (unsigned long long)mem_mib(pz->work, pi->mode, pi->batch));
    if (in->time_limit) {
        uint64_t t = in->time_limit;
        fprintf(f, "#SBATCH --time=%llu-%02u:%02u:%02u\n", (unsigned long long)(t / 86400),
                (unsigned)(t / 3600 % 24), (unsigned)(t / 60 % 60), (unsigned)(t % 60));
    }
    if (o->slurm_partition) fprintf(f, "#SBATCH --partition=%s\n", o->slurm_partition);
    if (o->slurm_account) fprintf(f, "#SBATCH --account=%s\n", o->slurm_account);
    fprintf(f,
        "#SBATCH --output=%s/%s-%%A_%%a.out\n"
        "#SBATCH --open-mode=append\n"
        "#SBATCH --requeue\n", o->slurm_log_dir ? o->slurm_log_dir : "logs",   /* logs/: the job's working directory's */
        vf ? "verify" : "slurm");
    for (uint32_t k = 0; k < o->n_sbatch_extra; k++) fprintf(f, "#SBATCH %s\n", o->sbatch_extra[k]);
    fprintf(f,
        "set -eu\n"
        "RXLOCK=${RXLOCK:-rxlock}\n"
        "# the plan: RXLOCK_PLAN_DIR, else the job's working directory when it is the plan\n"
        "# directory (submitted from it), else where it was planned\n"
        "if [ -z \"${RXLOCK_PLAN_DIR:-}\" ]; then\n"
        "  if [ -f plan.json ] && [ -f %s ]; then RXLOCK_PLAN_DIR=$PWD; else RXLOCK_PLAN_DIR=%s; fi\n"
        "fi\n"
        "export RXLOCK_WORKER_KEY=${RXLOCK_WORKER_KEY:-%s}\n"
        "exec \"$RXLOCK\" group %s\"$RXLOCK_PLAN_DIR\" \"$SLURM_ARRAY_TASK_ID\"\n",
        vf ? "slurm-verify.sbatch" : "slurm.sbatch", in->s->dir, wkdef, vf ? "--verify " : "");
}

/* slurm-submit.sh: the group array, then the verification array after it. */
static void submit(FILE *f, const job_in *in) {
    fprintf(f,
        "#!/bin/sh\n"
        "# slurm-submit.sh - rxlock plan %s: submit the group array (slurm.sbatch), then\n"
        "# the verification array (slurm-verify.sbatch) to start when every group task\n"
        "# has succeeded (--dependency=afterok; cancelled if one fails for good: then\n"
        "# fix it, re-run its task and `cd %s && sbatch slurm-verify.sbatch`).\n"
        "# Usage: sh %s/slurm-submit.sh [--wait] [SBATCH OPTION...]\n"
        "#   --wait  return when the verification array has finished (its exit status)\n"
        "#   other options go to both sbatch calls (e.g. --qos=long).\n"
        "# It submits from the directory it is in (the plan directory as this host sees\n"
        "# it): the jobs run there and log to its logs/.\n"
        "set -eu\n"
        "cd \"$(dirname -- \"$0\")\"\n"
        "wait=\n"
        "if [ \"${1:-}\" = --wait ]; then wait=--wait; shift; fi\n"
        "jid=$(sbatch --parsable \"$@\" slurm.sbatch)\n"
        "jid=${jid%%%%;*}\n"
        "echo \"rxlock: group array: job $jid\"\n"
        "echo \"rxlock: verification array: submitted with --dependency=afterok:$jid\"\n"
        "exec sbatch $wait --dependency=afterok:\"$jid\" --kill-on-invalid-dep=yes \"$@\" slurm-verify.sbatch\n",
        in->s->id, in->s->dir, in->s->dir);
}

/* k8s-job.yaml (vf = 0) or k8s-verify-job.yaml (vf = 1: the verification
 * Indexed Job, applied once the group Job is complete). */
static void k8s(FILE *f, const job_in *in, int vf) {
    const tl_plan_summary *pi = in->s, *pz = in->s;
    const cli_plan_jobs *o = in->o;
    const char *wn = tl_work_name(pz->work), *md = pi->mode == TL_MODE_FULL ? "full" : "light";
    const char *image = o->image ? o->image : "localhost/rxlock:" RXLOCK_VERSION;
    const char *pvc = o->pvc ? o->pvc : "rxlock-plan";
    char ns[80] = "";
    if (o->k8s_namespace) snprintf(ns, sizeof ns, " -n %s", o->k8s_namespace);
    uint64_t mem = mem_mib(pz->work, pi->mode, pi->batch);
    const char *sfx = vf ? "-verify" : "";
    if (vf)
        fprintf(f,
            "# k8s-verify-job.yaml - rxlock plan %s: the verification Indexed Job.  Pod v\n"
            "# recomputes the picked chain segments (%s, every %llu steps) of the groups of\n"
            "# pod (v + 1) mod %u of the group Job; `rxlock assemble` refuses until every\n"
            "# picked segment matched.  Apply it when the group Job is complete:\n"
            "#   kubectl%s wait --for=condition=complete --timeout=-1s job/rxlock-%s &&\n"
            "#   kubectl%s apply -f k8s-verify-job.yaml\n"
            "# It uses the volume, image and worker-key Secret of k8s-job.yaml (steps below).\n",
            in->s->id, pi->verify == TL_VERIFY_FULL ? "all of them" : "a sample", (unsigned long long)pi->ckpt_steps,
            pi->tasks, ns, in->s->id, ns);
    else if (VERIFIES(pi))
        fprintf(f,
            "# The plan verifies its chains: when this Job is complete, apply\n"
            "# k8s-verify-job.yaml (its header says how), then assemble.\n");
    fprintf(f,
        "# %s - rxlock plan %s: %u groups x %llu %s steps (%s mode), %u group(s) per task.\n"
        "# An Indexed Job: pod JOB_COMPLETION_INDEX runs `rxlock group %s/rxlock/plan`.\n"
        "# Before `kubectl%s apply -f k8s-job.yaml`:\n"
        "#  1. the image %s where the nodes pull it from\n"
        "#     (README.md \"Generation on a cluster\": make static, tools/container.sh build,\n"
        "#     podman push);\n"
        "#  2. this plan directory on the ReadWriteMany volume of claim %s%s%s,\n"
        "#     results/ writable by uid %u or gid %u (fsGroup below does it where the\n"
        "#     volume type supports it; on NFS: chown -R %u:%u DIR/results DIR/logs);\n"
        "#  3. kubectl%s create secret generic rxlock-%s-worker --from-file=worker.key=%s\n"
        "#     then delete that file from anywhere the seeds must not be.\n"
        "# Kubernetes >= 1.29 (backoffLimitPerIndex, FailIndex).  On an older cluster\n"
        "# delete backoffLimitPerIndex and the FailIndex rule and set backoffLimit: %u\n"
        "# (it then counts all pods' failures together).\n"
        "# Then, on the planner's host: rxlock assemble DIR --planner-key PLANNER.key -o puzzle.json\n"
        "# Cleanup: kubectl%s delete job rxlock-%s%s; kubectl%s delete secret rxlock-%s-worker\n"
        "apiVersion: batch/v1\n"
        "kind: Job\n"
        "metadata:\n"
        "  name: rxlock-%s%s\n",
        vf ? "k8s-verify-job.yaml" : "k8s-job.yaml", in->s->id, pz->groups, (unsigned long long)pz->steps, wn, md,
        pi->batch, vf ? "--verify " : "", ns, image, pvc,
        o->pvc_subpath ? " at " : "", o->pvc_subpath ? o->pvc_subpath : "", in->uid, in->gid, in->uid, in->gid,
        ns, in->s->id, in->s->worker_key, pi->tasks * TL_K8S_RETRIES, ns, in->s->id, sfx, ns, in->s->id, in->s->id, sfx);
    if (o->k8s_namespace) fprintf(f, "  namespace: %s\n", o->k8s_namespace);
    fprintf(f,
        "  labels:\n"
        "    app.kubernetes.io/name: rxlock\n"
        "spec:\n"
        "  completionMode: Indexed\n"
        "  completions: %u\n"
        "  parallelism: %u\n"
        "  backoffLimitPerIndex: %u\n",
        pi->tasks, o->k8s_parallelism && o->k8s_parallelism < pi->tasks ? o->k8s_parallelism : pi->tasks,
        TL_K8S_RETRIES);
    if (o->k8s_deadline) fprintf(f, "  activeDeadlineSeconds: %llu\n", (unsigned long long)o->k8s_deadline);
    if (o->k8s_ttl) fprintf(f, "  ttlSecondsAfterFinished: %llu\n", (unsigned long long)o->k8s_ttl);
    fprintf(f,
        "  podFailurePolicy:\n"
        "    rules:\n"
        "      - action: Ignore            # preemption, eviction, drain: not the task's fault\n"
        "        onPodConditions:\n"
        "          - type: DisruptionTarget\n"
        "      - action: FailIndex         # usage error: retrying cannot help\n"
        "        onExitCodes:\n"
        "          containerName: group\n"
        "          operator: In\n"
        "          values: [2]\n"
        "  template:\n"
        "    metadata:\n"
        "      labels:\n"
        "        app.kubernetes.io/name: rxlock\n"
        "    spec:\n"
        "      restartPolicy: Never\n");
    if (o->k8s_priority_class) fprintf(f, "      priorityClassName: %s\n", o->k8s_priority_class);
    if (o->n_k8s_node_selector) fprintf(f, "      nodeSelector:\n");
    for (uint32_t k = 0; k < o->n_k8s_node_selector; k++) {
        const char *s = o->k8s_node_selector[k], *eq = strchr(s, '=');
        fprintf(f, "        %.*s: \"%s\"\n", (int)(eq - s), s, eq + 1);
    }
    if (o->n_k8s_toleration) fprintf(f, "      tolerations:\n");
    for (uint32_t k = 0; k < o->n_k8s_toleration; k++) {   /* KEY[=VALUE]:EFFECT */
        const char *s = o->k8s_toleration[k], *colon = strrchr(s, ':'), *eq = strchr(s, '=');
        if (eq && eq > colon) eq = NULL;
        fprintf(f, "        - key: %.*s\n          operator: %s\n", (int)((eq ? eq : colon) - s), s, eq ? "Equal" : "Exists");
        if (eq) fprintf(f, "          value: \"%.*s\"\n", (int)(colon - eq - 1), eq + 1);
        fprintf(f, "          effect: %s\n", colon + 1);
    }
    if (o->n_k8s_pull_secret) fprintf(f, "      imagePullSecrets:\n");
    for (uint32_t k = 0; k < o->n_k8s_pull_secret; k++) fprintf(f, "        - name: %s\n", o->k8s_pull_secret[k]);
    fprintf(f,
        "      securityContext:\n"
        "        runAsNonRoot: true\n"
        "        runAsUser: %u\n"
        "        runAsGroup: %u\n"
        "        fsGroup: %u\n"
        "        fsGroupChangePolicy: OnRootMismatch\n"
        "        seccompProfile:\n"
        "          type: RuntimeDefault\n"
        "      containers:\n"
        "        - name: group\n"
        "          image: \"%s\"\n"
        "          imagePullPolicy: IfNotPresent\n"
        "          command: [\"rxlock\", \"group\", %s\"/rxlock/plan\"]\n"
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
        "            capabilities:\n"
        "              drop: [\"ALL\"]\n"
        "          volumeMounts:\n"
        "            - name: plan\n"
        "              mountPath: /rxlock/plan\n",
        in->uid, in->gid, in->gid, image, vf ? "\"--verify\", " : "", pi->batch,
        (unsigned long long)mem, (unsigned long long)mem);
    if (o->pvc_subpath) fprintf(f, "              subPath: \"%s\"\n", o->pvc_subpath);
    fprintf(f,
        "            - name: worker-key\n"
        "              mountPath: /rxlock/worker-key\n"
        "              readOnly: true\n"
        "      volumes:\n"
        "        - name: plan\n"
        "          persistentVolumeClaim:\n"
        "            claimName: %s\n"
        "        - name: worker-key\n"
        "          secret:\n"
        "            secretName: rxlock-%s-worker\n"
        "            defaultMode: 0440\n",
        pvc, in->s->id);
}

/* One job file: written by `fn` (kind vf) into DIR/name. */
static int write_one(const char *dir, const char *name, void (*fn)(FILE *, const job_in *, int),
                     const job_in *in, int vf, mode_t mode, char *err, size_t errlen) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return TL_ENOMEM;
    fn(f, in, vf);
    int ok = !ferror(f);
    ok &= fclose(f) == 0;
    return put_file(dir, name, buf, len, ok, mode, err, errlen);
}

static void submit_fn(FILE *f, const job_in *in, int vf) { (void)vf; submit(f, in); }

/* k8s-submit.sh: the group Job, then, once it is complete, the
 * verification Job (a failed group Job stops it with the way out). */
static void k8s_submit(FILE *f, const job_in *in, int vf) {
    (void)vf;
    char ns[80] = "";
    if (in->o->k8s_namespace) snprintf(ns, sizeof ns, " -n %s", in->o->k8s_namespace);
    fprintf(f,
        "#!/bin/sh\n"
        "# k8s-submit.sh - rxlock plan %s: apply the group Job (k8s-job.yaml), wait until it\n"
        "# is complete, then apply the verification Job (k8s-verify-job.yaml).  Do the\n"
        "# steps at the top of k8s-job.yaml first (image, volume, worker-key Secret).\n"
        "# Usage: sh k8s-submit.sh [--wait]\n"
        "#   --wait  also wait for the verification Job (its exit status)\n"
        "# A failed Job stops it: `kubectl%s describe job NAME`, fix the cause, delete the\n"
        "# Job and run this again (finished pods' results are kept on the volume).\n"
        "set -eu\n"
        "KUBECTL=${KUBECTL:-kubectl}\n"
        "cd \"$(dirname \"$0\")\"\n"
        "wait_job() {\n"
        "  while :; do\n"
        "    s=$($KUBECTL%s get job \"$1\" -o 'jsonpath={.status.conditions[?(@.status==\"True\")].type}')\n"
        "    case \"$s\" in\n"
        "      *Complete*) echo \"rxlock: job $1 complete\"; return 0 ;;\n"
        "      *Failed*) echo \"rxlock: job $1 failed: kubectl%s describe job $1\" >&2; return 1 ;;\n"
        "    esac\n"
        "    sleep \"${RXLOCK_POLL_SECONDS:-30}\"\n"
        "  done\n"
        "}\n"
        "$KUBECTL%s apply -f k8s-job.yaml\n"
        "wait_job rxlock-%s\n"
        "$KUBECTL%s apply -f k8s-verify-job.yaml\n"
        "if [ \"${1:-}\" = --wait ]; then wait_job rxlock-%s-verify; fi\n",
        in->s->id, ns, ns, ns, ns, in->s->id, ns, in->s->id);
}

static const char *const job_files[] = { "slurm.sbatch", "k8s-job.yaml", "slurm-verify.sbatch",
                                         "slurm-submit.sh", "k8s-verify-job.yaml", "k8s-submit.sh" };

void cli_plan_jobs_remove(const char *dir) {
    char path[PATH_MAX];
    for (size_t k = 0; k < sizeof job_files / sizeof job_files[0]; k++)
        if (snprintf(path, sizeof path, "%s/%s", dir, job_files[k]) < (int)sizeof path) (void)unlink(path);
}

/* The pod's user and group: the options', else the owner of the plan
 * directory (not root), else the image's user. */
static void k8s_ids(const char *rdir, const cli_plan_jobs *o, uint32_t *uid, uint32_t *gid) {
    struct stat st;
    int owner = stat(rdir, &st) == 0 && st.st_uid != 0;
    *uid = o->k8s_uid ? o->k8s_uid : owner ? (uint32_t)st.st_uid : TL_K8S_DEFAULT_ID;
    *gid = o->k8s_gid ? o->k8s_gid : owner && st.st_gid != 0 ? (uint32_t)st.st_gid : TL_K8S_DEFAULT_ID;
}

int cli_plan_jobs_write(const tl_plan_summary *s, void *ctx, char *err, size_t errlen) {
    cli_plan_jobs *o = ctx;
    const char *dir = s->dir;
    job_in in = { .s = s, .o = o, .time_limit = o->time_limit };
    k8s_ids(dir, o, &in.uid, &in.gid);
    o->wrote = 1;
    int rc = write_one(dir, job_files[0], sbatch, &in, 0, 0755, err, errlen);
    if (rc == TL_OK) rc = write_one(dir, job_files[1], k8s, &in, 0, 0644, err, errlen);
    if (rc == TL_OK && VERIFIES(s)) {               /* the verification array */
        rc = write_one(dir, job_files[2], sbatch, &in, 1, 0755, err, errlen);
        if (rc == TL_OK) rc = write_one(dir, job_files[3], submit_fn, &in, 0, 0755, err, errlen);
        if (rc == TL_OK) rc = write_one(dir, job_files[4], k8s, &in, 1, 0644, err, errlen);
        if (rc == TL_OK) rc = write_one(dir, job_files[5], k8s_submit, &in, 0, 0755, err, errlen);
    } else if (rc == TL_OK) {                        /* --force over a verified plan */
        char path[PATH_MAX];
        for (int k = 2; k < 6; k++)
            if (snprintf(path, sizeof path, "%s/%s", dir, job_files[k]) < (int)sizeof path) (void)unlink(path);
    }
    if (rc != TL_OK) cli_plan_jobs_remove(dir);
    return rc;
}
