/* SPDX-License-Identifier: ISC */
/* tests/test_lock_roundtrip.c — library round trips for the time-lock layer:
 * generate -> parse -> verify -> solve (sha3 always; RandomX light when the
 * engine produces the reference vector), signatures and pins, tamper
 * detection at the affected group, worker-count independence in the
 * test-only deterministic mode, journal resume and foreign-journal refusal,
 * x from a journal's final state alone (tl_solve_from_journal), a work
 * function's renewed VM (a generation worker's) computing the same. */
#include "test.h"
#include "rxlock/rxlock.h"
#include "rxlock/rx.h"
#include "lock/core/core_internal.h"   /* tl_work_renew_vm */
#include <sodium.h>
#include <unistd.h>

static tl_puzzle *gen(tl_work_type t, uint32_t G, uint64_t S, unsigned workers,
                      const uint8_t *sk, uint8_t pk[32], uint8_t x[32], char **json_out) {
    tl_params p = { .work = t, .groups = G, .steps = S, .rate_source = "none", .sign_sk = sk };
    tl_gen_opts o = { .workers = workers };
    char *json = NULL;
    size_t len = 0;
    int rc = tl_generate(&p, &o, &json, &len, NULL, pk, x);
    CHECK(rc == 0);
    if (rc) { fprintf(stderr, "generate: %s\n", tl_strerror(rc)); return NULL; }
    tl_puzzle *pz = NULL;
    char err[200];
    CHECK(tl_puzzle_parse(json, len, &pz, err, sizeof err) == 0);
    if (json_out) *json_out = json; else free(json);
    return pz;
}

static void t_sha3_roundtrip(void) {
    uint8_t pk[32], x[32], got[32], X[32];
    tl_puzzle *pz = gen(TL_WORK_SHA3_256, 3, 1000, 2, NULL, pk, x, NULL);
    if (!pz) return;
    crypto_scalarmult_base(X, x);
    CHECK_MEM(X, pk, 32);
    CHECK(tl_puzzle_verify(pz, NULL) == 0);
    tl_solve_stats st;
    CHECK(tl_solve(pz, NULL, got, &st) == 0);
    CHECK_MEM(got, x, 32);
    CHECK(st.steps_computed == 3000);
    tl_puzzle_free(pz);
}

static void t_signed_and_pin(void) {
    uint8_t spk[32], ssk[64], other[32], osk[64], pk[32], x[32];
    CHECK(tl_signer_keygen(spk, ssk) == 0);
    CHECK(tl_signer_keygen(other, osk) == 0);
    tl_puzzle *pz = gen(TL_WORK_SHA3_256, 2, 10, 1, ssk, pk, x, NULL);
    if (!pz) return;
    CHECK(pz->has_signer && pz->has_signature);
    CHECK(tl_puzzle_verify(pz, NULL) == 0);
    CHECK(tl_puzzle_verify(pz, spk) == 0);
    CHECK(tl_puzzle_verify(pz, other) == TL_EPIN);
    pz->signature[5] ^= 1;
    CHECK(tl_puzzle_verify(pz, NULL) == TL_ESIG);
    tl_puzzle_free(pz);
    /* unsigned puzzle with a pin: refused */
    pz = gen(TL_WORK_SHA3_256, 1, 5, 1, NULL, pk, x, NULL);
    if (pz) CHECK(tl_puzzle_verify(pz, spk) == TL_EPIN);
    tl_puzzle_free(pz);
    sodium_memzero(ssk, sizeof ssk);
}

static void t_tamper_group(void) {
    uint8_t pk[32], x[32], got[32];
    tl_puzzle *pz = gen(TL_WORK_SHA3_256, 4, 50, 2, NULL, pk, x, NULL);
    if (!pz) return;
    pz->wraps[2].ct[7] ^= 0x80;   /* group 3 */
    tl_solve_stats st;
    CHECK(tl_solve(pz, NULL, got, &st) == TL_EAUTH);
    CHECK(st.failed_group == 3);
    CHECK(st.steps_computed == 150);
    tl_puzzle_free(pz);
}

