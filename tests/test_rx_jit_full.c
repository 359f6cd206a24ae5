/* SPDX-License-Identifier: ISC */
/* tests/test_rx_jit_full.c — the x86-64 JIT in full mode over a real
 * 2080 MiB dataset (make check-full only): official hash vectors and the
 * dependent-chain vectors for key "test key 000" with the JIT (hard and
 * soft AES), the same through the interpreter, and a JIT-vs-interpreter
 * differential on random programs reading the real dataset.  The dataset
 * is built with the superscalar JIT and spot-checked against rx_cache_item. */
#include "test.h"
#include "rxlock/rx.h"
#include "rx/internal.h"
#include "rx/jit.h"
#include "rx/aes.h"
#include "rx/cache_internal.h"
#include "rx/program.h"
#include "rx/vm_interp.h"
#include "rx/vm_state.h"
#include "rx/cpu.h"
#include <fenv.h>
#include <pthread.h>

#if defined(__x86_64__)

static const char KEY_HEX[] = "74657374206b657920303030";  /* "test key 000" */
static rx_cache *cache;
static rx_dataset *ds;

struct job { const rx_jit_ss *code; uint8_t *mem; uint64_t first, count; int rc; };
static void *job_run(void *a) {
    struct job *j = a;
    j->rc = rx_jit_dataset_items(j->code, cache->memory, j->first, j->count, j->mem + j->first * 64);
    return NULL;
}

static int setup(void) {
    uint8_t key[16];
    long kl = test_unhex(KEY_HEX, key, sizeof key);
    if (rx_cache_new(&cache, 0) || rx_cache_init(cache, key, (size_t)kl)) return -1;
    if (rx_dataset_new(&ds, 0)) return -1;
    rx_jit_ss *code = NULL;
    if (rx_jit_ss_new(&code, cache->prog)) return -1;
    uint8_t *mem = (uint8_t *)(uintptr_t)rx_dataset_bytes(ds);
    struct job j[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        j[i].code = code; j[i].mem = mem;
        j[i].first = RX_DATASET_ITEMS * (unsigned)i / 2;
        j[i].count = RX_DATASET_ITEMS * (unsigned)(i + 1) / 2 - j[i].first;
        if (pthread_create(&t[i], NULL, job_run, &j[i]) != 0) return -1;
    }
    pthread_join(t[0], NULL); pthread_join(t[1], NULL);
    rx_jit_ss_free(code);
    if (j[0].rc || j[1].rc) return -1;
    for (uint64_t i = 0; i < RX_DATASET_ITEMS; i += 1000003) {
        uint64_t w[8];
        rx_cache_item(cache, i, w);
        if (memcmp(w, mem + i * 64, 64) != 0) return -1;
    }
    return 0;
}

struct vec_ctx { unsigned flags; int rows, bad; };
static int vec_cb(char **f, int nf, void *vctx) {
    struct vec_ctx *c = vctx;
    if (nf < 3 || strcmp(f[0], KEY_HEX) != 0) return 0;
    uint8_t in[512], want[32], got[32];
    long il = test_unhex(f[1], in, sizeof in);
    if (il < 0 || test_unhex(f[2], want, 32) != 32) { c->bad++; return 0; }
    rx_vm *vm = NULL;
    if (rx_vm_new(&vm, c->flags, cache, ds) != 0) { c->bad++; return 0; }
    if ((c->flags & RX_FLAG_JIT) && !(rx_vm_flags(vm) & RX_FLAG_JIT)) c->bad++;
    c->rows++;
    if (rx_vm_hash(vm, in, (size_t)il, got) != 0 || memcmp(got, want, 32) != 0) c->bad++;
    rx_vm_free(vm);
    return 0;
}

static void t_vectors(void) {
    for (int v = 1; v <= 2; v++)
        for (int mode = 0; mode < 3; mode++) {   /* jit hard, jit soft, interpreter */
            if (mode == 0 && !rx_cpu_has_hw_aes()) continue;
            unsigned fl = RX_FLAG_FULL | (v == 2 ? RX_FLAG_V2 : 0);
            fl |= mode == 0 ? RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_HARD_AES :
                  mode == 1 ? RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_SOFT_AES : 0;
            struct vec_ctx c = { fl, 0, 0 };
            test_tsv_each(v == 2 ? "randomx-v2.tsv" : "randomx-v1.tsv", vec_cb, &c);
            test_tsv_each(v == 2 ? "randomx-v2-derived.tsv" : "randomx-v1-derived.tsv", vec_cb, &c);
            if (c.bad || c.rows == 0) fprintf(stderr, "v%d mode %d: %d rows, %d bad\n", v, mode, c.rows, c.bad);
            CHECK(c.rows > 0 && c.bad == 0);
        }
}

