/* SPDX-License-Identifier: ISC */
/* src/sha3/keccak_aarch64.c — AArch64 Keccak-f[1600] backend ("armv8-sha3"):
 * the ARMv8.2 SHA3 instructions EOR3 (theta's column parities), RAX1
 * (theta's D), XAR (theta + rho in one), BCAX (chi), one lane per vector
 * register (25 of the 32), built with a per-function target and chosen at
 * run time only when the kernel reports HWCAP_SHA3; and the two-chain
 * multi-chain backend (both halves of each q register used). */
#include "sha3/internal.h"
#include "util/cpufeat.h"
#if defined(SHA3_HAVE_ARMV8_SHA3)
#include <arm_neon.h>
#include <sodium.h>

#if defined(__clang__)
#define SHA3CE __attribute__((target("sha3")))
#else
#define SHA3CE __attribute__((target("arch=armv8.2-a+sha3")))
#endif
#include "sha3/keccak_round.h"

static const uint64_t sha3_rc[24] = KECCAK_RC_INIT;

#define LOADV(P, S) do { \
    P##00 = vdupq_n_u64((S)[0]);  P##01 = vdupq_n_u64((S)[1]);  P##02 = vdupq_n_u64((S)[2]);  \
    P##03 = vdupq_n_u64((S)[3]);  P##04 = vdupq_n_u64((S)[4]);  P##05 = vdupq_n_u64((S)[5]);  \
    P##06 = vdupq_n_u64((S)[6]);  P##07 = vdupq_n_u64((S)[7]);  P##08 = vdupq_n_u64((S)[8]);  \
    P##09 = vdupq_n_u64((S)[9]);  P##10 = vdupq_n_u64((S)[10]); P##11 = vdupq_n_u64((S)[11]); \
    P##12 = vdupq_n_u64((S)[12]); P##13 = vdupq_n_u64((S)[13]); P##14 = vdupq_n_u64((S)[14]); \
    P##15 = vdupq_n_u64((S)[15]); P##16 = vdupq_n_u64((S)[16]); P##17 = vdupq_n_u64((S)[17]); \
    P##18 = vdupq_n_u64((S)[18]); P##19 = vdupq_n_u64((S)[19]); P##20 = vdupq_n_u64((S)[20]); \
    P##21 = vdupq_n_u64((S)[21]); P##22 = vdupq_n_u64((S)[22]); P##23 = vdupq_n_u64((S)[23]); \
    P##24 = vdupq_n_u64((S)[24]); } while (0)

/* The counter chain's message lanes (sha3/internal.h) from prefix lanes
 * P0..P7, counter I, digest X0..X3. */
#define SHA3_CTR_LANES(A, P, I, X, PAD, ZERO) do { \
    A##00 = P##0; A##01 = P##1; A##02 = P##2; A##03 = P##3; A##04 = P##4; A##05 = P##5; A##06 = P##6; \
    A##07 = vorrq_u64(P##7, vshlq_n_u64(I, 32)); \
    A##08 = vorrq_u64(vshrq_n_u64(I, 32), vshlq_n_u64(X##0, 32)); \
    A##09 = vorrq_u64(vshrq_n_u64(X##0, 32), vshlq_n_u64(X##1, 32)); \
    A##10 = vorrq_u64(vshrq_n_u64(X##1, 32), vshlq_n_u64(X##2, 32)); \
    A##11 = vorrq_u64(vshrq_n_u64(X##2, 32), vshlq_n_u64(X##3, 32)); \
    A##12 = vorrq_u64(vshrq_n_u64(X##3, 32), PAD); \
    A##13 = A##14 = A##15 = ZERO; \
    A##16 = vdupq_n_u64(UINT64_C(0x8000000000000000)); \
    A##17 = A##18 = A##19 = A##20 = A##21 = A##22 = A##23 = A##24 = ZERO; \
} while (0)

SHA3CE static void sha3ce_permute(uint64_t s[25]) {
    KECCAK_DECL(uint64x2_t, a);
    KECCAK_DECL(uint64x2_t, e);
    LOADV(a, s);
    for (int i = 0; i < 24; i += 2) {
        KECCAK_ROUND_SHA3(a, e, vdupq_n_u64(sha3_rc[i]));
        KECCAK_ROUND_SHA3(e, a, vdupq_n_u64(sha3_rc[i + 1]));
    }
    uint64_t t[25] = {
        vgetq_lane_u64(a00, 0), vgetq_lane_u64(a01, 0), vgetq_lane_u64(a02, 0), vgetq_lane_u64(a03, 0),
        vgetq_lane_u64(a04, 0), vgetq_lane_u64(a05, 0), vgetq_lane_u64(a06, 0), vgetq_lane_u64(a07, 0),
        vgetq_lane_u64(a08, 0), vgetq_lane_u64(a09, 0), vgetq_lane_u64(a10, 0), vgetq_lane_u64(a11, 0),
        vgetq_lane_u64(a12, 0), vgetq_lane_u64(a13, 0), vgetq_lane_u64(a14, 0), vgetq_lane_u64(a15, 0),
        vgetq_lane_u64(a16, 0), vgetq_lane_u64(a17, 0), vgetq_lane_u64(a18, 0), vgetq_lane_u64(a19, 0),
        vgetq_lane_u64(a20, 0), vgetq_lane_u64(a21, 0), vgetq_lane_u64(a22, 0), vgetq_lane_u64(a23, 0),
        vgetq_lane_u64(a24, 0),
    };
    for (int i = 0; i < 25; i++) s[i] = t[i];
}

