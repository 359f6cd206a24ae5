/* SPDX-License-Identifier: ISC */
/* tests/test_util.c — hex codec, bounded reads, atomic no-clobber writes, usable CPUs, the CPU feature probe, the monotonic clock, the huge-page share of a mapping. */
#include "test.h"
#include "util/util.h"
#include "util/cpufeat.h"
#include <sched.h>
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void t_hex(void) {
    uint8_t b[4]; size_t n; char s[9];
    CHECK(util_hex_decode("00fFa1", b, sizeof b, &n) == 0 && n == 3);
    CHECK(b[0] == 0 && b[1] == 0xff && b[2] == 0xa1);
    CHECK(util_hex_decode("", b, sizeof b, &n) == 0 && n == 0);
    CHECK(util_hex_decode("abc", b, sizeof b, &n) == -1);
    CHECK(util_hex_decode("zz", b, sizeof b, &n) == -1);
    CHECK(util_hex_decode("0011223344", b, sizeof b, &n) == -1);
    util_hex_encode(s, b, 3);
    CHECK(strcmp(s, "00ffa1") == 0);
}

static void t_atomic(void) {
    char dir[] = "/tmp/rxlock-test-XXXXXX", path[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK(util_write_file_atomic(path, "one", 3, 0, 0600) == 0);
    errno = 0;
    CHECK(util_write_file_atomic(path, "two", 3, 0, 0600) == -1 && errno == EEXIST);
    uint8_t *d; size_t n;
    CHECK(util_read_file(path, 100, &d, &n) == 0 && n == 3 && memcmp(d, "one", 3) == 0);
    free(d);
    CHECK(util_write_file_atomic(path, "two", 3, 1, 0600) == 0);
    CHECK(util_read_file(path, 100, &d, &n) == 0 && n == 3 && memcmp(d, "two", 3) == 0);
    free(d);
    errno = 0;
    CHECK(util_read_file(path, 2, &d, &n) == -1 && errno == EFBIG);
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    util_atomic a;
    CHECK(util_atomic_open(&a, path, 1, 0600) == 0);
    char tmp[PATH_MAX]; strcpy(tmp, a.tmp);
    util_atomic_abort(&a);
    CHECK(access(tmp, F_OK) != 0);
    unlink(path); rmdir(dir);
}

/* util_cpus_usable follows the affinity mask (Slurm, cpusets, taskset) */
static void t_cpus_usable(void) {
    unsigned all = util_cpus_usable();
    CHECK(all >= 1);
    cpu_set_t saved, one;
    if (sched_getaffinity(0, sizeof saved, &saved) != 0) { CHECK(0); return; }
    size_t first = CPU_SETSIZE;
    for (size_t c = 0; c < CPU_SETSIZE && first == CPU_SETSIZE; c++) if (CPU_ISSET(c, &saved)) first = c;
    CHECK(first < CPU_SETSIZE);
    if (first >= CPU_SETSIZE) return;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    CHECK(util_cpus_usable() == 1);
    CHECK(sched_setaffinity(0, sizeof saved, &saved) == 0);
    CHECK(util_cpus_usable() == all);
}

/* the one CPU probe agrees with the compiler's (libgcc's cpuid reading) */
static void t_cpufeat(void) {
    const util_cpufeat *f = util_cpufeat_get();
    CHECK(f != NULL && f == util_cpufeat_get());
#if defined(__x86_64__)
    __builtin_cpu_init();
    CHECK(f->ssse3 == (__builtin_cpu_supports("ssse3") != 0));
    CHECK(f->sse41 == (__builtin_cpu_supports("sse4.1") != 0));
    CHECK(f->aesni == (__builtin_cpu_supports("aes") != 0 && f->sse41));
    CHECK(f->avx2 == (__builtin_cpu_supports("avx2") != 0));
    CHECK(f->bmi1 == (__builtin_cpu_supports("bmi") != 0));
    CHECK(f->bmi2 == (__builtin_cpu_supports("bmi2") != 0));
    CHECK(f->avx512f == (__builtin_cpu_supports("avx512f") != 0));
    CHECK(f->avx512vl == (__builtin_cpu_supports("avx512vl") != 0));
    CHECK(f->avx512dq == (__builtin_cpu_supports("avx512dq") != 0));
    CHECK(!f->arm_aes && !f->arm_sha3 && !f->arm_asimd);
#elif defined(__aarch64__)
    CHECK(!f->aesni && !f->avx2 && !f->bmi2);
#endif
}

/* the monotonic clock: never goes back; seconds and nanoseconds agree */
static void t_clock(void) {
    uint64_t a = util_now_ns();
    double s = util_now();
    uint64_t b = util_now_ns();
    CHECK(a > 0 && b >= a);
    CHECK(s >= (double)a * 1e-9 - 1e-6 && s <= (double)b * 1e-9 + 1e-6);
}

/* util_huge_share: unknown for no mapping, 0 for a mapping told to avoid
 * huge pages, within 0..1 for one that asks for them (whether the kernel
 * grants them depends on THP and fragmentation: only printed). */
static void t_huge_share(void) {
    CHECK(util_huge_share(NULL, 10) == -1);
    size_t len = 8u << 20;
    uint8_t *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED) return;
#ifdef MADV_NOHUGEPAGE
    CHECK(madvise(p, len, MADV_NOHUGEPAGE) == 0);
    memset(p, 1, len);
    double s0 = util_huge_share(p, len);
    CHECK(s0 == 0 || s0 == -1);   /* -1 only without /proc */
#endif
    CHECK(munmap(p, len) == 0);
    p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    if (p == MAP_FAILED) return;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, len, MADV_HUGEPAGE);
#endif
    memset(p, 1, len);
    double s1 = util_huge_share(p, len);
    CHECK(s1 == -1 || (s1 >= 0 && s1 <= 1));
    const char *m = util_thp_mode();
    fprintf(stderr, "  huge-page share of an 8 MiB MADV_HUGEPAGE mapping: %.2f (THP %s)\n", s1, m ? m : "unknown");
    CHECK(!m || !strcmp(m, "always") || !strcmp(m, "madvise") || !strcmp(m, "never"));
    CHECK(munmap(p, len) == 0);
    CHECK(util_huge_share(p, len) == -1);   /* gone */
}

int main(void) {
    RUN(t_huge_share);
    RUN(t_hex);
    RUN(t_cpufeat);
    RUN(t_clock);
    RUN(t_atomic);
    RUN(t_cpus_usable);
    return test_summary();
}
