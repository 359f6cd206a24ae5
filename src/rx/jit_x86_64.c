/* SPDX-License-Identifier: ISC */
/* src/rx/jit_x86_64.c — x86-64 JIT for RandomX v1/v2 programs.
 *
 * Register map of the generated code (System V x86-64):
 *   r8-r15   VM r0-r7              xmm0-3  f0-f3      xmm4-7  e0-e3
 *   rsi      scratchpad            xmm8-11 a0-a3      xmm12   E "and" mask
 *   rdi      dataset + datasetOffset (full mode)      xmm13   FSCAL mask
 *            cache bytes (light mode)
 *   rbp      struct jit_ctx *      xmm14   E "or" mask (per program)
 *   rbx      iteration counter     xmm15   temporary
 *   rax rcx rdx  temporaries         [rsp, rsp+128)  light-mode item pipeline
 * Inside a program ISWAP_R renames instead of moving (struct emit_st): VM
 * r[i] lives in r8 + map[i]; the program's end (and the stub of a taken
 * CBRANCH into code emitted under another map) moves them back.
 *
 * Light mode: dataset items come from the cache's superscalar code
 * (jit_superscalar_x86_64.c) through its register-ABI entries, two items in
 * flight: at each read, "pair" finishes the item this read needs (its
 * first half ran during the previous iteration) and starts the next read's,
 * so one item's cache-line misses overlap the other's programs.
 *
 * Code buffer (execmem.c, W^X): page 0 holds the entry (prologue) and the
 * exit (epilogue), written once by rx_jit_new and RX from then on.  The
 * following pages hold the current program's loop; rx_jit_compile builds it
 * in a private staging buffer and installs it (execmem.c).  Nothing is ever
 * writable and executable.  The lifecycle (new, compile, install, run's
 * call, free, profile) is jit_lifecycle.c's; this file is the table it
 * runs: the context, the emitters and the run's set-up.
 */
#if defined(__x86_64__)
#include "rx/jit.h"
#include "rx/program.h"
#include "rx/vm_state.h"
#include "rx/execmem.h"
#include "rx/x86_emit.h"
#include "rx/aes.h"
#include "rx/superscalar.h"       /* light mode: rx_ss_program (internal.h rx_cache_superscalar) */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#ifdef RX_JIT_PROFILE
#include <time.h>
#endif

#define RREG(i) (XR_R8 + (int)(i))
#define X_TMP 15
#define X_EAND 12
#define X_SCALE 13
#define X_EOR 14

#define L1_MASK  0x3FF8u
#define L2_MASK  0x3FFF8u
#define L3_MASK  0x1FFFF8u
#define L3_MASK64 0x1FFFC0u
#define DS_MASK  0x7FFFFFC0u      /* (DATASET_BASE_SIZE - 1) & ~63 */
#define DS_TINY  0x3FC0u          /* test build, bench_stall: 16 KiB */
#define MXCSR_BASE 0x9FC0u        /* all exceptions masked, FTZ, DAZ */

/* Layout (4 KiB pages): 0 entry/exit (RX) | 1 guard (none) | 2-6 program
 * region | 7 guard (none).  The guards keep the program pages a VMA of
 * their own, so flipping them is a whole-VMA mprotect (no split/merge:
 * measured 2-3x cheaper on this VM).  The program's pages are rewritten
 * whole every compile (code, then int3 padding to the page end); their
 * count only grows, so the same VMA is flipped each time. */
#define PAGE        4096u
#define STAGE_CAP   (20u * 1024u)
/* what the join copies of each instruction's bytes (emit_program): more
 * than the longest one (CFROUND in v2: 43 bytes) */
#define SLOT        64u
#define PROG_OFF    (2u * PAGE)
#define RX_JIT_MAX_PROGRAM RX_PROGRAM_MAX_SIZE
/* stack frame below the 6 saved registers: [rsp, rsp+128) is the light-mode
 * item pipeline's state (rx_jit_ss_entries), +24 keeps rsp 16-aligned */
#define FRAME       (128 + 24)

/* What the generated code reads and writes through rbp.  The register
 * file comes first, in the layout of struct rx_vm_state. */
struct rx_jit_ctx {
    _Alignas(64) uint64_t r[8];
    uint64_t f[8], e[8], a[8];          /* {lo, hi} per register */
    uint64_t emask_and[2], emask_or[2], scale_mask[2];
    uint8_t *scratchpad;
    const uint8_t *dataset;             /* full mode: bytes + datasetOffset */
    uint64_t dataset_offset;
    const void *ss_first, *ss_pair;     /* light mode: rx_jit_ss_entries     */
    void (*soft_mix)(struct rx_jit_ctx *);
    uint32_t ma, mx, sp0, sp1;
    uint32_t mxcsr_saved, mxcsr_tmp, fprc, iterations;
    /* IMUL_RCP's reciprocals, written by the compile: "imul r, [rbp+d]" is
     * one fused uop where "mov rax, imm64; imul r, rax" is two */
    uint64_t rcp[RX_JIT_MAX_PROGRAM];
};


struct rx_jit {
    struct rx_jit_core core;   /* first: the lifecycle's part (jit.h) */
    /* light mode: SuperscalarHash compiled from a copy of the cache's
     * programs; rebuilt when the cache (pointer, memory or programs) changes */
    rx_jit_ss *ss;
    const rx_cache *ss_cache;
    const uint8_t *ss_cache_mem;
    rx_ss_program *ss_progs;           /* RX_SS_PROGRAMS copies */
    uint8_t stage[STAGE_CAP];
    uint8_t pieces[STAGE_CAP + SLOT];  /* the instructions by type (emit_program) */
    struct rx_jit_ctx ctx;
};

#ifdef RXLOCK_TESTING
unsigned rx_jit_test_stall;
#endif

#define CTX(field) xm(XR_RBP, (int32_t)offsetof(struct rx_jit_ctx, field))
#define CTXO(field, o) xm(XR_RBP, (int32_t)offsetof(struct rx_jit_ctx, field) + (int32_t)(o))

/* ---- helpers called from generated code -------------------------------- */
static void soft_mix(struct rx_jit_ctx *c) {
    rx_aes_soft_ops()->mix_fe(c->f, c->e);
}

/* load r0-r7, f/e/a and the E/scale masks from the context into their
 * registers (at entry, and after a C call clobbered them) */
