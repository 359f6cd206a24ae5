/* include/rxlock/sha3.h — SHA3-256 (FIPS 202) and the fused sequential chain
 * x_{i+1} = SHA3-256(x_i) over 32-byte states (prefix sha3_). */
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
/* Name of the Keccak backend picked at run time ("portable", "bmi2", ...). */
const char *sha3_backend(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
