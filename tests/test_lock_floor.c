/* SPDX-License-Identifier: ISC */
/* tests/test_lock_floor.c — the floor (src/lock/measure/floor.c) against
 * a small table file: parsing (rows' kinds), bounds and refusals, the
 * fastest row of any kind, the built-in rows, the arithmetic both ways; the
 * promise sentence with and without dates (src/lock/measure/promise.c); the
 * typical sizing rate; the one
 * mode policy (src/lock/core/mode.c) with the test build's low-memory switch;
 * puzzle version 2's issue-19 fields round trip. */
#include "test.h"
#include "rxlock/calibrate.h"
#include <math.h>
#include <unistd.h>

static const char small_table[] =
    "# a small floor table for the tests\n"
    "\n"
    "randomx-v2 500 Test CPU A ; pinned, 1000 hashes\n"
    "randomx-v2   1000.5\tTest CPU B\n"
    "sha3-256 2e6 Test CPU C;fused\r\n"
    "  # indented comment\n"
    "randomx-v2 800 Test CPU D\n"
    "randomx-v1 900 bound Test CPU E ; per core\n"
    "sha3-256 3e6 hardware Test ASIC\n"
    "sha3-256 1e6 measuredly fast CPU\n";   /* not a KIND word: part of the name */

static void t_parse_small_file(void) {
    char path[] = "/tmp/rxlock-floor-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    CHECK(write(fd, small_table, sizeof small_table - 1) == (ssize_t)(sizeof small_table - 1));
    close(fd);
    tl_floor_table t;
    char err[200] = "";
    CHECK(tl_floor_load(path, &t, err, sizeof err) == 0);
    unlink(path);
    CHECK(t.n == 7);
    CHECK(strstr(t.origin, "rxlock-floor-") != NULL);
    const tl_floor_row *r = tl_floor_fastest(&t, TL_WORK_RANDOMX_V2);
    CHECK(r && r->rate == 1000.5 && !strcmp(r->machine, "Test CPU B") && r->conditions[0] == 0);
    CHECK(r->kind == TL_FLOOR_MEASURED);
    r = tl_floor_fastest(&t, TL_WORK_SHA3_256);   /* the fastest row of any kind */
    CHECK(r && r->rate == 3e6 && !strcmp(r->machine, "Test ASIC") && r->kind == TL_FLOOR_HARDWARE);
    r = tl_floor_fastest(&t, TL_WORK_RANDOMX_V1);
    CHECK(r && r->rate == 900 && !strcmp(r->machine, "Test CPU E") && r->kind == TL_FLOOR_BOUND &&
          !strcmp(r->conditions, "per core"));
    CHECK(!strcmp(t.rows[6].machine, "measuredly fast CPU") && t.rows[6].kind == TL_FLOOR_MEASURED);
    CHECK(!strcmp(tl_floor_kind_name(TL_FLOOR_BOUND), "bound from per-core throughput"));
    CHECK(!strcmp(tl_floor_kind_name((tl_floor_kind)9), "?"));
    CHECK(!strcmp(t.rows[0].conditions, "pinned, 1000 hashes") && !strcmp(t.rows[0].machine, "Test CPU A"));
    /* arithmetic: 1000.5 H/s -> 2001 hashes take 2 s; 7 d need ceil(7*86400*1000.5) */
    r = tl_floor_fastest(&t, TL_WORK_RANDOMX_V2);
    CHECK(fabs(tl_floor_seconds(r, 2001) - 2.0) < 1e-12);
    uint64_t h = 0;
    CHECK(tl_floor_hashes(r, 7 * 86400.0, &h) == 0 && h == 605102400ull);
    CHECK(tl_floor_hashes(r, 0.0001, &h) == 0 && h == 1);
    CHECK(tl_floor_hashes(r, 1e30, &h) == TL_ETOOBIG);
    CHECK(tl_floor_hashes(NULL, 1, &h) == TL_EINVAL && tl_floor_seconds(NULL, 5) < 0);
}

static int refused(const char *s) {
    tl_floor_table t;
    char err[200] = "";
    int rc = tl_floor_parse(s, strlen(s), &t, err, sizeof err);
    if (rc == 0 || !err[0] || t.n != 0) fprintf(stderr, "  parse(%s) = %d (%s)\n", s, rc, err);
    return rc != 0 && err[0] && t.n == 0;
}

