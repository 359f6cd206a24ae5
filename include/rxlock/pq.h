/* SPDX-License-Identifier: ISC */
/* include/rxlock/pq.h — post-quantum primitives in our own C (prefix pq_):
 * ML-KEM-768 (FIPS 203): key generation from a 64-byte seed d ‖ z,
 * encapsulation with the §7.2 encapsulation-key check, decapsulation with
 * the §7.3 key check and implicit rejection.  Constant time in every
 * secret; every secret intermediate is wiped.  Functions return 0 or a
 * negative PQ_E* code (-300 .. -399, include/rxlock/error.h). */
#ifndef RXLOCK_PQ_H
#define RXLOCK_PQ_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum pq_error {
    PQ_OK      = 0,
    PQ_EKEY    = -301,  /* encapsulation key fails the FIPS 203 §7.2 modulus check */
    PQ_EDKEY   = -302,  /* decapsulation key fails the §7.3 hash check             */
    PQ_ERANDOM = -303   /* the system random generator failed                      */
};
/* Names a PQ_E* code ("unknown post-quantum error" otherwise). */
const char *pq_strerror(int rc);

#define PQ_MLKEM768_EK_BYTES 1184   /* encapsulation key: ByteEncode12(t̂) ‖ ρ      */
#define PQ_MLKEM768_DK_BYTES 2400   /* decapsulation key: dk_PKE ‖ ek ‖ H(ek) ‖ z  */
#define PQ_MLKEM768_CT_BYTES 1088   /* ciphertext c1 (du = 10) ‖ c2 (dv = 4)       */
#define PQ_MLKEM768_SS_BYTES 32     /* shared secret                               */
#define PQ_MLKEM768_SEED_BYTES 64   /* d ‖ z                                       */

/* ML-KEM.KeyGen_internal(d, z) with seed = d ‖ z.  Always 0. */
int pq_mlkem768_keygen(uint8_t ek[PQ_MLKEM768_EK_BYTES], uint8_t dk[PQ_MLKEM768_DK_BYTES],
                       const uint8_t seed[PQ_MLKEM768_SEED_BYTES]);
/* ML-KEM.Encaps_internal(ek, m) after the modulus check (PQ_EKEY, and ct /
 * ss zeroed, when ek fails it). */
int pq_mlkem768_encaps_derand(uint8_t ct[PQ_MLKEM768_CT_BYTES], uint8_t ss[PQ_MLKEM768_SS_BYTES],
                              const uint8_t ek[PQ_MLKEM768_EK_BYTES], const uint8_t m[32]);
/* The same with m from the OS CSPRNG (libsodium randombytes). */
int pq_mlkem768_encaps(uint8_t ct[PQ_MLKEM768_CT_BYTES], uint8_t ss[PQ_MLKEM768_SS_BYTES],
                       const uint8_t ek[PQ_MLKEM768_EK_BYTES]);
/* ML-KEM.Decaps: PQ_EDKEY when H(ek) inside dk does not match; otherwise 0
 * and ss = the shared secret, or J(z ‖ ct) for a ciphertext that does not
 * re-encrypt to itself (implicit rejection, chosen without a branch). */
int pq_mlkem768_decaps(uint8_t ss[PQ_MLKEM768_SS_BYTES], const uint8_t ct[PQ_MLKEM768_CT_BYTES],
                       const uint8_t dk[PQ_MLKEM768_DK_BYTES]);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
