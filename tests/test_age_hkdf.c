/* SPDX-License-Identifier: ISC */
/* tests/test_age_hkdf.c — HKDF-SHA-256 against the RFC 5869 test cases 1-3. */
#include "test.h"
#include "age/age_internal.h"

static void fill(uint8_t *p, size_t n, uint8_t start) { for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(start + i); }

static void t_case1(void) {
    uint8_t ikm[22], salt[13], info[10], okm[42], want[42];
    memset(ikm, 0x0b, sizeof ikm); fill(salt, 13, 0); fill(info, 10, 0xf0);
    test_unhex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865", want, sizeof want);
    CHECK(tl_hkdf_sha256(okm, 42, salt, 13, ikm, 22, info, 10) == 0);
    CHECK_MEM(okm, want, 42);
}
static void t_case2(void) {
    uint8_t ikm[80], salt[80], info[80], okm[82], want[82];
    fill(ikm, 80, 0); fill(salt, 80, 0x60); fill(info, 80, 0xb0);
    test_unhex("b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
               "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
               "cc30c58179ec3e87c14c01d5c1f3434f1d87", want, sizeof want);
    CHECK(tl_hkdf_sha256(okm, 82, salt, 80, ikm, 80, info, 80) == 0);
    CHECK_MEM(okm, want, 82);
}
static void t_case3(void) {
    uint8_t ikm[22], okm[42], want[42];
    memset(ikm, 0x0b, sizeof ikm);
    test_unhex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8", want, sizeof want);
    CHECK(tl_hkdf_sha256(okm, 42, NULL, 0, ikm, 22, NULL, 0) == 0);
    CHECK_MEM(okm, want, 42);
}
static void t_limits(void) {
    static uint8_t big[255 * 32 + 1];
    uint8_t ikm[1] = {1};
    CHECK(tl_hkdf_sha256(big, 255 * 32, NULL, 0, ikm, 1, NULL, 0) == 0);
    CHECK(tl_hkdf_sha256(big, 255 * 32 + 1, NULL, 0, ikm, 1, NULL, 0) != 0);
    /* A prefix of a longer output equals the shorter output. */
    uint8_t a[32], b[64];
    CHECK(tl_hkdf_sha256(a, 32, ikm, 1, ikm, 1, ikm, 1) == 0);
    CHECK(tl_hkdf_sha256(b, 64, ikm, 1, ikm, 1, ikm, 1) == 0);
    CHECK_MEM(a, b, 32);
}
int main(void) {
    RUN(t_case1); RUN(t_case2); RUN(t_case3); RUN(t_limits);
    return test_summary();
}
