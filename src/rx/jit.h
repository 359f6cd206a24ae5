/* SPDX-License-Identifier: ISC */
/* src/rx/jit.h — contract between the VM (vm.c) and the JIT (the
 * lifecycle in jit_lifecycle.c over the backends' tables: jit_x86_64.c,
 * jit_aarch64.c; none in jit_none.c).  The VM state and program
 * types are the VM side's (program.h, vm_state.h); a JIT run has exactly
 * the semantics of the interpreter's run of one program.
 * Owned by the JIT work; jit_none.c is the fallback where no JIT exists;
 * jit_common.c holds what the backends share (the end of this header).
 *
 * Security: the code buffer is never writable and executable at once
 * (execmem.c).  Both backends lay it out the same way: entry/exit page
 * (RX) | guard page (no access) | program pages | guard.  The program pages
 * are a mapping of their own.  With the /proc/self/mem writer (the
 * default where the system allows it) rx_jit_compile writes each program
 * into them while they stay RX: no flips, no writable window.  Otherwise
 * it opens them RW as a whole, rewrites them whole (code, then trapping
 * padding to the page end) and seals them RX before returning; a failed
 * mprotect is returned as RX_EPROT and the JIT refuses to run until a
 * later compile succeeds.  rx_jit_free makes the buffer writable, wipes
 * it and unmaps it. */
#ifndef RX_JIT_H
#define RX_JIT_H
#include <stdint.h>
#include "rx/internal.h"
#include "rx/execmem.h"

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
/* The same, plus the vector form for whole dataset builds where the CPU has
 * one (AVX-512 F+DQ: 8 items per group, else AVX2: 4; the same bytes;
 * RXLOCK_SUPERSCALAR=scalar|avx2|avx512 picks one, for benchmarks/tests).  A vector block that cannot be mapped or sealed
 * fails the call (RX_ENOMEM / RX_EPROT), like the scalar one. */
int  rx_jit_ss_new_dataset(rx_jit_ss **out, const struct rx_ss_program *progs /* [8] */);
/* "avx512", "avx2" or "scalar": what rx_jit_dataset_items runs whole groups with. */
const char *rx_jit_ss_kind(const rx_jit_ss *code);
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
    uint64_t flips;        /* mprotect calls of the installs (0 per program
                            * with the /proc/self/mem writer)              */
    uint64_t emit_ns;      /* code generation alone (within compile_ns);
                            * the install is the rest of compile_ns plus
                            * open_ns and seal_ns                          */
};
/* Accumulated since rx_jit_new (or the last reset); 0, or RX_ENOTSUP when
 * the build has no profile. */
int  rx_jit_profile_get(const rx_jit *jit, struct rx_jit_profile *out);
void rx_jit_profile_reset(rx_jit *jit);
/* Process-wide totals over every JIT (jit_common.c, all arches; a backend
 * built with RX_JIT_PROFILE adds its deltas with _account). */
void rx_jit_profile_account(const struct rx_jit_profile *delta);
void rx_jit_profile_global(struct rx_jit_profile *out);
void rx_jit_profile_global_reset(void);
/* Timing helpers for the backends' phase accounting, all vanishing without
 * RX_JIT_PROFILE: RX_PROF_T0/RX_PROF_T take a timestamp; RX_PROF_PH declares
 * the three phase stamps rx_execmem_install fills (opened, copied, sealed;
 * pass RX_PROF_PH_ARG, NULL without profiling); RX_PROF_COMPILED and
 * RX_PROF_RAN book one compile (t0 start, t1 generated, then the phases) or
 * one run (t0, t1) in jit->prof and in the process-wide totals. */
#ifdef RX_JIT_PROFILE
#include "util/util.h"
#define RX_PROF_T0(v) uint64_t v = util_now_ns()
#define RX_PROF_T(v) uint64_t v = util_now_ns()
#define RX_PROF_PH(v) uint64_t v[3] = { 0, 0, 0 }
#define RX_PROF_PH_ARG(v) (v)
#define RX_PROF_COMPILED(j, t0, t1, ph) \
    rx_jit_profile_book(&(j)->prof, (t1) - (t0) + (ph)[1] - (ph)[0], (ph)[0] - (t1), (ph)[2] - (ph)[1], 0, 1, \
                        (t1) - (t0))
