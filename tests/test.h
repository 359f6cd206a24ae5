/* SPDX-License-Identifier: ISC */
/* tests/test.h — the tiny unit-test harness every tests/test_*.c uses.
 *
 *   static void t_something(void) { CHECK(x == 1); CHECK_MEM(a, b, 32); }
 *   int main(void) { RUN(t_something); return test_summary(); }
 *
 * A test function passes when none of its CHECKs failed.  test_summary()
 * prints "N passed, N failed" (tests/run.sh sums these lines) and returns the
 * process exit code.  Helpers: hex decoding, TSV vector reading (fields may
 * be empty: split on single TABs only), quick/full mode switches, and the
 * tests' one PRNG (test_rng: splitmix64, deterministic from its state).
 */
#ifndef RXLOCK_TEST_H
#define RXLOCK_TEST_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_pass_, test_fail_, test_cur_fail_;

#define CHECK(c) do { if (!(c)) { test_cur_fail_++; \
    fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); } } while (0)
#define CHECK_MEM(a, b, n) do { if (memcmp((a), (b), (n)) != 0) { test_cur_fail_++; \
    fprintf(stderr, "%s:%d: CHECK_MEM(%s, %s) failed\n", __FILE__, __LINE__, #a, #b); \
    test_dump_("  got ", (const uint8_t *)(a), (n)); test_dump_("  want", (const uint8_t *)(b), (n)); } } while (0)
#define RUN(fn) test_run_(#fn, fn)

static inline void test_dump_(const char *tag, const uint8_t *p, size_t n) {
    fprintf(stderr, "%s ", tag);
    for (size_t i = 0; i < n && i < 128; i++) fprintf(stderr, "%02x", p[i]);
    fprintf(stderr, "\n");
}
static inline void test_run_(const char *name, void (*fn)(void)) {
    test_cur_fail_ = 0;
    fn();
    if (test_cur_fail_) { test_fail_++; fprintf(stderr, "FAIL %s\n", name); }
    else { test_pass_++; if (getenv("RXLOCK_TEST_VERBOSE")) fprintf(stderr, "ok   %s\n", name); }
}
static inline int test_summary(void) {
    printf("%d passed, %d failed\n", test_pass_, test_fail_);
    return test_fail_ ? 1 : 0;
}
/* RXLOCK_TEST_QUICK=1: sanitizer/emulator runs — shrink loops. */
static inline int test_quick(void) { const char *e = getenv("RXLOCK_TEST_QUICK"); return e && *e && *e != '0'; }
/* RXLOCK_TEST_FULL=1: make check-full — allow 2 GiB datasets. */
static inline int test_full(void) { const char *e = getenv("RXLOCK_TEST_FULL"); return e && *e && *e != '0'; }

/* The tests' one PRNG: splitmix64 over *state (any start value), so a
 * failure reproduces from the seed a test prints.  Not for secrets. */
static inline uint64_t test_rng(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* n bytes of test_rng output (little-endian words, the last one cut). */
static inline void test_rng_fill(uint64_t *state, uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = test_rng(state);
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* Decode lowercase/uppercase hex; returns byte count or -1. */
static inline long test_unhex(const char *s, uint8_t *out, size_t cap) {
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(s + 2 * i, "%2x", &v) != 1) return -1;
        out[i] = (uint8_t)v;
    }
    return (long)(n / 2);
}

/* Directory of the TSV vectors: $RXLOCK_VECTORS or tests/vectors. */
static inline const char *test_vector_dir(void) {
    const char *e = getenv("RXLOCK_VECTORS");
    return e && *e ? e : "tests/vectors";
}

/* Iterate over the data rows of a TSV vector file (skips the '#' source line
 * and the header line).  cb gets the fields; return non-zero to stop.
 * Returns the number of rows visited, or -1 if the file cannot be read. */
#define TEST_MAX_FIELDS 8
static inline long test_tsv_each(const char *file,
                                 int (*cb)(char **f, int nf, void *ctx), void *ctx) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", test_vector_dir(), file);
    FILE *fp = fopen(path, "r");
    if (!fp) { fprintf(stderr, "cannot open %s\n", path); return -1; }
    size_t cap = 1 << 16;
    char *line = malloc(cap);
    long rows = 0; int header_seen = 0;
    while (line && fgets(line, (int)cap, fp)) {
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (line[0] == '#') continue;
        if (!header_seen) { header_seen = 1; continue; }
        char *f[TEST_MAX_FIELDS]; int nf = 0; char *p = line;
        f[nf++] = p;
        while ((p = strchr(p, '\t')) && nf < TEST_MAX_FIELDS) { *p++ = 0; f[nf++] = p; }
        rows++;
        if (cb(f, nf, ctx)) break;
    }
    free(line);
    fclose(fp);
    return rows;
}
#endif
