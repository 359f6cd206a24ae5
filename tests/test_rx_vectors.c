/* SPDX-License-Identifier: ISC */
/* tests/test_rx_vectors.c — whole-hash vectors in light mode on the
 * interpreter: the official randomx-v1/v2.tsv vectors with software AES and
 * hardware AES, commitment-v1/v2, the derived sets (400 hashes over 8 keys),
 * the short dependent chains of randomx-chain.tsv (steps <= 10; the longer
 * ones run in test_rx_full), and the rx_vm_* API's error handling and
 * wipe-on-free. */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/internal.h"
#include "rx/cpu.h"
#include "rx/jit.h"
#include "rx/execmem.h"
#include <fenv.h>
#include <sodium.h>

#define INTERP_SOFT (RX_FLAG_SOFT_AES)
#define INTERP_HARD (RX_FLAG_HARD_AES)

/* ---- a small key -> cache map (cache init is the expensive part) ---- */
#define MAX_KEYS 8
static struct { uint8_t key[128]; size_t len; rx_cache *cache; int used; } g_caches[MAX_KEYS];
static int g_ncache;

static rx_cache *cache_for(const uint8_t *key, size_t len) {
    for (int i = 0; i < g_ncache; i++)
        if (g_caches[i].len == len && !memcmp(g_caches[i].key, key, len)) { g_caches[i].used++; return g_caches[i].cache; }
    if (len > sizeof g_caches[0].key) return NULL;
    int slot = g_ncache < MAX_KEYS ? g_ncache++ : 0;
    if (g_caches[slot].cache) {  /* evict the least used */
        int lu = 0;
        for (int i = 1; i < MAX_KEYS; i++) if (g_caches[i].used < g_caches[lu].used) lu = i;
        slot = lu;
        rx_cache_free(g_caches[slot].cache);
        g_caches[slot].cache = NULL;
    }
    rx_cache *c = NULL;
    if (rx_cache_new(&c, 0) != RX_OK) return NULL;
    if (rx_cache_init(c, key, len) != RX_OK) { rx_cache_free(c); return NULL; }
    memcpy(g_caches[slot].key, key, len);
    g_caches[slot].len = len;
    g_caches[slot].cache = c;
    g_caches[slot].used = 1;
    return c;
}
static void caches_free(void) {
    for (int i = 0; i < g_ncache; i++) { rx_cache_free(g_caches[i].cache); g_caches[i].cache = NULL; }
    g_ncache = 0;
}

static int hash_once(const uint8_t *key, size_t klen, const uint8_t *in, size_t ilen,
                     unsigned flags, uint8_t out[32]) {
    rx_cache *c = cache_for(key, klen);
    if (!c) return RX_ENOMEM;
    rx_vm *vm = NULL;
    int rc = rx_vm_new(&vm, flags, c, NULL);
    if (rc != RX_OK) return rc;
    rc = rx_vm_hash(vm, in, ilen, out);
    rx_vm_free(vm);
    return rc;
}

/* ---- official vectors ---------------------------------------------- */
struct ofc { unsigned flags; int rows; };
static int official_row(char **f, int nf, void *vctx) {
    struct ofc *ctx = vctx;
    if (nf < 3) return 0;
    uint8_t key[128], in[1024], want[32], got[32];
    long kl = test_unhex(f[0], key, sizeof key), il = test_unhex(f[1], in, sizeof in);
    CHECK(kl >= 0 && il >= 0 && test_unhex(f[2], want, 32) == 32);
    int rc = hash_once(key, (size_t)kl, in, (size_t)il, ctx->flags, got);
    CHECK(rc == RX_OK);
    CHECK_MEM(got, want, 32);
    ctx->rows++;
    return test_quick() && ctx->rows >= 2;
}

