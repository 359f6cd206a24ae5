/* SPDX-License-Identifier: ISC */
/* tests/test_rx_jit.c — the x86-64 JIT: the emitter (functions assembled
 * and run), W^X of the JIT's code pages, injected mprotect/mmap failures
 * at every call site, and the JIT-vs-interpreter differential test over
 * random programs (v1/v2 x hard/soft AES, light mode) plus whole hashes. */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/execmem.h"
#include "rx/jit.h"
#include "rx/internal.h"
#include "rx/aes.h"
#include "rx/cache_internal.h"
#include "rx/cpu.h"
#include "rx/program.h"
#include "rx/vm_interp.h"
#include "rx/vm_state.h"
#include <fenv.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

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
/* ---- deterministic PRNG (failures reproduce from the printed seed) ---- */
static uint64_t rng_s;
static uint64_t rng(void) { return test_rng(&rng_s); }
static void rng_fill(uint8_t *p, size_t n) { test_rng_fill(&rng_s, p, n); }

static rx_cache *g_cache;
static rx_cache *cache_get(void) {
    if (!g_cache) {
        static const char key[] = "rxlock jit differential";
        if (rx_cache_new(&g_cache, 0) != 0 || rx_cache_init(g_cache, key, sizeof key - 1) != 0) {
            rx_cache_free(g_cache); g_cache = NULL;
        }
    }
    return g_cache;
}

/* A fake "dataset" for full-mode runs without building 2 GiB: one 2 MiB
 * block of random bytes mapped read-only over and over across a reserved
 * 2080 MiB range (every item address is valid; contents repeat every 2 MiB). */
