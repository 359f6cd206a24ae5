/* SPDX-License-Identifier: ISC */
/* tests/test_pq_ct.c — the constant-time check of ML-KEM-768: the seed,
 * the encapsulation randomness m and the secret parts of dk are marked
 * undefined for valgrind memcheck (VALGRIND_MAKE_MEM_UNDEFINED), so any
 * branch or memory index that depends on them is reported; the library
 * declassifies only what FIPS 203 makes public (ek, ct; pq_ct_declassify,
 * test build).  Runs keygen, encaps, decaps and a rejected decaps.
 * tests/cli/test_pq_ct.sh runs it under valgrind and requires 0 errors;
 * run plainly it checks the results only. */
#include "test.h"
#include "rxlock/pq.h"
#include <valgrind/memcheck.h>

enum { EK = PQ_MLKEM768_EK_BYTES, DK = PQ_MLKEM768_DK_BYTES, CT = PQ_MLKEM768_CT_BYTES };

static void secret(const void *p, size_t n) { VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
static void public_(const void *p, size_t n) { VALGRIND_MAKE_MEM_DEFINED(p, n); }

static void t_mlkem_constant_time(void) {
    static uint8_t ek[EK], dk[DK], ct[CT];
    uint8_t seed[64], m[32], ss[32], ss2[32], ss3[32];
    for (int i = 0; i < 64; i++) seed[i] = (uint8_t)(i * 7 + 1);
    for (int i = 0; i < 32; i++) m[i] = (uint8_t)(i * 13 + 5);
    for (int round = 0; round < 2; round++) {
        secret(seed, sizeof seed);
        int rc = pq_mlkem768_keygen(ek, dk, seed);
        secret(m, sizeof m);
        int rc2 = pq_mlkem768_encaps_derand(ct, ss, ek, m);
        int rc3 = pq_mlkem768_decaps(ss2, ct, dk);
        ct[round * 500] ^= 1;                       /* implicit rejection path */
        int rc4 = pq_mlkem768_decaps(ss3, ct, dk);
        public_(ss, 32); public_(ss2, 32); public_(ss3, 32);
        public_(seed, sizeof seed); public_(m, sizeof m); public_(dk, DK);
        CHECK(rc == 0 && rc2 == 0 && rc3 == 0 && rc4 == 0);
        CHECK_MEM(ss2, ss, 32);
        CHECK(memcmp(ss3, ss, 32) != 0);
        seed[0]++; m[0]++;
    }
    printf("valgrind: %s\n", RUNNING_ON_VALGRIND ? "yes" : "no");
}

int main(void) {
    RUN(t_mlkem_constant_time);
    return test_summary();
}
