/* bench/bench_util.h — small helpers shared by the standalone benchmarks
 * (bench_jit, bench_stall): wall clock, hex, and the chain message of
 * docs/DESIGN.md §1.  Header-only. */
#ifndef RXLOCK_BENCH_UTIL_H
#define RXLOCK_BENCH_UTIL_H
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static inline double bench_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
/* out: 2n hex digits and a NUL */
static inline void bench_hex(char *out, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
}
/* m = "rxlock/chain/v1\0\0\0\0\0" || g u32le || 0 u32 || i u64le || d (32) */
static inline void bench_chain_msg(uint8_t m[68], uint32_t g, uint64_t i, const uint8_t d[32]) {
    memset(m, 0, 68);
    memcpy(m, "rxlock/chain/v1", 15);
    for (int k = 0; k < 4; k++) m[20 + k] = (uint8_t)(g >> (8 * k));
    for (int k = 0; k < 8; k++) m[28 + k] = (uint8_t)(i >> (8 * k));
    memcpy(m + 36, d, 32);
}
#endif
