/* SPDX-License-Identifier: ISC */
/* src/rx/jit_aarch64.c — AArch64 (ARMv8-A) JIT for RandomX v1/v2 programs,
 * with hardware AES (crypto extension AESE/AESD/AESMC/AESIMC) or a call to
 * the software AES for the v2 F/E mixing.  Same contract as the x86-64 JIT
 * (jit.h): a run has exactly the interpreter's semantics.
 *
 * Register map of the generated code (AAPCS64):
 *   x19-x26  VM r0-r7              v0-v3   f0-f3      v4-v7   e0-e3
 *   x27      scratchpad            v8-v11  a0-a3      v12     E "and" mask
 *   x28      struct rx_jit_ctx *   v13     E "or" mask (per program)
 *   x9-x16   temporaries           v14     FSCAL mask v15-v16 temporaries
 * x19-x28 are callee-saved, so a C call (light-mode dataset item, software
 * AES) only spills r and v0-v7 and reloads the vectors (AAPCS64 keeps only
 * the low halves of v8-v15).  The prologue saves x19-x30 and d8-d15.
 *
 * Rounding: FPCR.RMode.  The entry loads the caller's FPCR with RMode
 * replaced by the program's fprc, CFROUND rewrites RMode, the exit stores
 * the final FPCR (rx_jit_run turns it back into fprc) and restores the
 * caller's.  fprc 0/1/2/3 (nearest/down/up/zero) is RMode 0/2/1/3: the
 * two bits reversed, computed as RBIT + LSR #30.
 *
 * Code buffer (execmem.c, strict W^X), in pages of the system's size P:
 *   page 0 entry/exit (RX) | page 1 guard (none) | program region,
 *   ceil(STAGE_CAP / P) pages (RX while in use, none beyond) | guard (none).
 * The entry and exit are written once by rx_jit_new.  The guards keep the
 * program pages a mapping (VMA) of their own, so each compile flips a whole
 * mapping RW and back RX: no VMA split or merge per mprotect (the x86-64
 * JIT's scheme).  rx_jit_compile builds the loop in a private staging
 * buffer, opens the program pages RW (none -> RW the first time), rewrites
 * them whole (code, then UDF #0 words to the page end), cleans the caches
 * for the rewritten range (__builtin___clear_cache: DC CVAU + IC IVAU) and
 * seals them RX.  The program's page count only grows, so the same mapping
 * is flipped each time.  Every mprotect is checked; a failure is returned
 * and the JIT does not run until a later compile succeeds.  rx_jit_free
 * wipes the code, the staging buffer and the register copies.
 *
 * The lifecycle (new, compile, install, run's call, free, profile) is
 * jit_lifecycle.c's; this file is the table it runs: the context, the
 * emitters and the run's set-up.
 *
 * Compiles to nothing unless __aarch64__. */
#if defined(__aarch64__)
#include "rx/jit.h"
#include "rx/program.h"
#include "rx/vm_state.h"
#include "rx/execmem.h"
#include "rx/a64_emit.h"
#include "rx/aes.h"
#include <sodium.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define RREG(i)  (19u + (unsigned)(i))
#define X_SPAD   27u
#define X_CTX    28u
#define T0 9u
#define T1 10u
#define T2 11u
#define T3 12u
#define T4 13u
#define T5 14u
#define T6 15u
#define T_CALL 16u
#define V_TMP   15u
#define V_ZERO  16u
#define V_EAND  12u
#define V_EOR   13u
#define V_SCALE 14u
#define VF(i) ((unsigned)(i))
#define VE(i) (4u + (unsigned)(i))
#define VA(i) (8u + (unsigned)(i))

/* masks as (lsb, number of ones) for logical immediates */
#define L1_LSB 3u
#define L1_ONES 11u      /* 0x3FF8     */
#define L2_ONES 15u      /* 0x3FFF8    */
#define L3_ONES 18u      /* 0x1FFFF8   */
#define L3_64_LSB 6u
#define L3_64_ONES 15u   /* 0x1FFFC0   */
#define DS_LSB 6u
#define DS_ONES 25u      /* 0x7FFFFFC0 */

