/* SPDX-License-Identifier: ISC */
/* src/sha3/keccak_x86_64.c — the x86-64 Keccak-f[1600] backends, each
 * behind run-time CPU detection:
 *  "avx512": one lane per xmm register (AVX-512VL has 32), VPTERNLOGQ for
 *            theta's three-way XORs and for all of chi's a ^ (~b & c), VPROLQ
 *            for the rotations; no shuffles, and theta's D is applied in
 *            place so about 30 values are live (GCC still spills a few).
 *  "bmi2":   the scalar template built for BMI1/BMI2 (ANDN folds chi's NOT,
 *            so no lane complementing is needed; RORX rotates without
 *            clobbering its source). */
#if defined(__x86_64__)
#include "sha3/internal.h"
#include "util/cpufeat.h"

#define KS_ATTR __attribute__((target("bmi,bmi2")))
#define KS_NAME(x) bmi2_##x
#include "sha3/keccak_scalar.h"
#undef KS_NAME
#undef KS_ATTR

static int bmi2_available(void) {
    return util_cpufeat_get()->bmi1 && util_cpufeat_get()->bmi2;
}

const sha3_impl sha3_impl_bmi2 = {
    "bmi2", bmi2_available, bmi2_permute, bmi2_chain, bmi2_chain_ctr,
};

#include <immintrin.h>
#define AVX512 __attribute__((target("avx512f,avx512vl")))
static const uint64_t avx512_rc[24] = KECCAK_RC_INIT;

#define V(v) _mm_cvtsi64_si128((long long)(v))
#define U(v) ((uint64_t)_mm_cvtsi128_si64(v))

AVX512 static void avx512_permute(uint64_t s[25]) {
    KECCAK_DECL(__m128i, a);
    KECCAK_DECL(__m128i, e);
    a00 = V(s[0]);  a01 = V(s[1]);  a02 = V(s[2]);  a03 = V(s[3]);  a04 = V(s[4]);
    a05 = V(s[5]);  a06 = V(s[6]);  a07 = V(s[7]);  a08 = V(s[8]);  a09 = V(s[9]);
    a10 = V(s[10]); a11 = V(s[11]); a12 = V(s[12]); a13 = V(s[13]); a14 = V(s[14]);
    a15 = V(s[15]); a16 = V(s[16]); a17 = V(s[17]); a18 = V(s[18]); a19 = V(s[19]);
    a20 = V(s[20]); a21 = V(s[21]); a22 = V(s[22]); a23 = V(s[23]); a24 = V(s[24]);
    for (int i = 0; i < 24; i += 2) {
        KECCAK_ROUND_AVX512(a, e, V(avx512_rc[i]));
        KECCAK_ROUND_AVX512(e, a, V(avx512_rc[i + 1]));
    }
    s[0] = U(a00);  s[1] = U(a01);  s[2] = U(a02);  s[3] = U(a03);  s[4] = U(a04);
    s[5] = U(a05);  s[6] = U(a06);  s[7] = U(a07);  s[8] = U(a08);  s[9] = U(a09);
    s[10] = U(a10); s[11] = U(a11); s[12] = U(a12); s[13] = U(a13); s[14] = U(a14);
    s[15] = U(a15); s[16] = U(a16); s[17] = U(a17); s[18] = U(a18); s[19] = U(a19);
    s[20] = U(a20); s[21] = U(a21); s[22] = U(a22); s[23] = U(a23); s[24] = U(a24);
}

/* Fused chain: x stays in four xmm registers; each step the other lanes are
 * reset to the fixed padding (0x06 in lane 4, the top bit of lane 16). */