static void run_official(const char *file, unsigned vflag, unsigned aes) {
    struct ofc ctx = { vflag | aes, 0 };
    CHECK(test_tsv_each(file, official_row, &ctx) > 0);
    CHECK(ctx.rows >= (test_quick() ? 2 : 5));
}
static void t_official_v1_soft(void) { run_official("randomx-v1.tsv", 0, INTERP_SOFT); }
static void t_official_v2_soft(void) { run_official("randomx-v2.tsv", RX_FLAG_V2, INTERP_SOFT); }
static void t_official_v1_hard(void) {
    if (!rx_cpu_has_hw_aes()) { fprintf(stderr, "note: no hardware AES, skipped\n"); return; }
    run_official("randomx-v1.tsv", 0, INTERP_HARD);
}
static void t_official_v2_hard(void) {
    if (!rx_cpu_has_hw_aes()) { fprintf(stderr, "note: no hardware AES, skipped\n"); return; }
    run_official("randomx-v2.tsv", RX_FLAG_V2, INTERP_HARD);
}

/* ---- commitments: Blake2b-256(input || hash) ------------------------ */
static int commit_row(char **f, int nf, void *ctx) {
    int *rows = ctx;
    if (nf < 3 || strncmp(f[0], "commitment-v", 12) != 0) return 0;
    unsigned vflag = f[0][12] == '2' ? RX_FLAG_V2 : 0;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", f[1]);
    char *k = strstr(buf, "key="), *i = strstr(buf, "input=");
    CHECK(k && i);
    if (!k || !i) return 0;
    char *semi = strchr(k, ';'); if (semi) *semi = 0;
    uint8_t key[64], in[256], h[32], c[32], want[32];
    long kl = test_unhex(k + 4, key, sizeof key), il = test_unhex(i + 6, in, sizeof in);
    CHECK(kl >= 0 && il >= 0 && test_unhex(f[2], want, 32) == 32);
    CHECK(hash_once(key, (size_t)kl, in, (size_t)il, vflag, h) == RX_OK);
    crypto_generichash_state s;
    crypto_generichash_init(&s, NULL, 0, 32);
    crypto_generichash_update(&s, in, (unsigned long long)il);
    crypto_generichash_update(&s, h, 32);
    crypto_generichash_final(&s, c, 32);
    CHECK_MEM(c, want, 32);
    (*rows)++;
    return 0;
}
static void t_commitments(void) {
    int rows = 0;
    CHECK(test_tsv_each("randomx-components.tsv", commit_row, &rows) > 0);
    CHECK(rows == 2);
}

/* ---- derived sets: one cache per key, v1 and v2 VMs ---------------- */
struct drow { uint8_t key[64]; size_t klen; uint8_t *in; size_t ilen; uint8_t want[32]; unsigned v2; };
static struct drow *g_rows; static int g_nrows, g_caprows;

static int derived_load(char **f, int nf, void *ctx) {
    unsigned v2 = *(unsigned *)ctx;
    if (nf < 3) return 0;
    if (g_nrows == g_caprows) {
        g_caprows = g_caprows ? 2 * g_caprows : 256;
        g_rows = realloc(g_rows, sizeof *g_rows * (size_t)g_caprows);
        if (!g_rows) return 1;
    }
    struct drow *r = &g_rows[g_nrows];
    long kl = test_unhex(f[0], r->key, sizeof r->key);
    size_t hl = strlen(f[1]) / 2;
    r->in = malloc(hl + 1);
    long il = r->in ? test_unhex(f[1], r->in, hl + 1) : -1;
    CHECK(kl >= 0 && il >= 0 && test_unhex(f[2], r->want, 32) == 32);
    if (kl < 0 || il < 0) { free(r->in); return 0; }
    r->klen = (size_t)kl; r->ilen = (size_t)il; r->v2 = v2;
    g_nrows++;
    return 0;
}