#define STAGE_CAP (24u * 1024u)
#define FRAME 160

struct rx_jit_ctx {
    _Alignas(64) uint64_t r[8];
    uint64_t f[8], e[8], a[8];              /* {lo, hi} per register  */
    uint64_t emask_and[2], emask_or[2];     /* adjacent: one LDP Q    */
    uint64_t scale_mask[2];
    uint8_t *scratchpad;
    const uint8_t *dataset;                 /* full mode: bytes + datasetOffset */
    const rx_cache *cache;                  /* light mode */
    uint64_t dataset_offset;
    uint64_t light_addr;                    /* light mode: ma & mask of this read */
    void (*light_read)(struct rx_jit_ctx *);
    void (*soft_mix)(struct rx_jit_ctx *);
    uint64_t fpcr_saved;                    /* the caller's FPCR                */
    uint64_t fpcr_base;                     /* caller's FPCR with RMode = 0     */
    uint64_t fpcr_start;                    /* fpcr_base | RMode(fprc)          */
    uint64_t fpcr_end;                      /* FPCR when the loop ended         */
    uint32_t ma, mx, sp0, sp1;
    uint32_t iterations;
};
#define OFF(field) ((uint32_t)offsetof(struct rx_jit_ctx, field))
_Static_assert(offsetof(struct rx_jit_ctx, f) % 16 == 0 && offsetof(struct rx_jit_ctx, a) % 16 == 0 &&
               offsetof(struct rx_jit_ctx, emask_and) % 16 == 0, "LDP/STP Q alignment");
_Static_assert(offsetof(struct rx_jit_ctx, emask_or) == offsetof(struct rx_jit_ctx, emask_and) + 16, "LDP Q");
_Static_assert(offsetof(struct rx_jit_ctx, e) == offsetof(struct rx_jit_ctx, f) + 64, "layout");
_Static_assert(offsetof(struct rx_jit_ctx, a) == offsetof(struct rx_jit_ctx, e) + 64, "layout");


struct rx_jit {
    struct rx_jit_core core;   /* first: the lifecycle's part (jit.h) */
    _Alignas(16) uint8_t stage[STAGE_CAP];
    struct rx_jit_ctx ctx;
};

/* ---- helpers called from generated code -------------------------------- */
static void soft_mix(struct rx_jit_ctx *c) {
    rx_aes_soft_ops()->mix_fe(c->f, c->e);
}

static void light_read_default(struct rx_jit_ctx *c) {
    uint64_t item[8];
    rx_cache_item(c->cache, (c->dataset_offset + c->light_addr) / 64u, item);
    for (int i = 0; i < 8; i++) c->r[i] ^= item[i];
    sodium_memzero(item, sizeof item);
}

static void emit_load_regs(ae_buf *b) {
    for (unsigned i = 0; i < 8; i += 2) ae_ldp_x(b, RREG(i), RREG(i + 1), X_CTX, (int32_t)(OFF(r) + 8 * i));
    for (unsigned i = 0; i < 12; i += 2) ae_ldp_q(b, i, i + 1, X_CTX, (int32_t)(OFF(f) + 16 * i));
    ae_ldp_q(b, V_EAND, V_EOR, X_CTX, (int32_t)OFF(emask_and));
    ae_ldr_q(b, V_SCALE, X_CTX, OFF(scale_mask));
}
static void emit_store_regs(ae_buf *b) {
    for (unsigned i = 0; i < 8; i += 2) ae_stp_x(b, RREG(i), RREG(i + 1), X_CTX, (int32_t)(OFF(r) + 8 * i));
    for (unsigned i = 0; i < 8; i += 2) ae_stp_q(b, i, i + 1, X_CTX, (int32_t)(OFF(f) + 16 * i));
}

/* spill r and f/e, call the function pointer at ctx+fn_off with ctx, reload */
static void emit_c_call(ae_buf *b, uint32_t fn_off) {
    emit_store_regs(b);
    ae_ldr_x(b, T_CALL, X_CTX, fn_off);
    ae_mov_rr(b, 1, 0, X_CTX);
    ae_blr(b, T_CALL);
    emit_load_regs(b);
}

