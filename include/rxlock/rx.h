/* SPDX-License-Identifier: ISC */
/* include/rxlock/rx.h — rxlock's own RandomX v1/v2 engine: public API (prefix rx_).
 *
 * Lifecycle:  rx_cache_new -> rx_cache_init(key) -> [rx_dataset_new ->
 * rx_dataset_init(..)] -> rx_vm_new -> rx_vm_hash ... -> rx_vm_free ->
 * rx_dataset_free -> rx_cache_free.  Every call returns 0 or a negative
 * RX_E* code (-1 .. -99, include/rxlock/error.h); nothing aborts.  Every
 * *_free wipes what it frees.
 * A cache / dataset is read-only after init and may be shared by many VMs
 * (threads, or processes after fork()).  A VM is single-threaded.
 */
#ifndef RXLOCK_RX_H
#define RXLOCK_RX_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum rx_error {
    RX_OK        = 0,
    RX_EINVAL    = -1,  /* NULL pointer, bad size, bad flag combination  */
    RX_ENOMEM    = -2,  /* mmap/malloc failed                            */
    RX_EPROT     = -3,  /* a page-permission change (mprotect) failed    */
    RX_ENOTSUP   = -4,  /* requested feature not available on this CPU   */
    RX_ESTATE    = -5,  /* object not initialised / wrong mode           */
    RX_EINTERNAL = -6,
    RX_EJIT      = -7   /* RX_FLAG_JIT without RX_FLAG_JIT_FALLBACK, and the
                           JIT cannot start here (rx_engine_check says why)  */
};

enum rx_flag {
    RX_FLAG_V2        = 1u << 0, /* RandomX v2 (else v1)                      */
    RX_FLAG_FULL      = 1u << 1, /* full mode: VM reads the 2080 MiB dataset  */
    RX_FLAG_JIT       = 1u << 2, /* compile programs to machine code          */
    RX_FLAG_SECURE    = 1u << 3, /* W^X JIT: code RW while written, RX to run */
    RX_FLAG_HARD_AES  = 1u << 4, /* force hardware AES (RX_ENOTSUP if absent) */
    RX_FLAG_SOFT_AES  = 1u << 5, /* force software AES                        */
    RX_FLAG_HUGEPAGES = 1u << 6, /* explicit hugetlb pages (MAP_HUGETLB)      */
    RX_FLAG_NO_THP    = 1u << 7, /* do not madvise(MADV_HUGEPAGE)             */
    RX_FLAG_JIT_FALLBACK = 1u << 8, /* with JIT: run the interpreter when the JIT
                                      cannot start (rx_vm_fallback_reason says
                                      why) instead of failing with RX_EJIT   */
    RX_FLAG_JIT_MPROTECT = 1u << 9 /* install each program by flipping its pages
                                      RW and back RX, never through
                                      /proc/self/mem (rx_vm_jit_install)     */
};

#define RX_HASH_SIZE        32
#define RX_MAX_KEY_SIZE     (1u << 20)   /* bound on key length accepted   */
#define RX_MAX_INPUT_SIZE   (1u << 20)   /* bound on input length accepted */
#define RX_CACHE_SIZE       (256u << 20)
#define RX_DATASET_ITEMS    34078719ull  /* 2080 MiB / 64                  */

typedef struct rx_cache   rx_cache;
typedef struct rx_dataset rx_dataset;
typedef struct rx_vm      rx_vm;

/* Flags recommended on this machine: V2 | JIT | SECURE | JIT_FALLBACK where
 * a JIT exists (the JIT when it starts, else the interpreter, reported by
 * rx_vm_fallback_reason), HARD_AES when the CPU has it. */
unsigned rx_flags_default(void);
/* Apply the documented user switches (rxlock(1) ENVIRONMENT) to flags:
 * RXLOCK_ENGINE=interp  interpreter only (clears JIT, SECURE, JIT_FALLBACK);
 * RXLOCK_ENGINE=jit     the JIT or an error (sets JIT | SECURE, clears
 *                       JIT_FALLBACK: rx_vm_new fails with RX_EJIT);
 * RXLOCK_AES=soft|hard  force software / hardware AES;
 * RXLOCK_JIT_INSTALL=mprotect|proc-mem  set / clear RX_FLAG_JIT_MPROTECT. */
