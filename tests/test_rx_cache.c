/* SPDX-License-Identifier: ISC */
/* tests/test_rx_cache.c — the cache/dataset side of the RandomX engine in
 * light mode: Argon2d cache words, SuperscalarHash programs, reciprocals
 * and dataset items against tests/vectors (randomx-components.tsv,
 * randomx-dataset-items.tsv); Argon2 implementation agreement; error
 * returns; and the wipe-on-free guarantee via rx_mem_free_hook. */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/internal.h"
#include "rx/cache_internal.h"
#include "rx/argon2d.h"
#include "rx/blake2_gen.h"
#include "rx/superscalar.h"
#include "rx/execmem.h"
#include "util/cpufeat.h"
#include <sodium.h>
#include <time.h>

static rx_cache *g_cache;            /* initialised with key "test key 000" */
static const char TEST_KEY[] = "test key 000";

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "key=HEX;name=VALUE" -> key bytes and the numeric value after name= */
static int parse_kv(const char *in, uint8_t *key, size_t cap, long *key_len,
                    const char *name, unsigned long long *val) {
    const char *k = strstr(in, "key=");
    const char *semi = k ? strchr(k, ';') : NULL;
    if (!k || !semi) return -1;
    char hex[256];
    size_t n = (size_t)(semi - (k + 4));
    if (n >= sizeof hex) return -1;
    memcpy(hex, k + 4, n); hex[n] = 0;
    *key_len = test_unhex(hex, key, cap);
    if (*key_len < 0) return -1;
    char pat[64];
    snprintf(pat, sizeof pat, "%s=", name);
    const char *v = strstr(semi, pat);
    if (!v) return -1;
    *val = strtoull(v + strlen(pat), NULL, 0);
    return 0;
}

static int is_test_key(const uint8_t *key, long len) {
    return len == (long)strlen(TEST_KEY) && memcmp(key, TEST_KEY, (size_t)len) == 0;
}

static uint64_t cache_word(const rx_cache *c, uint64_t w) {
    uint64_t v = 0;
    for (unsigned b = 0; b < 8; b++) v |= (uint64_t)c->memory[8 * w + b] << (8 * b);
    return v;
}

/* ---- randomx-components.tsv -------------------------------------------- */
typedef struct comp_ctx { int rows_argon, rows_ss, rows_rcp, rows_item; } comp_ctx;

static int comp_row(char **f, int nf, void *vctx) {
    comp_ctx *ctx = vctx;
    if (nf < 3) return 0;
    const char *comp = f[0], *in = f[1], *exp = f[2];
    uint8_t key[64]; long klen; unsigned long long val;
    if (!strcmp(comp, "argon2-cache")) {
        CHECK(parse_kv(in, key, sizeof key, &klen, "word", &val) == 0);
        CHECK(is_test_key(key, klen));
        uint64_t want = strtoull(exp, NULL, 0);
        CHECK(val < RX_CACHE_SIZE / 8);
        if (val < RX_CACHE_SIZE / 8) CHECK(cache_word(g_cache, val) == want);
        ctx->rows_argon++;
    } else if (!strcmp(comp, "superscalar-program")) {
        CHECK(parse_kv(in, key, sizeof key, &klen, "program", &val) == 0);
        rx_blake2_gen gen;
        rx_blake2_gen_init(&gen, key, (size_t)klen, 0);
        static rx_ss_program prog;
        for (unsigned long long i = 0; i <= val; i++) rx_superscalar_generate(&prog, &gen);
        static uint8_t buf[RX_SS_MAX_SIZE * 8];
        size_t n = rx_superscalar_serialize(&prog, buf, sizeof buf);
        CHECK(n == (size_t)prog.size * 8 && n > 0);
        uint8_t h[32], want[32];
        crypto_generichash(h, 32, buf, n, NULL, 0);
        CHECK(test_unhex(exp, want, sizeof want) == 32);
        CHECK_MEM(h, want, 32);
        /* with the test key the first 8 are the cache's programs */
        if (is_test_key(key, klen) && val < RX_CACHE_ACCESSES) {
            CHECK(g_cache->prog[val].size == prog.size);
            CHECK(memcmp(g_cache->prog[val].ins, prog.ins, prog.size * sizeof prog.ins[0]) == 0);
        }
        ctx->rows_ss++;
    } else if (!strcmp(comp, "randomx_reciprocal")) {
        uint64_t d = strtoull(in, NULL, 10), want = strtoull(exp, NULL, 0);
        CHECK(rx_reciprocal(d) == want);
        ctx->rows_rcp++;
    } else if (!strcmp(comp, "dataset-item")) {
        CHECK(parse_kv(in, key, sizeof key, &klen, "item", &val) == 0);
        CHECK(is_test_key(key, klen));
        uint64_t w[8], want = strtoull(exp, NULL, 0);
        rx_cache_item(g_cache, val, w);
        CHECK(w[0] == want);
        ctx->rows_item++;
    }
    return 0;
}