/* ---- entry / exit (page 0) --------------------------------------------- */
static size_t emit_entry(ae_buf *b, size_t prog_off) {
    ae_ldstp(b, 0, 0, 1, 29, 30, AR_SP, -FRAME);          /* stp x29, x30, [sp, #-160]! */
    ae_add_i(b, 1, 29, AR_SP, 0, 0);                      /* mov x29, sp */
    for (unsigned i = 0; i < 10; i += 2) ae_stp_x(b, 19 + i, 20 + i, AR_SP, (int32_t)(16 + 8 * i));
    for (unsigned i = 0; i < 8; i += 2) ae_stp_d(b, 8 + i, 9 + i, AR_SP, (int32_t)(96 + 8 * i));
    ae_mov_rr(b, 1, X_CTX, 0);
    ae_ldr_x(b, T0, X_CTX, OFF(fpcr_start));
    ae_msr_fpcr(b, T0);
    emit_load_regs(b);
    ae_ldr_x(b, X_SPAD, X_CTX, OFF(scratchpad));
    ae_b_to(b, prog_off);
    /* exit */
    size_t epi = b->len;
    emit_store_regs(b);
    ae_mrs_fpcr(b, T0);
    ae_str_x(b, T0, X_CTX, OFF(fpcr_end));
    ae_ldr_x(b, T0, X_CTX, OFF(fpcr_saved));
    ae_msr_fpcr(b, T0);
    for (unsigned i = 0; i < 8; i += 2) ae_ldp_d(b, 8 + i, 9 + i, AR_SP, (int32_t)(96 + 8 * i));
    for (unsigned i = 0; i < 10; i += 2) ae_ldp_x(b, 19 + i, 20 + i, AR_SP, (int32_t)(16 + 8 * i));
    ae_ldstp(b, 1, 0, 2, 29, 30, AR_SP, FRAME);           /* ldp x29, x30, [sp], #160 */
    ae_ret(b);
    return epi;
}

/* ---- program loop ------------------------------------------------------ */
static unsigned read_ones(unsigned mod) { return (mod & 3u) ? L1_ONES : L2_ONES; }

/* w_T0 = (w_reg + imm) & mask(L1_LSB, ones).  Only the low 21 bits of imm
 * can reach the masked result, so it is added as two 12-bit immediates. */
static void emit_addr(ae_buf *b, unsigned reg, uint32_t imm, unsigned ones) {
    uint32_t v = imm & 0x1FFFFFu, lo = v & 0xFFFu, hi = v >> 12;
    unsigned src = reg;
    if (lo) { ae_add_i(b, 0, T0, src, lo, 0); src = T0; }
    if (hi) { ae_add_i(b, 0, T0, src, hi, 1); src = T0; }
    ae_log_i(b, 0, AE_AND, T0, src, L1_LSB, ones);
}

/* x_T1 = 64-bit scratchpad word of an integer *_M instruction */
static void emit_int_load(ae_buf *b, unsigned dst, unsigned src, unsigned mod, uint32_t imm) {
    if (src == dst) {
        uint32_t addr = imm & RX_SCRATCHPAD_L3_MASK;
        if (addr <= 8u * 0xFFFu) { ae_ldr_x(b, T1, X_SPAD, addr); return; }
        ae_mov_i32(b, T0, addr);
    } else {
        emit_addr(b, RREG(src), imm, read_ones(mod));
    }
    ae_ldr_x_rr(b, T1, X_SPAD, T0);
}

/* v_TMP = the two signed 32-bit words at the address as doubles: one
 * 64-bit SIMD load, SXTL, SCVTF */
static void emit_fp_load(ae_buf *b, unsigned src, unsigned mod, uint32_t imm) {
    emit_addr(b, RREG(src), imm, read_ones(mod));
    ae_ldr_d_rr(b, V_TMP, X_SPAD, T0);
    ae_sxtl2d(b, V_TMP, V_TMP);
    ae_scvtf2d(b, V_TMP, V_TMP);
}

