/* SPDX-License-Identifier: ISC */
/* tests/test_rx_jit_a64.c — the AArch64 JIT (jit_aarch64.c, a64_emit.h):
 *  - emitter encodings against words checked with aarch64 objdump (any host);
 *  - JIT-vs-interpreter differential test over random programs, v1 and v2,
 *    hard and soft AES: full mode on a mirrored stand-in dataset (a 4 MiB
 *    random memfd mapped over the whole 2080 MiB range, so no dataset
 *    build is needed), and light mode on a real cache, random initial fprc;
 *    registers, ma/mx, fprc and the whole scratchpad must match bit for bit;
 *  - official whole-hash vectors (randomx-v1/v2.tsv, both keys) through rx_vm
 *    with the JIT, hard and soft AES;
 *  - W^X (no mapping writable and executable), injected mprotect failures at
 *    compile (returned, JIT refuses to run, next compile works), wipe on free;
 *  - the code buffer's layout in /proc/self/maps: entry page RX, guard page,
 *    program pages RX in a mapping of their own, guard; recompiling flips
 *    that same mapping; never rwx.  Injected failures at the program
 *    mapping's open and seal (first program or mid-hash) fail rx_vm_hash
 *    with zeroed output, and the JIT's creation fails on a failed guard.
 * The JIT parts run wherever rx_jit_supported() (the x86-64 JIT gets the
 * same differential test, with fewer programs); the emitter part everywhere.
 *  - the backends' shared helpers (jit_common.c): AES choice, argument
 *    checks, register copies, the per-JIT phase profile.
 * RXLOCK_TEST_QUICK=1 (sanitizers, qemu) shrinks the light-mode part. */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/a64_emit.h"