static void t_worker_independent(void) {
    setenv("RXLOCK_TEST_INSECURE", "1", 1);
    setenv("RXLOCK_TEST_SEED", "000102030405060708090a0b0c0d0e0f", 1);
    char *j1 = NULL, *j2 = NULL, *j5 = NULL;
    uint8_t pk[32], x1[32], x2[32], x5[32];
    tl_puzzle *a = gen(TL_WORK_SHA3_256, 5, 300, 1, NULL, pk, x1, &j1);
    tl_puzzle *b = gen(TL_WORK_SHA3_256, 5, 300, 2, NULL, pk, x2, &j2);
    tl_puzzle *c = gen(TL_WORK_SHA3_256, 5, 300, 5, NULL, pk, x5, &j5);
    CHECK(a && b && c && j1 && j2 && j5);
    if (a && b && c && j1 && j2 && j5) {
        CHECK(a->test_only);
        CHECK(strcmp(j1, j2) == 0);
        CHECK(strcmp(j1, j5) == 0);
        CHECK_MEM(x1, x2, 32);
        CHECK_MEM(x1, x5, 32);
        uint8_t got[32];
        CHECK(tl_solve(c, NULL, got, NULL) == 0);
        CHECK_MEM(got, x1, 32);
    }
    tl_puzzle_free(a); tl_puzzle_free(b); tl_puzzle_free(c);
    free(j1); free(j2); free(j5);
    unsetenv("RXLOCK_TEST_INSECURE");
    unsetenv("RXLOCK_TEST_SEED");
}

static void t_journal_resume(void) {
    uint8_t pk[32], x[32], got[32];
    tl_puzzle *pz = gen(TL_WORK_SHA3_256, 3, 200, 2, NULL, pk, x, NULL);
    tl_puzzle *other = gen(TL_WORK_SHA3_256, 1, 5, 1, NULL, pk, got, NULL);
    if (!pz || !other) { tl_puzzle_free(pz); tl_puzzle_free(other); return; }
    char path[] = "/tmp/rxlock-test-journal-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    unlink(path);
    /* Stop after ~250 steps via the stop flag set by the progress callback. */
    volatile int stop = 0;
    tl_solve_opts o = { .journal = path, .checkpoint_steps = 30, .stop = &stop };
    tl_solve_stats st;
    /* run one group fully plus a bit by solving a 1-step-stop */
    stop = 0;
    CHECK(tl_solve(pz, &o, got, &st) == 0);
    CHECK_MEM(got, x, 32);
    CHECK(st.checkpoints >= 600 / 30 - 1);
    /* Re-run: resumes from the last entry, the final chain state (group 3,
     * step 200: journalled before the last wrap is opened), computing nothing */
    CHECK(tl_solve(pz, &o, got, &st) == 0);
    CHECK_MEM(got, x, 32);
    CHECK(st.resumed_group == 3 && st.resumed_step == 200);
    CHECK(st.steps_computed == 0);
    /* Torn tail: append garbage; still resumes */
    FILE *f = fopen(path, "ab");
    CHECK(f != NULL);
    if (f) { fwrite("garbage-tail", 1, 12, f); fclose(f); }
    CHECK(tl_solve(pz, &o, got, &st) == 0);
    CHECK(st.resumed_group == 3 && st.resumed_step == 200);
    /* The final state alone gives x, with nothing computed or built */
    memset(got, 0, 32);
    CHECK(tl_solve_from_journal(pz, path, got) == TL_OK);
    CHECK_MEM(got, x, 32);
    CHECK(tl_solve_from_journal(other, path, got) == TL_EJOURNAL);   /* another puzzle's */
    /* Another puzzle's journal is refused before any work */
    CHECK(tl_solve(other, &o, got, &st) == TL_EJOURNAL);
    CHECK(st.steps_computed == 0);
    unlink(path);
    CHECK(tl_solve_from_journal(pz, path, got) == TL_EJOURNAL);   /* none: none made */
    CHECK(access(path, F_OK) != 0);
    stop = 1;   /* stopped after its first batch: a journal short of the final state */
    CHECK(tl_solve(pz, &o, got, &st) == TL_EINTR);
    CHECK(tl_solve_from_journal(pz, path, got) == TL_EJOURNAL);
    unlink(path);
    tl_puzzle_free(pz);
    tl_puzzle_free(other);
}

/* The engine is reported (first progress call, before any work; stats), and
 * a journal this call created is removed when it fails before any entry. */
struct eng_seen { int calls; int first_ok; tl_engine_info first; int cancel; };
static int eng_progress(const tl_progress *p, void *ctx) {
    struct eng_seen *s = ctx;
    if (s->calls++ == 0) {
        s->first_ok = p->engine != NULL && p->hashes_done == 0 && p->hashes_total > 0;
        if (p->engine) s->first = *p->engine;
    }
    return s->cancel;
}

