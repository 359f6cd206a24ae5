/* SPDX-License-Identifier: ISC */
/* src/rx/x86_emit.h — a small x86-64 instruction emitter for the JITs
 * (jit_x86_64.c, jit_superscalar_x86_64.c, jit_superscalar_avx_x86_64.c).  Code is appended to a caller
 * buffer; running out of room sets a sticky error and stops writing, so a
 * generator emits everything and checks xe_ok() once at the end.
 * An instruction is assembled in registers, immediate included (xe_ins),
 * and appended with one room check and two 8-byte stores; only within
 * XE_MAX_INSN bytes of the end does it go through a byte copy.
 * Only the encodings the JITs use are here; each names its Intel SDM form. */
#ifndef RX_X86_EMIT_H
#define RX_X86_EMIT_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "util/le.h"

enum { XR_RAX, XR_RCX, XR_RDX, XR_RBX, XR_RSP, XR_RBP, XR_RSI, XR_RDI,
       XR_R8, XR_R9, XR_R10, XR_R11, XR_R12, XR_R13, XR_R14, XR_R15 };
#define XE_NOIDX (-1)

/* every emitter is inlined into its caller: the constant operands (opcode,
 * prefix, operand form) then fold away, which halves the cost of a compile */
#define XE_INLINE static inline __attribute__((always_inline))
/* lim: len < lim while XE_MAX_INSN bytes are free and no error is set (the
 * fast path's one compare); 0 once an error is set */
typedef struct xe_buf { uint8_t *p; size_t len, cap, lim; int err; } xe_buf;
/* the longest instruction one call assembles: prefix, REX, three opcode
 * bytes, ModRM, SIB, disp32, imm32 (15), or an EVEX one (11 + ib) */
#define XE_MAX_INSN 16
/* memory operand [base + index*scale + disp]; index XE_NOIDX for none */
typedef struct xe_mem { int base, index, scale; int32_t disp; } xe_mem;

XE_INLINE xe_mem xm(int base, int32_t disp) { xe_mem m = { base, XE_NOIDX, 1, disp }; return m; }
XE_INLINE xe_mem xmi(int base, int index, int scale, int32_t disp) {
    xe_mem m = { base, index, scale, disp }; return m;
}
XE_INLINE void xe_init(xe_buf *b, uint8_t *p, size_t cap) {
    b->p = p; b->len = 0; b->cap = cap; b->err = 0;
    b->lim = cap >= XE_MAX_INSN ? cap - XE_MAX_INSN + 1 : 0;
}
XE_INLINE void xe_fail(xe_buf *b) { b->err = 1; b->lim = 0; }
XE_INLINE int xe_ok(const xe_buf *b) { return !b->err; }

XE_INLINE void xe_bytes(xe_buf *b, const void *src, size_t n) {
    if (b->err || n > b->cap - b->len) { xe_fail(b); return; }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}
/* An instruction assembled in registers: head = prefix, REX/VEX/EVEX,
 * opcode, ModRM, SIB (at most 8 bytes), tail = displacement and immediate
 * (at most 8), little-endian, first byte lowest.  xe_put appends it with
 * two 8-byte stores when XE_MAX_INSN bytes are free, else through
 * xe_bytes (room check, sticky error). */
typedef struct xe_ins { uint64_t head, tail; unsigned nh, nt; } xe_ins;
XE_INLINE void xe_h(xe_ins *x, unsigned byte) { x->head |= (uint64_t)(byte & 0xFFu) << (8 * x->nh); x->nh++; }
/* n (1 or 4) bytes of v into the tail */
XE_INLINE void xe_t(xe_ins *x, uint32_t v, unsigned n) {
    x->tail |= (uint64_t)(n == 1 ? (v & 0xFFu) : v) << (8 * x->nt);
    x->nt += n;
}
XE_INLINE void xe_put(xe_buf *b, const xe_ins *x) {
    if (b->len < b->lim) {
        uint8_t *p = b->p + b->len;
        util_store64le(p, x->head);
        util_store64le(p + x->nh, x->tail);
        b->len += x->nh + x->nt;
        return;
    }
    uint8_t t[16];
    util_store64le(t, x->head);
    util_store64le(t + x->nh, x->tail);
    xe_bytes(b, t, x->nh + x->nt);
}
XE_INLINE void xe_u8(xe_buf *b, unsigned v) { uint8_t x = (uint8_t)v; xe_bytes(b, &x, 1); }
XE_INLINE void xe_u32(xe_buf *b, uint32_t v) {
    uint8_t x[4];
    util_store32le(x, v);
    xe_bytes(b, x, 4);
}
XE_INLINE void xe_u64(xe_buf *b, uint64_t v) { xe_u32(b, (uint32_t)v); xe_u32(b, (uint32_t)(v >> 32)); }