#include "rx/aes.h"
#include "rx/cpu.h"
#include "rx/execmem.h"
#include "rx/internal.h"
#include "rx/jit.h"
#include "rx/program.h"
#include "rx/vm_interp.h"
#include "rx/vm_state.h"
#include <fenv.h>
#include <sodium.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- emitter encodings (words from aarch64-linux-gnu-objdump) ---------- */
static void t_emit_encodings(void) {
    static uint8_t buf[1024];
    ae_buf b;
    ae_init(&b, buf, sizeof buf);
    static const uint32_t want[] = {
        0x8b140e73, 0x0b0b0149, 0xcb090273, 0xcb1403e9, 0xca0a0273, 0xaa0a596b, 0x4a09014a, 0xaa0003fc,
        0x9b097e73, 0x9bd47e73, 0x9b547e73, 0x9ad42e73, 0x93d33673, 0xd360fd29, 0x531e7d4a, 0x5ac0012a,
        0x112af269, 0x1147fd29, 0x910003fd, 0x71000529, 0x121d2929, 0x121d3929, 0x121d4529, 0x121a3929,
        0x121a6129, 0xf2781e7f, 0xf2691e7f, 0xf27e0d3f,
        0xd29bde09, 0xf2b35789, 0xf2cacf09, 0xf2e24689, 0x929fffc9, 0xf2b00009, 0xd2800009, 0x92800009,
        0x529fff09, 0x72a003e9,
        0xf9419389, 0xf9000b89, 0xb9410389, 0xb901079f, 0x3dc04f8e, 0x3d800781, 0xf8696b6a, 0xf8296b74,
        0xfc696b6f, 0xf8ab6983, 0xa9415393, 0xa9035393, 0x6d4105a0, 0x6d0627e8, 0xad420780, 0xad010d82,
        0xa9b67bfd, 0xa8ca7bfd, 0xd63f0200, 0xd65f03c0, 0xd53b4409, 0xd51b440b,
        0x4e68d400, 0x4ee9d421, 0x6e6adc84, 0x6e6ffca5, 0x6e2e1c00, 0x4e2c1def, 0x4ead1def, 0x6ee1f8c6,
        0x0f20a5ef, 0x4e61d9ef, 0x6e0540a5, 0x6f00e410, 0x4e284a00, 0x4e285881, 0x4e286800, 0x4e287821,
    };
    ae_add_rr(&b, 1, 19, 19, 20, 3); ae_add_rr(&b, 0, 9, 10, 11, 0); ae_sub_rr(&b, 1, 19, 19, 9);
    ae_neg(&b, 1, 9, 20); ae_log_rr(&b, 1, AE_EOR, 19, 19, 10, 0); ae_log_rr(&b, 1, AE_ORR, 11, 11, 10, 22);
    ae_log_rr(&b, 0, AE_EOR, 10, 10, 9, 0); ae_mov_rr(&b, 1, 28, 0);
    ae_mul(&b, 19, 19, 9); ae_umulh(&b, 19, 19, 20); ae_smulh(&b, 19, 19, 20); ae_rorv(&b, 19, 19, 20);
    ae_ror_i(&b, 19, 19, 13); ae_lsr_i(&b, 1, 9, 9, 32); ae_lsr_i(&b, 0, 10, 10, 30); ae_rbit32(&b, 10, 9);
    ae_add_i(&b, 0, 9, 19, 0xabc, 0); ae_add_i(&b, 0, 9, 9, 0x1ff, 1); ae_add_i(&b, 1, 29, AR_SP, 0, 0);
    ae_subs_i(&b, 0, 9, 9, 1);
    ae_log_i(&b, 0, AE_AND, 9, 9, 3, 11); ae_log_i(&b, 0, AE_AND, 9, 9, 3, 15); ae_log_i(&b, 0, AE_AND, 9, 9, 3, 18);
    ae_log_i(&b, 0, AE_AND, 9, 9, 6, 15); ae_log_i(&b, 0, AE_AND, 9, 9, 6, 25);
    ae_log_i(&b, 1, AE_ANDS, AR_ZR, 19, 8, 8); ae_log_i(&b, 1, AE_ANDS, AR_ZR, 19, 23, 8);
    ae_log_i(&b, 1, AE_ANDS, AR_ZR, 9, 2, 4);
    ae_mov_i64(&b, 9, 0x123456789abcdef0ull); ae_mov_i64(&b, 9, 0xffffffff80000001ull);
    ae_mov_i64(&b, 9, 0); ae_mov_i64(&b, 9, ~0ull); ae_mov_i32(&b, 9, 0x1ffff8);
    ae_ldr_x(&b, 9, 28, 800); ae_str_x(&b, 9, 28, 16); ae_ldr_w(&b, 9, 28, 256); ae_str_w(&b, AR_ZR, 28, 260);
    ae_ldr_q(&b, 14, 28, 304); ae_str_q(&b, 1, 28, 16); ae_ldr_x_rr(&b, 10, 27, 9); ae_str_x_rr(&b, 20, 27, 9);
    ae_ldr_d_rr(&b, 15, 27, 9); ae_prfm_rr(&b, AE_PLDL2STRM, 12, 11);
    ae_ldp_x(&b, 19, 20, 28, 16); ae_stp_x(&b, 19, 20, 28, 48); ae_ldp_d(&b, 0, 1, 13, 16);
    ae_stp_d(&b, 8, 9, AR_SP, 96); ae_ldp_q(&b, 0, 1, 28, 64); ae_stp_q(&b, 2, 3, 12, 32);
    ae_ldstp(&b, 0, 0, 1, 29, 30, AR_SP, -160); ae_ldstp(&b, 1, 0, 2, 29, 30, AR_SP, 160);
    ae_blr(&b, 16); ae_ret(&b); ae_mrs_fpcr(&b, 9); ae_msr_fpcr(&b, 11);
    ae_v3(&b, AE_FADD2D, 0, 0, 8); ae_v3(&b, AE_FSUB2D, 1, 1, 9); ae_v3(&b, AE_FMUL2D, 4, 4, 10);
    ae_v3(&b, AE_FDIV2D, 5, 5, 15); ae_v3(&b, AE_EOR16B, 0, 0, 14); ae_v3(&b, AE_AND16B, 15, 15, 12);
    ae_v3(&b, AE_ORR16B, 15, 15, 13); ae_fsqrt2d(&b, 6, 6); ae_sxtl2d(&b, 15, 15); ae_scvtf2d(&b, 15, 15);
    ae_ext16b(&b, 5, 5, 5, 8); ae_movi_zero(&b, 16); ae_aese(&b, 0, 16); ae_aesd(&b, 1, 4);
    ae_aesmc(&b, 0, 0); ae_aesimc(&b, 1, 1);
    CHECK(ae_ok(&b));
    CHECK(b.len == sizeof want);
    for (size_t i = 0; i < sizeof want / 4 && i * 4 < b.len; i++) {
        uint32_t w = (uint32_t)buf[4 * i] | (uint32_t)buf[4 * i + 1] << 8 |
                     (uint32_t)buf[4 * i + 2] << 16 | (uint32_t)buf[4 * i + 3] << 24;
        if (w != want[i]) { fprintf(stderr, "word %zu: %08x want %08x\n", i, w, want[i]); CHECK(w == want[i]); }
    }
    /* branches: backward B / B.cond, forward patched B.cond */
    ae_init(&b, buf, sizeof buf);
    ae_word(&b, 0xd503201f);                 /* nop */
    ae_b_to(&b, 0); ae_bcond_to(&b, AE_NE, 0);
    size_t at = ae_bcond_fwd(&b, AE_NE);
    ae_word(&b, 0xd503201f);
    ae_patch_bcond(&b, at);
    uint32_t got[4];
    for (int i = 0; i < 4; i++) got[i] = (uint32_t)buf[4 + 4 * i] | (uint32_t)buf[5 + 4 * i] << 8 |
                                          (uint32_t)buf[6 + 4 * i] << 16 | (uint32_t)buf[7 + 4 * i] << 24;
    CHECK(ae_ok(&b));
    CHECK(got[0] == 0x17ffffff);   /* b   -4   */
    CHECK(got[1] == 0x54ffffc1);   /* b.ne -8  */
    CHECK(got[2] == 0x54000041);   /* b.ne +8  */
    /* sticky errors: bad immediates, out-of-range offsets, full buffer */
    ae_init(&b, buf, sizeof buf); ae_add_i(&b, 1, 0, 0, 0x1000, 0); CHECK(!ae_ok(&b));
    ae_init(&b, buf, sizeof buf); ae_ldr_x(&b, 0, 0, 12); CHECK(!ae_ok(&b));
    ae_init(&b, buf, sizeof buf); ae_ldp_q(&b, 0, 1, 0, 1024); CHECK(!ae_ok(&b));
    ae_init(&b, buf, sizeof buf); ae_log_i(&b, 0, AE_AND, 0, 0, 30, 4); CHECK(!ae_ok(&b));
    ae_init(&b, buf, 6); ae_ret(&b); ae_ret(&b); CHECK(!ae_ok(&b)); CHECK(b.len == 4);
    unsigned lsb = 0, ones = 0;
    CHECK(ae_mask_run(0x1FFFC0, &lsb, &ones) && lsb == 6 && ones == 15);
    CHECK(!ae_mask_run(0x5, &lsb, &ones));
}

