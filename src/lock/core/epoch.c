/* SPDX-License-Identifier: ISC */
/* src/lock/core/epoch.c — the epoch key's public commitment (docs/DESIGN.md §1):
 * classic epochs publish X = X25519(x, 9); post-quantum epochs
 * treat x as an age mlkem768x25519 identity seed and publish its age1pq1
 * recipient (ML-KEM-768 ek ‖ X25519 public), with epoch_pk = the X25519
 * part.  The generator, the planner and the assembler derive it here; the
 * solver re-derives it from the recovered x and compares. */
#include "core_internal.h"
#include "rxlock/age.h"
#include <sodium.h>
#include <string.h>

_Static_assert(TL_EPOCH_PQ_BYTES == TL_AGE_PQ_RECIPIENT_BYTES, "the epoch commitment is an age PQ recipient");

int tl_epoch_public(tl_puzzle *pz, const uint8_t x[32]) {
    if (!pz->pq_epoch)
        return crypto_scalarmult_base(pz->epoch_pk, x) == 0 ? TL_OK : TL_ERANDOM;
    if (age_pq_public_key(x, pz->pq_recipient) != 0) return TL_ERANDOM;
    memcpy(pz->epoch_pk, pz->pq_recipient + TL_EPOCH_PQ_BYTES - 32, 32);
    return TL_OK;
}

int tl_epoch_check(const tl_puzzle *pz, const uint8_t x[32]) {
    if (!pz->pq_epoch) {
        uint8_t X[32];
        if (crypto_scalarmult_base(X, x) != 0 || sodium_memcmp(X, pz->epoch_pk, 32) != 0) return TL_ECOMMIT;
        return TL_OK;
    }
    uint8_t r[TL_EPOCH_PQ_BYTES];
    if (age_pq_public_key(x, r) != 0 || sodium_memcmp(r, pz->pq_recipient, TL_EPOCH_PQ_BYTES) != 0)
        return TL_ECOMMIT;
    return TL_OK;
}
