/* SPDX-License-Identifier: ISC */
/* tests/test_age_bech32.c — BIP-173 valid/invalid vectors, 8-bit round trips,
 * age recipient/identity encoding, identity files, and a cross-check
 * against Debian's age-keygen (skipped when it is not installed). */
#include "test.h"
#include "rxlock/age.h"
#include "age/bech32.h"
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *valid[] = {
    "A12UEL5L",
    "a12uel5l",
    "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
    "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
    "11qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqc8247j",
    "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w",
    "?1ezyfcl",
};
static const char *invalid[] = {
    "\x20" "1nwldj5",   /* HRP character out of range */
    "\x7f" "1axkwrx",
    "\x80" "1eym55h",
    "an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx",
    "pzry9x0s0muk",     /* no separator */
    "1pzry9x0s0muk",    /* empty HRP */
    "x1b4n0q5v",        /* invalid data character */
    "li1dgmt3",         /* too short checksum */
    "de1lg7wt\xff",     /* invalid character in checksum */
    "A1G7SGD8",         /* checksum computed with uppercase HRP */
    "10a06t8",          /* empty HRP */
    "1qzzfhee",         /* empty HRP */
    "a12UEL5L",         /* mixed case */
};

static void lowercase(char *s) { for (; *s; s++) if (*s >= 'A' && *s <= 'Z') *s = (char)(*s + 32); }

static void t_bip173_valid(void) {
    for (size_t i = 0; i < sizeof valid / sizeof *valid; i++) {
        char hrp[100], again[100];
        uint8_t d5[100];
        size_t n = 0;
        int rc = tl_bech32_decode5(valid[i], hrp, sizeof hrp, d5, sizeof d5, &n);
        CHECK(rc == 0);
        if (rc) { fprintf(stderr, "  vector %zu\n", i); continue; }
        lowercase(hrp);
        CHECK(tl_bech32_encode5(again, sizeof again, hrp, d5, n) == 0);
        char want[100];
        snprintf(want, sizeof want, "%s", valid[i]);
        lowercase(want);
        CHECK(strcmp(again, want) == 0);
        /* Flip one data character: the checksum must catch it. */
        snprintf(again, sizeof again, "%s", want);
        size_t L = strlen(again);
        again[L - 1] = again[L - 1] == 'q' ? 'p' : 'q';
        CHECK(tl_bech32_decode5(again, hrp, sizeof hrp, d5, sizeof d5, &n) != 0);
    }
}

static void t_bip173_invalid(void) {
    for (size_t i = 0; i < sizeof invalid / sizeof *invalid; i++) {
        char hrp[100];
        uint8_t d5[100];
        size_t n = 0;
        int rc = tl_bech32_decode5(invalid[i], hrp, sizeof hrp, d5, sizeof d5, &n);
        CHECK(rc != 0);
        if (rc == 0) fprintf(stderr, "  accepted invalid vector %zu\n", i);
    }
}

static void t_roundtrip8(void) {
    uint8_t data[50], back[64];
    char s[TL_BECH32_MAX + 1], hrp[100];
    for (size_t len = 0; len <= 50; len++) {
        randombytes_buf(data, len);
        int rc = tl_bech32_encode(s, sizeof s, "test", data, len);
        if (4 + 1 + (len * 8 + 4) / 5 + 6 > TL_BECH32_MAX) { CHECK(rc != 0); continue; }
        CHECK(rc == 0);
        size_t n = 0;
        CHECK(tl_bech32_decode(s, hrp, sizeof hrp, back, sizeof back, &n) == 0);
        CHECK(n == len && strcmp(hrp, "test") == 0);
        CHECK(memcmp(back, data, len) == 0);
    }
    /* Non-zero padding bits are refused: "test1" + 'l' (31) + checksum. */
    uint8_t d5[2] = {0, 31};
    size_t n = 0;
    CHECK(tl_bech32_encode5(s, sizeof s, "test", d5, 2) == 0);   /* 10 bits: 8 + 2 padding (11) */
    CHECK(tl_bech32_decode(s, hrp, sizeof hrp, back, sizeof back, &n) != 0);
    uint8_t d5b[1] = {0};                                         /* 5 bits: too much padding */
    CHECK(tl_bech32_encode5(s, sizeof s, "test", d5b, 1) == 0);
    CHECK(tl_bech32_decode(s, hrp, sizeof hrp, back, sizeof back, &n) != 0);
    /* Small output buffer. */
    CHECK(tl_bech32_encode(s, 10, "test", data, 10) != 0);
}

