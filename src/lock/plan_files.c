/* SPDX-License-Identifier: ISC */
/* src/lock/plan_files.c — the files of a cluster plan (docs/FORMAT.md
 * §Cluster plan): plan.json (public, strictly parsed, bound to the plan
 * digest D), X25519 key files, and the sealed records — job files (to the
 * worker key), result files (to the planner key, MAC'd with the group's
 * result key r_g), checkpoints (under r_g) and plan.secrets (under the
 * planner key).  Pure encode / decode; the callers do the I/O. */
#include "gen_internal.h"
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
static const char SEC_MAGIC[16] = { 'r','x','l','o','c','k','-','s','e','c','r','e','t','s','/','1' };


int tl_plan_path(char *buf, size_t cap, const char *dir, const char *kind, uint32_t g) {
    int n;
    if (!strcmp(kind, "job")) n = snprintf(buf, cap, "%s/jobs/group-%04u.job", dir, g);
    else if (!strcmp(kind, "result")) n = snprintf(buf, cap, "%s/results/group-%04u.result", dir, g);
    else if (!strcmp(kind, "ckpt")) n = snprintf(buf, cap, "%s/results/group-%04u.ckpt", dir, g);
    else if (!strcmp(kind, "segs")) n = snprintf(buf, cap, "%s/results/group-%04u.segs", dir, g);
    else if (!strcmp(kind, "verify")) n = snprintf(buf, cap, "%s/results/group-%04u.verify", dir, g);
    else n = snprintf(buf, cap, "%s/%s", dir, kind);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* BLAKE2b-256(key, label || a || b) */
static void kdf(uint8_t out[32], const uint8_t key[32], const char *label,
                const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    crypto_generichash_state st;
    crypto_generichash_init(&st, key, 32, 32);
    crypto_generichash_update(&st, (const uint8_t *)label, strlen(label));
    if (a) crypto_generichash_update(&st, a, alen);
    if (b) crypto_generichash_update(&st, b, blen);
    crypto_generichash_final(&st, out, 32);
}

/* Ephemeral-static X25519 key for a record sealed to `to_pk`. */
static int seal_key(uint8_t k[32], uint8_t eph_pk[32], const char *label, uint32_t g,
                    const uint8_t to_pk[32], const char *kdf_label) {
    uint8_t esk[32], shared[32];
    int rc = tl_random(esk, 32, label, g);
    if (rc == TL_OK && (crypto_scalarmult_base(eph_pk, esk) != 0 || crypto_scalarmult(shared, esk, to_pk) != 0))
        rc = TL_EINVAL;
    if (rc == TL_OK) kdf(k, shared, kdf_label, eph_pk, 32, to_pk, 32);
    sodium_memzero(esk, sizeof esk);
    sodium_memzero(shared, sizeof shared);
    return rc;
}

static int open_key(uint8_t k[32], const uint8_t eph_pk[32], const uint8_t sk[32], const char *kdf_label) {
    uint8_t shared[32], pk[32];
    if (crypto_scalarmult_base(pk, sk) != 0 || crypto_scalarmult(shared, sk, eph_pk) != 0) {
        sodium_memzero(shared, sizeof shared);
        return TL_EAUTH;
    }
    kdf(k, shared, kdf_label, eph_pk, 32, pk, 32);
    sodium_memzero(shared, sizeof shared);
    return TL_OK;
}

static int aead_seal(uint8_t *ct, const uint8_t *pt, size_t len, const uint8_t *aad, size_t alen,
                     const uint8_t nonce[24], const uint8_t k[32]) {
    unsigned long long clen = 0;
    return crypto_aead_xchacha20poly1305_ietf_encrypt(ct, &clen, pt, len, aad, alen, NULL, nonce, k) == 0 &&
           clen == len + 16 ? TL_OK : TL_EINVAL;
}

static int aead_open(uint8_t *pt, const uint8_t *ct, size_t len, const uint8_t *aad, size_t alen,
                     const uint8_t nonce[24], const uint8_t k[32]) {
    unsigned long long plen = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &plen, NULL, ct, len + 16, aad, alen, nonce, k) != 0 ||
        plen != len) {
        sodium_memzero(pt, len);
        return TL_EAUTH;
    }
    return TL_OK;
}

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
    pt[1] = (uint8_t)j->mode;
    tl_put32(pt + 4, j->groups);
    tl_put64(pt + 8, j->steps);
    memcpy(pt + 16, j->id, 16);
    memcpy(pt + 32, j->key, 32);
    memcpy(pt + 64, j->planner_pk, 32);
    memcpy(pt + 96, j->seed, 32);
    memcpy(pt + 128, j->rkey, 32);
    int rc = seal_key(k, out + 56, "plan-job-eph", g, worker_pk, "rxlock/job/v1");
    if (rc == TL_OK) rc = tl_random(out + 88, 24, "plan-job-nonce", g);
    if (rc == TL_OK) rc = aead_seal(out + TL_JOB_HDR, pt, sizeof pt, out, TL_JOB_HDR, out + 88, k);
    sodium_memzero(pt, sizeof pt);
    sodium_memzero(k, sizeof k);
    return rc;
}