/* ---- differential test ------------------------------------------------- */
static uint64_t g_rng = 0x243f6a8885a308d3ull;
static uint64_t rnd(void) { return test_rng(&g_rng); }
static void rnd_bytes(uint8_t *p, size_t n) { test_rng_fill(&g_rng, p, n); }

#define DS_CHUNK ((size_t)4 << 20)
#define DS_SPAN  ((size_t)RX_DATASET_BASE_SIZE + ((size_t)32 << 20) + DS_CHUNK)
static uint8_t *g_ds;          /* mirrored stand-in dataset (full mode) */
static rx_cache *g_cache;      /* "test key 000" cache (light mode)     */
static uint8_t *g_spA, *g_spB;

static uint8_t *map_fake_dataset(void) {
    int fd = memfd_create("rx-fake-dataset", 0);
    if (fd < 0) return NULL;
    uint8_t *chunk = malloc(DS_CHUNK);
    int ok = chunk && ftruncate(fd, (off_t)DS_CHUNK) == 0;
    if (ok) { rnd_bytes(chunk, DS_CHUNK); ok = write(fd, chunk, DS_CHUNK) == (ssize_t)DS_CHUNK; }
    free(chunk);
    void *base = ok ? mmap(NULL, DS_SPAN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : MAP_FAILED;
    if (base == MAP_FAILED) { close(fd); return NULL; }
    for (size_t off = 0; off < DS_SPAN; off += DS_CHUNK) {
        void *p = mmap((uint8_t *)base + off, DS_CHUNK, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
        if (p == MAP_FAILED) { munmap(base, DS_SPAN); close(fd); return NULL; }
    }
    close(fd);
    return base;
}

struct diff_cfg { int v2, soft, full; unsigned programs, iterations; };

/* one program on both engines from the same start; returns 1 when equal */
static int diff_one(rx_jit *jit, const struct diff_cfg *cfg, const struct rx_aes_ops *aes,
                    struct rx_program *prog, struct rx_decoded *dec, unsigned idx) {
    static uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_MAX_SIZE)];
    uint32_t count = cfg->v2 ? RX_PROGRAM_SIZE_V2 : RX_PROGRAM_SIZE_V1;
    rnd_bytes(bytes, RX_PROGRAM_BYTES(count));
    rx_program_parse(prog, bytes, count);
    struct rx_vm_state A, B;
    memset(&A, 0, sizeof A);
    rx_vm_state_configure(&A, prog);
    A.fprc = (uint32_t)(rnd() & 3u);
    A.version = cfg->v2 ? 2u : 1u;
    A.program_size = count;
    A.iterations = cfg->iterations;
    A.dataset = cfg->full ? g_ds : NULL;
    A.cache = cfg->full ? NULL : g_cache;
    B = A;
    A.scratchpad = g_spA;
    B.scratchpad = g_spB;
    fenv_t env;
    (void)fegetenv(&env);
    int round0 = fegetround();
    rx_interp_decode(dec, prog, A.version);
    rx_interp_run(&A, dec, aes);
    __asm__ volatile("" : : : "memory");
    (void)fesetenv(&env);
    static const int caller_modes[4] = { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO };
    (void)fesetround(caller_modes[idx & 3u]);
    round0 = fegetround();
    int rc = rx_jit_compile(jit, prog, &B);
    if (rc == 0) rc = rx_jit_run(jit, &B);
    /* the JIT restores the caller's rounding mode (status flags may differ) */
    int same_env = fegetround() == round0;
    (void)fesetenv(&env);
    int ok = rc == 0 && same_env && !memcmp(A.r, B.r, sizeof A.r) && !memcmp(A.f, B.f, sizeof A.f) &&
             !memcmp(A.e, B.e, sizeof A.e) && A.ma == B.ma && A.mx == B.mx && A.fprc == B.fprc &&
             !memcmp(g_spA, g_spB, RX_SCRATCHPAD_L3);
    if (!ok) {
        fprintf(stderr, "diff: v%d %s %s program %u: rc %d rounding %d r %d f %d e %d ma %d mx %d fprc %u/%u sp %d\n",
                cfg->v2 ? 2 : 1, cfg->soft ? "soft" : "hard", cfg->full ? "full" : "light", idx, rc, same_env,
                !memcmp(A.r, B.r, sizeof A.r), !memcmp(A.f, B.f, sizeof A.f), !memcmp(A.e, B.e, sizeof A.e),
                A.ma == B.ma, A.mx == B.mx, A.fprc, B.fprc, !memcmp(g_spA, g_spB, RX_SCRATCHPAD_L3));
        memcpy(g_spB, g_spA, RX_SCRATCHPAD_L3);   /* resync for the next program */
    }
    return ok;
}

