/* SPDX-License-Identifier: ISC */
/* tests/test_pq_mlkem.c — ML-KEM-768 (src/pq) against published vectors:
 * the C2SP CCTV intermediate-value and "unlucky" SampleNTT keys
 * (tests/vectors/mlkem768-cctv.tsv, FIPS 203 ipd key generation, run with
 * the test build's pq_mlkem_test_ipd switch), the strcmp decapsulation
 * vector, every bad encapsulation key of the §7.2 modulus check (each
 * value q..4095 at each of the 768 coefficient positions, generated here),
 * the accumulated 10,000-test hashes (ipd and FIPS 203 final), implicit
 * rejection and the §7.3 key check.  RXLOCK_MLKEM_1M=1 (make
 * check-mlkem-1m) runs the 1,000,000-test accumulated hash instead.
 * RXLOCK_MLKEM_ORACLE=FILE.tsv (tests/cli/test_pq_noble.sh): compare with
 * the rows another implementation wrote into $RXLOCK_VECTORS/FILE.tsv, and
 * write our own encapsulations to $RXLOCK_VECTORS/FILE.tsv.ours. */
#include "test.h"
#include "rxlock/pq.h"
#include "rxlock/sha3.h"
#include "rxlock/error.h"
#include "pq/mlkem_internal.h"

enum { EK = PQ_MLKEM768_EK_BYTES, DK = PQ_MLKEM768_DK_BYTES, CT = PQ_MLKEM768_CT_BYTES };

static void unhex_exact(const char *s, uint8_t *out, size_t n) {
    if (test_unhex(s, out, n) != (long)n) { fprintf(stderr, "bad hex field (%zu bytes wanted)\n", n); exit(1); }
}

static void check_hash(const uint8_t *p, size_t n, const char *want_hex) {
    uint8_t want[32], got[32];
    unhex_exact(want_hex, want, 32);
    sha3_256(got, p, n);
    CHECK_MEM(got, want, 32);
}

static int cctv_row(char **f, int nf, void *ctx) {
    (void)ctx;
    CHECK(nf == 8);
    if (nf != 8) return 1;
    uint8_t seed[64], m[32], k[32], ek[EK], dk[DK], ct[CT], ss[32], ss2[32];
    unhex_exact(f[1], seed, 32);
    unhex_exact(f[2], seed + 32, 32);
    unhex_exact(f[3], m, 32);
    unhex_exact(f[7], k, 32);
    pq_mlkem_test_ipd = 1;
    CHECK(pq_mlkem768_keygen(ek, dk, seed) == 0);
    pq_mlkem_test_ipd = 0;
    check_hash(ek, EK, f[4]);
    check_hash(dk, DK, f[5]);
    CHECK(pq_mlkem768_encaps_derand(ct, ss, ek, m) == 0);
    check_hash(ct, CT, f[6]);
    CHECK_MEM(ss, k, 32);
    CHECK(pq_mlkem768_decaps(ss2, ct, dk) == 0);
    CHECK_MEM(ss2, k, 32);
    if (test_cur_fail_) fprintf(stderr, "case %s\n", f[0]);
    return 0;
}

static void t_cctv_vectors(void) {
    CHECK(test_tsv_each("mlkem768-cctv.tsv", cctv_row, NULL) == 2);
}

static int strcmp_row(char **f, int nf, void *ctx) {
    (void)ctx;
    CHECK(nf == 3);
    if (nf != 3) return 1;
    static uint8_t dk[DK], ct[CT];
    uint8_t k[32], ss[32];
    unhex_exact(f[0], dk, DK);
    unhex_exact(f[1], ct, CT);
    unhex_exact(f[2], k, 32);
    CHECK(pq_mlkem768_decaps(ss, ct, dk) == 0);
    CHECK_MEM(ss, k, 32);
    return 0;
}

static void t_strcmp_vector(void) {
    CHECK(test_tsv_each("mlkem768-strcmp.tsv", strcmp_row, NULL) == 1);
}

/* The C2SP CCTV accumulated test: d, z, m and a random ct drawn from one
 * SHAKE128("") stream; ek ‖ dk ‖ ct ‖ K ‖ K(random ct) into a second
 * SHAKE128, whose first 32 output bytes are the result. */