static void t_refusals(void) {
    CHECK(refused(""));
    CHECK(refused("# only a comment\n"));
    CHECK(refused("md5 100 CPU\n"));
    CHECK(refused("randomx-v2 -5 CPU\n"));
    CHECK(refused("randomx-v2 0 CPU\n"));
    CHECK(refused("randomx-v2 nan CPU\n"));
    CHECK(refused("randomx-v2 inf CPU\n"));
    CHECK(refused("randomx-v2 1e16 CPU\n"));
    CHECK(refused("randomx-v2 100\n"));
    CHECK(refused("randomx-v2 100 bound \n"));   /* a KIND and no machine */
    CHECK(refused("randomx-v2 100 \x01\n"));
    CHECK(refused("randomx-v2\n"));
    char big[400];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    memcpy(big, "sha3-256 5 ", 11);
    CHECK(refused(big));   /* a line over 255 bytes */
    /* more than TL_FLOOR_MAX_ROWS rows */
    static char many[TL_FLOOR_MAX_BYTES];
    size_t n = 0;
    for (int k = 0; k < TL_FLOOR_MAX_ROWS + 1; k++) n += (size_t)snprintf(many + n, sizeof many - n, "sha3-256 %d C\n", k + 1);
    CHECK(refused(many));
    tl_floor_table t;
    CHECK(tl_floor_parse(many, TL_FLOOR_MAX_BYTES + 1, &t, NULL, 0) == TL_ETOOBIG);
    /* random bytes never crash and never half-fill a table */
    uint32_t x = 12345;
    char junk[600];
    for (int it = 0; it < 2000; it++) {
        size_t len = (size_t)(x % sizeof junk);
        for (size_t i = 0; i < len; i++) { x = x * 1103515245u + 12345u; junk[i] = (char)(x >> 16); }
        int rc = tl_floor_parse(junk, len, &t, NULL, 0);
        CHECK(rc == 0 ? t.n > 0 : t.n == 0);
    }
}

static void t_builtin(void) {
    tl_floor_table t;
    tl_floor_builtin(&t);
    /* RandomX design_v2.md: Ryzen 9 9950X 26,791.7 H/s (v2), 27,186.1 H/s
     * (v1) over 16 cores; the Keccak fast core 21.3 Gbit/s at rate 1024 */
    const tl_floor_row *r = tl_floor_fastest(&t, TL_WORK_RANDOMX_V2);
    CHECK(r && fabs(r->rate - 1674.48) < 0.01 && strstr(r->machine, "9950X") && r->kind == TL_FLOOR_BOUND);
    r = tl_floor_fastest(&t, TL_WORK_RANDOMX_V1);
    CHECK(r && fabs(r->rate - 1699.13) < 0.01 && strstr(r->machine, "9950X") && r->kind == TL_FLOOR_BOUND);
    r = tl_floor_fastest(&t, TL_WORK_SHA3_256);
    CHECK(r && fabs(r->rate - 20800781.25) < 1e-3 && strstr(r->machine, "Keccak") && r->kind == TL_FLOOR_HARDWARE);
    /* the measured single-chain rows stay, below the bounds */
    unsigned measured = 0;
    for (unsigned k = 0; k < t.n; k++)
        if (t.rows[k].kind == TL_FLOOR_MEASURED && strstr(t.rows[k].machine, "M4")) measured++;
    CHECK(measured == 2);
}

