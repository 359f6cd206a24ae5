/* SPDX-License-Identifier: ISC */
/* src/rx/jit_superscalar_avx_x86_64.c — SuperscalarHash dataset items
 * compiled to AVX-512 (8 consecutive items at once, one per 64-bit lane)
 * or AVX2 (4 items; its differences are listed before emit_avx2).
 * The 8 programs of a cache become straight-line vector code (spec 6.2's
 * semantics per lane), the cache-line mix is 8 gathers per program, the
 * results leave through 8 scatters (item l's word k = lane l of r_k).
 * Emission only: jit_superscalar_x86_64.c owns the W^X code block.
 *
 * Register map: zmm0-7 = r0-r7 (lane l = item first+8g+l), zmm8-14
 * temporaries of the 128-bit multiplies, zmm16 = the 8 item numbers,
 * zmm17 = the 8 cache-line offsets, zmm18 = the gathered words, zmm19 =
 * the scatter offsets {0, 64, ..., 448}; rdi = cache, rcx = out, rdx =
 * groups left, r8 = constants, rax scratch, [rsp, rsp+64) the offsets for
 * the prefetches; k1 the gather/scatter mask.
 *
 * Per instruction: ISUB_R vpsubq, IXOR_R vpxorq, IADD_RS vpsllq + vpaddq,
 * IMUL_R vpmullq, IROR_C vprorq, IADD_C / IXOR_C vpaddq / vpxorq with the
 * sign-extended immediate broadcast from the constants, IMUL_RCP vpmullq
 * with the reciprocal broadcast, IMULH_R the high half of the 64x64
 * product from four 32x32 vpmuludq partial products (14 instructions),
 * ISMULH_R that minus (a < 0 ? b : 0) minus (b < 0 ? a : 0) (20). */
#include "rx/jit_ssv.h"
#if defined(__x86_64__)
#include "rxlock/rx.h"
#include "util/cpufeat.h"
#include <stdlib.h>
#include <string.h>

#define ZT(i)   (8 + (i))
#define Z_ITEM  16
#define Z_OFF   17
#define Z_GATH  18
#define Z_SCAT  19
#define LINES_MASK ((RX_CACHE_SIZE / 64u) - 1u)

/* constant slots: AVX-512 one word each (C_*, index into consts), AVX2 a
 * 4-word vector each (S_*, index into consts / 4) */
enum { C_IOTA = 0, C_SCAT = 8, C_ONE = 16, C_EIGHT, C_MUL0, C_XOR1, C_MASK = C_XOR1 + 7, C_M32, C_PROG = 32 };
enum { S_IOTA = 0, S_ONE, S_MUL0, S_MUL0H, S_XOR1, S_MASK = S_XOR1 + 7, S_M32, S_PROG };

int rx_ssv_kind(void) {
    const util_cpufeat *f = util_cpufeat_get();
    const char *want = getenv("RXLOCK_SUPERSCALAR");
    int has512 = f->avx512f && f->avx512dq, has2 = f->avx2;
    if (want && strcmp(want, "scalar") == 0) return RX_SSV_SCALAR;
    if (want && strcmp(want, "avx2") == 0 && has2) return RX_SSV_AVX2;
    return has512 ? RX_SSV_AVX512 : has2 ? RX_SSV_AVX2 : RX_SSV_SCALAR;
}

const char *rx_ssv_kind_name(int kind) {
    return kind == RX_SSV_AVX512 ? "avx512" : kind == RX_SSV_AVX2 ? "avx2" : "scalar";
}
unsigned rx_ssv_lanes(int kind) { return kind == RX_SSV_AVX512 ? 8u : kind == RX_SSV_AVX2 ? 4u : 0u; }

static xe_mem cq(unsigned slot) { return xm(XR_R8, (int32_t)(8u * slot)); }
static xe_mem cy(size_t slot) { return xm(XR_R8, (int32_t)(32u * slot)); }

/* The operations both forms share, y = 1 for AVX2 (ymm, whole-vector
 * constants), 0 for AVX-512 (zmm, broadcast constants); the temporaries
 * are register 8 + i in both (ZT, YT). */