#define RX_PROF_RAN(j, t0, t1) rx_jit_profile_book(&(j)->prof, 0, 0, 0, (t1) - (t0), 0, 0)
#define RX_PROF_FLIPS(j, n) rx_jit_profile_book_flips(&(j)->prof, (n))
#else
#define RX_PROF_T0(v) (void)0
#define RX_PROF_T(v) (void)0
#define RX_PROF_PH(v) (void)0
#define RX_PROF_PH_ARG(v) NULL
#define RX_PROF_COMPILED(j, t0, t1, ph) (void)0
#define RX_PROF_RAN(j, t0, t1) (void)0
#define RX_PROF_FLIPS(j, n) (void)0
#endif

/* ---- shared by the backends (jit_common.c) ------------------------------
 * What is not architecture-specific in a JIT backend.  Each backend keeps
 * its own struct rx_jit and context (the generated code addresses the
 * context's fields at offsets of its own); these functions take the
 * pieces they work on. */

/* The AES a JIT made with `flags` uses: rx_aes_choose (aes_dispatch.c). */
int  rx_jit_choose_aes(unsigned flags, int *soft);
/* What a JIT made with `flags` runs: the flags, RandomX v2 or v1, software
 * or hardware AES (rx_jit_choose_aes), full (dataset) or light (cache).
 * 0 or rx_jit_choose_aes's error. */
struct rx_jit_mode {
    unsigned flags;
    int v2, soft_aes, full;
};
int  rx_jit_mode_of(unsigned flags, struct rx_jit_mode *m);
/* A backend's struct rx_jit: `size` bytes, 64-byte aligned, zeroed (free()
 * releases it).  NULL when out of memory. */
void *rx_jit_alloc(size_t size);
/* The argument checks of rx_jit_compile and rx_jit_run against the JIT's
 * mode (v2: RandomX v2; full: dataset, else cache): 0, RX_EINVAL (wrong
 * version, program size, datasetOffset) or RX_ESTATE (no dataset / cache). */
int  rx_engine_check_compile(const struct rx_program *prog, const struct rx_vm_state *st, int v2);
int  rx_engine_check_run(const struct rx_vm_state *st, int v2, int full);
/* Register file into a context at the start of a run (spec 4.6.1: r = 0;
 * f, e, a and the E "or" mask from st) and back out at its end (r, f, e;
 * the a registers are read-only).  {lo, hi} words per FP register. */
void rx_jit_regs_in(const struct rx_vm_state *st, uint64_t r[8], uint64_t f[8], uint64_t e[8],
                    uint64_t a[8], uint64_t emask_or[2]);
/* rx_engine_check_run against the mode, then rx_jit_regs_in: the start of
 * every backend's rx_jit_run.  0 or the check's error (nothing copied). */
int  rx_jit_run_begin(const struct rx_vm_state *st, const struct rx_jit_mode *m, uint64_t r[8],
                      uint64_t f[8], uint64_t e[8], uint64_t a[8], uint64_t emask_or[2]);
void rx_jit_regs_out(struct rx_vm_state *st, const uint64_t r[8], const uint64_t f[8], const uint64_t e[8]);
/* The constant masks each context holds in both halves of a vector:
 * E registers' "and" mask (spec 4.3.2) and the FSCAL_R XOR mask (5.3.4). */
#define RX_JIT_EMASK_AND  0x00FFFFFFFFFFFFFFull
#define RX_JIT_SCALE_MASK 0x80F0000000000000ull
void rx_jit_masks_init(uint64_t emask_and[2], uint64_t scale_mask[2]);
struct rx_instr;
/* Every backend's compile argument check: a handle, 1..max instructions and
 * four register indices 0..7.  1 when they hold. */
int  rx_jit_args_ok(const void *jit, const struct rx_instr *code, unsigned n, unsigned max,
                    const uint32_t read_reg[4]);
/* Per-JIT profile (a backend's jit->prof; all zero without RX_JIT_PROFILE):
 * _copy is rx_jit_profile_get's body (0, or RX_ENOTSUP without profile;
 * RX_EINVAL for NULL), _book adds one phase delta to *prof and to the
 * process-wide totals. */
int  rx_jit_profile_copy(const struct rx_jit_profile *prof, struct rx_jit_profile *out);
void rx_jit_profile_book_flips(struct rx_jit_profile *prof, uint64_t flips);
void rx_jit_profile_book(struct rx_jit_profile *prof, uint64_t compile_ns, uint64_t open_ns,
                         uint64_t seal_ns, uint64_t exec_ns, uint64_t programs, uint64_t emit_ns);