static int run_diff(const struct diff_cfg *cfg) {
    const struct rx_aes_ops *aes = cfg->soft ? rx_aes_soft_ops() : rx_aes_hw_ops();
    if (!aes) return 0;
    unsigned flags = (cfg->v2 ? RX_FLAG_V2 : 0u) | (cfg->full ? RX_FLAG_FULL : 0u) |
                     (cfg->soft ? RX_FLAG_SOFT_AES : RX_FLAG_HARD_AES) | RX_FLAG_JIT | RX_FLAG_SECURE;
    rx_jit *jit = NULL;
    int rc = rx_jit_new(&jit, flags);
    CHECK(rc == 0 && jit);
    if (rc || !jit) return 0;
    struct rx_program *prog = malloc(sizeof *prog);
    struct rx_decoded *dec = malloc(sizeof *dec);
    CHECK(prog && dec);
    unsigned good = 0;
    for (unsigned i = 0; prog && dec && i < cfg->programs; i++) good += (unsigned)diff_one(jit, cfg, aes, prog, dec, i);
    CHECK(good == cfg->programs);
    printf("differential v%d %s-aes %s, %u iterations: %u/%u programs identical\n", cfg->v2 ? 2 : 1,
           cfg->soft ? "soft" : "hard", cfg->full ? "full" : "light", cfg->iterations, good, cfg->programs);
    free(prog); free(dec);
    rx_jit_free(jit);
    return (int)cfg->programs;
}

/* the harness itself sees a difference: one flipped scratchpad byte */
static void t_differential_detects(void) {
    if (!rx_jit_supported() || !g_ds) return;
    rx_jit *jit = NULL;
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_FULL | RX_FLAG_SOFT_AES) == 0 && jit);
    struct rx_program *prog = malloc(sizeof *prog);
    struct rx_decoded *dec = malloc(sizeof *dec);
    if (jit && prog && dec) {
        struct diff_cfg c = { 1, 1, 1, 1, 1 };
        g_spB[rnd() % RX_SCRATCHPAD_L3] ^= 0x20;
        fprintf(stderr, "(one mismatch expected next)\n");
        CHECK(diff_one(jit, &c, rx_aes_soft_ops(), prog, dec, 0) == 0);
        CHECK(memcmp(g_spA, g_spB, RX_SCRATCHPAD_L3) == 0);   /* resynced */
        CHECK(diff_one(jit, &c, rx_aes_soft_ops(), prog, dec, 1) == 1);
    }
    free(prog); free(dec);
    rx_jit_free(jit);
}

