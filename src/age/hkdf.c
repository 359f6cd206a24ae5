/* SPDX-License-Identifier: ISC */
/* src/age/hkdf.c — HKDF-SHA-256 (RFC 5869) built from libsodium's
 * HMAC-SHA-256.  Used by the age format for wrap, MAC and payload keys,
 * and (extract and expand separately) by the HPKE key schedule of the
 * mlkem768x25519 recipient (age_pq.c). */
#include "age/age_internal.h"
#include <sodium.h>

static const uint8_t empty[1] = {0};

int tl_hkdf_sha256_extract(uint8_t prk[32], const uint8_t *salt, size_t saltlen,
                           const uint8_t *ikm, size_t ikmlen) {
    crypto_auth_hmacsha256_state st;
    int rc = -1;
    if (sodium_init() < 0) return -1;
    /* libsodium's prototypes declare these pointers non-null. */
    if (!salt) { salt = empty; saltlen = 0; }
    if (!ikm) { ikm = empty; ikmlen = 0; }
    /* An empty salt is HashLen zero bytes, which HMAC treats the same as
     * an empty key. */
    if (crypto_auth_hmacsha256_init(&st, salt, saltlen) == 0 &&
        crypto_auth_hmacsha256_update(&st, ikm, ikmlen) == 0 &&
        crypto_auth_hmacsha256_final(&st, prk) == 0) rc = 0;
    sodium_memzero(&st, sizeof st);
    if (rc) sodium_memzero(prk, 32);
    return rc;
}

int tl_hkdf_sha256_expand(uint8_t *out, size_t outlen, const uint8_t prk[32],
                          const uint8_t *info, size_t infolen) {
    crypto_auth_hmacsha256_state st;
    uint8_t t[32];
    size_t done = 0;
    uint8_t ctr = 0;
    if (outlen > 255 * 32 || sodium_init() < 0) return -1;
    if (!info) { info = empty; infolen = 0; }
    while (done < outlen) {
        ctr++;
        if (crypto_auth_hmacsha256_init(&st, prk, 32) != 0 ||
            (ctr > 1 && crypto_auth_hmacsha256_update(&st, t, sizeof t) != 0) ||
            crypto_auth_hmacsha256_update(&st, info, infolen) != 0 ||
            crypto_auth_hmacsha256_update(&st, &ctr, 1) != 0 ||
            crypto_auth_hmacsha256_final(&st, t) != 0) goto fail;
        size_t take = outlen - done < 32 ? outlen - done : 32;
        for (size_t i = 0; i < take; i++) out[done + i] = t[i];
        done += take;
    }
    sodium_memzero(t, sizeof t);
    sodium_memzero(&st, sizeof st);
    return 0;
fail:
    sodium_memzero(t, sizeof t);
    sodium_memzero(&st, sizeof st);
    sodium_memzero(out, outlen);
    return -1;
}

int tl_hkdf_sha256(uint8_t *out, size_t outlen,
                   const uint8_t *salt, size_t saltlen,
                   const uint8_t *ikm, size_t ikmlen,
                   const uint8_t *info, size_t infolen) {
    uint8_t prk[32];
    int rc = -1;
    if (outlen <= 255 * 32 && tl_hkdf_sha256_extract(prk, salt, saltlen, ikm, ikmlen) == 0)
        rc = tl_hkdf_sha256_expand(out, outlen, prk, info, infolen);
    sodium_memzero(prk, sizeof prk);
    if (rc) sodium_memzero(out, outlen);
    return rc;
}