static void t_age_keys(void) {
    uint8_t sk[32], pk[32], sk2[32], pk2[32];
    char rec[TL_AGE_RECIPIENT_MAX], id[TL_AGE_IDENTITY_MAX];
    for (int i = 0; i < 50; i++) {
        randombytes_buf(sk, 32);
        CHECK(age_public_key(sk, pk) == 0);
        CHECK(age_recipient_encode(pk, rec) == 0);
        CHECK(age_identity_encode(sk, id) == 0);
        CHECK(strncmp(rec, "age1", 4) == 0 && strlen(rec) == 62);
        CHECK(strncmp(id, "AGE-SECRET-KEY-1", 16) == 0 && strlen(id) == 74);
        CHECK(age_recipient_decode(rec, pk2) == 0);
        CHECK_MEM(pk2, pk, 32);
        CHECK(age_identity_decode(id, sk2) == 0);
        CHECK_MEM(sk2, sk, 32);
        /* Wrong HRP / wrong case / bad checksum are refused. */
        CHECK(age_recipient_decode(id, pk2) != 0);
        CHECK(age_identity_decode(rec, sk2) != 0);
        lowercase(id);
        CHECK(age_identity_decode(id, sk2) != 0);
        rec[10] = rec[10] == 'q' ? 'p' : 'q';
        CHECK(age_recipient_decode(rec, pk2) != 0);
    }
    CHECK(age_recipient_decode("", pk2) != 0);
    CHECK(age_recipient_decode(NULL, pk2) != 0);
}

