/* SPDX-License-Identifier: ISC */
/* src/rx/a64_emit.h — a small AArch64 (ARMv8-A A64) instruction emitter for
 * jit_aarch64.c.  Instructions are 32-bit little-endian words appended to a
 * caller buffer; running out of room (or asking for an encoding that does
 * not exist, e.g. an out-of-range offset) sets a sticky error and stops
 * writing, so a generator emits everything and checks ae_ok() once.
 * Only the forms the JIT uses are here; each names its ARM ARM mnemonic.
 * Register numbers: 0-30 general (31 = XZR/WZR or SP, by instruction),
 * 0-31 SIMD&FP V registers. */
#ifndef RX_A64_EMIT_H
#define RX_A64_EMIT_H
#include <stddef.h>
#include <stdint.h>
#include "util/le.h"

#define AR_ZR 31u
#define AR_SP 31u

typedef struct ae_buf { uint8_t *p; size_t len, cap; int err; } ae_buf;

static inline void ae_init(ae_buf *b, uint8_t *p, size_t cap) { b->p = p; b->len = 0; b->cap = cap; b->err = 0; }
static inline int ae_ok(const ae_buf *b) { return !b->err; }

static inline void ae_word(ae_buf *b, uint32_t w) {
    if (b->err || b->cap - b->len < 4) { b->err = 1; return; }
    util_store32le(b->p + b->len, w);
    b->len += 4;
}
#define AE_R(x) ((uint32_t)(x) & 31u)
#define AE_SF(x64) ((x64) ? 0x80000000u : 0u)

/* ---- data processing, registers ------------------------------------- */
/* ADD/SUB (shifted register, LSL #sh) */
static inline void ae_add_rr(ae_buf *b, int x64, unsigned d, unsigned n, unsigned m, unsigned sh) {
    if (sh > (x64 ? 63u : 31u)) { b->err = 1; return; }
    ae_word(b, AE_SF(x64) | 0x0B000000u | AE_R(m) << 16 | sh << 10 | AE_R(n) << 5 | AE_R(d));
}
static inline void ae_sub_rr(ae_buf *b, int x64, unsigned d, unsigned n, unsigned m) {
    ae_word(b, AE_SF(x64) | 0x4B000000u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(d));
}
/* NEG d, m  (SUB d, ZR, m) */
static inline void ae_neg(ae_buf *b, int x64, unsigned d, unsigned m) { ae_sub_rr(b, x64, d, AR_ZR, m); }
/* Logical (shifted register): AND 0, ORR 1, EOR 2, ANDS 3; LSL #sh */
enum { AE_AND = 0, AE_ORR = 1, AE_EOR = 2, AE_ANDS = 3 };
static inline void ae_log_rr(ae_buf *b, int x64, int op, unsigned d, unsigned n, unsigned m, unsigned sh) {
    if (sh > (x64 ? 63u : 31u)) { b->err = 1; return; }
    ae_word(b, AE_SF(x64) | 0x0A000000u | (uint32_t)op << 29 | AE_R(m) << 16 | sh << 10 | AE_R(n) << 5 | AE_R(d));
}
/* MOV d, m (ORR d, ZR, m) — not for SP */
static inline void ae_mov_rr(ae_buf *b, int x64, unsigned d, unsigned m) { ae_log_rr(b, x64, AE_ORR, d, AR_ZR, m, 0); }
/* MUL (MADD d, n, m, ZR), UMULH, SMULH — 64-bit */
static inline void ae_mul(ae_buf *b, unsigned d, unsigned n, unsigned m) {
    ae_word(b, 0x9B007C00u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(d));
}
static inline void ae_umulh(ae_buf *b, unsigned d, unsigned n, unsigned m) {
    ae_word(b, 0x9BC07C00u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(d));
}
static inline void ae_smulh(ae_buf *b, unsigned d, unsigned n, unsigned m) {
    ae_word(b, 0x9B407C00u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(d));
}
/* RORV d, n, m — 64-bit, count m mod 64 */
static inline void ae_rorv(ae_buf *b, unsigned d, unsigned n, unsigned m) {
    ae_word(b, 0x9AC02C00u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(d));
}
/* ROR d, n, #sh (EXTR d, n, n, #sh) — 64-bit */
static inline void ae_ror_i(ae_buf *b, unsigned d, unsigned n, unsigned sh) {
    if (sh > 63u) { b->err = 1; return; }
    ae_word(b, 0x93C00000u | AE_R(n) << 16 | sh << 10 | AE_R(n) << 5 | AE_R(d));
}
/* LSR d, n, #sh (UBFM) */
static inline void ae_lsr_i(ae_buf *b, int x64, unsigned d, unsigned n, unsigned sh) {
    if (sh > (x64 ? 63u : 31u)) { b->err = 1; return; }
    if (x64) ae_word(b, 0xD3400000u | sh << 16 | 63u << 10 | AE_R(n) << 5 | AE_R(d));
    else     ae_word(b, 0x53000000u | sh << 16 | 31u << 10 | AE_R(n) << 5 | AE_R(d));
}
/* RBIT d, n — 32-bit */
static inline void ae_rbit32(ae_buf *b, unsigned d, unsigned n) {
    ae_word(b, 0x5AC00000u | AE_R(n) << 5 | AE_R(d));
}