static void t_derived(void) {
    unsigned v1 = 0, v2 = RX_FLAG_V2;
    CHECK(test_tsv_each("randomx-v1-derived.tsv", derived_load, &v1) == 200);
    CHECK(test_tsv_each("randomx-v2-derived.tsv", derived_load, &v2) == 200);
    int done = 0, bad = 0, per_key_limit = test_quick() ? 1 : 1000;
    /* visit key by key so that each cache is built once */
    for (int a = 0; a < g_nrows; a++) {
        if (!g_rows[a].in) continue;
        rx_cache *c = cache_for(g_rows[a].key, g_rows[a].klen);
        CHECK(c != NULL);
        if (!c) break;
        rx_vm *vm[2] = {NULL, NULL};
        CHECK(rx_vm_new(&vm[0], INTERP_HARD & (rx_cpu_has_hw_aes() ? ~0u : 0u), c, NULL) == RX_OK);
        CHECK(rx_vm_new(&vm[1], RX_FLAG_V2 | (rx_cpu_has_hw_aes() ? INTERP_HARD : 0u), c, NULL) == RX_OK);
        int n_this_key[2] = {0, 0};
        for (int b = a; b < g_nrows; b++) {
            struct drow *r = &g_rows[b];
            if (!r->in || r->klen != g_rows[a].klen || memcmp(r->key, g_rows[a].key, r->klen)) continue;
            int vi = r->v2 ? 1 : 0;
            if (n_this_key[vi]++ < per_key_limit && vm[vi]) {
                uint8_t got[32];
                CHECK(rx_vm_hash(vm[vi], r->in, r->ilen, got) == RX_OK);
                if (memcmp(got, r->want, 32)) bad++;
                CHECK_MEM(got, r->want, 32);
                done++;
            }
            free(r->in); r->in = NULL;
        }
        rx_vm_free(vm[0]); rx_vm_free(vm[1]);
    }
    fprintf(stderr, "derived: %d hashes checked, %d mismatches\n", done, bad);
    CHECK(done == (test_quick() ? 16 : 400));
    free(g_rows); g_rows = NULL; g_nrows = g_caprows = 0;
}

/* A few derived rows with software AES (the full set ran with hardware). */
static void t_derived_soft_sample(void) {
    unsigned v = RX_FLAG_V2;
    CHECK(test_tsv_each("randomx-v2-derived.tsv", derived_load, &v) == 200);
    int done = 0;
    for (int a = 0; a < g_nrows && done < 3; a += 25) {
        uint8_t got[32];
        CHECK(hash_once(g_rows[a].key, g_rows[a].klen, g_rows[a].in, g_rows[a].ilen,
                        RX_FLAG_V2 | INTERP_SOFT, got) == RX_OK);
        CHECK_MEM(got, g_rows[a].want, 32);
        done++;
    }
    for (int a = 0; a < g_nrows; a++) free(g_rows[a].in);
    free(g_rows); g_rows = NULL; g_nrows = g_caprows = 0;
}

/* ---- dependent chains (short ones) --------------------------------- */
static int rx_test_chain(rx_vm *vm, uint64_t steps, uint8_t d[32]) {
    uint8_t m[68];
    memset(d, 0, 32);
    memcpy(m, "rxlock-chain-test-v1", 20);
    memset(m + 20, 0, 8);
    for (uint64_t i = 0; i < steps; i++) {
        for (int b = 0; b < 8; b++) m[28 + b] = (uint8_t)(i >> (8 * b));
        memcpy(m + 36, d, 32);
        int rc = rx_vm_hash(vm, m, sizeof m, d);
        if (rc != RX_OK) return rc;
    }
    return RX_OK;
}

static int chain_row(char **f, int nf, void *ctx) {
    int *rows = ctx;
    if (nf < 4) return 0;
    uint64_t steps = strtoull(f[2], NULL, 10);
    if (steps > (test_quick() ? 1u : 10u)) return 0;
    uint8_t key[64], want[32], got[32];
    long kl = test_unhex(f[1], key, sizeof key);
    CHECK(kl >= 0 && test_unhex(f[3], want, 32) == 32);
    rx_cache *c = cache_for(key, (size_t)kl);
    CHECK(c != NULL);
    if (!c) return 0;
    rx_vm *vm = NULL;
    CHECK(rx_vm_new(&vm, (strcmp(f[0], "v2") == 0 ? RX_FLAG_V2 : 0), c, NULL) == RX_OK);
    CHECK(rx_test_chain(vm, steps, got) == RX_OK);
    CHECK_MEM(got, want, 32);
    rx_vm_free(vm);
    (*rows)++;
    return 0;
}
static void t_chains_short(void) {
    int rows = 0;
    CHECK(test_tsv_each("randomx-chain.tsv", chain_row, &rows) == 20);
    CHECK(rows == (test_quick() ? 4 : 12));
}