static void t_promise(void) {
    tl_puzzle pz;
    memset(&pz, 0, sizeof pz);
    pz.version = 2;
    pz.work = TL_WORK_RANDOMX_V2;
    pz.groups = 2;
    pz.steps = 30000;            /* 60000 hashes */
    pz.rate_milli_hps = 500000;       /* 500 H/s: 120 s of hashing */
    pz.rate_mode = TL_RATE_MODE_FULL;
    pz.setup_ms = 25000;         /* + 25 s setup */
    tl_floor_table t;
    CHECK(tl_floor_parse(small_table, strlen(small_table), &t, NULL, 0) == 0);
    tl_promise p;
    tl_promise_of(&pz, &t, &p);
    CHECK(p.total == 60000 && p.rate == 500 && fabs(p.hash_seconds - 120) < 1e-9);
    CHECK(fabs(p.setup_seconds - 25) < 1e-9 && fabs(p.here_seconds - 145) < 1e-9);
    CHECK(p.floor && fabs(p.floor_seconds - 60000 / 1000.5) < 1e-9);
    char s[400];
    tl_promise_text(s, sizeof s, &pz, &t);
    CHECK(strstr(s, "opens no sooner than 60.0s on the fastest known hardware (Test CPU B, 1000.5H/s, "
                    "measured single chain)") != NULL);
    CHECK(strstr(s, "about 2m25s at the assumed rate (2m00s hashing + 25.0s setup, full-mode rate)") != NULL);
    CHECK(strstr(s, "published") == NULL);
    /* dates: published 2026-01-01 00:00:00 UTC (1767225600) */
    char sd[600];
    tl_promise_text_at(sd, sizeof sd, &pz, &t, 1767225600);
    CHECK(strstr(sd, "published 2026-01-01 00:00 UTC: opens no sooner than 60.0s (2026-01-01 00:01 UTC) on the "
                     "fastest known hardware") != NULL);
    CHECK(strstr(sd, "about 2m25s (2026-01-01 00:02 UTC) at the assumed rate") != NULL);
    tl_promise_date(sd, sizeof sd, 253402300800LL);
    CHECK(!strcmp(sd, "after 9999"));
    pz.work = TL_WORK_SHA3_256;
    tl_promise_text(s, sizeof s, &pz, &t);
    CHECK(strstr(s, "(Test ASIC, 3.00 MH/s, demonstrated hardware)") != NULL);
    tl_floor_table t2;
    CHECK(tl_floor_parse("randomx-v2 5 X\n", 14, &t2, NULL, 0) == 0);
    pz.work = TL_WORK_RANDOMX_V1;
    tl_promise_text(s, sizeof s, &pz, &t2);
    CHECK(strstr(s, "no fastest known hardware for randomx-v1") != NULL);
    pz.rate_milli_hps = 0;
    tl_promise_text(s, sizeof s, &pz, &t);
    CHECK(strstr(s, "no solver rate recorded") != NULL);
}

static void t_mode_policy(void) {
    tl_mode_choice mc;
    CHECK(tl_mode_resolve(TL_WORK_SHA3_256, -1, &mc) == 0 && mc.mode == TL_MODE_LIGHT && !mc.low_memory);
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V2, TL_MODE_LIGHT, &mc) == 0 && mc.mode == TL_MODE_LIGHT && mc.forced);
    setenv("RXLOCK_TEST_LOWMEM", "1", 1);
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V2, -1, &mc) == 0 && mc.mode == TL_MODE_LIGHT && mc.low_memory);
    CHECK(mc.need_bytes > 2300ull << 20 && mc.ratio == TL_FULL_LIGHT_RATIO && !strcmp(mc.why, "RXLOCK_TEST_LOWMEM=1"));
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V1, TL_MODE_FULL, &mc) == 0 && mc.mode == TL_MODE_FULL && !mc.low_memory);
    unsetenv("RXLOCK_TEST_LOWMEM");
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V2, 7, &mc) == TL_EINVAL);
    /* without the switch the answer depends on this machine: only its shape */
    CHECK(tl_mode_resolve(TL_WORK_RANDOMX_V2, -1, &mc) == 0 && (mc.mode == TL_MODE_FULL) == !mc.low_memory);
}

/* Version 2 puzzles carry rate_mode and setup_ms, covered by H; version 1
 * puzzles refuse them. */
static void t_puzzle_v2_fields(void) {
    if (getenv("RXLOCK_TEST_NO_WORKERS")) {   /* tools/test-aarch64-rx.sh: qemu-user */
        fprintf(stderr, "SKIP t_puzzle_v2_fields: RXLOCK_TEST_NO_WORKERS (worker processes too slow under emulation)\n");
        return;
    }
    tl_params p;
    memset(&p, 0, sizeof p);
    p.work = TL_WORK_SHA3_256;
    p.groups = 1;
    p.steps = 3;
    p.rate_milli_hps = 1000000;
    strcpy(p.rate_source, "flag");
    p.rate_mode = TL_RATE_MODE_FULL;
    p.setup_ms = 1234;
    char *json = NULL;
    size_t len = 0;
    uint8_t pk[32];
    CHECK(tl_generate(&p, NULL, &json, &len, NULL, pk, NULL) == 0 && json);
    if (!json) return;
    CHECK(strstr(json, "\"rxlock_puzzle\": 2") && strstr(json, "\"rate_mode\": \"full\"") && strstr(json, "\"setup_ms\": 1234"));
    tl_puzzle *pz = NULL;
    CHECK(tl_puzzle_parse(json, len, &pz, NULL, 0) == 0 && pz && pz->rate_mode == TL_RATE_MODE_FULL && pz->setup_ms == 1234);
    tl_puzzle_free(pz);
    char *m = strstr(json, "\"setup_ms\": 1234");   /* tampering breaks H */
    if (m) { m[13] = '5'; CHECK(tl_puzzle_parse(json, len, &pz, NULL, 0) == TL_EFORMAT); m[13] = '2'; }
    m = strstr(json, "\"rxlock_puzzle\": 2");        /* a version-1 puzzle cannot have them */
    if (m) { m[17] = '1'; CHECK(tl_puzzle_parse(json, len, &pz, NULL, 0) == TL_EFORMAT); }
    free(json);
    p.rate_mode = 3;
    CHECK(tl_generate(&p, NULL, &json, &len, NULL, pk, NULL) == TL_EINVAL);
}