static void emit_instr(ae_buf *b, const struct rx_instr *in, int v2, const size_t *labels,
                       int *last_mod, int i) {
    unsigned dst = in->dst & 7u, src = in->src & 7u, mod = in->mod;
    uint32_t imm = in->imm32;
    uint64_t simm = (uint64_t)(int64_t)(int32_t)imm;
    unsigned D = RREG(dst), S = RREG(src);
    switch (rx_instr_type_of(in->opcode)) {
    case RX_I_IADD_RS:
        ae_add_rr(b, 1, D, D, S, (mod >> 2) & 3u);
        if (dst == 5) { ae_mov_i64(b, T0, simm); ae_add_rr(b, 1, D, D, T0, 0); }
        last_mod[dst] = i; break;
    case RX_I_IADD_M:
        emit_int_load(b, dst, src, mod, imm); ae_add_rr(b, 1, D, D, T1, 0);
        last_mod[dst] = i; break;
    case RX_I_ISUB_R:
        if (src == dst) { ae_mov_i64(b, T0, simm); ae_sub_rr(b, 1, D, D, T0); }
        else ae_sub_rr(b, 1, D, D, S);
        last_mod[dst] = i; break;
    case RX_I_ISUB_M:
        emit_int_load(b, dst, src, mod, imm); ae_sub_rr(b, 1, D, D, T1);
        last_mod[dst] = i; break;
    case RX_I_IMUL_R:
        if (src == dst) { ae_mov_i64(b, T0, simm); ae_mul(b, D, D, T0); }
        else ae_mul(b, D, D, S);
        last_mod[dst] = i; break;
    case RX_I_IMUL_M:
        emit_int_load(b, dst, src, mod, imm); ae_mul(b, D, D, T1);
        last_mod[dst] = i; break;
    case RX_I_IMULH_R: ae_umulh(b, D, D, S); last_mod[dst] = i; break;
    case RX_I_IMULH_M:
        emit_int_load(b, dst, src, mod, imm); ae_umulh(b, D, D, T1);
        last_mod[dst] = i; break;
    case RX_I_ISMULH_R: ae_smulh(b, D, D, S); last_mod[dst] = i; break;
    case RX_I_ISMULH_M:
        emit_int_load(b, dst, src, mod, imm); ae_smulh(b, D, D, T1);
        last_mod[dst] = i; break;
    case RX_I_IMUL_RCP:
        if (!rx_is_zero_or_pow2(imm)) {
            ae_mov_i64(b, T0, rx_reciprocal(imm));
            ae_mul(b, D, D, T0);
            last_mod[dst] = i;
        }
        break;
    case RX_I_INEG_R: ae_neg(b, 1, D, D); last_mod[dst] = i; break;
    case RX_I_IXOR_R:
        if (src == dst) { ae_mov_i64(b, T0, simm); ae_log_rr(b, 1, AE_EOR, D, D, T0, 0); }
        else ae_log_rr(b, 1, AE_EOR, D, D, S, 0);
        last_mod[dst] = i; break;
    case RX_I_IXOR_M:
        emit_int_load(b, dst, src, mod, imm); ae_log_rr(b, 1, AE_EOR, D, D, T1, 0);
        last_mod[dst] = i; break;
    case RX_I_IROR_R:
        if (src == dst) { if (imm & 63u) ae_ror_i(b, D, D, imm & 63u); }
        else ae_rorv(b, D, D, S);
        last_mod[dst] = i; break;
    case RX_I_IROL_R:
        if (src == dst) { if (imm & 63u) ae_ror_i(b, D, D, 64u - (imm & 63u)); }
        else { ae_neg(b, 1, T0, S); ae_rorv(b, D, D, T0); }
        last_mod[dst] = i; break;
    case RX_I_ISWAP_R:
        if (src != dst) {
            ae_mov_rr(b, 1, T0, D); ae_mov_rr(b, 1, D, S); ae_mov_rr(b, 1, S, T0);
            last_mod[dst] = i; last_mod[src] = i;
        }
        break;
    case RX_I_FSWAP_R:   /* dst 0-3: f, 4-7: e; one EXT #8 swaps the halves */
        ae_ext16b(b, dst, dst, dst, 8); break;
    case RX_I_FADD_R: ae_v3(b, AE_FADD2D, VF(dst & 3u), VF(dst & 3u), VA(src & 3u)); break;
    case RX_I_FSUB_R: ae_v3(b, AE_FSUB2D, VF(dst & 3u), VF(dst & 3u), VA(src & 3u)); break;
    case RX_I_FADD_M:
        emit_fp_load(b, src, mod, imm);
        ae_v3(b, AE_FADD2D, VF(dst & 3u), VF(dst & 3u), V_TMP); break;
    case RX_I_FSUB_M:
        emit_fp_load(b, src, mod, imm);
        ae_v3(b, AE_FSUB2D, VF(dst & 3u), VF(dst & 3u), V_TMP); break;
    case RX_I_FSCAL_R: ae_v3(b, AE_EOR16B, VF(dst & 3u), VF(dst & 3u), V_SCALE); break;
    case RX_I_FMUL_R: ae_v3(b, AE_FMUL2D, VE(dst & 3u), VE(dst & 3u), VA(src & 3u)); break;
    case RX_I_FDIV_M:
        emit_fp_load(b, src, mod, imm);
        ae_v3(b, AE_AND16B, V_TMP, V_TMP, V_EAND);
        ae_v3(b, AE_ORR16B, V_TMP, V_TMP, V_EOR);
        ae_v3(b, AE_FDIV2D, VE(dst & 3u), VE(dst & 3u), V_TMP); break;
    case RX_I_FSQRT_R: ae_fsqrt2d(b, VE(dst & 3u), VE(dst & 3u)); break;
    case RX_I_CBRANCH: {
        unsigned sh = (mod >> 4) + RX_JUMP_OFFSET;
        uint64_t c = (simm | (1ull << sh)) & ~(1ull << (sh - 1));
        ae_mov_i64(b, T0, c);
        ae_add_rr(b, 1, D, D, T0, 0);
        ae_log_i(b, 1, AE_ANDS, AR_ZR, D, sh, RX_JUMP_BITS);      /* tst D, #255 << sh */
        ae_bcond_to(b, AE_EQ, labels[last_mod[dst] + 1]);
        for (int r = 0; r < 8; r++) last_mod[r] = i;
        break;
    }
    case RX_I_CFROUND: {
        ae_ror_i(b, T0, S, imm & 63u);
        size_t skip = 0;
        if (v2) { ae_log_i(b, 1, AE_ANDS, AR_ZR, T0, 2, 4); skip = ae_bcond_fwd(b, AE_NE); }  /* tst #60 */
        ae_rbit32(b, T1, T0);
        ae_lsr_i(b, 0, T1, T1, 30);                         /* RMode = fprc bits reversed */
        ae_ldr_x(b, T2, X_CTX, OFF(fpcr_base));
        ae_log_rr(b, 1, AE_ORR, T2, T2, T1, 22);
        ae_msr_fpcr(b, T2);
        if (v2) ae_patch_bcond(b, skip);
        break;
    }
    case RX_I_ISTORE: {
        unsigned ones = (mod >> 4) >= RX_STORE_L3_CONDITION ? L3_ONES : read_ones(mod);
        emit_addr(b, D, imm, ones);
        ae_str_x_rr(b, S, X_SPAD, T0);
        break;
    }
    default: break;
    }
}

