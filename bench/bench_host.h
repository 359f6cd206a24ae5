/* SPDX-License-Identifier: ISC */
/* bench/bench_host.h — host facts recorded in every bench JSON line:
 * CPU model, the ISA flags that matter to RandomX/SHA3, THP setting,
 * kernel, online CPUs.  Implemented in bench/bench_host.c. */
#ifndef RXLOCK_BENCH_HOST_H
#define RXLOCK_BENCH_HOST_H
#include <jansson.h>

/* {"cpu", "cpu_flags", "thp", "kernel", "cpus"}; NULL when out of memory. */
json_t *bench_host_json(void);
#endif