int tl_job_open(tl_job *j, const uint8_t in[TL_JOB_SIZE], const uint8_t D[32], uint32_t g,
                const uint8_t worker_sk[32]) {
    uint8_t pt[TL_JOB_PT], k[32];
    if (memcmp(in, JOB_MAGIC, 16) != 0 || tl_get32(in + 52) != 0) return TL_EFORMAT;
    if (sodium_memcmp(in + 16, D, 32) != 0 || tl_get32(in + 48) != g) return TL_EFORMAT;
    int rc = open_key(k, in + 56, worker_sk, "rxlock/job/v1");
    if (rc == TL_OK) rc = aead_open(pt, in + TL_JOB_HDR, TL_JOB_PT, in, TL_JOB_HDR, in + 88, k);
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
    kdf(mac, rkey, "rxlock/result-mac/v1", in, TL_RESULT_HDR + 48, NULL, 0);
}

int tl_result_seal(uint8_t out[TL_RESULT_SIZE], const uint8_t D[32], uint32_t g, uint64_t S,
                   const uint8_t e[32], const uint8_t planner_pk[32], const uint8_t rkey[32]) {
    uint8_t k[32];
    memset(out, 0, TL_RESULT_SIZE);
    memcpy(out, RES_MAGIC, 16);
    memcpy(out + 16, D, 32);
    tl_put32(out + 48, g);
    tl_put64(out + 56, S);
    int rc = seal_key(k, out + 64, "plan-result-eph", g, planner_pk, "rxlock/result/v1");
    if (rc == TL_OK) rc = tl_random(out + 96, 24, "plan-result-nonce", g);
    if (rc == TL_OK) rc = aead_seal(out + TL_RESULT_HDR, e, 32, out, TL_RESULT_HDR, out + 96, k);
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
    rc = open_key(k, in + 64, planner_sk, "rxlock/result/v1");
    if (rc == TL_OK) rc = aead_open(e, in + TL_RESULT_HDR, 32, in, TL_RESULT_HDR, in + 96, k);
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
    kdf(k, rkey, "rxlock/checkpoint/v1", NULL, 0, NULL, 0);
    if (aead_seal(out + TL_CKPT_HDR, d, 32, out, TL_CKPT_HDR, out + 64, k) != TL_OK)
        memset(out, 0, TL_CKPT_SIZE);        /* unreadable: ignored on resume */
    sodium_memzero(k, sizeof k);
}

int tl_ckpt_open(uint64_t *i, uint8_t d[32], const uint8_t in[TL_CKPT_SIZE], const uint8_t D[32],
                 uint32_t g, const uint8_t rkey[32]) {
    uint8_t k[32];
    if (memcmp(in, CKPT_MAGIC, 16) != 0 || sodium_memcmp(in + 16, D, 32) != 0 || tl_get32(in + 48) != g ||
        tl_get32(in + 52) != 0)
        return TL_EFORMAT;
    kdf(k, rkey, "rxlock/checkpoint/v1", NULL, 0, NULL, 0);
    int rc = aead_open(d, in + TL_CKPT_HDR, 32, in, TL_CKPT_HDR, in + 64, k);
    sodium_memzero(k, sizeof k);
    if (rc == TL_OK) *i = tl_get64(in + 56);
    return rc;
}

/* ---- issue 20: segment records of a generation state -------------------- */
static const char SEG_MAGIC[16] = "rxlock-seg/v1";         /* + 3 NUL */
#define SEG_HDR 152

