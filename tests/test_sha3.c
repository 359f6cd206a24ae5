/* SPDX-License-Identifier: ISC */
/* tests/test_sha3.c — SHA3-256 and the fused chain: FIPS 202 vectors, every
 * length 0..420 and split point against an OpenSSL oracle, the puzzle form
 * SHA3-256(K ‖ m), and chain digests after 1, 1000 and 1,000,000 steps from
 * 32 zero bytes, for every backend this CPU runs.  OpenSSL is a test-only
 * oracle; build with -DSHA3_TEST_NO_OPENSSL (a static cross build without OpenSSL) to check
 * against the recorded digests only. */
#include "test.h"
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#ifndef SHA3_TEST_NO_OPENSSL
#include <openssl/evp.h>
#endif

/* Oracle SHA3-256; returns 0 when none is built in. */
static int oracle(uint8_t out[32], const void *in, size_t len) {
#ifndef SHA3_TEST_NO_OPENSSL
    unsigned int n = 0;
    if (EVP_Digest(in, len, out, &n, EVP_sha3_256(), NULL) != 1 || n != 32) {
        fprintf(stderr, "EVP_Digest failed\n");
        exit(1);
    }
    return 1;
#else
    (void)out; (void)in; (void)len;
    return 0;
#endif
}

static const sha3_impl *avail[8];
static size_t navail;

static void find_backends(void) {
    size_t n;
    const sha3_impl *const *all = sha3_impls(&n);
    for (size_t i = 0; i < n && navail < 8; i++)
        if (all[i]->available()) avail[navail++] = all[i];
}

static void hex32(const char *s, uint8_t out[32]) {
    if (test_unhex(s, out, 32) != 32) { fprintf(stderr, "bad hex %s\n", s); exit(1); }
}

static void check_msg(const uint8_t *msg, size_t len, const char *want_hex) {
    uint8_t want[32], got[32], ref[32];
    hex32(want_hex, want);
    if (oracle(ref, msg, len)) CHECK_MEM(ref, want, 32);
    sha3_256(got, msg, len);
    CHECK_MEM(got, want, 32);
    for (size_t i = 0; i < navail; i++) {
        memset(got, 0, 32);
        sha3_256_2_with(avail[i], got, msg, len / 3, msg + len / 3, len - len / 3);
        CHECK_MEM(got, want, 32);
    }
}

/* FIPS 202 / NIST CSRC example values for SHA3-256. */
static void t_fips_vectors(void) {
    static uint8_t buf[1000000];
    check_msg((const uint8_t *)"", 0,
              "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
    check_msg((const uint8_t *)"abc", 3,
              "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532");
    memset(buf, 0xa3, 200);
    check_msg(buf, 200, "79f38adec5c20307a98ef76e8324afbfd46cfd81b22e3973c65fa1bd9de31787");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_msg((const uint8_t *)m448, strlen(m448),
              "41c0dba2a9d6240849100376a8235e2c82e1b9998a999e21db32dd97496d3376");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                       "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    check_msg((const uint8_t *)m896, strlen(m896),
              "916f6061fe879741ca6469b43971dfdb28b1a32dc36cb3254e812be27aad1d18");
    memset(buf, 'a', sizeof buf);
    check_msg(buf, sizeof buf, "5c8875ae474a3634ba4fd55ec85bffd661f32aca75c6d699d0cdcb6c115891c1");
}

/* Every length across the first three block boundaries, every backend,
 * several split points of a ‖ b; the portable backend is the reference
 * when there is no oracle. */
static void t_lengths(void) {
    uint8_t msg[420], ref[32], got[32];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 167u + 13u);
    for (size_t len = 0; len <= sizeof msg; len++) {
        if (!oracle(ref, msg, len)) sha3_256_2_with(&sha3_impl_portable, ref, msg, len, NULL, 0);
        for (size_t i = 0; i < navail; i++) {
            size_t cuts[] = { 0, 1, 7, 8, 9, len / 2, 135, 136, 137, 272, len };
            for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
                size_t k = cuts[c] > len ? len : cuts[c];
                sha3_256_2_with(avail[i], got, msg, k, msg + k, len - k);
                if (memcmp(got, ref, 32) != 0) {
                    fprintf(stderr, "backend %s len %zu cut %zu\n", avail[i]->name, len, k);
                    CHECK_MEM(got, ref, 32);
                    return;
                }
            }
        }
    }
}