/* ---- data processing, immediates ------------------------------------ */
/* ADD/SUB (immediate): imm12, optionally LSL #12.  n/d may be SP. */
static inline void ae_add_i(ae_buf *b, int x64, unsigned d, unsigned n, uint32_t imm12, int lsl12) {
    if (imm12 > 0xFFFu) { b->err = 1; return; }
    ae_word(b, AE_SF(x64) | 0x11000000u | (lsl12 ? 1u << 22 : 0u) | imm12 << 10 | AE_R(n) << 5 | AE_R(d));
}
static inline void ae_sub_i(ae_buf *b, int x64, unsigned d, unsigned n, uint32_t imm12, int lsl12) {
    if (imm12 > 0xFFFu) { b->err = 1; return; }
    ae_word(b, AE_SF(x64) | 0x51000000u | (lsl12 ? 1u << 22 : 0u) | imm12 << 10 | AE_R(n) << 5 | AE_R(d));
}
/* SUBS (immediate) */
static inline void ae_subs_i(ae_buf *b, int x64, unsigned d, unsigned n, uint32_t imm12) {
    if (imm12 > 0xFFFu) { b->err = 1; return; }
    ae_word(b, AE_SF(x64) | 0x71000000u | imm12 << 10 | AE_R(n) << 5 | AE_R(d));
}
/* Logical (immediate) with a mask of `ones` contiguous ones starting at bit
 * `lsb` (no wrap), element size 64 (x64) or 32.  op: AE_AND/ORR/EOR/ANDS.
 * TST n, #mask is ANDS ZR, n, #mask. */
