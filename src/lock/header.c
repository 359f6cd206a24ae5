/* src/lock/header.c — the canonical binary puzzle header and its digest H
 * (docs/FORMAT.md §Canonical header): every public parameter except the
 * wraps and the signature, fixed offsets, little-endian. */
#include "tl_internal.h"
#include <sodium.h>
#include <string.h>

#define HDR_FIXED 209

int tl_puzzle_header(const tl_puzzle *pz, uint8_t *buf, size_t cap, size_t *len) {
    if (!pz || !buf || !len) return TL_EINVAL;
    size_t n = strnlen(pz->rate_source, TL_RATE_SOURCE_MAX);
    if (n >= TL_RATE_SOURCE_MAX || HDR_FIXED + n > cap) return TL_EINVAL;
    memset(buf, 0, HDR_FIXED);
    memcpy(buf, "rxlock/puzzle/v1", 16);
    tl_put32(buf + 16, (uint32_t)pz->version);
    tl_put32(buf + 20, (pz->test_only ? 1u : 0u) | (pz->has_signer ? 2u : 0u) |
                       (pz->pq_epoch ? 4u : 0u));   /* 4: issue 21 */
    buf[24] = (uint8_t)pz->work;
    tl_put32(buf + 28, pz->groups);
    tl_put64(buf + 32, pz->steps);
    memcpy(buf + 40, pz->id, 16);
    memcpy(buf + 56, pz->key, 32);
    memcpy(buf + 88, pz->seed, 32);
    memcpy(buf + 120, pz->epoch_pk, 32);
    tl_put64(buf + 152, pz->rate_mhps);
    tl_put64(buf + 160, pz->target_seconds);
    tl_put64(buf + 168, (uint64_t)pz->created);
    if (pz->has_signer) memcpy(buf + 176, pz->signer, 32);
    buf[208] = (uint8_t)n;
    memcpy(buf + HDR_FIXED, pz->rate_source, n);
    *len = HDR_FIXED + n;
    /* ---- issue 21: a post-quantum epoch (version 2, flag 4) appends its
     * 1,216-byte age mlkem768x25519 recipient; classic epochs append
     * nothing, so version-1 headers are unchanged. */
    if (pz->pq_epoch) {
        if (pz->version < 2 || *len + TL_EPOCH_PQ_BYTES > cap) return TL_EINVAL;
        memcpy(buf + *len, pz->pq_recipient, TL_EPOCH_PQ_BYTES);
        *len += TL_EPOCH_PQ_BYTES;
    }
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
