/* SPDX-License-Identifier: ISC */
/* src/rx/superscalar.c — SuperscalarHash program generation and execution
 * (RandomX spec chapter 6).  Generation simulates the reference CPU: each
 * decode cycle picks a 16-byte decoder group (table 6.3.1), fills its slots
 * with instructions (table 6.3.2), schedules their macro-ops' micro-ops on
 * ports P0/P1/P5 (checked in the order P5, P0, P1), and picks operands
 * that are ready at the scheduled cycle under the rules of 6.3.4.  Every
 * random choice draws from the BlakeGenerator in a fixed order, so the
 * program is a pure function of the key. */
#include "rx/superscalar.h"
#include "rx/internal.h"
#include "util/cpufeat.h"
#include <string.h>
#include "util/le.h"

/* ---- the reference CPU model ------------------------------------------ */
enum { P0 = 1, P1 = 2, P5 = 4, P01 = P0 | P1, P05 = P0 | P5, P015 = P0 | P1 | P5 };

typedef struct mop {
    uint8_t latency;
    uint8_t uop1, uop2;   /* uop1 == 0: eliminated (mov r,r); uop2 != 0: 2 uops */
    uint8_t dependent;    /* must wait for the previous macro-op's result */
} mop;

static const mop MOP_SUB_RR  = { 1, P015, 0, 0 };
static const mop MOP_XOR_RR  = { 1, P015, 0, 0 };
static const mop MOP_LEA_SIB = { 1, P01, 0, 0 };
static const mop MOP_IMUL_RR = { 3, P1, 0, 0 };
static const mop MOP_ROR_RI  = { 1, P05, 0, 0 };
static const mop MOP_ADD_RI  = { 1, P015, 0, 0 };
static const mop MOP_XOR_RI  = { 1, P015, 0, 0 };
static const mop MOP_MOV_RR  = { 0, 0, 0, 0 };
static const mop MOP_MUL_R   = { 4, P1, P5, 0 };
static const mop MOP_MOV_RI  = { 1, P015, 0, 0 };
static const mop MOP_IMUL_RR_DEP = { 3, P1, 0, 1 };

#define NONE (-1)
#define GROUP_INVALID (-1)

typedef struct op_info {
    int      n;               /* macro-ops */
    const mop *m[3];
    int      src_op, dst_op, result_op; /* macro-op index where chosen / written */
    int      group;           /* the "operation group" of rule 6.3.4 */
} op_info;

static const op_info INFO[RX_SS_OP_COUNT] = {
    [RX_SS_ISUB_R]   = { 1, { &MOP_SUB_RR },  0, 0, 0, RX_SS_IADD_RS },
    [RX_SS_IXOR_R]   = { 1, { &MOP_XOR_RR },  0, 0, 0, RX_SS_IXOR_R },
    [RX_SS_IADD_RS]  = { 1, { &MOP_LEA_SIB }, 0, 0, 0, RX_SS_IADD_RS },
    [RX_SS_IMUL_R]   = { 1, { &MOP_IMUL_RR }, 0, 0, 0, RX_SS_IMUL_R },
    [RX_SS_IROR_C]   = { 1, { &MOP_ROR_RI },  NONE, 0, 0, RX_SS_IROR_C },
    [RX_SS_IADD_C7]  = { 1, { &MOP_ADD_RI },  NONE, 0, 0, RX_SS_IADD_C7 },
    [RX_SS_IXOR_C7]  = { 1, { &MOP_XOR_RI },  NONE, 0, 0, RX_SS_IXOR_C7 },
    [RX_SS_IADD_C8]  = { 1, { &MOP_ADD_RI },  NONE, 0, 0, RX_SS_IADD_C7 },
    [RX_SS_IXOR_C8]  = { 1, { &MOP_XOR_RI },  NONE, 0, 0, RX_SS_IXOR_C7 },
    [RX_SS_IADD_C9]  = { 1, { &MOP_ADD_RI },  NONE, 0, 0, RX_SS_IADD_C7 },
    [RX_SS_IXOR_C9]  = { 1, { &MOP_XOR_RI },  NONE, 0, 0, RX_SS_IXOR_C7 },
    [RX_SS_IMULH_R]  = { 3, { &MOP_MOV_RR, &MOP_MUL_R, &MOP_MOV_RR }, 1, 0, 1, RX_SS_IMULH_R },
    [RX_SS_ISMULH_R] = { 3, { &MOP_MOV_RR, &MOP_MUL_R, &MOP_MOV_RR }, 1, 0, 1, RX_SS_ISMULH_R },
    [RX_SS_IMUL_RCP] = { 2, { &MOP_MOV_RI, &MOP_IMUL_RR_DEP }, NONE, 1, 1, RX_SS_IMUL_RCP },
};
static const op_info INFO_NOP = { 0, { 0 }, NONE, NONE, NONE, GROUP_INVALID };