static void emit_load_vm_regs(xe_buf *b) {
    for (int i = 0; i < 8; i++) xe_load(b, 1, RREG(i), CTXO(r, 8 * i));
    for (int i = 0; i < 4; i++) {
        xe_sse_rm(b, XO_MOVAPD_LOAD, i, CTXO(f, 16 * i));
        xe_sse_rm(b, XO_MOVAPD_LOAD, 4 + i, CTXO(e, 16 * i));
        xe_sse_rm(b, XO_MOVAPD_LOAD, 8 + i, CTXO(a, 16 * i));
    }
    xe_sse_rm(b, XO_MOVAPD_LOAD, X_EAND, CTX(emask_and));
    xe_sse_rm(b, XO_MOVAPD_LOAD, X_SCALE, CTX(scale_mask));
    xe_sse_rm(b, XO_MOVAPD_LOAD, X_EOR, CTX(emask_or));
}

/* spill everything a C call may clobber, call [rbp+off], reload */
static void emit_c_call(xe_buf *b, int32_t fn_off) {
    for (int i = 0; i < 8; i++) xe_store(b, 1, CTXO(r, 8 * i), RREG(i));
    for (int i = 0; i < 4; i++) {
        xe_movdqu_store(b, CTXO(f, 16 * i), i);
        xe_movdqu_store(b, CTXO(e, 16 * i), 4 + i);
    }
    xe_mov_rr(b, 1, XR_RDI, XR_RBP);
    xe_call_m(b, xm(XR_RBP, fn_off));
    emit_load_vm_regs(b);
    xe_load(b, 1, XR_RSI, CTX(scratchpad));
    xe_load(b, 1, XR_RDI, CTX(dataset));
}

/* ---- prologue / epilogue (page 0) -------------------------------------- */
static size_t emit_entry(xe_buf *b, const uint8_t *run_base) {
    static const int saved[6] = { XR_RBX, XR_RBP, XR_R12, XR_R13, XR_R14, XR_R15 };
    for (int i = 0; i < 6; i++) xe_push(b, saved[i]);
    xe_alu_ri(b, 1, XA_SUB, XR_RSP, FRAME);       /* rsp 16-aligned for C calls */
    xe_mov_rr(b, 1, XR_RBP, XR_RDI);
    xe_stmxcsr(b, CTX(mxcsr_saved));
    emit_load_vm_regs(b);
    xe_load(b, 0, XR_RAX, CTX(fprc));
    xe_alu_ri(b, 0, XA_AND, XR_RAX, 3);
    xe_shift_ri(b, 0, XS_SHL, XR_RAX, 13);
    xe_alu_ri(b, 0, XA_OR, XR_RAX, (int32_t)MXCSR_BASE);
    xe_store(b, 0, CTX(mxcsr_tmp), XR_RAX);
    xe_ldmxcsr(b, CTX(mxcsr_tmp));
    xe_load(b, 1, XR_RSI, CTX(scratchpad));
    xe_load(b, 1, XR_RDI, CTX(dataset));
    xe_load(b, 0, XR_RBX, CTX(iterations));
    xe_jmp_abs(b, run_base, run_base + PROG_OFF);
    /* epilogue */
    size_t epi = b->len;
    for (int i = 0; i < 8; i++) xe_store(b, 1, CTXO(r, 8 * i), RREG(i));
    for (int i = 0; i < 4; i++) {
        xe_movapd_store(b, CTXO(f, 16 * i), i);
        xe_movapd_store(b, CTXO(e, 16 * i), 4 + i);
    }
    xe_stmxcsr(b, CTX(mxcsr_tmp));
    xe_load(b, 0, XR_RAX, CTX(mxcsr_tmp));
    xe_shift_ri(b, 0, XS_SHR, XR_RAX, 13);
    xe_alu_ri(b, 0, XA_AND, XR_RAX, 3);
    xe_store(b, 0, CTX(fprc), XR_RAX);
    xe_ldmxcsr(b, CTX(mxcsr_saved));
    xe_alu_ri(b, 1, XA_ADD, XR_RSP, FRAME);
    for (int i = 5; i >= 0; i--) xe_pop(b, saved[i]);
    xe_ret(b);
    return epi;
}

/* ---- program loop ------------------------------------------------------ */
static uint32_t read_mask(unsigned mod) { return (mod & 3u) ? L1_MASK : L2_MASK; }

/* ---- the program's hot forms, specialised ----
 * The VM registers are always r8-r15 and the scratchpad base rsi, so most
 * of what x86_emit.h's generic encoder decides per call (REX bits, SIB,
 * which registers need a displacement) is fixed here; what is left (the
 * disp0/disp8/disp32 choice) is computed, not branched on, where it can
 * be.  The bytes are exactly what the generic forms write (same
 * code_digest).  Bytes past an instruction's length in head/tail are
 * don't-care: xe_put's next store overwrites them. */
XE_INLINE void put_h(xe_buf *b, uint64_t head, unsigned nh) {
    xe_ins x = { head, 0, nh, 0 };
    xe_put(b, &x);
}
XE_INLINE void put_ht(xe_buf *b, uint64_t head, unsigned nh, uint32_t tail, unsigned nt) {
    xe_ins x = { head, tail, nh, nt };
    xe_put(b, &x);
}
/* ModRM.mod for [base + d]: 0 (no disp; not for base rbp/r13), 1 (disp8)
 * or 2 (disp32), and the displacement's length */
XE_INLINE unsigned disp_mod(int32_t d, unsigned base7) {
    unsigned m8 = (uint32_t)d + 128u < 256u ? 1u : 2u;
    return (d == 0 && base7 != 5u) ? 0u : m8;
}
XE_INLINE unsigned disp_len(unsigned mod) { return (0x040100u >> (8 * mod)) & 0xFFu; }
/* op64 reg, rm: both r8-r15: REX.WRB op ModRM (opc: 1 or 2 opcode bytes) */
XE_INLINE void vm_rr(xe_buf *b, uint32_t opc, unsigned nopc, int reg, int rm) {
    uint64_t modrm = 0xC0u | (((unsigned)reg & 7u) << 3) | ((unsigned)rm & 7u);
    put_h(b, 0x4Du | ((uint64_t)opc << 8) | (modrm << (8 * (1 + nopc))), 2 + nopc);
}
/* op64 /digit, rm (r8-r15) [, imm of nimm bytes]: REX.WB op ModRM */
XE_INLINE void vm_digit(xe_buf *b, unsigned op, unsigned digit, int rm, unsigned nimm, uint32_t imm) {
    uint64_t modrm = 0xC0u | (digit << 3) | ((unsigned)rm & 7u);
    put_ht(b, 0x49u | ((uint64_t)op << 8) | (modrm << 16), 3, imm, nimm);
}
/* op reg, [rsi + idx] (idx rax or rcx) or [rsi + disp] (idx < 0); rex
 * holds W and R for reg (r8-r15 or a /digit) */
