/* SPDX-License-Identifier: ISC */
/* bench/bench_dataset.c — cache init and dataset build: rxlock's engine vs
 * Debian's librandomx (1.1.10) in one run, same key, same thread count.
 *
 *   build/bench/bench_dataset [-t THREADS] [-n ITEMS] [-r REPEATS] [-s] [-p]
 *   build/bench/bench_dataset -v [-t THREADS] [-n ITEMS] [-r PAIRS] [-p]
 *   build/bench/bench_dataset -x [-t THREADS] [-r RUNS] [-p] [-c]
 *
 * -v: our SuperscalarHash JIT's forms only, paired in this process: the
 * scalar JIT and each vector form the CPU has (RXLOCK_SUPERSCALAR=scalar,
 * avx2, avx512), in the order A B C C B A, PAIRS times (-r, default 3),
 * each into its own pre-faulted dataset; prints every build, the summed
 * wall and CPU times and their ratio to the scalar JIT's, each dataset's
 * huge-page share (AnonHugePages of its mapping) and the load average
 * before and after, and compares the datasets byte for byte (exit 1 if
 * they differ).
 *
 * -x: what XMRig's "dataset ready" times, for a side by side run (see
 * xmrig_span below and bench/README.md).
 *
 * -n builds only the first ITEMS items (default: the whole dataset);
 * -s skips the reference's interpreted (RANDOMX_FLAG_DEFAULT) dataset build;
 * -p puts our cache and datasets on 4 KiB pages (RX_FLAG_NO_THP), as the
 * reference's are unless GLIBC_TUNABLES=glibc.malloc.hugetlb=1 is set.
 * Cache init: median of REPEATS (default 3) for each Argon2 variant, a
 * different key each time (librandomx skips a re-init with the same key).
 * Dataset: ours (rx_dataset_init over THREADS pthreads, like
 * rx_dataset_init_parallel; the C path and the RX_FLAG_JIT path) vs
 * randomx_init_dataset over the same split,
 * with RANDOMX_FLAG_DEFAULT (interpreted SuperscalarHash) and
 * RANDOMX_FLAG_JIT; the results are compared byte for byte.  Ours is
 * labelled by the form that ran: "(JIT avx512)", "(JIT avx2)", "(JIT
 * scalar)", or "(JIT C)" where there is no SuperscalarHash JIT. */
#include "rxlock/rx.h"
#include "rx/internal.h"
#include "rx/argon2d.h"
#include "rx/cache_internal.h"
#include "rx/jit.h"
#include "util/util.h"
#include <randomx.h>
#include <sodium.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>

static const char KEY[] = "test key 000";

/* user + system CPU seconds of the whole process (all threads) */
static double cpu_s(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}
static double g_cpu;
static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}   /* CPU seconds of the last build() */

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) { qsort(v, (size_t)n, sizeof *v, cmp_d); return v[n / 2]; }

typedef struct job {
    int ours;
    rx_dataset *ds; const rx_cache *cache;
    randomx_dataset *rds; randomx_cache *rcache;
    uint64_t first, count;
} job;

static void *run_job(void *arg) {
    job *j = arg;
    if (j->ours) {
        if (rx_dataset_init(j->ds, j->cache, j->first, j->count) != 0) fprintf(stderr, "rx_dataset_init failed\n");
    } else {
        randomx_init_dataset(j->rds, j->rcache, (unsigned long)j->first, (unsigned long)j->count);
    }
    return NULL;
}

/* Split [0, items) into `threads` ranges (multiples of 8 items) and run. */
static double build(int ours, unsigned threads, uint64_t items, rx_dataset *ds, const rx_cache *c,
                    randomx_dataset *rds, randomx_cache *rc) {
    job jobs[256];
    pthread_t tid[256];
    uint64_t per = items / threads / 8 * 8, pos = 0;
    for (unsigned t = 0; t < threads; t++) {
        jobs[t] = (job){ ours, ds, c, rds, rc, pos, t + 1 == threads ? items - pos : per };
        pos += per;
    }
    double t0 = util_now(), c0 = cpu_s();
    for (unsigned t = 1; t < threads; t++)
        if (pthread_create(&tid[t], NULL, run_job, &jobs[t]) != 0) { perror("pthread_create"); exit(1); }
    run_job(&jobs[0]);
    for (unsigned t = 1; t < threads; t++) pthread_join(tid[t], NULL);
    g_cpu = cpu_s() - c0;
    return util_now() - t0;
}

