/* SPDX-License-Identifier: ISC */
/* src/lock/gen/records.c — the sealed records of a generation state and of
 * a cluster plan (docs/FORMAT.md §Generation state, §Cluster plan): the
 * record key derivation and AEAD every sealed record uses, the segment
 * records (under the group's result key r_g), plan.secrets (under the
 * planner key), the X25519 key files, and the plan directory's paths.
 * Pure encode / decode; the callers do the I/O. */
#include "gen_internal.h"
#include "util/util.h"
#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
void tl_rec_kdf(uint8_t out[32], const uint8_t key[32], const char *label,
                const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    crypto_generichash_state st;
    crypto_generichash_init(&st, key, 32, 32);
    crypto_generichash_update(&st, (const uint8_t *)label, strlen(label));
    if (a) crypto_generichash_update(&st, a, alen);
    if (b) crypto_generichash_update(&st, b, blen);
    crypto_generichash_final(&st, out, 32);
}

/* Ephemeral-static X25519 key for a record sealed to `to_pk`. */
int tl_rec_seal_key(uint8_t k[32], uint8_t eph_pk[32], const char *label, uint32_t g,
                    const uint8_t to_pk[32], const char *kdf_label) {
    uint8_t esk[32], shared[32];
    int rc = tl_random(esk, 32, label, g);
    if (rc == TL_OK && (crypto_scalarmult_base(eph_pk, esk) != 0 || crypto_scalarmult(shared, esk, to_pk) != 0))
        rc = TL_EINVAL;
    if (rc == TL_OK) tl_rec_kdf(k, shared, kdf_label, eph_pk, 32, to_pk, 32);
    sodium_memzero(esk, sizeof esk);
    sodium_memzero(shared, sizeof shared);
    return rc;
}

int tl_rec_open_key(uint8_t k[32], const uint8_t eph_pk[32], const uint8_t sk[32], const char *kdf_label) {
    uint8_t shared[32], pk[32];
    if (crypto_scalarmult_base(pk, sk) != 0 || crypto_scalarmult(shared, sk, eph_pk) != 0) {
        sodium_memzero(shared, sizeof shared);
        return TL_EAUTH;
    }
    tl_rec_kdf(k, shared, kdf_label, eph_pk, 32, pk, 32);
    sodium_memzero(shared, sizeof shared);
    return TL_OK;
}

int tl_rec_aead_seal(uint8_t *ct, const uint8_t *pt, size_t len, const uint8_t *aad, size_t alen,
                     const uint8_t nonce[24], const uint8_t k[32]) {
    unsigned long long clen = 0;
    return crypto_aead_xchacha20poly1305_ietf_encrypt(ct, &clen, pt, len, aad, alen, NULL, nonce, k) == 0 &&
           clen == len + 16 ? TL_OK : TL_EINVAL;
}

int tl_rec_aead_open(uint8_t *pt, const uint8_t *ct, size_t len, const uint8_t *aad, size_t alen,
                     const uint8_t nonce[24], const uint8_t k[32]) {
    unsigned long long plen = 0;
    if (crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &plen, NULL, ct, len + 16, aad, alen, nonce, k) != 0 ||
        plen != len) {
        sodium_memzero(pt, len);
        return TL_EAUTH;
    }
    return TL_OK;
}

/* ---- segment records of a generation state ------------------------------ */
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
    tl_rec_kdf(k, rkey, "rxlock/segment/v1", NULL, 0, NULL, 0);
    if (tl_rec_aead_seal(out + SEG_HDR, d, 32, out, SEG_HDR, out + 128, k) != TL_OK)
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
    tl_rec_kdf(k, rkey, "rxlock/segment/v1", NULL, 0, NULL, 0);
    int rc = tl_rec_aead_open(d, in + SEG_HDR, 32, in, SEG_HDR, in + 128, k);
    sodium_memzero(k, sizeof k);
    if (rc) return rc;
    *kind = in[52];
    *i = tl_get64(in + 56);
    *pid = (long)tl_get32(in + 64);
    memcpy(host, in + 72, TL_HOST_MAX);
    return TL_OK;
}

/* ---- plan.secrets ------------------------------------------------------- */
size_t tl_secrets_size(uint32_t G) { return TL_SECRETS_HDR + 32 + (size_t)G * TL_SECRETS_ENTRY + 16; }

static void secrets_key(uint8_t k[32], const uint8_t D[32], const uint8_t planner_sk[32]) {
    tl_rec_kdf(k, planner_sk, "rxlock/plan-secrets/v1", D, 32, NULL, 0);
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
        rc = tl_rec_aead_seal(out + TL_SECRETS_HDR, pt, 32 + (size_t)G * TL_SECRETS_ENTRY, out, TL_SECRETS_HDR, out + 56, k);
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
    int rc = tl_rec_aead_open(pt, in + TL_SECRETS_HDR, 32 + (size_t)G * TL_SECRETS_ENTRY, in, TL_SECRETS_HDR, in + 56, k);
    sodium_memzero(k, sizeof k);
    return rc;
}

/* ---- key files ---------------------------------------------------------- */
int tl_plan_key_save(const char *path, const uint8_t sk[32], const char *title, int force) {
    uint8_t pk[32];
    if (crypto_scalarmult_base(pk, sk) != 0) return TL_EINVAL;
    return tl_keyfile_save(path, title, pk, sk, force);
}

int tl_plan_key_save_at(int dfd, const char *name, const uint8_t sk[32], const char *title, int force) {
    uint8_t pk[32];
    if (crypto_scalarmult_base(pk, sk) != 0) return TL_EINVAL;
    return tl_keyfile_save_at(dfd, name, title, pk, sk, force);
}

static int key_pub(int rc, uint8_t sk[32], uint8_t pk[32]) {
    if (rc == TL_OK && crypto_scalarmult_base(pk, sk) != 0) rc = TL_EFORMAT;
    if (rc) sodium_memzero(sk, 32);
    return rc;
}

int tl_plan_key_load(const char *path, uint8_t sk[32], uint8_t pk[32]) {
    return key_pub(tl_keyfile_load(path, sk), sk, pk);
}

int tl_plan_key_load_at(int dfd, const char *name, uint8_t sk[32], uint8_t pk[32]) {
    return key_pub(tl_keyfile_load_at(dfd, name, sk), sk, pk);
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