unsigned rx_flags_from_env(unsigned flags);
/* NULL when a JIT VM with these flags can start on this machine, else a
 * one-line reason (a static string). */
const char *rx_engine_check(unsigned flags);
/* Documented alias, for engine-only users: names an RX_E* code (any other
 * code: "unknown error").  The error space's one name is rxlock_strerror()
 * (include/rxlock/error.h), which gives the same text for RX_E* codes. */
const char *rx_strerror(int err);

int  rx_cache_new(rx_cache **out, unsigned flags);
int  rx_cache_init(rx_cache *cache, const void *key, size_t key_len);
/* A copy of an initialised cache in a new allocation (same flags, same
 * bytes and programs): a second placement of the same memory in RAM. */
int  rx_cache_clone(rx_cache **out, const rx_cache *src);
void rx_cache_free(rx_cache *cache);

/* flags: page flags (RX_FLAG_NO_THP, RX_FLAG_HUGEPAGES); with RX_FLAG_JIT the
 * builds below compile the cache's SuperscalarHash programs once per call
 * (W^X, x86-64; elsewhere the portable path runs, same bytes), and a JIT
 * that cannot map its code fails them (RX_EPROT) unless
 * RX_FLAG_JIT_FALLBACK is also set. */
int      rx_dataset_new(rx_dataset **out, unsigned flags);
uint64_t rx_dataset_item_count(void);
/* Compute items [first, first+count) from an initialised cache.
 * Callers may split the range across threads or processes. */
int  rx_dataset_init(rx_dataset *ds, const rx_cache *cache, uint64_t first, uint64_t count);
/* Convenience: the whole dataset with `threads` threads (0 = online CPUs). */
int  rx_dataset_init_parallel(rx_dataset *ds, const rx_cache *cache, unsigned threads);
/* Items [first, first+count) with `threads` threads (0 = usable CPUs): a
 * build in slices, e.g. to report progress between them. */
int  rx_dataset_init_range_parallel(rx_dataset *ds, const rx_cache *cache, uint64_t first, uint64_t count,
                                    unsigned threads);
/* A copy of a built dataset in a new allocation (same flags and bytes):
 * calibration measures several placements, since where the
 * 2 GiB land moves the hash rate on some machines (4-16% on a VM). */
int  rx_dataset_clone(rx_dataset **out, const rx_dataset *src);
void rx_dataset_free(rx_dataset *ds);
/* Share (0..1) of the dataset's memory the kernel backs with huge pages
 * (hugetlb: 1; else transparent huge pages from /proc/self/smaps), -1 when
 * unknown.  The page size moves the full-mode hash rate by 1.4-1.5x. */
double rx_dataset_huge_share(const rx_dataset *ds);

/* cache is required in light mode; ds is required with RX_FLAG_FULL. */
int  rx_vm_new(rx_vm **out, unsigned flags, const rx_cache *cache, const rx_dataset *ds);
/* Flags the VM actually runs with (after JIT/AES resolution): RX_FLAG_JIT
 * only when the JIT really runs the programs, one of HARD_AES / SOFT_AES. */
unsigned rx_vm_flags(const rx_vm *vm);
/* NULL, or why the JIT that was asked for with RX_FLAG_JIT_FALLBACK does
 * not run (the VM then runs the interpreter); a static string. */
const char *rx_vm_fallback_reason(const rx_vm *vm);
/* How the VM's JIT installs each program: "proc-mem" (written through a
 * /proc/self/mem descriptor into pages that stay read+execute: no
 * permission flips, no writable window) or "mprotect" (pages flipped RW,
 * written, flipped RX: RX_FLAG_JIT_MPROTECT, or the system refused the
 * writes).  NULL when the VM runs the interpreter. */
const char *rx_vm_jit_install(const rx_vm *vm);
/* Open this process's /proc/self/mem descriptor now, for the JITs made
 * later in it; a process about to make itself non-dumpable
 * (PR_SET_DUMPABLE 0, which makes the file root's) calls this first.
 * Never handed out; closed in a forked child (which opens its own, or
 * flips).  0, or RX_EPROT when refused (the JITs then flip). */
int  rx_engine_writer_prepare(void);
int  rx_vm_hash(rx_vm *vm, const void *input, size_t input_len, uint8_t out[RX_HASH_SIZE]);
void rx_vm_free(rx_vm *vm);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
