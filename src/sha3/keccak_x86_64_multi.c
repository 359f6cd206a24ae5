/* SPDX-License-Identifier: ISC */
/* src/sha3/keccak_x86_64_multi.c — the x86-64 multi-chain SHA3 backends
 *: several independent counter chains (sha3_chain_ctr's message
 * layout, sha3/internal.h), one chain per 64-bit SIMD lane, so one round's
 * instructions advance them all:
 *  "avx512x8": eight chains per zmm, VPTERNLOGQ for theta's three-way XORs
 *              and chi, VPROLQ for the rotations (32 zmm registers);
 *  "avx2x4":   four chains per ymm, rotations as two shifts and an OR, chi
 *              as ANDNOT and XOR (16 ymm registers: the compiler spills).
 * Availability is asked of the same compiler builtins keccak_x86_64.c uses. */
#if defined(__x86_64__)
#include "sha3/internal.h"
#include "sha3/keccak_round.h"
#include <immintrin.h>

static const uint64_t multi_rc[24] = KECCAK_RC_INIT;

/* One step's message lanes from prefix lanes P0..P7, counter I and digest
 * X0..X3, with the width's OR / shift / constant spellings. */
#define CTR_LANES(OR, SHL32, SHR32, A, P, I, X, PAD, TOP, ZERO) do { \
    A##00 = P##0; A##01 = P##1; A##02 = P##2; A##03 = P##3; A##04 = P##4; A##05 = P##5; A##06 = P##6; \
    A##07 = OR(P##7, SHL32(I)); \
    A##08 = OR(SHR32(I), SHL32(X##0)); \
    A##09 = OR(SHR32(X##0), SHL32(X##1)); \
    A##10 = OR(SHR32(X##1), SHL32(X##2)); \
    A##11 = OR(SHR32(X##2), SHL32(X##3)); \
    A##12 = OR(SHR32(X##3), PAD); \
    A##13 = A##14 = A##15 = ZERO; \
    A##16 = TOP; \
    A##17 = A##18 = A##19 = A##20 = A##21 = A##22 = A##23 = A##24 = ZERO; \
} while (0)

/* The 24 rounds over lanes a (e scratch), result in a. */
#define ROUNDS(ROUND, SET1) do { \
    ROUND(a, e, SET1(multi_rc[0])); \
    for (int r = 1; r < 23; r += 2) { \
        ROUND(e, a, SET1(multi_rc[r])); \
        ROUND(a, e, SET1(multi_rc[r + 1])); \
    } \
    ROUND(e, a, SET1(multi_rc[23])); \
} while (0)

#define LOW32 UINT64_C(0xffffffff)
#define PADV (UINT64_C(0x06) << 32)
#define TOPV UINT64_C(0x8000000000000000)

/* ---- AVX-512F: 8 chains ---- */
#define Z __attribute__((target("avx512f")))
#define Z_OR(a, b) _mm512_or_si512(a, b)
#define Z_SHL32(v) _mm512_slli_epi64(v, 32)
#define Z_SHR32(v) _mm512_srli_epi64(v, 32)
#define Z_SET1(v) _mm512_set1_epi64((long long)(v))

Z static void avx512x8_chain_ctr(sha3_lanes *st, uint64_t steps) {
    KECCAK_DECL(__m512i, a);
    KECCAK_DECL(__m512i, e);
    const __m512i zero = _mm512_setzero_si512(), one = Z_SET1(1), pad = Z_SET1(PADV), top = Z_SET1(TOPV);
    const __m512i p0 = _mm512_loadu_si512(st->pre[0]), p1 = _mm512_loadu_si512(st->pre[1]),
                  p2 = _mm512_loadu_si512(st->pre[2]), p3 = _mm512_loadu_si512(st->pre[3]),
                  p4 = _mm512_loadu_si512(st->pre[4]), p5 = _mm512_loadu_si512(st->pre[5]),
                  p6 = _mm512_loadu_si512(st->pre[6]),
                  p7 = _mm512_and_si512(_mm512_loadu_si512(st->pre[7]), Z_SET1(LOW32));
    __m512i x0 = _mm512_loadu_si512(st->x[0]), x1 = _mm512_loadu_si512(st->x[1]);
    __m512i x2 = _mm512_loadu_si512(st->x[2]), x3 = _mm512_loadu_si512(st->x[3]);
    __m512i i = _mm512_loadu_si512(st->ctr);
    for (uint64_t n = 0; n < steps; n++) {
        CTR_LANES(Z_OR, Z_SHL32, Z_SHR32, a, p, i, x, pad, top, zero);
        ROUNDS(KECCAK_ROUND_AVX512X8, Z_SET1);
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
        i = _mm512_add_epi64(i, one);
    }
    _mm512_storeu_si512(st->x[0], x0); _mm512_storeu_si512(st->x[1], x1);
    _mm512_storeu_si512(st->x[2], x2); _mm512_storeu_si512(st->x[3], x3);
    _mm512_storeu_si512(st->ctr, i);
}

static int avx512x8_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}

const sha3_multi_impl sha3_multi_avx512 = {
    "avx512x8", 8, avx512x8_available, avx512x8_chain_ctr,
};

/* ---- AVX2: 4 chains ---- */
#define Y __attribute__((target("avx2")))
#define Y_OR(a, b) _mm256_or_si256(a, b)
#define Y_SHL32(v) _mm256_slli_epi64(v, 32)
#define Y_SHR32(v) _mm256_srli_epi64(v, 32)
#define Y_SET1(v) _mm256_set1_epi64x((long long)(v))
#define Y_LD(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define Y_ST(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)

Y static void avx2x4_chain_ctr(sha3_lanes *st, uint64_t steps) {
    KECCAK_DECL(__m256i, a);
    KECCAK_DECL(__m256i, e);
    const __m256i zero = _mm256_setzero_si256(), one = Y_SET1(1), pad = Y_SET1(PADV), top = Y_SET1(TOPV);
    const __m256i p0 = Y_LD(st->pre[0]), p1 = Y_LD(st->pre[1]), p2 = Y_LD(st->pre[2]),
                  p3 = Y_LD(st->pre[3]), p4 = Y_LD(st->pre[4]), p5 = Y_LD(st->pre[5]),
                  p6 = Y_LD(st->pre[6]), p7 = _mm256_and_si256(Y_LD(st->pre[7]), Y_SET1(LOW32));
    __m256i x0 = Y_LD(st->x[0]), x1 = Y_LD(st->x[1]), x2 = Y_LD(st->x[2]), x3 = Y_LD(st->x[3]);
    __m256i i = Y_LD(st->ctr);
    for (uint64_t n = 0; n < steps; n++) {
        CTR_LANES(Y_OR, Y_SHL32, Y_SHR32, a, p, i, x, pad, top, zero);
        ROUNDS(KECCAK_ROUND_AVX2, Y_SET1);
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
        i = _mm256_add_epi64(i, one);
    }
    Y_ST(st->x[0], x0); Y_ST(st->x[1], x1); Y_ST(st->x[2], x2); Y_ST(st->x[3], x3);
    Y_ST(st->ctr, i);
}

static int avx2x4_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

const sha3_multi_impl sha3_multi_avx2 = {
    "avx2x4", 4, avx2x4_available, avx2x4_chain_ctr,
};
#else
typedef int sha3_keccak_x86_64_multi_unused;   /* ISO C: no empty translation unit */
#endif
