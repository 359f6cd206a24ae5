/* SPDX-License-Identifier: ISC */
/* src/rx/jit_superscalar_x86_64.c — SuperscalarHash compiled to x86-64 for
 * dataset items (spec 7.3): one function per cache, covering all 8 programs
 * and the cache-line mixing, looping over a range of items.  W^X: written
 * RW once, sealed RX, never reopened; freed with wipe + unmap (execmem.c).
 *
 * Register map: r8-r15 = r0-r7, rdi = cache bytes, rsi = output, rbx = item,
 * rbp = end item, rcx = current cache line, rax/rdx = temporaries.
 * Two more entries compute items for the program loop's light-mode dataset
 * reads, two items in flight (no C call, no spill of the vector registers).
 * rx_jit_ss_new_dataset adds a second block with the vector form
 * (jit_superscalar_avx_x86_64.c: 8 items per AVX-512 group or 4 per AVX2
 * group, its constants after the code, sealed alike); rx_jit_dataset_items runs whole
 * groups through it and the rest through the scalar code. */
#include "rx/jit.h"
#if defined(__x86_64__)
#include "rx/execmem.h"
#include "rx/superscalar.h"
#include "rx/x86_emit.h"
#include "rx/jit_ssv.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define SS_RREG(i) (XR_R8 + (int)(i))
#define SS_CACHE_LINES_MASK ((RX_CACHE_SIZE / 64u) - 1u)
#define SS_CODE_MAX (8u * RX_SS_MAX_SIZE * 16u + 4096u)

struct rx_jit_ss {
    rx_execmem mem;
    size_t first_off, pair_off;   /* the light-mode pipeline entries (ss_emit) */
    int vkind;                    /* RX_SSV_*: RX_SSV_SCALAR = no vector block */
    unsigned vlanes;              /* items per vector group; 0 = none */
    rx_execmem vmem;              /* the vector code, then its constants at vconst_off */
    size_t vconst_off;
};

static const uint64_t ss_mul0 = 6364136223846793005ull;
static const uint64_t ss_xor[8] = {
    0, 9298411001130361340ull, 12065312585734608966ull, 9306329213124626780ull,
    5281919268842080866ull, 10536153434571861004ull, 3398623926847679864ull,
    9549104520008361294ull
};

static int ss_emit_instr(xe_buf *b, const rx_ss_instr *in) {
    if (in->dst > 7 || in->src > 7) return -1;
    int d = SS_RREG(in->dst), s = SS_RREG(in->src);
    switch (in->op) {
    case RX_SS_ISUB_R:  xe_alu_rr(b, 1, XA_SUB, d, s); break;
    case RX_SS_IXOR_R:  xe_alu_rr(b, 1, XA_XOR, d, s); break;
    case RX_SS_IADD_RS:
        if (in->imm64 > 3) return -1;
        xe_lea(b, 1, d, xmi(d, s, 1 << in->imm64, 0)); break;
    case RX_SS_IMUL_R:  xe_imul_rr(b, d, s); break;
    case RX_SS_IROR_C:  if (in->imm64 & 63u) xe_shift_ri(b, 1, XS_ROR, d, (unsigned)(in->imm64 & 63u)); break;
    case RX_SS_IADD_C7: case RX_SS_IADD_C8: case RX_SS_IADD_C9:
        xe_alu_ri(b, 1, XA_ADD, d, (int32_t)in->imm32); break;
    case RX_SS_IXOR_C7: case RX_SS_IXOR_C8: case RX_SS_IXOR_C9:
        xe_alu_ri(b, 1, XA_XOR, d, (int32_t)in->imm32); break;
    case RX_SS_IMULH_R: case RX_SS_ISMULH_R:
        xe_mov_rr(b, 1, XR_RAX, d);
        xe_f7_r(b, in->op == RX_SS_IMULH_R ? 4 : 5, s);
        xe_mov_rr(b, 1, d, XR_RDX);
        break;
    case RX_SS_IMUL_RCP:
        xe_mov_ri64(b, XR_RAX, in->imm64);
        xe_imul_rr(b, d, XR_RAX);
        break;
    default: return -1;
    }
    return 0;
}

/* r8-r15 = the initial registers of dataset item number item_reg (spec
 * 7.3); clobbers rax. */
