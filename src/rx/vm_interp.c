/* SPDX-License-Identifier: ISC */
/* src/rx/vm_interp.c — the portable RandomX interpreter: decode a program
 * once into struct rx_op (register indices, masks and immediates resolved,
 * src == dst special cases turned into their own op types), then run the
 * iteration loop of spec 4.6 over it.
 *
 * Floating point: IEEE-754 double arithmetic in C with the hardware
 * rounding mode set from fprc (MXCSR on x86-64, FPCR on AArch64, else
 * fesetround).  The F/E registers live in *st (memory) so that no FP
 * operation can be moved across a rounding-mode change, which is an asm
 * statement with a memory clobber. */
#include "rx/vm_interp.h"
#include "rx/internal.h"
#include <fenv.h>
#include <math.h>
#include <sodium.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the interpreter assumes a little-endian host"
#endif


#define ZERO_REG 8u

static inline uint64_t sext32(uint32_t x) { return (uint64_t)(int64_t)(int32_t)x; }
static inline uint64_t rotr64(uint64_t x, unsigned c) { c &= 63; return c ? (x >> c) | (x << (64 - c)) : x; }
static inline uint64_t rotl64(uint64_t x, unsigned c) { c &= 63; return c ? (x << c) | (x >> (64 - c)) : x; }
static inline uint64_t ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline int32_t ld32s(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t dbits(double d) { uint64_t v; memcpy(&v, &d, 8); return v; }
static inline double bitsd(uint64_t v) { double d; memcpy(&d, &v, 8); return d; }
static inline uint64_t mulh(uint64_t a, uint64_t b) {
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
static inline uint64_t smulh(uint64_t a, uint64_t b) {
    return (uint64_t)(((__int128)(int64_t)a * (int64_t)b) >> 64);
}

void rx_set_rounding(uint32_t fprc) {
    fprc &= 3;
#if defined(__x86_64__)
    /* MXCSR RC (bits 13-14) uses the same encoding as fprc. */
    uint32_t csr;
    __asm__ volatile("stmxcsr %0" : "=m"(csr) : : "memory");
    csr = (csr & ~0x6000u) | fprc << 13;
    __asm__ volatile("ldmxcsr %0" : : "m"(csr) : "memory");
#elif defined(__aarch64__)
    /* FPCR RMode (bits 22-23): 0 nearest, 1 +inf, 2 -inf, 3 zero. */
    static const uint64_t rmode[4] = {0, 2, 1, 3};
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr) : : "memory");
    fpcr = (fpcr & ~(3ull << 22)) | rmode[fprc] << 22;
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr) : "memory");
#else
    static const int modes[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
    (void)fesetround(modes[fprc]);
    __asm__ volatile("" : : : "memory");
#endif
}

/* ---- decoding ------------------------------------------------------ */

static uint32_t mem_mask(const struct rx_instr *in) {
    return rx_mod_mem(in) ? RX_SCRATCHPAD_L1_MASK : RX_SCRATCHPAD_L2_MASK;
}

