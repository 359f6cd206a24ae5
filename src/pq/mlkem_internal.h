/* SPDX-License-Identifier: ISC */
/* src/pq/mlkem_internal.h — what the ML-KEM-768 files share (FIPS 203):
 * the parameters, the polynomial type and the ring / NTT / sampling /
 * encoding primitives of mlkem_poly.c, and the constant-time helpers.
 * Every primitive here is constant time in the coefficient values: no
 * branch, table index or division depends on them (Barrett reduction and
 * multiply-shift instead of / and %, the KyberSlash pitfall).  Sampling
 * from ρ (SampleNTT) is public and may branch. */
#ifndef RXLOCK_PQ_MLKEM_INTERNAL_H
#define RXLOCK_PQ_MLKEM_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#define MLKEM_N   256
#define MLKEM_Q   3329u
#define MLKEM_K   3
#define MLKEM_DU  10
#define MLKEM_DV  4
#define MLKEM_POLYBYTES 384   /* ByteEncode12 of one polynomial */

typedef struct { uint16_t c[MLKEM_N]; } mlkem_poly;   /* coefficients in [0, q) */

/* Hide a value from the optimizer so that masks built from it stay
 * arithmetic (clang likes to turn a 0/-1 mask back into a branch). */
static inline uint32_t mlkem_ct_barrier(uint32_t x) {
#if defined(__GNUC__) || defined(__clang__)
    __asm__ volatile("" : "+r"(x));
    return x;
#else
    volatile uint32_t v = x;
    return v;
#endif
}
/* 0xffffffff if x != 0 else 0, without a branch. */
static inline uint32_t mlkem_ct_nonzero_mask(uint32_t x) {
    uint64_t v = (uint64_t)mlkem_ct_barrier(x);
    return (uint32_t)(0 - ((v | (0 - v)) >> 63));
}

/* Ring and NTT (FIPS 203 §4.3, Algorithms 9-12). */
void mlkem_ntt(mlkem_poly *f);
void mlkem_invntt(mlkem_poly *f);
/* acc += f ∘ g in the NTT domain (MultiplyNTTs, then add). */
void mlkem_basemul_acc(mlkem_poly *acc, const mlkem_poly *f, const mlkem_poly *g);
void mlkem_poly_add(mlkem_poly *r, const mlkem_poly *a);        /* r += a */
void mlkem_poly_sub(mlkem_poly *r, const mlkem_poly *a);        /* r = a - r */

/* Sampling (Algorithms 7, 8). */
void mlkem_sample_ntt(mlkem_poly *f, const uint8_t rho[32], uint8_t x, uint8_t y);
/* f <- SamplePolyCBD_2(PRF_2(s, b)) = CBD over SHAKE256(s ‖ b, 128). */
void mlkem_sample_cbd2(mlkem_poly *f, const uint8_t s[32], uint8_t b);

/* ByteEncode_d / ByteDecode_d (Algorithms 5, 6), d = 1, 4, 10, 12;
 * decode12 reduces mod q; out/in hold 32·d bytes. */
void mlkem_encode(uint8_t *out, const mlkem_poly *f, unsigned d);
void mlkem_decode(mlkem_poly *f, const uint8_t *in, unsigned d);
/* 1 if every 12-bit value of in[0..384) is < q (the §7.2 modulus check). */
int  mlkem_decode12_canonical(const uint8_t in[MLKEM_POLYBYTES]);
/* Compress_d / Decompress_d on every coefficient (§4.2.1). */
void mlkem_compress(mlkem_poly *f, unsigned d);
void mlkem_decompress(mlkem_poly *f, unsigned d);
#ifdef RXLOCK_TESTING
/* Test build only: 1 = FIPS 203 ipd key generation (G(d) without the
 * k byte), the variant the C2SP CCTV accumulated vectors were made with. */
extern int pq_mlkem_test_ipd;
#endif
/* Mark p[0..n) public from here on: the test build under valgrind treats
 * secrets as undefined memory (tests/test_pq_ct.c); the ek a key generation
 * returns and the ct an encapsulation returns are public.  No-op otherwise. */
void pq_ct_declassify(const void *p, size_t n);
#endif
