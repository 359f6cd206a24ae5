/* SPDX-License-Identifier: ISC */
/* bench/bench_stall.c — where the x86-64 JIT's full-mode loop spends its
 * time (the full-mode cost study): one dataset, one VM, the same dependent chain (the 68-byte
 * message of bench.c) run in six loop variants of the test build
 * (rx_jit_test_stall, src/rx/jit.h), alternating A B C D E F, F E D C B A, ...:
 *
 *   product  the shipped loop                              (right digest)
 *   tiny     dataset reads and prefetches within 16 KiB:   compute only
 *   pfonly   prefetches at the real addresses, reads tiny: compute + prefetches
 *   nopf     no dataset prefetch                           (right digest)
 *   delay    20 dependent imuls (~20 ns) before the program, on every
 *            register's chain                              (right digest)
 *   nops     64 one-byte nops before the program: reorder-buffer entries,
 *            almost no execution                           (right digest)
 *
 * product/nopf/delay/nops must end on one digest and tiny/pfonly on another, or
 * the bench exits 1.  Linked against the test library (build/librxlock-test.a);
 * nothing of it is in the product.  JSON lines on stdout, one per run, then
 * one "summary" per variant (median H/s, ns per loop iteration = 1e9 / (H/s *
 * 16384), an upper bound that includes the per-hash AES, Blake2b and compile).
 *
 * usage: bench_stall [-n HASHES] [-r REPS] [-t THREADS] [--v1] [--nothp]
 */
#include "rxlock/rx.h"
#include "rx/jit.h"
#include <stdio.h>
#if !defined(__x86_64__)
int main(void) { puts("{\"event\":\"skip\",\"why\":\"x86-64 JIT only\"}"); return 0; }
#else
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rxlock/rxlock.h"
#include "util/util.h"

#define NV 6
static const char *const names[NV] = { "product", "tiny", "pfonly", "nopf", "delay", "nops" };
static const unsigned modes[NV] = { RX_JIT_STALL_NONE, RX_JIT_STALL_TINY, RX_JIT_STALL_PF_ONLY,
                                    RX_JIT_STALL_NO_PF, RX_JIT_STALL_DELAY, RX_JIT_STALL_NOPS };
/* the digest class of each variant: 0 = the right hash, 1 = tiny reads */
static const int klass[NV] = { 0, 1, 1, 0, 0, 0 };

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* the bench's chain, group 1, from d_0 = 42..42 */
static void chain(rx_vm *vm, long n, uint8_t d[32]) {
    uint8_t m[68];
    memset(d, 0x42, 32);
    for (long i = 0; i < n; i++) {
        tl_chain_message(m, 1, (uint64_t)i, d);
        if (rx_vm_hash(vm, m, sizeof m, d) != RX_OK) { fprintf(stderr, "bench_stall: hash failed\n"); exit(1); }
    }
}

int main(int argc, char **argv) {
    long n = 300;
    int reps = 4, v1 = 0, nothp = 0;
    unsigned threads = 2;
    static const struct option lo[] = { { "v1", no_argument, 0, '1' }, { "nothp", no_argument, 0, 'p' },
                                         { 0, 0, 0, 0 } };
    int c;
    while ((c = getopt_long(argc, argv, "n:r:t:", lo, NULL)) != -1) {
        switch (c) {
        case 'n': n = atol(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 't': threads = (unsigned)atoi(optarg); break;
        case '1': v1 = 1; break;
        case 'p': nothp = 1; break;
        default:
            fprintf(stderr, "usage: bench_stall [-n HASHES] [-r REPS] [-t THREADS] [--v1] [--nothp]\n");
            return 2;
        }
    }
    if (n < 1 || reps < 1 || reps > 64 || threads < 1) { fprintf(stderr, "bench_stall: bad -n/-r/-t\n"); return 2; }
    unsigned flags = RX_FLAG_FULL | RX_FLAG_JIT | RX_FLAG_SECURE | (v1 ? 0u : RX_FLAG_V2) |
                     (nothp ? RX_FLAG_NO_THP : 0u);
    uint8_t key[32];
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
    rx_cache *cache = NULL;
    rx_dataset *ds = NULL;
    rx_vm *vm = NULL;
    double t0 = util_now();
    if (rx_cache_new(&cache, flags) || rx_cache_init(cache, key, sizeof key) ||
        rx_dataset_new(&ds, flags) || rx_dataset_init_parallel(ds, cache, threads) ||
        rx_vm_new(&vm, flags, cache, ds)) {
        fprintf(stderr, "bench_stall: setup failed (full mode needs ~2.3 GiB)\n");
        return 1;
    }
    printf("{\"event\":\"setup\",\"version\":%d,\"thp\":%d,\"dataset_s\":%.1f,\"hashes\":%ld,\"reps\":%d}\n",
           v1 ? 1 : 2, !nothp, util_now() - t0, n, reps);
    fflush(stdout);
    double hps[NV][64];
    uint8_t dig[NV][32];
    uint8_t ref[2][32];
    int have[2] = { 0, 0 }, bad = 0;
    rx_jit_test_stall = RX_JIT_STALL_NONE;
    uint8_t d[32];
    chain(vm, n / 8 + 1, d);                           /* warm-up */
    for (int r = 0; r < reps; r++) {
        for (int k = 0; k < NV; k++) {
            int v = (r & 1) ? NV - 1 - k : k;
            rx_jit_test_stall = modes[v];
            double s = util_now();
            chain(vm, n, d);
            double secs = util_now() - s;
            hps[v][r] = (double)n / secs;
            memcpy(dig[v], d, 32);
            int kl = klass[v];
            if (!have[kl]) { memcpy(ref[kl], d, 32); have[kl] = 1; }
            else if (memcmp(ref[kl], d, 32) != 0) bad = 1;
            char h[65];
            util_hex_encode(h, d, 32);
            printf("{\"event\":\"run\",\"variant\":\"%s\",\"rep\":%d,\"seconds\":%.4f,\"hps\":%.2f,\"digest\":\"%s\"}\n",
                   names[v], r, secs, hps[v][r], h);
            fflush(stdout);
        }
    }
    rx_jit_test_stall = RX_JIT_STALL_NONE;
    for (int v = 0; v < NV; v++) {
        double a[64];
        memcpy(a, hps[v], sizeof(double) * (size_t)reps);
        qsort(a, (size_t)reps, sizeof a[0], cmp_d);
        double med = reps % 2 ? a[reps / 2] : (a[reps / 2 - 1] + a[reps / 2]) / 2;
        char h[65];
        util_hex_encode(h, dig[v], 32);
        printf("{\"event\":\"summary\",\"variant\":\"%s\",\"version\":%d,\"thp\":%d,\"median_hps\":%.2f,"
               "\"ns_per_iteration\":%.1f,\"digest\":\"%s\"}\n",
               names[v], v1 ? 1 : 2, !nothp, med, 1e9 / (med * 16384.0), h);
    }
    rx_vm_free(vm);
    rx_dataset_free(ds);
    rx_cache_free(cache);
    if (bad) { fprintf(stderr, "bench_stall: DIGEST MISMATCH within a digest class\n"); return 1; }
    return 0;
}
#endif