static void v3(xe_buf *b, int y, xe_vop o, int d, int a, int s) {
    if (y) xe_vy_rrr(b, o, d, a, s); else xe_vq_rrr(b, o, d, a, s);
}
static void vsh(xe_buf *b, int y, unsigned form, int d, int s, unsigned n) {
    if (y) xe_vy_shift(b, form, d, s, n); else xe_vq_shift(b, form, d, s, n);
}
static void vc(xe_buf *b, int y, xe_vop o, int d, int a, unsigned slot) {
    if (y) xe_vy_rrm(b, o, d, a, cy(slot)); else xe_vq_rrb(b, o, d, a, cq(slot));
}

/* d = high 64 bits of d*s (unsigned), or signed when sgn; m32: the slot
 * of the constant 0xFFFFFFFF */
static void emit_mulh(xe_buf *b, int y, int d, int s, int sgn, unsigned m32) {
    v3(b, y, XV_PMULUDQ, ZT(0), d, s);           /* ll = al*bl          */
    vsh(b, y, XV_SRLQ, ZT(1), d, 32);            /* ah                  */
    vsh(b, y, XV_SRLQ, ZT(2), s, 32);            /* bh                  */
    v3(b, y, XV_PMULUDQ, ZT(3), ZT(1), s);       /* hl = ah*bl          */
    v3(b, y, XV_PMULUDQ, ZT(4), d, ZT(2));       /* lh = al*bh          */
    v3(b, y, XV_PMULUDQ, ZT(1), ZT(1), ZT(2));   /* hh = ah*bh          */
    vsh(b, y, XV_SRLQ, ZT(0), ZT(0), 32);
    v3(b, y, XV_PADDQ, ZT(0), ZT(0), ZT(3));     /* t = (ll>>32) + hl   */
    vc(b, y, XV_PANDQ, ZT(2), ZT(0), m32);
    v3(b, y, XV_PADDQ, ZT(2), ZT(2), ZT(4));     /* u = (t & M32) + lh  */
    vsh(b, y, XV_SRLQ, ZT(0), ZT(0), 32);
    vsh(b, y, XV_SRLQ, ZT(2), ZT(2), 32);
    v3(b, y, XV_PADDQ, ZT(1), ZT(1), ZT(0));     /* hh + (t>>32)        */
    if (!sgn) { v3(b, y, XV_PADDQ, d, ZT(1), ZT(2)); return; }
    if (y) {                                     /* AVX2: no vpsraq     */
        v3(b, y, XV_PXORQ, ZT(5), ZT(5), ZT(5));
        v3(b, y, XV_PCMPGTQ, ZT(3), ZT(5), d);   /* a < 0               */
        v3(b, y, XV_PCMPGTQ, ZT(4), ZT(5), s);   /* b < 0               */
    } else {
        vsh(b, y, XV_SRAQ, ZT(3), d, 63);
        vsh(b, y, XV_SRAQ, ZT(4), s, 63);
    }
    v3(b, y, XV_PANDQ, ZT(3), ZT(3), s);         /* a < 0 ? b : 0       */
    v3(b, y, XV_PANDQ, ZT(4), ZT(4), d);         /* b < 0 ? a : 0       */
    v3(b, y, XV_PADDQ, ZT(1), ZT(1), ZT(2));
    v3(b, y, XV_PSUBQ, ZT(1), ZT(1), ZT(3));
    v3(b, y, XV_PSUBQ, d, ZT(1), ZT(4));
}

/* Frame and loop shared by both forms: rbp frame, rsp aligned to 64 with
 * `stack` bytes below; skip everything when rdx (groups) is 0.  Returns
 * the forward jump to patch; *top = the loop head. */
