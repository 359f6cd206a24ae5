/* SPDX-License-Identifier: ISC */
/* src/cli/plan_scripts.h — the job-file settings and writer that `rxlock plan` and `beacon run --cluster` share
 * (src/cli/plan_scripts.c; docs/FORMAT.md §Job scripts). */
#ifndef RXLOCK_CLI_PLAN_SCRIPTS_H
#define RXLOCK_CLI_PLAN_SCRIPTS_H
#include "rxlock/rxlock.h"
#include <stddef.h>
#include <stdint.h>

#define CLI_PLAN_SBATCH_EXTRA_MAX 32
#define CLI_PLAN_K8S_LIST_MAX     16
/* The operator's job-file settings; 0 / NULL = the default.  Strings are
 * checked by cli_plan_jobs_check (a bounded character set each: they are
 * written into a script and a manifest unquoted). */
typedef struct {
    uint64_t slurm_time;          /* seconds; 0 = derived (cli_plan_jobs_time_limit) */
    uint64_t task_rate_mhps;      /* one group's rate on the nodes, in the tasks'
                                     mode, milli-hashes/s; 0 = the plan's rate */
    const char *slurm_partition;  /* #SBATCH --partition                    */
    const char *slurm_account;    /* #SBATCH --account                      */
    const char *slurm_log_dir;    /* #SBATCH --output's directory; NULL = logs
                                     (relative: the job's working directory, the
                                     plan directory it is submitted from) */
    const char *const *sbatch_extra; /* n_sbatch_extra lines "--opt[=value]" */
    uint32_t n_sbatch_extra;      /* at most CLI_PLAN_SBATCH_EXTRA_MAX       */
    const char *node_worker_key;  /* the worker key's absolute path on the nodes
                                     (sbatch); NULL = $HOME/.rxlock/ + the
                                     worker key file's name */
    const char *image;            /* container image; NULL = localhost/rxlock:VERSION */
    const char *pvc;              /* the plan volume's claim; NULL = rxlock-plan */
    const char *pvc_subpath;      /* the plan directory inside it; NULL = its root */
    const char *k8s_namespace;    /* NULL = none (kubectl's current)        */
    uint32_t k8s_uid, k8s_gid;    /* pod user/group (non-root); 0 = the plan
                                     directory's owner, else 65532          */
    uint32_t k8s_parallelism;     /* at most this many pods at once; 0 = every task */
    uint64_t k8s_deadline;        /* activeDeadlineSeconds; 0 = none        */
    uint64_t k8s_ttl;             /* ttlSecondsAfterFinished; 0 = none      */
    const char *k8s_priority_class; /* priorityClassName; NULL = none       */
    const char *const *k8s_pull_secret;   /* imagePullSecrets names         */
    const char *const *k8s_node_selector; /* "KEY=VALUE"                    */
    const char *const *k8s_toleration;    /* "KEY[=VALUE]:EFFECT"           */
    uint32_t n_k8s_pull_secret, n_k8s_node_selector, n_k8s_toleration;   /* each <= CLI_PLAN_K8S_LIST_MAX */
    uint64_t time_limit;          /* set by the caller: cli_plan_jobs_time_limit */
    int      wrote;               /* set by cli_plan_jobs_write              */
} cli_plan_jobs;

/* 0, or -1 with err naming the option and what it wants. */
int cli_plan_jobs_check(const cli_plan_jobs *o, char *err, size_t errlen);
/* The Slurm time limit (seconds, whole minutes): --slurm-time, else
 * tl_plan_time_limit at --task-rate or the plan's rate; 0 = none. */
uint64_t cli_plan_jobs_time_limit(const cli_plan_jobs *o, const tl_params *p, tl_mode mode);
/* tl_plan_opts.job_files (ctx: the cli_plan_jobs): writes the job files
 * into s->dir; on failure removes them again. */
int cli_plan_jobs_write(const tl_plan_summary *s, void *ctx, char *err, size_t errlen);
/* Remove the job files from dir (a plan that failed after they were written). */
void cli_plan_jobs_remove(const char *dir);
#endif
