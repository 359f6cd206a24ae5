/* SPDX-License-Identifier: ISC */
/* src/util/cpufeat.h — the one run-time CPU feature probe (cpuid + xgetbv
 * on x86-64, getauxval(AT_HWCAP) on AArch64 Linux), below both rx and sha3
 * so that every backend choice (AES, Argon2d, SuperscalarHash lanes, the
 * Keccak permutations) reads the same answers.  The probe runs once
 * (pthread_once); the result is never NULL and never changes.  A feature
 * that needs operating-system state (AVX, AVX-512 registers) counts only
 * when XCR0 says the OS saves that state. */
#ifndef RXLOCK_UTIL_CPUFEAT_H
#define RXLOCK_UTIL_CPUFEAT_H

typedef struct {
    /* x86-64 */
    unsigned char ssse3, sse41;
    unsigned char aesni;       /* AES-NI (with SSE4.1, which the AES code uses) */
    unsigned char avx2;
    unsigned char bmi1, bmi2;
    unsigned char avx512f, avx512vl;
    unsigned char avx512dq;    /* vpmullq, kxnorb (the vector SuperscalarHash) */
    /* AArch64 */
    unsigned char arm_asimd;
    unsigned char arm_aes;     /* ARMv8 crypto extension AES */
    unsigned char arm_sha3;    /* ARMv8.2 SHA3 (EOR3, RAX1, XAR, BCAX) */
} util_cpufeat;

/* The features of the running CPU (probed once; never NULL). */
const util_cpufeat *util_cpufeat_get(void);
#endif