static int jit_native(void) {
#if defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

static void t_differential_full(void) {
    if (!rx_jit_supported()) return;
    if (!g_ds) g_ds = map_fake_dataset();
    CHECK(g_ds != NULL);
    if (!g_ds) return;
    /* aarch64: 4 x 600 = 2400 programs at 64 iterations + 4 x 8 at 2048;
     * elsewhere (the x86-64 JIT) a tenth of that */
    unsigned n = jit_native() ? 600u : 60u, nlong = jit_native() ? 8u : 2u;
    int total = 0;
    for (int v2 = 0; v2 < 2; v2++)
        for (int soft = 0; soft < 2; soft++) {
            if (!soft && !rx_aes_hw_ops()) { printf("differential: no hardware AES here, hard-AES part skipped\n"); continue; }
            struct diff_cfg c = { v2, soft, 1, n, 64 };
            total += run_diff(&c);
            struct diff_cfg l = { v2, soft, 1, nlong, RX_PROGRAM_ITERATIONS };
            total += run_diff(&l);
        }
    printf("differential full mode: %d random programs\n", total);
}

static rx_cache *get_cache(void) {
    if (g_cache) return g_cache;
    rx_cache *c = NULL;
    if (rx_cache_new(&c, 0) != 0) return NULL;
    static const char key[] = "test key 000";
    if (rx_cache_init(c, key, sizeof key - 1) != 0) { rx_cache_free(c); return NULL; }
    g_cache = c;
    return c;
}

static void t_differential_light(void) {
    if (!rx_jit_supported()) return;
    CHECK(get_cache() != NULL);
    if (!g_cache) return;
    unsigned n = test_quick() ? 4u : 25u;
    for (int v2 = 0; v2 < 2; v2++)
        for (int soft = 0; soft < 2; soft++) {
            if (!soft && !rx_aes_hw_ops()) continue;
            struct diff_cfg c = { v2, soft, 0, n, 32 };
            run_diff(&c);
            struct diff_cfg l = { v2, soft, 0, 1, RX_PROGRAM_ITERATIONS };
            run_diff(&l);
        }
}

/* ---- whole-hash vectors through rx_vm with the JIT --------------------- */
/* the vector files use two keys; one cache each, built once */
static struct { uint8_t key[32]; size_t len; rx_cache *cache; } g_kc[2];
static rx_cache *cache_for(const uint8_t *key, size_t len) {
    if (len == 12 && !memcmp(key, "test key 000", 12)) return get_cache();
    for (int i = 0; i < 2; i++)
        if (g_kc[i].cache && g_kc[i].len == len && !memcmp(g_kc[i].key, key, len)) return g_kc[i].cache;
    for (int i = 0; i < 2; i++) {
        if (g_kc[i].cache || len > sizeof g_kc[i].key) continue;
        if (rx_cache_new(&g_kc[i].cache, 0) != 0) return NULL;
        if (rx_cache_init(g_kc[i].cache, key, len) != 0) { rx_cache_free(g_kc[i].cache); g_kc[i].cache = NULL; return NULL; }
        memcpy(g_kc[i].key, key, len);
        g_kc[i].len = len;
        return g_kc[i].cache;
    }
    return NULL;
}

struct vec_ctx { unsigned flags; int limit, rows, bad; };
static int vec_row(char **f, int nf, void *vp) {
    struct vec_ctx *v = vp;
    if (nf < 3) { v->bad++; return 0; }
    uint8_t key[256], in[1024], want[32], got[32];
    long kl = test_unhex(f[0], key, sizeof key), il = test_unhex(f[1], in, sizeof in);
    if (kl < 0 || il < 0 || test_unhex(f[2], want, sizeof want) != 32) { v->bad++; return 0; }
    rx_cache *cache = cache_for(key, (size_t)kl);
    if (!cache) { v->bad++; return 0; }
    rx_vm *vm = NULL;
    int rc = rx_vm_new(&vm, v->flags, cache, NULL);
    if (rc || !vm || !(rx_vm_flags(vm) & RX_FLAG_JIT)) { v->bad++; rx_vm_free(vm); return 0; }
    rc = rx_vm_hash(vm, in, (size_t)il, got);
    if (rc || memcmp(got, want, 32)) {
        fprintf(stderr, "vector row %d flags %#x: rc %d\n", v->rows, v->flags, rc);
        test_dump_("  got ", got, 32); test_dump_("  want", want, 32);
        v->bad++;
    }
    rx_vm_free(vm);
    v->rows++;
    return v->limit && v->rows >= v->limit;
}

static void t_vectors_jit(void) {
    if (!rx_jit_supported()) return;
    CHECK(get_cache() != NULL);
    if (!g_cache) return;
    for (int soft = 0; soft < 2; soft++) {
        if (!soft && !rx_aes_hw_ops()) continue;
        for (int v2 = 0; v2 < 2; v2++) {
            /* quick mode: every row with hardware AES, the first two with soft AES */
            int limit = test_quick() && soft ? 2 : 0;
            struct vec_ctx v = { (v2 ? RX_FLAG_V2 : 0u) | RX_FLAG_JIT | RX_FLAG_SECURE |
                                 (soft ? RX_FLAG_SOFT_AES : RX_FLAG_HARD_AES), limit, 0, 0 };
            long rows = test_tsv_each(v2 ? "randomx-v2.tsv" : "randomx-v1.tsv", vec_row, &v);
            CHECK(rows > 0);
            CHECK(v.rows == (limit ? limit : 5));
            CHECK(v.bad == 0);
            printf("vectors %s %s-aes (JIT): %d hashes, %d bad\n", v2 ? "randomx-v2.tsv" : "randomx-v1.tsv",
                   soft ? "soft" : "hard", v.rows, v.bad);
        }
    }
}

/* ---- W^X, injected faults, wipe --------------------------------------- */
static int maps_wx(void) {   /* 1 when some mapping is writable and executable */
    FILE *fp = fopen("/proc/self/maps", "r");
    if (!fp) return -1;
    char line[512];
    int bad = 0, execs = 0;
    while (fgets(line, sizeof line, fp)) {
        char perm[8] = {0};
        if (sscanf(line, "%*s %7s", perm) != 1) continue;
        if (perm[2] == 'x') execs++;
        if (perm[1] == 'w' && perm[2] == 'x') bad = 1;
    }
    fclose(fp);
    return execs ? bad : -1;   /* -1: the map shows no executable page at all */
}

static int g_fail_site;
static int fault_hook(int site) { return site == g_fail_site; }
static int g_wiped;
static void free_hook(const uint8_t *base, size_t size) {
    int z = 1;
    for (size_t i = 0; i < size; i++) if (base[i]) { z = 0; break; }
    g_wiped = z;
}

static void t_wx_faults_wipe(void) {
    if (!rx_jit_supported()) return;
    if (!g_ds) g_ds = map_fake_dataset();
    CHECK(g_ds != NULL);
    if (!g_ds) return;
    rx_jit *jit = NULL;
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_FULL | RX_FLAG_SOFT_AES | RX_FLAG_JIT_MPROTECT) == 0 && jit);
    if (!jit) return;
    struct rx_program *prog = calloc(1, sizeof *prog);
    if (!prog) { rx_jit_free(jit); CHECK(prog != NULL); return; }
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_SIZE_V2)];
    rnd_bytes(bytes, sizeof bytes);
    rx_program_parse(prog, bytes, RX_PROGRAM_SIZE_V2);
    struct rx_vm_state st;
    memset(&st, 0, sizeof st);
    rx_vm_state_configure(&st, prog);
    st.version = 2; st.program_size = RX_PROGRAM_SIZE_V2; st.iterations = 4;
    st.scratchpad = g_spA; st.dataset = g_ds;
    CHECK(rx_jit_run(jit, &st) == RX_ESTATE);            /* nothing compiled yet */
    CHECK(maps_wx() == 0);
    CHECK(rx_jit_compile(jit, prog, &st) == 0);
    CHECK(maps_wx() == 0);
    CHECK(rx_jit_run(jit, &st) == 0);
    /* a failed reopen or seal is returned and the JIT refuses to run */
    int (*old)(int) = rx_execmem_fault_hook;
    rx_execmem_fault_hook = fault_hook;
    g_fail_site = RX_EXECMEM_SITE_OPEN;
    CHECK(rx_jit_compile(jit, prog, &st) == RX_EPROT);
    CHECK(rx_jit_run(jit, &st) == RX_ESTATE);
    g_fail_site = RX_EXECMEM_SITE_SEAL;
    CHECK(rx_jit_compile(jit, prog, &st) == RX_EPROT);
    CHECK(rx_jit_run(jit, &st) != 0);
    CHECK(maps_wx() == 0);
    g_fail_site = 0;
    rx_execmem_fault_hook = old;
    CHECK(rx_jit_compile(jit, prog, &st) == 0);           /* recovers */
    CHECK(rx_jit_run(jit, &st) == 0);
    CHECK(maps_wx() == 0);
    /* mode mismatches */
    st.version = 1;
    CHECK(rx_jit_compile(jit, prog, &st) == RX_EINVAL);
    st.version = 2; st.dataset = NULL;
    CHECK(rx_jit_run(jit, &st) == RX_ESTATE);
    /* wipe on free */
    void (*oldf)(const uint8_t *, size_t) = rx_execmem_free_hook;
    rx_execmem_free_hook = free_hook;
    g_wiped = 0;
    rx_jit_free(jit);
    rx_execmem_free_hook = oldf;
    CHECK(g_wiped == 1);
    rx_jit_free(NULL);
    /* a failed mmap at rx_jit_new */
    rx_execmem_fault_hook = fault_hook;
    g_fail_site = RX_EXECMEM_SITE_MMAP;
    jit = (rx_jit *)(uintptr_t)1;
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_SOFT_AES) == RX_ENOMEM && jit == NULL);
    g_fail_site = RX_EXECMEM_SITE_SEAL;
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_SOFT_AES) == RX_EPROT && jit == NULL);
    g_fail_site = 0;
    rx_execmem_fault_hook = old;
    free(prog);
    memcpy(g_spB, g_spA, RX_SCRATCHPAD_L3);   /* the differential tests start equal */
}