static void t_engine_and_clean_refusal(void) {
    uint8_t pk[32], x[32], got[32];
    tl_puzzle *pz = gen(TL_WORK_SHA3_256, 2, 2000, 1, NULL, pk, x, NULL);
    if (!pz) return;
    struct eng_seen s = {0};
    tl_solve_opts o = { .progress = eng_progress, .progress_ctx = &s };
    tl_solve_stats st;
    CHECK(tl_solve(pz, &o, got, &st) == 0);
    CHECK_MEM(got, x, 32);
    CHECK(s.calls >= 1 && s.first_ok && s.first.work == TL_WORK_SHA3_256 && !s.first.engine);
    CHECK(st.engine.work == TL_WORK_SHA3_256 && st.engine.version == 0 && !st.engine.fallback);
    /* cancelled at the first call: no work, and the new journal is gone */
    char jp[64];
    snprintf(jp, sizeof jp, "/tmp/rxlock-eng-%d.journal", (int)getpid());
    unlink(jp);
    struct eng_seen c = { .cancel = 1 };
    tl_solve_opts oj = { .progress = eng_progress, .progress_ctx = &c, .journal = jp };
    CHECK(tl_solve(pz, &oj, got, &st) == TL_EINTR);
    CHECK(st.steps_computed == 0 && access(jp, F_OK) != 0);
    /* a tampered wrap at group 1 before any checkpoint: journal removed too */
    pz->wraps[0].ct[0] ^= 1;
    tl_solve_opts ot = { .journal = jp };
    CHECK(tl_solve(pz, &ot, got, &st) == TL_EAUTH && access(jp, F_OK) != 0);
    pz->wraps[0].ct[0] ^= 1;
    /* an existing journal is never removed */
    FILE *f = fopen(jp, "w");
    if (f) fclose(f);
    CHECK(tl_solve(pz, &oj, got, &st) != 0);
    CHECK(access(jp, F_OK) == 0);
    unlink(jp);
    tl_puzzle_free(pz);
}

static void t_bad_params(void) {
    uint8_t pk[32];
    char *json = NULL;
    tl_params p = { .work = TL_WORK_SHA3_256, .groups = 0, .steps = 1, .rate_source = "none" };
    CHECK(tl_generate(&p, NULL, &json, NULL, NULL, pk, NULL) == TL_EINVAL);
    p.groups = TL_MAX_GROUPS + 1;
    CHECK(tl_generate(&p, NULL, &json, NULL, NULL, pk, NULL) == TL_EINVAL);
    p.groups = 2; p.steps = TL_MAX_TOTAL;
    CHECK(tl_generate(&p, NULL, &json, NULL, NULL, pk, NULL) == TL_EINVAL);
}

static int rx_works(void) {
    rx_cache *c = NULL;
    rx_vm *vm = NULL;
    uint8_t out[32], want[32];
    test_unhex("22ec6b86", want, 4);
    unsigned f = (rx_flags_default() | RX_FLAG_V2) & ~(unsigned)RX_FLAG_FULL;
    int ok = rx_cache_new(&c, f) == 0 && rx_cache_init(c, "test key 000", 12) == 0 &&
             rx_vm_new(&vm, f, c, NULL) == 0 && rx_vm_hash(vm, "This is a test", 14, out) == 0 &&
             memcmp(out, want, 4) == 0;
    if (vm) rx_vm_free(vm);
    if (c) rx_cache_free(c);
    return ok;
}

static void t_randomx_roundtrip(void) {
    for (int v = 0; v < 2; v++) {
        uint8_t pk[32], x[32], got[32];
        tl_work_type t = v == 0 ? TL_WORK_RANDOMX_V2 : TL_WORK_RANDOMX_V1;
        tl_puzzle *pz = gen(t, 2, 3, 2, NULL, pk, x, NULL);
        if (!pz) continue;
        CHECK(tl_solve(pz, NULL, got, NULL) == 0);
        CHECK_MEM(got, x, 32);
        tl_puzzle_free(pz);
    }
}

/* SHA3 lanes and the fused chain: tl_work_steps_multi == L chains of tl_work_step (the generic
 * sponge / VM one step at a time) == L tl_work_steps calls, for every chain
 * count 1..19 (full and partial SIMD batches) and random g, i0, d. */