AVX512 static void avx512_chain(uint64_t x[4], uint64_t steps) {
    KECCAK_DECL(__m128i, a);
    KECCAK_DECL(__m128i, e);
    const __m128i zero = _mm_setzero_si128();
    __m128i x0 = V(x[0]), x1 = V(x[1]), x2 = V(x[2]), x3 = V(x[3]);
    for (uint64_t n = 0; n < steps; n++) {
        a00 = x0; a01 = x1; a02 = x2; a03 = x3; a04 = V(0x06);
        a05 = a06 = a07 = a08 = a09 = a10 = a11 = a12 = a13 = a14 = a15 = zero;
        a16 = V(UINT64_C(0x8000000000000000));
        a17 = a18 = a19 = a20 = a21 = a22 = a23 = a24 = zero;
        KECCAK_ROUND_AVX512(a, e, V(avx512_rc[0]));
        for (int i = 1; i < 23; i += 2) {
            KECCAK_ROUND_AVX512(e, a, V(avx512_rc[i]));
            KECCAK_ROUND_AVX512(a, e, V(avx512_rc[i + 1]));
        }
        KECCAK_ROUND_AVX512(e, a, V(avx512_rc[23]));
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
    }
    x[0] = U(x0); x[1] = U(x1); x[2] = U(x2); x[3] = U(x3);
}
/* Counter (puzzle-form) chain, layout in sha3/internal.h: the prefix lanes
 * and the counter stay in registers; lanes 8..12 are the digest shifted by
 * 32 bits (shift and OR, no shuffles). */
#define SHL32(v) _mm_slli_epi64(v, 32)
#define SHR32(v) _mm_srli_epi64(v, 32)
AVX512 static void avx512_chain_ctr(const uint64_t pre[8], uint64_t i0, uint64_t steps, uint64_t x[4]) {
    KECCAK_DECL(__m128i, a);
    KECCAK_DECL(__m128i, e);
    const __m128i zero = _mm_setzero_si128(), one = V(1), pad = V(UINT64_C(0x06) << 32);
    const __m128i p0 = V(pre[0]), p1 = V(pre[1]), p2 = V(pre[2]), p3 = V(pre[3]), p4 = V(pre[4]),
                  p5 = V(pre[5]), p6 = V(pre[6]), p7 = V(pre[7] & UINT64_C(0xffffffff));
    __m128i x0 = V(x[0]), x1 = V(x[1]), x2 = V(x[2]), x3 = V(x[3]), i = V(i0);
    for (uint64_t n = 0; n < steps; n++) {
        a00 = p0; a01 = p1; a02 = p2; a03 = p3; a04 = p4; a05 = p5; a06 = p6;
        a07 = _mm_or_si128(p7, SHL32(i));
        a08 = _mm_or_si128(SHR32(i), SHL32(x0));
        a09 = _mm_or_si128(SHR32(x0), SHL32(x1));
        a10 = _mm_or_si128(SHR32(x1), SHL32(x2));
        a11 = _mm_or_si128(SHR32(x2), SHL32(x3));
        a12 = _mm_or_si128(SHR32(x3), pad);
        a13 = a14 = a15 = zero;
        a16 = V(UINT64_C(0x8000000000000000));
        a17 = a18 = a19 = a20 = a21 = a22 = a23 = a24 = zero;
        KECCAK_ROUND_AVX512(a, e, V(avx512_rc[0]));
        for (int r = 1; r < 23; r += 2) {
            KECCAK_ROUND_AVX512(e, a, V(avx512_rc[r]));
            KECCAK_ROUND_AVX512(a, e, V(avx512_rc[r + 1]));
        }
        KECCAK_ROUND_AVX512(e, a, V(avx512_rc[23]));
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
        i = _mm_add_epi64(i, one);
    }
    x[0] = U(x0); x[1] = U(x1); x[2] = U(x2); x[3] = U(x3);
}
#undef SHL32
#undef SHR32
#undef V
#undef U
#undef AVX512

static int avx512_available(void) {
    return util_cpufeat_get()->avx512f && util_cpufeat_get()->avx512vl;
}

const sha3_impl sha3_impl_avx512 = {
    "avx512", avx512_available, avx512_permute, avx512_chain, avx512_chain_ctr,
};
#else
typedef int sha3_keccak_x86_64_unused;   /* ISO C: no empty translation unit */
#endif
