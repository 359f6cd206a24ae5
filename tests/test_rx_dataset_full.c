/* SPDX-License-Identifier: ISC */
/* tests/test_rx_dataset_full.c — (make check-full) the full 2080 MiB
 * dataset for key "test key 000" built with rx_dataset_init_parallel on 2
 * threads, as the product builds it (RX_FLAG_JIT: through the SuperscalarHash
 * JIT where one exists): items against randomx-dataset-items.tsv and
 * rx_cache_item (the portable path),
 * fork() children reading the same pages, a clone, and the wipe
 * on free. */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/internal.h"
#include "rx/cache_internal.h"
#include <sodium.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static rx_cache *g_cache;
static rx_dataset *g_ds;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int item_row(char **f, int nf, void *vctx) {
    int *rows = vctx;
    if (nf < 3) return 0;
    uint8_t want[64];
    uint64_t item = strtoull(f[1], NULL, 10);
    CHECK(item < RX_DATASET_ITEMS);
    CHECK(test_unhex(f[2], want, sizeof want) == 64);
    if (item < RX_DATASET_ITEMS) CHECK_MEM(rx_dataset_bytes(g_ds) + item * 64, want, 64);
    (*rows)++;
    return 0;
}

static void t_vectors(void) {
    int rows = 0;
    CHECK(test_tsv_each("randomx-dataset-items.tsv", item_row, &rows) == 64);
    CHECK(rows == 64);
}

/* Spot checks against light mode: every thread boundary, the ends, and
 * pseudo-random items. */
static void check_item(uint64_t i) {
    uint64_t w[8];
    uint8_t want[64];
    rx_cache_item(g_cache, i, w);
    for (unsigned k = 0; k < 8; k++)
        for (unsigned b = 0; b < 8; b++) want[8 * k + b] = (uint8_t)(w[k] >> (8 * b));
    CHECK_MEM(rx_dataset_bytes(g_ds) + i * 64, want, 64);
}

static void t_light_equals_full(void) {
    const uint64_t n = RX_DATASET_ITEMS, half = n / 16 / 2 * 16;
    for (uint64_t d = 0; d < 40; d++) {
        if (d < n) check_item(d);
        check_item(n - 1 - d);
        if (half >= 20) check_item(half - 20 + d);
    }
    uint64_t s = 12345;
    for (int i = 0; i < 20000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        check_item((s >> 11) % n);
    }
}

/* Children after fork() read the parent's dataset (shared pages). */
static void t_fork_shares(void) {
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        uint64_t w[8];
        rx_cache_item(g_cache, RX_DATASET_ITEMS - 1, w);
        _exit(memcmp(rx_dataset_bytes(g_ds) + (RX_DATASET_ITEMS - 1) * 64, w, 64) == 0 ? 0 : 1);
    }
    int st = 0;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* A clone is the same 2080 MiB in a new allocation (copied on
 * every usable CPU), and a full-mode VM on it hashes the same. */
static void t_clone(void) {
    rx_dataset *c = NULL;
    CHECK(rx_dataset_clone(&c, g_ds) == RX_OK && c);
    if (!c) return;
    CHECK(rx_dataset_bytes(c) != rx_dataset_bytes(g_ds));
    CHECK(memcmp(rx_dataset_bytes(c), rx_dataset_bytes(g_ds), (size_t)RX_DATASET_ITEMS * 64) == 0);
    unsigned fl = RX_FLAG_V2 | RX_FLAG_FULL;
    rx_vm *a = NULL, *b = NULL;
    CHECK(rx_vm_new(&a, fl, g_cache, g_ds) == RX_OK && rx_vm_new(&b, fl, g_cache, c) == RX_OK);
    if (a && b) {
        uint8_t ha[32], hb[32];
        CHECK(rx_vm_hash(a, "clone", 5, ha) == RX_OK && rx_vm_hash(b, "clone", 5, hb) == RX_OK);
        CHECK_MEM(ha, hb, 32);
    }
    rx_vm_free(a);
    rx_vm_free(b);
    rx_dataset_free(c);
}

/* rx_dataset_free wipes (checked by the hook before unmapping). */
static int wipe_calls, wipe_dirty;
static void wipe_hook(const void *p, size_t size) {
    const uint64_t *w = p;
    wipe_calls++;
    for (size_t i = 0; i < size / 8; i++) if (w[i]) { wipe_dirty++; break; }
}

static void t_wipe(void) {
    rx_mem_free_hook = wipe_hook;
    rx_dataset_free(g_ds);
    g_ds = NULL;
    rx_mem_free_hook = NULL;
    CHECK(wipe_calls == 2);
    CHECK(wipe_dirty == 0);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    if (!test_full()) {
        fprintf(stderr, "test_rx_dataset_full: RXLOCK_TEST_FULL not set, skipping\n");
        return test_summary();
    }
    CHECK(rx_cache_new(&g_cache, 0) == RX_OK);
    if (!g_cache) return test_summary();
    double t0 = now_s();
    CHECK(rx_cache_init(g_cache, "test key 000", 12) == RX_OK);
    double t1 = now_s();
    int rc = rx_dataset_new(&g_ds, RX_FLAG_JIT);
    CHECK(rc == RX_OK);
    if (rc != RX_OK) { rx_cache_free(g_cache); return test_summary(); }
    double t2 = now_s();
    CHECK(rx_dataset_init_parallel(g_ds, g_cache, 2) == RX_OK);
    double t3 = now_s();
    fprintf(stderr, "  cache init %.2f s; full dataset build, 2 threads: %.2f s\n", t1 - t0, t3 - t2);
    RUN(t_vectors);
    RUN(t_light_equals_full);
    RUN(t_fork_shares);
    RUN(t_clone);
    RUN(t_wipe);
    rx_cache_free(g_cache);
    return test_summary();
}