static void t_components(void) {
    comp_ctx ctx = { 0, 0, 0, 0 };
    CHECK(test_tsv_each("randomx-components.tsv", comp_row, &ctx) > 0);
    CHECK(ctx.rows_argon == 3);
    CHECK(ctx.rows_ss == 10);
    CHECK(ctx.rows_rcp == 7);
    CHECK(ctx.rows_item == 4);
}

/* reciprocal against 128-bit division for random divisors */
static void t_reciprocal_random(void) {
#if defined(__SIZEOF_INT128__)
    uint64_t rs = 1;
    for (int i = 0; i < 100000; i++) {
        uint64_t s = test_rng(&rs);
        uint64_t d = (i & 1) ? (s & 0xffffffffu) : s;
        if (d == 0 || (d & (d - 1)) == 0) continue;
        unsigned bits = 64u - (unsigned)__builtin_clzll(d);
        unsigned __int128 q = ((unsigned __int128)1 << (63 + bits)) / d;
        CHECK(rx_reciprocal(d) == (uint64_t)q);
        if (rx_reciprocal(d) != (uint64_t)q) break;
    }
#endif
}

/* ---- randomx-dataset-items.tsv ------------------------------------------ */
static int item_row(char **f, int nf, void *vctx) {
    int *rows = vctx;
    if (nf < 3) return 0;
    uint8_t key[64], want[64], got[64];
    long kl = test_unhex(f[0], key, sizeof key);
    CHECK(is_test_key(key, kl));
    uint64_t item = strtoull(f[1], NULL, 10);
    CHECK(test_unhex(f[2], want, sizeof want) == 64);
    uint64_t w[8];
    rx_cache_item(g_cache, item, w);
    for (unsigned k = 0; k < 8; k++)
        for (unsigned b = 0; b < 8; b++) got[8 * k + b] = (uint8_t)(w[k] >> (8 * b));
    CHECK_MEM(got, want, 64);
    (*rows)++;
    return 0;
}

static void t_dataset_items(void) {
    int rows = 0;
    CHECK(test_tsv_each("randomx-dataset-items.tsv", item_row, &rows) == 64);
    CHECK(rows == 64);
}

/* Range builds (the lane-batched fast path and the scalar tail) equal
 * rx_cache_item, checked on a small dataset-shaped buffer. */
static void t_range_build_matches_items(void) {
    rx_dataset fake;
    const uint64_t first = RX_DATASET_ITEMS - 37, count = 37;   /* ends at the last item */
    uint8_t *buf = calloc(1, (size_t)RX_DATASET_BYTES > 0 ? 64 * 64 : 1);
    CHECK(buf != NULL);
    if (!buf) return;
    /* Point a fake dataset's memory so that items [first, first+count) land in buf. */
    fake.memory = buf - first * 64u;
    fake.flags = 0;
    CHECK(rx_dataset_init(&fake, g_cache, first, count) == RX_OK);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t w[8];
        uint8_t want[64];
        rx_cache_item(g_cache, first + i, w);
        for (unsigned k = 0; k < 8; k++)
            for (unsigned b = 0; b < 8; b++) want[8 * k + b] = (uint8_t)(w[k] >> (8 * b));
        CHECK_MEM(buf + 64 * i, want, 64);
    }
    const uint64_t first2 = 1000003, count2 = 20;
    fake.memory = buf - first2 * 64u;
    CHECK(rx_dataset_init(&fake, g_cache, first2, count2) == RX_OK);
    for (uint64_t i = 0; i < count2; i++) {
        uint64_t w[8];
        rx_cache_item(g_cache, first2 + i, w);
        CHECK(memcmp(buf + 64 * i, w, 64) == 0);   /* little-endian host */
    }
    free(buf);
}

