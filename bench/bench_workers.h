/* SPDX-License-Identifier: ISC */
/* bench/bench_workers.h — running W bench workers at once, as threads of
 * this process or as forked processes (after the shared read-only
 * cache/dataset is built), released together and timed from the release.
 * Used by the harness's scale and pair modes.  Implemented in
 * bench/bench_workers.c. */
#ifndef RXLOCK_BENCH_WORKERS_H
#define RXLOCK_BENCH_WORKERS_H
#include <stddef.h>

#define BENCH_MAX_WORKERS 256

/* One worker's job.  run() makes its VMs, calls wait_go(ctx) (0 = go), does
 * its timed work and fills *result (result_size plain bytes: a process
 * worker sends them back through a pipe), measuring its own CPU time with
 * getrusage(who).  It sets rc: 0 ok, else failed. */
struct bench_job {
    void (*run)(struct bench_job *job, int (*wait_go)(void *), void *ctx, int who);
    void  *result;
    size_t result_size;
    int    rc;
};

/* Run jobs[0..W-1] as W threads / W processes; *wall = seconds from the
 * release to the last end.  0 when every job ran with rc 0, else -1. */
int bench_run_threads(struct bench_job **jobs, unsigned W, double *wall);
int bench_run_procs(struct bench_job **jobs, unsigned W, double *wall);
#endif
