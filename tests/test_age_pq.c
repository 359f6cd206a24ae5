/* SPDX-License-Identifier: ISC */
/* tests/test_age_pq.c — the hybrid post-quantum age recipient
 * "mlkem768x25519" (src/age/age_pq.c, post-quantum epochs): every C2SP CCTV age
 * testkit "hybrid" vector (tests/vectors/age-hybrid/, 0BSD/CC0: success
 * with the payload's SHA-256, header failure, no match); key strings
 * (age1pq1 of 1,959 characters, no 90-character limit, case rules, the
 * ML-KEM modulus check); round trips, armored and not, with several
 * recipients; and every malformed stanza we can make from a good file
 * (argument count, non-canonical base64, enc and body lengths, an all-zero
 * X25519 share) is TL_AGE_EHEADER. */
#include "test.h"
#include "rxlock/age.h"
#include "rxlock/pq.h"
#include <dirent.h>
#include <sodium.h>
#include <unistd.h>

static const char *const kits[] = {
    "armor_hybrid", "hybrid", "hybrid_and_x25519", "hybrid_bad_tag", "hybrid_currupted_enc_mlkem",
    "hybrid_currupted_enc_x25519", "hybrid_extra_argument", "hybrid_grease", "hybrid_identity",
    "hybrid_long_file_key", "hybrid_long_share", "hybrid_low_order", "hybrid_multiple_recipients",
    "hybrid_no_match", "hybrid_not_canonical_body", "hybrid_not_canonical_enc", "hybrid_short_share",
    "hybrid_uppercase", "hybrid_x25519_arg",
};

/* Decrypt buf[0..n) with the identities; *out gets the plaintext (malloc). */
static int decrypt_buf(const uint8_t *buf, size_t n, const uint8_t (*sks)[32], size_t nsk,
                       const uint8_t (*seeds)[32], size_t nseed, uint8_t **out, size_t *outlen) {
    FILE *in = tmpfile(), *o = tmpfile();
    if (!in || !o || fwrite(buf, 1, n, in) != n || fflush(in) != 0) { fprintf(stderr, "tmpfile\n"); exit(1); }
    rewind(in);
    int rc = age_decrypt_fd_any(fileno(in), fileno(o), sks, nsk, seeds, nseed);
    long len = lseek(fileno(o), 0, SEEK_END);
    *out = malloc((size_t)len + 1);
    *outlen = (size_t)len;
    if (pread(fileno(o), *out, (size_t)len, 0) != len) { fprintf(stderr, "pread\n"); exit(1); }
    fclose(in); fclose(o);
    return rc;
}

static void run_kit(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/age-hybrid/%s", test_vector_dir(), name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return;
    static uint8_t data[1 << 16];
    size_t n = fread(data, 1, sizeof data, f);
    fclose(f);
    uint8_t sks[4][32], seeds[4][32], want_hash[32];
    size_t nsk = 0, nseed = 0;
    char expect[64] = "", *p = (char *)data, *end = (char *)data + n;
    int have_hash = 0;
    while (p < end && *p != '\n') {                 /* "key: value" lines, then a blank line */
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        *nl = 0;
        if (strncmp(p, "expect: ", 8) == 0) snprintf(expect, sizeof expect, "%s", p + 8);
        else if (strncmp(p, "payload: ", 9) == 0) have_hash = test_unhex(p + 9, want_hash, 32) == 32;
        else if (strncmp(p, "identity: AGE-SECRET-KEY-PQ-1", 29) == 0)
            CHECK(nseed < 4 && age_pq_identity_decode(p + 10, seeds[nseed++]) == 0);
        else if (strncmp(p, "identity: ", 10) == 0)
            CHECK(nsk < 4 && age_identity_decode(p + 10, sks[nsk++]) == 0);
        p = nl + 1;
    }
    p++;
    uint8_t *pt = NULL, got_hash[32];
    size_t ptlen = 0;
    int rc = decrypt_buf((uint8_t *)p, (size_t)(end - p), nsk ? (const uint8_t (*)[32])sks : NULL, nsk,
                         (const uint8_t (*)[32])seeds, nseed, &pt, &ptlen);
    if (strcmp(expect, "success") == 0) {
        CHECK(rc == 0);
        crypto_hash_sha256(got_hash, pt, ptlen);
        CHECK(have_hash);
        CHECK_MEM(got_hash, want_hash, 32);
    } else if (strcmp(expect, "header failure") == 0) {
        CHECK(rc == TL_AGE_EHEADER);
    } else if (strcmp(expect, "no match") == 0) {
        CHECK(rc == TL_AGE_ENOMATCH);
    } else {
        CHECK(!"unknown expectation");
    }
    if (test_cur_fail_) fprintf(stderr, "  %s: expect %s, got %d (%s)\n", name, expect, rc, age_strerror(rc));
    free(pt);
}