/* ModRM [SIB] into x's head, [disp] into its tail: reg field r (low 3
 * bits), register rm_reg (mem NULL) or memory operand.  disp8: whether a
 * displacement in -128..127 may be written as one byte (not for EVEX,
 * which scales disp8 by the operand size). */
XE_INLINE void xe_modrm(xe_ins *x, unsigned r, int rm_reg, const xe_mem *mem, int disp8) {
    r &= 7u;
    if (!mem) { xe_h(x, 0xC0u | (r << 3) | ((unsigned)rm_reg & 7u)); return; }
    unsigned base = (unsigned)mem->base & 7u;
    unsigned mod;
    if (mem->disp == 0 && base != XR_RBP) mod = 0;        /* rbp/r13 need a disp */
    else if (disp8 && mem->disp >= -128 && mem->disp <= 127) mod = 1;
    else mod = 2;
    if (mem->index != XE_NOIDX || base == XR_RSP) {       /* rsp/r12 need a SIB */
        unsigned ss = mem->scale == 8 ? 3u : mem->scale == 4 ? 2u : mem->scale == 2 ? 1u : 0u;
        unsigned idx = mem->index == XE_NOIDX ? 4u : ((unsigned)mem->index & 7u);
        xe_h(x, (mod << 6) | (r << 3) | 4u);
        xe_h(x, (ss << 6) | (idx << 3) | base);
    } else {
        xe_h(x, (mod << 6) | (r << 3) | base);
    }
    if (mod) xe_t(x, (uint32_t)mem->disp, mod == 1 ? 1u : 4u);
}

/* Generic instruction: [pfx] [REX] opcode(1-3 bytes) ModRM [SIB] [disp]
 * [imm: nimm = 0, 1 or 4 bytes of imm].  reg: the ModRM.reg field
 * (register or /digit); rm: register rm_reg (mem NULL) or memory operand.
 * rex_w: 64-bit operand size. */
XE_INLINE void xe_op_i(xe_buf *b, unsigned pfx, int rex_w, const uint8_t *opc, size_t nopc,
                           int reg, int rm_reg, const xe_mem *mem, unsigned nimm, uint32_t imm) {
    xe_ins x = { 0, 0, 0, 0 };
    unsigned rex = 0x40u | (rex_w ? 8u : 0u) | ((unsigned)(reg & 8) >> 1);
    if (mem) {
        if (mem->index != XE_NOIDX) rex |= (unsigned)(mem->index & 8) >> 2;
        rex |= (unsigned)(mem->base & 8) >> 3;
    } else {
        rex |= (unsigned)(rm_reg & 8) >> 3;
    }
    if (pfx) xe_h(&x, pfx);
    if (rex != 0x40u) xe_h(&x, rex);
    for (size_t i = 0; i < nopc && i < 3; i++) xe_h(&x, opc[i]);
    xe_modrm(&x, (unsigned)reg, rm_reg, mem, 1);
    if (nimm) xe_t(&x, imm, nimm);
    xe_put(b, &x);
}
XE_INLINE void xe_op(xe_buf *b, unsigned pfx, int rex_w, const uint8_t *opc, size_t nopc,
                         int reg, int rm_reg, const xe_mem *mem) {
    xe_op_i(b, pfx, rex_w, opc, nopc, reg, rm_reg, mem, 0, 0);
}
XE_INLINE void xe_rr(xe_buf *b, int w, unsigned op, int reg, int rm) {
    uint8_t o = (uint8_t)op; xe_op(b, 0, w, &o, 1, reg, rm, NULL);
}
/* op reg/digit, rm with an immediate of nimm bytes */
XE_INLINE void xe_rr_i(xe_buf *b, int w, unsigned op, int reg, int rm, unsigned nimm, uint32_t imm) {
    uint8_t o = (uint8_t)op; xe_op_i(b, 0, w, &o, 1, reg, rm, NULL, nimm, imm);
}
XE_INLINE void xe_rm(xe_buf *b, int w, unsigned op, int reg, xe_mem m) {
    uint8_t o = (uint8_t)op; xe_op(b, 0, w, &o, 1, reg, 0, &m);
}

