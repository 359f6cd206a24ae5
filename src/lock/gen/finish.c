/* SPDX-License-Identifier: ISC */
/* src/lock/gen/finish.c — tl_finish: the one path from computed chains to a
 * finished puzzle, shared by tl_generate and tl_plan_assemble: wrap
 * s_2 .. s_G and x under the chain ends, sign, open every wrap again
 * (self-check), serialise canonically (checked to parse back). */
#include "gen_internal.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

int tl_finish(tl_puzzle *pz, const uint8_t *sec, const uint8_t *e, const uint8_t *sign_sk,
              char **json, size_t *json_len, tl_puzzle **parsed, uint8_t pk[32], uint8_t *keep_sk) {
    const uint32_t G = pz->groups;
    tl_wrap *wraps = calloc(G, sizeof *wraps);
    if (!wraps) return TL_ENOMEM;
    *json = NULL;
    pz->wraps = wraps;
    pz->has_signer = sign_sk != NULL;
    pz->has_signature = 0;
    if (sign_sk) memcpy(pz->signer, sign_sk + 32, 32);
    int rc = tl_header_digest(pz, pz->header_digest);
    for (uint32_t g = 1; rc == TL_OK && g <= G; g++) {
        const uint8_t *ent = sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY;
        const uint8_t *pt = g < G ? ent + TL_SECRETS_ENTRY + 24 : sec;   /* s_{g+1} or x */
        memcpy(wraps[g - 1].nonce, ent, 24);
        rc = tl_wrap_seal(wraps[g - 1].ct, pt, e + (size_t)(g - 1) * 32, pz->id, pz->header_digest, g,
                          wraps[g - 1].nonce);
    }
    if (rc == TL_OK && sign_sk) rc = tl_puzzle_sign(pz, sign_sk);
    /* Self-check: every wrap opens to the value it must hold. */
    for (uint32_t g = 1; rc == TL_OK && g <= G; g++) {
        uint8_t pt[32];
        const uint8_t *want = g < G ? sec + 32 + (size_t)g * TL_SECRETS_ENTRY + 24 : sec;
        rc = tl_wrap_open(pt, wraps[g - 1].ct, e + (size_t)(g - 1) * 32, pz->id, pz->header_digest, g,
                          wraps[g - 1].nonce);
        if (rc == TL_OK && sodium_memcmp(pt, want, 32) != 0) rc = TL_EAUTH;
        sodium_memzero(pt, sizeof pt);
    }
    if (rc == TL_OK) rc = tl_puzzle_emit(pz, json, json_len, parsed);
    if (rc == TL_OK) {
        memcpy(pk, pz->epoch_pk, 32);
        if (keep_sk) memcpy(keep_sk, sec, 32);
    }
    sodium_memzero(wraps, (size_t)G * sizeof *wraps);
    free(wraps);
    pz->wraps = NULL;
    return rc;
}
