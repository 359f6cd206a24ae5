/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/plan_files.c — the sealed records only a cluster plan
 * has (docs/FORMAT.md §Cluster plan): job files (to the worker key),
 * result files (to the planner key, MAC'd with the group's result key
 * r_g), checkpoints (under r_g), and the verification sample.  Pure
 * encode / decode; the callers do the I/O.  The records a local generation
 * shares (segments, plan.secrets, key files, plan.json) are gen/'s. */
#include "cluster_internal.h"
#include "util/util.h"
#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char JOB_MAGIC[16] = "rxlock-job/v1";        /* + 3 NUL */
static const char RES_MAGIC[16] = { 'r','x','l','o','c','k','-','r','e','s','u','l','t','/','v','1' };
static const char CKPT_MAGIC[16] = "rxlock-ckpt/v1";      /* + 2 NUL */

/* ---- job files ---------------------------------------------------------- */
int tl_job_seal(uint8_t out[TL_JOB_SIZE], const uint8_t D[32], uint32_t g, const tl_job *j,
                const uint8_t worker_pk[32]) {
    uint8_t pt[TL_JOB_PT], k[32];
    memset(out, 0, TL_JOB_HDR);
    memcpy(out, JOB_MAGIC, 16);
    memcpy(out + 16, D, 32);
    tl_put32(out + 48, g);
    memset(pt, 0, sizeof pt);
    pt[0] = (uint8_t)j->work;
    pt[1] = j->mode == TL_MODE_FULL ? 1 : 0;   /* the job file's byte: 0 light, 1 full */
    tl_put32(pt + 4, j->groups);
    tl_put64(pt + 8, j->steps);
    memcpy(pt + 16, j->id, 16);
    memcpy(pt + 32, j->key, 32);
    memcpy(pt + 64, j->planner_pk, 32);
    memcpy(pt + 96, j->seed, 32);
    memcpy(pt + 128, j->rkey, 32);
    int rc = tl_rec_seal_key(k, out + 56, "plan-job-eph", g, worker_pk, "rxlock/job/v1");
    if (rc == TL_OK) rc = tl_random(out + 88, 24, "plan-job-nonce", g);
    if (rc == TL_OK) rc = tl_rec_aead_seal(out + TL_JOB_HDR, pt, sizeof pt, out, TL_JOB_HDR, out + 88, k);
    sodium_memzero(pt, sizeof pt);
    sodium_memzero(k, sizeof k);
    return rc;
}

int tl_job_open(tl_job *j, const uint8_t in[TL_JOB_SIZE], const uint8_t D[32], uint32_t g,
                const uint8_t worker_sk[32]) {
    uint8_t pt[TL_JOB_PT], k[32];
    if (memcmp(in, JOB_MAGIC, 16) != 0 || tl_get32(in + 52) != 0) return TL_EFORMAT;
    if (sodium_memcmp(in + 16, D, 32) != 0 || tl_get32(in + 48) != g) return TL_EFORMAT;
    int rc = tl_rec_open_key(k, in + 56, worker_sk, "rxlock/job/v1");
    if (rc == TL_OK) rc = tl_rec_aead_open(pt, in + TL_JOB_HDR, TL_JOB_PT, in, TL_JOB_HDR, in + 88, k);
    sodium_memzero(k, sizeof k);
    if (rc) return rc;
    memset(j, 0, sizeof *j);
    j->work = (tl_work_type)pt[0];
    j->mode = pt[1] ? TL_MODE_FULL : TL_MODE_LIGHT;
    j->groups = tl_get32(pt + 4);
    j->steps = tl_get64(pt + 8);
    memcpy(j->id, pt + 16, 16);
    memcpy(j->key, pt + 32, 32);
    memcpy(j->planner_pk, pt + 64, 32);
    memcpy(j->seed, pt + 96, 32);
    memcpy(j->rkey, pt + 128, 32);
    if (!tl_work_name(j->work) || pt[1] > 1 || pt[2] || pt[3] || j->groups < 1 || j->groups > TL_MAX_GROUPS ||
        g > j->groups || j->steps < 1 || j->steps > TL_MAX_STEPS)
        rc = TL_EFORMAT;
    sodium_memzero(pt, sizeof pt);
    if (rc) sodium_memzero(j, sizeof *j);
    return rc;
}