/* F/E initialization of one group: 4 registers from 32 bytes at [base+off] */
static void emit_fe_init(ae_buf *b, unsigned v0, unsigned base, int32_t off, int e_group) {
    ae_ldp_d(b, v0, v0 + 1, base, off);
    ae_ldp_d(b, v0 + 2, v0 + 3, base, off + 16);
    for (unsigned k = 0; k < 4; k++) ae_sxtl2d(b, v0 + k, v0 + k);
    for (unsigned k = 0; k < 4; k++) ae_scvtf2d(b, v0 + k, v0 + k);
    if (e_group) {
        for (unsigned k = 0; k < 4; k++) ae_v3(b, AE_AND16B, v0 + k, v0 + k, V_EAND);
        for (unsigned k = 0; k < 4; k++) ae_v3(b, AE_ORR16B, v0 + k, v0 + k, V_EOR);
    }
}

/* v2 F/E mixing with the crypto extension.  x86 AESENC(s, k) is
 * AESMC(AESE(s, 0)) ^ k here; the XOR with key j is folded into the next
 * round's AESE/AESD input (AESE XORs its operand first), so the chain is
 * AESE(f, 0), AESMC, AESE(., e0), AESMC, ..., AESE(., e2), AESMC, EOR e3
 * (AESD/AESIMC for f1 and f3). */