/* ---- integer ---- */
enum { XA_ADD = 0x03, XA_OR = 0x0B, XA_AND = 0x23, XA_SUB = 0x2B, XA_XOR = 0x33, XA_CMP = 0x3B };
/* op dst, src  (64-bit when w) */
XE_INLINE void xe_alu_rr(xe_buf *b, int w, unsigned op, int dst, int src) { xe_rr(b, w, op, dst, src); }
XE_INLINE void xe_alu_rm(xe_buf *b, int w, unsigned op, int dst, xe_mem m) { xe_rm(b, w, op, dst, m); }
/* 81 /digit id: op dst, imm32 (sign-extended when w) */
XE_INLINE void xe_alu_ri(xe_buf *b, int w, unsigned op, int dst, int32_t imm) {
    unsigned digit = (op >> 3) & 7u;   /* the XA_ values are 8 x digit + 3 */
    xe_rr_i(b, w, 0x81, (int)digit, dst, 4, (uint32_t)imm);
}
XE_INLINE void xe_test_ri(xe_buf *b, int w, int dst, int32_t imm) { xe_rr_i(b, w, 0xF7, 0, dst, 4, (uint32_t)imm); }
XE_INLINE void xe_test_rr(xe_buf *b, int w, int a, int c) { xe_rr(b, w, 0x85, c, a); }
XE_INLINE void xe_mov_rr(xe_buf *b, int w, int dst, int src) { xe_rr(b, w, 0x8B, dst, src); }
XE_INLINE void xe_load(xe_buf *b, int w, int dst, xe_mem m) { xe_rm(b, w, 0x8B, dst, m); }
XE_INLINE void xe_store(xe_buf *b, int w, xe_mem m, int src) { xe_rm(b, w, 0x89, src, m); }
XE_INLINE void xe_lea(xe_buf *b, int w, int dst, xe_mem m) { xe_rm(b, w, 0x8D, dst, m); }
XE_INLINE void xe_mov_ri64(xe_buf *b, int dst, uint64_t imm) {
    xe_u8(b, 0x48u | ((unsigned)(dst & 8) >> 3)); xe_u8(b, 0xB8u + ((unsigned)dst & 7u)); xe_u64(b, imm);
}
XE_INLINE void xe_mov_ri32(xe_buf *b, int dst, uint32_t imm) {
    if (dst & 8) xe_u8(b, 0x41);
    xe_u8(b, 0xB8u + ((unsigned)dst & 7u)); xe_u32(b, imm);
}
/* imul dst, src (0F AF) ; imul dst, [m] ; imul dst, src, imm32 (69) */
XE_INLINE void xe_imul_rr(xe_buf *b, int dst, int src) { uint8_t o[2] = { 0x0F, 0xAF }; xe_op(b, 0, 1, o, 2, dst, src, NULL); }
XE_INLINE void xe_imul_rm(xe_buf *b, int dst, xe_mem m) { uint8_t o[2] = { 0x0F, 0xAF }; xe_op(b, 0, 1, o, 2, dst, 0, &m); }
XE_INLINE void xe_imul_rri(xe_buf *b, int dst, int src, int32_t imm) { xe_rr_i(b, 1, 0x69, dst, src, 4, (uint32_t)imm); }
/* F7 group: /3 neg, /4 mul, /5 imul (rdx:rax = rax * rm) */
XE_INLINE void xe_f7_r(xe_buf *b, int digit, int rm) { xe_rr(b, 1, 0xF7, digit, rm); }
XE_INLINE void xe_f7_m(xe_buf *b, int digit, xe_mem m) { xe_rm(b, 1, 0xF7, digit, m); }
enum { XS_ROL = 0, XS_ROR = 1, XS_SHL = 4, XS_SHR = 5, XS_SAR = 7 };
XE_INLINE void xe_shift_ri(xe_buf *b, int w, int kind, int dst, unsigned n) { xe_rr_i(b, w, 0xC1, kind, dst, 1, n); }
XE_INLINE void xe_shift_cl(xe_buf *b, int w, int kind, int dst) { xe_rr(b, w, 0xD3, kind, dst); }
XE_INLINE void xe_xchg(xe_buf *b, int a, int c) { xe_rr(b, 1, 0x87, a, c); }
XE_INLINE void xe_push(xe_buf *b, int r) { if (r & 8) xe_u8(b, 0x41); xe_u8(b, 0x50u + ((unsigned)r & 7u)); }
XE_INLINE void xe_pop(xe_buf *b, int r) { if (r & 8) xe_u8(b, 0x41); xe_u8(b, 0x58u + ((unsigned)r & 7u)); }
XE_INLINE void xe_ret(xe_buf *b) { xe_u8(b, 0xC3); }
XE_INLINE void xe_call_m(xe_buf *b, xe_mem m) { xe_rm(b, 0, 0xFF, 2, m); }
XE_INLINE void xe_call_r(xe_buf *b, int r) { xe_rr(b, 0, 0xFF, 2, r); }
XE_INLINE void xe_prefetch(xe_buf *b, int hint, xe_mem m) { uint8_t o[2] = { 0x0F, 0x18 }; xe_op(b, 0, 0, o, 2, hint, 0, &m); }
XE_INLINE void xe_ldmxcsr(xe_buf *b, xe_mem m) { uint8_t o[2] = { 0x0F, 0xAE }; xe_op(b, 0, 0, o, 2, 2, 0, &m); }
XE_INLINE void xe_stmxcsr(xe_buf *b, xe_mem m) { uint8_t o[2] = { 0x0F, 0xAE }; xe_op(b, 0, 0, o, 2, 3, 0, &m); }