static void accumulated(long n, int ipd, uint8_t out[32]) {
    static uint8_t ek[EK], dk[DK], ct[CT], rct[CT];
    uint8_t seed[64], m[32], k[32], k2[32], kr[32];
    sha3_xof rng, acc;
    sha3_shake128_init(&rng);
    sha3_shake128_init(&acc);
    pq_mlkem_test_ipd = ipd;
    for (long i = 0; i < n; i++) {
        sha3_xof_squeeze(&rng, seed, 64);
        sha3_xof_squeeze(&rng, m, 32);
        sha3_xof_squeeze(&rng, rct, CT);
        pq_mlkem768_keygen(ek, dk, seed);
        CHECK(pq_mlkem768_encaps_derand(ct, k, ek, m) == 0);
        CHECK(pq_mlkem768_decaps(k2, ct, dk) == 0);
        CHECK_MEM(k2, k, 32);
        CHECK(pq_mlkem768_decaps(kr, rct, dk) == 0);
        sha3_xof_absorb(&acc, ek, EK);
        sha3_xof_absorb(&acc, dk, DK);
        sha3_xof_absorb(&acc, ct, CT);
        sha3_xof_absorb(&acc, k, 32);
        sha3_xof_absorb(&acc, kr, 32);
        if (test_cur_fail_) { fprintf(stderr, "iteration %ld\n", i); break; }
    }
    pq_mlkem_test_ipd = 0;
    sha3_xof_squeeze(&acc, out, 32);
}

static void check_accumulated(long n, int ipd, const char *want_hex) {
    uint8_t got[32], want[32];
    unhex_exact(want_hex, want, 32);
    accumulated(n, ipd, got);
    CHECK_MEM(got, want, 32);
}

/* CCTV README (ipd) and the FIPS 203 final value several implementations
 * publish for the same procedure. */
static void t_accumulated_10k_ipd(void) {
    check_accumulated(10000, 1, "f7db260e1137a742e05fe0db9525012812b004d29040a5b606aad3d134b548d3");
}
static void t_accumulated_10k_final(void) {
    check_accumulated(10000, 0, "f959d18d3d1180121433bf0e05f11e7908cf9d03edc150b2b07cb90bef5bc1c1");
}
static void t_accumulated_1m_ipd(void) {
    check_accumulated(1000000, 1, "70090cc5842aad0ec43d5042c783fae9bc320c047b5dafcb6e134821db02384d");
}

/* §7.2: every 12-bit value q..4095 at every coefficient position of t̂ is
 * refused (and q-1 accepted), ρ bytes are never checked. */
static void set12(uint8_t *p, unsigned pos, unsigned v) {
    uint8_t *b = p + 3 * (pos / 2);
    if (pos % 2 == 0) { b[0] = (uint8_t)v; b[1] = (uint8_t)((b[1] & 0xf0) | (v >> 8)); }
    else { b[1] = (uint8_t)((b[1] & 0x0f) | (v & 0x0f) << 4); b[2] = (uint8_t)(v >> 4); }
}

static void t_modulus_check(void) {
    static uint8_t ek[EK], bad[EK], dk[DK], ct[CT];
    uint8_t seed[64] = { 1, 2, 3 }, ss[32];
    pq_mlkem768_keygen(ek, dk, seed);
    long refused = 0, total = 0;
    for (unsigned pos = 0; pos < 3 * 256; pos++) {
        memcpy(bad, ek, EK);
        set12(bad, pos, MLKEM_Q - 1);
        CHECK(pq_mlkem768_encaps(ct, ss, bad) == 0);
        for (unsigned v = MLKEM_Q; v < 4096; v++) {
            set12(bad, pos, v);
            total++;
            memset(ss, 0xaa, 32);
            if (pq_mlkem768_encaps_derand(ct, ss, bad, seed) == PQ_EKEY) refused++;
        }
        uint8_t zero[32] = { 0 };
        CHECK_MEM(ss, zero, 32);
    }
    CHECK(total == 768L * (4096 - 3329));
    CHECK(refused == total);
    memcpy(bad, ek, EK);
    memset(bad + EK - 32, 0xff, 32);          /* ρ is any 32 bytes */
    CHECK(pq_mlkem768_encaps(ct, ss, bad) == 0);
}

/* Round trips with random keys; a modified ciphertext decapsulates to
 * J(z ‖ c) (implicit rejection); a dk whose H(ek) does not match is refused. */
