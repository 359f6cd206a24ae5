/* SPDX-License-Identifier: ISC */
/* src/util/clock.c — the one monotonic clock (CLOCK_MONOTONIC), in seconds
 * for rates and progress and in nanoseconds for phase profiles.  Used by
 * every layer above, the CLI and the benchmarks. */
#include "util/util.h"
#include <time.h>

uint64_t util_now_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double util_now(void) {
    return (double)util_now_ns() * 1e-9;
}
