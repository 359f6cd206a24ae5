/* SPDX-License-Identifier: ISC */
/* src/lock/core/wrap.c — wrap key derivation and the XChaCha20-Poly1305 wraps
 * (docs/DESIGN.md §1 step 3), and the randomness source with its test-only
 * deterministic mode. */
#include "core_internal.h"
#include "util/util.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

int tl_wrap_key(uint8_t k[32], const uint8_t e[32], const uint8_t id[16], uint32_t g) {
    uint8_t msg[14 + 16 + 4];
    memcpy(msg, "rxlock/wrap/v1", 14);
    memcpy(msg + 14, id, 16);
    tl_put32(msg + 30, g);
    int rc = crypto_generichash(k, 32, msg, sizeof msg, e, 32);
    return rc == 0 ? TL_OK : TL_EINVAL;
}

static void wrap_aad(uint8_t aad[36], const uint8_t H[32], uint32_t g) {
    memcpy(aad, H, 32);
    tl_put32(aad + 32, g);
}

int tl_wrap_seal(uint8_t ct[48], const uint8_t pt[32], const uint8_t e[32],
                 const uint8_t id[16], const uint8_t H[32], uint32_t g, const uint8_t nonce[24]) {
    uint8_t k[32], aad[36];
    unsigned long long clen = 0;
    int rc = tl_wrap_key(k, e, id, g);
    wrap_aad(aad, H, g);
    if (rc == TL_OK &&
        crypto_aead_xchacha20poly1305_ietf_encrypt(ct, &clen, pt, 32, aad, sizeof aad,
                                                   NULL, nonce, k) != 0)
        rc = TL_EINVAL;
    sodium_memzero(k, sizeof k);
    return rc == TL_OK && clen == 48 ? TL_OK : TL_EINVAL;
}

int tl_wrap_open(uint8_t pt[32], const uint8_t ct[48], const uint8_t e[32],
                 const uint8_t id[16], const uint8_t H[32], uint32_t g, const uint8_t nonce[24]) {
    uint8_t k[32], aad[36];
    unsigned long long plen = 0;
    int rc = tl_wrap_key(k, e, id, g);
    wrap_aad(aad, H, g);
    if (rc == TL_OK &&
        (crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &plen, NULL, ct, 48, aad, sizeof aad,
                                                    nonce, k) != 0 || plen != 32))
        rc = TL_EAUTH;
    sodium_memzero(k, sizeof k);
    if (rc != TL_OK) sodium_memzero(pt, 32);
    return rc;
}

/* Deterministic test mode (RXLOCK_TEST_INSECURE=1 + RXLOCK_TEST_SEED=hex):
 * exists only in the test build (-DRXLOCK_TESTING); the shipping library
 * always draws from the OS CSPRNG. */
#ifdef RXLOCK_TESTING
static int test_seed(uint8_t seed[64], size_t *len) {
    const char *ins = getenv("RXLOCK_TEST_INSECURE");
    const char *hex = getenv("RXLOCK_TEST_SEED");
    if (!ins || strcmp(ins, "1") != 0 || !hex || !*hex) return 0;
    if (util_hex_decode(hex, seed, 64, len) != 0 || *len < 16) return 0;
    return 1;
}

int tl_test_mode(void) {
    uint8_t seed[64];
    size_t len = 0;
    int on = test_seed(seed, &len);
    sodium_memzero(seed, sizeof seed);
    return on;
}
#else
static int test_seed(uint8_t seed[64], size_t *len) {
    (void)seed; (void)len;
    return 0;
}

int tl_test_mode(void) { return 0; }
#endif

int tl_random(uint8_t *out, size_t len, const char *label, uint64_t index) {
    if (sodium_init() < 0) return TL_ERANDOM;
    uint8_t seed[64];
    size_t slen = 0;
    if (!test_seed(seed, &slen)) {
        randombytes_buf(out, len);
        return TL_OK;
    }
    /* Test mode: a keyed BLAKE2b stream, block by block. */
    size_t llen = strlen(label);
    if (llen > 64) llen = 64;
    uint8_t msg[18 + 64 + 8 + 8], blk[64];
    size_t off = 0;
    for (uint64_t ctr = 0; off < len; ctr++) {
        memcpy(msg, "rxlock/test-rng/v1", 18);
        memcpy(msg + 18, label, llen);
        tl_put64(msg + 18 + llen, index);
        tl_put64(msg + 26 + llen, ctr);
        crypto_generichash(blk, 64, msg, 34 + llen, seed, slen > 64 ? 64 : slen);
        size_t n = len - off < 64 ? len - off : 64;
        memcpy(out + off, blk, n);
        off += n;
    }
    sodium_memzero(blk, sizeof blk);
    sodium_memzero(seed, sizeof seed);
    return TL_OK;
}