/* pad with NOPs (9-byte 66 0F 1F 84 00 00000000, then 90) until len % align == 0 */
XE_INLINE void xe_align_nop(xe_buf *b, size_t align) {
    static const uint8_t nop9[9] = { 0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 };
    while (!b->err && b->len % align) {
        size_t left = align - b->len % align;
        if (left >= 9) xe_bytes(b, nop9, 9); else xe_u8(b, 0x90);
    }
}

/* ---- jumps: targets are offsets in the same buffer ---- */
enum { XC_O = 0, XC_B = 2, XC_AE = 3, XC_Z = 4, XC_NZ = 5, XC_BE = 6, XC_A = 7, XC_S = 8,
       XC_L = 12, XC_GE = 13, XC_LE = 14, XC_G = 15 };
/* jcc / jmp to a known offset; picks rel8 when it fits */
XE_INLINE void xe_jcc_to(xe_buf *b, int cc, size_t target) {
    long d8 = (long)target - (long)(b->len + 2);
    if (d8 >= -128 && d8 <= 127) { xe_u8(b, 0x70u + (unsigned)cc); xe_u8(b, (unsigned)(uint8_t)(int8_t)d8); return; }
    long d32 = (long)target - (long)(b->len + 6);
    xe_u8(b, 0x0F); xe_u8(b, 0x80u + (unsigned)cc); xe_u32(b, (uint32_t)(int32_t)d32);
}
XE_INLINE void xe_jmp_to(xe_buf *b, size_t target) {
    long d8 = (long)target - (long)(b->len + 2);
    if (d8 >= -128 && d8 <= 127) { xe_u8(b, 0xEB); xe_u8(b, (unsigned)(uint8_t)(int8_t)d8); return; }
    long d32 = (long)target - (long)(b->len + 5);
    xe_u8(b, 0xE9); xe_u32(b, (uint32_t)(int32_t)d32);
}
/* jmp rel32 to an absolute address; code will run at run_base + offset */
XE_INLINE void xe_jmp_abs(xe_buf *b, const uint8_t *run_base, const uint8_t *target) {
    long d32 = (long)(target - (run_base + b->len + 5));
    xe_u8(b, 0xE9); xe_u32(b, (uint32_t)(int32_t)d32);
}
/* forward short jcc / jmp: returns the patch position, xe_patch8 binds it here */
XE_INLINE size_t xe_jcc8_fwd(xe_buf *b, int cc) { xe_u8(b, 0x70u + (unsigned)cc); xe_u8(b, 0); return b->len; }
XE_INLINE size_t xe_jmp8_fwd(xe_buf *b) { xe_u8(b, 0xEB); xe_u8(b, 0); return b->len; }
XE_INLINE void xe_patch8(xe_buf *b, size_t pos) {
    if (b->err) return;
    long d = (long)b->len - (long)pos;
    if (d > 127) { xe_fail(b); return; }
    b->p[pos - 1] = (uint8_t)d;
}
/* forward near jcc (rel32): returns the patch position, xe_patch32 binds it here */
XE_INLINE size_t xe_jcc32_fwd(xe_buf *b, int cc) {
    xe_u8(b, 0x0F); xe_u8(b, 0x80u + (unsigned)cc); xe_u32(b, 0);
    return b->len;
}
XE_INLINE void xe_patch32(xe_buf *b, size_t pos) {
    if (b->err) return;
    uint32_t d = (uint32_t)(int32_t)((long)b->len - (long)pos);
    util_store32le(b->p + pos - 4, d);
}