/* W(K, m) = SHA3-256(K ‖ m), |K| = 32, |m| = 68 (docs/DESIGN.md §1). */
static void t_puzzle_form(void) {
    uint8_t km[100], ref[32], got[32];
    for (int i = 0; i < 100; i++) km[i] = (uint8_t)(255 - 3 * i);
    sha3_256(ref, km, 100);
    if (oracle(got, km, 100)) CHECK_MEM(got, ref, 32);
    sha3_256_2(got, km, 32, km + 32, 68);
    CHECK_MEM(got, ref, 32);
    sha3_256_2(got, NULL, 0, km, 100);
    CHECK_MEM(got, ref, 32);
}

static void t_backend(void) {
    const char *name = sha3_backend();
    CHECK(name != NULL && navail > 0);
    const char *want = getenv("RXLOCK_SHA3");      /* a forced backend, when available */
    int forced = 0;
    for (size_t i = 0; want && i < navail; i++) forced |= strcmp(want, avail[i]->name) == 0;
    CHECK(name && strcmp(name, forced ? want : avail[0]->name) == 0);
    CHECK(forced || sha3_impl_select() == avail[0]);
    fprintf(stderr, "sha3 backend: %s (%zu available)\n", name ? name : "?", navail);
}

/* Recorded chain digests from 32 zero bytes (cross-checked below against the
 * oracle chain whenever it is built in). */
static const struct { uint64_t steps; const char *hex; } chains[] = {
    { 1,       "9e6291970cb44dd94008c79bcaf9d86f18b4b49ba5b2a04781db7199ed3b9e4e" },
    { 1000,    "52cf48e88ce4dea40f272b6aaf083675ade26504a0129f51ec30204a2fdb1c5b" },
    { 1000000, "dc200976acbc96bee5043f096d283965a70507175db948839c406d90e4c1d61d" },
};

static void oracle_chain(uint8_t x[32], uint64_t steps) {
    for (uint64_t i = 0; i < steps; i++) oracle(x, x, 32);
}

static void chain_case(size_t idx) {
    uint8_t want[32], x[32], ref[32];
    hex32(chains[idx].hex, want);
    memset(ref, 0, 32);
    if (oracle(ref, ref, 0)) {
        memset(ref, 0, 32);
        oracle_chain(ref, chains[idx].steps);
        CHECK_MEM(ref, want, 32);
    }
    memset(x, 0, 32);
    sha3_chain(x, chains[idx].steps);
    CHECK_MEM(x, want, 32);
    for (size_t i = 0; i < navail; i++) {
        memset(x, 0, 32);
        sha3_chain_with(avail[i], x, chains[idx].steps);
        if (memcmp(x, want, 32) != 0) fprintf(stderr, "backend %s\n", avail[i]->name);
        CHECK_MEM(x, want, 32);
    }
}
static void t_chain_1(void) { chain_case(0); }
static void t_chain_1000(void) { chain_case(1); }
static void t_chain_1000000(void) { chain_case(2); }

/* Chain of 0 steps is the identity; chains compose; one step = sha3_256. */
static void t_chain_algebra(void) {
    uint8_t a[32], b[32], c[32];
    for (int i = 0; i < 32; i++) a[i] = (uint8_t)(i * 29 + 1);
    memcpy(b, a, 32);
    sha3_chain(b, 0);
    CHECK_MEM(b, a, 32);
    for (size_t i = 0; i < navail; i++) {
        memcpy(b, a, 32);
        sha3_chain_with(avail[i], b, 1);
        sha3_256(c, a, 32);
        CHECK_MEM(b, c, 32);
        memcpy(b, a, 32);
        sha3_chain_with(avail[i], b, 37);
        sha3_chain_with(avail[i], b, 63);
        memcpy(c, a, 32);
        for (int k = 0; k < 100; k++) sha3_256(c, c, 32);
        CHECK_MEM(b, c, 32);
    }
}

/* ---- SHA3 lanes and the fused chain: the counter (puzzle-form) chain, single and multi ---- */