static void ss_emit_init(xe_buf *b, int item_reg) {
    xe_lea(b, 1, XR_RAX, xm(item_reg, 1));
    xe_mov_ri64(b, SS_RREG(0), ss_mul0);
    xe_imul_rr(b, SS_RREG(0), XR_RAX);
    for (int k = 1; k < 8; k++) {
        xe_mov_ri64(b, SS_RREG(k), ss_xor[k]);
        xe_alu_rr(b, 1, XA_XOR, SS_RREG(k), SS_RREG(0));
    }
}
/* reg = cache + (idx & lines mask) * 64 */
static void ss_emit_line(xe_buf *b, int reg, int idx_reg) {
    xe_mov_rr(b, 0, reg, idx_reg);                   /* 32 bits suffice: mask < 2^22 */
    xe_alu_ri(b, 0, XA_AND, reg, (int32_t)SS_CACHE_LINES_MASK);
    xe_shift_ri(b, 1, XS_SHL, reg, 6);
    xe_alu_rr(b, 1, XA_ADD, reg, XR_RDI);
}
/* Step p of an item whose registers are in r8-r15: program p, then the mix
 * with its cache line (index: item_reg for p = 0, else the address register
 * of program p-1).  pf_next: prefetch the next step's line as soon as its
 * index is known.  Clobbers rax, rcx, rdx. */
static int ss_emit_step(xe_buf *b, const rx_ss_program *progs, int p, int item_reg, int pf_next) {
    const rx_ss_program *pr = &progs[p];
    if (pr->size > RX_SS_MAX_SIZE || pr->addr_reg > 7) return -1;
    int idx = p == 0 ? item_reg : SS_RREG(progs[p - 1].addr_reg);
    ss_emit_line(b, XR_RCX, idx);
    xe_prefetch(b, 1, xm(XR_RCX, 0));
    for (uint32_t i = 0; i < pr->size; i++)
        if (ss_emit_instr(b, &pr->ins[i]) != 0) return -1;
    for (int k = 0; k < 8; k++) xe_alu_rm(b, 1, XA_XOR, SS_RREG(k), xm(XR_RCX, 8 * k));
    if (pf_next && p < 7) {
        ss_emit_line(b, XR_RCX, SS_RREG(pr->addr_reg));
        xe_prefetch(b, 1, xm(XR_RCX, 0));
    }
    return 0;
}
static void ss_emit_save(xe_buf *b, int32_t off) {
    for (int k = 0; k < 8; k++) xe_store(b, 1, xm(XR_RSP, off + 8 * k), SS_RREG(k));
}
static void ss_emit_restore(xe_buf *b, int32_t off) {
    for (int k = 0; k < 8; k++) xe_load(b, 1, SS_RREG(k), xm(XR_RSP, off + 8 * k));
}

/* Three functions in one block:
 *   at 0:  void fn(const uint8_t *cache, uint64_t first, uint64_t end, uint8_t *out)
 *   first, pair: the program loop's light-mode item pipeline (register ABI,
 *          see jit.h rx_jit_ss_entries).  Each item is split in halves
 *          (programs 0-3, 4-7); "pair" finishes item A from its saved
 *          half-state while it runs the first half of item B, alternating
 *          the two at program granularity so that one item's cache-line
 *          miss overlaps the other's program: 4 miss latencies per item
 *          instead of 8 on the critical path.  S = [rsp+8], T = [rsp+72]
 *          (the caller's [rsp], [rsp+64]). */