/* lanes executor == scalar executor for every cache program */
static void t_lanes_equal_scalar(void) {
    for (unsigned p = 0; p < RX_CACHE_ACCESSES; p++) {
        uint64_t r[8][RX_SS_LANES], s[RX_SS_LANES][8];
        for (unsigned k = 0; k < 8; k++)
            for (unsigned l = 0; l < RX_SS_LANES; l++)
                s[l][k] = r[k][l] = 0x0123456789abcdefull * (k + 1) ^ (uint64_t)l * 0xfedcba987654321ull;
        rx_superscalar_execute_lanes(&g_cache->prog[p], r);
        for (unsigned l = 0; l < RX_SS_LANES; l++) {
            rx_superscalar_execute(&g_cache->prog[p], s[l]);
            for (unsigned k = 0; k < 8; k++) CHECK(r[k][l] == s[l][k]);
        }
    }
}

/* ---- Argon2 implementations agree ------------------------------------------- */
static void t_argon2_impls_small(void) {
    const uint32_t blocks = 256;
    uint8_t *ref = malloc(blocks * 1024u), *got = malloc(blocks * 1024u);
    CHECK(ref && got);
    if (!ref || !got) { free(ref); free(got); return; }
    CHECK(rx_argon2d_fill(ref, blocks, 3, "pw", 2, "RandomX\x03", 8, RX_ARGON2_PORTABLE) == 0);
    for (int impl = RX_ARGON2_SSSE3; impl <= RX_ARGON2_AVX2; impl++) {
        if (!rx_argon2d_impl_supported(impl)) {
            CHECK(rx_argon2d_fill(got, blocks, 3, "pw", 2, "x", 1, impl) == RX_ENOTSUP);
            continue;
        }
        memset(got, 0xaa, blocks * 1024u);
        CHECK(rx_argon2d_fill(got, blocks, 3, "pw", 2, "RandomX\x03", 8, impl) == 0);
        CHECK(memcmp(ref, got, blocks * 1024u) == 0);
    }
    /* bad arguments */
    CHECK(rx_argon2d_fill(NULL, blocks, 3, "pw", 2, "s", 1, 0) == RX_EINVAL);
    CHECK(rx_argon2d_fill(got, 6, 3, "pw", 2, "s", 1, 0) == RX_EINVAL);
    CHECK(rx_argon2d_fill(got, 10, 3, "pw", 2, "s", 1, 0) == RX_EINVAL);
    CHECK(rx_argon2d_fill(got, blocks, 0, "pw", 2, "s", 1, 0) == RX_EINVAL);
    CHECK(rx_argon2d_fill(got, blocks, 3, NULL, 2, "s", 1, 0) == RX_EINVAL);
    CHECK(rx_argon2d_fill(got, blocks, 3, "pw", 2, "s", 1, 99) == RX_ENOTSUP);
    free(ref); free(got);
}

/* Every implementation reproduces the official cache words (full size). */
static void t_argon2_impls_full(void) {
    if (test_quick()) return;
    rx_cache *c = NULL;
    CHECK(rx_cache_new(&c, 0) == RX_OK);
    if (!c) return;
    int saved = rx_cache_argon2_impl;
    for (int impl = RX_ARGON2_PORTABLE; impl <= RX_ARGON2_AVX2; impl++) {
        if (!rx_argon2d_impl_supported(impl)) continue;
        rx_cache_argon2_impl = impl;
        double t0 = now_s();
        CHECK(rx_cache_init(c, TEST_KEY, strlen(TEST_KEY)) == RX_OK);
        double t1 = now_s();
        fprintf(stderr, "  cache init (%s): %.3f s\n", rx_argon2d_impl_name(impl), t1 - t0);
        CHECK(cache_word(c, 0) == 0x191e0e1d23c02186ull);
        CHECK(cache_word(c, 1568413) == 0xf1b62fe6210bf8b1ull);
        CHECK(cache_word(c, 33554431) == 0x1f47f056d05cd99bull);
        CHECK(memcmp(c->memory, g_cache->memory, RX_CACHE_SIZE) == 0);
    }
    rx_cache_argon2_impl = saved;
    rx_cache_free(c);
}