static uint64_t rng_state = UINT64_C(0x2545f4914f6cdd1d);
static uint64_t rnd(void) { return test_rng(&rng_state); }   /* the tests' one PRNG (test.h) */
static void rnd_bytes(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd();
}

/* The reference: the generic sponge (portable backend) on the 100 bytes. */
static void ref_chain_ctr(const uint8_t prefix[60], uint64_t i0, uint64_t steps, uint8_t d[32]) {
    uint8_t m[100];
    memcpy(m, prefix, 60);
    memcpy(m + 68, d, 32);
    for (uint64_t k = 0; k < steps; k++) {
        uint64_t i = i0 + k;
        for (int b = 0; b < 8; b++) m[60 + b] = (uint8_t)(i >> (8 * b));
        sha3_256_2_with(&sha3_impl_portable, m + 68, m, 100, NULL, 0);
    }
    memcpy(d, m + 68, 32);
}

/* Counters that cross the 32-bit lane split and wrap modulo 2^64. */
static uint64_t rnd_counter(void) {
    switch (rnd() % 4) {
    case 0: return rnd() % 1000;
    case 1: return UINT64_C(0xffffffff) - rnd() % 8;
    case 2: return UINT64_MAX - rnd() % 8;
    default: return rnd();
    }
}

/* Every backend's counter chain against the sponge, random inputs. */
static void t_chain_ctr_random(void) {
    for (int t = 0; t < 200; t++) {
        uint8_t pre[60], d0[32], ref[32], got[32];
        rnd_bytes(pre, 60);
        rnd_bytes(d0, 32);
        uint64_t i0 = rnd_counter(), steps = rnd() % 20;
        memcpy(ref, d0, 32);
        ref_chain_ctr(pre, i0, steps, ref);
        if (oracle(got, "", 0) && steps == 1) {       /* one step against OpenSSL */
            uint8_t m[100];
            memcpy(m, pre, 60);
            for (int b = 0; b < 8; b++) m[60 + b] = (uint8_t)(i0 >> (8 * b));
            memcpy(m + 68, d0, 32);
            oracle(got, m, 100);
            CHECK_MEM(got, ref, 32);
        }
        for (size_t i = 0; i < navail; i++) {
            memcpy(got, d0, 32);
            sha3_chain_ctr_with(avail[i], pre, i0, steps, got);
            if (memcmp(got, ref, 32) != 0) {
                fprintf(stderr, "backend %s i0 %llu steps %llu\n", avail[i]->name,
                        (unsigned long long)i0, (unsigned long long)steps);
                CHECK_MEM(got, ref, 32);
                return;
            }
        }
        memcpy(got, d0, 32);
        sha3_chain_ctr(pre, i0, steps, got);
        CHECK_MEM(got, ref, 32);
    }
}

/* Recorded: prefix bytes 0..59 = i, counter from 0, d = 32 zero bytes,
 * 1000 steps (computed with the sponge; checked against OpenSSL when built
 * in; Python's hashlib gives the same).  The same chain split 400 + 600
 * composes. */
static const char ctr_1000_hex[] = "ddd74218d6ed33841dac82153ebd2defd4ba076cf27314c27dbd006560620c66";
static void t_chain_ctr_vector(void) {
    uint8_t pre[60], want[32], x[32];
    for (int i = 0; i < 60; i++) pre[i] = (uint8_t)i;
    memset(x, 0, 32);
    ref_chain_ctr(pre, 0, 1000, x);
    hex32(ctr_1000_hex, want);
    CHECK_MEM(x, want, 32);
    uint8_t m[100], o[32];
    if (oracle(o, "", 0)) {
        memcpy(m, pre, 60);
        memset(m + 68, 0, 32);
        for (uint64_t i = 0; i < 1000; i++) {
            for (int b = 0; b < 8; b++) m[60 + b] = (uint8_t)(i >> (8 * b));
            oracle(m + 68, m, 100);
        }
        CHECK_MEM(m + 68, want, 32);
    }
    for (size_t i = 0; i < navail; i++) {
        memset(x, 0, 32);
        sha3_chain_ctr_with(avail[i], pre, 0, 400, x);
        sha3_chain_ctr_with(avail[i], pre, 400, 600, x);
        CHECK_MEM(x, want, 32);
    }
}