/* ---- the code buffer's layout (guard pages) --------------------------- */
struct map_ent { uintptr_t lo, hi; char perm[5]; int anon; };

static int read_maps(struct map_ent *m, int cap) {
    FILE *fp = fopen("/proc/self/maps", "r");
    if (!fp) return -1;
    char line[512];
    int n = 0;
    while (n < cap && fgets(line, sizeof line, fp)) {
        unsigned long lo, hi;
        char perm[5];
        int used = 0;
        if (sscanf(line, "%lx-%lx %4s %*s %*s %*s%n", &lo, &hi, perm, &used) != 3 || used <= 0) continue;
        const char *path = line + used;
        while (*path == ' ') path++;
        m[n].lo = lo; m[n].hi = hi;
        memcpy(m[n].perm, perm, 5);
        m[n].anon = *path == '\n' || *path == 0;
        n++;
    }
    fclose(fp);
    return n;
}

/* Anonymous, contiguous runs "r-xp | ---p (one page) | r-xp | ---p": a JIT
 * with a compiled program (entry page, guard, program mapping, unused
 * program pages + trailing guard).  Returns how many there are; the last
 * one's program mapping in [*prog_lo, *prog_hi).  *entry_only counts runs
 * "r-xp | ---p" whose no-access part spans the whole rest of a code buffer
 * that has no program yet (at least three pages). */
static int jit_layouts(uintptr_t *prog_lo, uintptr_t *prog_hi, int *entry_only) {
    static struct map_ent m[4096];
    int n = read_maps(m, 4096), found = 0;
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    if (entry_only) *entry_only = 0;
    for (int i = 0; i + 1 < n; i++) {
        struct map_ent *a = &m[i], *g = &m[i + 1];
        if (!a->anon || !g->anon || strcmp(a->perm, "r-xp") || strcmp(g->perm, "---p") || g->lo != a->hi) continue;
        if (entry_only && g->hi - g->lo >= 3 * pg) (*entry_only)++;
        if (i + 3 >= n || g->hi - g->lo != pg) continue;
        struct map_ent *p = &m[i + 2], *t = &m[i + 3];
        if (!p->anon || !t->anon || strcmp(p->perm, "r-xp") || strcmp(t->perm, "---p") ||
            p->lo != g->hi || t->lo != p->hi) continue;
        found++;
        if (prog_lo) *prog_lo = p->lo;
        if (prog_hi) *prog_hi = p->hi;
    }
    return found;
}

static int g_fail_nth, g_fail_count;
static int fault_hook_nth(int site) {   /* fail the g_fail_nth call at g_fail_site */
    return site == g_fail_site && ++g_fail_count == g_fail_nth;
}

static void t_guard_layout(void) {
    if (!rx_jit_supported()) return;
    if (!g_ds) g_ds = map_fake_dataset();
    CHECK(g_ds != NULL);
    if (!g_ds) return;
    int before_entry = 0;
    int before = jit_layouts(NULL, NULL, &before_entry);
    rx_jit *jit = NULL;
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_FULL | RX_FLAG_SOFT_AES | RX_FLAG_JIT_MPROTECT) == 0 && jit);
    if (!jit) return;
    int entry = 0;
    CHECK(jit_layouts(NULL, NULL, &entry) == before);   /* no program pages yet */
    CHECK(entry == before_entry + 1);                    /* entry RX, all the rest no access */
    CHECK(maps_wx() == 0);
    struct rx_program *prog = calloc(1, sizeof *prog);
    if (!prog) { rx_jit_free(jit); CHECK(prog != NULL); return; }
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_SIZE_V2)];
    struct rx_vm_state st;
    uintptr_t lo = 0, hi = 0, lo2 = 0, hi2 = 0;
    for (int k = 0; k < 3; k++) {
        rnd_bytes(bytes, sizeof bytes);
        rx_program_parse(prog, bytes, RX_PROGRAM_SIZE_V2);
        memset(&st, 0, sizeof st);
        rx_vm_state_configure(&st, prog);
        st.version = 2; st.program_size = RX_PROGRAM_SIZE_V2; st.iterations = 2;
        st.scratchpad = g_spA; st.dataset = g_ds;
        CHECK(rx_jit_compile(jit, prog, &st) == 0);
        CHECK(rx_jit_run(jit, &st) == 0);
        CHECK(jit_layouts(k ? &lo2 : &lo, k ? &hi2 : &hi, NULL) == before + 1);
        CHECK(maps_wx() == 0);
        /* the program pages are one mapping, the same one every compile
         * (it may only grow) */
        if (k) CHECK(lo2 == lo && hi2 >= hi);
        if (k) hi = hi2;
    }
    CHECK(lo != 0 && hi > lo);
    rx_jit_free(jit);
    CHECK(jit_layouts(NULL, NULL, NULL) == before);
    /* a failed guard (no-access mprotect) fails the JIT's creation */
    int (*old)(int) = rx_execmem_fault_hook;
    rx_execmem_fault_hook = fault_hook;
    g_fail_site = RX_EXECMEM_SITE_NONE;
    jit = (rx_jit *)(uintptr_t)1;
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_FULL | RX_FLAG_SOFT_AES) == RX_EPROT && jit == NULL);
    g_fail_site = 0;
    rx_execmem_fault_hook = old;
    CHECK(maps_wx() == 0);
    free(prog);
    memcpy(g_spB, g_spA, RX_SCRATCHPAD_L3);
}