/* ---- API: bad input, modes, flags ---------------------------------- */
static void t_api_errors(void) {
    rx_cache *c = cache_for((const uint8_t *)"test key 000", 12);
    CHECK(c != NULL);
    rx_vm *vm = (rx_vm *)1;
    CHECK(rx_vm_new(NULL, 0, c, NULL) == RX_EINVAL);
    CHECK(rx_vm_new(&vm, RX_FLAG_FULL, c, NULL) == RX_ESTATE && vm == NULL);
    CHECK(rx_vm_new(&vm, 0, NULL, NULL) == RX_ESTATE && vm == NULL);
    CHECK(rx_vm_new(&vm, RX_FLAG_HARD_AES | RX_FLAG_SOFT_AES, c, NULL) == RX_EINVAL);
    if (!rx_cpu_has_hw_aes()) CHECK(rx_vm_new(&vm, RX_FLAG_HARD_AES, c, NULL) == RX_ENOTSUP);
    CHECK(rx_vm_new(&vm, RX_FLAG_V2, c, NULL) == RX_OK);
    uint8_t out[32], big_dummy[1];
    CHECK(rx_vm_hash(NULL, "x", 1, out) == RX_EINVAL);
    CHECK(rx_vm_hash(vm, NULL, 1, out) == RX_EINVAL);
    CHECK(rx_vm_hash(vm, "x", 1, NULL) == RX_EINVAL);
    CHECK(rx_vm_hash(vm, big_dummy, (size_t)RX_MAX_INPUT_SIZE + 1, out) == RX_EINVAL);
    CHECK(rx_vm_hash(vm, NULL, 0, out) == RX_OK);  /* empty input is fine */
    /* the largest input works and differs from a one-byte-shorter one */
    if (!test_quick()) {
        uint8_t *in = calloc(1, RX_MAX_INPUT_SIZE), o2[32];
        CHECK(in != NULL);
        if (in) {
            CHECK(rx_vm_hash(vm, in, RX_MAX_INPUT_SIZE, out) == RX_OK);
            CHECK(rx_vm_hash(vm, in, RX_MAX_INPUT_SIZE - 1, o2) == RX_OK);
            CHECK(memcmp(out, o2, 32) != 0);
            free(in);
        }
    }
    /* the caller's rounding mode survives a hash */
    CHECK(fesetround(FE_UPWARD) == 0);
    CHECK(rx_vm_hash(vm, "abc", 3, out) == RX_OK);
    CHECK(fegetround() == FE_UPWARD);
    (void)fesetround(FE_TONEAREST);
    unsigned fl = rx_vm_flags(vm);
    CHECK(fl & RX_FLAG_V2);
    CHECK(!(fl & RX_FLAG_FULL));
    CHECK(!!(fl & RX_FLAG_HARD_AES) != !!(fl & RX_FLAG_SOFT_AES));
    CHECK(rx_vm_flags(NULL) == 0);
    rx_vm_free(vm);
    rx_vm_free(NULL);
    CHECK(strcmp(rx_strerror(RX_EPROT), rx_strerror(RX_OK)) != 0);
    CHECK(rx_strerror(-999) != NULL);
    /* same VM, same input -> same digest; v1 != v2 */
    rx_vm *a = NULL, *b = NULL;
    uint8_t ha[32], hb[32], ha2[32];
    CHECK(rx_vm_new(&a, 0, c, NULL) == RX_OK && rx_vm_new(&b, RX_FLAG_V2, c, NULL) == RX_OK);
    CHECK(rx_vm_hash(a, "same", 4, ha) == RX_OK && rx_vm_hash(b, "same", 4, hb) == RX_OK);
    CHECK(rx_vm_hash(a, "same", 4, ha2) == RX_OK);
    CHECK_MEM(ha, ha2, 32);
    CHECK(memcmp(ha, hb, 32) != 0);
    rx_vm_free(a); rx_vm_free(b);
}