XE_INLINE void vm_rsi_mem(xe_buf *b, unsigned rex, uint32_t opc, unsigned nopc, unsigned reg, int idx, int32_t disp) {
    uint64_t head = rex | ((uint64_t)opc << 8);
    unsigned at = 8 * (1 + nopc);
    if (idx >= 0) {
        uint64_t ms = (0x04u | ((reg & 7u) << 3)) | ((0x06u | ((unsigned)idx << 3)) << 8);
        put_h(b, head | (ms << at), 3 + nopc);
    } else {
        unsigned mod = disp_mod(disp, 6);
        uint64_t modrm = (mod << 6) | ((reg & 7u) << 3) | 6u;
        put_ht(b, head | (modrm << at), 2 + nopc, (uint32_t)disp, disp_len(mod));
    }
}

/* mov rax, VM register in r8 + reg7 (49 8B C0+r) */
XE_INLINE void mov_rax_vm(xe_buf *b, unsigned reg7) { put_h(b, 0xC08B49u | ((uint64_t)reg7 << 16), 3); }
/* mov VM register in r8 + reg7, rdx (4C 8B C2+8r) */
XE_INLINE void mov_vm_rdx(xe_buf *b, unsigned reg7) { put_h(b, 0xC28B4Cu | ((uint64_t)reg7 << 19), 3); }

/* tmp32 = (host register reg + imm) & mask: lea tmp32, [reg + imm];
 * and tmp32, imm32 (81 /4).  tmp is rax or rcx, reg r8-r15. */
XE_INLINE void emit_addr(xe_buf *b, int tmp, int reg, uint32_t imm, uint32_t mask) {
    unsigned base7 = (unsigned)reg & 7u, mod = disp_mod((int32_t)imm, base7);
    unsigned sib = base7 == 4u;                   /* r12 needs a SIB (24) */
    uint64_t modrm = (mod << 6) | ((unsigned)tmp << 3) | base7;
    put_ht(b, 0x8D41u | (modrm << 16) | (0x24ull << 24), 3 + sib, imm, disp_len(mod));
    put_ht(b, 0xE081u + ((uint64_t)tmp << 8), 2, mask, 4);
}
/* op reg, [integer read]: [rsi + tmp] after tmp = (S + imm) & mask, or
 * [rsi + (imm & L3)] when src == dst */
XE_INLINE void int_src_op(xe_buf *b, int tmp, unsigned dst, unsigned src, int S, unsigned mod, uint32_t imm,
                          unsigned rex, uint32_t opc, unsigned nopc, unsigned reg) {
    if (src == dst) { vm_rsi_mem(b, rex, opc, nopc, reg, -1, (int32_t)(imm & L3_MASK)); return; }
    emit_addr(b, tmp, S, imm, read_mask(mod));
    vm_rsi_mem(b, rex, opc, nopc, reg, tmp, 0);
}

/* What the program emitter tracks.  ISWAP_R emits nothing: it swaps where
 * two VM registers live (map).  A taken CBRANCH whose target was emitted
 * under another map goes through a stub that moves the registers back
 * (emitted after the loop, patched in), and the end of the program moves
 * them back to r8-r15 in order before step 5.
 *
 * The program is emitted in three passes (emit_program): a plan in program
 * order (the map before each instruction, each CBRANCH's target, the
 * instructions by type), the instructions' bytes type by type (packed, each
 * one's offset and length kept), then those joined in program order with
 * the CBRANCH jumps.  Emitting type by type is the point: one instruction after
 * another of a random type made the emitter's dispatch an indirect branch
 * mispredicted almost every instruction, two thirds of a compile's time. */
struct emit_st {
    const uint8_t *map;                       /* VM r[i] lives in r8 + map[i] */
    uint32_t labels[RX_JIT_MAX_PROGRAM + 1];  /* offsets in the program      */
    uint8_t lmap[RX_JIT_MAX_PROGRAM + 1][8];  /* map in force at labels[i]   */
    uint16_t target[RX_JIT_MAX_PROGRAM];      /* CBRANCH: where it jumps     */
    uint16_t order[RX_JIT_MAX_PROGRAM];       /* the instructions by type    */
    uint16_t off[RX_JIT_MAX_PROGRAM];         /* bytes in the pieces          */
    uint8_t type[RX_JIT_MAX_PROGRAM], len[RX_JIT_MAX_PROGRAM];
    uint64_t *rcp;                            /* ctx.rcp                     */
    unsigned nrcp, nfix;
    struct { size_t pos; unsigned at, target; } fix[RX_JIT_MAX_PROGRAM];   /* jz at at -> target */
};
#define P(es, vreg) (XR_R8 + (int)(es)->map[vreg])

/* move the VM registers from map `from` to map `to` (a parallel move: one
 * cycle at a time through rax) */
static void emit_remap(xe_buf *b, const uint8_t from[8], const uint8_t to[8]) {
    int dest[8], done[8] = { 0 };            /* host from[i] -> host to[i] */
    for (int h = 0; h < 8; h++) dest[h] = h;
    for (int i = 0; i < 8; i++) dest[from[i]] = to[i];
    for (int h = 0; h < 8; h++) {
        if (done[h] || dest[h] == h) continue;
        int cyc[8], k = 0;                    /* h -> dest[h] -> ... -> h */
        for (int x = h; !done[x]; x = dest[x]) { done[x] = 1; cyc[k++] = x; }
        xe_mov_rr(b, 1, XR_RAX, XR_R8 + cyc[k - 1]);
        for (int j = k - 1; j >= 1; j--) xe_mov_rr(b, 1, XR_R8 + cyc[j], XR_R8 + cyc[j - 1]);
        xe_mov_rr(b, 1, XR_R8 + cyc[0], XR_RAX);
    }
}

static int is_pow2_or_zero(uint32_t v) { return (v & (v - 1)) == 0; }

/* floor(2^(63 + bitlen(d)) / d) for d neither 0 nor a power of 2 (spec
 * 5.2.6, same value as rx_reciprocal): one 128/64 divq, whose quotient
 * fits 64 bits exactly because d > 2^(bitlen(d)-1).  rx_reciprocal's bit
 * loop costs ~0.5 us, ~12 times per program. */
