/* SPDX-License-Identifier: ISC */
/* src/rx/jit_superscalar_avx_x86_64.c — SuperscalarHash dataset items
 * compiled to AVX-512: 8 consecutive items at once, one per 64-bit lane.
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

/* constant slots (qword index into consts) */
enum { C_IOTA = 0, C_SCAT = 8, C_ONE = 16, C_EIGHT, C_MUL0, C_XOR1, C_MASK = C_XOR1 + 7, C_M32, C_PROG = 32 };

int rx_ssv_kind(void) {
    const util_cpufeat *f = util_cpufeat_get();
    const char *want = getenv("RXLOCK_SUPERSCALAR");
    if (want && strcmp(want, "scalar") == 0) return RX_SSV_SCALAR;
    return f->avx512f && f->avx512dq ? RX_SSV_AVX512 : RX_SSV_SCALAR;
}

const char *rx_ssv_kind_name(int kind) { return kind == RX_SSV_AVX512 ? "avx512" : "scalar"; }

static xe_mem cq(unsigned slot) { return xm(XR_R8, (int32_t)(8u * slot)); }

/* d = high 64 bits of d*s (unsigned), or signed when sgn */
static void emit_mulh(xe_buf *b, int d, int s, int sgn) {
    xe_vq_rrr(b, XV_PMULUDQ, ZT(0), d, s);        /* ll = al*bl          */
    xe_vq_shift(b, XV_SRLQ, ZT(1), d, 32);        /* ah                  */
    xe_vq_shift(b, XV_SRLQ, ZT(2), s, 32);        /* bh                  */
    xe_vq_rrr(b, XV_PMULUDQ, ZT(3), ZT(1), s);    /* hl = ah*bl          */
    xe_vq_rrr(b, XV_PMULUDQ, ZT(4), d, ZT(2));    /* lh = al*bh          */
    xe_vq_rrr(b, XV_PMULUDQ, ZT(1), ZT(1), ZT(2));/* hh = ah*bh          */
    xe_vq_shift(b, XV_SRLQ, ZT(0), ZT(0), 32);
    xe_vq_rrr(b, XV_PADDQ, ZT(0), ZT(0), ZT(3));  /* t = (ll>>32) + hl   */
    xe_vq_rrb(b, XV_PANDQ, ZT(2), ZT(0), cq(C_M32));
    xe_vq_rrr(b, XV_PADDQ, ZT(2), ZT(2), ZT(4));  /* u = (t & M32) + lh  */
    xe_vq_shift(b, XV_SRLQ, ZT(0), ZT(0), 32);
    xe_vq_shift(b, XV_SRLQ, ZT(2), ZT(2), 32);
    xe_vq_rrr(b, XV_PADDQ, ZT(1), ZT(1), ZT(0));  /* hh + (t>>32)        */
    if (!sgn) { xe_vq_rrr(b, XV_PADDQ, d, ZT(1), ZT(2)); return; }
    xe_vq_shift(b, XV_SRAQ, ZT(3), d, 63);
    xe_vq_rrr(b, XV_PANDQ, ZT(3), ZT(3), s);      /* a < 0 ? b : 0       */
    xe_vq_shift(b, XV_SRAQ, ZT(4), s, 63);
    xe_vq_rrr(b, XV_PANDQ, ZT(4), ZT(4), d);      /* b < 0 ? a : 0       */
    xe_vq_rrr(b, XV_PADDQ, ZT(1), ZT(1), ZT(2));
    xe_vq_rrr(b, XV_PSUBQ, ZT(1), ZT(1), ZT(3));
    xe_vq_rrr(b, XV_PSUBQ, d, ZT(1), ZT(4));
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
    case RX_SS_IMULH_R: emit_mulh(b, d, s, 0); break;
    case RX_SS_ISMULH_R: emit_mulh(b, d, s, 1); break;
    default: return -1;
    }
    return 0;
}