/* The fused chain: the 32-byte state stays in four vector registers; each
 * step resets the other 21 lanes to the fixed padding (0x06 in lane 4, the
 * top bit of lane 16) and runs the 24 rounds. */
SHA3CE static void sha3ce_chain(uint64_t x[4], uint64_t steps) {
    KECCAK_DECL(uint64x2_t, a);
    KECCAK_DECL(uint64x2_t, e);
    const uint64x2_t zero = vdupq_n_u64(0);
    uint64x2_t x0 = vdupq_n_u64(x[0]), x1 = vdupq_n_u64(x[1]);
    uint64x2_t x2 = vdupq_n_u64(x[2]), x3 = vdupq_n_u64(x[3]);
    for (uint64_t n = 0; n < steps; n++) {
        a00 = x0; a01 = x1; a02 = x2; a03 = x3; a04 = vdupq_n_u64(0x06);
        a05 = a06 = a07 = a08 = a09 = a10 = a11 = a12 = a13 = a14 = a15 = zero;
        a16 = vdupq_n_u64(UINT64_C(0x8000000000000000));
        a17 = a18 = a19 = a20 = a21 = a22 = a23 = a24 = zero;
        KECCAK_ROUND_SHA3(a, e, vdupq_n_u64(sha3_rc[0]));
        for (int i = 1; i < 23; i += 2) {
            KECCAK_ROUND_SHA3(e, a, vdupq_n_u64(sha3_rc[i]));
            KECCAK_ROUND_SHA3(a, e, vdupq_n_u64(sha3_rc[i + 1]));
        }
        KECCAK_ROUND_SHA3(e, a, vdupq_n_u64(sha3_rc[23]));
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
    }
    x[0] = vgetq_lane_u64(x0, 0); x[1] = vgetq_lane_u64(x1, 0);
    x[2] = vgetq_lane_u64(x2, 0); x[3] = vgetq_lane_u64(x3, 0);
}
/* two independent counter chains, one per 64-bit half of each q
 * register (the multi-chain backend "armv8-sha3x2"). */
SHA3CE static void sha3ce_chain_ctr_x2(sha3_lanes *st, uint64_t steps) {
    KECCAK_DECL(uint64x2_t, a);
    KECCAK_DECL(uint64x2_t, e);
    const uint64x2_t zero = vdupq_n_u64(0), one = vdupq_n_u64(1), pad = vdupq_n_u64(UINT64_C(0x06) << 32);
    const uint64x2_t p0 = vld1q_u64(st->pre[0]), p1 = vld1q_u64(st->pre[1]), p2 = vld1q_u64(st->pre[2]),
                     p3 = vld1q_u64(st->pre[3]), p4 = vld1q_u64(st->pre[4]), p5 = vld1q_u64(st->pre[5]),
                     p6 = vld1q_u64(st->pre[6]),
                     p7 = vandq_u64(vld1q_u64(st->pre[7]), vdupq_n_u64(UINT64_C(0xffffffff)));
    uint64x2_t x0 = vld1q_u64(st->x[0]), x1 = vld1q_u64(st->x[1]);
    uint64x2_t x2 = vld1q_u64(st->x[2]), x3 = vld1q_u64(st->x[3]), i = vld1q_u64(st->ctr);
    for (uint64_t n = 0; n < steps; n++) {
        SHA3_CTR_LANES(a, p, i, x, pad, zero);
        KECCAK_ROUND_SHA3(a, e, vdupq_n_u64(sha3_rc[0]));
        for (int r = 1; r < 23; r += 2) {
            KECCAK_ROUND_SHA3(e, a, vdupq_n_u64(sha3_rc[r]));
            KECCAK_ROUND_SHA3(a, e, vdupq_n_u64(sha3_rc[r + 1]));
        }
        KECCAK_ROUND_SHA3(e, a, vdupq_n_u64(sha3_rc[23]));
        x0 = a00; x1 = a01; x2 = a02; x3 = a03;
        i = vaddq_u64(i, one);
    }
    vst1q_u64(st->x[0], x0); vst1q_u64(st->x[1], x1);
    vst1q_u64(st->x[2], x2); vst1q_u64(st->x[3], x3);
    vst1q_u64(st->ctr, i);
}

/* Counter (puzzle-form) chain, layout in sha3/internal.h: the two-lane
 * body above with both lanes equal — one chain in a q register runs both
 * halves anyway, so the loop is the same instructions (only the loads
 * before it differ); one body for both. */
SHA3CE static void sha3ce_chain_ctr(const uint64_t pre[8], uint64_t i0, uint64_t steps, uint64_t x[4]) {
    sha3_lanes st;
    for (int j = 0; j < 8; j++) st.pre[j][0] = st.pre[j][1] = pre[j];
    st.ctr[0] = st.ctr[1] = i0;
    for (int k = 0; k < 4; k++) st.x[k][0] = st.x[k][1] = x[k];
    sha3ce_chain_ctr_x2(&st, steps);
    for (int k = 0; k < 4; k++) x[k] = st.x[k][0];
    sodium_memzero(&st, sizeof st);   /* the prefix (K) and the chain value */
}
#undef SHA3CE

static int sha3ce_available(void) {
    return util_cpufeat_get()->arm_sha3;
}

const sha3_impl sha3_impl_armv8_sha3 = {
    "armv8-sha3", sha3ce_available, sha3ce_permute, sha3ce_chain, sha3ce_chain_ctr,
};

const sha3_multi_impl sha3_multi_armv8_sha3 = {
    "armv8-sha3x2", 2, sha3ce_available, sha3ce_chain_ctr_x2,
};
#else
typedef int sha3_keccak_aarch64_unused;   /* ISO C: no empty translation unit */
#endif