/* kB of AnonHugePages in the mapping that contains p (/proc/self/smaps) */
static long thp_kb(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0;
    long kb = -1;
    uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') == line + strcspn(line, "-")) {
            in = a >= lo && a < hi;
            continue;
        }
        if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) break;
    }
    fclose(f);
    return kb;
}
static void loadavg(char out[64]) {
    FILE *f = fopen("/proc/loadavg", "r");
    out[0] = 0;
    if (f) { if (!fgets(out, 64, f)) out[0] = 0; fclose(f); }
    out[strcspn(out, "\n")] = 0;
}

/* The SuperscalarHash form an RX_FLAG_JIT dataset build runs whole groups
 * with right now (the CPU probe and RXLOCK_SUPERSCALAR): "avx512", "avx2",
 * "scalar", or "C" where there is no SuperscalarHash JIT (not x86-64: the
 * build takes the C path).  NULL (after a message) if the JIT failed. */
static const char *ss_form(const rx_cache *c) {
    static char name[16];
    rx_jit_ss *probe = NULL;
    int rc = rx_jit_ss_new_dataset(&probe, c->prog);
    if (rc == RX_ENOTSUP) return "C";
    if (rc != 0) { fprintf(stderr, "superscalar JIT failed\n"); return NULL; }
    snprintf(name, sizeof name, "%s", rx_jit_ss_kind(probe));
    rx_jit_ss_free(probe);
    return name;
}

/* -v: the scalar JIT and each vector form this CPU has, in the order
 * A B C C B A (A B B A with one vector form), each into its own dataset */
static int paired_vector(unsigned threads, uint64_t items, int pairs, unsigned pages, const rx_cache *c) {
    static const char *const kinds[3] = { "scalar", "avx2", "avx512" };
    int have[3] = { 1, 0, 0 }, order[6], n = 0, no = 0;
    for (int k = 1; k < 3; k++) {              /* which forms the switch really gets */
        setenv("RXLOCK_SUPERSCALAR", kinds[k], 1);
        const char *got = ss_form(c);
        if (!got) return 1;
        have[k] = strcmp(got, kinds[k]) == 0;
    }
    for (int k = 0; k < 3; k++) if (have[k]) order[no++] = k;
    for (int k = no - 1; k >= 0; k--) order[no + (no - 1 - k)] = order[k];
    n = 2 * no;
    rx_dataset *d[3] = { NULL, NULL, NULL };
    for (int k = 0; k < 3; k++) {
        if (!have[k]) continue;
        if (rx_dataset_new(&d[k], RX_FLAG_JIT | pages) != 0) { fprintf(stderr, "rx_dataset_new failed\n"); return 1; }
        memset((void *)rx_dataset_bytes(d[k]), 0, (size_t)items * 64);
    }
    char la0[64], la1[64];
    loadavg(la0);
    printf("paired: SuperscalarHash JIT forms, %s pages, %u thread(s), load average before: %s\n",
           pages ? "4 KiB (RX_FLAG_NO_THP)" : "THP allowed", threads, la0);
    double sw[3] = { 0, 0, 0 }, sc[3] = { 0, 0, 0 };
    for (int r = 0; r < pairs; r++)
        for (int i = 0; i < n; i++) {
            int k = order[i];
            setenv("RXLOCK_SUPERSCALAR", kinds[k], 1);
            double w = build(1, threads, items, d[k], c, NULL, NULL);
            sw[k] += w;
            sc[k] += g_cpu;
            printf("dataset      rxlock   %-7s JIT       %.2f s wall  %.2f s cpu  %.0f items/s\n",
                   kinds[k], w, g_cpu, (double)items / w);
        }
    unsetenv("RXLOCK_SUPERSCALAR");
    loadavg(la1);
    int differ = 0;
    for (int k = 0; k < 3; k++) {
        if (!have[k]) continue;
        if (k && memcmp(rx_dataset_bytes(d[0]), rx_dataset_bytes(d[k]), (size_t)items * 64) != 0) differ = 1;
        printf("sum of %d: %-7s %.2f s wall %.2f s cpu; speed-up over scalar: wall %.3f, cpu %.3f; AnonHugePages %ld kB\n",
               2 * pairs, kinds[k], sw[k], sc[k], sw[0] / sw[k], sc[0] / sc[k], thp_kb(rx_dataset_bytes(d[k])));
    }
    printf("load average after: %s\n", la1);
    printf("datasets %s\n", differ ? "DIFFER" : "identical");
    for (int k = 0; k < 3; k++) rx_dataset_free(d[k]);
    return differ;
}