static void multi_case(tl_work_type t, size_t maxL, uint64_t n) {
    uint8_t K[32];
    randombytes_buf(K, sizeof K);
    tl_work *w = NULL;
    CHECK(tl_work_new(&w, t, K, TL_MODE_LIGHT) == 0);
    if (!w) return;
    CHECK(tl_work_lanes(t) >= 1);
    for (size_t L = 1; L <= maxL; L++) {
        uint32_t g[19];
        uint64_t i0[19];
        uint8_t d[19][32], one[19][32], ref[19][32];
        for (size_t c = 0; c < L; c++) {
            g[c] = randombytes_uniform(1000) + 1;
            i0[c] = c % 3 == 0 ? randombytes_uniform(100) : ((uint64_t)randombytes_random() << 32) - 2;
            randombytes_buf(d[c], 32);
            memcpy(one[c], d[c], 32);
            memcpy(ref[c], d[c], 32);
            for (uint64_t k = 0; k < n; k++) CHECK(tl_work_step(w, g[c], i0[c] + k, ref[c], ref[c]) == 0);
            CHECK(tl_work_steps(w, g[c], i0[c], n, one[c]) == 0);
            CHECK_MEM(one[c], ref[c], 32);
        }
        CHECK(tl_work_steps_multi(w, L, g, i0, n, d) == 0);
        for (size_t c = 0; c < L; c++) CHECK_MEM(d[c], ref[c], 32);
    }
    CHECK(tl_work_steps_multi(w, 0, NULL, NULL, 5, NULL) == 0);
    CHECK(tl_work_steps_multi(w, 1, NULL, NULL, 5, NULL) == TL_EINVAL);
    /* a forked worker's own VM (tl_work_renew_vm): the same results */
    uint8_t a[32], before[32], after[32];
    memset(a, 7, sizeof a);
    CHECK(tl_work_step(w, 1, 0, a, before) == 0);
    CHECK(tl_work_renew_vm(w) == 0);
    CHECK(tl_work_step(w, 1, 0, a, after) == 0);
    CHECK_MEM(after, before, 32);
    tl_work_free(w);
}
static void t_work_multi(void) { multi_case(TL_WORK_SHA3_256, 19, 7); }
static void t_work_multi_randomx(void) { multi_case(TL_WORK_RANDOMX_V2, 3, 2); }

/* A zero-initialised mode is the mode policy, never silently light mode:
 * with the test build's low-memory switch the policy picks light, and
 * tl_work_new / tl_mode_resolve take TL_MODE_DEFAULT. */
static void t_zero_mode_is_policy(void) {
    tl_gen_opts go = {0};
    tl_solve_opts so = {0};
    CHECK(go.mode == TL_MODE_DEFAULT && so.mode == TL_MODE_DEFAULT);
    CHECK(TL_MODE_LIGHT != 0 && TL_MODE_FULL != 0);
    setenv("RXLOCK_TEST_LOWMEM", "1", 1);
    tl_mode_choice mc;
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V2, TL_MODE_DEFAULT, &mc) == 0 && mc.mode == TL_MODE_LIGHT && mc.low_memory &&
          !mc.forced);
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V2, TL_MODE_FULL, &mc) == 0 && mc.mode == TL_MODE_FULL && mc.forced);
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V2, 3, &mc) == TL_EINVAL);
    uint8_t key[32] = { 7 };
    tl_work *w = NULL;
    tl_engine_info ei;
    if (!test_quick()) {
        CHECK(tl_work_new(&w, TL_WORK_RANDOMX_V2, key, TL_MODE_DEFAULT) == 0);
        CHECK(w && tl_work_engine(w, &ei) == 0 && ei.mode && !strcmp(ei.mode, "light"));
        tl_work_free(w);
        w = NULL;
    }
    CHECK(tl_work_new(&w, TL_WORK_SHA3_256, key, TL_MODE_DEFAULT) == 0 && w);
    tl_work_free(w);
    unsetenv("RXLOCK_TEST_LOWMEM");
}

int main(void) {
    RUN(t_zero_mode_is_policy);
    RUN(t_sha3_roundtrip);
    RUN(t_work_multi);
    RUN(t_signed_and_pin);
    RUN(t_tamper_group);
    RUN(t_worker_independent);
    RUN(t_journal_resume);
    RUN(t_bad_params);
    RUN(t_engine_and_clean_refusal);
    if (test_quick()) fprintf(stderr, "SKIP t_randomx_roundtrip in quick mode (covered by make check)\n");
    else if (rx_works()) { RUN(t_randomx_roundtrip); RUN(t_work_multi_randomx); }
    else fprintf(stderr, "SKIP t_randomx_roundtrip: the RandomX engine does not reproduce the v2 reference vector yet\n");
    return test_summary();
}