/* Injected failures at the program mapping's open and seal, at the first
 * program and mid-hash: rx_vm_hash fails and leaves zeros; without them the
 * same VM gives the official vector. */
static void t_hash_faults(void) {
    if (!rx_jit_supported()) return;
    CHECK(get_cache() != NULL);
    if (!g_cache) return;
    static const uint8_t in[] = "This is a test";
    uint8_t want[32], out[32], zero[32] = {0};
    CHECK(test_unhex("22ec6b861b3eb23686b2efbad69513c967ecfce80983df66c9c5b4fbfb4cdb6f", want, 32) == 32);
    rx_vm *vm = NULL;
    CHECK(rx_vm_new(&vm, RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_SOFT_AES | RX_FLAG_JIT_MPROTECT,
                    g_cache, NULL) == 0 && vm);
    if (!vm) return;
    CHECK(rx_vm_flags(vm) & RX_FLAG_JIT);
    int (*old)(int) = rx_execmem_fault_hook;
    static const int sites[2] = { RX_EXECMEM_SITE_OPEN, RX_EXECMEM_SITE_SEAL };
    static const int nth[2] = { 1, 5 };   /* the first program's call; the fifth program's */
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < 2; k++) {
            memset(out, 0xAA, sizeof out);
            g_fail_site = sites[s]; g_fail_nth = nth[k]; g_fail_count = 0;
            rx_execmem_fault_hook = fault_hook_nth;
            int rc = rx_vm_hash(vm, in, sizeof in - 1, out);
            rx_execmem_fault_hook = old;
            CHECK(rc == RX_EPROT);
            CHECK(g_fail_count >= nth[k]);
            CHECK_MEM(out, zero, 32);
            CHECK(maps_wx() == 0);
            CHECK(rx_vm_hash(vm, in, sizeof in - 1, out) == 0);   /* recovers */
            CHECK_MEM(out, want, 32);
        }
    g_fail_site = 0;
    rx_vm_free(vm);
}