static void emit_hw_mix(ae_buf *b) {
    ae_movi_zero(b, V_ZERO);
    for (unsigned k = 0; k < 4; k++) {
        unsigned key = k == 0 ? V_ZERO : VE(k - 1);
        ae_aese(b, VF(0), key); ae_aesd(b, VF(1), key);
        ae_aese(b, VF(2), key); ae_aesd(b, VF(3), key);
        ae_aesmc(b, VF(0), VF(0)); ae_aesimc(b, VF(1), VF(1));
        ae_aesmc(b, VF(2), VF(2)); ae_aesimc(b, VF(3), VF(3));
    }
    for (unsigned k = 0; k < 4; k++) ae_v3(b, AE_EOR16B, VF(k), VF(k), VE(3));
}

static void emit_program(ae_buf *b, const struct rx_instr *code, unsigned n, const unsigned rr[4],
                         int v2, int soft_aes, int full, size_t prog_off, size_t epilogue_off) {
    size_t labels[RX_PROGRAM_MAX_SIZE + 1];
    int last_mod[8];
    /* offsets in the stage are relative to prog_off in the code buffer */
    size_t top = b->len;
    /* 1. spAddr0/1 from readReg0 ^ readReg1 */
    ae_log_rr(b, 1, AE_EOR, T0, RREG(rr[0]), RREG(rr[1]), 0);
    ae_ldr_w(b, T1, X_CTX, OFF(sp0));
    ae_log_rr(b, 0, AE_EOR, T1, T1, T0, 0);
    ae_log_i(b, 0, AE_AND, T1, T1, L3_64_LSB, L3_64_ONES);
    ae_str_w(b, T1, X_CTX, OFF(sp0));
    ae_lsr_i(b, 1, T0, T0, 32);
    ae_ldr_w(b, T2, X_CTX, OFF(sp1));
    ae_log_rr(b, 0, AE_EOR, T2, T2, T0, 0);
    ae_log_i(b, 0, AE_AND, T2, T2, L3_64_LSB, L3_64_ONES);
    ae_str_w(b, T2, X_CTX, OFF(sp1));
    ae_add_rr(b, 1, T3, X_SPAD, T1, 0);
    ae_add_rr(b, 1, T4, X_SPAD, T2, 0);
    /* 2. r ^= scratchpad[spAddr0]; 3. f, e from scratchpad[spAddr1] */
    for (unsigned i = 0; i < 8; i += 2) {
        ae_ldp_x(b, T5, T6, T3, (int32_t)(8 * i));
        ae_log_rr(b, 1, AE_EOR, RREG(i), RREG(i), T5, 0);
        ae_log_rr(b, 1, AE_EOR, RREG(i + 1), RREG(i + 1), T6, 0);
    }
    emit_fe_init(b, VF(0), T4, 0, 0);
    emit_fe_init(b, VE(0), T4, 32, 1);
    /* 4. the program */
    for (int r = 0; r < 8; r++) last_mod[r] = -1;
    for (unsigned i = 0; i < n; i++) {
        labels[i] = b->len;
        emit_instr(b, &code[i], v2, labels, last_mod, (int)i);
    }
    labels[n] = b->len;
    /* 5-8. dataset read, mx/ma update and swap */
    ae_ldr_w(b, T0, X_CTX, OFF(ma));                      /* read address register */
    ae_log_rr(b, 0, AE_EOR, T1, RREG(rr[2]), RREG(rr[3]), 0);
    if (v2) {
        ae_log_rr(b, 0, AE_EOR, T2, T0, T1, 0);           /* new ma (prefetch) */
        ae_ldr_w(b, T3, X_CTX, OFF(mx));
        ae_str_w(b, T3, X_CTX, OFF(ma));                  /* swap: ma = mx     */
        ae_str_w(b, T2, X_CTX, OFF(mx));                  /*       mx = new ma */
    } else {
        ae_ldr_w(b, T2, X_CTX, OFF(mx));
        ae_log_rr(b, 0, AE_EOR, T2, T2, T1, 0);           /* new mx (prefetch) */
        ae_str_w(b, T2, X_CTX, OFF(ma));                  /* swap: ma = new mx */
        ae_str_w(b, T0, X_CTX, OFF(mx));                  /*       mx = old ma */
    }
    ae_log_i(b, 0, AE_AND, T0, T0, DS_LSB, DS_ONES);
    if (full) {
        ae_log_i(b, 0, AE_AND, T2, T2, DS_LSB, DS_ONES);
        ae_ldr_x(b, T3, X_CTX, OFF(dataset));
        ae_prfm_rr(b, AE_PLDL2STRM, T3, T2);
        ae_add_rr(b, 1, T3, T3, T0, 0);
        for (unsigned i = 0; i < 8; i += 2) {
            ae_ldp_x(b, T5, T6, T3, (int32_t)(8 * i));
            ae_log_rr(b, 1, AE_EOR, RREG(i), RREG(i), T5, 0);
            ae_log_rr(b, 1, AE_EOR, RREG(i + 1), RREG(i + 1), T6, 0);
        }
    } else {
        ae_str_x(b, T0, X_CTX, OFF(light_addr));
        emit_c_call(b, OFF(light_read));
    }
    /* 9. r -> scratchpad[spAddr1] */
    ae_ldr_w(b, T2, X_CTX, OFF(sp1));
    ae_add_rr(b, 1, T4, X_SPAD, T2, 0);
    for (unsigned i = 0; i < 8; i += 2) ae_stp_x(b, RREG(i), RREG(i + 1), T4, (int32_t)(8 * i));
    /* 10. mix f with e */
    if (!v2) {
        for (unsigned k = 0; k < 4; k++) ae_v3(b, AE_EOR16B, VF(k), VF(k), VE(k));
    } else if (!soft_aes) {
        emit_hw_mix(b);
    } else {
        emit_c_call(b, OFF(soft_mix));
    }
    /* 11. f -> scratchpad[spAddr0]; 12. spAddr0 = spAddr1 = 0 */
    ae_ldr_w(b, T1, X_CTX, OFF(sp0));
    ae_add_rr(b, 1, T3, X_SPAD, T1, 0);
    ae_stp_q(b, VF(0), VF(1), T3, 0);
    ae_stp_q(b, VF(2), VF(3), T3, 32);
    ae_str_w(b, AR_ZR, X_CTX, OFF(sp0));
    ae_str_w(b, AR_ZR, X_CTX, OFF(sp1));
    /* 13. loop */
    ae_ldr_w(b, T0, X_CTX, OFF(iterations));
    ae_subs_i(b, 0, T0, T0, 1);
    ae_str_w(b, T0, X_CTX, OFF(iterations));
    ae_bcond_to(b, AE_NE, top);
    /* B to the exit in page 0: target relative to the stage start */
    if (epilogue_off > prog_off) { b->err = 1; return; }
    int64_t rel = (int64_t)epilogue_off - (int64_t)prog_off - (int64_t)b->len;
    if (rel < -(int64_t)(1 << 27)) { b->err = 1; return; }
    ae_word(b, 0x14000000u | ((uint32_t)(rel / 4) & 0x3FFFFFFu));
}

