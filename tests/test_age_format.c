/* SPDX-License-Identifier: ISC */
/* tests/test_age_format.c — age v1 encrypt/decrypt through the library:
 * round trips at chunk-boundary sizes (binary and armored), several
 * recipients/identities, canonical base64, low-order keys, damaged input
 * error codes, and `age -d` opening our output with our identity file. */
#include "test.h"
#include "rxlock/age.h"
#include "age/age_internal.h"
#include <fcntl.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/rxlock-agefmt-XXXXXX";

static void path(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", dir, name); }

static int write_file(const char *p, const uint8_t *d, size_t n) {
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return -1;
    ssize_t w = n ? write(fd, d, n) : 0;
    close(fd);
    return (size_t)w == n ? 0 : -1;
}
static uint8_t *read_all(const char *p, size_t *n) {
    uint8_t *d = NULL;
    FILE *fp = fopen(p, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long L = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    d = malloc((size_t)L + 1);
    if (d && fread(d, 1, (size_t)L, fp) != (size_t)L) { free(d); d = NULL; }
    fclose(fp);
    *n = (size_t)L;
    return d;
}

/* Encrypt file a -> b, decrypt b -> c with the given keys. */
static int enc(const char *a, const char *b, const uint8_t (*pks)[32], size_t npk, int armor) {
    int in = open(a, O_RDONLY), out = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int rc = age_encrypt_fd(in, out, pks, npk, armor);
    close(in); close(out);
    return rc;
}
static int dec(const char *b, const char *c, const uint8_t (*sks)[32], size_t nsk) {
    int in = open(b, O_RDONLY), out = open(c, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int rc = age_decrypt_fd(in, out, sks, nsk);
    close(in); close(out);
    return rc;
}

static uint8_t sk[3][32], pk[3][32];

static void t_roundtrip(void) {
    static const size_t sizes[] = {0, 1, 15, 16, 17, 47, 48, 49, 65535, 65536, 65537, 131072, 200000};
    char p[256], c[256], o[256];
    path(p, sizeof p, "p"); path(c, sizeof c, "c"); path(o, sizeof o, "o");
    uint8_t *buf = malloc(200000);
    randombytes_buf(buf, 200000);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        if (test_quick() && sizes[i] > 70000) continue;
        for (int armor = 0; armor < 2; armor++) {
            CHECK(write_file(p, buf, sizes[i]) == 0);
            CHECK(enc(p, c, (const uint8_t (*)[32])pk, 1, armor) == 0);
            CHECK(dec(c, o, (const uint8_t (*)[32])sk, 1) == 0);
            size_t n = 0;
            uint8_t *got = read_all(o, &n);
            CHECK(got && n == sizes[i] && memcmp(got, buf, n) == 0);
            free(got);
            size_t cn = 0;
            uint8_t *ct = read_all(c, &cn);
            if (ct && !armor) {
                /* 1 stanza: header is 21+1 + 10+43+1 + 43+1 + 4+43+1 = 168 bytes. */
                size_t chunks = sizes[i] ? (sizes[i] + 65535) / 65536 : 1;
                CHECK(cn == 168 + 16 + sizes[i] + 16 * chunks);
                CHECK(memcmp(ct, "age-encryption.org/v1\n-> X25519 ", 32) == 0);
            }
            if (ct && armor) CHECK(memcmp(ct, "-----BEGIN AGE ENCRYPTED FILE-----\n", 35) == 0);
            free(ct);
        }
    }
    free(buf);
}

static void t_multi(void) {
    char p[256], c[256], o[256];
    path(p, sizeof p, "p"); path(c, sizeof c, "c"); path(o, sizeof o, "o");
    uint8_t msg[1000];
    randombytes_buf(msg, sizeof msg);
    CHECK(write_file(p, msg, sizeof msg) == 0);
    CHECK(enc(p, c, (const uint8_t (*)[32])pk, 2, 0) == 0);        /* to keys 0 and 1 */
    CHECK(dec(c, o, (const uint8_t (*)[32])&sk[1], 1) == 0);       /* key 1 alone */
    CHECK(dec(c, o, (const uint8_t (*)[32])&sk[2], 1) == TL_AGE_ENOMATCH);
    CHECK(dec(c, o, (const uint8_t (*)[32])&sk[1], 2) == 0);       /* keys 1,2 */
    CHECK(age_encrypt_fd(0, 1, (const uint8_t (*)[32])pk, 0, 0) == TL_AGE_EINVAL);
    /* A low-order recipient (all zero) is refused. */
    uint8_t zero[1][32] = {{0}};
    CHECK(enc(p, c, (const uint8_t (*)[32])zero, 1, 0) == TL_AGE_ECRYPTO);
}

static void t_base64(void) {
    uint8_t v[32], out[32];
    char s[64];
    randombytes_buf(v, 32);
    sodium_bin2base64(s, sizeof s, v, 32, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
    CHECK(strlen(s) == 43);
    CHECK(age_b64_decode(s, 43, out, 32) == 0);
    CHECK_MEM(out, v, 32);
    /* The last character carries 2 data bits + 4 spare bits... no: 256 bits
     * in 43 characters leaves 2 spare bits; setting one is non-canonical. */
    static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    int idx = (int)(strchr(alpha, s[42]) - alpha);
    s[42] = alpha[idx ^ 1];
    CHECK(age_b64_decode(s, 43, out, 32) != 0);
    s[42] = alpha[idx];
    CHECK(age_b64_decode(s, 42, out, 32) != 0);                /* wrong length */
    char padded[80];
    snprintf(padded, sizeof padded, "%s=", s);
    CHECK(age_b64_decode(padded, 44, out, 32) != 0);           /* padding */
    s[5] = '-';
    CHECK(age_b64_decode(s, 43, out, 32) != 0);                /* URL alphabet */
}

/* Damage a ciphertext in memory, write it, decrypt, return the code. */
static int dec_bytes(const uint8_t *d, size_t n) {
    char c[256], o[256];
    path(c, sizeof c, "bad"); path(o, sizeof o, "bad.out");
    if (write_file(c, d, n) != 0) return 99;
    return dec(c, o, (const uint8_t (*)[32])sk, 1);
}

static void t_damage(void) {
    char p[256], c[256];
    path(p, sizeof p, "p"); path(c, sizeof c, "c");
    uint8_t *msg = malloc(140000);
    randombytes_buf(msg, 140000);
    CHECK(write_file(p, msg, 140000) == 0);
    CHECK(enc(p, c, (const uint8_t (*)[32])pk, 1, 0) == 0);
    size_t n = 0;
    uint8_t *ct = read_all(c, &n);
    const size_t hdr = 168, full = 65552;
    CHECK(ct && n == hdr + 16 + 140000 + 3 * 16);
    if (!ct) { free(msg); return; }
    CHECK(dec_bytes(ct, n) == 0);
    CHECK(dec_bytes(ct, 5) == TL_AGE_EVERSION);
    CHECK(dec_bytes(ct, 100) == TL_AGE_ETRUNC);
    CHECK(dec_bytes(ct, hdr) == TL_AGE_ETRUNC);
    CHECK(dec_bytes(ct, hdr + 16) == TL_AGE_ETRUNC);
    CHECK(dec_bytes(ct, hdr + 16 + full) == TL_AGE_ETRUNC);       /* cut at a chunk boundary */
    CHECK(dec_bytes(ct, hdr + 16 + full + 10) == TL_AGE_ETRUNC);         /* shorter than a tag */
    CHECK(dec_bytes(ct, hdr + 16 + full + 100) == TL_AGE_EPAYLOAD);
    CHECK(dec_bytes(ct, n - 1) == TL_AGE_EPAYLOAD);
    /* The header MAC: another valid base64 character. */
    uint8_t save = ct[hdr - 10];
    ct[hdr - 10] = save == 'A' ? 'B' : 'A';
    CHECK(dec_bytes(ct, n) == TL_AGE_EMAC);
    ct[hdr - 10] = save;
    /* Flip one bit in every region. */
    size_t offs[] = {hdr + 1, hdr + 16 + 3, hdr + 16 + full + 3, hdr + 16 + 2 * full + 3, n - 1};
    int want[] = {TL_AGE_EPAYLOAD, TL_AGE_EPAYLOAD, TL_AGE_EPAYLOAD, TL_AGE_EPAYLOAD, TL_AGE_EPAYLOAD};
    for (size_t i = 0; i < sizeof offs / sizeof *offs; i++) {
        ct[offs[i]] ^= 0x20;
        int rc = dec_bytes(ct, n);
        CHECK(rc == want[i]);
        if (rc != want[i]) fprintf(stderr, "  offset %zu: %d (%s)\n", offs[i], rc, age_strerror(rc));
        ct[offs[i]] ^= 0x20;
    }
    /* Trailing bytes. */
    uint8_t *big = malloc(n + 70000);
    memcpy(big, ct, n);
    memset(big + n, 'x', 70000);
    CHECK(dec_bytes(big, n + 1) == TL_AGE_EPAYLOAD);
    CHECK(dec_bytes(big, n + 70000) == TL_AGE_EPAYLOAD);
    free(big);
    /* A header whose only stanza is of an unknown type. */
    const char *unk = "age-encryption.org/v1\n-> example.com/enigma a b\nAAAA\n"
                      "--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)unk, strlen(unk)) == TL_AGE_ENOMATCH);
    const char *scr = "age-encryption.org/v1\n-> scrypt ajMFur+EJLGaohv/dLRGnw 18\n"
                      "8SHBz/ldWnjyGFQqfjat6uNBarWqqEMDS7W8X7+Xq5Q\n"
                      "--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)scr, strlen(scr)) == TL_AGE_ESCRYPT);
    const char *noline = "age-encryption.org/v1\n--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)noline, strlen(noline)) == TL_AGE_EHEADER);
    const char *dbl = "age-encryption.org/v1\n->  X25519 a\nAAAA\n--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)dbl, strlen(dbl)) == TL_AGE_EHEADER);
    const char *longb = "age-encryption.org/v1\n-> x\n"
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
        "--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)longb, strlen(longb)) == TL_AGE_EHEADER);   /* 65-column body */
    /* Unknown stanza bodies must be canonical base64 too ("QUF" has a spare
     * bit set, "QUE" does not). */
    const char *nc = "age-encryption.org/v1\n-> stanza\nQUF\n--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)nc, strlen(nc)) == TL_AGE_EHEADER);
    const char *cn = "age-encryption.org/v1\n-> stanza\nQUE\n--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)cn, strlen(cn)) == TL_AGE_ENOMATCH);
    const char *one = "age-encryption.org/v1\n-> stanza\nQUFBQ\n--- AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
    CHECK(dec_bytes((const uint8_t *)one, strlen(one)) == TL_AGE_EHEADER);     /* 5 chars: impossible length */
    free(ct);
    free(msg);
}

static void t_armor_strict(void) {
    char p[256], c[256];
    path(p, sizeof p, "p"); path(c, sizeof c, "c");
    uint8_t msg[100];
    randombytes_buf(msg, sizeof msg);
    CHECK(write_file(p, msg, sizeof msg) == 0);
    CHECK(enc(p, c, (const uint8_t (*)[32])pk, 1, 1) == 0);
    size_t n = 0;
    uint8_t *a = read_all(c, &n);
    if (!a) { CHECK(0); return; }
    CHECK(dec_bytes(a, n) == 0);
    CHECK(dec_bytes(a, n - 1) == 0);                               /* final LF optional */
    /* Last data line: its padding.  Remove one '=' / add a stray one. */
    char *end = strstr((char *)a, "\n-----END");
    CHECK(end != NULL);
    if (end) {
        uint8_t *b = malloc(n + 2);
        size_t pre = (size_t)(end - (char *)a);
        memcpy(b, a, pre); b[pre] = '=';
        memcpy(b + pre + 1, a + pre, n - pre);
        CHECK(dec_bytes(b, n + 1) == TL_AGE_EARMOR);
        free(b);
    }
    /* Lowercase label. */
    a[11] = 'a';
    CHECK(dec_bytes(a, n) != 0);
    free(a);
}

/* Debian's age opens our output with our identity file. */
static void t_age_binary(void) {
    if (access("/usr/bin/age", X_OK) != 0) { fprintf(stderr, "age missing: skipped\n"); return; }
    char p[256], c[256], id[256], cmd[1024];
    path(p, sizeof p, "p"); path(c, sizeof c, "c.age"); path(id, sizeof id, "id.txt");
    uint8_t msg[70000];
    randombytes_buf(msg, sizeof msg);
    CHECK(write_file(p, msg, sizeof msg) == 0);
    unlink(id);
    CHECK(age_identity_file_write(id, sk[0], "rxlock test", 0) == 0);
    for (int armor = 0; armor < 2; armor++) {
        CHECK(enc(p, c, (const uint8_t (*)[32])pk, 1, armor) == 0);
        snprintf(cmd, sizeof cmd, "age -d -i %s %s | cmp -s - %s", id, c, p);
        CHECK(system(cmd) == 0);
    }
    unlink(id);
}

int main(void) {
    if (sodium_init() < 0 || !mkdtemp(dir)) return 1;
    for (int i = 0; i < 3; i++) { randombytes_buf(sk[i], 32); age_public_key(sk[i], pk[i]); }
    RUN(t_roundtrip);
    RUN(t_multi);
    RUN(t_base64);
    RUN(t_damage);
    RUN(t_armor_strict);
    RUN(t_age_binary);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
    return test_summary();
}