#define FAKE_BLOCK (2u << 20)
static uint8_t *g_fake_ds;
static size_t g_fake_len;
static const uint8_t *fake_dataset(void) {
    if (g_fake_ds) return g_fake_ds;
    size_t len = (size_t)(RX_DATASET_BASE_SIZE + RX_DATASET_EXTRA_SIZE);
    len = (len + FAKE_BLOCK - 1) / FAKE_BLOCK * FAKE_BLOCK;
    int fd = memfd_create("rx-fake-dataset", 0);
    if (fd < 0) return NULL;
    uint8_t *blk = malloc(FAKE_BLOCK);
    int ok = blk && ftruncate(fd, FAKE_BLOCK) == 0;
    if (ok) { rng_fill(blk, FAKE_BLOCK); ok = write(fd, blk, FAKE_BLOCK) == (ssize_t)FAKE_BLOCK; }
    free(blk);
    uint8_t *base = ok ? mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : MAP_FAILED;
    if (base == MAP_FAILED) { close(fd); return NULL; }
    for (size_t off = 0; off < len; off += FAKE_BLOCK)
        if (mmap(base + off, FAKE_BLOCK, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
            munmap(base, len); close(fd); return NULL;
        }
    close(fd);
    g_fake_ds = base; g_fake_len = len;
    return base;
}

struct pair { struct rx_vm_state *a, *b; };
static struct rx_vm_state *state_new(void) {
    struct rx_vm_state *st = aligned_alloc(64, sizeof *st);
    if (!st) return NULL;
    memset(st, 0, sizeof *st);
    st->scratchpad = aligned_alloc(64, RX_SCRATCHPAD_L3);
    if (!st->scratchpad) { free(st); return NULL; }
    return st;
}
static void state_free(struct rx_vm_state *st) { if (st) { free(st->scratchpad); free(st); } }

static long g_programs;
/* Run `n` random programs of one configuration through the interpreter and
 * the JIT on equal states; compare register files, ma/mx/fprc and the
 * whole scratchpad after each.  Returns the number of mismatches. */
static int diff_run(unsigned version, int soft, int full, int n, uint64_t seed) {
    const struct rx_aes_ops *aes = soft ? rx_aes_soft_ops() : rx_aes_hw_ops();
    if (!aes) return 0;
    rx_cache *cache = full ? NULL : cache_get();
    const uint8_t *ds = full ? fake_dataset() : NULL;
    if (!full && !cache) { CHECK(cache != NULL); return 1; }
    if (full && !ds) { CHECK(ds != NULL); return 1; }
    unsigned flags = (version == 2 ? RX_FLAG_V2 : 0) | (full ? RX_FLAG_FULL : 0) |
                     (soft ? RX_FLAG_SOFT_AES : RX_FLAG_HARD_AES) | RX_FLAG_JIT | RX_FLAG_SECURE;
    rx_jit *jit = NULL;
    CHECK(rx_jit_new(&jit, flags) == 0);
    struct rx_vm_state *A = state_new(), *B = state_new();
    struct rx_program *prog = malloc(sizeof *prog);
    struct rx_decoded *dec = malloc(sizeof *dec);
    uint32_t count = version == 2 ? RX_PROGRAM_SIZE_V2 : RX_PROGRAM_SIZE_V1;
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_MAX_SIZE)];
    int bad = 0;
    if (!jit || !A || !B || !prog || !dec) { CHECK(0); bad = 1; goto out; }
    rng_s = seed;
    rng_fill(A->scratchpad, RX_SCRATCHPAD_L3);
    memcpy(B->scratchpad, A->scratchpad, RX_SCRATCHPAD_L3);
    for (int k = 0; k < n; k++) {
        rng_fill(bytes, RX_PROGRAM_BYTES(count));
        /* bias some immediates to the special cases (0, powers of 2, small) */
        for (uint32_t i = 0; i < count; i++) {
            uint8_t *w = bytes + 128 + 8 * i;
            uint64_t r = rng();
            if ((r & 15) == 0) { uint32_t v = (r >> 8) & 1 ? 0u : 1u << ((r >> 16) & 31); memcpy(w + 4, &v, 4); }
            else if ((r & 15) == 1) { w[2] = w[1]; }      /* src == dst */
        }
        rx_program_parse(prog, bytes, count);
        struct rx_vm_state *S[2] = { A, B };
        uint32_t fprc = (uint32_t)(rng() & 3);
        uint32_t iters = (k % 97 == 0) ? RX_PROGRAM_ITERATIONS : (k % 101 == 1) ? 0 : 1 + (uint32_t)(rng() % 31);
        for (int j = 0; j < 2; j++) {
            rx_vm_state_configure(S[j], prog);
            S[j]->version = version;
            S[j]->program_size = count;
            S[j]->iterations = iters;
            S[j]->fprc = fprc;
            S[j]->cache = cache;
            S[j]->dataset = ds;
        }
        fenv_t env;
        fegetenv(&env);
        rx_interp_decode(dec, prog, version);
        rx_interp_run(A, dec, aes);
        fesetenv(&env);
        int rc = rx_jit_compile(jit, prog, B);
        if (rc == 0) rc = rx_jit_run(jit, B);
        g_programs++;
        int same = rc == 0 && memcmp(A, B, 256) == 0 && A->ma == B->ma && A->mx == B->mx &&
                   A->fprc == B->fprc && memcmp(A->scratchpad, B->scratchpad, RX_SCRATCHPAD_L3) == 0;
        if (!same) {
            if (bad < 3) {
                fprintf(stderr, "JIT != interpreter: v%u %s %s program %d seed %#llx rc %d\n", version,
                        soft ? "soft" : "hard", full ? "full" : "light", k, (unsigned long long)seed, rc);
                test_dump_("  interp r", (const uint8_t *)A->r, 64);
                test_dump_("  jit    r", (const uint8_t *)B->r, 64);
                test_dump_("  interp f", (const uint8_t *)A->f, 64);
                test_dump_("  jit    f", (const uint8_t *)B->f, 64);
            }
            bad++;
            memcpy(B->scratchpad, A->scratchpad, RX_SCRATCHPAD_L3);
        }
    }
out:
    rx_jit_free(jit);
    state_free(A); state_free(B);
    free(prog); free(dec);
    return bad;
}

/* 10,000 programs in check mode: v1/v2 x hard/soft AES, light mode with a
 * real cache, plus full mode over the fake dataset. */
static void t_diff_programs(void) {
    int per = test_quick() ? 40 : 2000, full_per = test_quick() ? 20 : 500;
    int bad = 0;
    for (unsigned v = 1; v <= 2; v++)
        for (int soft = 0; soft <= 1; soft++) {
            if (!soft && !rx_cpu_has_hw_aes()) continue;
            bad += diff_run(v, soft, 0, per, 0x5eed0000u + v * 16 + (unsigned)soft);
            bad += diff_run(v, soft, 1, full_per, 0xf0110000u + v * 16 + (unsigned)soft);
        }
    fprintf(stderr, "differential: %ld programs, %d mismatches\n", g_programs, bad);
    CHECK(bad == 0);
}

