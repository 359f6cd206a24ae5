/* src/rx/jit_superscalar_x86_64.c — SuperscalarHash compiled to x86-64 for
 * dataset items (spec 7.3): one function per cache, covering all 8 programs
 * and the cache-line mixing, looping over a range of items.  W^X: written
 * RW once, sealed RX, never reopened; freed with wipe + unmap (execmem.c).
 *
 * Register map: r8-r15 = r0-r7, rdi = cache bytes, rsi = output, rbx = item,
 * rbp = end item, rcx = current cache line, rax/rdx = temporaries.
 * A second entry computes one item into r8-r15 for the program loop's
 * light-mode dataset read (no C call, no spill of the vector registers). */
#include "rx/jit.h"
#if defined(__x86_64__)
#include "rx/execmem.h"
#include "rx/superscalar.h"
#include "rx/x86_emit.h"
#include <stdlib.h>
#include <string.h>

#define SS_RREG(i) (XR_R8 + (int)(i))
#define SS_CACHE_LINES_MASK ((RX_CACHE_SIZE / 64u) - 1u)
#define SS_CODE_MAX (8u * RX_SS_MAX_SIZE * 16u + 4096u)

struct rx_jit_ss {
    rx_execmem mem;
    size_t item_off;       /* the single-item entry (ss_emit) */
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

/* r8-r15 = dataset item number item_reg (spec 7.3): the register init, the
 * 8 programs each followed by the mix with its cache line.  item_reg is
 * read only before the first program's instructions; rdi = cache bytes;
 * clobbers rax, rcx, rdx. */
static int ss_emit_item(xe_buf *b, const rx_ss_program *progs, int item_reg) {
    xe_lea(b, 1, XR_RAX, xm(item_reg, 1));
    xe_mov_ri64(b, SS_RREG(0), ss_mul0);
    xe_imul_rr(b, SS_RREG(0), XR_RAX);
    for (int k = 1; k < 8; k++) {
        xe_mov_ri64(b, SS_RREG(k), ss_xor[k]);
        xe_alu_rr(b, 1, XA_XOR, SS_RREG(k), SS_RREG(0));
    }
    int idx_reg = item_reg;
    for (int p = 0; p < 8; p++) {
        const rx_ss_program *pr = &progs[p];
        if (pr->size > RX_SS_MAX_SIZE || pr->addr_reg > 7) return -1;
        xe_mov_rr(b, 0, XR_RCX, idx_reg);              /* 32 bits suffice: mask < 2^22 */
        xe_alu_ri(b, 0, XA_AND, XR_RCX, (int32_t)SS_CACHE_LINES_MASK);
        xe_shift_ri(b, 1, XS_SHL, XR_RCX, 6);
        xe_alu_rr(b, 1, XA_ADD, XR_RCX, XR_RDI);
        xe_prefetch(b, 1, xm(XR_RCX, 0));
        for (uint32_t i = 0; i < pr->size; i++)
            if (ss_emit_instr(b, &pr->ins[i]) != 0) return -1;
        for (int k = 0; k < 8; k++) xe_alu_rm(b, 1, XA_XOR, SS_RREG(k), xm(XR_RCX, 8 * k));
        idx_reg = SS_RREG(pr->addr_reg);
    }
    return 0;
}

/* Two functions in one block:
 *   at 0:            void fn(const uint8_t *cache, uint64_t first, uint64_t end, uint8_t *out)
 *   at *item_off:    the program loop's light-mode item call (jit.h
 *                    rx_jit_ss_item_entry): rdx = item number, rdi = cache
 *                    bytes -> r8-r15 = the item; clobbers rax, rcx, rdx only. */
static int ss_emit(xe_buf *b, const rx_ss_program *progs, size_t *item_off) {
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
    if (ss_emit_item(b, progs, XR_RBX) != 0) return -1;
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
    while (b->len & 63u) xe_u8(b, 0xCC);            /* int3 up to a cache line */
    *item_off = b->len;
    if (ss_emit_item(b, progs, XR_RDX) != 0) return -1;
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
    if (ss_emit(&b, progs, &j->item_off) != 0) { rx_jit_ss_free(j); return RX_EINTERNAL; }
    rc = rx_execmem_seal(&j->mem);
    if (rc) { rx_jit_ss_free(j); return rc; }
    *out = j;
    return 0;
}

int rx_jit_dataset_items(const rx_jit_ss *code, const uint8_t *cache_bytes,
                         uint64_t first, uint64_t count, uint8_t *out) {
    if (!code || !cache_bytes || !out || count > RX_DATASET_ITEMS || first > RX_DATASET_ITEMS - count)
        return RX_EINVAL;
    if (rx_execmem_is_open(&code->mem)) return RX_EPROT;
    void (*fn)(const uint8_t *, uint64_t, uint64_t, uint8_t *);
    uint8_t *p = code->mem.base;
    memcpy(&fn, &p, sizeof fn);
    fn(cache_bytes, first, first + count, out);
    return 0;
}

const void *rx_jit_ss_item_entry(const rx_jit_ss *code) {
    if (!code || rx_execmem_is_open(&code->mem)) return NULL;
    return code->mem.base + code->item_off;
}

void rx_jit_ss_free(rx_jit_ss *code) {
    if (!code) return;
    rx_execmem_free(&code->mem);
    free(code);
}
#else
int rx_jit_ss_new(rx_jit_ss **out, const struct rx_ss_program *progs /* [8] */) {
    (void)progs; if (out) *out = NULL; return RX_ENOTSUP;
}
int rx_jit_dataset_items(const rx_jit_ss *code, const uint8_t *cache_bytes,
                         uint64_t first, uint64_t count, uint8_t *out) {
    (void)code; (void)cache_bytes; (void)first; (void)count; (void)out; return RX_ENOTSUP;
}
const void *rx_jit_ss_item_entry(const rx_jit_ss *code) { (void)code; return NULL; }
void rx_jit_ss_free(rx_jit_ss *code) { (void)code; }
#endif