static inline void ae_log_i(ae_buf *b, int x64, int op, unsigned d, unsigned n, unsigned lsb, unsigned ones) {
    unsigned esize = x64 ? 64u : 32u;
    if (ones == 0 || ones >= esize || lsb + ones > esize) { b->err = 1; return; }
    uint32_t immr = (esize - lsb) % esize, imms = ones - 1u;
    ae_word(b, AE_SF(x64) | 0x12000000u | (uint32_t)op << 29 | (x64 ? 1u << 22 : 0u) |
               immr << 16 | imms << 10 | AE_R(n) << 5 | AE_R(d));
}
/* The (lsb, ones) of a contiguous mask, or 0 when v is not one. */
static inline int ae_mask_run(uint64_t v, unsigned *lsb, unsigned *ones) {
    if (v == 0) return 0;
    unsigned l = (unsigned)__builtin_ctzll(v);
    uint64_t s = v >> l;
    if ((s & (s + 1)) != 0) return 0;
    *lsb = l;
    *ones = s == ~0ull ? 64u : (unsigned)__builtin_ctzll(~s);
    return 1;
}
/* MOVZ / MOVN / MOVK (hw = 16-bit lane) */
static inline void ae_movz(ae_buf *b, int x64, unsigned d, uint32_t imm16, unsigned hw) {
    ae_word(b, AE_SF(x64) | 0x52800000u | hw << 21 | (imm16 & 0xFFFFu) << 5 | AE_R(d));
}
static inline void ae_movn(ae_buf *b, int x64, unsigned d, uint32_t imm16, unsigned hw) {
    ae_word(b, AE_SF(x64) | 0x12800000u | hw << 21 | (imm16 & 0xFFFFu) << 5 | AE_R(d));
}
static inline void ae_movk(ae_buf *b, int x64, unsigned d, uint32_t imm16, unsigned hw) {
    ae_word(b, AE_SF(x64) | 0x72800000u | hw << 21 | (imm16 & 0xFFFFu) << 5 | AE_R(d));
}
/* d = v (64-bit), shortest MOVZ/MOVN + MOVK sequence */
static inline void ae_mov_i64(ae_buf *b, unsigned d, uint64_t v) {
    unsigned zeros = 0, ones = 0;
    for (unsigned i = 0; i < 4; i++) {
        uint32_t h = (uint32_t)(v >> (16 * i)) & 0xFFFFu;
        zeros += h == 0;
        ones += h == 0xFFFFu;
    }
    int inv = ones > zeros;
    uint32_t skip = inv ? 0xFFFFu : 0u;
    int first = 1;
    for (unsigned i = 0; i < 4; i++) {
        uint32_t h = (uint32_t)(v >> (16 * i)) & 0xFFFFu;
        if (h == skip) continue;
        if (first) {
            if (inv) ae_movn(b, 1, d, ~h & 0xFFFFu, i); else ae_movz(b, 1, d, h, i);
            first = 0;
        } else {
            ae_movk(b, 1, d, h, i);
        }
    }
    if (first) { if (inv) ae_movn(b, 1, d, 0, 0); else ae_movz(b, 1, d, 0, 0); }
}
/* d = v (32-bit; upper half of Xd zeroed) */
static inline void ae_mov_i32(ae_buf *b, unsigned d, uint32_t v) {
    uint32_t lo = v & 0xFFFFu, hi = v >> 16;
    if (hi == 0) { ae_movz(b, 0, d, lo, 0); return; }
    if (lo == 0) { ae_movz(b, 0, d, hi, 1); return; }
    ae_movz(b, 0, d, lo, 0);
    ae_movk(b, 0, d, hi, 1);
}

/* ---- loads and stores ----------------------------------------------- */
/* LDR/STR Xt / Wt, [Xn, #off] (unsigned offset, scaled) */
static inline void ae_ldst_ui(ae_buf *b, uint32_t base_op, unsigned scale, unsigned t, unsigned n, uint32_t off) {
    if (off % scale || off / scale > 0xFFFu) { b->err = 1; return; }
    ae_word(b, base_op | (off / scale) << 10 | AE_R(n) << 5 | AE_R(t));
}
static inline void ae_ldr_x(ae_buf *b, unsigned t, unsigned n, uint32_t off) { ae_ldst_ui(b, 0xF9400000u, 8, t, n, off); }
static inline void ae_str_x(ae_buf *b, unsigned t, unsigned n, uint32_t off) { ae_ldst_ui(b, 0xF9000000u, 8, t, n, off); }
static inline void ae_ldr_w(ae_buf *b, unsigned t, unsigned n, uint32_t off) { ae_ldst_ui(b, 0xB9400000u, 4, t, n, off); }
static inline void ae_str_w(ae_buf *b, unsigned t, unsigned n, uint32_t off) { ae_ldst_ui(b, 0xB9000000u, 4, t, n, off); }
static inline void ae_ldr_q(ae_buf *b, unsigned t, unsigned n, uint32_t off) { ae_ldst_ui(b, 0x3DC00000u, 16, t, n, off); }
static inline void ae_str_q(ae_buf *b, unsigned t, unsigned n, uint32_t off) { ae_ldst_ui(b, 0x3D800000u, 16, t, n, off); }
/* LDR/STR Xt, [Xn, Xm]; LDR Dt, [Xn, Xm]; PRFM prfop, [Xn, Xm] */
static inline void ae_ldr_x_rr(ae_buf *b, unsigned t, unsigned n, unsigned m) {
    ae_word(b, 0xF8606800u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(t));
}
static inline void ae_str_x_rr(ae_buf *b, unsigned t, unsigned n, unsigned m) {
    ae_word(b, 0xF8206800u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(t));
}
static inline void ae_ldr_d_rr(ae_buf *b, unsigned t, unsigned n, unsigned m) {
    ae_word(b, 0xFC606800u | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(t));
}
#define AE_PLDL2STRM 3u
static inline void ae_prfm_rr(ae_buf *b, unsigned prfop, unsigned n, unsigned m) {
    ae_word(b, 0xF8A06800u | AE_R(m) << 16 | AE_R(n) << 5 | (prfop & 31u));
}
/* LDP/STP (signed offset, or pre-/post-index), X, D or Q registers.
 * kind: 0 X, 1 D, 2 Q; mode: 0 offset, 1 pre-index, 2 post-index. */