/* Decoder groups (table 6.3.1). */
typedef struct decoder { int index, n; uint8_t slot[4]; } decoder;
static const decoder DEC[6] = {
    { 0, 3, { 4, 8, 4 } }, { 1, 4, { 7, 3, 3, 3 } }, { 2, 4, { 3, 7, 3, 3 } },
    { 3, 3, { 4, 9, 3 } }, { 4, 4, { 4, 4, 4, 4 } }, { 5, 3, { 3, 3, 10 } },
};

#define CYCLES   (RX_SS_LATENCY + 4)
#define LOOKAHEAD 4
#define MAX_THROWAWAY 256
#define REG_NO_LEA_DST 5   /* r5 cannot be the destination of IADD_RS */

typedef struct sim {
    uint8_t port[CYCLES][3];          /* [cycle][P0, P1, P5] busy */
    struct { int ready; int group; uint32_t par; } reg[8];
} sim;

/* The instruction being built. */
typedef struct cur_ins {
    int      type;                    /* -1: none */
    const op_info *info;
    int      src, dst;
    uint8_t  mod;
    uint32_t imm32;
    int      group;
    uint32_t par;                     /* group parameter; 0xffffffff = "constant" */
    int      can_reuse, par_is_src;
} cur_ins;

static int is_mul(int t) {
    return t == RX_SS_IMUL_R || t == RX_SS_IMULH_R || t == RX_SS_ISMULH_R || t == RX_SS_IMUL_RCP;
}

/* Earliest cycle >= c where one micro-op fits; marks the port if commit. */
static int place_uop(sim *s, int uop, int c, int commit) {
    for (; c < CYCLES; c++) {
        static const int order[3][2] = { { P5, 2 }, { P0, 0 }, { P1, 1 } };
        for (int k = 0; k < 3; k++) {
            if ((uop & order[k][0]) && !s->port[c][order[k][1]]) {
                if (commit) s->port[c][order[k][1]] = (uint8_t)uop;
                return c;
            }
        }
    }
    return -1;
}

static int place_mop(sim *s, const mop *m, int c, int dep_cycle, int commit) {
    if (m->dependent && dep_cycle > c) c = dep_cycle;
    if (!m->uop1) return c;                         /* eliminated */
    if (!m->uop2) return place_uop(s, m->uop1, c, commit);
    for (; c < CYCLES; c++) {                       /* both uops in one cycle */
        int c1 = place_uop(s, m->uop1, c, 0);
        int c2 = place_uop(s, m->uop2, c, 0);
        if (c1 >= 0 && c1 == c2) {
            if (commit) { place_uop(s, m->uop1, c1, 1); place_uop(s, m->uop2, c2, 1); }
            return c1;
        }
    }
    return -1;
}

static int pick(const int *cand, int n, rx_blake2_gen *g) {
    if (n == 1) return cand[0];
    return cand[rx_blake2_gen_u32(g) % (uint32_t)n];
}