static void t_cctv_testkit(void) {
    for (size_t i = 0; i < sizeof kits / sizeof kits[0]; i++) {
        int before = test_cur_fail_;
        run_kit(kits[i]);
        if (test_cur_fail_ != before) fprintf(stderr, "  (vector %s)\n", kits[i]);
    }
}

static void t_keys(void) {
    uint8_t seed[32], seed2[32], rcp[TL_AGE_PQ_RECIPIENT_BYTES], rcp2[TL_AGE_PQ_RECIPIENT_BYTES];
    char rs[TL_AGE_PQ_RECIPIENT_MAX], is[TL_AGE_IDENTITY_MAX];
    /* The CCTV identity and the first characters of its recipient. */
    CHECK(age_pq_identity_decode("AGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG", seed) == 0);
    CHECK(age_pq_identity_encode(seed, is) == 0);
    CHECK(strcmp(is, "AGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG") == 0);
    CHECK(age_pq_public_key(seed, rcp) == 0);
    CHECK(age_pq_recipient_encode(rcp, rs) == 0);
    CHECK(strlen(rs) == 1959);
    CHECK(strncmp(rs, "age1pq1", 7) == 0);
    CHECK(age_pq_recipient_decode(rs, rcp2) == 0);
    CHECK_MEM(rcp2, rcp, sizeof rcp);
    /* case rules: recipients lowercase, identities uppercase */
    for (char *q = rs; *q; q++) if (*q >= 'a' && *q <= 'z') *q = (char)(*q - 32);
    CHECK(age_pq_recipient_decode(rs, rcp2) == TL_AGE_EKEY);
    for (char *q = is; *q; q++) if (*q >= 'A' && *q <= 'Z') *q = (char)(*q + 32);
    CHECK(age_pq_identity_decode(is, seed2) == TL_AGE_EKEY);
    /* classic strings are not PQ ones and vice versa */
    CHECK(age_pq_recipient_decode("age1qyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqszqgpqyqs3290gq", rcp2) == TL_AGE_EKEY);
    CHECK(age_recipient_decode("age1pq1qqqq", rcp2) == TL_AGE_EKEY);
    /* an ML-KEM coefficient >= q: the recipient string is refused */
    rcp[0] = 0xff; rcp[1] |= 0x0f;
    CHECK(age_pq_recipient_encode(rcp, rs) == 0);
    CHECK(age_pq_recipient_decode(rs, rcp2) == TL_AGE_EKEY);
    /* identity file of either kind */
    char path[] = "/tmp/rxlock-age-pq-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    int pq = -1;
    CHECK(age_pq_identity_file_write(path, seed, "test", 1) == 0);
    CHECK(age_identity_file_read_any(path, seed2, &pq) == 0 && pq == 1);
    CHECK_MEM(seed2, seed, 32);
    CHECK(age_identity_file_read(path, seed2) == TL_AGE_EKEY);   /* the X25519-only reader */
    CHECK(age_identity_file_write(path, seed, NULL, 1) == 0);
    CHECK(age_identity_file_read_any(path, seed2, &pq) == 0 && pq == 0);
    unlink(path);
}

