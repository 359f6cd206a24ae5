/* SPDX-License-Identifier: ISC */
/* tests/test_lock_format.c — checks the worked example in docs/FORMAT.md:
 * every intermediate value (chain messages, chain values, header bytes, H,
 * wrap keys, ciphertexts, X) is recomputed here independently of the
 * library (OpenSSL SHA3-256 as the oracle, libsodium primitives called
 * directly, the header assembled by hand from the spec), and the example
 * puzzle JSON is parsed and solved by the library to the documented x.
 * RXLOCK_FORMAT_PRINT=1 prints the values for the document instead. */
#include "test.h"
#include "rxlock/rxlock.h"
#include <openssl/evp.h>
#include <sodium.h>

#define MAXV 64
static char names[MAXV][32];
static uint8_t vals[MAXV][512];
static size_t lens[MAXV];
static int nv;
static char *doc_json;

static const uint8_t *val(const char *n, size_t want) {
    for (int k = 0; k < nv; k++)
        if (!strcmp(names[k], n)) {
            if (lens[k] != want) { fprintf(stderr, "%s: %zu bytes, want %zu\n", n, lens[k], want); return NULL; }
            return vals[k];
        }
    fprintf(stderr, "docs/FORMAT.md: value '%s' missing\n", n);
    return NULL;
}

static char cur_hex[1200];
static void commit_entry(void) {
    if (nv >= MAXV || !names[nv][0]) return;
    long n = test_unhex(cur_hex, vals[nv], sizeof vals[nv]);
    lens[nv] = n < 0 ? 0 : (size_t)n;
    nv++;
    cur_hex[0] = 0;
}

static void append_hex(const char *p) {
    size_t c = strlen(cur_hex);
    for (; *p && c + 1 < sizeof cur_hex; p++)
        if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')) cur_hex[c++] = *p;
    cur_hex[c] = 0;
}

/* Reads "name = hex" lines (hex may continue on indented lines) from the
 * ```worked-example block, and the ```json worked-example block verbatim. */
static int load_doc(void) {
    FILE *f = fopen("docs/FORMAT.md", "r");
    if (!f) return -1;
    static char line[4096];
    int in_ex = 0, in_json = 0;
    size_t jcap = 1 << 16, jlen = 0;
    doc_json = calloc(1, jcap);
    while (doc_json && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "```worked-example", 17)) { in_ex = 1; continue; }
        if (!strncmp(line, "```json worked-example", 22)) { in_json = 1; continue; }
        if (!strncmp(line, "```", 3)) {
            if (in_ex) commit_entry();
            in_ex = in_json = 0;
            continue;
        }
        if (in_json) {
            size_t l = strlen(line);
            if (jlen + l < jcap) { memcpy(doc_json + jlen, line, l); jlen += l; }
            continue;
        }
        if (!in_ex) continue;
        char *eq = strstr(line, " = ");
        if (eq && line[0] != ' ') {
            commit_entry();
            size_t nl = (size_t)(eq - line);
            if (nl >= sizeof names[0] || nv >= MAXV) continue;
            memcpy(names[nv], line, nl);
            names[nv][nl] = 0;
            append_hex(eq + 3);
        } else if (line[0] == ' ') {
            append_hex(line);
        }
    }
    fclose(f);
    return doc_json ? 0 : -1;
}

static void sha3(uint8_t out[32], const uint8_t *a, size_t n) {
    unsigned int ol = 32;
    EVP_Digest(a, n, out, &ol, EVP_sha3_256(), NULL);
}
static void le32(uint8_t *p, uint32_t v) { for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k)); }
static void le64(uint8_t *p, uint64_t v) { for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k)); }

static void msg(uint8_t m[68], uint32_t g, uint64_t i, const uint8_t d[32]) {
    memset(m, 0, 68);
    memcpy(m, "rxlock/chain/v1", 15);
    le32(m + 20, g);
    le64(m + 28, i);
    memcpy(m + 36, d, 32);
}

