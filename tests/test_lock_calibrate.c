/* SPDX-License-Identifier: ISC */
/* tests/test_lock_calibrate.c — src/lock/measure/calibrate.c: the calibration file
 * round trip (version 6 — jit_install with the JIT; version 5 — allocations, allocation_rates, window_spread for
 * full-mode RandomX; version 4 — dataset_huge_pages; version 3: RandomX records mode / engine / AES, SHA3 none of
 * them; setup, windows, load average) and its validation (version-1 files still read), and short real
 * measurements (sha3-256; RandomX light with an injected JIT failure) with
 * the public progress callback. */
#include "test.h"
#include "rxlock/calibrate.h"
#include <math.h>

static void t_roundtrip(void) {
    tl_calibration c, d;
    memset(&c, 0, sizeof c);
    c.work = TL_WORK_RANDOMX_V1; c.mode = TL_MODE_FULL;
    c.engine.engine = "jit"; c.engine.aes = "hardware";
    c.rate = 1234.5; c.rate_min = 1200.25; c.rate_max = 1250; c.seconds = 10.0;
    snprintf(c.cpu, sizeof c.cpu, "Test CPU @ 3 GHz");
    snprintf(c.created, sizeof c.created, "2026-12-02T12:00:00Z");
    char *j = NULL; size_t n = 0; char err[128];
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j && n == strlen(j));
    if (!j) return;
    CHECK(strstr(j, "\"rxlock_calibration\": 6") != NULL);
    CHECK(!strstr(j, "jit_install"));   /* not recorded: left out */
    CHECK(!strstr(j, "allocations"));   /* a measurement always sets it: 0 = not recorded */
    CHECK(strstr(j, "\"dataset_huge_pages\": ") != NULL);   /* full-mode RandomX: version 4 */
    CHECK(strstr(j, "\"setup_seconds\": ") && strstr(j, "\"windows\": ") && strstr(j, "\"load_average\": "));
    CHECK(strstr(j, "\"engine\": \"jit\"") != NULL && strstr(j, "\"aes\": \"hardware\"") != NULL);
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0);
    CHECK(d.work == TL_WORK_RANDOMX_V1 && d.mode == TL_MODE_FULL);
    CHECK(d.engine.engine && !strcmp(d.engine.engine, "jit") && d.engine.aes && !strcmp(d.engine.aes, "hardware"));
    CHECK(d.engine.mode && !strcmp(d.engine.mode, "full") && d.engine.version == 1);
    CHECK(fabs(d.rate - 1234.5) < 1e-6 && fabs(d.rate_min - 1200.25) < 1e-6 && d.rate_max == 1250);
    CHECK(strcmp(d.cpu, c.cpu) == 0 && strcmp(d.created, c.created) == 0);
    CHECK(d.huge_share == 0);
    CHECK(d.engine.install == NULL);
    free(j);
    c.engine.install = "proc-mem";   /* version 6: the JIT's install */
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j);
    if (!j) return;
    CHECK(strstr(j, "\"jit_install\": \"proc-mem\"") != NULL && strstr(j, "\"aes\"") < strstr(j, "\"jit_install\""));
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0 && d.engine.install && !strcmp(d.engine.install, "proc-mem"));
    free(j);
    c.engine.install = NULL;
    c.huge_share = 0.75;
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j);
    if (!j) return;
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0 && fabs(d.huge_share - 0.75) < 1e-9);
    free(j);
    /* version 5: several placements, each with its rate; the noise is the
     * windows' spread inside one, the placement spread is between them */
    c.allocations = 3;
    c.allocation_rates[0] = 1210; c.allocation_rates[1] = 1240; c.allocation_rates[2] = 1100;
    c.window_spread = 0.02;
    CHECK(fabs(tl_calibration_spread(&c) - 0.02) < 1e-12);
    CHECK(fabs(tl_calibration_placement_spread(&c) - 140.0 / 1240.0) < 1e-12);
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j);
    if (!j) return;
    CHECK(strstr(j, "\"allocations\": 3") && strstr(j, "\"allocation_rates\": [") && strstr(j, "\"window_spread\": "));
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0 && d.allocations == 3 &&
          fabs(d.allocation_rates[2] - 1100) < 1e-9 && fabs(d.window_spread - 0.02) < 1e-12);
    CHECK(fabs(tl_calibration_placement_spread(&d) - 140.0 / 1240.0) < 1e-12);
    free(j);
    c.allocations = 1;   /* one placement: its rate is the run's, the noise the windows' spread */
    CHECK(fabs(tl_calibration_spread(&c) - 49.75 / 1250.0) < 1e-12 && tl_calibration_placement_spread(&c) == 0);
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j);
    if (!j) return;
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0 && d.allocations == 1 &&
          fabs(d.allocation_rates[0] - 1234.5) < 1e-9 && tl_calibration_placement_spread(&d) == 0);
    free(j);
    c.allocations = 0;
    c.huge_share = -1;   /* unknown: not written, read back as -1 */
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j);
    if (!j) return;
    CHECK(!strstr(j, "dataset_huge_pages"));
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0 && d.huge_share == -1);
    free(j);
    /* SHA3: no mode, engine or aes in the file (they mean nothing there) */
    c.work = TL_WORK_SHA3_256;
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j);
    if (!j) return;
    CHECK(!strstr(j, "mode") && !strstr(j, "engine") && !strstr(j, "aes"));
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0);
    CHECK(d.work == TL_WORK_SHA3_256 && !d.engine.mode && !d.engine.engine && !d.engine.aes);
    free(j);
}

