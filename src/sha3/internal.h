/* SPDX-License-Identifier: ISC */
/* src/sha3/internal.h — what the SHA3 backends share: the backend table
 * (one entry per Keccak-f[1600] implementation), the multi-chain backend
 * table (several independent chains in SIMD lanes), lane byte order, and the
 * sponge over a chosen permutation.  Tests and bench/ use it to run every
 * backend this CPU supports. */
#ifndef RXLOCK_SHA3_INTERNAL_H
#define RXLOCK_SHA3_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#define SHA3_256_RATE 136u   /* bytes absorbed per permutation (1600 - 2*256 bits) */

typedef struct {
    const char *name;
    int  (*available)(void);                       /* 1 if this CPU runs it */
    void (*permute)(uint64_t s[25]);               /* Keccak-f[1600], host-order lanes */
    void (*chain)(uint64_t x[4], uint64_t steps);  /* fused x <- SHA3-256^steps(x) */
    /* Fused counter chain (sha3_chain_ctr), one permutation per step:
     * x <- SHA3-256(prefix ‖ LE64(i) ‖ x), i = i0 .. i0+steps-1, over the
     * 100-byte message in lanes: 0..6 = pre[0..6]; 7 = pre[7] (prefix bytes
     * 56..59, low half) | low half of i << 32; 8 = i >> 32 | x0 << 32;
     * 9..11 = x[k-1] >> 32 | x[k] << 32; 12 = x3 >> 32 | 0x06 << 32 (the
     * padding byte at 100); 16 = 0x80 << 56; the rest 0. */
    void (*chain_ctr)(const uint64_t pre[8], uint64_t i0, uint64_t steps, uint64_t x[4]);
} sha3_impl;

/* Backends, each defined in its own file (the table: dispatch.c). */
extern const sha3_impl sha3_impl_portable;
#if defined(__x86_64__)
extern const sha3_impl sha3_impl_avx512;
extern const sha3_impl sha3_impl_bmi2;
#endif
/* GCC enables the SHA3 intrinsics per function; clang (14) only when the
 * whole unit targets them (-march=armv8.2-a+sha3), so without that a clang
 * build keeps the portable backend on AArch64. */
#if defined(__aarch64__) && (!defined(__clang__) || defined(__ARM_FEATURE_SHA3))
#define SHA3_HAVE_ARMV8_SHA3 1
extern const sha3_impl sha3_impl_armv8_sha3;
#endif

/* All compiled-in backends, best first; *n gets the count. */
const sha3_impl *const *sha3_impls(size_t *n);
/* The backend sha3_256 / sha3_chain use: RXLOCK_SHA3=<name> when that one
 * is available, else the first available in the table. */
const sha3_impl *sha3_impl_select(void);

/* multi-chain backends.  SHA3_LANES_MAX independent counter
 * chains in lane-major arrays (element [j][c] = lane j of chain c); a
 * backend advances chains 0..lanes-1 by steps steps (ctr[c] += steps). */
#define SHA3_LANES_MAX 8
typedef struct {
    uint64_t pre[8][SHA3_LANES_MAX];   /* prefix lanes, as chain_ctr's pre */
    uint64_t ctr[SHA3_LANES_MAX];      /* the next step's counter */
    uint64_t x[4][SHA3_LANES_MAX];     /* the digest (the chain value) */
} sha3_lanes;

typedef struct {
    const char *name;
    unsigned lanes;                                  /* chains per call, <= SHA3_LANES_MAX */
    int  (*available)(void);
    void (*chain_ctr)(sha3_lanes *st, uint64_t steps);
} sha3_multi_impl;

extern const sha3_multi_impl sha3_multi_portable;   /* lanes 1: the selected single-chain backend */
#if defined(__x86_64__)
extern const sha3_multi_impl sha3_multi_avx512;     /* 8 lanes per zmm */
extern const sha3_multi_impl sha3_multi_avx2;       /* 4 lanes per ymm */
#endif
#if defined(SHA3_HAVE_ARMV8_SHA3)
extern const sha3_multi_impl sha3_multi_armv8_sha3; /* 2 lanes per q register */
#endif
/* All compiled-in multi-chain backends, widest first; *n gets the count. */
const sha3_multi_impl *const *sha3_multi_impls(size_t *n);
/* The one sha3_chain_ctr_multi uses: RXLOCK_SHA3_MULTI=<name> when that one
 * is available, else the first available. */
const sha3_multi_impl *sha3_multi_select(void);
/* sha3_chain_ctr / sha3_chain_ctr_multi with a given backend. */
void sha3_chain_ctr_with(const sha3_impl *impl, const uint8_t prefix[60], uint64_t i0,
                         uint64_t steps, uint8_t d[32]);
void sha3_chain_ctr_multi_with(const sha3_multi_impl *impl, size_t n, const uint8_t (*prefix)[60],
                               const uint64_t *i0, uint64_t steps, uint8_t (*d)[32]);
/* The prefix bytes as chain_ctr's lanes. */
void sha3_prefix_lanes(uint64_t pre[8], const uint8_t prefix[60]);

/* SHA3-256 of a ‖ b with a given backend (sha3_256_2 uses the selected one). */
void sha3_256_2_with(const sha3_impl *impl, uint8_t out[32],
                     const void *a, size_t alen, const void *b, size_t blen);
/* Fused chain with a given backend over 32-byte states. */
void sha3_chain_with(const sha3_impl *impl, uint8_t state[32], uint64_t steps);

#endif
