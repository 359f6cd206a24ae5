/* SPDX-License-Identifier: ISC */
/* bench/bench_memcost.c — what this machine charges for the three things a
 * full-mode RandomX loop and a secure JIT cannot avoid (the full-mode cost study), measured
 * without RandomX:
 *
 *   latency   a dependent chain of random 8-byte loads over a 2048 MiB region:
 *             ns per load (the dataset read with no prefetch ahead of it)
 *   prefetch  core time one prefetchnta to a random line of the region adds to
 *             K*4 independent single-cycle adds (no load depends on it):
 *             ns(work + prefetch) - ns(work), for K = 100 and 300
 *   flip      mprotect of a 2-page JIT region RX->RW and RW->RX (the secure
 *             JIT's two flips per program), warm (back to back) and cold
 *             (after an 8 MiB memset, as after a RandomX program)
 *
 * The region is madvise(MADV_HUGEPAGE)'d, or MADV_NOHUGEPAGE with --nothp.
 * JSON lines on stdout.  usage: bench_memcost [--nothp] [-m MiB]
 */
#include "util/util.h"
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static uint64_t rng(uint64_t *s) {           /* splitmix64 */
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

#if defined(__x86_64__)
#define PREFETCH(p) __asm__ volatile("prefetchnta (%0)" : : "r"(p))
#define WORK4(a, b, c, d) __asm__ volatile("add $1,%0\n\tadd $1,%1\n\tadd $1,%2\n\tadd $1,%3" \
                                           : "+r"(a), "+r"(b), "+r"(c), "+r"(d))
#elif defined(__aarch64__)
#define PREFETCH(p) __asm__ volatile("prfm pldl1strm, [%0]" : : "r"(p))
#define WORK4(a, b, c, d) __asm__ volatile("add %0,%0,#1\n\tadd %1,%1,#1\n\tadd %2,%2,#1\n\tadd %3,%3,#1" \
                                           : "+r"(a), "+r"(b), "+r"(c), "+r"(d))
#else
#define PREFETCH(p) __builtin_prefetch((p), 0, 0)
#define WORK4(a, b, c, d) do { a++; b++; c++; d++; __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d)); } while (0)
#endif

/* ns per iteration of: [prefetch a random line]; K x WORK4 */
static double prefetch_loop(const uint8_t *d, const uint64_t *off, long n, int k, int pf) {
    uint64_t a = 1, b = 2, c = 3, e = 4;
    double s = (double)util_now_ns();
    for (long i = 0; i < n; i++) {
        if (pf) PREFETCH(d + off[i]);
        for (int j = 0; j < k; j++) WORK4(a, b, c, e);
    }
    double t = ((double)util_now_ns() - s) / (double)n;
    if (a + b + c + e == 0) puts("");        /* keep the work */
    return t;
}