static int bad(const char *s, int want) {
    tl_calibration d; char err[128] = "";
    int rc = tl_calibration_parse(s, strlen(s), &d, err, sizeof err);
    if (rc != want) fprintf(stderr, "  parse(%s) = %d (%s), want %d\n", s, rc, err, want);
    return rc == want && (rc == 0 || err[0]);
}

#define GOOD_TAIL "\"rate\":10,\"rate_min\":9,\"rate_max\":11,\"seconds\":5,\"cpu\":\"x\",\"created\":\"2026-01-01T00:00:00Z\"}"
static void t_validation(void) {
    /* version 1 (mode for every work, no engine) is still read */
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"randomx-v2\",\"mode\":\"light\"," GOOD_TAIL, 0));
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"sha3-256\",\"mode\":\"light\"," GOOD_TAIL, 0));
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"randomx-v2\",\"mode\":\"light\",\"engine\":\"jit\","
              "\"aes\":\"hardware\"," GOOD_TAIL, TL_EFORMAT));
    /* version 2: RandomX needs mode, engine, aes; SHA3 has none of them */
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"randomx-v2\",\"mode\":\"light\",\"engine\":\"jit\","
              "\"aes\":\"hardware\"," GOOD_TAIL, 0));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"randomx-v2\",\"mode\":\"light\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"randomx-v2\",\"mode\":\"light\",\"engine\":\"fast\","
              "\"aes\":\"hardware\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"randomx-v1\",\"mode\":\"full\",\"engine\":\"interpreter\","
              "\"aes\":\"quantum\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"sha3-256\"," GOOD_TAIL, 0));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"sha3-256\",\"mode\":\"light\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"sha3-256\",\"engine\":\"jit\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":7,\"work\":\"randomx-v2\",\"mode\":\"light\"," GOOD_TAIL, TL_EVERSION));
    /* version 3 (the promise): setup_seconds, windows, load_average required; not in version 2 */