/* -x: the span XMRig's "dataset ready (N ms)" line times (its
 * RxDataset::init): the cache (Argon2d + the 8 SuperscalarHash programs and
 * their JIT) and then the whole dataset over THREADS threads, into memory
 * allocated just before and not touched yet (so page faults are inside the
 * span, as in XMRig's THP path; the allocation itself is not, like its
 * separate "allocated" line).  Ours runs the product's path
 * (rx_cache_init, rx_dataset_init_parallel, RX_FLAG_JIT) with XMRig's
 * --bench seed (32 zero bytes), so both build the same dataset.  RUNS
 * runs, each printing its time, the huge-page share of the dataset, the load
 * average and a BLAKE2b digest of the dataset (all must agree, exit 1
 * otherwise); -c also builds the dataset with librandomx (JIT, same split)
 * after the last run and compares it byte for byte. */
static int xmrig_span(unsigned threads, int runs, unsigned pages, int check) {
    static const uint8_t seed[32];
    unsigned char first_digest[32], digest[32];
    int bad = 0;
    for (int r = 0; r < runs; r++) {
        rx_cache *c = NULL;
        rx_dataset *ds = NULL;
        if (rx_cache_new(&c, pages) != 0 || rx_dataset_new(&ds, RX_FLAG_JIT | pages) != 0) {
            fprintf(stderr, "rx_cache_new/rx_dataset_new failed\n");
            return 1;
        }
        char la[64];
        loadavg(la);
        double t0 = util_now(), c0 = cpu_s();
        if (rx_cache_init(c, seed, sizeof seed) != 0) { fprintf(stderr, "rx_cache_init failed\n"); return 1; }
        double tc = util_now() - t0;
        if (rx_dataset_init_parallel(ds, c, threads) != 0) { fprintf(stderr, "rx_dataset_init_parallel failed\n"); return 1; }
        double t = util_now() - t0, cpu = cpu_s() - c0;
        const char *form = ss_form(c);
        const uint8_t *mem = rx_dataset_bytes(ds);
        crypto_generichash(digest, sizeof digest, mem, (unsigned long long)RX_DATASET_BYTES, NULL, 0);
        if (r == 0) memcpy(first_digest, digest, sizeof digest);
        else if (memcmp(first_digest, digest, sizeof digest) != 0) bad = 1;
        char hex[65];
        sodium_bin2hex(hex, sizeof hex, digest, sizeof digest);
        printf("span         rxlock   (JIT %s) %u thread(s) %.0f ms (cache %.0f ms)  %.2f s cpu  AnonHugePages %ld kB  load %s  digest %.16s\n",
               form ? form : "?", threads, t * 1e3, tc * 1e3, cpu, thp_kb(mem), la, hex);
        if (check && r + 1 == runs) {
            randomx_cache *rc = randomx_alloc_cache(RANDOMX_FLAG_JIT);
            randomx_dataset *rds = randomx_alloc_dataset(RANDOMX_FLAG_DEFAULT);
            if (!rc || !rds) { fprintf(stderr, "librandomx allocation failed\n"); return 1; }
            randomx_init_cache(rc, seed, sizeof seed);
            build(0, threads, RX_DATASET_ITEMS, NULL, NULL, rds, rc);
            int same = memcmp(randomx_get_dataset_memory(rds), mem, (size_t)RX_DATASET_BYTES) == 0;
            printf("librandomx JIT dataset (same seed, %u threads): %s\n", threads, same ? "identical" : "DIFFER");
            bad |= !same;
            randomx_release_dataset(rds);
            randomx_release_cache(rc);
        }
        rx_dataset_free(ds);
        rx_cache_free(c);
    }
    printf("digests %s\n", bad ? "DIFFER" : "agree");
    return bad;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    unsigned threads = 2;
    uint64_t items = RX_DATASET_ITEMS;
    int repeats = 3, skip_interp = 0, vector = 0, span = 0, check = 0, opt;
    unsigned pages = 0;        /* -p: RX_FLAG_NO_THP, 4 KiB pages like the reference as shipped */
    while ((opt = getopt(argc, argv, "t:n:r:spvxc")) != -1) {
        switch (opt) {
        case 't': threads = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'n': items = strtoull(optarg, NULL, 10); break;
        case 'r': repeats = atoi(optarg); break;
        case 's': skip_interp = 1; break;
        case 'p': pages = RX_FLAG_NO_THP; break;
        case 'v': vector = 1; break;
        case 'x': span = 1; break;
        case 'c': check = 1; break;
        default:
            fprintf(stderr, "usage: bench_dataset [-t THREADS] [-n ITEMS] [-r REPEATS] [-s] [-p] | -v [-t T] [-n N] [-r PAIRS] [-p]\n"
                            "       bench_dataset -x [-t THREADS] [-r RUNS] [-p] [-c]\n");
            return 2;
        }
    }
    if (threads < 1 || threads > 256 || items < 1 || items > RX_DATASET_ITEMS || repeats < 1 || repeats > 50) {
        fprintf(stderr, "bench_dataset: bad arguments\n");
        return 2;
    }
    if (span) {
        if (items != RX_DATASET_ITEMS) { fprintf(stderr, "bench_dataset: -x builds the whole dataset (no -n)\n"); return 2; }
        return xmrig_span(threads, repeats, pages, check);
    }
    printf("bench_dataset: key \"%s\", %u thread(s), %llu items (%.1f MiB)\n", KEY, threads,
           (unsigned long long)items, (double)items * 64 / 1048576.0);

    /* ---- cache init ---- */
    rx_cache *c = NULL;
    if (rx_cache_new(&c, pages) != 0) { fprintf(stderr, "rx_cache_new failed\n"); return 1; }
    if (vector) {
        if (rx_cache_init(c, KEY, strlen(KEY)) != 0) { fprintf(stderr, "rx_cache_init failed\n"); return 1; }
        int rc = paired_vector(threads, items, repeats, pages, c);
        rx_cache_free(c);
        return rc;
    }
    double t[50], tc[50];
    for (int impl = RX_ARGON2_PORTABLE; impl <= RX_ARGON2_AVX2; impl++) {
        if (!rx_argon2d_impl_supported(impl)) continue;
        rx_cache_argon2_impl = impl;
        for (int i = 0; i < repeats; i++) {
            char key[32];
            snprintf(key, sizeof key, "bench key %03d", i);
            double t0 = util_now(), c0 = thread_cpu_s();
            if (rx_cache_init(c, key, strlen(key)) != 0) { fprintf(stderr, "rx_cache_init failed\n"); return 1; }
            t[i] = util_now() - t0;
            tc[i] = thread_cpu_s() - c0;
        }
        printf("cache init   rxlock     argon2=%-8s  %.3f s wall  %.3f s cpu (medians of %d)\n",
               rx_argon2d_impl_name(impl), median(t, repeats), median(tc, repeats), repeats);
    }
    rx_cache_argon2_impl = RX_ARGON2_AUTO;
    if (rx_cache_init(c, KEY, strlen(KEY)) != 0) return 1;

    static const struct { randomx_flags f; const char *name; } rflags[] = {
        { RANDOMX_FLAG_DEFAULT, "DEFAULT" }, { RANDOMX_FLAG_ARGON2_SSSE3, "ARGON2_SSSE3" },
        { RANDOMX_FLAG_ARGON2_AVX2, "ARGON2_AVX2" }, { RANDOMX_FLAG_JIT, "JIT" },
    };
    for (size_t k = 0; k < sizeof rflags / sizeof rflags[0]; k++) {
        randomx_cache *rc = randomx_alloc_cache(rflags[k].f);
        if (!rc) { printf("cache init   librandomx %-12s unsupported\n", rflags[k].name); continue; }
        for (int i = 0; i < repeats; i++) {
            /* a new key every time: librandomx skips re-initialising with the same key */
            char key[32];
            snprintf(key, sizeof key, "bench key %03d", i);
            double t0 = util_now(), c0 = thread_cpu_s();
            randomx_init_cache(rc, key, strlen(key));
            t[i] = util_now() - t0;
            tc[i] = thread_cpu_s() - c0;
        }
        printf("cache init   librandomx %-15s %.3f s wall  %.3f s cpu (medians of %d)\n",
               rflags[k].name, median(t, repeats), median(tc, repeats), repeats);
        randomx_release_cache(rc);
    }

    /* ---- dataset build ---- */
    /* ours twice: the portable C path (flags 0), then the SuperscalarHash
     * JIT (RX_FLAG_JIT, what the product asks for); the JIT one is compared
     * with the reference below, and both with each other */
    rx_dataset *dc = NULL, *ds = NULL;
    if (rx_dataset_new(&dc, pages) != 0 || rx_dataset_new(&ds, RX_FLAG_JIT | pages) != 0) {
        fprintf(stderr, "rx_dataset_new failed\n");
        return 1;
    }
    /* fault the pages in first so every side is timed without page faults */
    memset((void *)rx_dataset_bytes(dc), 0, (size_t)items * 64);
    memset((void *)rx_dataset_bytes(ds), 0, (size_t)items * 64);
    double ours_c = build(1, threads, items, dc, c, NULL, NULL);
    printf("dataset      rxlock   (C, %d lanes)      %.2f s wall  %.2f s cpu  %.0f items/s\n", RX_SS_LANES, ours_c, g_cpu, (double)items / ours_c);
    const char *form = ss_form(c);
    if (!form) return 1;
    char label[32];                            /* the form that ran: "(JIT avx512)", not just "(JIT)" */
    snprintf(label, sizeof label, "(JIT %s)", form);
    double ours = build(1, threads, items, ds, c, NULL, NULL);
    double ours_cpu = g_cpu;
    printf("dataset      rxlock   %-18s %.2f s wall  %.2f s cpu  %.0f items/s  (JIT/C: wall %.3f)\n", label, ours, ours_cpu, (double)items / ours, ours / ours_c);
    int c_vs_jit = memcmp(rx_dataset_bytes(dc), rx_dataset_bytes(ds), (size_t)items * 64) != 0;
    rx_dataset_free(dc);

    randomx_dataset *rds = randomx_alloc_dataset(RANDOMX_FLAG_DEFAULT);
    if (!rds) { fprintf(stderr, "randomx_alloc_dataset failed\n"); return 1; }
    uint8_t *rmem = randomx_get_dataset_memory(rds);
    memset(rmem, 0, (size_t)items * 64);
    int mismatch = 0;
    for (int jit = skip_interp ? 1 : 0; jit <= 1; jit++) {
        randomx_cache *rc = randomx_alloc_cache(jit ? RANDOMX_FLAG_JIT : RANDOMX_FLAG_DEFAULT);
        if (!rc) { printf("dataset      librandomx %s unsupported\n", jit ? "JIT" : "DEFAULT"); continue; }
        randomx_init_cache(rc, KEY, strlen(KEY));
        double tr = build(0, threads, items, NULL, NULL, rds, rc);
        printf("dataset      librandomx %-8s         %.2f s wall  %.2f s cpu  %.0f items/s  (rxlock/ref: wall %.3f, cpu %.3f)\n",
               jit ? "JIT" : "DEFAULT", tr, g_cpu, (double)items / tr, ours / tr, ours_cpu / g_cpu);
        if (memcmp(rmem, rx_dataset_bytes(ds), (size_t)items * 64) != 0) mismatch = 1;
        randomx_release_cache(rc);
    }
    mismatch |= c_vs_jit;
    printf("datasets %s\n", mismatch ? "DIFFER" : "identical");
    randomx_release_dataset(rds);
    rx_dataset_free(ds);
    rx_cache_free(c);
    return mismatch;
}