static int printing;
static int check_or_print(const char *name, const uint8_t *got, size_t n) {
    if (printing) {
        printf("%s = ", name);
        for (size_t k = 0; k < n; k++) {
            if (k && k % 32 == 0) printf("\n    ");
            printf("%02x", got[k]);
        }
        printf("\n");
        return 1;
    }
    const uint8_t *want = val(name, n);
    if (!want) return 0;
    if (memcmp(want, got, n) != 0) {
        fprintf(stderr, "docs/FORMAT.md: %s differs\n", name);
        test_dump_("  doc ", want, n);
        test_dump_("  calc", got, n);
        return 0;
    }
    return 1;
}

/* inputs (from the doc, or from the test-mode generator when printing) */
static uint8_t P[16], K[32], s1[32], s2[32], x[32], n1[24], n2[24];

static void t_worked_example(void) {
    const uint32_t G = 2; const uint64_t S = 2;
    if (printing) {
        check_or_print("P", P, 16); check_or_print("K", K, 32); check_or_print("s_1", s1, 32);
        check_or_print("s_2", s2, 32); check_or_print("x", x, 32);
        check_or_print("nonce_1", n1, 24); check_or_print("nonce_2", n2, 24);
    } else {
        const uint8_t *v;
        if (!(v = val("P", 16))) { CHECK(0); return; } memcpy(P, v, 16);
        if (!(v = val("K", 32))) { CHECK(0); return; } memcpy(K, v, 32);
        if (!(v = val("s_1", 32))) { CHECK(0); return; } memcpy(s1, v, 32);
        if (!(v = val("s_2", 32))) { CHECK(0); return; } memcpy(s2, v, 32);
        if (!(v = val("x", 32))) { CHECK(0); return; } memcpy(x, v, 32);
        if (!(v = val("nonce_1", 24))) { CHECK(0); return; } memcpy(n1, v, 24);
        if (!(v = val("nonce_2", 24))) { CHECK(0); return; } memcpy(n2, v, 24);
    }
    uint8_t X[32];
    crypto_scalarmult_base(X, x);
    CHECK(check_or_print("X", X, 32));
    /* header (docs/FORMAT.md §Canonical header), assembled from the spec */
    uint8_t hdr[213];
    memset(hdr, 0, sizeof hdr);
    memcpy(hdr, "rxlock/puzzle/v1", 16);
    le32(hdr + 16, 1);
    le32(hdr + 20, 1);          /* test_only, unsigned */
    hdr[24] = 3;                /* sha3-256 */
    le32(hdr + 28, G);
    le64(hdr + 32, S);
    memcpy(hdr + 40, P, 16);
    memcpy(hdr + 56, K, 32);
    memcpy(hdr + 88, s1, 32);
    memcpy(hdr + 120, X, 32);
    /* rate 0, target 0, created 0, signer zero */
    hdr[208] = 4;
    memcpy(hdr + 209, "none", 4);
    CHECK(check_or_print("header", hdr, sizeof hdr));
    uint8_t H[32];
    crypto_generichash(H, 32, hdr, sizeof hdr, NULL, 0);
    CHECK(check_or_print("H", H, 32));
    const uint8_t *seeds[2] = { s1, s2 };
    const uint8_t *nonces[2] = { n1, n2 };
    for (uint32_t g = 1; g <= G; g++) {
        uint8_t d[32], m[68], in[100], k[32], kin[34], aad[36], ct[48];
        char nm[32];
        memcpy(d, seeds[g - 1], 32);
        for (uint64_t i = 0; i < S; i++) {
            msg(m, g, i, d);
            snprintf(nm, sizeof nm, "m_%u_%llu", g, (unsigned long long)i);
            CHECK(check_or_print(nm, m, 68));
            memcpy(in, K, 32); memcpy(in + 32, m, 68);
            sha3(d, in, 100);
            snprintf(nm, sizeof nm, "d_%u_%llu", g, (unsigned long long)(i + 1));
            CHECK(check_or_print(nm, d, 32));
        }
        memcpy(kin, "rxlock/wrap/v1", 14); memcpy(kin + 14, P, 16); le32(kin + 30, g);
        crypto_generichash(k, 32, kin, 34, d, 32);
        snprintf(nm, sizeof nm, "k_%u", g);
        CHECK(check_or_print(nm, k, 32));
        memcpy(aad, H, 32); le32(aad + 32, g);
        unsigned long long cl;
        crypto_aead_xchacha20poly1305_ietf_encrypt(ct, &cl, g < G ? seeds[g] : x, 32, aad, 36, NULL, nonces[g - 1], k);
        snprintf(nm, sizeof nm, "c_%u", g);
        CHECK(check_or_print(nm, ct, 48));
    }
    if (printing) return;
    /* the example JSON: parses to the same header, and the library solves it to x */
    tl_puzzle *pz = NULL;
    char err[200];
    CHECK(doc_json && tl_puzzle_parse(doc_json, strlen(doc_json), &pz, err, sizeof err) == 0);
    if (!pz) { fprintf(stderr, "example JSON: %s\n", err); return; }
    CHECK_MEM(pz->header_digest, H, 32);
    uint8_t got[32];
    CHECK(tl_solve(pz, NULL, got, NULL) == 0);
    CHECK_MEM(got, x, 32);
    char *canon = NULL;
    CHECK(tl_puzzle_to_json(pz, &canon, NULL) == 0);
    CHECK(canon && strcmp(canon, doc_json) == 0);   /* the document shows the canonical bytes */
    free(canon);
    tl_puzzle_free(pz);
}

