/* SPDX-License-Identifier: ISC */
/* tests/test_lock_full.c — (make check-full) RandomX v2 full mode: the
 * 2080 MiB dataset is built once in the supervisor and shared copy-on-write
 * by the worker processes; the puzzle solves in full mode and in light mode
 * to the same key, and equals a light-mode generation in the test-only
 * deterministic mode (light and full hashes are identical). */
#include "test.h"
#include "rxlock/rxlock.h"
#include <sodium.h>

static void t_full(void) {
    setenv("RXLOCK_TEST_INSECURE", "1", 1);
    setenv("RXLOCK_TEST_SEED", "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf", 1);
    tl_params p = { .work = TL_WORK_RANDOMX_V2, .groups = 2, .steps = 20, .rate_source = "none" };
    tl_gen_opts full = { .workers = 2, .mode = TL_MODE_FULL }, light = { .workers = 2, .mode = TL_MODE_LIGHT };
    char *jf = NULL, *jl = NULL;
    uint8_t pk[32], xf[32], xl[32], got[32];
    CHECK(tl_generate(&p, &full, &jf, NULL, NULL, pk, xf) == 0);
    CHECK(tl_generate(&p, &light, &jl, NULL, NULL, pk, xl) == 0);
    if (!jf || !jl) return;
    CHECK(strcmp(jf, jl) == 0);
    CHECK_MEM(xf, xl, 32);
    tl_puzzle *pz = NULL;
    CHECK(tl_puzzle_parse(jf, strlen(jf), &pz, NULL, 0) == 0);
    tl_solve_opts so = { .mode = TL_MODE_FULL };
    if (pz) {
        CHECK(tl_solve(pz, &so, got, NULL) == 0);
        CHECK_MEM(got, xf, 32);
    }
    tl_puzzle_free(pz);
    free(jf); free(jl);
}

int main(void) {
    if (!test_full()) { fprintf(stderr, "SKIP: needs RXLOCK_TEST_FULL=1 (make check-full)\n"); return test_summary(); }
    RUN(t_full);
    return test_summary();
}