/* ---- the backends' shared helpers (jit_common.c) ------------------------ */
static void t_common(void) {
    int soft = -1;
    CHECK(rx_jit_choose_aes(RX_FLAG_SOFT_AES, &soft) == 0 && soft == 1);
    CHECK(rx_jit_choose_aes(RX_FLAG_SOFT_AES | RX_FLAG_HARD_AES, &soft) == RX_EINVAL);
    CHECK(rx_jit_choose_aes(0, NULL) == RX_EINVAL);
    soft = -1;
    CHECK(rx_jit_choose_aes(0, &soft) == 0 && soft == !rx_cpu_has_hw_aes());
    soft = -1;
    CHECK(rx_jit_choose_aes(RX_FLAG_HARD_AES, &soft) == (rx_cpu_has_hw_aes() ? 0 : RX_ENOTSUP));
    if (rx_cpu_has_hw_aes()) CHECK(soft == 0);
    /* argument checks */
    static struct rx_program prog;
    struct rx_vm_state st;
    memset(&st, 0, sizeof st);
    uint8_t sp[64];
    prog.count = RX_PROGRAM_SIZE_V2;
    st.version = 2;
    CHECK(rx_engine_check_compile(&prog, &st, 1) == 0);
    CHECK(rx_engine_check_compile(&prog, &st, 0) == RX_EINVAL);
    CHECK(rx_engine_check_compile(NULL, &st, 1) == RX_EINVAL);
    prog.count = RX_PROGRAM_SIZE_V1;
    CHECK(rx_engine_check_compile(&prog, &st, 1) == RX_EINVAL);
    CHECK(rx_engine_check_run(&st, 1, 1) == RX_EINVAL);            /* no scratchpad */
    st.scratchpad = sp;
    CHECK(rx_engine_check_run(&st, 1, 1) == RX_ESTATE);            /* no dataset */
    CHECK(rx_engine_check_run(&st, 1, 0) == RX_ESTATE);            /* no cache */
    st.dataset = sp;
    CHECK(rx_engine_check_run(&st, 1, 1) == 0);
    CHECK(rx_engine_check_run(&st, 0, 1) == RX_EINVAL);
    st.dataset_offset = 32;
    CHECK(rx_engine_check_run(&st, 1, 1) == RX_EINVAL);
    st.dataset_offset = RX_DATASET_EXTRA_SIZE + 64;
    CHECK(rx_engine_check_run(&st, 1, 1) == RX_EINVAL);
    /* register copies: r = 0 in, f/e/a/E mask in, r/f/e out */
    uint64_t r[8], f[8], e[8], a[8], em[2];
    for (int i = 0; i < 8; i++) { st.r[i] = rnd(); r[i] = rnd(); }
    rnd_bytes((uint8_t *)st.f, sizeof st.f + sizeof st.e + sizeof st.a);
    st.e_mask[0] = rnd(); st.e_mask[1] = rnd();
    rx_jit_regs_in(&st, r, f, e, a, em);
    uint64_t zero[8] = {0};
    CHECK(!memcmp(r, zero, sizeof r) && !memcmp(f, st.f, sizeof f) && !memcmp(e, st.e, sizeof e) &&
          !memcmp(a, st.a, sizeof a) && em[0] == st.e_mask[0] && em[1] == st.e_mask[1]);
    struct rx_vm_state out = st;
    for (int i = 0; i < 8; i++) { r[i] = rnd(); f[i] = rnd(); e[i] = rnd(); }
    rx_jit_regs_out(&out, r, f, e);
    CHECK(!memcmp(out.r, r, sizeof r) && !memcmp(out.f, f, sizeof f) && !memcmp(out.e, e, sizeof e) &&
          !memcmp(out.a, st.a, sizeof out.a));
    /* profile: booked into the JIT and the process totals (with
     * RX_JIT_PROFILE), else RX_ENOTSUP and zeros */
    struct rx_jit_profile p = { 1, 2, 3, 4, 5, 0, 6 }, g0, g1, q;
    rx_jit_profile_global(&g0);
    rx_jit_profile_book(&p, 10, 20, 30, 40, 1, 7);
    rx_jit_profile_global(&g1);
    CHECK(p.compile_ns == 11 && p.open_ns == 22 && p.seal_ns == 33 && p.exec_ns == 44 && p.programs == 6 &&
          p.emit_ns == 13);
    CHECK(g1.compile_ns - g0.compile_ns == 10 && g1.programs - g0.programs == 1 && g1.emit_ns - g0.emit_ns == 7);
    CHECK(rx_jit_profile_copy(NULL, &q) == RX_EINVAL);
    CHECK(rx_jit_profile_get(NULL, &q) == RX_EINVAL || !rx_jit_supported());
    memset(&q, 0xff, sizeof q);
#ifdef RX_JIT_PROFILE
    CHECK(rx_jit_profile_copy(&p, &q) == 0 && q.programs == 6);
#else
    CHECK(rx_jit_profile_copy(&p, &q) == RX_ENOTSUP && q.programs == 0 && q.exec_ns == 0);
#endif
    if (!rx_jit_supported() || !g_ds) return;
    rx_jit *jit = NULL;
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_FULL | RX_FLAG_SOFT_AES | RX_FLAG_HARD_AES) == RX_EINVAL && !jit);
    CHECK(rx_jit_new(&jit, RX_FLAG_V2 | RX_FLAG_FULL | RX_FLAG_SOFT_AES) == 0 && jit);
    if (!jit) return;
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_SIZE_V2)];
    rnd_bytes(bytes, sizeof bytes);
    rx_program_parse(&prog, bytes, RX_PROGRAM_SIZE_V2);
    memset(&st, 0, sizeof st);
    rx_vm_state_configure(&st, &prog);
    st.version = 2; st.program_size = RX_PROGRAM_SIZE_V2; st.iterations = 2;
    st.scratchpad = g_spA; st.dataset = g_ds;
    for (int k = 0; k < 3; k++) CHECK(rx_jit_compile(jit, &prog, &st) == 0 && rx_jit_run(jit, &st) == 0);
    memset(&q, 0xff, sizeof q);
#ifdef RX_JIT_PROFILE
    CHECK(rx_jit_profile_get(jit, &q) == 0 && q.programs == 3);
    rx_jit_profile_reset(jit);
    CHECK(rx_jit_profile_get(jit, &q) == 0 && q.programs == 0 && q.exec_ns == 0);
#else
    CHECK(rx_jit_profile_get(jit, &q) == RX_ENOTSUP && q.programs == 0);
#endif
    rx_jit_free(jit);
    memcpy(g_spB, g_spA, RX_SCRATCHPAD_L3);
}

int main(void) {
    if (sodium_init() < 0) return 1;
#if defined(__aarch64__)
    printf("jit: aarch64, hardware AES %s\n", rx_cpu_has_hw_aes() ? "yes" : "no");
#endif
    RUN(t_emit_encodings);
    g_spA = aligned_alloc(64, RX_SCRATCHPAD_L3);
    g_spB = aligned_alloc(64, RX_SCRATCHPAD_L3);
    if (g_spA && g_spB) {
        rnd_bytes(g_spA, RX_SCRATCHPAD_L3);
        memcpy(g_spB, g_spA, RX_SCRATCHPAD_L3);
        RUN(t_differential_full);
        RUN(t_differential_detects);
        RUN(t_wx_faults_wipe);
        RUN(t_guard_layout);
        RUN(t_common);
        const char *only = getenv("RXLOCK_A64_DIFF_ONLY");   /* the script's second CPU model */
        if (jit_native() && !(only && *only == '1')) {
            RUN(t_differential_light);
            RUN(t_vectors_jit);
        }
        if (!(only && *only == '1')) RUN(t_hash_faults);
    } else {
        CHECK(0);
    }
    if (g_ds) munmap(g_ds, DS_SPAN);
    rx_cache_free(g_cache);
    for (int i = 0; i < 2; i++) rx_cache_free(g_kc[i].cache);
    free(g_spA); free(g_spB);
    return test_summary();
}