/* ---- the backend's table (jit_lifecycle.c runs the lifecycle) --------- */
static void clear_icache(uint8_t *p, size_t len) {
    __builtin___clear_cache((char *)p, (char *)(p + len));
}

static void a64_init(rx_jit *j) {
    rx_jit_masks_init(j->ctx.emask_and, j->ctx.scale_mask);
    j->ctx.light_read = light_read_default;
    j->ctx.soft_mix = soft_mix;
}

static int a64_emit_entry(rx_jit *j, size_t cap, size_t *len) {
    ae_buf b;
    ae_init(&b, j->stage, cap);
    j->core.epilogue_off = emit_entry(&b, j->core.prog_off);
    *len = b.len;
    return ae_ok(&b) ? 0 : RX_EINTERNAL;
}

static int a64_emit_program(rx_jit *j, const struct rx_instr *code, unsigned n, const unsigned rr[4],
                            size_t *len) {
    ae_buf b;
    ae_init(&b, j->stage, STAGE_CAP);
    const struct rx_jit_mode *m = &j->core.mode;
    emit_program(&b, code, n, rr, m->v2, m->soft_aes, m->full, j->core.prog_off, j->core.epilogue_off);
    *len = b.len;
    return ae_ok(&b) ? 0 : RX_EINTERNAL;
}