void rx_interp_decode(struct rx_decoded *d, const struct rx_program *prog, unsigned version) {
    int last_mod[8];
    for (int i = 0; i < 8; i++) last_mod[i] = -1;
    uint32_t n = prog->count <= RX_PROGRAM_MAX_SIZE ? prog->count : RX_PROGRAM_MAX_SIZE;
    for (uint32_t i = 0; i < n; i++) {
        const struct rx_instr *in = &prog->instructions[i];
        struct rx_op *o = &d->ops[i];
        uint8_t dst = (uint8_t)(in->dst & 7), src = (uint8_t)(in->src & 7);
        uint64_t imm = sext32(in->imm32);
        memset(o, 0, sizeof *o);
        o->dst = dst;
        o->src = src;
        o->type = OP_NOP;
        switch (rx_instr_type_of(in->opcode)) {
        case RX_I_IADD_RS:
            o->type = OP_IADD_RS;
            o->shift = (uint8_t)rx_mod_shift(in);
            o->imm = dst == 5 ? imm : 0;
            last_mod[dst] = (int)i;
            break;
#define MEM_OP(T)                                                         \
        case RX_I_##T:                                                    \
            o->type = OP_##T;                                             \
            o->imm = imm;                                                 \
            if (src != dst) o->mask = mem_mask(in);                       \
            else { o->src = ZERO_REG; o->mask = RX_SCRATCHPAD_L3_MASK; }  \
            last_mod[dst] = (int)i;                                       \
            break;
        MEM_OP(IADD_M) MEM_OP(ISUB_M) MEM_OP(IMUL_M) MEM_OP(IMULH_M) MEM_OP(ISMULH_M) MEM_OP(IXOR_M)
#undef MEM_OP
        case RX_I_ISUB_R:
            if (src != dst) o->type = OP_ISUB_R;
            else { o->type = OP_IADD_RS; o->src = ZERO_REG; o->imm = 0 - imm; }
            last_mod[dst] = (int)i;
            break;
        case RX_I_IMUL_R:
            if (src != dst) o->type = OP_IMUL_R;
            else { o->type = OP_IMUL_I; o->imm = imm; }
            last_mod[dst] = (int)i;
            break;
        case RX_I_IMULH_R: o->type = OP_IMULH_R; last_mod[dst] = (int)i; break;
        case RX_I_ISMULH_R: o->type = OP_ISMULH_R; last_mod[dst] = (int)i; break;
        case RX_I_IMUL_RCP:
            if (!rx_is_zero_or_pow2(in->imm32)) {
                o->type = OP_IMUL_I;
                o->imm = rx_reciprocal(in->imm32);
                last_mod[dst] = (int)i;
            }
            break;
        case RX_I_INEG_R: o->type = OP_INEG_R; last_mod[dst] = (int)i; break;
        case RX_I_IXOR_R:
            if (src != dst) o->type = OP_IXOR_R;
            else { o->type = OP_IXOR_I; o->imm = imm; }
            last_mod[dst] = (int)i;
            break;
        case RX_I_IROR_R:
            if (src != dst) o->type = OP_IROR_R;
            else { o->type = OP_IROR_I; o->imm = in->imm32 & 63; }
            last_mod[dst] = (int)i;
            break;
        case RX_I_IROL_R:
            if (src != dst) o->type = OP_IROL_R;
            else { o->type = OP_IROR_I; o->imm = (64 - (in->imm32 & 63)) & 63; }
            last_mod[dst] = (int)i;
            break;
        case RX_I_ISWAP_R:
            if (src != dst) {
                o->type = OP_ISWAP_R;
                last_mod[dst] = (int)i;
                last_mod[src] = (int)i;
            }
            break;
        case RX_I_FSWAP_R:
            if (dst < 4) o->type = OP_FSWAP_F;
            else { o->type = OP_FSWAP_E; o->dst = (uint8_t)(dst - 4); }
            break;
        case RX_I_FADD_R: o->type = OP_FADD_R; o->dst &= 3; o->src &= 3; break;
        case RX_I_FSUB_R: o->type = OP_FSUB_R; o->dst &= 3; o->src &= 3; break;
        case RX_I_FMUL_R: o->type = OP_FMUL_R; o->dst &= 3; o->src &= 3; break;
        case RX_I_FADD_M: o->type = OP_FADD_M; o->dst &= 3; o->mask = mem_mask(in); o->imm = imm; break;
        case RX_I_FSUB_M: o->type = OP_FSUB_M; o->dst &= 3; o->mask = mem_mask(in); o->imm = imm; break;
        case RX_I_FDIV_M: o->type = OP_FDIV_M; o->dst &= 3; o->mask = mem_mask(in); o->imm = imm; break;
        case RX_I_FSCAL_R: o->type = OP_FSCAL_R; o->dst &= 3; break;
        case RX_I_FSQRT_R: o->type = OP_FSQRT_R; o->dst &= 3; break;
        case RX_I_CBRANCH: {
            unsigned shift = rx_mod_cond(in) + RX_JUMP_OFFSET;
            o->type = OP_CBRANCH;
            o->shift = (uint8_t)shift;
            o->imm = (imm | (1ull << shift)) & ~(1ull << (shift - 1));
            o->mask = (uint32_t)(last_mod[dst] + 1);
            for (int j = 0; j < 8; j++) last_mod[j] = (int)i;
            break;
        }
        case RX_I_CFROUND:
            o->type = version >= 2 ? OP_CFROUND2 : OP_CFROUND1;
            o->imm = in->imm32 & 63;
            break;
        case RX_I_ISTORE:
            o->type = OP_ISTORE;
            o->imm = imm;
            o->mask = rx_mod_cond(in) < RX_STORE_L3_CONDITION ? mem_mask(in) : RX_SCRATCHPAD_L3_MASK;
            break;
        default:
            break;
        }
    }
    memset(&d->ops[n], 0, sizeof d->ops[n]);
    d->ops[n].type = OP_END;
    d->count = n;
}