static int choose_src(cur_ins *ci, const sim *s, int cycle, rx_blake2_gen *g) {
    int cand[8], n = 0;
    for (int i = 0; i < 8; i++)
        if (s->reg[i].ready <= cycle) cand[n++] = i;
    if (n == 0) return 0;
    if (n == 2 && ci->type == RX_SS_IADD_RS && (cand[0] == REG_NO_LEA_DST || cand[1] == REG_NO_LEA_DST)) {
        ci->src = REG_NO_LEA_DST;   /* r5 can only be the source: take it */
        ci->par = REG_NO_LEA_DST;
        return 1;
    }
    ci->src = pick(cand, n, g);
    if (ci->par_is_src) ci->par = (uint32_t)ci->src;
    return 1;
}

static int choose_dst(cur_ins *ci, const sim *s, int cycle, int chained_mul, rx_blake2_gen *g) {
    int cand[8], n = 0;
    for (int i = 0; i < 8; i++) {
        if (s->reg[i].ready > cycle) continue;
        if (!ci->can_reuse && i == ci->src) continue;
        if (!chained_mul && ci->group == RX_SS_IMUL_R && s->reg[i].group == RX_SS_IMUL_R) continue;
        if (s->reg[i].group == ci->group && s->reg[i].par == ci->par) continue;
        if (ci->type == RX_SS_IADD_RS && i == REG_NO_LEA_DST) continue;
        cand[n++] = i;
    }
    if (n == 0) return 0;
    ci->dst = pick(cand, n, g);
    return 1;
}

static int is_zero_or_pow2(uint32_t x) { return (x & (x - 1)) == 0; }

/* Choose the instruction for a slot and draw its immediates (6.3.2). */
static void create_for_slot(cur_ins *ci, rx_blake2_gen *g, int slot, int dec_index, int last) {
    int t;
    switch (slot) {
    case 3:
        if (last) {
            static const int l3[4] = { RX_SS_ISUB_R, RX_SS_IXOR_R, RX_SS_IMULH_R, RX_SS_ISMULH_R };
            t = l3[rx_blake2_gen_byte(g) & 3];
        } else {
            t = (rx_blake2_gen_byte(g) & 1) ? RX_SS_IXOR_R : RX_SS_ISUB_R;
        }
        break;
    case 4:
        if (dec_index == 4 && !last) t = RX_SS_IMUL_R;
        else t = (rx_blake2_gen_byte(g) & 1) ? RX_SS_IADD_RS : RX_SS_IROR_C;
        break;
    case 7: t = (rx_blake2_gen_byte(g) & 1) ? RX_SS_IADD_C7 : RX_SS_IXOR_C7; break;
    case 8: t = (rx_blake2_gen_byte(g) & 1) ? RX_SS_IADD_C8 : RX_SS_IXOR_C8; break;
    case 9: t = (rx_blake2_gen_byte(g) & 1) ? RX_SS_IADD_C9 : RX_SS_IXOR_C9; break;
    default: t = RX_SS_IMUL_RCP; break;   /* 10 */
    }
    ci->type = t;
    ci->info = &INFO[t];
    ci->group = INFO[t].group;
    ci->src = ci->dst = -1;
    ci->can_reuse = 0;
    ci->par_is_src = 0;
    ci->mod = 0;
    ci->imm32 = 0;
    switch (t) {
    case RX_SS_ISUB_R: case RX_SS_IXOR_R: case RX_SS_IMUL_R:
        ci->par_is_src = 1;
        break;
    case RX_SS_IADD_RS:
        ci->mod = rx_blake2_gen_byte(g);
        ci->par_is_src = 1;
        break;
    case RX_SS_IROR_C:
        do ci->imm32 = rx_blake2_gen_byte(g) & 63u; while (ci->imm32 == 0);
        ci->par = 0xffffffffu;
        break;
    case RX_SS_IADD_C7: case RX_SS_IADD_C8: case RX_SS_IADD_C9:
    case RX_SS_IXOR_C7: case RX_SS_IXOR_C8: case RX_SS_IXOR_C9:
        ci->imm32 = rx_blake2_gen_u32(g);
        ci->par = 0xffffffffu;
        break;
    case RX_SS_IMULH_R: case RX_SS_ISMULH_R:
        ci->can_reuse = 1;
        ci->par = rx_blake2_gen_u32(g);
        break;
    default: /* IMUL_RCP */
        do ci->imm32 = rx_blake2_gen_u32(g); while (is_zero_or_pow2(ci->imm32));
        ci->par = 0xffffffffu;
        break;
    }
}