static inline void ae_ldstp(ae_buf *b, int load, int kind, int mode, unsigned t1, unsigned t2, unsigned n, int32_t off) {
    static const uint32_t opc[3] = { 0xA8000000u, 0x6C000000u, 0xAC000000u };
    static const uint32_t modes[3] = { 0x01000000u, 0x01800000u, 0x00800000u };
    int32_t scale = kind == 0 ? 8 : kind == 1 ? 8 : 16;
    if (off % scale || off / scale < -64 || off / scale > 63) { b->err = 1; return; }
    uint32_t imm7 = (uint32_t)(off / scale) & 0x7Fu;
    ae_word(b, opc[kind] | modes[mode] | (load ? 1u << 22 : 0u) | imm7 << 15 |
               AE_R(t2) << 10 | AE_R(n) << 5 | AE_R(t1));
}
static inline void ae_ldp_x(ae_buf *b, unsigned t1, unsigned t2, unsigned n, int32_t off) { ae_ldstp(b, 1, 0, 0, t1, t2, n, off); }
static inline void ae_stp_x(ae_buf *b, unsigned t1, unsigned t2, unsigned n, int32_t off) { ae_ldstp(b, 0, 0, 0, t1, t2, n, off); }
static inline void ae_ldp_d(ae_buf *b, unsigned t1, unsigned t2, unsigned n, int32_t off) { ae_ldstp(b, 1, 1, 0, t1, t2, n, off); }
static inline void ae_stp_d(ae_buf *b, unsigned t1, unsigned t2, unsigned n, int32_t off) { ae_ldstp(b, 0, 1, 0, t1, t2, n, off); }
static inline void ae_ldp_q(ae_buf *b, unsigned t1, unsigned t2, unsigned n, int32_t off) { ae_ldstp(b, 1, 2, 0, t1, t2, n, off); }
static inline void ae_stp_q(ae_buf *b, unsigned t1, unsigned t2, unsigned n, int32_t off) { ae_ldstp(b, 0, 2, 0, t1, t2, n, off); }