static size_t frame_open(xe_buf *b, int32_t stack, size_t *top) {
    xe_push(b, XR_RBP);
    xe_mov_rr(b, 1, XR_RBP, XR_RSP);
    xe_alu_ri(b, 1, XA_AND, XR_RSP, -64);
    xe_alu_ri(b, 1, XA_SUB, XR_RSP, stack);
    xe_test_rr(b, 1, XR_RDX, XR_RDX);
    size_t to_done = xe_jcc32_fwd(b, XC_Z);
    xe_align_nop(b, 64);
    *top = b->len;
    return to_done;
}
static void loop_close(xe_buf *b, size_t top, size_t to_done) {
    xe_alu_ri(b, 1, XA_SUB, XR_RDX, 1);
    xe_jcc_to(b, XC_NZ, top);
    xe_patch32(b, to_done);
    xe_mov_rr(b, 1, XR_RSP, XR_RBP);
    xe_pop(b, XR_RBP);
    xe_vzeroupper(b);
    xe_ret(b);
}
/* off = (idx & lines mask) * 64 per lane; prefetch the `lanes` lines so
 * that they arrive while the program runs ([rsp, rsp + 8*lanes) scratch) */
static void step_lines(xe_buf *b, int y, unsigned lanes, int off, int idx, unsigned mask) {
    vc(b, y, XV_PANDQ, off, idx, mask);
    vsh(b, y, XV_SLLQ, off, off, 6);
    if (y) xe_vmovdqu_store(b, xm(XR_RSP, 0), off); else xe_vmovdqu64_store(b, xm(XR_RSP, 0), off);
    for (unsigned l = 0; l < lanes; l++) {
        xe_load(b, 1, XR_RAX, xm(XR_RSP, (int32_t)(8u * l)));
        xe_prefetch(b, 1, xmi(XR_RDI, XR_RAX, 1, 0));
    }
}

static int emit_instr(xe_buf *b, const rx_ss_instr *in, uint64_t *consts, size_t *nc) {
    if (in->dst > 7 || in->src > 7) return -1;
    int d = in->dst, s = in->src;
    switch (in->op) {
    case RX_SS_ISUB_R: xe_vq_rrr(b, XV_PSUBQ, d, d, s); break;
    case RX_SS_IXOR_R: xe_vq_rrr(b, XV_PXORQ, d, d, s); break;
    case RX_SS_IADD_RS:
        if (in->imm64 > 3) return -1;
        if (in->imm64) { xe_vq_shift(b, XV_SLLQ, ZT(0), s, (unsigned)in->imm64); s = ZT(0); }
        xe_vq_rrr(b, XV_PADDQ, d, d, s);
        break;
    case RX_SS_IMUL_R: xe_vq_rrr(b, XV_PMULLQ, d, d, s); break;
    case RX_SS_IROR_C: if (in->imm64 & 63u) xe_vq_shift(b, XV_RORQ, d, d, (unsigned)(in->imm64 & 63u)); break;
    case RX_SS_IADD_C7: case RX_SS_IADD_C8: case RX_SS_IADD_C9:
    case RX_SS_IXOR_C7: case RX_SS_IXOR_C8: case RX_SS_IXOR_C9:
    case RX_SS_IMUL_RCP: {
        if (*nc >= RX_SSV_CONSTS) return -1;
        consts[*nc] = in->op == RX_SS_IMUL_RCP ? in->imm64 : (uint64_t)(int64_t)(int32_t)in->imm32;
        xe_vop o = in->op == RX_SS_IMUL_RCP ? XV_PMULLQ :
                   (in->op == RX_SS_IADD_C7 || in->op == RX_SS_IADD_C8 || in->op == RX_SS_IADD_C9) ? XV_PADDQ : XV_PXORQ;
        xe_vq_rrb(b, o, d, d, cq((unsigned)(*nc)++));
        break;
    }
    case RX_SS_IMULH_R: emit_mulh(b, 0, d, s, 0, C_M32); break;
    case RX_SS_ISMULH_R: emit_mulh(b, 0, d, s, 1, C_M32); break;
    default: return -1;
    }
    return 0;
}

static const uint64_t xor_k[7] = {
    9298411001130361340ull, 12065312585734608966ull, 9306329213124626780ull,
    5281919268842080866ull, 10536153434571861004ull, 3398623926847679864ull,
    9549104520008361294ull
};
static const uint64_t SS_MUL0 = 6364136223846793005ull;