/* Keys of other lengths (empty, > 60 bytes) work; the 60-byte seed limit
 * of the generator does not make long keys collide in the cache. */
static void t_key_lengths(void) {
    if (test_quick()) return;
    rx_cache *c = NULL;
    CHECK(rx_cache_new(&c, 0) == RX_OK);
    if (!c) return;
    CHECK(rx_cache_init(c, NULL, 0) == RX_OK);
    uint64_t w_empty = cache_word(c, 12345), item_empty[8];
    rx_cache_item(c, 7, item_empty);
    uint8_t k1[100], k2[100];
    memset(k1, 'k', sizeof k1); memcpy(k2, k1, sizeof k2); k2[99] ^= 1;
    CHECK(rx_cache_init(c, k1, sizeof k1) == RX_OK);
    uint64_t w1 = cache_word(c, 12345);
    CHECK(rx_cache_init(c, k2, sizeof k2) == RX_OK);
    uint64_t w2 = cache_word(c, 12345);
    CHECK(w1 != w2 && w1 != w_empty);
    rx_cache_free(c);
}

/* ---- errors ---------------------------------------------------------------- */
static void t_errors(void) {
    rx_cache *c = NULL;
    rx_dataset *d = (rx_dataset *)1;
    CHECK(rx_cache_new(NULL, 0) == RX_EINVAL);
    CHECK(rx_dataset_new(NULL, 0) == RX_EINVAL);
    CHECK(rx_cache_init(NULL, "k", 1) == RX_EINVAL);
    CHECK(rx_cache_new(&c, 0) == RX_OK);
    CHECK(c != NULL);
    if (!c) return;
    CHECK(rx_cache_init(c, NULL, 5) == RX_EINVAL);
    CHECK(rx_cache_init(c, "k", (size_t)RX_MAX_KEY_SIZE + 1) == RX_EINVAL);
    /* uninitialised cache */
    uint64_t w[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    rx_cache_item(c, 0, w);
    for (int k = 0; k < 8; k++) CHECK(w[k] == 0);
    rx_cache_item(NULL, 0, w);
    rx_cache_item(g_cache, 0, NULL);   /* ignored, no crash */
    rx_dataset fake = { (uint8_t *)w, 0 };
    CHECK(rx_dataset_init(&fake, c, 0, 1) == RX_ESTATE);
    CHECK(rx_dataset_init_parallel(&fake, c, 2) == RX_ESTATE);
    CHECK(rx_dataset_init(NULL, g_cache, 0, 1) == RX_EINVAL);
    CHECK(rx_dataset_init(&fake, NULL, 0, 1) == RX_EINVAL);
    CHECK(rx_dataset_init_parallel(NULL, g_cache, 1) == RX_EINVAL);
    CHECK(rx_dataset_init_parallel(&fake, NULL, 1) == RX_EINVAL);
    /* bad ranges */
    CHECK(rx_dataset_init(&fake, g_cache, RX_DATASET_ITEMS, 1) == RX_EINVAL);
    CHECK(rx_dataset_init(&fake, g_cache, RX_DATASET_ITEMS + 1, 0) == RX_EINVAL);
    CHECK(rx_dataset_init(&fake, g_cache, 1, UINT64_MAX) == RX_EINVAL);
    CHECK(rx_dataset_init(&fake, g_cache, UINT64_MAX, 2) == RX_EINVAL);
    CHECK(rx_dataset_init(&fake, g_cache, RX_DATASET_ITEMS, 0) == RX_OK);   /* empty range */
    rx_dataset nomem = { NULL, 0 };
    CHECK(rx_dataset_init(&nomem, g_cache, 0, 1) == RX_EINVAL);
    CHECK(rx_dataset_item_count() == RX_DATASET_ITEMS);
    CHECK(rx_dataset_bytes(NULL) == NULL);
    (void)d;
    rx_cache_free(c);
    rx_cache_free(NULL);
    rx_dataset_free(NULL);
}

/* ---- wipe on free ------------------------------------------------------------- */
static int wipe_calls, wipe_dirty;
static size_t wipe_sizes;
static void wipe_hook(const void *p, size_t size) {
    const uint8_t *b = p;
    wipe_calls++;
    wipe_sizes += size;
    for (size_t i = 0; i < size; i++) if (b[i]) { wipe_dirty++; break; }
}

/* A THP allocation of 2 MiB or more starts on a 2 MiB boundary (so the
 * scratchpad can be one huge page on any kernel); its whole range is usable
 * and freed; RX_FLAG_NO_THP and small ones are only page aligned. */
static void t_thp_alignment(void) {
    const size_t sizes[] = { 2u << 20, (2u << 20) + 4096u, 5u << 20 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint8_t *p = rx_mem_alloc(sizes[i], 0);
        CHECK(p != NULL);
        if (!p) continue;
        CHECK(((uintptr_t)p & ((2u << 20) - 1u)) == 0);
        memset(p, 0x5a, sizes[i]);               /* all of it mapped, writable */
        CHECK(p[0] == 0x5a && p[sizes[i] - 1] == 0x5a);
        rx_mem_free(p, sizes[i]);
    }
    uint8_t *q = rx_mem_alloc(2u << 20, RX_FLAG_NO_THP);
    CHECK(q != NULL && ((uintptr_t)q & 4095u) == 0);
    if (q) rx_mem_free(q, 2u << 20);
}

static void t_wipe_on_free(void) {
    rx_cache *c = NULL;
    CHECK(rx_cache_new(&c, 0) == RX_OK);
    if (!c) return;
    /* A cheap stand-in for a full init: fill the memory and programs with
     * non-zero data so the hook can see they were wiped.  (A real init is
     * covered by t_key_lengths; the free path is the same.) */
    memset(c->memory, 0x5a, RX_CACHE_SIZE);
    rx_blake2_gen gen;
    rx_blake2_gen_init(&gen, "wipe", 4, 0);
    for (unsigned i = 0; i < RX_CACHE_ACCESSES; i++) rx_superscalar_generate(&c->prog[i], &gen);
    c->initialized = 1;
    wipe_calls = wipe_dirty = 0; wipe_sizes = 0;
    rx_mem_free_hook = wipe_hook;
    rx_cache_free(c);
    rx_mem_free_hook = NULL;
    CHECK(wipe_calls == 2);             /* memory + handle (with programs) */
    CHECK(wipe_dirty == 0);
    CHECK(wipe_sizes == RX_CACHE_SIZE + sizeof(rx_cache));

    /* The dataset's wipe touches all 2 GiB: only under make check-full
     * (test_rx_dataset_full checks it on the real build as well). */
    if (!test_full()) return;
    rx_dataset *d = NULL;
    int rc = rx_dataset_new(&d, RX_FLAG_NO_THP);
    CHECK(rc == RX_OK || rc == RX_ENOMEM);
    if (rc == RX_OK) {
        /* touch a few pages only: the hook scans 2 GiB of (mostly zero) pages */
        CHECK(rx_dataset_init(d, g_cache, 0, 64) == RX_OK);
        CHECK(rx_dataset_init(d, g_cache, RX_DATASET_ITEMS - 8, 8) == RX_OK);
        CHECK(rx_dataset_bytes(d) != NULL);
        wipe_calls = wipe_dirty = 0; wipe_sizes = 0;
        rx_mem_free_hook = wipe_hook;
        rx_dataset_free(d);
        rx_mem_free_hook = NULL;
        CHECK(wipe_calls == 2);
        CHECK(wipe_dirty == 0);
        CHECK(wipe_sizes == (size_t)RX_DATASET_BYTES + sizeof(rx_dataset));
    }
}

/* RX_FLAG_JIT builds go through the SuperscalarHash JIT (x86-64) and write
 * the same bytes as the C path; a JIT that cannot seal its code fails the
 * build unless RX_FLAG_JIT_FALLBACK lets the C path run. */
static int fail_seal(int site) { return site == RX_EXECMEM_SITE_SEAL; }
static void t_jit_build_equals_c(void) {
    const uint64_t first = 777777, count = 1000 + 3;      /* not a lane multiple */
    uint8_t *a = malloc(64 * count), *b = malloc(64 * count);
    CHECK(a && b);
    if (!a || !b) { free(a); free(b); return; }
    rx_dataset fc = { a - first * 64u, 0 }, fj = { b - first * 64u, RX_FLAG_JIT };
    CHECK(rx_dataset_init(&fc, g_cache, first, count) == RX_OK);
    memset(b, 0, 64 * count);
    CHECK(rx_dataset_init(&fj, g_cache, first, count) == RX_OK);
    CHECK_MEM(b, a, 64 * count);
    CHECK(rx_dataset_init(&fj, g_cache, first, 0) == RX_OK);
    rx_execmem_fault_hook = fail_seal;
    memset(b, 0, 64 * count);
    int rc = rx_dataset_init(&fj, g_cache, first, count);
#if defined(__x86_64__)
    CHECK(rc == RX_EPROT);                               /* no silent fallback */
#else
    CHECK(rc == RX_OK);                                  /* no SuperscalarHash JIT here: C */
#endif
    fj.flags = RX_FLAG_JIT | RX_FLAG_JIT_FALLBACK;
    CHECK(rx_dataset_init(&fj, g_cache, first, count) == RX_OK);
    rx_execmem_fault_hook = NULL;
    CHECK_MEM(b, a, 64 * count);
    free(a); free(b);
}

/* The vector SuperscalarHash (AVX-512 where the CPU has it, 8 items per
 * group; AVX2, 4, forced by RXLOCK_SUPERSCALAR=avx2) and the scalar JIT
 * (RXLOCK_SUPERSCALAR=scalar) against the
 * portable item function: ranges starting and ending on and off the lane
 * boundaries, the dataset's last items, threads whose ranges start off a
 * group boundary, and a vector block that cannot be sealed. */
#include "rx/jit.h"
static int check_items(const uint8_t *got, uint64_t first, uint64_t count) {
    int bad = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t w[8];
        rx_cache_item(g_cache, first + i, w);
        for (unsigned k = 0; k < 8; k++) {
            uint64_t v = 0;
            for (unsigned q = 0; q < 8; q++) v |= (uint64_t)got[64 * i + 8 * k + q] << (8 * q);
            if (v != w[k]) bad = 1;
        }
    }
    return bad;
}
#if defined(__x86_64__)
static int g_seals;
static int fail_second_seal(int site) { return site == RX_EXECMEM_SITE_SEAL && ++g_seals == 2; }
#endif
static void t_vector_items_equal_portable(void) {
#if !defined(__x86_64__)
    /* no SuperscalarHash JIT here: the vector forms are x86-64 only (the C
     * path's ranges and threads are t_range_build_matches_items' and
     * t_jit_build_equals_c's) */
    rx_jit_ss *none = NULL;
    CHECK(rx_jit_ss_new_dataset(&none, g_cache->prog) == RX_ENOTSUP && none == NULL);
    return;
#endif
    static const uint64_t starts[] = { 0, 1, 7, 8, 9, 123456789 % RX_DATASET_ITEMS, RX_DATASET_ITEMS - 41 };
    static const uint64_t counts[] = { 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 41 };
    uint8_t *buf = malloc(64 * 1100);
    CHECK(buf != NULL);
    if (!buf) return;
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1) setenv("RXLOCK_SUPERSCALAR", "avx2", 1);
        if (pass == 2) setenv("RXLOCK_SUPERSCALAR", "scalar", 1);
        rx_jit_ss *code = NULL;
        int rc = rx_jit_ss_new_dataset(&code, g_cache->prog);