#define V3_TAIL "\"rate\":10,\"rate_min\":9,\"rate_max\":11,\"seconds\":5,\"cpu\":\"x\",\"created\":\"2026-01-01T00:00:00Z\""
    CHECK(bad("{\"rxlock_calibration\":3,\"work\":\"sha3-256\"," V3_TAIL ",\"setup_seconds\":0.5,\"windows\":5,\"load_average\":0.2}", 0));
    CHECK(bad("{\"rxlock_calibration\":3,\"work\":\"sha3-256\"," V3_TAIL "}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":3,\"work\":\"sha3-256\"," V3_TAIL ",\"setup_seconds\":-1,\"windows\":5,\"load_average\":0.2}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"sha3-256\"," V3_TAIL ",\"setup_seconds\":0.5,\"windows\":5,\"load_average\":0.2}", TL_EFORMAT));
    /* version 4 (the promise): dataset_huge_pages, RandomX only, 0..1, not before version 4 */
#define V4_RX "{\"rxlock_calibration\":4,\"work\":\"randomx-v2\",\"mode\":\"full\",\"engine\":\"jit\",\"aes\":\"hardware\"," V3_TAIL ",\"setup_seconds\":30,\"windows\":5,\"load_average\":0.2"
    CHECK(bad(V4_RX ",\"dataset_huge_pages\":1}", 0));
    CHECK(bad(V4_RX ",\"dataset_huge_pages\":0}", 0));
    CHECK(bad(V4_RX "}", 0));
    CHECK(bad(V4_RX ",\"dataset_huge_pages\":1.5}", TL_EFORMAT));
    CHECK(bad(V4_RX ",\"dataset_huge_pages\":-0.5}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":4,\"work\":\"sha3-256\"," V3_TAIL ",\"setup_seconds\":0,\"windows\":5,\"load_average\":0.2,\"dataset_huge_pages\":1}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":3,\"work\":\"randomx-v2\",\"mode\":\"full\",\"engine\":\"jit\",\"aes\":\"hardware\"," V3_TAIL ",\"setup_seconds\":30,\"windows\":5,\"load_average\":0.2,\"dataset_huge_pages\":1}", TL_EFORMAT));
    /* version 5 (the promise): allocations, allocation_rates, window_spread: full-mode RandomX, all three */
#define V5_RX "{\"rxlock_calibration\":5,\"work\":\"randomx-v2\",\"mode\":\"full\",\"engine\":\"jit\",\"aes\":\"hardware\"," V3_TAIL ",\"setup_seconds\":30,\"windows\":6,\"load_average\":0.2,\"dataset_huge_pages\":1"
    CHECK(bad(V5_RX ",\"allocations\":2,\"allocation_rates\":[10,11],\"window_spread\":0.05}", 0));
    CHECK(bad(V5_RX "}", 0));
    /* version 6: jit_install, with the JIT only, one of two values; not before version 6 */
