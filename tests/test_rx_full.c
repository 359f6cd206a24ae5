/* SPDX-License-Identifier: ISC */
/* tests/test_rx_full.c — full mode (make check-full): datasets built with
 * 2 threads; the official v1/v2 vectors with software and hardware AES,
 * the long dependent chains of randomx-chain.tsv (100 and 1000 steps),
 * the benchmark-xor1000 v1/v2 reference results, full == light on a few
 * inputs, and the full-mode error paths.  One dataset (2080 MiB) at a time. */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/cpu.h"
#include <time.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }
static rx_cache *g_cache;
static rx_dataset *g_ds;

/* This thread's CPU time: rates that do not depend on how loaded the box is. */
static double cpu_now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return (double)t.tv_sec + (double)t.tv_nsec / 1e9; }

/* Interpreter rates, one thread, dependent hashes (each input = the last
 * digest), light and full mode, v1 and v2. */
static void rates(void) {
    const int n_full = 200, n_light = 30;
    for (int mode = 0; mode < 2; mode++)
    for (int v = 1; v <= 2; v++) {
        rx_vm *vm = NULL;
        unsigned fl = (v == 2 ? RX_FLAG_V2 : 0) | (rx_cpu_has_hw_aes() ? RX_FLAG_HARD_AES : 0);
        int rc = mode ? rx_vm_new(&vm, fl | RX_FLAG_FULL, NULL, g_ds) : rx_vm_new(&vm, fl, g_cache, NULL);
        CHECK(rc == RX_OK);
        if (rc) continue;
        int n = mode ? n_full : n_light;
        uint8_t d[32] = {0};
        double w0 = now(), c0 = cpu_now();
        for (int i = 0; i < n; i++) CHECK(rx_vm_hash(vm, d, 32, d) == RX_OK);
        double w = now() - w0, c = cpu_now() - c0;
        fprintf(stderr, "rate: v%d %s mode interpreter: %.1f H/s per CPU-second (%.1f H/s wall), %d hashes\n",
                v, mode ? "full" : "light", n / c, n / w, n);
        rx_vm_free(vm);
    }
}


static int build(const uint8_t *key, size_t klen) {
    rx_dataset_free(g_ds); g_ds = NULL;
    rx_cache_free(g_cache); g_cache = NULL;
    double t0 = now();
    int rc = rx_cache_new(&g_cache, 0);
    if (rc == RX_OK) rc = rx_cache_init(g_cache, key, klen);
    if (rc == RX_OK) rc = rx_dataset_new(&g_ds, 0);
    if (rc == RX_OK) rc = rx_dataset_init_parallel(g_ds, g_cache, 2);
    fprintf(stderr, "dataset (key %zu bytes) built with 2 threads in %.1f s\n", klen, now() - t0);
    return rc;
}

static int full_vm(rx_vm **vm, unsigned flags) { return rx_vm_new(vm, flags | RX_FLAG_FULL, NULL, g_ds); }

/* ---- official vectors of one key ------------------------------------ */
struct ofc { const uint8_t *key; size_t klen; unsigned v2; int rows; };
static int official_row(char **f, int nf, void *vctx) {
    struct ofc *ctx = vctx;
    uint8_t key[64], in[1024], want[32], got[32];
    if (nf < 3) return 0;
    long kl = test_unhex(f[0], key, sizeof key), il = test_unhex(f[1], in, sizeof in);
    if (kl != (long)ctx->klen || memcmp(key, ctx->key, ctx->klen)) return 0;
    CHECK(il >= 0 && test_unhex(f[2], want, 32) == 32);
    unsigned aes[2] = {RX_FLAG_SOFT_AES, RX_FLAG_HARD_AES};
    for (int a = 0; a < (rx_cpu_has_hw_aes() ? 2 : 1); a++) {
        rx_vm *vm = NULL;
        CHECK(full_vm(&vm, ctx->v2 | aes[a]) == RX_OK);
        CHECK(rx_vm_flags(vm) & RX_FLAG_FULL);
        CHECK(rx_vm_hash(vm, in, (size_t)il, got) == RX_OK);
        CHECK_MEM(got, want, 32);
        rx_vm_free(vm);
    }
    ctx->rows++;
    return 0;
}
static int official(const uint8_t *key, size_t klen) {
    struct ofc c1 = {key, klen, 0, 0}, c2 = {key, klen, RX_FLAG_V2, 0};
    test_tsv_each("randomx-v1.tsv", official_row, &c1);
    test_tsv_each("randomx-v2.tsv", official_row, &c2);
    CHECK(c1.rows == c2.rows);
    return c1.rows + c2.rows;
}