static int emit_avx512(xe_buf *b, const rx_ss_program *progs, uint64_t consts[RX_SSV_CONSTS], size_t *nconsts) {
    memset(consts, 0, RX_SSV_CONSTS * sizeof consts[0]);
    for (unsigned l = 0; l < 8; l++) { consts[C_IOTA + l] = l; consts[C_SCAT + l] = 64u * l; }
    consts[C_ONE] = 1;
    consts[C_EIGHT] = 8;
    consts[C_MUL0] = SS_MUL0;
    for (unsigned k = 0; k < 7; k++) consts[C_XOR1 + k] = xor_k[k];
    consts[C_MASK] = LINES_MASK;
    consts[C_M32] = 0xFFFFFFFFull;
    size_t nc = C_PROG;

    /* rsi = first, rdx = groups, rcx = out, r8 = consts */
    xe_vpbroadcastq_r(b, Z_ITEM, XR_RSI);
    xe_vq_rrm(b, XV_PADDQ, Z_ITEM, Z_ITEM, cq(C_IOTA));
    xe_vmovdqu64_load(b, Z_SCAT, cq(C_SCAT));
    size_t top, to_done = frame_open(b, 64, &top);
    /* r0 = (item + 1) * mul0, rk = r0 ^ xor_k */
    xe_vq_rrb(b, XV_PADDQ, 0, Z_ITEM, cq(C_ONE));
    xe_vq_rrb(b, XV_PMULLQ, 0, 0, cq(C_MUL0));
    for (unsigned k = 1; k < 8; k++) xe_vq_rrb(b, XV_PXORQ, (int)k, 0, cq(C_XOR1 + k - 1));
    for (unsigned p = 0; p < 8; p++) {
        const rx_ss_program *pr = &progs[p];
        if (pr->size > RX_SS_MAX_SIZE || pr->addr_reg > 7 || (p && progs[p - 1].addr_reg > 7)) return -1;
        int idx = p == 0 ? Z_ITEM : (int)progs[p - 1].addr_reg;
        step_lines(b, 0, 8, Z_OFF, idx, C_MASK);
        for (uint32_t i = 0; i < pr->size; i++)
            if (emit_instr(b, &pr->ins[i], consts, &nc) != 0) return -1;
        for (int k = 0; k < 8; k++) {
            xe_kset(b, 1);
            xe_vpgatherqq(b, Z_GATH, 1, xmi(XR_RDI, Z_OFF, 1, 8 * k));
            xe_vq_rrr(b, XV_PXORQ, k, k, Z_GATH);
        }
    }
    for (int k = 0; k < 8; k++) {
        xe_kset(b, 1);
        xe_vpscatterqq(b, xmi(XR_RCX, Z_SCAT, 1, 8 * k), 1, k);
    }
    xe_alu_ri(b, 1, XA_ADD, XR_RCX, 512);
    xe_vq_rrb(b, XV_PADDQ, Z_ITEM, Z_ITEM, cq(C_EIGHT));
    loop_close(b, top, to_done);
    *nconsts = nc;
    return xe_ok(b) ? 0 : -1;
}
/* ---- AVX2: 4 items per group, ymm0-7 = r0-r7 ----
 * What AVX2 lacks is built from what it has: the 64x64 -> 64 multiply
 * (IMUL_R, IMUL_RCP, the r0 seed) as al*bl + ((ah*bl + al*bh) << 32) from
 * three vpmuludq; the rotate as two shifts and an or; the sign masks of
 * ISMULH as vpcmpgtq against zero.  Constants are whole 4-word vectors
 * (no embedded broadcast), a reciprocal c with c >> 32 beside it; the
 * items leave through the stack and 32 GPR moves (no scatter).  ymm8-13
 * temporaries, ymm14 the gathered words, ymm15 the item numbers then the
 * line offsets; stack: [rsp, +32) the offsets for the prefetches,
 * [rsp+64, +320) the 8 registers on their way out. */