int rx_ssv_emit(xe_buf *b, const rx_ss_program *progs, uint64_t consts[RX_SSV_CONSTS], size_t *nconsts) {
    static const uint64_t xor_k[7] = {
        9298411001130361340ull, 12065312585734608966ull, 9306329213124626780ull,
        5281919268842080866ull, 10536153434571861004ull, 3398623926847679864ull,
        9549104520008361294ull
    };
    memset(consts, 0, RX_SSV_CONSTS * sizeof consts[0]);
    for (unsigned l = 0; l < 8; l++) { consts[C_IOTA + l] = l; consts[C_SCAT + l] = 64u * l; }
    consts[C_ONE] = 1;
    consts[C_EIGHT] = 8;
    consts[C_MUL0] = 6364136223846793005ull;
    for (unsigned k = 0; k < 7; k++) consts[C_XOR1 + k] = xor_k[k];
    consts[C_MASK] = LINES_MASK;
    consts[C_M32] = 0xFFFFFFFFull;
    size_t nc = C_PROG;

    /* prologue: rsi = first, rdx = groups, rcx = out, r8 = consts */
    xe_push(b, XR_RBP);
    xe_mov_rr(b, 1, XR_RBP, XR_RSP);
    xe_alu_ri(b, 1, XA_AND, XR_RSP, -64);
    xe_alu_ri(b, 1, XA_SUB, XR_RSP, 64);
    xe_vpbroadcastq_r(b, Z_ITEM, XR_RSI);
    xe_vq_rrm(b, XV_PADDQ, Z_ITEM, Z_ITEM, cq(C_IOTA));
    xe_vmovdqu64_load(b, Z_SCAT, cq(C_SCAT));
    xe_test_rr(b, 1, XR_RDX, XR_RDX);
    size_t to_done = xe_jcc32_fwd(b, XC_Z);
    xe_align_nop(b, 64);
    size_t top = b->len;
    /* r0 = (item + 1) * mul0, rk = r0 ^ xor_k */
    xe_vq_rrb(b, XV_PADDQ, 0, Z_ITEM, cq(C_ONE));
    xe_vq_rrb(b, XV_PMULLQ, 0, 0, cq(C_MUL0));
    for (unsigned k = 1; k < 8; k++) xe_vq_rrb(b, XV_PXORQ, (int)k, 0, cq(C_XOR1 + k - 1));
    for (unsigned p = 0; p < 8; p++) {
        const rx_ss_program *pr = &progs[p];
        if (pr->size > RX_SS_MAX_SIZE || pr->addr_reg > 7 || (p && progs[p - 1].addr_reg > 7)) return -1;
        int idx = p == 0 ? Z_ITEM : (int)progs[p - 1].addr_reg;
        xe_vq_rrb(b, XV_PANDQ, Z_OFF, idx, cq(C_MASK));
        xe_vq_shift(b, XV_SLLQ, Z_OFF, Z_OFF, 6);
        xe_vmovdqu64_store(b, xm(XR_RSP, 0), Z_OFF);
        for (int l = 0; l < 8; l++) {               /* the 8 lines, fetched while the program runs */
            xe_load(b, 1, XR_RAX, xm(XR_RSP, 8 * l));
            xe_prefetch(b, 1, xmi(XR_RDI, XR_RAX, 1, 0));
        }
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
    xe_alu_ri(b, 1, XA_SUB, XR_RDX, 1);
    xe_jcc_to(b, XC_NZ, top);
    xe_patch32(b, to_done);
    xe_mov_rr(b, 1, XR_RSP, XR_RBP);
    xe_pop(b, XR_RBP);
    xe_vzeroupper(b);
    xe_ret(b);
    *nconsts = nc;
    return xe_ok(b) ? 0 : -1;
}
#else
int rx_ssv_kind(void) { return RX_SSV_SCALAR; }
const char *rx_ssv_kind_name(int kind) { (void)kind; return "scalar"; }
int rx_ssv_emit(xe_buf *b, const rx_ss_program *progs, uint64_t consts[RX_SSV_CONSTS], size_t *nconsts) {
    (void)b; (void)progs; (void)consts; (void)nconsts; return -1;
}
#endif
