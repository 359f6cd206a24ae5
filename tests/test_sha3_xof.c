/* SPDX-License-Identifier: ISC */
/* tests/test_sha3_xof.c — SHA3-512, SHAKE128 and SHAKE256 (src/sha3/shake.c):
 * FIPS 202 / NIST CSRC example digests, then every input length 0..600 and
 * output lengths across the rate boundaries against the OpenSSL oracle,
 * absorbing and squeezing in uneven pieces. */
#include "test.h"
#include "rxlock/sha3.h"
#include <openssl/evp.h>

static void oracle(const EVP_MD *md, uint8_t *out, size_t outlen, const uint8_t *in, size_t len) {
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    int ok = c && EVP_DigestInit_ex(c, md, NULL) == 1 && EVP_DigestUpdate(c, in, len) == 1;
    if (ok) {
        if (EVP_MD_size(md) > 0 && (size_t)EVP_MD_size(md) == outlen && md == EVP_sha3_512())
            ok = EVP_DigestFinal_ex(c, out, NULL) == 1;
        else
            ok = EVP_DigestFinalXOF(c, out, outlen) == 1;
    }
    EVP_MD_CTX_free(c);
    if (!ok) { fprintf(stderr, "OpenSSL oracle failed\n"); exit(1); }
}

static void hexeq(const uint8_t *got, const char *hex, size_t n) {
    uint8_t want[64];
    CHECK(test_unhex(hex, want, sizeof want) == (long)n);
    CHECK_MEM(got, want, n);
}

static void t_known(void) {
    uint8_t o[64];
    sha3_512(o, NULL, 0);
    hexeq(o, "a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a6"
             "15b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26", 64);
    sha3_512(o, "abc", 3);
    hexeq(o, "b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e"
             "10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0", 64);
    sha3_shake128(o, 32, NULL, 0);
    hexeq(o, "7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26", 32);
    sha3_shake256(o, 64, NULL, 0);
    hexeq(o, "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f"
             "d75dc4ddd8c0f200cb05019d67b592f6fc821c49479ab48640292eacb3b7c4be", 64);
}

static uint8_t msg[600];

static void t_sha3_512_oracle(void) {
    uint8_t got[64], ref[64];
    for (size_t len = 0; len <= sizeof msg; len++) {
        oracle(EVP_sha3_512(), ref, 64, msg, len);
        sha3_512(got, msg, len);
        CHECK_MEM(got, ref, 64);
        memset(got, 0, 64);
        sha3_512_2(got, msg, len / 3, msg + len / 3, len - len / 3);
        CHECK_MEM(got, ref, 64);
        if (test_cur_fail_) { fprintf(stderr, "len %zu\n", len); return; }
    }
}

static void xof_vs_oracle(int which) {
    const EVP_MD *md = which == 128 ? EVP_shake128() : EVP_shake256();
    static const size_t outs[] = { 0, 1, 7, 8, 32, 135, 136, 137, 167, 168, 169, 504, 505, 1000 };
    uint8_t ref[1000], got[1000];
    for (size_t len = 0; len <= sizeof msg; len += (len < 200 ? 1 : 7)) {
        for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
            size_t n = outs[k];
            oracle(md, ref, n, msg, len);
            memset(got, 0, n);
            if (which == 128) sha3_shake128(got, n, msg, len);
            else sha3_shake256(got, n, msg, len);
            CHECK_MEM(got, ref, n);
            /* incremental: absorb in pieces of 1, 5, 13, ...; squeeze in pieces of 3, 11, 64 */
            sha3_xof c;
            if (which == 128) sha3_shake128_init(&c); else sha3_shake256_init(&c);
            size_t off = 0, piece = 1;
            while (off < len) {
                size_t m = piece < len - off ? piece : len - off;
                sha3_xof_absorb(&c, msg + off, m);
                off += m;
                piece = piece * 3 + 2;
            }
            memset(got, 0, n);
            static const size_t sq[] = { 3, 11, 64 };
            off = 0;
            for (int j = 0; off < n; j++) {
                size_t m = sq[j % 3] < n - off ? sq[j % 3] : n - off;
                sha3_xof_squeeze(&c, got + off, m);
                off += m;
            }
            sha3_xof_wipe(&c);
            CHECK_MEM(got, ref, n);
            if (test_cur_fail_) { fprintf(stderr, "SHAKE%d len %zu out %zu\n", which, len, n); return; }
        }
    }
}
static void t_shake128_oracle(void) { xof_vs_oracle(128); }
static void t_shake256_oracle(void) { xof_vs_oracle(256); }

int main(void) {
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 131 + 7);
    RUN(t_known);
    RUN(t_sha3_512_oracle);
    RUN(t_shake128_oracle);
    RUN(t_shake256_oracle);
    return test_summary();
}