#define YT(i)  (8 + (i))
#define Y_GATH 14
#define Y_OFF  15
static int cy_new(uint64_t *consts, size_t *nslot, uint64_t v) {
    if (4u * (*nslot + 1u) > RX_SSV_CONSTS) return -1;
    for (unsigned l = 0; l < 4; l++) consts[4u * *nslot + l] = v;
    return (int)(*nslot)++;
}
/* d = d * c (mod 2^64), c and c >> 32 in slots sc, sc + 1 */
static void y_mulc(xe_buf *b, int d, size_t sc) {
    xe_vy_rrm(b, XV_PMULUDQ, YT(0), d, cy(sc));      /* dl*cl */
    xe_vy_shift(b, XV_SRLQ, YT(1), d, 32);
    xe_vy_rrm(b, XV_PMULUDQ, YT(1), YT(1), cy(sc));  /* dh*cl */
    xe_vy_rrm(b, XV_PMULUDQ, YT(2), d, cy(sc + 1));  /* dl*ch */
    xe_vy_rrr(b, XV_PADDQ, YT(1), YT(1), YT(2));
    xe_vy_shift(b, XV_SLLQ, YT(1), YT(1), 32);
    xe_vy_rrr(b, XV_PADDQ, d, YT(0), YT(1));
}
static void y_mulr(xe_buf *b, int d, int s) {
    xe_vy_rrr(b, XV_PMULUDQ, YT(0), d, s);
    xe_vy_shift(b, XV_SRLQ, YT(1), d, 32);
    xe_vy_rrr(b, XV_PMULUDQ, YT(1), YT(1), s);
    xe_vy_shift(b, XV_SRLQ, YT(2), s, 32);
    xe_vy_rrr(b, XV_PMULUDQ, YT(2), YT(2), d);
    xe_vy_rrr(b, XV_PADDQ, YT(1), YT(1), YT(2));
    xe_vy_shift(b, XV_SLLQ, YT(1), YT(1), 32);
    xe_vy_rrr(b, XV_PADDQ, d, YT(0), YT(1));
}
static int y_instr(xe_buf *b, const rx_ss_instr *in, uint64_t *consts, size_t *ns) {
    if (in->dst > 7 || in->src > 7) return -1;
    int d = in->dst, s = in->src, k;
    switch (in->op) {
    case RX_SS_ISUB_R: xe_vy_rrr(b, XV_PSUBQ, d, d, s); break;
    case RX_SS_IXOR_R: xe_vy_rrr(b, XV_PXORQ, d, d, s); break;
    case RX_SS_IADD_RS:
        if (in->imm64 > 3) return -1;
        if (in->imm64) { xe_vy_shift(b, XV_SLLQ, YT(0), s, (unsigned)in->imm64); s = YT(0); }
        xe_vy_rrr(b, XV_PADDQ, d, d, s);
        break;
    case RX_SS_IMUL_R: y_mulr(b, d, s); break;
    case RX_SS_IROR_C: {
        unsigned n = (unsigned)(in->imm64 & 63u);
        if (!n) break;
        xe_vy_shift(b, XV_SRLQ, YT(0), d, n);
        xe_vy_shift(b, XV_SLLQ, d, d, 64u - n);
        xe_vy_rrr(b, XV_POR, d, d, YT(0));
        break;
    }
    case RX_SS_IADD_C7: case RX_SS_IADD_C8: case RX_SS_IADD_C9:
    case RX_SS_IXOR_C7: case RX_SS_IXOR_C8: case RX_SS_IXOR_C9:
        if ((k = cy_new(consts, ns, (uint64_t)(int64_t)(int32_t)in->imm32)) < 0) return -1;
        xe_vy_rrm(b, (in->op == RX_SS_IADD_C7 || in->op == RX_SS_IADD_C8 || in->op == RX_SS_IADD_C9) ? XV_PADDQ : XV_PXORQ,
                  d, d, cy((size_t)k));
        break;
    case RX_SS_IMUL_RCP:
        if ((k = cy_new(consts, ns, in->imm64)) < 0 || cy_new(consts, ns, in->imm64 >> 32) < 0) return -1;
        y_mulc(b, d, (size_t)k);
        break;
    case RX_SS_IMULH_R: emit_mulh(b, 1, d, s, 0, S_M32); break;
    case RX_SS_ISMULH_R: emit_mulh(b, 1, d, s, 1, S_M32); break;
    default: return -1;
    }
    return 0;
}

