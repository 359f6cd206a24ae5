/* src/sha3/internal.h — what the SHA3 backends share: the backend table
 * (one entry per Keccak-f[1600] implementation), lane byte order, and the
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
} sha3_impl;

/* Backends, each defined in its own file (NULL-free table in chain.c). */
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
/* The backend sha3_256 / sha3_chain use: the first available in the table. */
const sha3_impl *sha3_impl_select(void);

/* SHA3-256 of a ‖ b with a given backend (sha3_256_2 uses the selected one). */
void sha3_256_2_with(const sha3_impl *impl, uint8_t out[32],
                     const void *a, size_t alen, const void *b, size_t blen);
/* Fused chain with a given backend over 32-byte states. */
void sha3_chain_with(const sha3_impl *impl, uint8_t state[32], uint64_t steps);

static inline uint64_t sha3_load64_le(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}
static inline void sha3_store64_le(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
#endif