/* A version-1 header (no rate_mode / setup_ms) serialises and parses; the
 * version is bound into H. */
static void t_v1_still_solves(void) {
    if (getenv("RXLOCK_TEST_NO_WORKERS")) {   /* tools/test-aarch64-rx.sh: qemu-user */
        fprintf(stderr, "SKIP t_v1_still_solves: RXLOCK_TEST_NO_WORKERS (worker processes too slow under emulation)\n");
        return;
    }
    tl_params p;
    memset(&p, 0, sizeof p);
    p.work = TL_WORK_SHA3_256;
    p.groups = 2;
    p.steps = 50;
    strcpy(p.rate_source, "none");
    char *json = NULL, *j1 = NULL;
    size_t len = 0, l1 = 0;
    uint8_t pk[32], x[32], got[32];
    CHECK(tl_generate(&p, NULL, &json, &len, NULL, pk, x) == 0 && json);
    if (!json) return;
    tl_puzzle *pz = NULL, *p1 = NULL;
    CHECK(tl_puzzle_parse(json, len, &pz, NULL, 0) == 0);
    if (!pz) { free(json); return; }
    pz->version = 1;   /* re-serialise as version 1: its own header and H */
    CHECK(tl_puzzle_to_json(pz, &j1, &l1) == 0 && j1);
    if (j1) {
        CHECK(strstr(j1, "\"rxlock_puzzle\": 1") && !strstr(j1, "rate_mode") && !strstr(j1, "setup_ms"));
        CHECK(tl_puzzle_parse(j1, l1, &p1, NULL, 0) == 0 && p1 && p1->version == 1);
        if (p1) {
            CHECK(tl_puzzle_verify(p1, NULL) == 0);
            CHECK(memcmp(p1->header_digest, pz->header_digest, 32) != 0);   /* H covers the version */
            /* the wraps are bound to H: a rewritten version (a downgrade that
             * drops the setup / mode) does not open (tests/cli/test_lock.sh
             * solves a real version-1 puzzle from tests/vectors) */
            CHECK(tl_solve(p1, NULL, got, NULL) == TL_EAUTH);
            pz->version = 2;
            CHECK(tl_solve(pz, NULL, got, NULL) == 0 && memcmp(got, x, 32) == 0);
        }
    }
    tl_puzzle_free(p1);
    tl_puzzle_free(pz);
    free(j1);
    free(json);
}

/* The sizing statistic is the typical rate: the run's mean, or with
 * several placements the best placement's mean (never the fastest
 * window); the spread is the windows'. */
static void t_sizing_statistic(void) {
    tl_calibration c;
    memset(&c, 0, sizeof c);
    c.rate = 100; c.rate_min = 90; c.rate_max = 110;
    CHECK(tl_calibration_sizing_rate(&c) == 100);
    CHECK(!strcmp(tl_calibration_sizing_statistic(&c), "the mean over the run"));
    CHECK(fabs(tl_calibration_spread(&c) - 20.0 / 110.0) < 1e-12);
    c.rate_min = c.rate_max = c.rate;
    CHECK(tl_calibration_spread(&c) == 0 && tl_calibration_sizing_rate(&c) == 100);
    CHECK(tl_calibration_sizing_rate(NULL) == 0 && tl_calibration_spread(NULL) == 0);
    /* the measured case: placements 134-137 H/s, fastest window 170.1 */
    c.rate = 135.5; c.rate_min = 118; c.rate_max = 170.1;
    c.allocations = 4;
    c.allocation_rates[0] = 134; c.allocation_rates[1] = 137; c.allocation_rates[2] = 135; c.allocation_rates[3] = 136;
    CHECK(tl_calibration_sizing_rate(&c) == 137);
    CHECK(!strcmp(tl_calibration_sizing_statistic(&c), "the best placement's mean"));
}

int main(void) {
    RUN(t_parse_small_file);
    RUN(t_refusals);
    RUN(t_builtin);
    RUN(t_promise);
    RUN(t_mode_policy);
    RUN(t_puzzle_v2_fields);
    RUN(t_v1_still_solves);
    RUN(t_sizing_statistic);
    return test_summary();
}