/* ---- the lifecycle, once for every backend (jit_lifecycle.c) ----------
 * rx_jit_supported/new/compile/run/free and the profile entries above are
 * written once, in jit_lifecycle.c, over a per-architecture table
 * (rx_jit_arch(): jit_x86_64.c, jit_aarch64.c; NULL in jit_none.c, and
 * then every entry says RX_ENOTSUP).  A backend's struct rx_jit starts
 * with a struct rx_jit_core, the part the lifecycle owns.  The code buffer,
 * in pages of the system's size P: entry/exit (page 0) | guard (page 1) |
 * program region (stage_cap rounded up to pages, from prog_off = 2 P) |
 * guard; the guards keep the program pages a mapping of their own. */
struct rx_jit_core {
    rx_execmem mem;
    const struct rx_jit_arch *arch;
    struct rx_jit_mode mode;
    int ready;                  /* a program is compiled and installed        */
    size_t prog_off;            /* first program byte: two pages in           */
    size_t prog_cap;            /* program region: whole pages                */
    size_t prog_span;           /* program-region bytes in use (RX)           */
    size_t epilogue_off;        /* the exit's offset in page 0                */
    uint8_t *stage;             /* the backend's staging buffer (stage_cap)   */
    struct rx_jit_profile prof; /* all zero without RX_JIT_PROFILE            */
};
struct rx_jit_arch {
    size_t jit_size;            /* sizeof the backend's struct rx_jit         */
    size_t stage_off;           /* offsetof its staging buffer                */
    size_t stage_cap;           /* the staging buffer's size                  */
    size_t page;                /* the page size the backend needs; 0: any    */
    uint8_t fill;               /* trapping byte for unused code bytes        */
    /* NULL, or make [p, p+n) visible to instruction fetch (AArch64) */
    void (*flush)(uint8_t *p, size_t n);
    /* the context's constants, once, in rx_jit_new */
    void (*init)(rx_jit *j);
    /* emit the entry and exit into the stage (at most cap bytes): *len and
     * core->epilogue_off set; 0 or RX_EINTERNAL */
    int  (*emit_entry)(rx_jit *j, size_t cap, size_t *len);
    /* emit one program's loop into the stage: *len set; 0 or RX_EINTERNAL */
    int  (*emit_program)(rx_jit *j, const struct rx_instr *code, unsigned n, const unsigned rr[4],
                         size_t *len);
    /* a function `unsigned f(void) { return v; }` (v < 65536) into p (16
     * bytes): its length.  The writer's probe (rx_jit_new). */
    size_t (*emit_probe)(uint8_t p[16], unsigned v);
    /* rx_jit_run's body (it ends in rx_jit_enter) */
    int  (*run)(rx_jit *j, struct rx_vm_state *st);
    /* NULL, or free what the backend holds besides (before the wipe) */
    void (*release)(rx_jit *j);
};
const struct rx_jit_arch *rx_jit_arch(void);
static inline struct rx_jit_core *rx_jit_core_of(rx_jit *j) { return (struct rx_jit_core *)(void *)j; }
/* How programs are installed now: "proc-mem" (written through the
 * /proc/self/mem writer into pages that stay read+execute) or "mprotect"
 * (flipped RW, written, flipped RX).  rx_jit_new gives a JIT the writer
 * unless RX_FLAG_JIT_MPROTECT, and only when a probe shows the write
 * reaches instruction fetch (a function rewritten through it returns the
 * new value); a later refusal turns it to "mprotect" for good. */
const char *rx_jit_install(const rx_jit *j);
/* 0 when a compiled program is installed and sealed; RX_ESTATE (none) or
 * RX_EPROT (some code page is writable). */
int  rx_jit_runnable(rx_jit *j);
/* rx_jit_runnable, then call the entry with ctx (the program loop runs),
 * and book the run in the profile.  0 or rx_jit_runnable's error. */
int  rx_jit_enter(rx_jit *j, void *ctx);
#ifdef RXLOCK_TESTING
/* Test build only (bench/bench_stall): where the full-mode x86-64 loop's
 * time goes.  Read when a program is compiled.  TINY and PF_ONLY give wrong
 * hashes on purpose; NO_PF and DELAY give the right ones. */
enum rx_jit_stall {
    RX_JIT_STALL_NONE = 0,      /* the product loop                                   */
    RX_JIT_STALL_TINY = 1,      /* dataset reads and prefetches within 16 KiB: compute only */
    RX_JIT_STALL_PF_ONLY = 2,   /* prefetches at the real addresses, reads within 16 KiB */
    RX_JIT_STALL_NO_PF = 3,     /* no dataset prefetch at all                         */
    RX_JIT_STALL_DELAY = 4,     /* 20 dependent imuls (~60 cycles) before the program, on
                                 * every register's chain                              */
    RX_JIT_STALL_NOPS = 5       /* 64 one-byte nops before the program: ROB entries only */
};
extern unsigned rx_jit_test_stall;
#endif
#endif
