/* SPDX-License-Identifier: ISC */
/* src/lock/plan_internal.h — shared internals of generation on a cluster
 * (docs/FORMAT.md §Cluster plan): the plan directory's file names, the
 * plan.json reader, the X25519 key files, and the sealed job, result,
 * checkpoint and plan-secrets records. */
#ifndef RXLOCK_PLAN_INTERNAL_H
#define RXLOCK_PLAN_INTERNAL_H
#include "tl_internal.h"
#include <stddef.h>
#include <stdint.h>

#define TL_JOB_HDR      112
#define TL_JOB_PT       160
#define TL_JOB_SIZE     (TL_JOB_HDR + TL_JOB_PT + 16)        /* 288 */
#define TL_RESULT_HDR   120
#define TL_RESULT_SIZE  (TL_RESULT_HDR + 48 + 32)           /* 200 */
#define TL_CKPT_HDR     88
#define TL_CKPT_SIZE    (TL_CKPT_HDR + 48)                  /* 136 */
#define TL_SECRETS_HDR  80
#define TL_SECRETS_ENTRY 88                                 /* nonce 24, seed 32, result key 32 */
#define TL_PLAN_JSON_MAX (1u << 20)

/* The public plan (plan.json). */
typedef struct {
    tl_puzzle pub;            /* the puzzle's header fields; wraps NULL, unsigned */
    uint8_t  D[32];           /* plan digest = H of the unsigned header */
    tl_mode  mode;
    uint32_t batch, tasks;
    uint8_t  worker_pk[32], planner_pk[32];
    /* issue 20, plan version 2: verification as extra tasks.  verify is
     * TL_VERIFY_NONE (or 0: a version-1 plan), _SAMPLE or _FULL; the group
     * tasks record a sealed chain value every ckpt_steps steps
     * (results/group-NNNN.segs), the verification tasks recompute the
     * picked segments (results/group-NNNN.verify). */
    int      verify;
    uint32_t verify_ppm;      /* share of segments picked, per million (FULL: 1000000) */
    uint64_t ckpt_steps;      /* C */
    uint32_t nseg;            /* segments per group: ceil(S / C) */
} tl_plan_info;
/* Does this plan verify its chains? */
#define TL_PLAN_VERIFIES(pi) ((pi)->verify == TL_VERIFY_SAMPLE || (pi)->verify == TL_VERIFY_FULL)
/* Is segment k (1-based) of the group with result key rkey picked for
 * verification at ppm per million?  BLAKE2b keyed with r_g, so only the
 * planner and the workers know the sample (docs/FORMAT.md §Cluster plan). */
int tl_plan_verify_pick(const uint8_t rkey[32], uint32_t k, uint32_t ppm);
/* The group task of group g, and the verification task that checks it
 * (task t's groups are checked by verification task (t - 1) mod T, so
 * verification index v checks the groups of group task (v + 1) mod T). */
#define TL_PLAN_TASK_OF(pi, g) (((g) - 1) / (pi)->batch)
#define TL_PLAN_VTASK_OF(pi, g) ((TL_PLAN_TASK_OF(pi, g) + (pi)->tasks - 1) % (pi)->tasks)

/* What a task needs for one group (the job file's plaintext). */
typedef struct {
    tl_work_type work;
    tl_mode  mode;
    uint32_t groups;
    uint64_t steps;
    uint8_t  id[16], key[32], planner_pk[32];
    uint8_t  seed[32];        /* s_g: secret for g > 1 */
    uint8_t  rkey[32];        /* r_g: authenticates the group's result / checkpoint */
} tl_job;

/* The job files (src/lock/plan_scripts.c): what they are written from. */
typedef struct {
    const tl_plan_info *pi;
    const tl_plan_opts *o;
    const char *rdir;             /* the plan directory, resolved            */
    const char *wk_local;         /* the worker key's path on the planner's host */
    char     id[13];              /* D, 12 hex: the job and Secret names     */
    uint64_t time_limit;          /* seconds (tl_plan_time_limit), 0 = none  */
    uint32_t uid, gid;            /* the pod's user and group                */
} tl_plan_job_files;
/* Letters, digits and /._-+,:=@ only (written into the scripts unquoted). */
int  tl_plan_script_safe(const char *s);
/* The operator's settings in o: TL_OK or TL_EINVAL with err set. */
int  tl_plan_scripts_check(const tl_plan_opts *o, char *err, size_t errlen);
/* The pod's user and group: o's, else the owner of rdir (not root), else 65532. */
void tl_plan_k8s_ids(const char *rdir, const tl_plan_opts *o, uint32_t *uid, uint32_t *gid);
/* Write DIR/slurm.sbatch and DIR/k8s-job.yaml (replacing them). */
int  tl_plan_scripts_write(const char *dir, const tl_plan_job_files *in, char *err, size_t errlen);
/* Every secret of a new puzzle (draw.c), in plan.secrets' layout followed
 * by the planner and worker secret keys: x, G x (nonce_g, s_g, r_g), psk,
 * wsk (tl_draw_size(G) bytes; the caller's locked memory).  Fills pi's
 * public header (unsigned, unverified), D, planner_pk and worker_pk. */