/* ---- SSE2 / AES-NI (xmm registers 0-15) ---- */
XE_INLINE void xe_sse_rr(xe_buf *b, unsigned pfx, unsigned op, int dst, int src) {
    uint8_t o[2] = { 0x0F, (uint8_t)op }; xe_op(b, pfx, 0, o, 2, dst, src, NULL);
}
XE_INLINE void xe_sse_rm(xe_buf *b, unsigned pfx, unsigned op, int dst, xe_mem m) {
    uint8_t o[2] = { 0x0F, (uint8_t)op }; xe_op(b, pfx, 0, o, 2, dst, 0, &m);
}
#define XO_ADDPD   0x66, 0x58
#define XO_SUBPD   0x66, 0x5C
#define XO_MULPD   0x66, 0x59
#define XO_DIVPD   0x66, 0x5E
#define XO_SQRTPD  0x66, 0x51
#define XO_XORPS   0x00, 0x57
#define XO_ANDPS   0x00, 0x54
#define XO_ORPS    0x00, 0x56
#define XO_CVTDQ2PD 0xF3, 0xE6
#define XO_MOVAPD_LOAD 0x66, 0x28
#define XO_MOVDQU_LOAD 0xF3, 0x6F
XE_INLINE void xe_movapd_store(xe_buf *b, xe_mem m, int src) { xe_sse_rm(b, 0x66, 0x29, src, m); }
XE_INLINE void xe_movdqu_store(xe_buf *b, xe_mem m, int src) { xe_sse_rm(b, 0xF3, 0x7F, src, m); }
XE_INLINE void xe_shufpd(xe_buf *b, int dst, int src, unsigned imm) {
    uint8_t o[2] = { 0x0F, 0xC6 }; xe_op_i(b, 0x66, 0, o, 2, dst, src, NULL, 1, imm);
}
/* aesenc (DC) / aesdec (DE): 66 0F 38 xx /r */
XE_INLINE void xe_aes(xe_buf *b, unsigned op, int dst, int src) {
    uint8_t o[3] = { 0x0F, 0x38, (uint8_t)op }; xe_op(b, 0x66, 0, o, 3, dst, src, NULL);
}
#define XO_AESENC 0xDC
#define XO_AESDEC 0xDE

