/* SPDX-License-Identifier: ISC */
/* bench/bench_gen_pair.h — bench_gen's paired mode: our generation
 * throughput (tl_measure_gen_rate's workers on one work function built
 * once) against a peer RandomX engine's serial chains on as many threads
 * (its own API, one peer dataset built once), in windows A B B A within
 * each round.  Implemented in bench/bench_gen_pair.c. */
#ifndef RXLOCK_BENCH_GEN_PAIR_H
#define RXLOCK_BENCH_GEN_PAIR_H
#include "rxlock/rxlock.h"

#define BENCH_GEN_MAX_ROUNDS 100   /* --rounds, both of bench_gen's modes */

struct bench_gen_pair_opts {
    tl_work_type work;            /* randomx-v2 or randomx-v1 */
    tl_mode mode;                 /* light or full, both sides */
    unsigned workers;             /* our workers = the peer's threads */
    unsigned rounds;
    double seconds;               /* per window */
    const char *peer;             /* a bench variant name (bench_variant.h), e.g. ref-v2-jit */
};

/* Prints a header, the hashes-agree check, one gen_pair_window line per
 * window, one gen_pair line per round and a gen_pair_summary line.
 * 0 ok, 1 on an engine failure or a disagreement, 2 on bad options
 * (message on stderr). */
int bench_gen_pair(const struct bench_gen_pair_opts *o);
#endif
