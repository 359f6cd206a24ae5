/* SPDX-License-Identifier: ISC */
/* src/rx/internal.h — contracts between the RandomX engine's files.
 *
 * Ownership: memory.c (large allocations), argon2d.c/blake2_gen.c/
 * superscalar.c/dataset.c (cache + dataset side), aes*.c/program.c/
 * vm*.c (VM side).  Each side may add private headers of its own; the
 * functions below are the only cross-side calls, plus one the other way:
 * dataset.c builds RX_FLAG_JIT datasets through the SuperscalarHash JIT
 * of jit.h (rx_jit_ss_new, rx_jit_dataset_items, rx_jit_ss_free).
 */
#ifndef RX_INTERNAL_H
#define RX_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include "rxlock/rx.h"

/* ---- memory.c ------------------------------------------------------ */
/* mmap an anonymous private region of `size` bytes (rounded up to pages),
 * madvise(MADV_HUGEPAGE) unless RX_FLAG_NO_THP, MAP_HUGETLB when
 * RX_FLAG_HUGEPAGES (falls back to normal pages if none are reserved).
 * Returns NULL on failure. */
void *rx_mem_alloc(size_t size, unsigned flags);
/* Wipe (sodium_memzero) and munmap.  NULL is ignored. */
void  rx_mem_free(void *p, size_t size);
#ifdef RXLOCK_TESTING
/* Test hook (test build only): when set, rx_mem_free calls it after wiping,
 * before unmapping, so a test can prove that the memory was wiped. */
extern void (*rx_mem_free_hook)(const void *p, size_t size);
#endif

/* ---- cache / dataset side (dataset.c) -------------------------------- */
/* Compute dataset item `item` (0 <= item < RX_DATASET_ITEMS) from an
 * initialised cache: 8 little-endian 64-bit words. */
void rx_cache_item(const rx_cache *cache, uint64_t item, uint64_t out[8]);
/* The cache as a JIT's light mode reads it: returns its RX_CACHE_SIZE
 * bytes and sets *progs to its RX_SS_PROGRAMS SuperscalarHash programs
 * (struct rx_ss_program, superscalar.h), from which the JIT compiles its own
 * item code; both stay valid and unchanged until the next rx_cache_init or
 * rx_cache_free.  NULL (and *progs = NULL) when not initialised.  This is
 * the only way the VM side reads a cache's contents. */
struct rx_ss_program;
#define RX_SS_PROGRAMS 8
const uint8_t *rx_cache_superscalar(const rx_cache *cache, const struct rx_ss_program **progs);
/* The dataset's bytes (RX_DATASET_ITEMS * 64), for full-mode VMs. */
const uint8_t *rx_dataset_bytes(const rx_dataset *ds);
/* floor(2^x / divisor) as used by IMUL_RCP (divisor not 0, not a power of 2). */
uint64_t rx_reciprocal(uint64_t divisor);

#endif