/* ---- AVX-512 (EVEX, 512-bit; zmm0-31, opmasks k0-k7) ----
 * Form (Intel SDM vol. 2 §2.7): 62 P0 P1 P2 opcode ModRM [SIB] [disp32] [ib]
 *   P0 = R~ X~ B~ R'~ 0 0 m m   (~: stored inverted; mm 1 = 0F, 2 = 0F38, 3 = 0F3A)
 *   P1 = W vvvv~ 1 pp           (pp 0 = none, 1 = 66, 2 = F3, 3 = F2)
 *   P2 = z L'L b V'~ aaa         (L'L = 2: 512 bits; b: {1to8} broadcast of a
 *                                 memory operand; aaa: opmask)
 * reg = ModRM.reg + R (bit 3) + R' (bit 4); vvvv + V' the second source
 * (0 when unused: stored 1111, V'~ 1); a register rm = ModRM.rm + B (bit 3)
 * + X (bit 4); a memory rm uses B/X for the base/index GPR, and a VSIB
 * index (gather/scatter) is a zmm: X bit 3, V' bit 4.  Memory operands are
 * always written with no displacement or a 32-bit one (mod 00 / 10), never
 * disp8, which EVEX would scale by the operand size (disp8*N).
 * Used forms (all EVEX.512.66, W1 unless noted):
 *   0F D4 /r vpaddq   0F FB /r vpsubq   0F EF /r vpxorq   0F DB /r vpandq
 *   0F F4 /r vpmuludq 0F38 40 /r vpmullq (AVX512DQ)
 *   0F 73 /2 ib vpsrlq  0F 73 /6 ib vpsllq  0F 72 /0 ib vprorq  0F 72 /4 ib vpsraq
 *   (the /digit forms: vvvv = destination, rm = source)
 *   F3 0F 6F /r vmovdqu64 load, F3 0F 7F /r store
 *   0F38 7C /r vpbroadcastq zmm, r64
 *   0F38 91 /vsib vpgatherqq zmm{k}, [base + zmm*s + d]   (k must be non-zero)
 *   0F38 A1 /vsib vpscatterqq [base + zmm*s + d]{k}, zmm
 *   VEX.L1.66.0F.W0 46 /r kxnorb k, k, k (AVX512DQ): sets the mask to all ones
 *   VEX.128.0F 77 vzeroupper */
enum { XE_MAP_0F = 1, XE_MAP_0F38 = 2 };
enum { XE_PP_66 = 1, XE_PP_F3 = 2 };
typedef struct xe_vop { uint8_t map, pp, op; } xe_vop;
static const xe_vop XV_PADDQ = { XE_MAP_0F, XE_PP_66, 0xD4 }, XV_PSUBQ = { XE_MAP_0F, XE_PP_66, 0xFB },
                    XV_PXORQ = { XE_MAP_0F, XE_PP_66, 0xEF }, XV_PANDQ = { XE_MAP_0F, XE_PP_66, 0xDB },
                    XV_PMULUDQ = { XE_MAP_0F, XE_PP_66, 0xF4 }, XV_PMULLQ = { XE_MAP_0F38, XE_PP_66, 0x40 };
/* the ib shift/rotate forms: opcode and /digit */
enum { XV_SRLQ = 0x7302, XV_SLLQ = 0x7306, XV_RORQ = 0x7200, XV_SRAQ = 0x7204 };

/* One EVEX.512.W1 instruction.  mem NULL: rm is register rm_reg; vsib:
 * mem->index is a zmm.  bcst: {1to8} (memory operands only).  k: opmask. */
