/* SPDX-License-Identifier: ISC */
/* src/lock/core/header.c — the canonical binary puzzle header and its digest H
 * (docs/FORMAT.md §Canonical header): every public parameter except the
 * wraps and the signature, fixed offsets, little-endian. */
#include "core_internal.h"
#include <sodium.h>
#include <string.h>

#define HDR_FIXED 209

int tl_puzzle_header(const tl_puzzle *pz, uint8_t *buf, size_t cap, size_t *len) {
    if (!pz || !buf || !len) return TL_EINVAL;
    size_t n = strnlen(pz->rate_source, TL_RATE_SOURCE_MAX);
    if (n >= TL_RATE_SOURCE_MAX || HDR_FIXED + n > cap || pz->version < 1 || pz->version > TL_PUZZLE_VERSION)
        return TL_EINVAL;
    memset(buf, 0, HDR_FIXED);
    memcpy(buf, "rxlock/puzzle/v1", 16);
    tl_put32(buf + 16, (uint32_t)pz->version);
    tl_put32(buf + 20, (pz->test_only ? 1u : 0u) | (pz->has_signer ? 2u : 0u) |
                       (pz->pq_epoch ? 4u : 0u));   /* 4: a post-quantum epoch */
    buf[24] = (uint8_t)pz->work;
    tl_put32(buf + 28, pz->groups);
    tl_put64(buf + 32, pz->steps);
    memcpy(buf + 40, pz->id, 16);
    memcpy(buf + 56, pz->key, 32);
    memcpy(buf + 88, pz->seed, 32);
    memcpy(buf + 120, pz->epoch_pk, 32);
    tl_put64(buf + 152, pz->rate_milli_hps);
    tl_put64(buf + 160, pz->target_seconds);
    tl_put64(buf + 168, (uint64_t)pz->created);
    if (pz->has_signer) memcpy(buf + 176, pz->signer, 32);
    buf[208] = (uint8_t)n;
    memcpy(buf + HDR_FIXED, pz->rate_source, n);
    size_t at = HDR_FIXED + n;
    /* block (version 2 only): u8 rate_mode, u64le setup_ms */
    if (pz->version >= 2) {
        if (at + 9 > cap || pz->rate_mode < 0 || pz->rate_mode > TL_RATE_MODE_FULL) return TL_EINVAL;
        buf[at] = (uint8_t)pz->rate_mode;
        tl_put64(buf + at + 1, pz->setup_ms);
        at += 9;
    }
    /* (version >= 2): the verification record, 12 bytes */
    if (pz->version >= 2) {
        if (at + 12 > cap) return TL_EINVAL;
        memset(buf + at, 0, 12);
        buf[at] = (uint8_t)pz->verify_method;
        tl_put32(buf + at + 4, pz->verify_segments);
        tl_put32(buf + at + 8, pz->verify_checked);
        at += 12;
    }
    /* ---- a post-quantum epoch (version 2, flag 4) appends its
     * 1,216-byte age mlkem768x25519 recipient; classic epochs append
     * nothing. */
    if (pz->pq_epoch) {
        if (pz->version < 2 || at + TL_EPOCH_PQ_BYTES > cap) return TL_EINVAL;
        memcpy(buf + at, pz->pq_recipient, TL_EPOCH_PQ_BYTES);
        at += TL_EPOCH_PQ_BYTES;
    }
    *len = at;
    return TL_OK;
}

/* ---- the signed message (puzzle format version 2) ----------------
 * version 1: M = header.  version 2: M = header || W, where
 * W = BLAKE2b-256("rxlock/wraps/v2" || u32le(G) || nonce_1 || ct_1 || ... ||
 * nonce_G || ct_G): the signature covers every wrap (the wraps cannot be in
 * H, which they authenticate as their aad). */
int tl_puzzle_signs_wraps(const tl_puzzle *pz) { return pz && pz->version >= 2; }

int tl_signed_message(const tl_puzzle *pz, uint8_t *buf, size_t cap, size_t *len) {
    int rc = tl_puzzle_header(pz, buf, cap, len);
    if (rc || !tl_puzzle_signs_wraps(pz)) return rc;
    if (!pz->wraps || *len + 32 > cap) return TL_EINVAL;
    uint8_t g4[4];
    crypto_generichash_state st;
    tl_put32(g4, pz->groups);
    crypto_generichash_init(&st, NULL, 0, 32);
    crypto_generichash_update(&st, (const uint8_t *)"rxlock/wraps/v2", 15);
    crypto_generichash_update(&st, g4, 4);
    for (uint32_t g = 0; g < pz->groups; g++) {
        crypto_generichash_update(&st, pz->wraps[g].nonce, 24);
        crypto_generichash_update(&st, pz->wraps[g].ct, 48);
    }
    crypto_generichash_final(&st, buf + *len, 32);
    *len += 32;
    return TL_OK;
}

int tl_header_digest(const tl_puzzle *pz, uint8_t H[32]) {
    uint8_t buf[TL_HEADER_MAX];
    size_t len;
    int rc = tl_puzzle_header(pz, buf, sizeof buf, &len);
    if (rc) return rc;
    crypto_generichash(H, 32, buf, len, NULL, 0);
    return TL_OK;
}
