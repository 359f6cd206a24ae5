/* SPDX-License-Identifier: ISC */
/* src/pq/mlkem.c — ML-KEM-768 (FIPS 203): K-PKE.KeyGen / Encrypt / Decrypt
 * (Algorithms 13-15) and ML-KEM.KeyGen_internal / Encaps / Decaps
 * (16-18) with the §7.2 encapsulation-key and §7.3 decapsulation-key checks,
 * over the ring of mlkem_poly.c and the Keccak of src/sha3.  H = SHA3-256,
 * G = SHA3-512, J = SHAKE256(·, 32), PRF = SHAKE256, XOF = SHAKE128.
 * Decaps compares and selects without a branch; every secret intermediate
 * lives in one struct per call that is wiped before returning. */
#include "rxlock/pq.h"
#include "rxlock/sha3.h"
#include "pq/mlkem_internal.h"
#include <sodium.h>
#include <string.h>

#if defined(RXLOCK_TESTING) && defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define PQ_HAVE_VALGRIND 1
#endif
#endif

#ifdef RXLOCK_TESTING
int pq_mlkem_test_ipd;
#endif

void pq_ct_declassify(const void *p, size_t n) {
#ifdef PQ_HAVE_VALGRIND
    VALGRIND_MAKE_MEM_DEFINED(p, n);
#else
    (void)p; (void)n;
#endif
}

#define K MLKEM_K
#define PKE_DK_BYTES (K * MLKEM_POLYBYTES)                 /* 1152 */
#define C1_BYTES     (K * 32 * MLKEM_DU)                   /*  960 */

/* K-PKE.KeyGen(d): ek = ByteEncode12(t̂) ‖ ρ, dk_pke = ByteEncode12(ŝ). */
static void pke_keygen(uint8_t ek[PQ_MLKEM768_EK_BYTES], uint8_t dkp[PKE_DK_BYTES],
                       const uint8_t d[32]) {
    struct {
        uint8_t in[33], rs[64];          /* d ‖ k; ρ ‖ σ = G(d ‖ k) */
        mlkem_poly s[K], e[K], t, a;
    } w;
    memcpy(w.in, d, 32);
    w.in[32] = K;
    size_t inlen = 33;
#ifdef RXLOCK_TESTING
    if (pq_mlkem_test_ipd) inlen = 32;
#endif
    sha3_512(w.rs, w.in, inlen);
    const uint8_t *rho = w.rs, *sigma = w.rs + 32;
    pq_ct_declassify(rho, 32);          /* ρ is published in ek */
    uint8_t n = 0;
    for (int i = 0; i < K; i++) mlkem_sample_cbd2(&w.s[i], sigma, n++);
    for (int i = 0; i < K; i++) mlkem_sample_cbd2(&w.e[i], sigma, n++);
    for (int i = 0; i < K; i++) { mlkem_ntt(&w.s[i]); mlkem_ntt(&w.e[i]); }
    for (int i = 0; i < K; i++) {
        w.t = w.e[i];
        for (int j = 0; j < K; j++) {
            mlkem_sample_ntt(&w.a, rho, (uint8_t)j, (uint8_t)i);    /* Â[i,j] */
            mlkem_basemul_acc(&w.t, &w.a, &w.s[j]);
        }
        mlkem_encode(ek + i * MLKEM_POLYBYTES, &w.t, 12);
        mlkem_encode(dkp + i * MLKEM_POLYBYTES, &w.s[i], 12);
    }
    memcpy(ek + PKE_DK_BYTES, rho, 32);
    sodium_memzero(&w, sizeof w);
}