/* ---- result files ------------------------------------------------------- */
static void result_mac(uint8_t mac[32], const uint8_t *in, const uint8_t rkey[32]) {
    tl_rec_kdf(mac, rkey, "rxlock/result-mac/v1", in, TL_RESULT_HDR + 48, NULL, 0);
}

int tl_result_seal(uint8_t out[TL_RESULT_SIZE], const uint8_t D[32], uint32_t g, uint64_t S,
                   const uint8_t e[32], const uint8_t planner_pk[32], const uint8_t rkey[32]) {
    uint8_t k[32];
    memset(out, 0, TL_RESULT_SIZE);
    memcpy(out, RES_MAGIC, 16);
    memcpy(out + 16, D, 32);
    tl_put32(out + 48, g);
    tl_put64(out + 56, S);
    int rc = tl_rec_seal_key(k, out + 64, "plan-result-eph", g, planner_pk, "rxlock/result/v1");
    if (rc == TL_OK) rc = tl_random(out + 96, 24, "plan-result-nonce", g);
    if (rc == TL_OK) rc = tl_rec_aead_seal(out + TL_RESULT_HDR, e, 32, out, TL_RESULT_HDR, out + 96, k);
    if (rc == TL_OK) result_mac(out + TL_RESULT_HDR + 48, out, rkey);
    sodium_memzero(k, sizeof k);
    return rc;
}

int tl_result_check(const uint8_t in[TL_RESULT_SIZE], const uint8_t D[32], uint32_t g, uint64_t S,
                    const uint8_t rkey[32], const char **why) {
    static const char *dummy;
    uint8_t mac[32];
    if (!why) why = &dummy;
    if (memcmp(in, RES_MAGIC, 16) != 0 || tl_get32(in + 52) != 0) { *why = "not a result file"; return TL_EFORMAT; }
    if (sodium_memcmp(in + 16, D, 32) != 0) { *why = "belongs to another plan"; return TL_EFORMAT; }
    if (tl_get32(in + 48) != g) { *why = "holds another group's result"; return TL_EFORMAT; }
    if (tl_get64(in + 56) != S) { *why = "computed for a different number of steps"; return TL_EFORMAT; }
    result_mac(mac, in, rkey);
    int ok = sodium_memcmp(mac, in + TL_RESULT_HDR + 48, 32) == 0;
    sodium_memzero(mac, sizeof mac);
    if (!ok) { *why = "not authentic (tampered or forged)"; return TL_EAUTH; }
    return TL_OK;
}

int tl_result_open(uint8_t e[32], const uint8_t in[TL_RESULT_SIZE], const uint8_t D[32], uint32_t g,
                   uint64_t S, const uint8_t rkey[32], const uint8_t planner_sk[32], const char **why) {
    uint8_t k[32];
    int rc = tl_result_check(in, D, g, S, rkey, why);
    if (rc) return rc;
    rc = tl_rec_open_key(k, in + 64, planner_sk, "rxlock/result/v1");
    if (rc == TL_OK) rc = tl_rec_aead_open(e, in + TL_RESULT_HDR, 32, in, TL_RESULT_HDR, in + 96, k);
    sodium_memzero(k, sizeof k);
    if (rc && why) *why = "does not decrypt with this planner key";
    return rc;
}

