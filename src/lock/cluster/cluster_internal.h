/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/cluster_internal.h — the internals of generation on a
 * cluster (docs/FORMAT.md §Cluster plan; docs/DESIGN.md §4, room cluster/):
 * the sealed job, result and checkpoint records, the verification sample,
 * and a verified plan's record files. */
#ifndef RXLOCK_CLUSTER_INTERNAL_H
#define RXLOCK_CLUSTER_INTERNAL_H
#include "lock/gen/gen_internal.h"
#include <stddef.h>
#include <stdint.h>

#define TL_JOB_HDR      112
#define TL_JOB_PT       160
#define TL_JOB_SIZE     (TL_JOB_HDR + TL_JOB_PT + 16)        /* 288 */
#define TL_RESULT_HDR   120
#define TL_RESULT_SIZE  (TL_RESULT_HDR + 48 + 32)           /* 200 */
#define TL_CKPT_HDR     88
#define TL_CKPT_SIZE    (TL_CKPT_HDR + 48)                  /* 136 */


/* plan.secrets of a cluster plan: tl_secrets_seal / _open under a binding
 * of D and the plan's verification (method, share, C), so that plan.json
 * cannot be edited to verify less (open: a plan sealed before the binding,
 * under D alone, still opens). */
int tl_plan_secrets_seal(uint8_t *out, const tl_plan_info *pi, const uint8_t *pt, const uint8_t planner_sk[32]);
int tl_plan_secrets_open(uint8_t *pt, const uint8_t *in, size_t len, const tl_plan_info *pi,
                         const uint8_t planner_sk[32]);

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

/* ---- a verified plan's record files (plan_segs.c) ------------------------ */
/* Where segment k (1..nseg) of a plan's chains ends: k*C, the last at S. */
uint64_t tl_plan_seg_end(const tl_plan_info *pi, uint32_t k);
/* A group's recorded chain values (.segs): val[k] = d at the end of segment
 * k for k = 1..have (val: (nseg + 1) x 32 bytes, val[0] the caller's);
 * pid / host (nseg + 1 entries) optional. */
typedef struct {
    uint32_t have;
    uint8_t *val;
    long    *pid;
    char   (*host)[TL_HOST_MAX];
} tl_plan_chain;
int tl_plan_chain_read(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t rkey[32], int cut,
                       tl_plan_chain *c);
/* A group's verification records (.verify) against c: state[k] (nseg + 1
 * bytes) 0 = none, MATCHED, or DIFFERS (which a later record never
 * outvotes); bad = how many differ, first_bad the first; pid / host of the
 * verifier, optional. */
#define TL_PLAN_MATCHED 1
#define TL_PLAN_DIFFERS 2
typedef struct {
    uint8_t *state;
    long    *pid;
    char   (*host)[TL_HOST_MAX];
    uint32_t bad, first_bad;
} tl_plan_checks;
int tl_plan_checks_read(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t rkey[32], int cut,
                        const tl_plan_chain *c, tl_plan_checks *v);
#endif
