/* tests/test_bench_calibrate.c — src/lock/calibrate.c: the calibration file
 * round trip and its validation, and a short real measurement (sha3-256). */
#include "test.h"
#include "rxlock/calibrate.h"
#include <math.h>

static void t_roundtrip(void) {
    tl_calibration c, d;
    memset(&c, 0, sizeof c);
    c.work = TL_WORK_RANDOMX_V1; c.mode = TL_MODE_FULL;
    c.rate = 1234.5; c.rate_min = 1200.25; c.rate_max = 1250; c.seconds = 10.0;
    snprintf(c.cpu, sizeof c.cpu, "Test CPU @ 3 GHz");
    snprintf(c.created, sizeof c.created, "2026-12-02T12:00:00Z");
    char *j = NULL; size_t n = 0; char err[128];
    CHECK(tl_calibration_to_json(&c, &j, &n) == 0 && j && n == strlen(j));
    if (!j) return;
    CHECK(strstr(j, "\"rxlock_calibration\": 1") != NULL);
    CHECK(tl_calibration_parse(j, n, &d, err, sizeof err) == 0);
    CHECK(d.work == TL_WORK_RANDOMX_V1 && d.mode == TL_MODE_FULL);
    CHECK(fabs(d.rate - 1234.5) < 1e-6 && fabs(d.rate_min - 1200.25) < 1e-6 && d.rate_max == 1250);
    CHECK(strcmp(d.cpu, c.cpu) == 0 && strcmp(d.created, c.created) == 0);
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
    CHECK(bad("{\"rxlock_calibration\":1,\"work\":\"randomx-v2\",\"mode\":\"light\"," GOOD_TAIL, 0));
    CHECK(bad("{\"rxlock_calibration\":2,\"work\":\"randomx-v2\",\"mode\":\"light\"," GOOD_TAIL, TL_EVERSION));
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

static void t_measure_sha3(void) {
    tl_calibration c;
    CHECK(tl_calibrate(TL_WORK_SHA3_256, TL_MODE_LIGHT, 0.3, NULL, NULL, &c) == 0);
    CHECK(c.hashes > 0 && c.windows == 3);
    CHECK(c.rate_min > 0 && c.rate_min <= c.rate && c.rate <= c.rate_max);
    CHECK(c.seconds >= 0.3 && c.work == TL_WORK_SHA3_256);
    CHECK(strlen(c.created) == 20 && c.cpu[0]);
    volatile int stop = 1;
    CHECK(tl_calibrate(TL_WORK_SHA3_256, TL_MODE_LIGHT, 0.3, NULL, (const volatile int *)&stop, &c) == TL_EINTR);
    CHECK(tl_calibrate(TL_WORK_SHA3_256, TL_MODE_LIGHT, 0, NULL, NULL, &c) == TL_EINVAL);
    CHECK(tl_calibrate((tl_work_type)99, TL_MODE_LIGHT, 1, NULL, NULL, &c) == TL_EINVAL);
}

int main(void) {
    RUN(t_roundtrip);
    RUN(t_validation);
    RUN(t_measure_sha3);
    return test_summary();
}