/* Whole hashes: JIT VM vs interpreter VM, random keys are not needed here
 * (the cache is the expensive part); random inputs of random length. */
static void t_diff_hashes(void) {
    rx_cache *cache = cache_get();
    CHECK(cache != NULL);
    if (!cache) return;
    int n = test_quick() ? 1 : 4, bad = 0;
    rng_s = 0x4a54u;
    for (unsigned v = 1; v <= 2; v++)
        for (int soft = 0; soft <= 1; soft++) {
            if (!soft && !rx_cpu_has_hw_aes()) continue;
            unsigned base = (v == 2 ? RX_FLAG_V2 : 0) | (soft ? RX_FLAG_SOFT_AES : RX_FLAG_HARD_AES);
            rx_vm *vi = NULL, *vj = NULL;
            CHECK(rx_vm_new(&vi, base, cache, NULL) == 0);
            CHECK(rx_vm_new(&vj, base | RX_FLAG_JIT | RX_FLAG_SECURE, cache, NULL) == 0);
            if (!vi || !vj) { rx_vm_free(vi); rx_vm_free(vj); bad++; continue; }
            CHECK((rx_vm_flags(vj) & RX_FLAG_JIT) != 0);
            CHECK((rx_vm_flags(vi) & RX_FLAG_JIT) == 0);
            for (int k = 0; k < n; k++) {
                uint8_t in[300], h1[32], h2[32];
                size_t len = (size_t)(rng() % sizeof in);
                rng_fill(in, sizeof in);
                CHECK(rx_vm_hash(vi, in, len, h1) == 0);
                CHECK(rx_vm_hash(vj, in, len, h2) == 0);
                if (memcmp(h1, h2, 32) != 0) bad++;
            }
            rx_vm_free(vi); rx_vm_free(vj);
        }
    CHECK(bad == 0);
}

/* ---- W^X and fault injection ------------------------------------------ */
static int maps_ok(int *exec_regions) {
    FILE *fp = fopen("/proc/self/maps", "r");
    if (!fp) return 0;
    char line[512]; int ok = 1; *exec_regions = 0;
    while (fgets(line, sizeof line, fp)) {
        unsigned long lo, hi; char p[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, p) != 3) continue;
        if (p[1] == 'w' && p[2] == 'x') ok = 0;
        if (p[2] == 'x' && strchr(line, '/') == NULL && strstr(line, "[vdso]") == NULL &&
            strstr(line, "[vsyscall]") == NULL) (*exec_regions)++;
    }
    fclose(fp);
    return ok;
}

static int fail_at, calls, fail_site_seen;
static int fault_hook(int site) {
    calls++;
    if (calls == fail_at) { fail_site_seen = site; return 1; }
    return 0;
}
static int wiped_ok, free_seen;
static void free_hook(const uint8_t *base, size_t size) {
    free_seen++;
    size_t nz = 0;
    for (size_t i = 0; i < size; i++) nz += base[i] != 0;
    if (nz == 0) wiped_ok++;
}