XE_INLINE void xe_evex(xe_buf *b, xe_vop o, int reg, int vvvv, int rm_reg, const xe_mem *mem,
                           int vsib, int bcst, int k) {
    xe_ins x = { 0, 0, 0, 0 };
    unsigned R = ((unsigned)reg >> 3) & 1u, R2 = ((unsigned)reg >> 4) & 1u, X, B, V2 = ((unsigned)vvvv >> 4) & 1u;
    if (mem) {
        B = ((unsigned)mem->base >> 3) & 1u;
        X = mem->index == XE_NOIDX ? 0u : ((unsigned)mem->index >> 3) & 1u;
        if (vsib) V2 = ((unsigned)mem->index >> 4) & 1u;
    } else {
        B = ((unsigned)rm_reg >> 3) & 1u;
        X = ((unsigned)rm_reg >> 4) & 1u;
    }
    xe_h(&x, 0x62);
    xe_h(&x, ((R ^ 1u) << 7) | ((X ^ 1u) << 6) | ((B ^ 1u) << 5) | ((R2 ^ 1u) << 4) | o.map);
    xe_h(&x, 0x80u | ((~(unsigned)vvvv & 15u) << 3) | 4u | o.pp);
    xe_h(&x, (2u << 5) | ((bcst ? 1u : 0u) << 4) | ((V2 ^ 1u) << 3) | ((unsigned)k & 7u));
    xe_h(&x, o.op);
    xe_modrm(&x, (unsigned)reg, rm_reg, mem, 0);
    xe_put(b, &x);
}
/* op dst, a, src (zmm) */
XE_INLINE void xe_vq_rrr(xe_buf *b, xe_vop o, int dst, int a, int src) { xe_evex(b, o, dst, a, src, NULL, 0, 0, 0); }
/* op dst, a, [m]{1to8} (a 64-bit memory value broadcast to every lane) */
XE_INLINE void xe_vq_rrb(xe_buf *b, xe_vop o, int dst, int a, xe_mem m) { xe_evex(b, o, dst, a, 0, &m, 0, 1, 0); }
/* op dst, a, [m] (a whole 64-byte vector) */
XE_INLINE void xe_vq_rrm(xe_buf *b, xe_vop o, int dst, int a, xe_mem m) { xe_evex(b, o, dst, a, 0, &m, 0, 0, 0); }
/* shift / rotate by an immediate: form XV_SRLQ, XV_SLLQ, XV_RORQ, XV_SRAQ */
XE_INLINE void xe_vq_shift(xe_buf *b, unsigned form, int dst, int src, unsigned n) {
    xe_vop o = { XE_MAP_0F, XE_PP_66, (uint8_t)(form >> 8) };
    xe_evex(b, o, (int)(form & 7u), dst, src, NULL, 0, 0, 0);
    xe_u8(b, n);
}
XE_INLINE void xe_vmovdqu64_load(xe_buf *b, int dst, xe_mem m) {
    xe_vop o = { XE_MAP_0F, XE_PP_F3, 0x6F }; xe_evex(b, o, dst, 0, 0, &m, 0, 0, 0);
}
XE_INLINE void xe_vmovdqu64_store(xe_buf *b, xe_mem m, int src) {
    xe_vop o = { XE_MAP_0F, XE_PP_F3, 0x7F }; xe_evex(b, o, src, 0, 0, &m, 0, 0, 0);
}
XE_INLINE void xe_vpbroadcastq_r(xe_buf *b, int dst, int gpr) {
    xe_vop o = { XE_MAP_0F38, XE_PP_66, 0x7C }; xe_evex(b, o, dst, 0, gpr & 15, NULL, 0, 0, 0);
}
/* m.index is a zmm; k (1-7) is all ones before and cleared by the CPU after */
XE_INLINE void xe_vpgatherqq(xe_buf *b, int dst, int k, xe_mem m) {
    xe_vop o = { XE_MAP_0F38, XE_PP_66, 0x91 }; xe_evex(b, o, dst, 0, 0, &m, 1, 0, k);
}
XE_INLINE void xe_vpscatterqq(xe_buf *b, xe_mem m, int k, int src) {
    xe_vop o = { XE_MAP_0F38, XE_PP_66, 0xA1 }; xe_evex(b, o, src, 0, 0, &m, 1, 0, k);
}
/* kxnorb k, k, k (2-byte VEX C5: R~ vvvv~ L pp) */
XE_INLINE void xe_kset(xe_buf *b, int k) {
    xe_u8(b, 0xC5); xe_u8(b, 0x80u | ((~(unsigned)k & 15u) << 3) | 4u | 1u); xe_u8(b, 0x46);
    xe_u8(b, 0xC0u | (((unsigned)k & 7u) << 3) | ((unsigned)k & 7u));
}
XE_INLINE void xe_vzeroupper(xe_buf *b) { xe_u8(b, 0xC5); xe_u8(b, 0xF8); xe_u8(b, 0x77); }

/* ---- AVX2 (VEX, 256-bit; ymm0-15) ----
 * Form (Intel SDM vol. 2 §2.3), always the 3-byte prefix:
 *   C4 [R~ X~ B~ m-mmmm] [W vvvv~ L pp] opcode ModRM [SIB] [disp8/32] [ib]
 * (mmmmm 1 = 0F, 2 = 0F38; L 1 = 256 bits; vvvv the second source, 0 when
 * unused; a VSIB index is a ymm, extended by X).  Used forms (VEX.256.66,
 * W0 unless noted; the xe_vop table above gives map/pp/opcode for
 * vpaddq, vpsubq, vpmuludq; vpxor/vpand share EVEX's opcodes):
 *   0F EB /r vpor   0F 76 /r vpcmpeqd   0F38 37 /r vpcmpgtq (dst = a > b, signed)
 *   0F 73 /2 ib vpsrlq  0F 73 /6 ib vpsllq (vvvv = destination)
 *   F3 0F 6F /r vmovdqu load, F3 0F 7F /r store
 *   VEX.128.66.0F.W1 6E /r vmovq xmm, r64;  0F38 59 /r vpbroadcastq ymm, xmm
 *   0F38.W1 91 /r vpgatherqq ymm, [base + ymm*s + d], ymm mask (vvvv; all
 *   three registers distinct; the mask's sign bits select, cleared after) */