int main(int argc, char **argv) {
    int thp = 1;
    size_t mib = 2048;
    static const struct option lo[] = { { "nothp", no_argument, 0, 'p' }, { 0, 0, 0, 0 } };
    int o;
    while ((o = getopt_long(argc, argv, "m:", lo, NULL)) != -1) {
        if (o == 'p') thp = 0;
        else if (o == 'm') mib = (size_t)atol(optarg);
        else { fprintf(stderr, "usage: bench_memcost [--nothp] [-m MiB]\n"); return 2; }
    }
    if (mib < 64 || mib > 65536) { fprintf(stderr, "bench_memcost: -m between 64 and 65536\n"); return 2; }
    size_t size = mib << 20;
    uint8_t *d = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (d == MAP_FAILED) { perror("mmap"); return 1; }
    (void)madvise(d, size, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    for (size_t i = 0; i < size; i += 4096) d[i] = 1;
    uint64_t seed = 42;

    /* latency: each load's address comes from the previous load's value,
     * a cycle through 2^20 lines scattered by a bijective 64-bit-free mix
     * of the line number (no stride a prefetcher could follow) */
    const uint64_t lines = size / 64, M = 1u << 20;
    unsigned bits = 0;
    while (((uint64_t)1 << (bits + 1)) <= lines) bits++;
    const uint64_t lmask = ((uint64_t)1 << bits) - 1;
    uint64_t first = 0, prev = 0;
    for (uint64_t k = 0; k < M; k++) {
        uint64_t x = k * (lines / M);          /* spread, then mix (bijective on bits) */
        for (int r = 0; r < 3; r++) { x ^= x >> (bits / 2); x = (x * 0x9E3779B97F4A7C15ull) & lmask; }
        if (k == 0) first = x; else *(uint64_t *)(d + prev * 64) = x * 64;
        prev = x;
    }
    *(uint64_t *)(d + prev * 64) = first * 64;
    const long nl = 400000;
    uint64_t p = first * 64;
    double s = (double)util_now_ns();
    for (long i = 0; i < nl; i++) p = *(volatile uint64_t *)(d + p);
    double lat = ((double)util_now_ns() - s) / (double)nl;
    printf("{\"event\":\"latency\",\"thp\":%d,\"region_mib\":%zu,\"ns_per_load\":%.1f,\"end\":%llu}\n",
           thp, mib, lat, (unsigned long long)(p & 1));

    /* prefetch: core time per prefetch on top of independent work */
    const long np = 1 << 20;
    uint64_t *off = malloc((size_t)np * sizeof *off);
    if (!off) return 1;
    for (long i = 0; i < np; i++) off[i] = (rng(&seed) % (size / 64)) * 64;
    static const int ks[2] = { 100, 300 };
    for (int j = 0; j < 2; j++) {
        double w[3], wp[3];
        for (int r = 0; r < 3; r++) {          /* A B, B A, A B: take the minimum of each */
            if (r & 1) { wp[r] = prefetch_loop(d, off, np / 4, ks[j], 1); w[r] = prefetch_loop(d, off, np / 4, ks[j], 0); }
            else { w[r] = prefetch_loop(d, off, np / 4, ks[j], 0); wp[r] = prefetch_loop(d, off, np / 4, ks[j], 1); }
        }
        double mw = w[0], mwp = wp[0];
        for (int r = 1; r < 3; r++) { if (w[r] < mw) mw = w[r]; if (wp[r] < mwp) mwp = wp[r]; }
        printf("{\"event\":\"prefetch\",\"thp\":%d,\"region_mib\":%zu,\"work_uops\":%d,\"ns_work\":%.1f,"
               "\"ns_work_plus_prefetch\":%.1f,\"ns_per_prefetch\":%.1f}\n",
               thp, mib, 4 * ks[j], mw, mwp, mwp - mw);
    }
    free(off);
    munmap(d, size);

    /* flip: two pages between guard pages, RX <-> RW */
    const size_t pg = 4096;
    uint8_t *m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) { perror("mmap"); return 1; }
    memset(m, 0xCC, 4 * pg);
    if (mprotect(m, pg, PROT_NONE) || mprotect(m + 3 * pg, pg, PROT_NONE) ||
        mprotect(m + pg, 2 * pg, PROT_READ | PROT_EXEC)) { perror("mprotect"); return 1; }
    size_t tsz = (size_t)8 << 20;
    uint8_t *trash = malloc(tsz);
    if (!trash) return 1;
    for (int cold = 0; cold < 2; cold++) {
        double to = 0, ts = 0;
        const int nf = 4000;
        for (int i = 0; i < nf; i++) {
            if (cold) memset(trash, i, tsz);
            double a = (double)util_now_ns();
            if (mprotect(m + pg, 2 * pg, PROT_READ | PROT_WRITE)) { perror("mprotect"); return 1; }
            double b = (double)util_now_ns();
            memset(m + pg, 0xC3, 2 * pg);
            double c = (double)util_now_ns();
            if (mprotect(m + pg, 2 * pg, PROT_READ | PROT_EXEC)) { perror("mprotect"); return 1; }
            double e = (double)util_now_ns();
            to += b - a;
            ts += e - c;
        }
        printf("{\"event\":\"flip\",\"pages\":2,\"cold\":%d,\"us_open\":%.2f,\"us_seal\":%.2f}\n",
               cold, to / nf / 1e3, ts / nf / 1e3);
    }
    free(trash);
    munmap(m, 4 * pg);
    return 0;
}