/* ---- checkpoints -------------------------------------------------------- */
void tl_ckpt_seal(uint8_t out[TL_CKPT_SIZE], const uint8_t D[32], uint32_t g, uint64_t i,
                  const uint8_t d[32], const uint8_t rkey[32]) {
    uint8_t k[32];
    memset(out, 0, TL_CKPT_SIZE);
    memcpy(out, CKPT_MAGIC, 16);
    memcpy(out + 16, D, 32);
    tl_put32(out + 48, g);
    tl_put64(out + 56, i);
    if (tl_random(out + 64, 24, "plan-ckpt-nonce", i) != TL_OK) randombytes_buf(out + 64, 24);
    tl_rec_kdf(k, rkey, "rxlock/checkpoint/v1", NULL, 0, NULL, 0);
    if (tl_rec_aead_seal(out + TL_CKPT_HDR, d, 32, out, TL_CKPT_HDR, out + 64, k) != TL_OK)
        memset(out, 0, TL_CKPT_SIZE);        /* unreadable: ignored on resume */
    sodium_memzero(k, sizeof k);
}

int tl_ckpt_open(uint64_t *i, uint8_t d[32], const uint8_t in[TL_CKPT_SIZE], const uint8_t D[32],
                 uint32_t g, const uint8_t rkey[32]) {
    uint8_t k[32];
    if (memcmp(in, CKPT_MAGIC, 16) != 0 || sodium_memcmp(in + 16, D, 32) != 0 || tl_get32(in + 48) != g ||
        tl_get32(in + 52) != 0)
        return TL_EFORMAT;
    tl_rec_kdf(k, rkey, "rxlock/checkpoint/v1", NULL, 0, NULL, 0);
    int rc = tl_rec_aead_open(d, in + TL_CKPT_HDR, 32, in, TL_CKPT_HDR, in + 64, k);
    sodium_memzero(k, sizeof k);
    if (rc == TL_OK) *i = tl_get64(in + 56);
    return rc;
}
int tl_plan_verify_pick(const uint8_t rkey[32], uint32_t k, uint32_t ppm) {
    uint8_t h[32], kb[4];
    if (ppm >= 1000000u) return 1;
    tl_put32(kb, k);
    tl_rec_kdf(h, rkey, "rxlock/verify-sample/v1", kb, 4, NULL, 0);
    int pick = (uint64_t)tl_get32(h) * 1000000u < ((uint64_t)ppm << 32);
    sodium_memzero(h, sizeof h);
    return pick;
}

/* ---- plan.secrets bound to plan.json's verification --------------------- */
/* The plan's secrets are sealed under a binding of D and the verification
 * the plan asks for (method, share, C): plan.json's "verify" is not part of
 * the puzzle header D covers, so without it a plan.json edited to ask for
 * none (or version 1) would let assemble publish an unverified puzzle. */
static void secrets_binding(uint8_t out[32], const tl_plan_info *pi) {
    uint8_t m[24 + 32 + 1 + 4 + 8];
    memcpy(m, "rxlock/plan-secrets/vfy", 24);   /* + NUL */
    memcpy(m + 24, pi->D, 32);
    m[56] = (uint8_t)pi->verify;
    tl_put32(m + 57, TL_PLAN_VERIFIES(pi) ? pi->verify_ppm : 0);
    tl_put64(m + 61, TL_PLAN_VERIFIES(pi) ? pi->ckpt_steps : 0);
    crypto_generichash(out, 32, m, sizeof m, NULL, 0);
}

int tl_plan_secrets_seal(uint8_t *out, const tl_plan_info *pi, const uint8_t *pt, const uint8_t planner_sk[32]) {
    uint8_t b[32];
    secrets_binding(b, pi);
    return tl_secrets_seal(out, b, pi->pub.groups, pt, planner_sk);
}

int tl_plan_secrets_open(uint8_t *pt, const uint8_t *in, size_t len, const tl_plan_info *pi,
                         const uint8_t planner_sk[32]) {
    uint8_t b[32];
    secrets_binding(b, pi);
    int rc = tl_secrets_open(pt, in, len, b, pi->pub.groups, planner_sk);
    /* a plan made before the binding: its secrets are sealed under D alone */
    if (rc == TL_EFORMAT && len >= 48 && sodium_memcmp(in + 16, pi->D, 32) == 0)
        rc = tl_secrets_open(pt, in, len, pi->D, pi->pub.groups, planner_sk);
    return rc;
}