/* the install with flips (RX_FLAG_JIT_MPROTECT): every mprotect site */
static void t_wx_and_faults(void) {
    rx_cache *cache = cache_get();
    CHECK(cache != NULL);
    if (!cache) return;
    unsigned flags = RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_JIT_MPROTECT;
    static const uint8_t in[] = "fault injection input";
    uint8_t want[32], got[32];
    rx_vm *ref = NULL;
    CHECK(rx_vm_new(&ref, RX_FLAG_V2, cache, NULL) == 0);
    if (!ref) return;
    CHECK(rx_vm_hash(ref, in, sizeof in, want) == 0);
    rx_vm_free(ref);

    /* count the permission changes of one hash */
    rx_vm *vm = NULL;
    CHECK(rx_vm_new(&vm, flags, cache, NULL) == 0);
    if (!vm) return;
    CHECK((rx_vm_flags(vm) & RX_FLAG_JIT) != 0);
    calls = 0; fail_at = -1;
    rx_execmem_fault_hook = fault_hook;
    /* the first light-mode hash also builds the superscalar JIT (mmap + seal) */
    CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);
    CHECK_MEM(got, want, 32);
    CHECK(calls == 2 * (int)RX_PROGRAM_COUNT + 2);
    calls = 0;
    CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);
    CHECK_MEM(got, want, 32);
    int per_hash = calls;
    CHECK(per_hash == 2 * (int)RX_PROGRAM_COUNT);   /* one open + one seal per program */
    int execs;
    CHECK(maps_ok(&execs));
    /* fail each call site of a hash in turn: an error, never a digest */
    int failures = 0, zeros = 0, recovered = 0;
    for (int k = 1; k <= per_hash; k++) {
        calls = 0; fail_at = k; fail_site_seen = 0;
        memset(got, 0xAA, sizeof got);
        int rc = rx_vm_hash(vm, in, sizeof in, got);
        if (rc == RX_EPROT && fail_site_seen != 0) failures++;
        static const uint8_t z[32];
        if (memcmp(got, z, 32) == 0) zeros++;
        CHECK(maps_ok(&execs));
        calls = 0; fail_at = -1;
        if (rx_vm_hash(vm, in, sizeof in, got) == 0 && memcmp(got, want, 32) == 0) recovered++;
    }
    CHECK(failures == per_hash);
    CHECK(zeros == per_hash);
    CHECK(recovered == per_hash);
    /* free: writable, wiped, unmapped (program code + superscalar code) */
    free_seen = wiped_ok = 0;
    rx_execmem_free_hook = free_hook;
    rx_vm_free(vm);
    CHECK(free_seen == 2 && wiped_ok == 2);
    /* a fresh VM: the superscalar JIT's mmap, then its seal, fails -> error, no digest */
    for (int k = 1; k <= 2; k++) {
        vm = NULL;
        calls = 0; fail_at = -1;
        CHECK(rx_vm_new(&vm, flags, cache, NULL) == 0);
        if (!vm) break;
        /* calls of the first hash: open, seal (program 1), ss mmap, ss seal */
        calls = 0; fail_at = 2 + k;
        memset(got, 0xAA, sizeof got);
        int rc = rx_vm_hash(vm, in, sizeof in, got);
        CHECK(rc == (k == 1 ? RX_ENOMEM : RX_EPROT));
        CHECK(fail_site_seen == (k == 1 ? RX_EXECMEM_SITE_MMAP : RX_EXECMEM_SITE_SEAL));
        static const uint8_t z[32];
        CHECK_MEM(got, z, 32);
        calls = 0; fail_at = -1;
        CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);
        CHECK_MEM(got, want, 32);
        rx_vm_free(vm);
    }

    /* rx_jit_new: mmap failure and seal failure are reported */
    rx_jit *j = NULL;
    calls = 0; fail_at = 1;
    CHECK(rx_jit_new(&j, flags) == RX_ENOMEM && j == NULL);
    calls = 0; fail_at = 2;
    CHECK(rx_jit_new(&j, flags) == RX_EPROT && j == NULL);
    /* a JIT asked for without RX_FLAG_JIT_FALLBACK that cannot be set up is
     * an error; with it the VM runs the interpreter (still correct) and says why */
    calls = 0; fail_at = 2;
    vm = NULL;
    CHECK(rx_vm_new(&vm, flags, cache, NULL) == RX_EJIT && vm == NULL);
    calls = 0; fail_at = 2;
    CHECK(rx_vm_new(&vm, flags | RX_FLAG_JIT_FALLBACK, cache, NULL) == 0);
    if (vm) {
        CHECK((rx_vm_flags(vm) & RX_FLAG_JIT) == 0);
        CHECK(rx_vm_fallback_reason(vm) != NULL && strstr(rx_vm_fallback_reason(vm), "mprotect") != NULL);
        calls = 0; fail_at = -1;
        CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);
        CHECK_MEM(got, want, 32);
        rx_vm_free(vm);
    }
    /* direct API: a failed compile leaves nothing runnable */
    calls = 0; fail_at = -1;
    CHECK(rx_jit_new(&j, flags) == 0);
    if (j) {
        struct rx_vm_state *st = state_new();
        struct rx_program *prog = malloc(sizeof *prog);
        uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_SIZE_V2)];
        if (st && prog) {
            rng_s = 7; rng_fill(bytes, sizeof bytes);
            rx_program_parse(prog, bytes, RX_PROGRAM_SIZE_V2);
            rx_vm_state_configure(st, prog);
            st->version = 2; st->program_size = RX_PROGRAM_SIZE_V2;
            st->iterations = 4; st->cache = cache;
            CHECK(rx_jit_run(j, st) == RX_ESTATE);            /* nothing compiled yet */
            calls = 0; fail_at = 1;
            CHECK(rx_jit_compile(j, prog, st) == RX_EPROT);    /* open fails */
            CHECK(rx_jit_run(j, st) == RX_ESTATE);
            calls = 0; fail_at = 2;
            CHECK(rx_jit_compile(j, prog, st) == RX_EPROT);    /* seal fails */
            CHECK(maps_ok(&execs));
            CHECK(rx_jit_run(j, st) == RX_ESTATE);
            calls = 0; fail_at = -1;
            CHECK(rx_jit_compile(j, prog, st) == 0);
            CHECK(rx_jit_run(j, st) == 0);
        }
        state_free(st); free(prog);
        rx_jit_free(j);
    }
    rx_execmem_fault_hook = NULL;
    rx_execmem_free_hook = NULL;
}