/* K-PKE.Encrypt(ek, m, r); ek has passed the modulus check. */
static void pke_encrypt(uint8_t c[PQ_MLKEM768_CT_BYTES], const uint8_t ek[PQ_MLKEM768_EK_BYTES],
                        const uint8_t m[32], const uint8_t r[32]) {
    struct {
        mlkem_poly t[K], y[K], u, v, e, a;
    } w;
    const uint8_t *rho = ek + PKE_DK_BYTES;
    for (int i = 0; i < K; i++) mlkem_decode(&w.t[i], ek + i * MLKEM_POLYBYTES, 12);
    uint8_t n = 0;
    for (int i = 0; i < K; i++) { mlkem_sample_cbd2(&w.y[i], r, n++); mlkem_ntt(&w.y[i]); }
    /* u[i] = NTT^-1(Σ_j Â[j,i] ∘ ŷ[j]) + e1[i], Â[j,i] = SampleNTT(ρ ‖ i ‖ j) */
    for (int i = 0; i < K; i++) {
        memset(&w.u, 0, sizeof w.u);
        for (int j = 0; j < K; j++) {
            mlkem_sample_ntt(&w.a, rho, (uint8_t)i, (uint8_t)j);
            mlkem_basemul_acc(&w.u, &w.a, &w.y[j]);
        }
        mlkem_invntt(&w.u);
        mlkem_sample_cbd2(&w.e, r, n++);            /* e1[i] */
        mlkem_poly_add(&w.u, &w.e);
        mlkem_compress(&w.u, MLKEM_DU);
        mlkem_encode(c + i * 32 * MLKEM_DU, &w.u, MLKEM_DU);
    }
    /* v = NTT^-1(t̂ᵀ ∘ ŷ) + e2 + Decompress_1(ByteDecode_1(m)) */
    memset(&w.v, 0, sizeof w.v);
    for (int j = 0; j < K; j++) mlkem_basemul_acc(&w.v, &w.t[j], &w.y[j]);
    mlkem_invntt(&w.v);
    mlkem_sample_cbd2(&w.e, r, n++);                /* e2 */
    mlkem_poly_add(&w.v, &w.e);
    mlkem_decode(&w.e, m, 1);
    mlkem_decompress(&w.e, 1);
    mlkem_poly_add(&w.v, &w.e);
    mlkem_compress(&w.v, MLKEM_DV);
    mlkem_encode(c + C1_BYTES, &w.v, MLKEM_DV);
    sodium_memzero(&w, sizeof w);
}

/* K-PKE.Decrypt(dk_pke, c) -> m. */
static void pke_decrypt(uint8_t m[32], const uint8_t dkp[PKE_DK_BYTES],
                        const uint8_t c[PQ_MLKEM768_CT_BYTES]) {
    struct {
        mlkem_poly s, u, w, v;
    } w;
    memset(&w.w, 0, sizeof w.w);
    for (int i = 0; i < K; i++) {
        mlkem_decode(&w.u, c + i * 32 * MLKEM_DU, MLKEM_DU);
        mlkem_decompress(&w.u, MLKEM_DU);
        mlkem_ntt(&w.u);
        mlkem_decode(&w.s, dkp + i * MLKEM_POLYBYTES, 12);
        mlkem_basemul_acc(&w.w, &w.s, &w.u);
    }
    mlkem_invntt(&w.w);
    mlkem_decode(&w.v, c + C1_BYTES, MLKEM_DV);
    mlkem_decompress(&w.v, MLKEM_DV);
    mlkem_poly_sub(&w.w, &w.v);                     /* w = v' - NTT^-1(ŝᵀ ∘ NTT(u')) */
    mlkem_compress(&w.w, 1);
    mlkem_encode(m, &w.w, 1);
    sodium_memzero(&w, sizeof w);
}

int pq_mlkem768_keygen(uint8_t ek[PQ_MLKEM768_EK_BYTES], uint8_t dk[PQ_MLKEM768_DK_BYTES],
                       const uint8_t seed[PQ_MLKEM768_SEED_BYTES]) {
    pke_keygen(ek, dk, seed);
    pq_ct_declassify(ek, PQ_MLKEM768_EK_BYTES);
    memcpy(dk + PKE_DK_BYTES, ek, PQ_MLKEM768_EK_BYTES);
    sha3_256(dk + PKE_DK_BYTES + PQ_MLKEM768_EK_BYTES, ek, PQ_MLKEM768_EK_BYTES);
    memcpy(dk + PKE_DK_BYTES + PQ_MLKEM768_EK_BYTES + 32, seed + 32, 32);
    return PQ_OK;
}

static int ek_check(const uint8_t ek[PQ_MLKEM768_EK_BYTES]) {
    for (int i = 0; i < K; i++)
        if (!mlkem_decode12_canonical(ek + i * MLKEM_POLYBYTES)) return PQ_EKEY;
    return PQ_OK;
}