void tl_seg_seal(uint8_t out[TL_SEG_SIZE], const uint8_t D[32], uint32_t g, int kind, uint64_t i,
                 const uint8_t d[32], long pid, const char host[TL_HOST_MAX], const uint8_t rkey[32]) {
    uint8_t k[32];
    memset(out, 0, TL_SEG_SIZE);
    memcpy(out, SEG_MAGIC, 16);
    memcpy(out + 16, D, 32);
    tl_put32(out + 48, g);
    out[52] = (uint8_t)kind;
    tl_put64(out + 56, i);
    tl_put32(out + 64, (uint32_t)pid);
    memcpy(out + 72, host, TL_HOST_MAX);
    out[72 + TL_HOST_MAX - 1] = 0;
    randombytes_buf(out + 128, 24);
    kdf(k, rkey, "rxlock/segment/v1", NULL, 0, NULL, 0);
    if (aead_seal(out + SEG_HDR, d, 32, out, SEG_HDR, out + 128, k) != TL_OK)
        memset(out, 0, TL_SEG_SIZE);         /* unreadable: a torn tail on resume */
    sodium_memzero(k, sizeof k);
}

int tl_seg_open(int *kind, uint64_t *i, uint8_t d[32], long *pid, char host[TL_HOST_MAX],
                const uint8_t in[TL_SEG_SIZE], const uint8_t D[32], uint32_t g, const uint8_t rkey[32]) {
    uint8_t k[32];
    if (memcmp(in, SEG_MAGIC, 16) != 0 || sodium_memcmp(in + 16, D, 32) != 0 || tl_get32(in + 48) != g ||
        in[52] < TL_SEG_CHAIN || in[52] > TL_SEG_CORRECTED || in[53] || in[54] || in[55] ||
        tl_get32(in + 68) != 0 || in[72 + TL_HOST_MAX - 1] != 0)
        return TL_EFORMAT;
    kdf(k, rkey, "rxlock/segment/v1", NULL, 0, NULL, 0);
    int rc = aead_open(d, in + SEG_HDR, 32, in, SEG_HDR, in + 128, k);
    sodium_memzero(k, sizeof k);
    if (rc) return rc;
    *kind = in[52];
    *i = tl_get64(in + 56);
    *pid = (long)tl_get32(in + 64);
    memcpy(host, in + 72, TL_HOST_MAX);
    return TL_OK;
}

int tl_plan_verify_pick(const uint8_t rkey[32], uint32_t k, uint32_t ppm) {
    uint8_t h[32], kb[4];
    if (ppm >= 1000000u) return 1;
    tl_put32(kb, k);
    kdf(h, rkey, "rxlock/verify-sample/v1", kb, 4, NULL, 0);
    int pick = (uint64_t)tl_get32(h) * 1000000u < ((uint64_t)ppm << 32);
    sodium_memzero(h, sizeof h);
    return pick;
}

/* ---- plan.secrets ------------------------------------------------------- */
size_t tl_secrets_size(uint32_t G) { return TL_SECRETS_HDR + 32 + (size_t)G * TL_SECRETS_ENTRY + 16; }

static void secrets_key(uint8_t k[32], const uint8_t D[32], const uint8_t planner_sk[32]) {
    kdf(k, planner_sk, "rxlock/plan-secrets/v1", D, 32, NULL, 0);
}

int tl_secrets_seal(uint8_t *out, const uint8_t D[32], uint32_t G, const uint8_t *pt,
                    const uint8_t planner_sk[32]) {
    uint8_t k[32];
    memset(out, 0, TL_SECRETS_HDR);
    memcpy(out, SEC_MAGIC, 16);
    memcpy(out + 16, D, 32);
    tl_put32(out + 48, G);
    int rc = tl_random(out + 56, 24, "plan-secrets-nonce", 0);
    secrets_key(k, D, planner_sk);
    if (rc == TL_OK)
        rc = aead_seal(out + TL_SECRETS_HDR, pt, 32 + (size_t)G * TL_SECRETS_ENTRY, out, TL_SECRETS_HDR, out + 56, k);
    sodium_memzero(k, sizeof k);
    return rc;
}