static const decoder *next_decoder(int prev_type, int decode_cycle, int mul_count, rx_blake2_gen *g) {
    if (prev_type == RX_SS_IMULH_R || prev_type == RX_SS_ISMULH_R) return &DEC[5];
    if (mul_count < decode_cycle + 1) return &DEC[4];
    if (prev_type == RX_SS_IMUL_RCP) return (rx_blake2_gen_byte(g) & 1) ? &DEC[0] : &DEC[3];
    return &DEC[rx_blake2_gen_byte(g) & 3];
}

static void emit(rx_ss_program *p, const cur_ins *ci) {
    rx_ss_instr *in = &p->ins[p->size++];
    in->op = (uint8_t)ci->type;
    in->dst = (uint8_t)ci->dst;
    in->src = (uint8_t)(ci->src >= 0 ? ci->src : ci->dst);
    in->mod = ci->mod;
    in->imm32 = ci->imm32;
    switch (ci->type) {
    case RX_SS_IADD_RS: in->imm64 = (uint64_t)((ci->mod >> 2) & 3); break;
    case RX_SS_IROR_C:  in->imm64 = ci->imm32 & 63u; break;
    case RX_SS_IMUL_RCP: in->imm64 = rx_reciprocal(ci->imm32); break;
    default: /* sign-extended immediate (0 for register forms) */
        in->imm64 = (uint64_t)(int64_t)(int32_t)ci->imm32;
        break;
    }
}