/* ---- branches and system -------------------------------------------- */
enum { AE_EQ = 0, AE_NE = 1 };
/* B / B.cond from the current position to byte offset `target` of the buffer */
static inline void ae_b_to(ae_buf *b, size_t target) {
    int64_t d = ((int64_t)target - (int64_t)b->len) / 4;
    if ((target & 3u) || d < -(1 << 25) || d >= (1 << 25)) { b->err = 1; return; }
    ae_word(b, 0x14000000u | ((uint32_t)d & 0x3FFFFFFu));
}
static inline void ae_bcond_to(ae_buf *b, unsigned cond, size_t target) {
    int64_t d = ((int64_t)target - (int64_t)b->len) / 4;
    if ((target & 3u) || d < -(1 << 18) || d >= (1 << 18)) { b->err = 1; return; }
    ae_word(b, 0x54000000u | ((uint32_t)d & 0x7FFFFu) << 5 | (cond & 15u));
}
/* forward B.cond: emit a placeholder, patch it with ae_patch_bcond */
static inline size_t ae_bcond_fwd(ae_buf *b, unsigned cond) {
    size_t at = b->len;
    ae_word(b, 0x54000000u | (cond & 15u));
    return at;
}
static inline void ae_patch_bcond(ae_buf *b, size_t at) {
    if (b->err) return;
    int64_t d = ((int64_t)b->len - (int64_t)at) / 4;
    if (d >= (1 << 18)) { b->err = 1; return; }
    uint32_t w = util_load32le(b->p + at);
    w |= ((uint32_t)d & 0x7FFFFu) << 5;
    util_store32le(b->p + at, w);
}
static inline void ae_blr(ae_buf *b, unsigned n) { ae_word(b, 0xD63F0000u | AE_R(n) << 5); }
static inline void ae_ret(ae_buf *b) { ae_word(b, 0xD65F03C0u); }
static inline void ae_mrs_fpcr(ae_buf *b, unsigned t) { ae_word(b, 0xD53B4400u | AE_R(t)); }
static inline void ae_msr_fpcr(ae_buf *b, unsigned t) { ae_word(b, 0xD51B4400u | AE_R(t)); }

/* ---- SIMD & FP (vector forms on 2 x double / 16 bytes) --------------- */
static inline void ae_v3(ae_buf *b, uint32_t op, unsigned d, unsigned n, unsigned m) {
    ae_word(b, op | AE_R(m) << 16 | AE_R(n) << 5 | AE_R(d));
}
#define AE_FADD2D 0x4E60D400u
#define AE_FSUB2D 0x4EE0D400u
#define AE_FMUL2D 0x6E60DC00u
#define AE_FDIV2D 0x6E60FC00u
#define AE_EOR16B 0x6E201C00u
#define AE_AND16B 0x4E201C00u
#define AE_ORR16B 0x4EA01C00u
/* FSQRT Vd.2D, Vn.2D */
static inline void ae_fsqrt2d(ae_buf *b, unsigned d, unsigned n) { ae_word(b, 0x6EE1F800u | AE_R(n) << 5 | AE_R(d)); }
/* SXTL Vd.2D, Vn.2S (SSHLL #0) */
static inline void ae_sxtl2d(ae_buf *b, unsigned d, unsigned n) { ae_word(b, 0x0F20A400u | AE_R(n) << 5 | AE_R(d)); }
/* SCVTF Vd.2D, Vn.2D */
static inline void ae_scvtf2d(ae_buf *b, unsigned d, unsigned n) { ae_word(b, 0x4E61D800u | AE_R(n) << 5 | AE_R(d)); }
/* EXT Vd.16B, Vn.16B, Vm.16B, #idx */
static inline void ae_ext16b(ae_buf *b, unsigned d, unsigned n, unsigned m, unsigned idx) {
    ae_word(b, 0x6E000000u | AE_R(m) << 16 | (idx & 15u) << 11 | AE_R(n) << 5 | AE_R(d));
}
/* MOVI Vd.2D, #0 */
static inline void ae_movi_zero(ae_buf *b, unsigned d) { ae_word(b, 0x6F00E400u | AE_R(d)); }
/* Crypto extension: AESE/AESD Vd.16B, Vn.16B (Vd = [Inv]SubBytes([Inv]ShiftRows(Vd ^ Vn)));
 * AESMC/AESIMC Vd.16B, Vn.16B ([Inv]MixColumns) */
static inline void ae_aese(ae_buf *b, unsigned d, unsigned n) { ae_word(b, 0x4E284800u | AE_R(n) << 5 | AE_R(d)); }
static inline void ae_aesd(ae_buf *b, unsigned d, unsigned n) { ae_word(b, 0x4E285800u | AE_R(n) << 5 | AE_R(d)); }
static inline void ae_aesmc(ae_buf *b, unsigned d, unsigned n) { ae_word(b, 0x4E286800u | AE_R(n) << 5 | AE_R(d)); }
static inline void ae_aesimc(ae_buf *b, unsigned d, unsigned n) { ae_word(b, 0x4E287800u | AE_R(n) << 5 | AE_R(d)); }
#endif
