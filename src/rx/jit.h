/* src/rx/jit.h — contract between the VM (vm.c) and the JIT backends
 * (jit_x86_64.c, jit_aarch64.c, jit_none.c).  The VM state and program
 * types are the VM side's (program.h, vm_state.h); a JIT run has exactly
 * the semantics of the interpreter's run of one program.
 * Owned by the JIT work; jit_none.c is the fallback where no JIT exists.
 *
 * Security: the code buffer is never writable and executable at once
 * (execmem.c).  rx_jit_compile opens only the pages of the program region
 * it rewrites, and seals them before returning; a failed mprotect is
 * returned as RX_EPROT and the JIT refuses to run until a later compile
 * succeeds.  rx_jit_free makes the buffer writable, wipes it and unmaps it. */
#ifndef RX_JIT_H
#define RX_JIT_H
#include <stdint.h>
#include "rx/internal.h"

struct rx_program;   /* program.h  */
struct rx_vm_state;  /* vm_state.h */
typedef struct rx_jit rx_jit;

/* 1 when this build and CPU have a JIT backend, else 0. */
int  rx_jit_supported(void);
/* flags: the VM's RX_FLAG_* (V2, SECURE, HARD_AES/SOFT_AES, FULL).  The
 * JIT is always W^X, with or without RX_FLAG_SECURE. */
int  rx_jit_new(rx_jit **out, unsigned flags);
/* Compile one program for the given state's configuration (readReg0-3;
 * everything else is read by rx_jit_run). */
int  rx_jit_compile(rx_jit *jit, const struct rx_program *prog, const struct rx_vm_state *state);
/* Run the compiled program (all state->iterations iterations) on state. */
int  rx_jit_run(rx_jit *jit, struct rx_vm_state *state);
/* Make writable, wipe, unmap.  NULL ignored. */
void rx_jit_free(rx_jit *jit);

/* ---- SuperscalarHash JIT (jit_superscalar_x86_64.c; RX_ENOTSUP elsewhere) ----
 * The 8 superscalar programs of a cache compiled into one read+execute
 * code block that computes dataset items (spec 7.3) straight from the
 * cache's bytes.  Build it once per rx_cache_init; it is immutable and may
 * be shared by threads.  Free with rx_jit_ss_free (wipe + unmap). */
struct rx_ss_program;
typedef struct rx_jit_ss rx_jit_ss;
int  rx_jit_ss_new(rx_jit_ss **out, const struct rx_ss_program *progs /* [8] */);
/* items [first, first+count) into out (64 bytes each, little-endian words);
 * cache_bytes: the RX_CACHE_SIZE bytes of the cache the programs belong to. */
int  rx_jit_dataset_items(const rx_jit_ss *code, const uint8_t *cache_bytes,
                          uint64_t first, uint64_t count, uint8_t *out);
/* The code's entries for a program loop's light-mode reads (x86-64 register
 * ABI, not C functions; rdi = cache bytes; the caller's [rsp, rsp+128) is
 * theirs; they clobber rax, rcx, rdx and, for first, r8-r15):
 *   first: rdx = item number -> [rsp, rsp+64) = its half-computed state
 *   pair:  [rsp, rsp+64) = item A half-computed, rdx = item B ->
 *          r8-r15 = item A's 8 words, [rsp, rsp+64) = item B half-computed
 * 0, RX_EPROT (code not sealed) or RX_ENOTSUP. */
int  rx_jit_ss_entries(const rx_jit_ss *code, const void **first, const void **pair);
void rx_jit_ss_free(rx_jit_ss *code);

/* ---- phase profile (built with -DRX_JIT_PROFILE, else all zero) ---- */
struct rx_jit_profile {
    uint64_t compile_ns;   /* code generation + copy into the code pages */
    uint64_t open_ns;      /* make the program pages writable             */
    uint64_t seal_ns;      /* make them executable again                  */
    uint64_t exec_ns;      /* running the program loop                    */
    uint64_t programs;     /* number of compiles                          */
};
/* Accumulated since rx_jit_new (or the last reset); 0, or RX_ENOTSUP when
 * the build has no profile. */
int  rx_jit_profile_get(const rx_jit *jit, struct rx_jit_profile *out);
void rx_jit_profile_reset(rx_jit *jit);
/* Process-wide totals over every JIT (jit_none.c holds them on all arches;
 * a backend built with RX_JIT_PROFILE adds its deltas with _account). */
void rx_jit_profile_account(const struct rx_jit_profile *delta);
void rx_jit_profile_global(struct rx_jit_profile *out);
void rx_jit_profile_global_reset(void);
/* Timing helpers for the backends' phase accounting: RX_PROF_T0/RX_PROF_T
 * take a timestamp, RX_PROF_ADD adds a delta to jit->prof.FIELD; all three
 * vanish without RX_JIT_PROFILE. */
#ifdef RX_JIT_PROFILE
#include <time.h>
static inline uint64_t rx_jit_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define RX_PROF_T0(v) uint64_t v = rx_jit_now_ns()
#define RX_PROF_T(v) uint64_t v = rx_jit_now_ns()
#define RX_PROF_ADD(j, field, d) ((j)->prof.field += (d))
#else
#define RX_PROF_T0(v) (void)0
#define RX_PROF_T(v) (void)0
#define RX_PROF_ADD(j, field, d) (void)0
#endif
#endif