void rx_superscalar_generate(rx_ss_program *prog, rx_blake2_gen *gen) {
    sim s;
    memset(&s, 0, sizeof s);
    for (int i = 0; i < 8; i++) { s.reg[i].ready = 0; s.reg[i].group = GROUP_INVALID; s.reg[i].par = 0xffffffffu; }
    memset(prog, 0, sizeof *prog);

    cur_ins ci;
    memset(&ci, 0, sizeof ci);
    ci.type = -1; ci.info = &INFO_NOP; ci.src = ci.dst = -1; ci.group = GROUP_INVALID;

    int mop_index = 0, cycle = 0, dep_cycle = 0, saturated = 0, mul_count = 0, throwaway = 0;
    for (int dcycle = 0; dcycle < RX_SS_LATENCY && !saturated && prog->size < RX_SS_MAX_SIZE; dcycle++) {
        const decoder *dec = next_decoder(ci.type, dcycle, mul_count, gen);
        int slot = 0;
        while (slot < dec->n) {
            int top_cycle = cycle;
            if (mop_index >= ci.info->n) {
                if (saturated || prog->size >= RX_SS_MAX_SIZE) break;
                create_for_slot(&ci, gen, dec->slot[slot], dec->index, slot + 1 == dec->n);
                mop_index = 0;
            }
            const mop *m = ci.info->m[mop_index];
            int at = place_mop(&s, m, cycle, dep_cycle, 0);
            if (at < 0) { saturated = 1; break; }

            if (mop_index == ci.info->src_op) {
                int fwd = 0;
                while (fwd < LOOKAHEAD && !choose_src(&ci, &s, at, gen)) { fwd++; at++; cycle++; }
                if (fwd == LOOKAHEAD) {
                    if (throwaway < MAX_THROWAWAY) { throwaway++; mop_index = ci.info->n; continue; }
                    ci.type = -1; ci.info = &INFO_NOP;
                    break;
                }
            }
            if (mop_index == ci.info->dst_op) {
                int fwd = 0;
                while (fwd < LOOKAHEAD && !choose_dst(&ci, &s, at, throwaway > 0, gen)) { fwd++; at++; cycle++; }
                if (fwd == LOOKAHEAD) {
                    if (throwaway < MAX_THROWAWAY) { throwaway++; mop_index = ci.info->n; continue; }
                    ci.type = -1; ci.info = &INFO_NOP;
                    break;
                }
            }
            throwaway = 0;
            at = place_mop(&s, m, at, at, 1);
            if (at < 0) { saturated = 1; break; }
            dep_cycle = at + m->latency;
            if (mop_index == ci.info->result_op) {
                s.reg[ci.dst].ready = dep_cycle;
                s.reg[ci.dst].group = ci.group;
                s.reg[ci.dst].par = ci.par;
            }
            slot++;
            mop_index++;
            if (at >= RX_SS_LATENCY) saturated = 1;
            cycle = top_cycle;
            if (mop_index >= ci.info->n) {
                emit(prog, &ci);
                mul_count += is_mul(ci.type);
            }
        }
        cycle++;
    }

    /* Address register: longest chain assuming unit latency, unlimited ILP. */
    int lat[8] = { 0 };
    for (uint32_t i = 0; i < prog->size; i++) {
        const rx_ss_instr *in = &prog->ins[i];
        int ld = lat[in->dst] + 1;
        int ls = in->dst != in->src ? lat[in->src] + 1 : 0;
        lat[in->dst] = ld > ls ? ld : ls;
    }
    int best = 0;
    prog->addr_reg = 0;
    for (int i = 0; i < 8; i++)
        if (lat[i] > best) { best = lat[i]; prog->addr_reg = (uint32_t)i; }
    memset(&s, 0, sizeof s);
    memset(&ci, 0, sizeof ci);
}

/* ---- execution --------------------------------------------------------- */
static inline uint64_t mulhu(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}
static inline uint64_t mulhs(uint64_t a, uint64_t b) {
    uint64_t h = mulhu(a, b);
    if ((int64_t)a < 0) h -= b;
    if ((int64_t)b < 0) h -= a;
    return h;
}
static inline uint64_t ror64(uint64_t x, unsigned n) { return (x >> (n & 63)) | (x << ((64 - n) & 63)); }

void rx_superscalar_execute(const rx_ss_program *prog, uint64_t r[8]) {
    const rx_ss_instr *in = prog->ins, *end = prog->ins + prog->size;
    for (; in < end; in++) {
        uint64_t *d = &r[in->dst];
        const uint64_t s = r[in->src];
        switch (in->op) {
        case RX_SS_ISUB_R:   *d -= s; break;
        case RX_SS_IXOR_R:   *d ^= s; break;
        case RX_SS_IADD_RS:  *d += s << in->imm64; break;
        case RX_SS_IMUL_R:   *d *= s; break;
        case RX_SS_IROR_C:   *d = ror64(*d, (unsigned)in->imm64); break;
        case RX_SS_IADD_C7: case RX_SS_IADD_C8: case RX_SS_IADD_C9: *d += in->imm64; break;
        case RX_SS_IXOR_C7: case RX_SS_IXOR_C8: case RX_SS_IXOR_C9: *d ^= in->imm64; break;
        case RX_SS_IMULH_R:  *d = mulhu(*d, s); break;
        case RX_SS_ISMULH_R: *d = mulhs(*d, s); break;
        case RX_SS_IMUL_RCP: *d *= in->imm64; break;
        default: break;
        }
    }
}

/* One program over RX_SS_LANES register files: each instruction is applied
 * to all lanes, so the compiler vectorises the ALU work and the decode cost
 * is shared.  Instantiated for the baseline ISA and, on x86-64, for AVX2,
 * picked at run time. */
