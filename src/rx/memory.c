/* SPDX-License-Identifier: ISC */
/* src/rx/memory.c — large page-aligned allocations for the cache, dataset
 * and scratchpad: mmap + THP advice, 2 MiB aligned from 2 MiB up (or
 * explicit hugetlb pages), wiped on free.  Every failure is returned,
 * never aborted on. */
#include "rx/internal.h"
#include <sodium.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef RXLOCK_TESTING
void (*rx_mem_free_hook)(const void *p, size_t size);
#endif

static size_t page_round(size_t size, size_t page) {
    return (size + page - 1) / page * page;
}

/* psize bytes (whole pages) starting on a 2 MiB boundary, so that THP can
 * back all of it: a kernel before 6.7 places a 2 MiB mapping anywhere, and
 * a scratchpad that straddles two 2 MiB frames gets no huge page at all.
 * Map 2 MiB more and unmap the slack on both sides.  MAP_FAILED on error. */
static void *map_thp_aligned(size_t psize) {
    const uintptr_t huge = (uintptr_t)2u << 20;
    if (psize > SIZE_MAX - huge) return MAP_FAILED;
    uint8_t *raw = mmap(NULL, psize + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return MAP_FAILED;
    uintptr_t a = ((uintptr_t)raw + huge - 1) & ~(huge - 1);
    size_t head = (size_t)(a - (uintptr_t)raw), tail = (size_t)huge - head;
    if ((head && munmap(raw, head) != 0) || (tail && munmap((uint8_t *)a + psize, tail) != 0)) {
        (void)munmap(raw, psize + huge);   /* whatever of it is still mapped */
        return MAP_FAILED;
    }
    return (void *)a;
}

void *rx_mem_alloc(size_t size, unsigned flags) {
    if (size == 0) return NULL;
    void *p = MAP_FAILED;
#ifdef MAP_HUGETLB
    if (flags & RX_FLAG_HUGEPAGES) {
        size_t hsize = page_round(size, 2u << 20);
        p = mmap(NULL, hsize, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
    }
#endif
    if (p == MAP_FAILED) {
        size_t psize = page_round(size, (size_t)sysconf(_SC_PAGESIZE));
        int thp = !(flags & RX_FLAG_NO_THP);
        p = thp && psize >= (2u << 20) ? map_thp_aligned(psize) : MAP_FAILED;
        if (p == MAP_FAILED) p = mmap(NULL, psize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
        if (thp) (void)madvise(p, psize, MADV_HUGEPAGE);
#endif
    }
    return p;
}

void rx_mem_free(void *p, size_t size) {
    if (!p || size == 0) return;
    sodium_memzero(p, size);
#ifdef RXLOCK_TESTING
    if (rx_mem_free_hook) rx_mem_free_hook(p, size);
#endif
    /* munmap rounds to the mapping's page size itself; a hugetlb mapping was
     * rounded to 2 MiB at allocation, so round the same way here. */
    size_t psize = page_round(size, (size_t)sysconf(_SC_PAGESIZE));
    if (munmap(p, psize) != 0) (void)munmap(p, page_round(size, 2u << 20));
}