static void t_identity_file(void) {
    char dir[] = "/tmp/rxlock-bech32-XXXXXX", path[256], rec[TL_AGE_RECIPIENT_MAX];
    uint8_t sk[32], sk2[32], pk[32];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/id.txt", dir);
    randombytes_buf(sk, 32);
    CHECK(age_identity_file_write(path, sk, "epoch test", 0) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    CHECK(age_identity_file_write(path, sk, NULL, 0) != 0);      /* no clobber */
    CHECK(age_identity_file_read(path, sk2) == 0);
    CHECK_MEM(sk2, sk, 32);
    uint8_t *d = NULL; size_t n = 0;
    FILE *fp = fopen(path, "r");
    char buf[1024] = {0};
    if (fp) { n = fread(buf, 1, sizeof buf - 1, fp); fclose(fp); }
    (void)d;
    CHECK(strncmp(buf, "# created: ", 11) == 0);
    CHECK(age_public_key(sk, pk) == 0 && age_recipient_encode(pk, rec) == 0);
    char want[128];
    snprintf(want, sizeof want, "\n# public key: %s\n# epoch test\nAGE-SECRET-KEY-1", rec);
    CHECK(strstr(buf, want) != NULL);
    CHECK(n > 0 && buf[n - 1] == '\n');
    randombytes_buf(sk2, 32);
    CHECK(age_identity_file_write(path, sk2, NULL, 1) == 0);     /* --force */
    CHECK(age_identity_file_read(path, sk) == 0);
    CHECK_MEM(sk, sk2, 32);
    CHECK(age_identity_file_write(path, sk2, "two\nlines", 1) != 0);
    /* A file whose first key line is garbage. */
    fp = fopen(path, "w");
    if (fp) { fputs("# comment\n\nnot-a-key\n", fp); fclose(fp); }
    CHECK(age_identity_file_read(path, sk) != 0);
    unlink(path);
    CHECK(age_identity_file_read(path, sk) != 0);
    rmdir(dir);
}

/* The example key pair in the age specification (C2SP age.md). */
static void t_spec_example(void) {
    uint8_t sk[32], pk[32], want_sk[32];
    char rec[TL_AGE_RECIPIENT_MAX], id[TL_AGE_IDENTITY_MAX];
    const char *sid = "AGE-SECRET-KEY-1GFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPYYSJZGFPQ4EGAEX";
    CHECK(age_identity_decode(sid, sk) == 0);
    memset(want_sk, 0x42, 32);
    CHECK_MEM(sk, want_sk, 32);
    CHECK(age_public_key(sk, pk) == 0 && age_recipient_encode(pk, rec) == 0);
    CHECK(strcmp(rec, "age1zvkyg2lqzraa2lnjvqej32nkuu0ues2s82hzrye869xeexvn73equnujwj") == 0);
    CHECK(age_identity_encode(sk, id) == 0 && strcmp(id, sid) == 0);
}

/* Cross-check with Debian's age-keygen. */
static void t_age_keygen(void) {
    if (access("/usr/bin/age-keygen", X_OK) != 0) { fprintf(stderr, "age-keygen missing: skipped\n"); return; }
    char dir[] = "/tmp/rxlock-bech32-XXXXXX", path[256], cmd[512], line[256];
    CHECK(mkdtemp(dir) != NULL);
    for (int round = 0; round < 3; round++) {
        /* age-keygen's identity decodes, and its public key line matches ours. */
        snprintf(path, sizeof path, "%s/k%d.txt", dir, round);
        snprintf(cmd, sizeof cmd, "age-keygen -o %s 2>/dev/null", path);
        CHECK(system(cmd) == 0);
        uint8_t sk[32], pk[32];
        char rec[TL_AGE_RECIPIENT_MAX], theirs[TL_AGE_RECIPIENT_MAX] = {0};
        CHECK(age_identity_file_read(path, sk) == 0);
        CHECK(age_public_key(sk, pk) == 0 && age_recipient_encode(pk, rec) == 0);
        FILE *fp = fopen(path, "r");
        while (fp && fgets(line, sizeof line, fp))
            if (sscanf(line, "# public key: %79s", theirs) == 1) break;
        if (fp) fclose(fp);
        CHECK(strcmp(rec, theirs) == 0);
        uint8_t pk2[32];
        CHECK(age_recipient_decode(theirs, pk2) == 0);
        CHECK_MEM(pk2, pk, 32);
        /* age-keygen -y of our identity file gives our recipient. */
        randombytes_buf(sk, 32);
        snprintf(path, sizeof path, "%s/ours%d.txt", dir, round);
        CHECK(age_identity_file_write(path, sk, NULL, 0) == 0);
        snprintf(cmd, sizeof cmd, "age-keygen -y %s", path);
        fp = popen(cmd, "r");
        char got[128] = {0};
        if (fp) { if (!fgets(got, sizeof got, fp)) got[0] = 0; CHECK(pclose(fp) == 0); }
        got[strcspn(got, "\n")] = 0;
        CHECK(age_public_key(sk, pk) == 0 && age_recipient_encode(pk, rec) == 0);
        CHECK(strcmp(got, rec) == 0);
        snprintf(cmd, sizeof cmd, "rm -f %s/*", dir);
        CHECK(system(cmd) == 0);
    }
    rmdir(dir);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    RUN(t_bip173_valid);
    RUN(t_bip173_invalid);
    RUN(t_roundtrip8);
    RUN(t_age_keys);
    RUN(t_identity_file);
    RUN(t_spec_example);
    RUN(t_age_keygen);
    return test_summary();
}