#define SS_S 8
#define SS_T 72
static int ss_emit(xe_buf *b, const rx_ss_program *progs, size_t *first_off, size_t *pair_off) {
    static const int saved[6] = { XR_RBX, XR_RBP, XR_R12, XR_R13, XR_R14, XR_R15 };
    for (int i = 0; i < 6; i++) xe_push(b, saved[i]);
    xe_mov_rr(b, 1, XR_RBX, XR_RSI);
    xe_mov_rr(b, 1, XR_RBP, XR_RDX);
    xe_mov_rr(b, 1, XR_RSI, XR_RCX);
    size_t done_patch = 0;
    xe_alu_rr(b, 1, XA_CMP, XR_RBX, XR_RBP);
    xe_u8(b, 0x0F); xe_u8(b, 0x83); xe_u32(b, 0);   /* jae done (rel32, patched) */
    done_patch = b->len;
    size_t top = b->len;
    ss_emit_init(b, XR_RBX);
    for (int p = 0; p < 8; p++)
        if (ss_emit_step(b, progs, p, XR_RBX, 0) != 0) return -1;
    for (int k = 0; k < 8; k++) xe_store(b, 1, xm(XR_RSI, 8 * k), SS_RREG(k));
    xe_alu_ri(b, 1, XA_ADD, XR_RSI, 64);
    xe_alu_ri(b, 1, XA_ADD, XR_RBX, 1);
    xe_alu_rr(b, 1, XA_CMP, XR_RBX, XR_RBP);
    xe_jcc_to(b, XC_B, top);
    if (b->err) return -1;
    uint32_t rel = (uint32_t)(b->len - done_patch);
    memcpy(b->p + done_patch - 4, &rel, 4);
    for (int i = 5; i >= 0; i--) xe_pop(b, saved[i]);
    xe_ret(b);

    /* first: rdx = item -> S = its state after programs 0-3 */
    while (b->len & 63u) xe_u8(b, 0xCC);
    *first_off = b->len;
    ss_emit_init(b, XR_RDX);
    for (int p = 0; p < 4; p++)
        if (ss_emit_step(b, progs, p, XR_RDX, 1) != 0) return -1;
    ss_emit_save(b, SS_S);
    xe_ret(b);

    /* pair: S = item A after programs 0-3, rdx = item B ->
     * r8-r15 = item A, S = item B after programs 0-3 */
    while (b->len & 63u) xe_u8(b, 0xCC);
    *pair_off = b->len;
    ss_emit_init(b, XR_RDX);
    if (ss_emit_step(b, progs, 0, XR_RDX, 1) != 0) return -1;
    ss_emit_save(b, SS_T);
    for (int k = 0; k < 4; k++) {
        ss_emit_restore(b, SS_S);
        if (ss_emit_step(b, progs, 4 + k, XR_RDX, 1) != 0) return -1;
        if (k == 3) break;                          /* item A stays in r8-r15 */
        ss_emit_save(b, SS_S);
        ss_emit_restore(b, SS_T);
        if (ss_emit_step(b, progs, 1 + k, XR_RDX, 1) != 0) return -1;
        ss_emit_save(b, SS_T);
    }
    for (int k = 0; k < 8; k++) {                   /* S = T (B's half-state) */
        xe_load(b, 1, XR_RAX, xm(XR_RSP, SS_T + 8 * k));
        xe_store(b, 1, xm(XR_RSP, SS_S + 8 * k), XR_RAX);
    }
    xe_ret(b);
    return xe_ok(b) ? 0 : -1;
}

int rx_jit_ss_new(rx_jit_ss **out, const struct rx_ss_program *progs /* [8] */) {
    if (!out || !progs) return RX_EINVAL;
    *out = NULL;
    rx_jit_ss *j = calloc(1, sizeof *j);
    if (!j) return RX_ENOMEM;
    int rc = rx_execmem_init(&j->mem, SS_CODE_MAX);
    if (rc) { free(j); return rc; }
    xe_buf b;
    xe_init(&b, j->mem.base, j->mem.size);
    if (ss_emit(&b, progs, &j->first_off, &j->pair_off) != 0) { rx_jit_ss_free(j); return RX_EINTERNAL; }
    rc = rx_execmem_seal(&j->mem);
    if (rc) { rx_jit_ss_free(j); return rc; }
    *out = j;
    return 0;
}

/* The vector block: code, then (64-byte aligned) its constants. */
static int ssv_build(rx_jit_ss *j, const struct rx_ss_program *progs, int kind) {
    uint64_t *consts = calloc(RX_SSV_CONSTS, sizeof *consts);
    if (!consts) return RX_ENOMEM;
    size_t nc = 0, cap = RX_SSV_CODE_MAX + RX_SSV_CONSTS * 8u + 64u;
    int rc = rx_execmem_init(&j->vmem, cap);
    if (rc) { free(consts); return rc; }
    xe_buf b;
    xe_init(&b, j->vmem.base, RX_SSV_CODE_MAX);
    rc = rx_ssv_emit(&b, kind, progs, consts, &nc) == 0 ? RX_OK : RX_EINTERNAL;
    if (rc == RX_OK) {
        j->vconst_off = (b.len + 63u) & ~(size_t)63u;
        memset(j->vmem.base + b.len, 0xCC, j->vconst_off - b.len);
        memcpy(j->vmem.base + j->vconst_off, consts, nc * sizeof *consts);
        size_t used = j->vconst_off + nc * sizeof *consts;
        memset(j->vmem.base + used, 0xCC, j->vmem.size - used);   /* the rest traps */
        rc = rx_execmem_seal(&j->vmem);
    }
    sodium_memzero(consts, RX_SSV_CONSTS * sizeof *consts);
    free(consts);
    if (rc == RX_OK) { j->vkind = kind; j->vlanes = rx_ssv_lanes(kind); }
    return rc;
}