static uint64_t reciprocal_fast(uint32_t d) {
    unsigned bits = 64u - (unsigned)__builtin_clzll((uint64_t)d);
    uint64_t hi = 1ull << (bits - 1), lo = 0, q, r;
    __asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"((uint64_t)d) : "cc");
    (void)r;
    return q;
}

/* opcode byte -> instruction type, a table (GNU range designators) instead
 * of instr.h's chain of comparisons: emitting is ~1000 lookups a program */
static const uint8_t op_type[256] = {
#define RX_X_(name, freq) [RX_FIRST_OP_##name ... RX_LAST_OP_##name] = (uint8_t)RX_I_##name,
    RX_INSTR_TABLE(RX_X_)
#undef RX_X_
};

/* Instruction types that write their integer dst (IMUL_RCP: unless a
 * no-op; ISWAP_R and CBRANCH apart): what a CBRANCH's target depends on. */
static const uint8_t writes_dst[RX_I_COUNT] = {
    [RX_I_IADD_RS] = 1, [RX_I_IADD_M] = 1, [RX_I_ISUB_R] = 1, [RX_I_ISUB_M] = 1, [RX_I_IMUL_R] = 1,
    [RX_I_IMUL_M] = 1, [RX_I_IMULH_R] = 1, [RX_I_IMULH_M] = 1, [RX_I_ISMULH_R] = 1, [RX_I_ISMULH_M] = 1,
    [RX_I_IMUL_RCP] = 1, [RX_I_INEG_R] = 1, [RX_I_IXOR_R] = 1, [RX_I_IXOR_M] = 1, [RX_I_IROR_R] = 1,
    [RX_I_IROL_R] = 1,
};
/* 1 when instruction in (of type t) writes its integer dst, ISWAP_R and
 * CBRANCH apart */
static inline unsigned writes_own_dst(const struct rx_instr *in, enum rx_instr_type t) {
    return writes_dst[t] & (t != RX_I_IMUL_RCP || !is_pow2_or_zero(in->imm32));
}

/* One instruction's bytes, CBRANCH's jump and ISWAP_R's renaming apart
 * (the plan's and the join's: emit_program). */