/* (K, r) = G(m ‖ H(ek)); c = K-PKE.Encrypt(ek, m, r). */
static void encaps_inner(uint8_t ct[PQ_MLKEM768_CT_BYTES], uint8_t kr[64],
                         const uint8_t ek[PQ_MLKEM768_EK_BYTES], const uint8_t m[32], const uint8_t h[32]) {
    sha3_512_2(kr, m, 32, h, 32);
    pke_encrypt(ct, ek, m, kr + 32);
}

int pq_mlkem768_encaps_derand(uint8_t ct[PQ_MLKEM768_CT_BYTES], uint8_t ss[PQ_MLKEM768_SS_BYTES],
                              const uint8_t ek[PQ_MLKEM768_EK_BYTES], const uint8_t m[32]) {
    uint8_t h[32], kr[64];
    if (ek_check(ek) != PQ_OK) {
        memset(ct, 0, PQ_MLKEM768_CT_BYTES);
        memset(ss, 0, PQ_MLKEM768_SS_BYTES);
        return PQ_EKEY;
    }
    sha3_256(h, ek, PQ_MLKEM768_EK_BYTES);
    encaps_inner(ct, kr, ek, m, h);
    pq_ct_declassify(ct, PQ_MLKEM768_CT_BYTES);
    memcpy(ss, kr, 32);
    sodium_memzero(kr, sizeof kr);
    return PQ_OK;
}

int pq_mlkem768_encaps(uint8_t ct[PQ_MLKEM768_CT_BYTES], uint8_t ss[PQ_MLKEM768_SS_BYTES],
                       const uint8_t ek[PQ_MLKEM768_EK_BYTES]) {
    uint8_t m[32];
    if (sodium_init() < 0) return PQ_ERANDOM;
    randombytes_buf(m, sizeof m);
    int rc = pq_mlkem768_encaps_derand(ct, ss, ek, m);
    sodium_memzero(m, sizeof m);
    return rc;
}

int pq_mlkem768_decaps(uint8_t ss[PQ_MLKEM768_SS_BYTES], const uint8_t ct[PQ_MLKEM768_CT_BYTES],
                       const uint8_t dk[PQ_MLKEM768_DK_BYTES]) {
    const uint8_t *dkp = dk, *ek = dk + PKE_DK_BYTES, *h = ek + PQ_MLKEM768_EK_BYTES, *z = h + 32;
    struct {
        uint8_t hh[32], m[32], kr[64], kbar[32], zc[32 + PQ_MLKEM768_CT_BYTES], c2[PQ_MLKEM768_CT_BYTES];
    } w;
    sha3_256(w.hh, ek, PQ_MLKEM768_EK_BYTES);          /* §7.3 hash check (public data) */
    if (memcmp(w.hh, h, 32) != 0) {
        memset(ss, 0, PQ_MLKEM768_SS_BYTES);
        return PQ_EDKEY;
    }
    pke_decrypt(w.m, dkp, ct);
    encaps_inner(w.c2, w.kr, ek, w.m, h);
    memcpy(w.zc, z, 32);
    memcpy(w.zc + 32, ct, PQ_MLKEM768_CT_BYTES);
    sha3_shake256(w.kbar, 32, w.zc, sizeof w.zc);      /* K̄ = J(z ‖ c) */
    uint32_t diff = 0;
    for (size_t i = 0; i < PQ_MLKEM768_CT_BYTES; i++) diff |= (uint32_t)(ct[i] ^ w.c2[i]);
    uint8_t mask = (uint8_t)mlkem_ct_nonzero_mask(diff);   /* 0xff: reject */
    for (int i = 0; i < 32; i++)
        ss[i] = (uint8_t)(w.kr[i] ^ (mask & (w.kr[i] ^ w.kbar[i])));
    sodium_memzero(&w, sizeof w);
    return PQ_OK;
}

const char *pq_strerror(int rc) {
    switch (rc) {
    case PQ_OK:      return "success";
    case PQ_EKEY:    return "ML-KEM encapsulation key is not canonical (coefficient >= q)";
    case PQ_EDKEY:   return "ML-KEM decapsulation key is inconsistent (hash check failed)";
    case PQ_ERANDOM: return "the system random generator failed";
    default:         return "unknown post-quantum error";
    }
}