int rx_jit_ss_new_dataset(rx_jit_ss **out, const struct rx_ss_program *progs /* [8] */) {
    int rc = rx_jit_ss_new(out, progs), kind = rx_ssv_kind();
    if (rc || kind == RX_SSV_SCALAR) return rc;
    rc = ssv_build(*out, progs, kind);
    if (rc) { rx_jit_ss_free(*out); *out = NULL; }
    return rc;
}

const char *rx_jit_ss_kind(const rx_jit_ss *code) {
    return code ? rx_ssv_kind_name(code->vkind) : "none";
}

int rx_jit_dataset_items(const rx_jit_ss *code, const uint8_t *cache_bytes,
                         uint64_t first, uint64_t count, uint8_t *out) {
    if (!code || !cache_bytes || !out || count > RX_DATASET_ITEMS || first > RX_DATASET_ITEMS - count)
        return RX_EINVAL;
    if (rx_execmem_is_open(&code->mem)) return RX_EPROT;
    uint64_t groups = code->vlanes ? count / code->vlanes : 0;
    if (groups) {
        if (rx_execmem_is_open(&code->vmem)) return RX_EPROT;
        void (*vf)(const uint8_t *, uint64_t, uint64_t, uint8_t *, const uint64_t *);
        uint8_t *vp = code->vmem.base;
        memcpy(&vf, &vp, sizeof vf);
        vf(cache_bytes, first, groups, out, (const uint64_t *)(const void *)(code->vmem.base + code->vconst_off));
        first += groups * code->vlanes;
        out += groups * code->vlanes * 64u;
        count -= groups * code->vlanes;
    }
    if (count == 0) return 0;
    void (*fn)(const uint8_t *, uint64_t, uint64_t, uint8_t *);
    uint8_t *p = code->mem.base;
    memcpy(&fn, &p, sizeof fn);
    fn(cache_bytes, first, first + count, out);
    return 0;
}

int rx_jit_ss_entries(const rx_jit_ss *code, const void **first, const void **pair) {
    if (!code || !first || !pair) return RX_EINVAL;
    if (rx_execmem_is_open(&code->mem)) return RX_EPROT;
    *first = code->mem.base + code->first_off;
    *pair = code->mem.base + code->pair_off;
    return 0;
}

void rx_jit_ss_free(rx_jit_ss *code) {
    if (!code) return;
    rx_execmem_free(&code->mem);
    if (code->vmem.base) rx_execmem_free(&code->vmem);
    free(code);
}
#else
int rx_jit_ss_new(rx_jit_ss **out, const struct rx_ss_program *progs /* [8] */) {
    (void)progs; if (out) *out = NULL; return RX_ENOTSUP;
}
int rx_jit_ss_new_dataset(rx_jit_ss **out, const struct rx_ss_program *progs /* [8] */) {
    (void)progs; if (out) *out = NULL; return RX_ENOTSUP;
}
const char *rx_jit_ss_kind(const rx_jit_ss *code) { (void)code; return "none"; }
int rx_jit_dataset_items(const rx_jit_ss *code, const uint8_t *cache_bytes,
                         uint64_t first, uint64_t count, uint8_t *out) {
    (void)code; (void)cache_bytes; (void)first; (void)count; (void)out; return RX_ENOTSUP;
}
int rx_jit_ss_entries(const rx_jit_ss *code, const void **first, const void **pair) {
    (void)code; (void)first; (void)pair; return RX_ENOTSUP;
}
void rx_jit_ss_free(rx_jit_ss *code) { (void)code; }
#endif
