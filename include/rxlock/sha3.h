/* SPDX-License-Identifier: ISC */
/* include/rxlock/sha3.h — SHA3-256 (FIPS 202) and the fused sequential chain
 * x_{i+1} = SHA3-256(x_i) over 32-byte states (prefix sha3_); SHA3-512 and
 * the SHAKE128 / SHAKE256 XOFs (src/sha3/shake.c). */
#ifndef RXLOCK_SHA3_H
#define RXLOCK_SHA3_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* out <- SHA3-256(in[0..len)).  in may be NULL when len is 0. */
void sha3_256(uint8_t out[32], const void *in, size_t len);
/* out <- SHA3-256(a ‖ b) without copying (the puzzle form W(K, m) =
 * SHA3-256(K ‖ m)).  a / b may be NULL when their length is 0. */
void sha3_256_2(uint8_t out[32], const void *a, size_t alen, const void *b, size_t blen);
/* state <- SHA3-256^steps(state): steps sequential hashes of the 32-byte
 * state, fused (one permutation per step, no generic absorb/pad/squeeze). */
void sha3_chain(uint8_t state[32], uint64_t steps);
/* Name of the Keccak backend picked at run time ("portable", "bmi2", ...).
 * RXLOCK_SHA3=<name> picks a named one when this CPU runs it. */
const char *sha3_backend(void);

/* the counter chain (the puzzle form W(K, m) of docs/DESIGN.md §1
 * with K and m's fixed bytes in prefix), fused:
 *   for i = i0, i0+1, ..., i0+steps-1:  d <- SHA3-256(prefix ‖ LE64(i) ‖ d)
 * (a 100-byte message, one permutation per step; i wraps modulo 2^64). */
void sha3_chain_ctr(const uint8_t prefix[60], uint64_t i0, uint64_t steps, uint8_t d[32]);
/* n independent counter chains advanced steps steps each (chain c: prefix[c],
 * counter from i0[c], state d[c]), several at a time in SIMD lanes where the
 * CPU has them; the same results as n sha3_chain_ctr calls. */
void sha3_chain_ctr_multi(size_t n, const uint8_t (*prefix)[60], const uint64_t *i0,
                          uint64_t steps, uint8_t (*d)[32]);
/* The multi-chain backend picked at run time ("avx512x8", "avx2x4",
 * "armv8-sha3x2", "portable"; RXLOCK_SHA3_MULTI=<name> picks a named one when
 * this CPU runs it) and how many chains it advances at once. */
const char *sha3_multi_backend(void);
unsigned sha3_multi_lanes(void);
/* ---- SHA3-512 and the XOFs (src/sha3/shake.c) --------------------------- */
/* out <- SHA3-512(in) / SHA3-512(a ‖ b).  NULL allowed with length 0. */
void sha3_512(uint8_t out[64], const void *in, size_t len);
void sha3_512_2(uint8_t out[64], const void *a, size_t alen, const void *b, size_t blen);
/* out[0..outlen) <- SHAKE128 / SHAKE256(in), any output length. */
void sha3_shake128(uint8_t *out, size_t outlen, const void *in, size_t len);
void sha3_shake256(uint8_t *out, size_t outlen, const void *in, size_t len);
/* Incremental XOF: init, absorb any number of times, then squeeze any
 * number of times (absorbing after the first squeeze is ignored).  The
 * state can hold secrets: sha3_xof_wipe it when done. */
typedef struct {
    uint64_t s[25];
    unsigned pos, rate;
    uint8_t domain, squeezing;
    const void *impl;
} sha3_xof;
void sha3_shake128_init(sha3_xof *c);
void sha3_shake256_init(sha3_xof *c);
void sha3_xof_absorb(sha3_xof *c, const void *in, size_t len);
void sha3_xof_squeeze(sha3_xof *c, void *out, size_t len);
void sha3_xof_wipe(sha3_xof *c);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