static void t_flags_env(void) {
    unsigned d = rx_flags_default();
    CHECK(d & RX_FLAG_V2);
    CHECK(!(d & RX_FLAG_FULL));
    setenv("RXLOCK_ENGINE", "interp", 1);
    setenv("RXLOCK_AES", "soft", 1);
    unsigned e = rx_flags_from_env(RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_HARD_AES);
    CHECK(e == (RX_FLAG_V2 | RX_FLAG_SOFT_AES));
    setenv("RXLOCK_ENGINE", "jit", 1);
    setenv("RXLOCK_AES", "hard", 1);
    e = rx_flags_from_env(RX_FLAG_V2 | RX_FLAG_SOFT_AES);
    CHECK(e == (RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_HARD_AES));
    unsetenv("RXLOCK_ENGINE"); unsetenv("RXLOCK_AES");
    CHECK(rx_flags_from_env(RX_FLAG_V2) == RX_FLAG_V2);
    /* the default may fall back (and says so); RXLOCK_ENGINE=jit may not */
    CHECK(!(d & RX_FLAG_JIT) || (d & RX_FLAG_JIT_FALLBACK));
    setenv("RXLOCK_ENGINE", "jit", 1);
    CHECK(!(rx_flags_from_env(d) & RX_FLAG_JIT_FALLBACK));
    setenv("RXLOCK_ENGINE", "interp", 1);
    CHECK(!(rx_flags_from_env(d) & (RX_FLAG_JIT | RX_FLAG_JIT_FALLBACK)));
    unsetenv("RXLOCK_ENGINE");
}

/* No silent fallback: a JIT that cannot start (test fault) is an error when
 * asked for alone, the interpreter with a reason under RX_FLAG_JIT_FALLBACK. */
static void t_jit_fallback(void) {
    rx_cache *c = cache_for((const uint8_t *)"test key 000", 12);
    if (!c) return;
    static const uint8_t want_v2[32] = {
        0x22,0xec,0x6b,0x86,0x1b,0x3e,0xb2,0x36,0x86,0xb2,0xef,0xba,0xd6,0x95,0x13,0xc9,
        0x67,0xec,0xfc,0xe8,0x09,0x83,0xdf,0x66,0xc9,0xc5,0xb4,0xfb,0xfb,0x4c,0xdb,0x6f };
    unsigned jit = RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_SECURE;
    rx_vm *vm = NULL;
    uint8_t out[32];
    CHECK(rx_vm_new(&vm, RX_FLAG_V2, c, NULL) == RX_OK && rx_vm_fallback_reason(vm) == NULL);
    rx_vm_free(vm);
    setenv("RXLOCK_TEST_JIT_FAIL", "1", 1);
    vm = NULL;
    CHECK(rx_vm_new(&vm, jit, c, NULL) == RX_EJIT && vm == NULL);
    CHECK(rx_engine_check(jit) != NULL);
    CHECK(strcmp(rx_strerror(RX_EJIT), rx_strerror(-999)) != 0);
    CHECK(rx_vm_new(&vm, jit | RX_FLAG_JIT_FALLBACK, c, NULL) == RX_OK);
    if (vm) {
        CHECK(!(rx_vm_flags(vm) & RX_FLAG_JIT));
        CHECK(rx_vm_fallback_reason(vm) != NULL);
        CHECK(rx_vm_hash(vm, "This is a test", 14, out) == RX_OK);
        CHECK_MEM(out, want_v2, 32);
        rx_vm_free(vm);
    }
    unsetenv("RXLOCK_TEST_JIT_FAIL");
    CHECK(rx_vm_fallback_reason(NULL) == NULL);
#if defined(__x86_64__) || defined(__aarch64__)
    CHECK(rx_engine_check(jit) == NULL);
    vm = NULL;
    CHECK(rx_vm_new(&vm, jit, c, NULL) == RX_OK);
    if (vm) {
        CHECK((rx_vm_flags(vm) & RX_FLAG_JIT) && rx_vm_fallback_reason(vm) == NULL);
        rx_vm_free(vm);
    }
#endif
}

