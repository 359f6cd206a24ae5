/* SPDX-License-Identifier: ISC */
/* bench/bench_host.h — host facts recorded in every bench JSON line:
 * CPU model, the ISA flags that matter to RandomX/SHA3, THP setting,
 * kernel, online CPUs; the load average a bench line records; the median
 * every summary takes.  Implemented in bench/bench_host.c. */
#ifndef RXLOCK_BENCH_HOST_H
#define RXLOCK_BENCH_HOST_H
#include <jansson.h>
#include <stddef.h>

/* {"cpu", "cpu_flags", "thp", "kernel", "cpus"}; NULL when out of memory. */
json_t *bench_host_json(void);
/* The 1-minute load average (/proc/loadavg), -1 when unknown. */
double bench_loadavg(void);
/* The median of v[0..n-1] (sorts v); NAN when n is 0. */
double bench_median(double *v, size_t n);
#endif