#define V6_RX "{\"rxlock_calibration\":6,\"work\":\"randomx-v2\",\"mode\":\"full\",\"engine\":\"jit\",\"aes\":\"hardware\""
#define V6_TAIL "," V3_TAIL ",\"setup_seconds\":30,\"windows\":6,\"load_average\":0.2,\"dataset_huge_pages\":1}"
    CHECK(bad(V6_RX ",\"jit_install\":\"mprotect\"" V6_TAIL, 0));
    CHECK(bad(V6_RX ",\"jit_install\":\"proc-mem\"" V6_TAIL, 0));
    CHECK(bad(V6_RX V6_TAIL, 0));
    CHECK(bad(V6_RX ",\"jit_install\":\"rwx\"" V6_TAIL, TL_EFORMAT));
    CHECK(bad(V6_RX ",\"jit_install\":1" V6_TAIL, TL_EFORMAT));
    CHECK(bad(V5_RX ",\"jit_install\":\"mprotect\"}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":6,\"work\":\"randomx-v2\",\"mode\":\"full\",\"engine\":\"interpreter\",\"aes\":\"hardware\""
              ",\"jit_install\":\"mprotect\"" V6_TAIL, TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":2,\"allocation_rates\":[10,11]}", TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":3,\"allocation_rates\":[10,11],\"window_spread\":0.05}", TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":0,\"allocation_rates\":[],\"window_spread\":0.05}", TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":9,\"allocation_rates\":[10,10,10,10,10,10,10,10,10],\"window_spread\":0}", TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":1.5,\"allocation_rates\":[10],\"window_spread\":0}", TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":2,\"allocation_rates\":[10,12],\"window_spread\":0.05}", TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":2,\"allocation_rates\":[10,\"11\"],\"window_spread\":0.05}", TL_EFORMAT));
    CHECK(bad(V5_RX ",\"allocations\":2,\"allocation_rates\":[10,11],\"window_spread\":1.5}", TL_EFORMAT));
    CHECK(bad(V4_RX ",\"allocations\":2,\"allocation_rates\":[10,11],\"window_spread\":0.05}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":5,\"work\":\"randomx-v2\",\"mode\":\"light\",\"engine\":\"jit\",\"aes\":\"hardware\"," V3_TAIL
              ",\"setup_seconds\":3,\"windows\":6,\"load_average\":0.2,\"allocations\":2,\"allocation_rates\":[10,11],\"window_spread\":0.05}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":5,\"work\":\"sha3-256\"," V3_TAIL ",\"setup_seconds\":0,\"windows\":5,\"load_average\":0.2,\"allocations\":1,\"allocation_rates\":[10],\"window_spread\":0}", TL_EFORMAT));
    CHECK(bad("{\"work\":\"randomx-v2\",\"mode\":\"light\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"md5\",\"mode\":\"light\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"sha3-256\",\"mode\":\"medium\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":1,\"extra\":1,\"work\":\"sha3-256\",\"mode\":\"light\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"sha3-256\",\"mode\":\"light\",\"rate\":10,\"rate_min\":12,"
              "\"rate_max\":11,\"seconds\":5,\"cpu\":\"x\",\"created\":\"2026-01-01T00:00:00Z\"}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"sha3-256\",\"mode\":\"light\",\"rate\":\"10\",\"rate_min\":9,"
              "\"rate_max\":11,\"seconds\":5,\"cpu\":\"x\",\"created\":\"2026-01-01T00:00:00Z\"}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"sha3-256\",\"mode\":\"light\",\"rate\":10,\"rate_min\":9,"
              "\"rate_max\":11,\"seconds\":5,\"cpu\":\"x\",\"created\":\"yesterday\"}", TL_EFORMAT));
    CHECK(bad("{\"rxlock_calibration\":1,\"rxlock_calibration\":1,\"work\":\"sha3-256\",\"mode\":\"light\"," GOOD_TAIL, TL_EFORMAT));
    CHECK(bad("[1,2]", TL_EFORMAT));
    CHECK(bad("not json", TL_EFORMAT));
    char big[TL_CALIBRATION_MAX_BYTES + 10];
    memset(big, ' ', sizeof big - 1); big[sizeof big - 1] = 0;
    CHECK(bad(big, TL_ETOOBIG));
}

struct seen { int calls, first_has_engine, first_done_zero, later_totals; const char *fallback; };
static int on_progress(const tl_progress *p, void *ctx) {
    struct seen *s = ctx;
    if (s->calls++ == 0) {
        s->first_has_engine = p->engine != NULL;
        s->first_done_zero = p->hashes_done == 0;
        s->fallback = p->engine ? p->engine->fallback : NULL;
    } else if (p->hashes_total >= p->hashes_done && p->hashes_done > 0) {
        s->later_totals++;
    }
    return 0;
}
static int cancel_first(const tl_progress *p, void *ctx) { (void)p; (void)ctx; return 1; }