static inline __attribute__((always_inline)) void emit_instr(xe_buf *b, const struct rx_instr *in, enum rx_instr_type t,
                                                             int v2, struct emit_st *es) {
    /* only the cheap operands up front: the host registers (P), mod and
     * the immediate are read where a case uses them, so fewer values stay
     * live across the switch (their up-front copies' spills were 18% of a
     * compile's instructions) */
    unsigned dst = in->dst & 7u, src = in->src & 7u;
    switch (t) {
    case RX_I_IADD_RS:
    {   /* lea d, [d + s*scale + disp]: 4F 8D ModRM SIB [disp] */
        unsigned d7 = es->map[dst], s7 = es->map[src];
        int32_t disp = dst == 5 ? (int32_t)in->imm32 : 0;
        unsigned md = disp_mod(disp, d7);
        uint64_t ms = ((md << 6) | (d7 << 3) | 4u) | ((((in->mod >> 2) & 3u) << 6 | (s7 << 3) | d7) << 8);
        put_ht(b, 0x8D4Fu | (ms << 16), 4, (uint32_t)disp, disp_len(md));
    }
        break;
    case RX_I_IADD_M:
        int_src_op(b, XR_RAX, dst, src, P(es, src), in->mod, in->imm32, 0x4C, XA_ADD, 1, es->map[dst]);
        break;
    case RX_I_ISUB_R:
        if (src == dst) vm_digit(b, 0x81, XA_SUB >> 3, P(es, dst), 4, in->imm32); else vm_rr(b, XA_SUB, 1, P(es, dst), P(es, src));
        break;
    case RX_I_ISUB_M:
        int_src_op(b, XR_RAX, dst, src, P(es, src), in->mod, in->imm32, 0x4C, XA_SUB, 1, es->map[dst]);
        break;
    case RX_I_IMUL_R:
        if (src == dst) {   /* imul d, d, imm32: 4D 69 ModRM id */
            uint64_t d7 = es->map[dst];
            put_ht(b, 0x694Du | ((0xC0u | (d7 << 3) | d7) << 16), 3, in->imm32, 4);
        }
        else vm_rr(b, 0xAF0F, 2, P(es, dst), P(es, src));
        break;
    case RX_I_IMUL_M:
        int_src_op(b, XR_RAX, dst, src, P(es, src), in->mod, in->imm32, 0x4C, 0xAF0F, 2, es->map[dst]);
        break;
    case RX_I_IMULH_R: case RX_I_ISMULH_R:
        mov_rax_vm(b, es->map[dst]);
        vm_digit(b, 0xF7, t == RX_I_IMULH_R ? 4 : 5, P(es, src), 0, 0);       /* mul/imul s */
        mov_vm_rdx(b, es->map[dst]);
        break;
    case RX_I_IMULH_M: case RX_I_ISMULH_M:
        if (src != dst) emit_addr(b, XR_RCX, P(es, src), in->imm32, read_mask(in->mod));
        mov_rax_vm(b, es->map[dst]);
        vm_rsi_mem(b, 0x48, 0xF7, 1, t == RX_I_IMULH_M ? 4u : 5u, src == dst ? -1 : XR_RCX,
                   (int32_t)(in->imm32 & L3_MASK));
        mov_vm_rdx(b, es->map[dst]);
        break;
    case RX_I_IMUL_RCP:
        if (!is_pow2_or_zero(in->imm32)) {
            es->rcp[es->nrcp] = reciprocal_fast(in->imm32);
            xe_imul_rm(b, P(es, dst), CTXO(rcp, 8u * es->nrcp));
            es->nrcp++;
        }
        break;
    case RX_I_INEG_R:
        vm_digit(b, 0xF7, 3, P(es, dst), 0, 0); break;
    case RX_I_IXOR_R:
        if (src == dst) vm_digit(b, 0x81, XA_XOR >> 3, P(es, dst), 4, in->imm32); else vm_rr(b, XA_XOR, 1, P(es, dst), P(es, src));
        break;
    case RX_I_IXOR_M:
        int_src_op(b, XR_RAX, dst, src, P(es, src), in->mod, in->imm32, 0x4C, XA_XOR, 1, es->map[dst]);
        break;
    case RX_I_IROR_R: case RX_I_IROL_R: {
        int kind = t == RX_I_IROR_R ? XS_ROR : XS_ROL;
        if (src == dst) { if (in->imm32 & 63u) vm_digit(b, 0xC1, (unsigned)kind, P(es, dst), 1, in->imm32 & 63u); }
        else {   /* mov ecx, s32; ror/rol d, cl */
            put_h(b, 0xC88B41u | ((uint64_t)es->map[src] << 16), 3);
            vm_digit(b, 0xD3, (unsigned)kind, P(es, dst), 0, 0);
        }
        break;
    }
    case RX_I_FSWAP_R: {
        int x = (int)(in->dst & 7u);   /* F+E: 0-3 f, 4-7 e */
        xe_shufpd(b, x, x, 1); break;
    }
    case RX_I_FADD_R: xe_sse_rr(b, XO_ADDPD, (int)(dst & 3u), 8 + (int)(src & 3u)); break;
    case RX_I_FSUB_R: xe_sse_rr(b, XO_SUBPD, (int)(dst & 3u), 8 + (int)(src & 3u)); break;
    case RX_I_FADD_M: case RX_I_FSUB_M:
        emit_addr(b, XR_RAX, P(es, src), in->imm32, read_mask(in->mod));
        xe_sse_rm(b, XO_CVTDQ2PD, X_TMP, xmi(XR_RSI, XR_RAX, 1, 0));
        if (t == RX_I_FADD_M) xe_sse_rr(b, XO_ADDPD, (int)(dst & 3u), X_TMP);
        else xe_sse_rr(b, XO_SUBPD, (int)(dst & 3u), X_TMP);
        break;
    case RX_I_FSCAL_R: xe_sse_rr(b, XO_XORPS, (int)(dst & 3u), X_SCALE); break;
    case RX_I_FMUL_R: xe_sse_rr(b, XO_MULPD, 4 + (int)(dst & 3u), 8 + (int)(src & 3u)); break;
    case RX_I_FDIV_M:
        emit_addr(b, XR_RAX, P(es, src), in->imm32, read_mask(in->mod));
        xe_sse_rm(b, XO_CVTDQ2PD, X_TMP, xmi(XR_RSI, XR_RAX, 1, 0));
        xe_sse_rr(b, XO_ANDPS, X_TMP, X_EAND);
        xe_sse_rr(b, XO_ORPS, X_TMP, X_EOR);
        xe_sse_rr(b, XO_DIVPD, 4 + (int)(dst & 3u), X_TMP);
        break;
    case RX_I_FSQRT_R: xe_sse_rr(b, XO_SQRTPD, 4 + (int)(dst & 3u), 4 + (int)(dst & 3u)); break;
    case RX_I_CBRANCH: {
        unsigned sh = (in->mod >> 4) + 8u;
        uint64_t c = (uint64_t)(int64_t)(int32_t)in->imm32;
        c |= (uint64_t)1 << sh;
        c &= ~((uint64_t)1 << (sh - 1));
        vm_digit(b, 0x81, XA_ADD >> 3, P(es, dst), 4, (uint32_t)c);     /* add d, imm32 */
        vm_digit(b, 0xF7, 0, P(es, dst), 4, 255u << sh);                /* test d, imm32; jz: the join's */
        break;
    }
    case RX_I_CFROUND: {
        mov_rax_vm(b, es->map[src]);
        if (in->imm32 & 63u) xe_shift_ri(b, 1, XS_ROR, XR_RAX, in->imm32 & 63u);
        size_t skip = 0;
        if (v2) { xe_test_ri(b, 0, XR_RAX, 60); skip = xe_jcc8_fwd(b, XC_NZ); }
        xe_alu_ri(b, 0, XA_AND, XR_RAX, 3);
        xe_shift_ri(b, 0, XS_SHL, XR_RAX, 13);
        xe_alu_ri(b, 0, XA_OR, XR_RAX, (int32_t)MXCSR_BASE);
        xe_store(b, 0, CTX(mxcsr_tmp), XR_RAX);
        xe_ldmxcsr(b, CTX(mxcsr_tmp));
        if (v2) xe_patch8(b, skip);
        break;
    }
    case RX_I_ISTORE: {
        uint32_t mask = (in->mod >> 4) >= 14 ? L3_MASK : read_mask(in->mod);
        emit_addr(b, XR_RAX, P(es, dst), in->imm32, mask);
        vm_rsi_mem(b, 0x4C, 0x89, 1, es->map[src], XR_RAX, 0);   /* mov [rsi + rax], s */
        break;
    }
    default: break;
    }
}

/* 1 when instruction in writes integer register reg (as the interpreter
 * executes it; CBRANCH adds to its dst). */
static int writes_reg(const struct rx_instr *in, unsigned reg) {
    unsigned dst = in->dst & 7u, src = in->src & 7u;
    enum rx_instr_type t = (enum rx_instr_type)op_type[in->opcode];
    if (t == RX_I_ISWAP_R) return src != dst && (dst == reg || src == reg);
    return dst == reg && (t == RX_I_CBRANCH || writes_own_dst(in, t));
}

/* rax = r[readReg0] ^ r[readReg1], rcx = its high 32 bits (spec 4.6.2 step 1) */
static void emit_spmix(xe_buf *b, const unsigned rr[4]) {
    xe_mov_rr(b, 1, XR_RAX, RREG(rr[0]));
    xe_alu_rr(b, 1, XA_XOR, XR_RAX, RREG(rr[1]));
    xe_mov_rr(b, 1, XR_RCX, XR_RAX);
    xe_shift_ri(b, 1, XS_SHR, XR_RCX, 32);
}

/* light mode: rdx = dataset item number of the read at ctx.ma */
static void emit_light_item(xe_buf *b) {
    xe_load(b, 0, XR_RDX, CTX(ma));
    xe_alu_ri(b, 0, XA_AND, XR_RDX, (int32_t)DS_MASK);
    xe_alu_rm(b, 1, XA_ADD, XR_RDX, CTX(dataset_offset));
    xe_shift_ri(b, 1, XS_SHR, XR_RDX, 6);
}