/* Encrypt msg to nr fresh PQ recipients; returns the file in *file. */
static size_t encrypt_to(uint8_t seeds[][32], size_t nr, int armor, const uint8_t *msg, size_t mlen, uint8_t **file) {
    uint8_t (*rcps)[TL_AGE_PQ_RECIPIENT_BYTES] = malloc(nr * TL_AGE_PQ_RECIPIENT_BYTES);
    for (size_t i = 0; i < nr; i++) {
        randombytes_buf(seeds[i], 32);
        CHECK(age_pq_public_key(seeds[i], rcps[i]) == 0);
    }
    FILE *in = tmpfile(), *o = tmpfile();
    fwrite(msg, 1, mlen, in);
    fflush(in);
    rewind(in);
    CHECK(age_pq_encrypt_fd(fileno(in), fileno(o), (const uint8_t (*)[TL_AGE_PQ_RECIPIENT_BYTES])rcps, nr, armor) == 0);
    long len = lseek(fileno(o), 0, SEEK_END);
    *file = malloc((size_t)len + 1);
    CHECK(pread(fileno(o), *file, (size_t)len, 0) == len);
    (*file)[len] = 0;
    fclose(in); fclose(o);
    free(rcps);
    return (size_t)len;
}

static void t_roundtrip(void) {
    static uint8_t msg[200000];
    uint8_t seeds[3][32], other[32], *file, *pt;
    size_t ptlen;
    randombytes_buf(msg, sizeof msg);
    randombytes_buf(other, sizeof other);
    for (int armor = 0; armor < 2; armor++) {
        size_t len = encrypt_to(seeds, 3, armor, msg, sizeof msg, &file);
        for (int who = 0; who < 3; who++) {
            CHECK(decrypt_buf(file, len, NULL, 0, (const uint8_t (*)[32])seeds[who], 1, &pt, &ptlen) == 0);
            CHECK(ptlen == sizeof msg && memcmp(pt, msg, sizeof msg) == 0);
            free(pt);
        }
        CHECK(decrypt_buf(file, len, NULL, 0, (const uint8_t (*)[32])other, 1, &pt, &ptlen) == TL_AGE_ENOMATCH);
        free(pt);
        /* an X25519 identity does not open it either */
        CHECK(decrypt_buf(file, len, (const uint8_t (*)[32])other, 1, NULL, 0, &pt, &ptlen) == TL_AGE_ENOMATCH);
        free(pt);
        free(file);
    }
    /* no recipients / too many: refused */
    CHECK(age_pq_encrypt_fd(0, 1, NULL, 0, 0) == TL_AGE_EINVAL);
    CHECK(age_decrypt_fd_any(0, 1, NULL, 0, NULL, 0) == TL_AGE_EINVAL);
}

/* Replace the stanza's argument line ("-> mlkem768x25519 ...") and/or
 * its body line in a good one-recipient file, and expect a header failure. */
static void expect_header_failure(const uint8_t *file, size_t len, const uint8_t seed[32],
                                  const char *args, const char *body, const char *what) {
    const char *s = (const char *)file;
    const char *a = strstr(s, "\n-> mlkem768x25519 ") + 1;
    const char *b = strchr(a, '\n') + 1;
    const char *e = strchr(b, '\n') + 1;
    size_t cap = len + 4096, n = 0;
    uint8_t *m = malloc(cap), *pt;
    size_t ptlen;
    memcpy(m, s, (size_t)(a - s)); n = (size_t)(a - s);
    if (args) n += (size_t)sprintf((char *)m + n, "%s\n", args);
    else { memcpy(m + n, a, (size_t)(b - a)); n += (size_t)(b - a); }
    if (body) n += (size_t)sprintf((char *)m + n, "%s\n", body);
    else { memcpy(m + n, b, (size_t)(e - b)); n += (size_t)(e - b); }
    memcpy(m + n, e, len - (size_t)(e - s)); n += len - (size_t)(e - s);
    int rc = decrypt_buf(m, n, NULL, 0, (const uint8_t (*)[32])seed, 1, &pt, &ptlen);
    if (rc != TL_AGE_EHEADER) { test_cur_fail_++; fprintf(stderr, "malformed stanza (%s): rc %d, want header failure\n", what, rc); }
    free(pt);
    free(m);
}