static void t_measure_sha3(void) {
    tl_calibration c;
    struct seen s = {0};
    tl_calibrate_opts o = { .progress = on_progress, .progress_ctx = &s, .progress_interval = 0.05 };
    CHECK(tl_calibrate(TL_WORK_SHA3_256, TL_MODE_LIGHT, 0.3, &o, &c) == 0);
    CHECK(s.calls >= 2 && s.first_has_engine && s.first_done_zero && s.later_totals >= 1);
    CHECK(c.engine.work == TL_WORK_SHA3_256 && !c.engine.engine && !c.engine.mode);
    CHECK(c.hashes > 0 && c.windows == 3);
    CHECK(c.rate_min > 0 && c.rate_min <= c.rate && c.rate <= c.rate_max);
    CHECK(c.seconds >= 0.3 && c.work == TL_WORK_SHA3_256);
    CHECK(strlen(c.created) == 20 && c.cpu[0]);
    tl_calibrate_opts oc = { .progress = cancel_first };
    CHECK(tl_calibrate(TL_WORK_SHA3_256, TL_MODE_LIGHT, 0.3, &oc, &c) == TL_EINTR);
    volatile int stop = 1;
    tl_calibrate_opts os = { .stop = (const volatile int *)&stop };
    CHECK(tl_calibrate(TL_WORK_SHA3_256, TL_MODE_LIGHT, 0.3, &os, &c) == TL_EINTR);
    CHECK(tl_calibrate(TL_WORK_SHA3_256, TL_MODE_LIGHT, 0, NULL, &c) == TL_EINVAL);
    CHECK(tl_calibrate((tl_work_type)99, TL_MODE_LIGHT, 1, NULL, &c) == TL_EINVAL);
}

/* RandomX light with the JIT made to fail (test build): by default the
 * interpreter runs and the engine says why; RXLOCK_ENGINE=jit is an error. */
static void t_engine_fallback(void) {
    if (getenv("RXLOCK_TEST_QUICK")) return;   /* builds a 256 MiB cache */
    tl_calibration c;
    struct seen s = {0};
    tl_calibrate_opts o = { .progress = on_progress, .progress_ctx = &s };
    setenv("RXLOCK_TEST_JIT_FAIL", "1", 1);
    CHECK(tl_calibrate(TL_WORK_RANDOMX_V2, TL_MODE_LIGHT, 0.1, &o, &c) == 0);
    CHECK(c.engine.engine && !strcmp(c.engine.engine, "interpreter") && c.engine.fallback != NULL);
    CHECK(s.first_has_engine && s.fallback == c.engine.fallback);
    CHECK(c.engine.version == 2 && c.engine.mode && !strcmp(c.engine.mode, "light"));
    CHECK(tl_engine_check(TL_WORK_RANDOMX_V2) != NULL && tl_engine_check(TL_WORK_SHA3_256) == NULL);
    setenv("RXLOCK_ENGINE", "jit", 1);
    CHECK(tl_calibrate(TL_WORK_RANDOMX_V2, TL_MODE_LIGHT, 0.1, NULL, &c) != 0);   /* no silent interpreter */
    setenv("RXLOCK_ENGINE", "interp", 1);
    CHECK(tl_engine_check(TL_WORK_RANDOMX_V2) == NULL);
    CHECK(tl_calibrate(TL_WORK_RANDOMX_V2, TL_MODE_LIGHT, 0.1, NULL, &c) == 0);
    CHECK(c.engine.engine && !strcmp(c.engine.engine, "interpreter") && c.engine.fallback == NULL);
    unsetenv("RXLOCK_ENGINE");
    unsetenv("RXLOCK_TEST_JIT_FAIL");
#if defined(__x86_64__) || defined(__aarch64__)
    CHECK(tl_calibrate(TL_WORK_RANDOMX_V2, TL_MODE_LIGHT, 0.1, NULL, &c) == 0);
    CHECK(c.engine.engine && !strcmp(c.engine.engine, "jit") && c.engine.fallback == NULL);
#endif
}

int main(void) {
    RUN(t_roundtrip);
    RUN(t_validation);
    RUN(t_measure_sha3);
    RUN(t_engine_fallback);
    return test_summary();
}