int tl_secrets_open(uint8_t *pt, const uint8_t *in, size_t len, const uint8_t D[32], uint32_t G,
                    const uint8_t planner_sk[32]) {
    uint8_t k[32];
    if (len != tl_secrets_size(G) || memcmp(in, SEC_MAGIC, 16) != 0 || tl_get32(in + 52) != 0 ||
        tl_get32(in + 48) != G)
        return TL_EFORMAT;
    if (sodium_memcmp(in + 16, D, 32) != 0) return TL_EFORMAT;
    secrets_key(k, D, planner_sk);
    int rc = aead_open(pt, in + TL_SECRETS_HDR, 32 + (size_t)G * TL_SECRETS_ENTRY, in, TL_SECRETS_HDR, in + 56, k);
    sodium_memzero(k, sizeof k);
    return rc;
}

/* ---- key files ---------------------------------------------------------- */
int tl_plan_key_save(const char *path, const uint8_t sk[32], const char *title, int force) {
    uint8_t pk[32];
    if (crypto_scalarmult_base(pk, sk) != 0) return TL_EINVAL;
    return tl_keyfile_save(path, title, pk, sk, force);
}

int tl_plan_key_load(const char *path, uint8_t sk[32], uint8_t pk[32]) {
    int rc = tl_keyfile_load(path, sk);
    if (rc == TL_OK && crypto_scalarmult_base(pk, sk) != 0) rc = TL_EFORMAT;
    if (rc) sodium_memzero(sk, 32);
    return rc;
}

int tl_plan_key_load_for(const char *path, const char *role, const uint8_t want_pk[32], uint8_t sk[32],
                         uint8_t pk[32], char *err, size_t errlen) {
    int rc = tl_plan_key_load(path, sk, pk);
    if (rc) {
        tl_set_err(err, errlen, "%s: cannot read the %s key: %s", path, role,
                   rc == TL_EIO ? strerror(errno) : tl_strerror(rc));
        return rc;
    }
    if (sodium_memcmp(pk, want_pk, 32) != 0) {
        sodium_memzero(sk, 32);
        tl_set_err(err, errlen, "%s: not this plan's %s key", path, role);
        return TL_EAUTH;
    }
    return TL_OK;
}

/* ---- plan.json ---------------------------------------------------------- */
static json_t *hexval(const uint8_t *p, size_t n) {
    char buf[65];
    util_hex_encode(buf, p, n);
    return json_string(buf);
}

int tl_plan_info_json(const tl_plan_info *pi, char **out, size_t *len) {
    tl_puzzle pz = pi->pub;
    tl_wrap *dummy = calloc(pz.groups, sizeof *dummy);
    char *ptxt = NULL;
    size_t plen = 0;
    if (!dummy) return TL_ENOMEM;
    pz.wraps = dummy;
    pz.has_signer = pz.has_signature = 0;
    int rc = tl_puzzle_to_json(&pz, &ptxt, &plen);
    free(dummy);
    if (rc) return rc;
    json_t *p = json_loadb(ptxt, plen, 0, NULL), *o = json_object();
    free(ptxt);
    int bad = !p || !o;
    if (!bad) bad |= json_object_del(p, "wraps") != 0;
    int v2 = TL_PLAN_VERIFIES(pi);   /* issue 20: version 2 = a plan with verification tasks */
    bad |= !o || json_object_set_new(o, "rxlock_plan", json_integer(v2 ? 2 : 1)) != 0;
    bad |= !o || !p || json_object_set(o, "puzzle", p) != 0;
    bad |= !o || json_object_set_new(o, "mode", json_string(pi->mode == TL_MODE_FULL ? "full" : "light")) != 0;
    bad |= !o || json_object_set_new(o, "batch", json_integer(pi->batch)) != 0;
    bad |= !o || json_object_set_new(o, "tasks", json_integer(pi->tasks)) != 0;
    bad |= !o || json_object_set_new(o, "worker_public_key", hexval(pi->worker_pk, 32)) != 0;
    bad |= !o || json_object_set_new(o, "planner_public_key", hexval(pi->planner_pk, 32)) != 0;
    if (v2)
        bad |= !o || json_object_set_new(o, "verify", json_pack("{s:s, s:I, s:I}", "method",
                                         pi->verify == TL_VERIFY_FULL ? "full" : "sample",
                                         "sample_ppm", (json_int_t)pi->verify_ppm,
                                         "checkpoint_steps", (json_int_t)pi->ckpt_steps)) != 0;
    char *s = bad ? NULL : json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    if (p) json_decref(p);
    if (o) json_decref(o);
    if (!s) return TL_ENOMEM;
    size_t n = strlen(s);
    char *r = malloc(n + 2);
    if (!r) { free(s); return TL_ENOMEM; }
    memcpy(r, s, n);
    r[n] = '\n';
    r[n + 1] = 0;
    free(s);
    *out = r;
    *len = n + 1;
    return TL_OK;
}