#if defined(__x86_64__)
        CHECK(rc == RX_OK);
        const util_cpufeat *f = util_cpufeat_get();
        const char *want = pass == 0 && f->avx512f && f->avx512dq ? "avx512" :
                           pass < 2 && f->avx2 ? "avx2" : "scalar";
        CHECK(code && strcmp(rx_jit_ss_kind(code), want) == 0);
        fprintf(stderr, "  pass %d: %s\n", pass, code ? rx_jit_ss_kind(code) : "none");
#else
        CHECK(rc == RX_ENOTSUP);
#endif
        for (size_t a = 0; code && a < sizeof starts / sizeof starts[0]; a++)
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                uint64_t first = starts[a], count = counts[c];
                if (first + count > RX_DATASET_ITEMS) continue;
                memset(buf, 0xA5, 64 * (count + 1));
                CHECK(rx_jit_dataset_items(code, g_cache->memory, first, count, buf) == RX_OK);
                CHECK(check_items(buf, first, count) == 0);
                CHECK(buf[64 * count] == 0xA5 && buf[64 * count + 63] == 0xA5);   /* nothing past the end */
            }
        rx_jit_ss_free(code);
        /* threads: 3 ranges of the parallel build, starting at item 5 */
        const uint64_t first = 5, count = 1000 + 3;
        rx_dataset d = { buf - first * 64u, RX_FLAG_JIT };
        memset(buf, 0, 64 * count);
        CHECK(rx_dataset_init_range_parallel(&d, g_cache, first, count, 3) == RX_OK);
        CHECK(check_items(buf, first, count) == 0);
    }
    unsetenv("RXLOCK_SUPERSCALAR");