int main(void) {
    printing = getenv("RXLOCK_FORMAT_PRINT") != NULL;
    if (printing) {
        /* inputs from the deterministic test-mode generator (seed 00..0f) */
        setenv("RXLOCK_TEST_INSECURE", "1", 1);
        setenv("RXLOCK_TEST_SEED", "000102030405060708090a0b0c0d0e0f", 1);
        tl_params p = { .work = TL_WORK_SHA3_256, .groups = 2, .steps = 2, .rate_source = "none" };
        tl_gen_opts o = { .workers = 1 };
        char *json = NULL;
        uint8_t pk[32];
        if (tl_generate(&p, &o, &json, NULL, NULL, pk, x) != 0) return 1;
        tl_puzzle *pz = NULL;
        tl_puzzle_parse(json, strlen(json), &pz, NULL, 0);
        memcpy(P, pz->id, 16); memcpy(K, pz->key, 32); memcpy(s1, pz->seed, 32);
        memcpy(n1, pz->wraps[0].nonce, 24); memcpy(n2, pz->wraps[1].nonce, 24);
        uint8_t e1[32], pt[32];
        memcpy(e1, s1, 32);
        tl_work *w;
        tl_work_new(&w, TL_WORK_SHA3_256, K, TL_MODE_LIGHT);
        tl_work_steps(w, 1, 0, 2, e1);
        tl_work_free(w);
        /* s_2 = open(c_1) via the public API: solve the first group by hand */
        uint8_t k[32], kin[34], aad[36];
        memcpy(kin, "rxlock/wrap/v1", 14); memcpy(kin + 14, P, 16); le32(kin + 30, 1);
        crypto_generichash(k, 32, kin, 34, e1, 32);
        memcpy(aad, pz->header_digest, 32); le32(aad + 32, 1);
        unsigned long long pl;
        if (crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &pl, NULL, pz->wraps[0].ct, 48, aad, 36, n1, k) != 0) return 1;
        memcpy(s2, pt, 32);
        RUN(t_worked_example);
        printf("----json----\n%s", json);
        free(json);
        tl_puzzle_free(pz);
        return 0;
    }
    CHECK(load_doc() == 0);
    RUN(t_worked_example);
    free(doc_json);
    return test_summary();
}