/* ---- wipe on free: every region rx_vm_free hands back is all zero ---- */
static int g_freed, g_freed_dirty;
static size_t g_freed_bytes;
static void free_hook(const void *p, size_t size) {
    const uint8_t *b = p;
    g_freed++;
    g_freed_bytes += size;
    for (size_t i = 0; i < size; i++) if (b[i]) { g_freed_dirty++; break; }
}
static void t_vm_free_wipes(void) {
    rx_cache *c = cache_for((const uint8_t *)"test key 000", 12);
    CHECK(c != NULL);
    rx_vm *vm = NULL;
    CHECK(rx_vm_new(&vm, RX_FLAG_V2 | RX_FLAG_SOFT_AES, c, NULL) == RX_OK);
    uint8_t out[32];
    CHECK(rx_vm_hash(vm, "secret-ish input", 16, out) == RX_OK);
    g_freed = g_freed_dirty = 0; g_freed_bytes = 0;
    rx_mem_free_hook = free_hook;
    rx_vm_free(vm);
    rx_mem_free_hook = NULL;
    CHECK(g_freed == 2);                      /* VM handle + scratchpad */
    CHECK(g_freed_bytes >= 2097152u + 4096u);
    CHECK(g_freed_dirty == 0);
}

/* ---- JIT hook: when a JIT backend exists, vm.c uses it; its answers must
 * match, and a failed page-permission change must fail the hash ---- */
static int g_fail_site;
static int fault_hook(int site) { return site == g_fail_site; }
static void t_jit_path(void) {
    if (!rx_jit_supported()) { fprintf(stderr, "note: no JIT backend in this build\n"); return; }
    rx_cache *c = cache_for((const uint8_t *)"test key 000", 12);
    CHECK(c != NULL);
    static const uint8_t want_v2[32] = {
        0x22,0xec,0x6b,0x86,0x1b,0x3e,0xb2,0x36,0x86,0xb2,0xef,0xba,0xd6,0x95,0x13,0xc9,
        0x67,0xec,0xfc,0xe8,0x09,0x83,0xdf,0x66,0xc9,0xc5,0xb4,0xfb,0xfb,0x4c,0xdb,0x6f };
    rx_vm *vm = NULL;
    CHECK(rx_vm_new(&vm, RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_JIT_MPROTECT, c, NULL) == RX_OK);
    if (!vm) return;
    uint8_t out[32];
    if (rx_vm_flags(vm) & RX_FLAG_JIT) {
        CHECK(rx_vm_hash(vm, "This is a test", 14, out) == RX_OK);
        CHECK_MEM(out, want_v2, 32);
        int sites[2] = {RX_EXECMEM_SITE_OPEN, RX_EXECMEM_SITE_SEAL};
        for (int i = 0; i < 2; i++) {
            memset(out, 0xaa, sizeof out);
            g_fail_site = sites[i];
            rx_execmem_fault_hook = fault_hook;
            int rc = rx_vm_hash(vm, "This is a test", 14, out);
            rx_execmem_fault_hook = NULL;
            CHECK(rc != RX_OK);
            if (rc == RX_OK) fprintf(stderr, "  injected fault at site %d did not fail the hash\n", sites[i]);
            uint8_t zero[32] = {0};
            CHECK_MEM(out, zero, 32);   /* never a digest */
        }
    } else {
        fprintf(stderr, "note: JIT requested but the VM fell back to the interpreter\n");
    }
    rx_vm_free(vm);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    unsetenv("RXLOCK_ENGINE"); unsetenv("RXLOCK_AES");
    RUN(t_flags_env);
    RUN(t_official_v1_soft);
    RUN(t_official_v2_soft);
    RUN(t_official_v1_hard);
    RUN(t_official_v2_hard);
    RUN(t_commitments);
    RUN(t_api_errors);
    RUN(t_vm_free_wipes);
    RUN(t_jit_path);
    RUN(t_jit_fallback);
    RUN(t_chains_short);
    RUN(t_derived_soft_sample);
    RUN(t_derived);
    caches_free();
    return test_summary();
}