/* ---- execution ----------------------------------------------------- */

static inline void cvt_f(double out[2], const uint8_t *p) {
    out[0] = (double)ld32s(p);
    out[1] = (double)ld32s(p + 4);
}
static inline void cvt_e(double out[2], const uint8_t *p, const uint64_t emask[2]) {
    const uint64_t keep = (1ull << 56) - 1;
    out[0] = bitsd((dbits((double)ld32s(p)) & keep) | emask[0]);
    out[1] = bitsd((dbits((double)ld32s(p + 4)) & keep) | emask[1]);
}

/* One pass of the program buffer.  r has 9 entries (r[8] == 0).
 * With GCC/Clang the ops are dispatched by computed goto (one indirect
 * jump per op, no bounds check); elsewhere by a switch. */
#if defined(__GNUC__) && !defined(RX_INTERP_SWITCH)
#define RX_THREADED 1
#else
#define RX_THREADED 0
#endif

#define MEMADDR(o) (sp + ((r[(o)->src] + (o)->imm) & (o)->mask))

#if defined(__GNUC__) && !defined(__clang__)
/* keep one dispatch jump per op (GCC would merge them into one) */
#define RX_EXEC_ATTR __attribute__((noinline, optimize("no-crossjumping")))
#else
#define RX_EXEC_ATTR __attribute__((noinline))
#endif
RX_EXEC_ATTR
static void exec_ops(struct rx_vm_state *st, uint64_t *r, const struct rx_op *ops, uint32_t n) {
    uint8_t *sp = st->scratchpad;
    uint32_t pc = 0;
    const struct rx_op *o;
#if RX_THREADED
#define L_(x) [x] = &&L_##x
    static const void *const tbl[OP_END + 1] = {
        L_(OP_IADD_RS), L_(OP_IADD_M), L_(OP_ISUB_R), L_(OP_ISUB_M), L_(OP_IMUL_R), L_(OP_IMUL_I),
        L_(OP_IMUL_M), L_(OP_IMULH_R), L_(OP_IMULH_M), L_(OP_ISMULH_R), L_(OP_ISMULH_M), L_(OP_INEG_R),
        L_(OP_IXOR_R), L_(OP_IXOR_I), L_(OP_IXOR_M), L_(OP_IROR_R), L_(OP_IROR_I), L_(OP_IROL_R),
        L_(OP_ISWAP_R), L_(OP_FSWAP_F), L_(OP_FSWAP_E), L_(OP_FADD_R), L_(OP_FADD_M), L_(OP_FSUB_R),
        L_(OP_FSUB_M), L_(OP_FSCAL_R), L_(OP_FMUL_R), L_(OP_FDIV_M), L_(OP_FSQRT_R), L_(OP_CBRANCH),
        L_(OP_CFROUND1), L_(OP_CFROUND2), L_(OP_ISTORE), L_(OP_NOP), L_(OP_END)
    };
#undef L_
    (void)pc; (void)n;   /* ops[n] is the OP_END sentinel */
    o = &ops[0];
    goto *tbl[o->type];
#define CASE(x) L_##x:
#define NEXT do { o++; goto *tbl[o->type]; } while (0)
#else
    for (; pc < n; pc++) {
        o = &ops[pc];
        switch (o->type) {
#define CASE(x) case x:
#define NEXT break
#endif
    CASE(OP_IADD_RS) r[o->dst] += (r[o->src] << o->shift) + o->imm; NEXT;
    CASE(OP_IADD_M)  r[o->dst] += ld64(MEMADDR(o)); NEXT;
    CASE(OP_ISUB_R)  r[o->dst] -= r[o->src]; NEXT;
    CASE(OP_ISUB_M)  r[o->dst] -= ld64(MEMADDR(o)); NEXT;
    CASE(OP_IMUL_R)  r[o->dst] *= r[o->src]; NEXT;
    CASE(OP_IMUL_I)  r[o->dst] *= o->imm; NEXT;
    CASE(OP_IMUL_M)  r[o->dst] *= ld64(MEMADDR(o)); NEXT;
    CASE(OP_IMULH_R) r[o->dst] = mulh(r[o->dst], r[o->src]); NEXT;
    CASE(OP_IMULH_M) r[o->dst] = mulh(r[o->dst], ld64(MEMADDR(o))); NEXT;
    CASE(OP_ISMULH_R) r[o->dst] = smulh(r[o->dst], r[o->src]); NEXT;
    CASE(OP_ISMULH_M) r[o->dst] = smulh(r[o->dst], ld64(MEMADDR(o))); NEXT;
    CASE(OP_INEG_R)  r[o->dst] = 0 - r[o->dst]; NEXT;
    CASE(OP_IXOR_R)  r[o->dst] ^= r[o->src]; NEXT;
    CASE(OP_IXOR_I)  r[o->dst] ^= o->imm; NEXT;
    CASE(OP_IXOR_M)  r[o->dst] ^= ld64(MEMADDR(o)); NEXT;
    CASE(OP_IROR_R)  r[o->dst] = rotr64(r[o->dst], (unsigned)r[o->src]); NEXT;
    CASE(OP_IROR_I)  r[o->dst] = rotr64(r[o->dst], (unsigned)o->imm); NEXT;
    CASE(OP_IROL_R)  r[o->dst] = rotl64(r[o->dst], (unsigned)r[o->src]); NEXT;
    CASE(OP_ISWAP_R) { uint64_t t = r[o->dst]; r[o->dst] = r[o->src]; r[o->src] = t; } NEXT;
    CASE(OP_FSWAP_F) { double *x = st->f[o->dst]; double t = x[0]; x[0] = x[1]; x[1] = t; } NEXT;
    CASE(OP_FSWAP_E) { double *x = st->e[o->dst]; double t = x[0]; x[0] = x[1]; x[1] = t; } NEXT;
    CASE(OP_FADD_R) {
        double *x = st->f[o->dst]; const double *y = st->a[o->src];
        x[0] += y[0]; x[1] += y[1];
    } NEXT;
    CASE(OP_FSUB_R) {
        double *x = st->f[o->dst]; const double *y = st->a[o->src];
        x[0] -= y[0]; x[1] -= y[1];
    } NEXT;
    CASE(OP_FADD_M) {
        double m[2], *x = st->f[o->dst];
        cvt_f(m, MEMADDR(o));
        x[0] += m[0]; x[1] += m[1];
    } NEXT;
    CASE(OP_FSUB_M) {
        double m[2], *x = st->f[o->dst];
        cvt_f(m, MEMADDR(o));
        x[0] -= m[0]; x[1] -= m[1];
    } NEXT;
    CASE(OP_FSCAL_R) {
        double *x = st->f[o->dst];
        x[0] = bitsd(dbits(x[0]) ^ 0x80F0000000000000ull);
        x[1] = bitsd(dbits(x[1]) ^ 0x80F0000000000000ull);
    } NEXT;
    CASE(OP_FMUL_R) {
        double *x = st->e[o->dst]; const double *y = st->a[o->src];
        x[0] *= y[0]; x[1] *= y[1];
    } NEXT;
    CASE(OP_FDIV_M) {
        double m[2], *x = st->e[o->dst];
        cvt_e(m, MEMADDR(o), st->e_mask);
        x[0] /= m[0]; x[1] /= m[1];
    } NEXT;
    CASE(OP_FSQRT_R) {
        double *x = st->e[o->dst];
        x[0] = __builtin_sqrt(x[0]); x[1] = __builtin_sqrt(x[1]);
    } NEXT;
    CASE(OP_CBRANCH)
        r[o->dst] += o->imm;
        if ((r[o->dst] & ((uint64_t)RX_CONDITION_MASK << o->shift)) == 0) {
#if RX_THREADED
            o = &ops[o->mask];
            goto *tbl[o->type];
#else
            pc = o->mask - 1;  /* the loop's pc++ resumes at o->mask */
#endif
        }
        NEXT;
    CASE(OP_CFROUND1)
        st->fprc = (uint32_t)(rotr64(r[o->src], (unsigned)o->imm) & 3);
        rx_set_rounding(st->fprc);
        NEXT;
    CASE(OP_CFROUND2) {
        uint64_t v = rotr64(r[o->src], (unsigned)o->imm);
        if ((v & 60) == 0) {
            st->fprc = (uint32_t)(v & 3);
            rx_set_rounding(st->fprc);
        }
    } NEXT;
    CASE(OP_ISTORE) st64(sp + ((r[o->dst] + o->imm) & o->mask), r[o->src]); NEXT;
    CASE(OP_NOP) NEXT;
#if RX_THREADED
    L_OP_END: return;
#else
        default: break;
        }
    }
#endif
#undef CASE
#undef NEXT
}