static int get_key(json_t *o, const char *k, uint8_t out[32]) {
    json_t *v = json_object_get(o, k);
    size_t got = 0;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    return s && strlen(s) == 64 && util_hex_decode(s, out, 32, &got) == 0 && got == 32 ? 0 : -1;
}

static int parse_plan(json_t *o, tl_plan_info *pi, char *err, size_t errlen) {
    static const char *const keys[] = { "rxlock_plan", "puzzle", "mode", "batch", "tasks",
                                        "worker_public_key", "planner_public_key", "verify" };
    const char *key;
    json_t *val;
    if (!json_is_object(o)) { tl_set_err(err, errlen, "not a JSON object"); return TL_EFORMAT; }
    json_t *ver = json_object_get(o, "rxlock_plan");
    if (!json_is_integer(ver)) { tl_set_err(err, errlen, "not an rxlock plan (no \"rxlock_plan\" version)"); return TL_EFORMAT; }
    if (json_integer_value(ver) != 1 && json_integer_value(ver) != 2) {
        tl_set_err(err, errlen, "unsupported plan version %lld", (long long)json_integer_value(ver));
        return TL_EVERSION;
    }
    /* version 2 (issue 20) adds "verify" */
    size_t nkeys = json_integer_value(ver) == 2 ? 8 : 7;
    json_object_foreach(o, key, val) {
        size_t k = 0;
        while (k < nkeys && strcmp(key, keys[k])) k++;
        if (k == nkeys) { tl_set_err(err, errlen, "unknown field \"%.40s\"", key); return TL_EFORMAT; }
    }
    if (json_object_size(o) != nkeys) { tl_set_err(err, errlen, "missing fields"); return TL_EFORMAT; }
    json_t *p = json_object_get(o, "puzzle");
    if (!json_is_object(p) || json_object_get(p, "wraps") || json_object_get(p, "signer") ||
        json_object_get(p, "signature")) {
        tl_set_err(err, errlen, "field \"puzzle\": want the unsigned puzzle header fields, no wraps");
        return TL_EFORMAT;
    }
    json_t *g = json_object_get(p, "groups");
    if (!json_is_integer(g) || json_integer_value(g) < 1 || json_integer_value(g) > TL_MAX_GROUPS) {
        tl_set_err(err, errlen, "field \"puzzle\".\"groups\": want 1..%u", TL_MAX_GROUPS);
        return TL_EFORMAT;
    }
    uint32_t G = (uint32_t)json_integer_value(g);
    /* Validate the header fields with the puzzle parser: add G zero wraps. */
    json_t *cp = json_deep_copy(p), *w = json_array();
    int bad = !cp || !w;
    char zn[49], zc[97];
    memset(zn, '0', 48); zn[48] = 0;
    memset(zc, '0', 96); zc[96] = 0;
    for (uint32_t k = 0; !bad && k < G; k++)
        bad |= json_array_append_new(w, json_pack("{s:s,s:s}", "nonce", zn, "ct", zc)) != 0;
    if (!bad) { bad |= json_object_set_new(cp, "wraps", w) != 0; w = NULL; }
    char *txt = bad ? NULL : json_dumps(cp, JSON_COMPACT);
    if (cp) json_decref(cp);
    if (w) json_decref(w);
    if (!txt) return TL_ENOMEM;
    tl_puzzle *pz = NULL;
    char e2[200];
    int rc = tl_puzzle_parse(txt, strlen(txt), &pz, e2, sizeof e2);
    free(txt);
    if (rc) { tl_set_err(err, errlen, "field \"puzzle\": %s", e2); return rc == TL_ETOOBIG ? TL_EFORMAT : rc; }
    pi->pub = *pz;
    pi->pub.wraps = NULL;
    memcpy(pi->D, pz->header_digest, 32);
    tl_puzzle_free(pz);
    json_t *m = json_object_get(o, "mode");
    const char *ms = json_is_string(m) ? json_string_value(m) : "";
    if (!strcmp(ms, "light")) pi->mode = TL_MODE_LIGHT;
    else if (!strcmp(ms, "full")) pi->mode = TL_MODE_FULL;
    else { tl_set_err(err, errlen, "field \"mode\": want light or full"); return TL_EFORMAT; }
    json_t *b = json_object_get(o, "batch"), *t = json_object_get(o, "tasks");
    if (!json_is_integer(b) || json_integer_value(b) < 1 || json_integer_value(b) > G) {
        tl_set_err(err, errlen, "field \"batch\": want 1..%u", G);
        return TL_EFORMAT;
    }
    pi->batch = (uint32_t)json_integer_value(b);
    pi->tasks = (G + pi->batch - 1) / pi->batch;
    if (!json_is_integer(t) || json_integer_value(t) != pi->tasks) {
        tl_set_err(err, errlen, "field \"tasks\": want %u (groups / batch, rounded up)", pi->tasks);
        return TL_EFORMAT;
    }
    if (get_key(o, "worker_public_key", pi->worker_pk) || get_key(o, "planner_public_key", pi->planner_pk)) {
        tl_set_err(err, errlen, "public keys: want 64 hex digits");
        return TL_EFORMAT;
    }
    pi->verify = TL_VERIFY_NONE;
    json_t *v = json_object_get(o, "verify");
    if (v) {
        json_t *vm = json_object_get(v, "method"), *vp = json_object_get(v, "sample_ppm"),
               *vc = json_object_get(v, "checkpoint_steps");
        const char *vms = json_is_string(vm) ? json_string_value(vm) : "";
        const uint64_t S = pi->pub.steps;
        int full = !strcmp(vms, "full");
        if (!json_is_object(v) || json_object_size(v) != 3 || (!full && strcmp(vms, "sample")) ||
            !json_is_integer(vp) || json_integer_value(vp) < 1 || json_integer_value(vp) > 1000000 ||
            (full && json_integer_value(vp) != 1000000) || !json_is_integer(vc) || json_integer_value(vc) < 1 ||
            (uint64_t)json_integer_value(vc) > S ||
            (S + (uint64_t)json_integer_value(vc) - 1) / (uint64_t)json_integer_value(vc) * G > TL_MAX_SEGMENTS) {
            tl_set_err(err, errlen, "field \"verify\": want {\"method\": \"full\" | \"sample\", \"sample_ppm\": "
                       "1..1000000 (full: 1000000), \"checkpoint_steps\": 1..steps, at most %u segments in all}",
                       TL_MAX_SEGMENTS);
            return TL_EFORMAT;
        }
        pi->verify = full ? TL_VERIFY_FULL : TL_VERIFY_SAMPLE;
        pi->verify_ppm = (uint32_t)json_integer_value(vp);
        pi->ckpt_steps = (uint64_t)json_integer_value(vc);
        pi->nseg = (uint32_t)((S + pi->ckpt_steps - 1) / pi->ckpt_steps);
    }
    return TL_OK;
}

int tl_plan_info_load(const char *dir, tl_plan_info *pi, char *err, size_t errlen) {
    char path[4096];
    uint8_t *data = NULL;
    size_t len = 0;
    if (err && errlen) err[0] = 0;
    memset(pi, 0, sizeof *pi);
    if (tl_plan_path(path, sizeof path, dir, "plan.json", 0) != 0) { tl_set_err(err, errlen, "%s: path too long", dir); return TL_EINVAL; }
    if (util_read_file(path, TL_PLAN_JSON_MAX, &data, &len) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, errno == EFBIG ? "larger than 1 MiB" : strerror(errno));
        return errno == EFBIG ? TL_ETOOBIG : TL_EIO;
    }
    json_error_t je;
    json_t *o = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &je);
    free(data);
    if (!o) { tl_set_err(err, errlen, "%s: not valid JSON (line %d: %.80s)", path, je.line, je.text); return TL_EFORMAT; }
    char e2[256];
    int rc = parse_plan(o, pi, e2, sizeof e2);
    json_decref(o);
    if (rc) tl_set_err(err, errlen, "%s: %s", path, e2);
    return rc;
}