static void t_malformed_stanzas(void) {
    uint8_t seeds[1][32], *file, *pt;
    size_t ptlen;
    const uint8_t msg[] = "post-quantum";
    size_t len = encrypt_to(seeds, 1, 0, msg, sizeof msg, &file);
    CHECK(decrypt_buf(file, len, NULL, 0, (const uint8_t (*)[32])seeds, 1, &pt, &ptlen) == 0);
    free(pt);
    const char *a = strstr((char *)file, "\n-> mlkem768x25519 ") + 1;
    const char *b = strchr(a, '\n') + 1;
    char enc[1600], body[64], line[1700];
    size_t el = (size_t)(b - a) - 1 - strlen("-> mlkem768x25519 ");
    memcpy(enc, a + strlen("-> mlkem768x25519 "), el); enc[el] = 0;
    CHECK(el == 1494);
    const char *e = strchr(b, '\n');
    memcpy(body, b, (size_t)(e - b)); body[e - b] = 0;
    CHECK(strlen(body) == 43);

    expect_header_failure(file, len, seeds[0], "-> mlkem768x25519", NULL, "no enc argument");
    snprintf(line, sizeof line, "-> mlkem768x25519 %s extra", enc);
    expect_header_failure(file, len, seeds[0], line, NULL, "three arguments");
    /* non-canonical base64: the last character of 1,120 bytes carries 2
     * unused bits; flip one of them */
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char bad[1600];
    strcpy(bad, enc);
    bad[el - 1] = b64[(strchr(b64, bad[el - 1]) - b64) ^ 1];
    snprintf(line, sizeof line, "-> mlkem768x25519 %s", bad);
    expect_header_failure(file, len, seeds[0], line, NULL, "non-canonical enc");
    snprintf(line, sizeof line, "-> mlkem768x25519 %s=", enc);
    expect_header_failure(file, len, seeds[0], line, NULL, "padded enc");
    strcpy(bad, enc); bad[el - 4] = 0;                      /* 1,117 bytes */
    snprintf(line, sizeof line, "-> mlkem768x25519 %s", bad);
    expect_header_failure(file, len, seeds[0], line, NULL, "short enc");
    snprintf(line, sizeof line, "-> mlkem768x25519 %sAAAA", enc);
    expect_header_failure(file, len, seeds[0], line, NULL, "long enc");
    /* body: 31 and 33 bytes, non-canonical */
    char bb[80];
    snprintf(bb, sizeof bb, "%.41s", body);
    expect_header_failure(file, len, seeds[0], NULL, bb, "31-byte body");
    snprintf(bb, sizeof bb, "%sAA", body);
    bb[43] = 'A'; bb[44] = 'A'; bb[45] = 0;
    expect_header_failure(file, len, seeds[0], NULL, bb, "33-byte body");
    strcpy(bb, body);
    bb[42] = b64[(strchr(b64, bb[42]) - b64) ^ 1];
    expect_header_failure(file, len, seeds[0], NULL, bb, "non-canonical body");
    /* the all-zero X25519 share: ct_X = 0 (and the low-order point 1) */
    uint8_t raw[1120];
    CHECK(sodium_base642bin(raw, sizeof raw, enc, el, NULL, NULL, NULL, sodium_base64_VARIANT_ORIGINAL_NO_PADDING) == 0);
    for (int pt1 = 0; pt1 < 2; pt1++) {
        memset(raw + 1088, 0, 32);
        raw[1088] = (uint8_t)pt1;
        sodium_bin2base64(bad, sizeof bad, raw, sizeof raw, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
        snprintf(line, sizeof line, "-> mlkem768x25519 %s", bad);
        expect_header_failure(file, len, seeds[0], line, NULL, pt1 ? "X25519 share = 1 (low order)" : "all-zero X25519 share");
    }
    free(file);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    RUN(t_cctv_testkit);
    RUN(t_keys);
    RUN(t_roundtrip);
    RUN(t_malformed_stanzas);
    return test_summary();
}