void rx_interp_exec_once(struct rx_vm_state *st, const struct rx_decoded *d) {
    fenv_t env;
    (void)fegetenv(&env);
    uint64_t r[9];
    memcpy(r, st->r, sizeof st->r);
    r[ZERO_REG] = 0;
    rx_set_rounding(st->fprc);
    exec_ops(st, r, d->ops, d->count);
    memcpy(st->r, r, sizeof st->r);
    sodium_memzero(r, sizeof r);
    __asm__ volatile("" : : : "memory");
    (void)fesetenv(&env);
}

void rx_interp_run(struct rx_vm_state *st, const struct rx_decoded *d,
                   const struct rx_aes_ops *aes) {
    uint64_t r[9] = {0};
    uint8_t *sp = st->scratchpad;
    const unsigned rr0 = st->read_reg[0] & 7, rr1 = st->read_reg[1] & 7;
    const unsigned rr2 = st->read_reg[2] & 7, rr3 = st->read_reg[3] & 7;
    const int v2 = st->version >= 2;
    uint32_t sp0 = st->mx, sp1 = st->ma;
    rx_set_rounding(st->fprc);
    for (uint32_t ic = 0; ic < st->iterations; ic++) {
        uint64_t mix = r[rr0] ^ r[rr1];
        sp0 = (sp0 ^ (uint32_t)mix) & RX_SCRATCHPAD_L3_MASK64;
        sp1 = (sp1 ^ (uint32_t)(mix >> 32)) & RX_SCRATCHPAD_L3_MASK64;
        for (int i = 0; i < 8; i++) r[i] ^= ld64(sp + sp0 + 8 * i);
        for (int i = 0; i < 4; i++) cvt_f(st->f[i], sp + sp1 + 8 * i);
        for (int i = 0; i < 4; i++) cvt_e(st->e[i], sp + sp1 + 32 + 8 * i, st->e_mask);

        exec_ops(st, r, d->ops, d->count);

        uint64_t read_addr = st->dataset_offset + (st->ma & RX_CACHE_LINE_ALIGN_MASK);
        uint32_t mp = (uint32_t)(r[rr2] ^ r[rr3]);
        if (v2) { st->ma ^= mp; mp = st->ma; }
        else    { st->mx ^= mp; mp = st->mx; }
        if (st->dataset) {
            __builtin_prefetch(st->dataset + st->dataset_offset + (mp & RX_CACHE_LINE_ALIGN_MASK), 0, 0);
            const uint8_t *item = st->dataset + read_addr;
            for (int i = 0; i < 8; i++) r[i] ^= ld64(item + 8 * i);
        } else {
            uint64_t w[8];
            rx_cache_item(st->cache, read_addr / RX_DATASET_ITEM_SIZE, w);
            for (int i = 0; i < 8; i++) r[i] ^= w[i];
            sodium_memzero(w, sizeof w);
        }
        uint32_t t = st->mx; st->mx = st->ma; st->ma = t;
        for (int i = 0; i < 8; i++) st64(sp + sp1 + 8 * i, r[i]);
        if (v2) {
            aes->mix_fe(st->f, st->e);
        } else {
            for (int i = 0; i < 4; i++) {
                st->f[i][0] = bitsd(dbits(st->f[i][0]) ^ dbits(st->e[i][0]));
                st->f[i][1] = bitsd(dbits(st->f[i][1]) ^ dbits(st->e[i][1]));
            }
        }
        memcpy(sp + sp0, st->f, 64);
        sp0 = 0;
        sp1 = 0;
    }
    memcpy(st->r, r, sizeof st->r);
    sodium_memzero(r, sizeof r);   /* no register copies left on the stack */
}