#define SS_LANES_BODY(prog, r) do {                                                       \
    const rx_ss_instr *in = (prog)->ins, *end = (prog)->ins + (prog)->size;               \
    for (; in < end; in++) {                                                              \
        uint64_t *d = (r)[in->dst];                                                       \
        const uint64_t *s = (r)[in->src];                                                 \
        const uint64_t imm = in->imm64;                                                   \
        unsigned k;                                                                       \
        switch (in->op) {                                                                 \
        case RX_SS_ISUB_R:   for (k = 0; k < RX_SS_LANES; k++) d[k] -= s[k]; break;       \
        case RX_SS_IXOR_R:   for (k = 0; k < RX_SS_LANES; k++) d[k] ^= s[k]; break;       \
        case RX_SS_IADD_RS:  for (k = 0; k < RX_SS_LANES; k++) d[k] += s[k] << imm; break; \
        case RX_SS_IMUL_R:   for (k = 0; k < RX_SS_LANES; k++) d[k] *= s[k]; break;       \
        case RX_SS_IROR_C:                                                                \
            for (k = 0; k < RX_SS_LANES; k++) d[k] = (d[k] >> imm) | (d[k] << (64 - imm)); \
            break;                                                                        \
        case RX_SS_IADD_C7: case RX_SS_IADD_C8: case RX_SS_IADD_C9:                       \
            for (k = 0; k < RX_SS_LANES; k++) d[k] += imm;                                \
            break;                                                                        \
        case RX_SS_IXOR_C7: case RX_SS_IXOR_C8: case RX_SS_IXOR_C9:                       \
            for (k = 0; k < RX_SS_LANES; k++) d[k] ^= imm;                                \
            break;                                                                        \
        case RX_SS_IMULH_R:  for (k = 0; k < RX_SS_LANES; k++) d[k] = mulhu(d[k], s[k]); break; \
        case RX_SS_ISMULH_R: for (k = 0; k < RX_SS_LANES; k++) d[k] = mulhs(d[k], s[k]); break; \
        case RX_SS_IMUL_RCP: for (k = 0; k < RX_SS_LANES; k++) d[k] *= imm; break;        \
        default: break;                                                                   \
        }                                                                                 \
    }                                                                                     \
} while (0)

typedef void (*lanes_fn)(const rx_ss_program *, uint64_t (*)[RX_SS_LANES]);

static void lanes_generic(const rx_ss_program *prog, uint64_t r[8][RX_SS_LANES]) {
    SS_LANES_BODY(prog, r);
}
#if defined(__x86_64__)
__attribute__((target("avx2")))
static void lanes_avx2(const rx_ss_program *prog, uint64_t r[8][RX_SS_LANES]) {
    SS_LANES_BODY(prog, r);
}
#endif

static lanes_fn lanes_resolve(void) {
#if defined(__x86_64__)
    /* An AVX-512 (vpmullq) build measured no faster than AVX2 on Zen 4. */
    if (util_cpufeat_get()->avx2)
        return lanes_avx2;
#endif
    return lanes_generic;
}

void rx_superscalar_execute_lanes(const rx_ss_program *prog, uint64_t r[8][RX_SS_LANES]) {
    lanes_resolve()(prog, r);
}

size_t rx_superscalar_serialize(const rx_ss_program *prog, uint8_t *out, size_t cap) {
    size_t need = (size_t)prog->size * 8;
    if (!out || cap < need) return 0;
    for (uint32_t i = 0; i < prog->size; i++) {
        const rx_ss_instr *in = &prog->ins[i];
        uint8_t *p = out + 8 * (size_t)i;
        p[0] = in->op; p[1] = in->dst; p[2] = in->src; p[3] = in->mod;
        util_store32le(p + 4, in->imm32);
    }
    return need;
}