struct chain_ctx { int checked, bad; };
static int chain_cb(char **f, int nf, void *vctx) {
    struct chain_ctx *c = vctx;
    if (nf < 4 || strcmp(f[1], KEY_HEX) != 0) return 0;
    unsigned flags = RX_FLAG_FULL | RX_FLAG_JIT | RX_FLAG_SECURE | (strcmp(f[0], "v2") == 0 ? RX_FLAG_V2 : 0);
    long steps = atol(f[2]);
    uint8_t want[32], d[32] = { 0 }, m[68];
    if (test_unhex(f[3], want, 32) != 32 || steps < 1 || steps > 100000) { c->bad++; return 0; }
    rx_vm *vm = NULL;
    if (rx_vm_new(&vm, flags, cache, ds) != 0) { c->bad++; return 0; }
    for (long i = 0; i < steps; i++) {
        memcpy(m, "rxlock-chain-test-v1", 20);
        memset(m + 20, 0, 8);
        for (int k = 0; k < 8; k++) m[28 + k] = (uint8_t)((uint64_t)i >> (8 * k));
        memcpy(m + 36, d, 32);
        if (rx_vm_hash(vm, m, sizeof m, d) != 0) { c->bad++; break; }
    }
    c->checked++;
    if (memcmp(d, want, 32) != 0) c->bad++;
    rx_vm_free(vm);
    return 0;
}
static void t_chains(void) {
    struct chain_ctx c = { 0, 0 };
    test_tsv_each("randomx-chain.tsv", chain_cb, &c);
    CHECK(c.checked == 10 && c.bad == 0);
}

static uint64_t rs = 0x1234;
static uint64_t rnd(void) { return test_rng(&rs); }
static void t_diff_full(void) {
    int n = test_quick() ? 10 : 100, bad = 0, total = 0;
    struct rx_vm_state *A = aligned_alloc(64, sizeof *A), *B = aligned_alloc(64, sizeof *B);
    struct rx_program *prog = malloc(sizeof *prog);
    struct rx_decoded *dec = malloc(sizeof *dec);
    if (!A || !B || !prog || !dec) { CHECK(0); return; }
    memset(A, 0, sizeof *A); memset(B, 0, sizeof *B);
    A->scratchpad = aligned_alloc(64, RX_SCRATCHPAD_L3);
    B->scratchpad = aligned_alloc(64, RX_SCRATCHPAD_L3);
    if (!A->scratchpad || !B->scratchpad) { CHECK(0); return; }
    for (size_t i = 0; i < RX_SCRATCHPAD_L3; i += 8) { uint64_t v = rnd(); memcpy(A->scratchpad + i, &v, 8); }
    memcpy(B->scratchpad, A->scratchpad, RX_SCRATCHPAD_L3);
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_MAX_SIZE)];
    for (unsigned v = 1; v <= 2; v++)
        for (int soft = 0; soft <= 1; soft++) {
            const struct rx_aes_ops *aes = soft ? rx_aes_soft_ops() : rx_aes_hw_ops();
            if (!aes) continue;
            rx_jit *jit = NULL;
            unsigned fl = RX_FLAG_FULL | (v == 2 ? RX_FLAG_V2 : 0) | (soft ? RX_FLAG_SOFT_AES : RX_FLAG_HARD_AES);
            CHECK(rx_jit_new(&jit, fl) == 0);
            if (!jit) continue;
            uint32_t count = v == 2 ? RX_PROGRAM_SIZE_V2 : RX_PROGRAM_SIZE_V1;
            for (int k = 0; k < n; k++) {
                for (size_t i = 0; i < sizeof bytes; i += 8) { uint64_t x = rnd(); memcpy(bytes + i, &x, 8); }
                rx_program_parse(prog, bytes, count);
                struct rx_vm_state *S[2] = { A, B };
                for (int j = 0; j < 2; j++) {
                    rx_vm_state_configure(S[j], prog);
                    S[j]->version = v; S[j]->program_size = count;
                    S[j]->iterations = RX_PROGRAM_ITERATIONS;
                    S[j]->fprc = (uint32_t)k & 3u;
                    S[j]->dataset = rx_dataset_bytes(ds); S[j]->cache = NULL;
                }
                fenv_t env; fegetenv(&env);
                rx_interp_decode(dec, prog, v);
                rx_interp_run(A, dec, aes);
                fesetenv(&env);
                int rc = rx_jit_compile(jit, prog, B);
                if (rc == 0) rc = rx_jit_run(jit, B);
                total++;
                if (rc || memcmp(A, B, 256) || A->ma != B->ma || A->mx != B->mx || A->fprc != B->fprc ||
                    memcmp(A->scratchpad, B->scratchpad, RX_SCRATCHPAD_L3)) {
                    bad++;
                    memcpy(B->scratchpad, A->scratchpad, RX_SCRATCHPAD_L3);
                }
            }
            rx_jit_free(jit);
        }
    fprintf(stderr, "full-mode differential: %d programs, %d mismatches\n", total, bad);
    CHECK(total > 0 && bad == 0);
    free(A->scratchpad); free(B->scratchpad); free(A); free(B); free(prog); free(dec);
}
#endif /* __x86_64__ */

int main(void) {
#if defined(__x86_64__)
    if (!test_full()) { printf("skipped (set RXLOCK_TEST_FULL=1)\n"); return test_summary(); }
    int ok = setup() == 0;
    CHECK(ok);
    if (ok) {
        RUN(t_vectors);
        RUN(t_chains);
        RUN(t_diff_full);
    }
    rx_dataset_free(ds);
    rx_cache_free(cache);
#endif
    return test_summary();
}