static const xe_vop XV_POR = { XE_MAP_0F, XE_PP_66, 0xEB }, XV_PCMPEQD = { XE_MAP_0F, XE_PP_66, 0x76 },
                    XV_PCMPGTQ = { XE_MAP_0F38, XE_PP_66, 0x37 };
XE_INLINE void xe_vex(xe_buf *b, xe_vop o, int w, int l256, int reg, int vvvv, int rm_reg, const xe_mem *mem) {
    xe_ins x = { 0, 0, 0, 0 };
    unsigned R = ((unsigned)reg >> 3) & 1u, X = 0, B;
    if (mem) {
        B = ((unsigned)mem->base >> 3) & 1u;
        if (mem->index != XE_NOIDX) X = ((unsigned)mem->index >> 3) & 1u;
    } else {
        B = ((unsigned)rm_reg >> 3) & 1u;
    }
    xe_h(&x, 0xC4);
    xe_h(&x, ((R ^ 1u) << 7) | ((X ^ 1u) << 6) | ((B ^ 1u) << 5) | o.map);
    xe_h(&x, ((w ? 1u : 0u) << 7) | ((~(unsigned)vvvv & 15u) << 3) | ((l256 ? 1u : 0u) << 2) | o.pp);
    xe_h(&x, o.op);
    xe_modrm(&x, (unsigned)reg, rm_reg, mem, 1);
    xe_put(b, &x);
}
/* op dst, a, src / [m] (ymm, a whole 32-byte vector) */
XE_INLINE void xe_vy_rrr(xe_buf *b, xe_vop o, int dst, int a, int src) { xe_vex(b, o, 0, 1, dst, a, src, NULL); }
XE_INLINE void xe_vy_rrm(xe_buf *b, xe_vop o, int dst, int a, xe_mem m) { xe_vex(b, o, 0, 1, dst, a, 0, &m); }
/* form XV_SRLQ or XV_SLLQ */
XE_INLINE void xe_vy_shift(xe_buf *b, unsigned form, int dst, int src, unsigned n) {
    xe_vop o = { XE_MAP_0F, XE_PP_66, (uint8_t)(form >> 8) };
    xe_vex(b, o, 0, 1, (int)(form & 7u), dst, src, NULL);
    xe_u8(b, n);
}
XE_INLINE void xe_vmovdqu_load(xe_buf *b, int dst, xe_mem m) {
    xe_vop o = { XE_MAP_0F, XE_PP_F3, 0x6F }; xe_vex(b, o, 0, 1, dst, 0, 0, &m);
}
XE_INLINE void xe_vmovdqu_store(xe_buf *b, xe_mem m, int src) {
    xe_vop o = { XE_MAP_0F, XE_PP_F3, 0x7F }; xe_vex(b, o, 0, 1, src, 0, 0, &m);
}
/* ymm dst = the 64-bit gpr in every lane (vmovq xmm, r64; vpbroadcastq ymm, xmm) */
XE_INLINE void xe_vy_broadcast_r(xe_buf *b, int dst, int gpr) {
    xe_vop mq = { XE_MAP_0F, XE_PP_66, 0x6E }, bq = { XE_MAP_0F38, XE_PP_66, 0x59 };
    xe_vex(b, mq, 1, 0, dst, 0, gpr, NULL);
    xe_vex(b, bq, 0, 1, dst, 0, dst, NULL);
}
XE_INLINE void xe_vy_gatherqq(xe_buf *b, int dst, int mask, xe_mem m) {
    xe_vop o = { XE_MAP_0F38, XE_PP_66, 0x91 }; xe_vex(b, o, 1, 1, dst, mask, 0, &m);
}
#endif