#if defined(__x86_64__)
    /* the vector block's seal fails: the build fails (no silent fallback) */
    const util_cpufeat *f = util_cpufeat_get();
    if (f->avx512f && f->avx512dq) {
        rx_jit_ss *code = NULL;
        g_seals = 0;
        rx_execmem_fault_hook = fail_second_seal;
        CHECK(rx_jit_ss_new_dataset(&code, g_cache->prog) == RX_EPROT);
        CHECK(code == NULL);
        rx_execmem_fault_hook = NULL;
    }
#endif
    free(buf);
}

/* A clone is the same cache (bytes and programs: same items) in
 * a new allocation; an uninitialised cache cannot be cloned. */
static void t_clone(void) {
    rx_cache *c = NULL, *fresh = NULL;
    CHECK(rx_cache_clone(&c, g_cache) == RX_OK && c);
    if (!c) return;
    CHECK(c->memory != g_cache->memory && c->flags == g_cache->flags && c->initialized);
    CHECK(memcmp(c->memory, g_cache->memory, RX_CACHE_SIZE) == 0);
    CHECK(memcmp(c->prog, g_cache->prog, sizeof c->prog) == 0);
    for (uint64_t i = 0; i < 64; i++) {
        uint64_t a[8], b[8], item = i * 532477u + 7;
        rx_cache_item(g_cache, item, a);
        rx_cache_item(c, item, b);
        CHECK_MEM(a, b, sizeof a);
    }
    rx_cache_free(c);
    c = (rx_cache *)1;
    CHECK(rx_cache_clone(&c, NULL) == RX_EINVAL && c == NULL);
    CHECK(rx_cache_clone(NULL, g_cache) == RX_EINVAL);
    CHECK(rx_cache_new(&fresh, 0) == RX_OK);
    c = (rx_cache *)1;
    CHECK(rx_cache_clone(&c, fresh) == RX_ESTATE && c == NULL);
    rx_cache_free(fresh);
    rx_dataset *d = (rx_dataset *)1;
    CHECK(rx_dataset_clone(&d, NULL) == RX_EINVAL && d == NULL);
    CHECK(rx_dataset_clone(NULL, NULL) == RX_EINVAL);
}

int main(void) {
    if (sodium_init() < 0) { fprintf(stderr, "sodium_init failed\n"); return 1; }
    CHECK(rx_cache_new(&g_cache, 0) == RX_OK);
    if (!g_cache) return test_summary();
    double t0 = now_s();
    int rc = rx_cache_init(g_cache, TEST_KEY, strlen(TEST_KEY));
    double t1 = now_s();
    if (rc != RX_OK) { fprintf(stderr, "rx_cache_init failed: %d\n", rc); return 1; }
    fprintf(stderr, "  cache init (%s): %.3f s\n", rx_argon2d_impl_name(RX_ARGON2_AUTO), t1 - t0);

    RUN(t_components);
    RUN(t_reciprocal_random);
    RUN(t_dataset_items);
    RUN(t_range_build_matches_items);
    RUN(t_jit_build_equals_c);
    RUN(t_vector_items_equal_portable);
    RUN(t_lanes_equal_scalar);
    RUN(t_argon2_impls_small);
    RUN(t_argon2_impls_full);
    RUN(t_key_lengths);
    RUN(t_errors);
    RUN(t_clone);
    RUN(t_thp_alignment);
    RUN(t_wipe_on_free);
    rx_cache_free(g_cache);
    return test_summary();
}