static size_t a64_emit_probe(uint8_t p[16], unsigned v) {
    util_store32le(p, 0x52800000u | (v & 0xFFFFu) << 5);   /* movz w0, #v */
    util_store32le(p + 4, 0xD65F03C0u);                    /* ret */
    return 8;
}

static uint64_t read_fpcr(void) {
    uint64_t v;
    __asm__ volatile("mrs %0, fpcr" : "=r"(v) : : "memory");
    return v;
}

static int a64_run(rx_jit *jit, struct rx_vm_state *st) {
    struct rx_jit_ctx *c = &jit->ctx;
    const struct rx_jit_mode *m = &jit->core.mode;
    int rc = rx_jit_run_begin(st, m, c->r, c->f, c->e, c->a, c->emask_or);
    if (rc) return rc;
    rc = rx_jit_runnable(jit);
    if (rc) return rc;
    c->scratchpad = st->scratchpad;
    c->dataset = m->full ? st->dataset + st->dataset_offset : NULL;
    c->cache = st->cache;
    c->dataset_offset = st->dataset_offset;
    c->ma = st->ma;
    c->mx = st->mx;
    c->sp0 = st->mx;          /* spec 4.6.1: spAddr0 = mx, spAddr1 = ma */
    c->sp1 = st->ma;
    c->iterations = st->iterations;
    if (c->iterations == 0) { memset(st->r, 0, sizeof st->r); return 0; }   /* as the interpreter */
    static const uint64_t rmode[4] = { 0, 2, 1, 3 };
    c->fpcr_saved = read_fpcr();
    c->fpcr_base = c->fpcr_saved & ~(3ull << 22);
    c->fpcr_start = c->fpcr_base | rmode[st->fprc & 3u] << 22;
    rc = rx_jit_enter(jit, c);
    if (rc) return rc;
    rx_jit_regs_out(st, c->r, c->f, c->e);
    st->ma = c->ma;
    st->mx = c->mx;
    st->fprc = (uint32_t)rmode[(c->fpcr_end >> 22) & 3u];   /* the map is its own inverse */
    return 0;
}

static const struct rx_jit_arch a64_arch = {
    .jit_size = sizeof(struct rx_jit),
    .stage_off = offsetof(struct rx_jit, stage),
    .stage_cap = STAGE_CAP,
    .page = 0,                          /* any: 4, 16 or 64 KiB */
    .fill = 0,                          /* UDF #0 */
    .flush = clear_icache,
    .init = a64_init,
    .emit_entry = a64_emit_entry,
    .emit_program = a64_emit_program,
    .emit_probe = a64_emit_probe,
    .run = a64_run,
    .release = NULL,
};
_Static_assert(offsetof(struct rx_jit, core) == 0, "the lifecycle's part comes first");

const struct rx_jit_arch *rx_jit_arch(void) { return &a64_arch; }
#else
typedef int rx_jit_aarch64_unused_; /* ISO C: a translation unit is not empty */
#endif
