/* SPDX-License-Identifier: ISC */
/* src/sha3/keccak_scalar.h — the scalar Keccak-f[1600] permutation and the
 * fused SHA3-256 chains (plain and counter/puzzle form), as a template: the includer defines KS_NAME(x) (the
 * function names) and may define KS_ATTR (e.g. a target attribute), so the same
 * source builds the portable backend and the x86-64 BMI1/BMI2 one (ANDN,
 * RORX).  Lanes are host integers; byte order is handled by the callers. */
#include "sha3/keccak_round.h"

#ifndef KS_ATTR
#define KS_ATTR
#endif
#define ROTL(x, n) (((x) << (n)) | ((x) >> (64 - (n))))
#define ANDN(a, b) (~(a) & (b))

KS_ATTR static void KS_NAME(permute)(uint64_t s[25]) {
    static const uint64_t rc[24] = KECCAK_RC_INIT;
    KECCAK_DECL(uint64_t, a);
    KECCAK_DECL(uint64_t, e);
    KECCAK_LOAD(a, s);
    for (int i = 0; i < 24; i += 2) {
        KECCAK_ROUND(a, e, rc[i]);
        KECCAK_ROUND(e, a, rc[i + 1]);
    }
    KECCAK_STORE(a, s);
}

/* x <- SHA3-256^steps(x), x as 4 lanes.  Each step the state is x, then the
 * fixed padding of a 32-byte message (0x06 at byte 32, 0x80 at byte 135),
 * then zeros; one permutation; the digest is lanes 0..3.  Round 0 is spelt
 * out so the compiler folds the constant lanes into it. */
KS_ATTR static void KS_NAME(chain)(uint64_t x[4], uint64_t steps) {
    static const uint64_t rc[24] = KECCAK_RC_INIT;
    KECCAK_DECL(uint64_t, a);
    KECCAK_DECL(uint64_t, e);
    uint64_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    for (uint64_t n = 0; n < steps; n++) {
        a00 = x0; a01 = x1; a02 = x2; a03 = x3; a04 = UINT64_C(0x06);
        a05 = a06 = a07 = a08 = a09 = a10 = a11 = a12 = a13 = a14 = a15 = 0;
        a16 = UINT64_C(0x8000000000000000);
        a17 = a18 = a19 = a20 = a21 = a22 = a23 = a24 = 0;
        KECCAK_ROUND(a, e, rc[0]);
        for (int i = 1; i < 23; i += 2) {
            KECCAK_ROUND(e, a, rc[i]);
            KECCAK_ROUND(a, e, rc[i + 1]);
        }
        KECCAK_ROUND(e, a, rc[23]);
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
    }
    x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3;
}

/* x <- SHA3-256(prefix ‖ LE64(i) ‖ x) for i = i0 .. i0+steps-1 (the lane
 * layout in sha3/internal.h): lanes 0..7 from the prefix and the counter,
 * 8..12 the previous digest shifted by 32 bits, one permutation per step. */
KS_ATTR static void KS_NAME(chain_ctr)(const uint64_t pre[8], uint64_t i0, uint64_t steps, uint64_t x[4]) {
    static const uint64_t rc[24] = KECCAK_RC_INIT;
    KECCAK_DECL(uint64_t, a);
    KECCAK_DECL(uint64_t, e);
    const uint64_t p0 = pre[0], p1 = pre[1], p2 = pre[2], p3 = pre[3], p4 = pre[4], p5 = pre[5],
                   p6 = pre[6], p7 = pre[7] & UINT64_C(0xffffffff);
    uint64_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
    for (uint64_t n = 0; n < steps; n++) {
        uint64_t i = i0 + n;
        a00 = p0; a01 = p1; a02 = p2; a03 = p3; a04 = p4; a05 = p5; a06 = p6;
        a07 = p7 | i << 32;
        a08 = i >> 32 | x0 << 32;
        a09 = x0 >> 32 | x1 << 32;
        a10 = x1 >> 32 | x2 << 32;
        a11 = x2 >> 32 | x3 << 32;
        a12 = x3 >> 32 | UINT64_C(0x06) << 32;
        a13 = a14 = a15 = 0;
        a16 = UINT64_C(0x8000000000000000);
        a17 = a18 = a19 = a20 = a21 = a22 = a23 = a24 = 0;
        KECCAK_ROUND(a, e, rc[0]);
        for (int r = 1; r < 23; r += 2) {
            KECCAK_ROUND(e, a, rc[r]);
            KECCAK_ROUND(a, e, rc[r + 1]);
        }
        KECCAK_ROUND(e, a, rc[23]);
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
    }
    x[0] = x0; x[1] = x1; x[2] = x2; x[3] = x3;
}

#undef ROTL
#undef ANDN