static void emit_program(xe_buf *b, const struct rx_instr *code, unsigned n, const unsigned rr[4],
                         int v2, int soft_aes, int full, const uint8_t *run_base,
                         const uint8_t *epilogue, uint64_t *rcp, uint8_t pieces[STAGE_CAP + SLOT]) {
    static const uint8_t ident[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    struct emit_st es;
    es.rcp = rcp;
    es.nrcp = es.nfix = 0;
    /* full mode: dataset read mask, prefetch mask, prefetch on, added delay */
    uint32_t rd_mask = DS_MASK, pf_mask = DS_MASK;
    int pf_on = 1, delay = 0, nops = 0;
#ifdef RXLOCK_TESTING
    switch (rx_jit_test_stall) {
    case RX_JIT_STALL_TINY: rd_mask = pf_mask = DS_TINY; break;
    case RX_JIT_STALL_PF_ONLY: rd_mask = DS_TINY; break;
    case RX_JIT_STALL_NO_PF: pf_on = 0; break;
    case RX_JIT_STALL_DELAY: delay = 20; break;
    case RX_JIT_STALL_NOPS: nops = 64; break;
    default: break;
    }
#endif
    if (full && pf_on) {    /* the first two reads' lines (ma now, mx next) */
        xe_load(b, 0, XR_RAX, CTX(ma));
        xe_alu_ri(b, 0, XA_AND, XR_RAX, (int32_t)pf_mask);
        xe_prefetch(b, 0, xmi(XR_RDI, XR_RAX, 1, 0));
        xe_load(b, 0, XR_RAX, CTX(mx));
        xe_alu_ri(b, 0, XA_AND, XR_RAX, (int32_t)pf_mask);
        xe_prefetch(b, 0, xmi(XR_RDI, XR_RAX, 1, 0));
    } else if (!full) {     /* light: first half of the first read's item */
        emit_light_item(b);
        xe_call_m(b, CTX(ss_first));
        for (int i = 0; i < 8; i++) xe_load(b, 1, RREG(i), CTXO(r, 8 * i));
    }
    /* 1. spAddr mix: eax = spAddr0, ecx = spAddr1.  Both are zero from the
     * second iteration on (step 12), so only the first iteration XORs in
     * their start values (mx, ma): it runs this block once and joins the
     * loop after the top's own mix; the loop itself never loads them. */
    emit_spmix(b, rr);
    xe_alu_rm(b, 0, XA_XOR, XR_RAX, CTX(sp0));
    xe_alu_rm(b, 0, XA_XOR, XR_RCX, CTX(sp1));
    size_t join = xe_jmp8_fwd(b);
    xe_align_nop(b, 64);    /* loop top on a cache line (the buffer is page aligned) */
    size_t top = b->len;
    emit_spmix(b, rr);
    xe_patch8(b, join);
    xe_alu_ri(b, 0, XA_AND, XR_RAX, (int32_t)L3_MASK64);
    xe_alu_ri(b, 0, XA_AND, XR_RCX, (int32_t)L3_MASK64);
    xe_store(b, 0, CTX(sp0), XR_RAX);     /* for steps 9 and 11 */
    xe_store(b, 0, CTX(sp1), XR_RCX);
    /* 2. r ^= scratchpad[spAddr0]; 3. f, e from scratchpad[spAddr1] */
    for (int i = 0; i < 8; i++) xe_alu_rm(b, 1, XA_XOR, RREG(i), xmi(XR_RSI, XR_RAX, 1, 8 * i));
    for (int i = 0; i < 4; i++) xe_sse_rm(b, XO_CVTDQ2PD, i, xmi(XR_RSI, XR_RCX, 1, 8 * i));
    for (int i = 0; i < 4; i++) {
        xe_sse_rm(b, XO_CVTDQ2PD, 4 + i, xmi(XR_RSI, XR_RCX, 1, 32 + 8 * i));
        xe_sse_rr(b, XO_ANDPS, 4 + i, X_EAND);
        xe_sse_rr(b, XO_ORPS, 4 + i, X_EOR);
    }
    if (delay) {            /* test build: latency added to every register's chain */
        xe_mov_rr(b, 1, XR_RAX, RREG(0));
        for (int k = 0; k < delay; k++) xe_imul_rr(b, XR_RAX, XR_RAX);
        xe_alu_ri(b, 0, XA_AND, XR_RAX, 0);
        for (int k = 0; k < 8; k++) xe_alu_rr(b, 1, XA_ADD, RREG(k), XR_RAX);
    }
    for (int k = 0; k < nops; k++) xe_u8(b, 0x90);
    /* 4. the program.  Full mode v1: the next read's address is
     * mx ^ r[readReg2] ^ r[readReg3]; issue a speculative prefetch of it
     * right after the last instruction that writes either register (in
     * program order), not only after the program: the dataset miss starts
     * earlier whenever those registers are final early.  A taken CBRANCH
     * back over that point re-issues it with the new values; the exact
     * prefetch at step 6 stays.  (v2 reads two iterations after the
     * prefetch already.) */
    int early = -1;
    if (full && !v2 && pf_on) {
        for (unsigned i = 0; i < n; i++)
            if (writes_reg(&code[i], rr[2]) || writes_reg(&code[i], rr[3])) early = (int)i;
        if (early >= (int)n - 4) early = -1;    /* too close to the exact one */
    }
    /* The plan, in program order: the map before each instruction; each
     * CBRANCH's target, the instruction after the last one that wrote its
     * register (a CBRANCH writes every one for this: last_cb); how many of
     * each type. */
    unsigned start[RX_I_COUNT + 1] = { 0 };
    {
        uint8_t map[8];
        int last_mod[9], last_cb = -1;      /* last_mod[8]: a sink for no write */
        memcpy(map, ident, 8);
        for (int r = 0; r < 9; r++) last_mod[r] = -1;
        for (unsigned i = 0; i < n; i++) {
            const struct rx_instr *in = &code[i];
            unsigned dst = in->dst & 7u, src = in->src & 7u;
            enum rx_instr_type t = (enum rx_instr_type)op_type[in->opcode];
            memcpy(es.lmap[i], map, 8);
            es.type[i] = (uint8_t)t;
            int lm = last_mod[dst] > last_cb ? last_mod[dst] : last_cb;
            es.target[i] = (uint16_t)(lm + 1);
            unsigned w = writes_own_dst(in, t);
            last_mod[w ? dst : 8u] = (int)i;
            if (t == RX_I_ISWAP_R && src != dst) {
                uint8_t tmp = map[dst];
                map[dst] = map[src];
                map[src] = tmp;
                last_mod[dst] = last_mod[src] = (int)i;
            }
            last_cb = t == RX_I_CBRANCH ? (int)i : last_cb;
            start[t + 1]++;
        }
        memcpy(es.lmap[n], map, 8);
        for (unsigned t = 0; t < RX_I_COUNT; t++) start[t + 1] += start[t];
        for (unsigned i = 0; i < n; i++) es.order[start[es.type[i]]++] = (uint16_t)i;
    }
    /* The instructions' bytes, type by type (in program order within a
     * type: IMUL_RCP's reciprocals keep their order), packed into pieces.
     * The cursor is a local whose address stays in inlined code, so it
     * lives in registers. */
    {
        xe_buf pb;
        xe_init(&pb, pieces, STAGE_CAP);
        for (unsigned k = 0; k < n; k++) {
            unsigned i = es.order[k];
            size_t at = pb.len;
            es.map = es.lmap[i];
            emit_instr(&pb, &code[i], (enum rx_instr_type)es.type[i], v2, &es);
            es.off[i] = (uint16_t)at;
            es.len[i] = (uint8_t)(pb.len - at);
        }
        if (pb.err) { xe_fail(b); return; }
    }
    /* The join, in program order: each instruction's bytes (SLOT bytes
     * copied, its length kept), each CBRANCH's jz to its target, or to a
     * stub that moves the registers to the target's map (emitted after
     * the loop, patched in). */
    {
        xe_buf cur = *b;
        for (unsigned i = 0; i < n; i++) {
            es.labels[i] = (uint32_t)cur.len;
            if (!cur.err && cur.cap - cur.len >= SLOT) {
                memcpy(cur.p + cur.len, pieces + es.off[i], SLOT);
                cur.len += es.len[i];
            } else {
                xe_bytes(&cur, pieces + es.off[i], es.len[i]);
            }
            if (es.type[i] == RX_I_CBRANCH) {
                unsigned ti = es.target[i];
                if (memcmp(es.lmap[ti], es.lmap[i], 8) == 0) {
                    xe_jcc_to(&cur, XC_Z, es.labels[ti]);
                } else {        /* jz rel32 to a remap stub, patched later */
                    es.fix[es.nfix].pos = xe_jcc32_fwd(&cur, XC_Z);
                    es.fix[es.nfix].at = i;
                    es.fix[es.nfix].target = ti;
                    es.nfix++;
                }
            }
            if ((int)i == early) {
                es.map = es.lmap[i + 1];
                xe_mov_rr(&cur, 0, XR_RAX, P(&es, rr[2]));
                xe_alu_rr(&cur, 0, XA_XOR, XR_RAX, P(&es, rr[3]));
                xe_alu_rm(&cur, 0, XA_XOR, XR_RAX, CTX(mx));
                xe_alu_ri(&cur, 0, XA_AND, XR_RAX, (int32_t)pf_mask);
                xe_prefetch(&cur, 0, xmi(XR_RDI, XR_RAX, 1, 0));
            }
        }
        *b = cur;
    }
    emit_remap(b, es.lmap[n], ident);    /* VM r0-r7 back in r8-r15 */
    es.labels[n] = (uint32_t)b->len;
    /* 5-8. dataset read, mx/ma update */
    xe_load(b, 0, XR_RAX, CTX(ma));                   /* eax = ma (read address) */
    xe_mov_rr(b, 0, XR_RCX, RREG(rr[2]));
    xe_alu_rr(b, 0, XA_XOR, XR_RCX, RREG(rr[3]));
    if (v2) {
        xe_mov_rr(b, 0, XR_RDX, XR_RAX);
        xe_alu_rr(b, 0, XA_XOR, XR_RDX, XR_RCX);      /* edx = new ma (mp) */
        xe_load(b, 0, XR_RCX, CTX(mx));
        xe_store(b, 0, CTX(ma), XR_RCX);              /* swap: ma = mx */
        xe_store(b, 0, CTX(mx), XR_RDX);              /*       mx = new ma */
    } else {
        xe_load(b, 0, XR_RDX, CTX(mx));
        xe_alu_rr(b, 0, XA_XOR, XR_RDX, XR_RCX);      /* edx = new mx (mp) */
        xe_store(b, 0, CTX(ma), XR_RDX);              /* swap: ma = new mx */
        xe_store(b, 0, CTX(mx), XR_RAX);              /*       mx = old ma */
    }
    xe_alu_ri(b, 0, XA_AND, XR_RAX, (int32_t)(full ? rd_mask : DS_MASK));
    if (full) {
        xe_alu_ri(b, 0, XA_AND, XR_RDX, (int32_t)pf_mask);
        if (pf_on) xe_prefetch(b, 0, xmi(XR_RDI, XR_RDX, 1, 0));   /* prefetchnta: no L2/L3 pollution */
        for (int i = 0; i < 8; i++) xe_alu_rm(b, 1, XA_XOR, RREG(i), xmi(XR_RDI, XR_RAX, 1, 8 * i));
    } else {
        /* light: prefetch the first cache line of the item read at edx
         * (next iteration in v1, the one after in v2); then the superscalar
         * pipeline: finish this read's item (its first half ran during the
         * previous iteration) while starting the next read's (ma, after the
         * swap above).  r ^= item, spilling only r0-r7. */
        xe_alu_ri(b, 0, XA_AND, XR_RDX, (int32_t)DS_MASK);
        xe_load(b, 1, XR_RCX, CTX(dataset_offset));
        xe_alu_rr(b, 1, XA_ADD, XR_RCX, XR_RDX);
        xe_shift_ri(b, 1, XS_SHR, XR_RCX, 6);
        xe_alu_ri(b, 0, XA_AND, XR_RCX, (int32_t)(RX_CACHE_SIZE / 64u - 1u));
        xe_shift_ri(b, 0, XS_SHL, XR_RCX, 6);
        xe_prefetch(b, 1, xmi(XR_RDI, XR_RCX, 1, 0));
        for (int i = 0; i < 8; i++) xe_store(b, 1, CTXO(r, 8 * i), RREG(i));
        emit_light_item(b);
        xe_call_m(b, CTX(ss_pair));
        for (int i = 0; i < 8; i++) xe_alu_rm(b, 1, XA_XOR, RREG(i), CTXO(r, 8 * i));
    }
    /* 9. r -> scratchpad[spAddr1] */
    xe_load(b, 0, XR_RCX, CTX(sp1));
    for (int i = 0; i < 8; i++) xe_store(b, 1, xmi(XR_RSI, XR_RCX, 1, 8 * i), RREG(i));
    /* 10. mix f with e */
    if (!v2) {
        for (int i = 0; i < 4; i++) xe_sse_rr(b, XO_XORPS, i, 4 + i);
    } else if (!soft_aes) {
        for (int k = 0; k < 4; k++) {
            xe_aes(b, XO_AESENC, 0, 4 + k);
            xe_aes(b, XO_AESDEC, 1, 4 + k);
            xe_aes(b, XO_AESENC, 2, 4 + k);
            xe_aes(b, XO_AESDEC, 3, 4 + k);
        }
    } else {
        emit_c_call(b, (int32_t)offsetof(struct rx_jit_ctx, soft_mix));
    }
    /* 11. f -> scratchpad[spAddr0]; 12. spAddr = 0: implicit (step 1) */
    xe_load(b, 0, XR_RDX, CTX(sp0));
    for (int i = 0; i < 4; i++) xe_movdqu_store(b, xmi(XR_RSI, XR_RDX, 1, 16 * i), i);
    /* 13. loop */
    xe_alu_ri(b, 0, XA_SUB, XR_RBX, 1);
    xe_jcc_to(b, XC_NZ, top);
    xe_jmp_abs(b, run_base, epilogue);
    /* CBRANCH remap stubs (out of the loop's straight line) */
    for (unsigned k = 0; k < es.nfix; k++) {
        xe_patch32(b, es.fix[k].pos);
        emit_remap(b, es.lmap[es.fix[k].at], es.lmap[es.fix[k].target]);
        xe_jmp_to(b, es.labels[es.fix[k].target]);
    }
}

/* ---- the backend's table (jit_lifecycle.c runs the lifecycle) --------- */
/* Make jit->ss match the cache; any failure fails the run (never a silent
 * fallback: an mmap/mprotect failure is an error of the hash). */
static int light_prepare(rx_jit *j, const rx_cache *c) {
    const struct rx_ss_program *progs;
    const uint8_t *mem = rx_cache_superscalar(c, &progs);
    if (!mem) return RX_ESTATE;
    const size_t psize = RX_SS_PROGRAMS * sizeof *progs;
    if (j->ss && j->ss_cache == c && j->ss_cache_mem == mem &&
        memcmp(j->ss_progs, progs, psize) == 0) return 0;
    rx_jit_ss_free(j->ss);
    j->ss = NULL;
    j->ss_cache = NULL;
    if (!j->ss_progs) {
        j->ss_progs = malloc(psize);
        if (!j->ss_progs) return RX_ENOMEM;
    }
    int rc = rx_jit_ss_new(&j->ss, progs);
    if (rc) return rc;
    memcpy(j->ss_progs, progs, psize);
    j->ss_cache = c;
    j->ss_cache_mem = mem;
    return 0;
}

static void x86_init(rx_jit *j) {
    rx_jit_masks_init(j->ctx.emask_and, j->ctx.scale_mask);
    j->ctx.soft_mix = soft_mix;
    j->ctx.iterations = RX_PROGRAM_ITERATIONS;
}

static int x86_emit_entry(rx_jit *j, size_t cap, size_t *len) {
    xe_buf b;
    xe_init(&b, j->stage, cap);
    j->core.epilogue_off = emit_entry(&b, j->core.mem.base);
    *len = b.len;
    return xe_ok(&b) ? 0 : RX_EINTERNAL;
}

static int x86_emit_program(rx_jit *j, const struct rx_instr *code, unsigned n, const unsigned rr[4],
                            size_t *len) {
    xe_buf b;
    xe_init(&b, j->stage, STAGE_CAP);
    const struct rx_jit_mode *m = &j->core.mode;
    emit_program(&b, code, n, rr, m->v2, m->soft_aes, m->full, j->core.mem.base + PROG_OFF,
                 j->core.mem.base + j->core.epilogue_off, j->ctx.rcp, j->pieces);
    *len = b.len;
    return xe_ok(&b) ? 0 : RX_EINTERNAL;
}

static size_t x86_emit_probe(uint8_t p[16], unsigned v) {
    p[0] = 0xB8;                        /* mov eax, imm32 */
    util_store32le(p + 1, v);
    p[5] = 0xC3;                        /* ret */
    return 6;
}

static int x86_run(rx_jit *jit, struct rx_vm_state *st) {
    struct rx_jit_ctx *c = &jit->ctx;
    const struct rx_jit_mode *m = &jit->core.mode;
    int rc = rx_jit_run_begin(st, m, c->r, c->f, c->e, c->a, c->emask_or);
    if (rc) return rc;
    c->scratchpad = st->scratchpad;
    c->dataset = m->full ? st->dataset + st->dataset_offset : NULL;
    c->ss_first = c->ss_pair = NULL;
    if (!m->full) {
        int prc = light_prepare(jit, st->cache);
        if (prc == 0) prc = rx_jit_ss_entries(jit->ss, &c->ss_first, &c->ss_pair);
        if (prc) return prc;
        c->dataset = jit->ss_cache_mem;
    }
    c->dataset_offset = st->dataset_offset;
    c->ma = st->ma;
    c->mx = st->mx;
    c->sp0 = st->mx;          /* spec 4.6.1: spAddr0 = mx, spAddr1 = ma */
    c->sp1 = st->ma;
    c->fprc = st->fprc & 3u;
    c->iterations = st->iterations;
    if (c->iterations == 0) {           /* as the interpreter: r = 0, rest unchanged */
        memset(st->r, 0, sizeof st->r);
        return 0;
    }
    rc = rx_jit_enter(jit, c);
    if (rc) return rc;
    rx_jit_regs_out(st, c->r, c->f, c->e);
    st->ma = c->ma;
    st->mx = c->mx;
    st->fprc = c->fprc;
    return 0;
}

static void x86_release(rx_jit *j) {
    rx_jit_ss_free(j->ss);
    free(j->ss_progs);
}

static const struct rx_jit_arch x86_arch = {
    .jit_size = sizeof(struct rx_jit),
    .stage_off = offsetof(struct rx_jit, stage),
    .stage_cap = STAGE_CAP,
    .page = PAGE,
    .fill = 0xCC,                       /* int3 */
    .flush = NULL,                      /* x86 keeps the instruction cache coherent */
    .init = x86_init,
    .emit_entry = x86_emit_entry,
    .emit_program = x86_emit_program,
    .emit_probe = x86_emit_probe,
    .run = x86_run,
    .release = x86_release,
};
_Static_assert(offsetof(struct rx_jit, core) == 0, "the lifecycle's part comes first");

const struct rx_jit_arch *rx_jit_arch(void) { return &x86_arch; }
#endif