size_t tl_draw_size(uint32_t G);
int tl_draw(tl_plan_info *pi, uint8_t *sec, const tl_params *p);
/* The finished puzzle (finish.c): pz holds the header fields (wraps NULL,
 * verification set); sec in the layout above, e = e_1 .. e_G.  Seals the
 * wraps, signs with sign_sk when given, self-checks every wrap, emits the
 * canonical text; pk = X, keep_sk (if given) = x. */
int tl_finish(tl_puzzle *pz, const uint8_t *sec, const uint8_t *e, const uint8_t *sign_sk,
              char **json, size_t *json_len, uint8_t pk[32], uint8_t *keep_sk);

/* "DIR/jobs/group-0001.job", "DIR/results/group-0001.result", ".ckpt",
 * ".segs" (kind "segs"), ".verify";
 * -1 when the path does not fit. */
int tl_plan_path(char *buf, size_t cap, const char *dir, const char *kind, uint32_t g);

/* plan.json: strict parse (everything bounded, D recomputed and checked). */
int tl_plan_info_load(const char *dir, tl_plan_info *pi, char *err, size_t errlen);
int tl_plan_info_json(const tl_plan_info *pi, char **out, size_t *len);

/* X25519 key files ("# ..." lines, then 64 hex digits of the secret key). */
int tl_plan_key_save(const char *path, const uint8_t sk[32], const char *title, int force);
int tl_plan_key_load(const char *path, uint8_t sk[32], uint8_t pk[32]);
/* The plan's `role` key ("planner", "worker") from path, refused unless its
 * public key is want_pk: the one check assemble and the group task make. */
int tl_plan_key_load_for(const char *path, const char *role, const uint8_t want_pk[32], uint8_t sk[32],
                         uint8_t pk[32], char *err, size_t errlen);

int  tl_job_seal(uint8_t out[TL_JOB_SIZE], const uint8_t D[32], uint32_t g, const tl_job *j,
                 const uint8_t worker_pk[32]);
/* 0, TL_EFORMAT (not a job file / other plan / other group), TL_EAUTH. */
int  tl_job_open(tl_job *j, const uint8_t in[TL_JOB_SIZE], const uint8_t D[32], uint32_t g,
                 const uint8_t worker_sk[32]);

int  tl_result_seal(uint8_t out[TL_RESULT_SIZE], const uint8_t D[32], uint32_t g, uint64_t S,
                    const uint8_t e[32], const uint8_t planner_pk[32], const uint8_t rkey[32]);
/* Header and MAC only (what a task can check without the planner key).
 * 0, TL_EFORMAT with *why set, or TL_EAUTH. */
int  tl_result_check(const uint8_t in[TL_RESULT_SIZE], const uint8_t D[32], uint32_t g, uint64_t S,
                     const uint8_t rkey[32], const char **why);
int  tl_result_open(uint8_t e[32], const uint8_t in[TL_RESULT_SIZE], const uint8_t D[32], uint32_t g,
                    uint64_t S, const uint8_t rkey[32], const uint8_t planner_sk[32], const char **why);

void tl_ckpt_seal(uint8_t out[TL_CKPT_SIZE], const uint8_t D[32], uint32_t g, uint64_t i,
                  const uint8_t d[32], const uint8_t rkey[32]);
int  tl_ckpt_open(uint64_t *i, uint8_t d[32], const uint8_t in[TL_CKPT_SIZE], const uint8_t D[32],
                  uint32_t g, const uint8_t rkey[32]);

/* plan.secrets: x, then (nonce_g, s_g, r_g) for g = 1..G, under a key
 * derived from the planner's secret key and D. */
size_t tl_secrets_size(uint32_t G);
int  tl_secrets_seal(uint8_t *out, const uint8_t D[32], uint32_t G, const uint8_t *pt,
                     const uint8_t planner_sk[32]);
int  tl_secrets_open(uint8_t *pt, const uint8_t *in, size_t len, const uint8_t D[32], uint32_t G,
                     const uint8_t planner_sk[32]);
#endif