/* ---- SuperscalarHash JIT ---------------------------------------------- */
struct ss_ctx { rx_cache *cache; rx_jit_ss *code; int rows, bad; };
static int ss_vec_cb(char **f, int nf, void *vctx) {
    struct ss_ctx *c = vctx;
    if (nf < 3) return 0;
    uint8_t key[64], want[64], got[64];
    long kl = test_unhex(f[0], key, sizeof key);
    if (kl < 0 || test_unhex(f[2], want, sizeof want) != 64) { c->bad++; return 0; }
    if (!c->cache) {
        if (rx_cache_new(&c->cache, 0) != 0 || rx_cache_init(c->cache, key, (size_t)kl) != 0) { c->bad++; return 1; }
        if (rx_jit_ss_new(&c->code, c->cache->prog) != 0) { c->bad++; return 1; }
    }
    uint64_t item = strtoull(f[1], NULL, 10);
    c->rows++;
    if (rx_jit_dataset_items(c->code, c->cache->memory, item, 1, got) != 0 || memcmp(got, want, 64) != 0) c->bad++;
    return 0;
}

/* The install without flips (the /proc/self/mem writer): the JIT says
 * which install it uses; with the writer a hash makes no mprotect call (one
 * write per program); a refused write falls back to flips for good, with
 * the right digest; with RXLOCK_TEST_PROCMEM_REFUSE=1 (or a system that
 * refuses the writes) the JIT flips from the start. */
static int refuse_writer_open(int site) { return site == RX_EXECMEM_SITE_WOPEN; }
static void t_writer(void) {
    rx_cache *cache = cache_get();
    CHECK(cache != NULL);
    if (!cache) return;
    unsigned flags = RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_SECURE;
    static const uint8_t in[] = "writer input";
    uint8_t want[32], got[32];
    rx_vm *vm = NULL;
    CHECK(rx_vm_new(&vm, RX_FLAG_V2, cache, NULL) == 0);
    if (!vm) return;
    CHECK(rx_vm_jit_install(vm) == NULL);                 /* the interpreter */
    CHECK(rx_vm_hash(vm, in, sizeof in, want) == 0);
    rx_vm_free(vm);
    vm = NULL;
    CHECK(rx_vm_new(&vm, flags | RX_FLAG_JIT_MPROTECT, cache, NULL) == 0);
    if (vm) CHECK(rx_vm_jit_install(vm) && strcmp(rx_vm_jit_install(vm), "mprotect") == 0);
    rx_vm_free(vm);
    vm = NULL;
    CHECK(rx_vm_new(&vm, flags, cache, NULL) == 0);
    if (!vm) return;
    const char *how = rx_vm_jit_install(vm);
    CHECK(how != NULL);
    const char *refuse = getenv("RXLOCK_TEST_PROCMEM_REFUSE");
    int refused = refuse && *refuse && strcmp(refuse, "0") != 0;
    printf("  install: %s%s\n", how ? how : "?", refused ? " (RXLOCK_TEST_PROCMEM_REFUSE)" : "");
    if (refused) CHECK(how && strcmp(how, "mprotect") == 0);
    CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);       /* builds the superscalar JIT too */
    CHECK_MEM(got, want, 32);
    int execs;
    CHECK(maps_ok(&execs));
    if (how && strcmp(how, "proc-mem") == 0) {
        /* one writer write per program, no page-permission change */
        calls = 0; fail_at = -1; fail_site_seen = 0;
        int sites_write = 0;
        rx_execmem_fault_hook = fault_hook;
        CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);
        CHECK_MEM(got, want, 32);
        sites_write = calls;
        CHECK(sites_write == (int)RX_PROGRAM_COUNT);
        /* the 3rd write refused: that program and every later one flip */
        calls = 0; fail_at = 3;
        CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);
        CHECK_MEM(got, want, 32);
        CHECK(fail_site_seen == RX_EXECMEM_SITE_WRITE);
        CHECK(strcmp(rx_vm_jit_install(vm), "mprotect") == 0);
        calls = 0; fail_at = -1;
        CHECK(rx_vm_hash(vm, in, sizeof in, got) == 0);
        CHECK_MEM(got, want, 32);
        CHECK(calls == 2 * (int)RX_PROGRAM_COUNT);        /* one open + one seal per program */
        CHECK(maps_ok(&execs));
        rx_execmem_fault_hook = NULL;
        /* the writer's open refused: flips from the start */
        rx_vm *v2 = NULL;
        rx_execmem_fault_hook = refuse_writer_open;
        int rc = rx_vm_new(&v2, flags, cache, NULL);
        rx_execmem_fault_hook = NULL;
        CHECK(rc == 0);
        if (v2) {
            CHECK(strcmp(rx_vm_jit_install(v2), "mprotect") == 0);
            CHECK(rx_vm_hash(v2, in, sizeof in, got) == 0);
            CHECK_MEM(got, want, 32);
            rx_vm_free(v2);
        }
    }
    rx_vm_free(vm);
}

