/* SPDX-License-Identifier: ISC */
/* src/lock/core/mode.c — the one mode policy (tl_mode_resolve).
 * RandomX runs in full mode (2080 MiB dataset + 256 MiB cache) when that
 * memory can be had here, else in light mode, which is several times
 * slower (TL_FULL_LIGHT_RATIO, a recorded figure).  "Can be had" is four
 * checks, the first that fails decides:
 *   1. the test build's switch RXLOCK_TEST_LOWMEM=1 (-DRXLOCK_TESTING only);
 *   2. RLIMIT_AS: the limit minus this process's current size;
 *   3. the cgroup v2 limit (memory.max - memory.current of our cgroup);
 *   4. MemAvailable in /proc/meminfo;
 * then a trial reservation: an mmap of the whole size, read-write, never
 * touched and unmapped at once (the kernel's overcommit accounting and
 * RLIMIT_AS decide it; no page is used).  Every caller (calibrate, lock,
 * lock FILE, solve, unlock, inspect, plan, group) goes through here. */
#include "core_internal.h"
#include "rxlock/rx.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#define MiB (1024ull * 1024ull)
/* dataset + cache + a margin for the VM, scratchpads and the process */
#define NEED_BYTES (RX_DATASET_ITEMS * 64ull + (uint64_t)RX_CACHE_SIZE + 64ull * MiB)

/* "Key:   N kB" from a /proc file; UINT64_MAX when absent. */
static uint64_t proc_kb(const char *path, const char *key) {
    FILE *fp = fopen(path, "r");
    if (!fp) return UINT64_MAX;
    char line[256];
    size_t kl = strlen(key);
    uint64_t v = UINT64_MAX;
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            unsigned long long k;
            if (sscanf(line + kl + 1, "%llu", &k) == 1) v = (uint64_t)k * 1024u;
            break;
        }
    }
    fclose(fp);
    return v;
}

/* One unsigned number (or "max" = UINT64_MAX) from a small file. */
static uint64_t file_u64(const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) return UINT64_MAX;
    char buf[64] = "";
    unsigned long long v = 0;
    uint64_t out = UINT64_MAX;
    if (fgets(buf, sizeof buf, fp) && strncmp(buf, "max", 3) != 0 && sscanf(buf, "%llu", &v) == 1) out = (uint64_t)v;
    fclose(fp);
    return out;
}

/* Free room under our cgroup v2 memory limit; UINT64_MAX when unlimited
 * or unknown. */
static uint64_t cgroup_room(void) {
    FILE *fp = fopen("/proc/self/cgroup", "r");
    if (!fp) return UINT64_MAX;
    char line[512], path[700];
    uint64_t room = UINT64_MAX;
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, "0::", 3) != 0) continue;
        line[strcspn(line, "\n")] = 0;
        const char *cg = line + 3;
        if (strstr(cg, "..")) break;
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.max", cg);
        uint64_t max = file_u64(path);
        snprintf(path, sizeof path, "/sys/fs/cgroup%s/memory.current", cg);
        uint64_t cur = file_u64(path);
        if (max != UINT64_MAX) room = cur == UINT64_MAX || cur >= max ? (cur == UINT64_MAX ? max : 0) : max - cur;
        break;
    }
    fclose(fp);
    return room;
}

/* Room under RLIMIT_AS; UINT64_MAX when unlimited. */
static uint64_t rlimit_room(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return UINT64_MAX;
    uint64_t vm = proc_kb("/proc/self/status", "VmSize");
    if (vm == UINT64_MAX) vm = 0;
    return (uint64_t)rl.rlim_cur > vm ? (uint64_t)rl.rlim_cur - vm : 0;
}

/* The test build's switch: its name when set, else NULL (always NULL in
 * the shipping build, which carries no RXLOCK_TEST_* string). */
static const char *test_lowmem(void) {
#ifdef RXLOCK_TESTING
    const char *s = getenv("RXLOCK_TEST_LOWMEM");
    return s && !strcmp(s, "1") ? "RXLOCK_TEST_LOWMEM=1" : NULL;
#else
    return NULL;
#endif
}

/* NULL when `need` bytes can be had here, else which check refused (and
 * *avail the room it saw): the test switch, RLIMIT_AS, the cgroup,
 * MemAvailable, then an untouched trial mmap of the whole size. */
static const char *room_short(uint64_t need, uint64_t *avail) {
    uint64_t room;
    const char *why;
    *avail = UINT64_MAX;
    if ((why = test_lowmem()) != NULL) { *avail = 0; return why; }
    if ((room = rlimit_room()) < need) { *avail = room; return "RLIMIT_AS"; }
    if ((room = cgroup_room()) < need) { *avail = room; return "cgroup memory.max"; }
    if ((room = proc_kb("/proc/meminfo", "MemAvailable")) < need) { *avail = room; return "MemAvailable"; }
    if (need > SIZE_MAX) { *avail = 0; return "trial reservation refused"; }
    void *p = mmap(NULL, (size_t)need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { *avail = 0; return "trial reservation refused"; }
    munmap(p, (size_t)need);
    return NULL;
}

int tl_full_fits(unsigned copies) {
    uint64_t avail;
    return copies && room_short(NEED_BYTES * copies, &avail) == NULL;
}

double tl_full_light_ratio(tl_work_type work) {
    return work == TL_WORK_RANDOMX_V1 || work == TL_WORK_RANDOMX_V2 ? TL_FULL_LIGHT_RATIO : 1.0;
}

int tl_mode_resolve(tl_work_type work, int requested, tl_mode_choice *out) {
    if (!out || !tl_work_name(work) || requested > TL_MODE_FULL) return TL_EINVAL;
    memset(out, 0, sizeof *out);
    out->need_bytes = NEED_BYTES;
    out->avail_bytes = UINT64_MAX;
    out->ratio = tl_full_light_ratio(work);
    if (work == TL_WORK_SHA3_256) { out->mode = TL_MODE_LIGHT; out->why = "no mode"; return TL_OK; }
    if (requested == TL_MODE_LIGHT || requested == TL_MODE_FULL) {
        out->mode = (tl_mode)requested;
        out->forced = 1;
        out->why = "--mode";
        return TL_OK;
    }
    out->mode = TL_MODE_FULL;
    if ((out->why = room_short(NEED_BYTES, &out->avail_bytes)) == NULL) {
        out->why = "memory available";
        return TL_OK;
    }
    out->mode = TL_MODE_LIGHT;
    out->low_memory = 1;
    return TL_OK;
}

tl_mode tl_mode_effective(tl_work_type work, tl_mode m) {
    if (m == TL_MODE_LIGHT || m == TL_MODE_FULL) return m;
    tl_mode_choice mc;
    return tl_mode_resolve(work, TL_MODE_DEFAULT, &mc) == TL_OK ? mc.mode : TL_MODE_LIGHT;
}
