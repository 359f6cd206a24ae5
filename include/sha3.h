/* include/sha3.h — SHA3-256 (FIPS 202) and the fused sequential chain
 * x_{i+1} = SHA3-256(x_i) over 32-byte states (prefix sha3_). */
#ifndef RXLOCK_SHA3_H
#define RXLOCK_SHA3_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

void sha3_256(uint8_t out[32], const void *in, size_t len);
/* state <- SHA3-256^steps(state) */
void sha3_chain(uint8_t state[32], uint64_t steps);
/* Name of the Keccak backend picked at run time ("portable", "bmi2", ...). */
const char *sha3_backend(void);

#ifdef __cplusplus
}
#endif
#endif