static const sha3_multi_impl *mavail[8];
static size_t nmavail;

static void t_multi_backend(void) {
    size_t n;
    const sha3_multi_impl *const *all = sha3_multi_impls(&n);
    for (size_t i = 0; i < n && nmavail < 8; i++)
        if (all[i]->available()) {
            mavail[nmavail++] = all[i];
            CHECK(all[i]->lanes >= 1 && all[i]->lanes <= SHA3_LANES_MAX);
        }
    CHECK(nmavail > 0 && strcmp(mavail[nmavail - 1]->name, "portable") == 0);
    const char *want = getenv("RXLOCK_SHA3_MULTI");   /* a forced backend, when available */
    int forced = 0;
    for (size_t i = 0; want && i < nmavail; i++) forced |= strcmp(want, mavail[i]->name) == 0;
    CHECK(strcmp(sha3_multi_select()->name, forced ? want : mavail[0]->name) == 0);
    CHECK(strcmp(sha3_multi_backend(), sha3_multi_select()->name) == 0);
    CHECK(sha3_multi_lanes() == sha3_multi_select()->lanes);
    fprintf(stderr, "sha3 multi backend: %s, %u lanes (%zu available)\n",
            sha3_multi_backend(), sha3_multi_lanes(), nmavail);
}

/* Every multi backend and every chain count 1..2*8+1 (full and partial
 * batches) against the single-chain sponge reference, random inputs with
 * different prefixes, counters and states per chain; and the recorded
 * vector in every lane. */
static void t_multi_random(void) {
    enum { NMAX = 2 * SHA3_LANES_MAX + 1 };
    static uint8_t pre[NMAX][60], d[NMAX][32], ref[NMAX][32];
    uint64_t i0[NMAX];
    for (size_t m = 0; m < nmavail; m++) {
        for (size_t n = 1; n <= NMAX; n++) {
            uint64_t steps = rnd() % 12;
            for (size_t c = 0; c < n; c++) {
                rnd_bytes(pre[c], 60);
                rnd_bytes(d[c], 32);
                i0[c] = rnd_counter();
                memcpy(ref[c], d[c], 32);
                ref_chain_ctr(pre[c], i0[c], steps, ref[c]);
            }
            sha3_chain_ctr_multi_with(mavail[m], n, (const uint8_t (*)[60])pre, i0, steps, d);
            for (size_t c = 0; c < n; c++)
                if (memcmp(d[c], ref[c], 32) != 0) {
                    fprintf(stderr, "multi %s n %zu chain %zu\n", mavail[m]->name, n, c);
                    CHECK_MEM(d[c], ref[c], 32);
                    return;
                }
        }
        /* the recorded vector in every lane, next to random chains */
        uint8_t want[32];
        hex32(ctr_1000_hex, want);
        size_t L = mavail[m]->lanes;
        for (size_t lane = 0; lane < L; lane++) {
            for (size_t c = 0; c < L; c++) {
                rnd_bytes(pre[c], 60);
                rnd_bytes(d[c], 32);
                i0[c] = rnd();
            }
            for (int i = 0; i < 60; i++) pre[lane][i] = (uint8_t)i;
            memset(d[lane], 0, 32);
            i0[lane] = 0;
            sha3_chain_ctr_multi_with(mavail[m], L, (const uint8_t (*)[60])pre, i0, 1000, d);
            CHECK_MEM(d[lane], want, 32);
        }
        CHECK(1);
    }
    sha3_chain_ctr_multi(0, NULL, NULL, 5, NULL);   /* no chains: nothing touched */
}

int main(void) {
    find_backends();
    RUN(t_backend);
    RUN(t_fips_vectors);
    RUN(t_lengths);
    RUN(t_puzzle_form);
    RUN(t_chain_algebra);
    RUN(t_chain_1);
    RUN(t_chain_1000);
    if (!test_quick()) RUN(t_chain_1000000);
    RUN(t_chain_ctr_random);
    RUN(t_chain_ctr_vector);
    RUN(t_multi_backend);
    RUN(t_multi_random);
    return test_summary();
}