/* ---- chains ---------------------------------------------------------- */
static int run_chain(rx_vm *vm, uint64_t steps, uint8_t d[32]) {
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
struct chc { const uint8_t *key; size_t klen; int rows; double secs; uint64_t hashes; };
static int chain_row(char **f, int nf, void *vctx) {
    struct chc *ctx = vctx;
    uint8_t key[64], want[32], got[32];
    if (nf < 4) return 0;
    long kl = test_unhex(f[1], key, sizeof key);
    if (kl != (long)ctx->klen || memcmp(key, ctx->key, ctx->klen)) return 0;
    uint64_t steps = strtoull(f[2], NULL, 10);
    if (steps < 100) return 0;   /* the short ones run in make check */
    CHECK(test_unhex(f[3], want, 32) == 32);
    rx_vm *vm = NULL;
    CHECK(full_vm(&vm, strcmp(f[0], "v2") == 0 ? RX_FLAG_V2 : 0) == RX_OK);
    double t0 = now();
    CHECK(run_chain(vm, steps, got) == RX_OK);
    ctx->secs += now() - t0; ctx->hashes += steps;
    CHECK_MEM(got, want, 32);
    rx_vm_free(vm);
    ctx->rows++;
    return 0;
}
static int chains(const uint8_t *key, size_t klen) {
    struct chc c = {key, klen, 0, 0, 0};
    test_tsv_each("randomx-chain.tsv", chain_row, &c);
    if (c.hashes) fprintf(stderr, "chains: %llu dependent hashes, %.1f H/s (full mode, interpreter)\n",
                          (unsigned long long)c.hashes, (double)c.hashes / c.secs);
    return c.rows;
}

/* ---- benchmark-xor1000 ----------------------------------------------- */
static int bench_row(char **f, int nf, void *ctx) {
    int *rows = ctx;
    if (nf < 3 || strncmp(f[0], "benchmark-xor1000-v", 19) != 0) return 0;
    unsigned v2 = f[0][19] == '2' ? RX_FLAG_V2 : 0;
    const char *tp = strstr(f[1], "template=");
    CHECK(tp != NULL);
    if (!tp) return 0;
    char hex[256];
    snprintf(hex, sizeof hex, "%s", tp + 9);
    char *semi = strchr(hex, ';'); if (semi) *semi = 0;
    uint8_t tmpl[128], want[32], acc[32] = {0}, h[32];
    long tl = test_unhex(hex, tmpl, sizeof tmpl);
    CHECK(tl == 76 && test_unhex(f[2], want, 32) == 32);
    rx_vm *vm = NULL;
    CHECK(full_vm(&vm, v2) == RX_OK);
    double t0 = now();
    for (uint32_t n = 0; n < 1000 && vm; n++) {
        for (int b = 0; b < 4; b++) tmpl[39 + b] = (uint8_t)(n >> (8 * b));
        CHECK(rx_vm_hash(vm, tmpl, (size_t)tl, h) == RX_OK);
        for (int b = 0; b < 32; b++) acc[b] ^= h[b];
    }
    fprintf(stderr, "benchmark v%d: 1000 hashes, %.1f H/s (full mode, interpreter)\n", v2 ? 2 : 1, 1000 / (now() - t0));
    CHECK_MEM(acc, want, 32);
    rx_vm_free(vm);
    (*rows)++;
    return 0;
}

/* ---- full == light ---------------------------------------------------- */
static void full_vs_light(void) {
    rx_vm *f = NULL, *l = NULL;
    CHECK(full_vm(&f, RX_FLAG_V2) == RX_OK);
    CHECK(rx_vm_new(&l, RX_FLAG_V2, g_cache, NULL) == RX_OK);
    for (int i = 0; i < 4 && f && l; i++) {
        uint8_t in[100], a[32], b[32];
        for (int j = 0; j < 100; j++) in[j] = (uint8_t)(i * 31 + j);
        CHECK(rx_vm_hash(f, in, (size_t)(i * 33), a) == RX_OK);
        CHECK(rx_vm_hash(l, in, (size_t)(i * 33), b) == RX_OK);
        CHECK_MEM(a, b, 32);
    }
    rx_vm_free(f); rx_vm_free(l);
    /* full flag without dataset, light without cache */
    rx_vm *vm = NULL;
    CHECK(rx_vm_new(&vm, RX_FLAG_FULL, g_cache, NULL) == RX_ESTATE);
    CHECK(rx_vm_new(&vm, 0, NULL, g_ds) == RX_ESTATE);
}

static void t_full(void) {
    static const uint8_t k000[] = "test key 000", k001[] = "test key 001", kzero[4] = {0};
    uint8_t k42[32];
    memset(k42, 0x42, 32);
    int off = 0, ch = 0, bench = 0;

    CHECK(build(k000, 12) == RX_OK);
    off += official(k000, 12);
    full_vs_light();
    rates();
    ch += chains(k000, 12);

    CHECK(build(k001, 12) == RX_OK);
    off += official(k001, 12);

    CHECK(build(k42, 32) == RX_OK);
    ch += chains(k42, 32);

    CHECK(build(kzero, 4) == RX_OK);
    CHECK(test_tsv_each("randomx-components.tsv", bench_row, &bench) > 0);

    CHECK(off == 10);
    CHECK(ch == 8);
    CHECK(bench == 2);
    rx_dataset_free(g_ds); g_ds = NULL;
    rx_cache_free(g_cache); g_cache = NULL;
}

int main(void) {
    if (!test_full()) {
        fprintf(stderr, "test_rx_full: set RXLOCK_TEST_FULL=1 (make check-full); skipped\n");
        return test_summary();
    }
    RUN(t_full);
    return test_summary();
}