static void t_superscalar_jit(void) {
    /* official-derived dataset items (key "test key 000") */
    struct ss_ctx c = { 0 };
    CHECK(test_tsv_each("randomx-dataset-items.tsv", ss_vec_cb, &c) == 64);
    CHECK(c.rows == 64 && c.bad == 0);
    rx_jit_ss_free(c.code);
    rx_cache_free(c.cache);
    /* against the C rx_cache_item: a consecutive run and random items */
    rx_cache *cache = cache_get();
    CHECK(cache != NULL);
    if (!cache) return;
    rx_jit_ss *code = NULL;
    CHECK(rx_jit_ss_new(&code, cache->prog) == 0);
    if (!code) return;
    int n = test_quick() ? 200 : 3000, bad = 0;
    uint8_t *out = malloc((size_t)n * 64);
    uint64_t first = 1000000;
    CHECK(out && rx_jit_dataset_items(code, cache->memory, first, (uint64_t)n, out) == 0);
    for (int i = 0; out && i < n; i++) {
        uint64_t w[8];
        rx_cache_item(cache, first + (uint64_t)i, w);
        if (memcmp(w, out + 64 * i, 64) != 0) bad++;
    }
    rng_s = 99;
    for (int i = 0; i < n; i++) {
        uint64_t item = rng() % RX_DATASET_ITEMS, w[8];
        uint8_t one[64];
        rx_cache_item(cache, item, w);
        if (rx_jit_dataset_items(code, cache->memory, item, 1, one) != 0 || memcmp(w, one, 64) != 0) bad++;
    }
    CHECK(bad == 0);
    uint8_t one[64];
    CHECK(rx_jit_dataset_items(code, cache->memory, RX_DATASET_ITEMS - 1, 1, one) == 0);
    CHECK(rx_jit_dataset_items(code, cache->memory, RX_DATASET_ITEMS, 1, one) == RX_EINVAL);
    CHECK(rx_jit_dataset_items(code, cache->memory, 5, 0, one) == 0);
    int execs;
    CHECK(maps_ok(&execs));
    free(out);
    rx_jit_ss_free(code);
}

static void t_engine_env(void) {
    setenv("RXLOCK_ENGINE", "interp", 1);
    CHECK((rx_flags_from_env(rx_flags_default()) & RX_FLAG_JIT) == 0);
    setenv("RXLOCK_ENGINE", "jit", 1);
    CHECK((rx_flags_from_env(0) & RX_FLAG_JIT) != 0);
    unsetenv("RXLOCK_ENGINE");
    CHECK(rx_jit_supported() == 1);
    CHECK((rx_flags_default() & RX_FLAG_JIT) != 0);
}
#endif /* __x86_64__ */

int main(void) {
#if defined(__x86_64__)
    RUN(t_emit_alu);
    RUN(t_emit_mem);
    RUN(t_engine_env);
    RUN(t_wx_and_faults);
    RUN(t_writer);
    RUN(t_diff_programs);
    RUN(t_diff_hashes);
    RUN(t_superscalar_jit);
    rx_cache_free(g_cache);
    if (g_fake_ds) munmap(g_fake_ds, g_fake_len);
#endif
    return test_summary();
}