static void t_roundtrip_and_rejection(void) {
    static uint8_t ek[EK], dk[DK], ct[CT], zc[32 + CT];
    uint8_t seed[64], ss[32], ss2[32], kbar[32];
    for (int it = 0; it < 20; it++) {
        for (int i = 0; i < 64; i++) seed[i] = (uint8_t)(rand() & 0xff);
        pq_mlkem768_keygen(ek, dk, seed);
        CHECK(pq_mlkem768_encaps(ct, ss, ek) == 0);
        CHECK(pq_mlkem768_decaps(ss2, ct, dk) == 0);
        CHECK_MEM(ss2, ss, 32);
        size_t at = (size_t)rand() % CT;
        ct[at] ^= (uint8_t)(1u << (rand() % 8));
        CHECK(pq_mlkem768_decaps(ss2, ct, dk) == 0);
        memcpy(zc, seed + 32, 32);
        memcpy(zc + 32, ct, CT);
        sha3_shake256(kbar, 32, zc, sizeof zc);
        CHECK_MEM(ss2, kbar, 32);
        CHECK(memcmp(ss2, ss, 32) != 0);
    }
    dk[1152 + EK] ^= 1;                        /* H(ek) */
    CHECK(pq_mlkem768_decaps(ss2, ct, dk) == PQ_EDKEY);
    static const int codes[] = { PQ_EKEY, PQ_EDKEY, PQ_ERANDOM };
    for (size_t i = 0; i < 3; i++) {
        CHECK(codes[i] <= RXLOCK_ERANGE_PQ_FIRST && codes[i] >= RXLOCK_ERANGE_PQ_LAST);
        CHECK(strcmp(pq_strerror(codes[i]), "unknown post-quantum error") != 0);
        CHECK(strcmp(rxlock_strerror(codes[i]), pq_strerror(codes[i])) == 0);
    }
}

/* Oracle rows: seed, m, random ct, then the oracle's ek, dk, ct, ss and
 * K(random ct).  Ours must match each; our own random encapsulation to its
 * ek goes to the .ours file for the oracle to decapsulate. */
static FILE *ours;
static int oracle_row(char **f, int nf, void *ctx) {
    (void)ctx;
    CHECK(nf == 8);
    if (nf != 8) return 1;
    static uint8_t rct[CT], oek[EK], odk[DK], oct[CT], ek[EK], dk[DK], ct[CT];
    uint8_t seed[64], m[32], oss[32], orej[32], ss[32];
    unhex_exact(f[0], seed, 64); unhex_exact(f[1], m, 32); unhex_exact(f[2], rct, CT);
    unhex_exact(f[3], oek, EK); unhex_exact(f[4], odk, DK); unhex_exact(f[5], oct, CT);
    unhex_exact(f[6], oss, 32); unhex_exact(f[7], orej, 32);
    pq_mlkem768_keygen(ek, dk, seed);
    CHECK_MEM(ek, oek, EK);
    CHECK_MEM(dk, odk, DK);
    CHECK(pq_mlkem768_decaps(ss, oct, dk) == 0);      /* oracle -> us */
    CHECK_MEM(ss, oss, 32);
    CHECK(pq_mlkem768_encaps_derand(ct, ss, oek, m) == 0);
    CHECK_MEM(ct, oct, CT);
    CHECK_MEM(ss, oss, 32);
    CHECK(pq_mlkem768_decaps(ss, rct, dk) == 0);
    CHECK_MEM(ss, orej, 32);
    CHECK(pq_mlkem768_encaps(ct, ss, oek) == 0);      /* us -> oracle */
    fprintf(ours, "%s\t", f[4]);
    for (int i = 0; i < CT; i++) fprintf(ours, "%02x", ct[i]);
    fputc('\t', ours);
    for (int i = 0; i < 32; i++) fprintf(ours, "%02x", ss[i]);
    fputc('\n', ours);
    return 0;
}

static const char *oracle_file;
static void t_oracle(void) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.ours", test_vector_dir(), oracle_file);
    ours = fopen(path, "w");
    CHECK(ours != NULL);
    if (!ours) return;
    fprintf(ours, "# rxlock src/pq encapsulations\ndk\tct\tss\n");
    CHECK(test_tsv_each(oracle_file, oracle_row, NULL) > 0);
    CHECK(fclose(ours) == 0);
}

int main(void) {
    if ((oracle_file = getenv("RXLOCK_MLKEM_ORACLE")) != NULL) {
        RUN(t_oracle);
        return test_summary();
    }
    if (getenv("RXLOCK_MLKEM_1M")) {
        RUN(t_accumulated_1m_ipd);
        return test_summary();
    }
    srand(21);
    RUN(t_cctv_vectors);
    RUN(t_strcmp_vector);
    RUN(t_modulus_check);
    RUN(t_roundtrip_and_rejection);
    RUN(t_accumulated_10k_final);
    if (!test_quick()) RUN(t_accumulated_10k_ipd);
    return test_summary();
}
