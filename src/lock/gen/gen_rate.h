/* SPDX-License-Identifier: ISC */
/* src/lock/gen/gen_rate.h — generation throughput's pieces (gen_rate.c)
 * for a caller that holds the work function already or counts steps of
 * its own: bench_gen's paired mode measures our workers on one work
 * function built once (not one dataset build per window) and a peer
 * engine's chains in the very same windows.  tl_measure_gen_rate
 * (include/rxlock/rxlock.h) is these two around a work function it builds. */
#ifndef RXLOCK_GEN_RATE_H
#define RXLOCK_GEN_RATE_H
#include "rxlock/rxlock.h"
#include <stdint.h>

/* One worker's running count of chain steps, alone on its cache line
 * (shared memory for forked workers, plain memory for threads). */
typedef struct {
    volatile uint64_t steps;
    char pad[64 - sizeof(uint64_t)];
} tl_rate_slot;

/* The windows of tl_measure_gen_rate over n slots that workers advance:
 * a short untimed start, then about `seconds` in 3..32 windows of the
 * slots' total.  Fills rate (the median window), rate_min, rate_max,
 * mean, seconds and windows of *out (the caller zeroes it and sets the
 * rest).  TL_OK, TL_EINVAL, or TL_EINTR when *stop became non-zero. */
int tl_rate_windows(tl_rate_slot *slots, unsigned n, double seconds, const volatile int *stop, tl_gen_rate *out);

/* tl_measure_gen_rate on the work function w the caller built (its type
 * and mode; w is used by forked workers and left as it was). */
int tl_measure_gen_rate_work(tl_work *w, unsigned workers, uint32_t groups, double seconds,
                             const volatile int *stop, tl_gen_rate *out);
#endif