static int emit_avx2(xe_buf *b, const rx_ss_program *progs, uint64_t consts[RX_SSV_CONSTS], size_t *nconsts) {
    memset(consts, 0, RX_SSV_CONSTS * sizeof consts[0]);
    for (unsigned l = 0; l < 4; l++) consts[4u * S_IOTA + l] = l;
    size_t ns = S_ONE;
    (void)cy_new(consts, &ns, 1);
    (void)cy_new(consts, &ns, SS_MUL0);
    (void)cy_new(consts, &ns, SS_MUL0 >> 32);
    for (unsigned k = 0; k < 7; k++) (void)cy_new(consts, &ns, xor_k[k]);
    (void)cy_new(consts, &ns, LINES_MASK);
    (void)cy_new(consts, &ns, 0xFFFFFFFFull);
    if (ns != S_PROG) return -1;

    size_t top, to_done = frame_open(b, 320, &top);
    xe_vy_broadcast_r(b, Y_OFF, XR_RSI);
    xe_vy_rrm(b, XV_PADDQ, Y_OFF, Y_OFF, cy(S_IOTA));       /* the 4 item numbers */
    xe_vy_rrm(b, XV_PADDQ, 0, Y_OFF, cy(S_ONE));
    y_mulc(b, 0, S_MUL0);
    for (unsigned k = 1; k < 8; k++) xe_vy_rrm(b, XV_PXORQ, (int)k, 0, cy(S_XOR1 + k - 1));
    for (unsigned p = 0; p < 8; p++) {
        const rx_ss_program *pr = &progs[p];
        if (pr->size > RX_SS_MAX_SIZE || pr->addr_reg > 7 || (p && progs[p - 1].addr_reg > 7)) return -1;
        int idx = p == 0 ? Y_OFF : (int)progs[p - 1].addr_reg;
        step_lines(b, 1, 4, Y_OFF, idx, S_MASK);
        for (uint32_t i = 0; i < pr->size; i++)
            if (y_instr(b, &pr->ins[i], consts, &ns) != 0) return -1;
        for (int k = 0; k < 8; k++) {
            xe_vy_rrr(b, XV_PCMPEQD, YT(5), YT(5), YT(5));
            xe_vy_gatherqq(b, Y_GATH, YT(5), xmi(XR_RDI, Y_OFF, 1, 8 * k));
            xe_vy_rrr(b, XV_PXORQ, k, k, Y_GATH);
        }
    }
    for (int k = 0; k < 8; k++) xe_vmovdqu_store(b, xm(XR_RSP, 64 + 32 * k), k);
    for (int l = 0; l < 4; l++)
        for (int k = 0; k < 8; k++) {
            xe_load(b, 1, XR_RAX, xm(XR_RSP, 64 + 32 * k + 8 * l));
            xe_store(b, 1, xm(XR_RCX, 64 * l + 8 * k), XR_RAX);
        }
    xe_alu_ri(b, 1, XA_ADD, XR_RCX, 256);
    xe_alu_ri(b, 1, XA_ADD, XR_RSI, 4);
    loop_close(b, top, to_done);
    *nconsts = 4u * ns;
    return xe_ok(b) ? 0 : -1;
}

int rx_ssv_emit(xe_buf *b, int kind, const rx_ss_program *progs, uint64_t consts[RX_SSV_CONSTS], size_t *nconsts) {
    if (kind == RX_SSV_AVX512) return emit_avx512(b, progs, consts, nconsts);
    if (kind == RX_SSV_AVX2) return emit_avx2(b, progs, consts, nconsts);
    return -1;
}
#else
int rx_ssv_kind(void) { return RX_SSV_SCALAR; }
const char *rx_ssv_kind_name(int kind) { (void)kind; return "scalar"; }
unsigned rx_ssv_lanes(int kind) { (void)kind; return 0; }
int rx_ssv_emit(xe_buf *b, int kind, const rx_ss_program *progs, uint64_t consts[RX_SSV_CONSTS], size_t *nconsts) {
    (void)b; (void)kind; (void)progs; (void)consts; (void)nconsts; return -1;
}
#endif
