/* SPDX-License-Identifier: ISC */
/* src/util/cpus.c — how many CPUs this process may use: the size of its
 * affinity mask, which is what Slurm (task/affinity, cgroup cpusets),
 * Kubernetes static CPU sets and taskset restrict, else the online CPUs.
 * (A CFS quota without a cpuset is not visible here.) */
#include "util/util.h"
#include <sched.h>
#include <unistd.h>

unsigned util_cpus_usable(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return (unsigned)n;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}
