/* SPDX-License-Identifier: ISC */
/* src/util/hugepages.c — how much of a mapping the kernel backs with
 * transparent huge pages: the AnonHugePages of the /proc/self/smaps
 * entries that overlap it.  The page size a RandomX dataset gets moves its
 * hash rate by 1.4-1.5x on every engine (bench/RESULTS.md), so calibration
 * records it.  Linux only; elsewhere "unknown". */
#include "util/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double util_huge_share(const void *p, size_t len) {
    if (!p || !len) return -1;
    FILE *fp = fopen("/proc/self/smaps", "re");
    if (!fp) return -1;
    const unsigned long lo = (unsigned long)(uintptr_t)p, hi = lo + (unsigned long)len;
    unsigned long long huge_kb = 0;
    int in = 0, seen = 0;
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        unsigned long a, b;
        char c;
        /* a mapping's header line: "start-end perms ..." (hex, no spaces before '-') */
        if (sscanf(line, "%lx-%lx%c", &a, &b, &c) == 3 && c == ' ') {
            in = a < hi && lo < b;
            seen |= in;
            continue;
        }
        if (!in) continue;
        if (!strncmp(line, "AnonHugePages:", 14)) huge_kb += strtoull(line + 14, NULL, 10);
        else if (!strncmp(line, "Private_Hugetlb:", 16)) huge_kb += strtoull(line + 16, NULL, 10);
    }
    fclose(fp);
    if (!seen) return -1;
    /* a neighbouring mapping merged into the same entry (the cache has the
     * same advice) may add its own huge pages: clamp to the whole range */
    double share = (double)huge_kb * 1024.0 / (double)len;
    return share > 1 ? 1 : share;
}

const char *util_thp_mode(void) {
    static char mode[16];
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
    if (!fp) return NULL;
    char line[128];
    const char *r = NULL;
    if (fgets(line, sizeof line, fp)) {
        char *s = strchr(line, '['), *e = s ? strchr(s, ']') : NULL;
        if (s && e && e - s - 1 > 0 && (size_t)(e - s - 1) < sizeof mode) {
            memcpy(mode, s + 1, (size_t)(e - s - 1));
            mode[e - s - 1] = 0;
            r = mode;
        }
    }
    fclose(fp);
    return r;
}
