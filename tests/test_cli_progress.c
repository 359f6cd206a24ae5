/* SPDX-License-Identifier: ISC */
/* tests/test_cli_progress.c — src/cli/progress.c: duration/rate formats,
 * silent unless forced when stderr is not a TTY, forced output lines. */
#include "test.h"
#include "cli/progress.h"
#include <unistd.h>

static void t_format(void) {
    char b[32];
    util_format_duration(b, sizeof b, 7.25); CHECK(strcmp(b, "7.2s") == 0 || strcmp(b, "7.3s") == 0);
    util_format_duration(b, sizeof b, 245); CHECK(strcmp(b, "4m05s") == 0);
    util_format_duration(b, sizeof b, 3723); CHECK(strcmp(b, "1h02m03s") == 0);
    util_format_duration(b, sizeof b, 2 * 86400.0 + 3600); CHECK(strcmp(b, "2d01h00m") == 0);
    util_format_duration(b, sizeof b, -1); CHECK(strcmp(b, "?") == 0);
    util_format_rate(b, sizeof b, 12.34); CHECK(strcmp(b, "12.3") == 0);
    util_format_rate(b, sizeof b, 45678); CHECK(strcmp(b, "45.7 k") == 0);
    util_format_rate(b, sizeof b, 6.81e6); CHECK(strcmp(b, "6.81 M") == 0);
}

static void t_modes(void) {
    pbar p;
    CHECK(pbar_wanted(PBAR_FORCE) == 1);
    CHECK(pbar_wanted(PBAR_NEVER) == 0);
    CHECK(pbar_wanted(PBAR_AUTO) == isatty(2));
    FILE *fp = tmpfile();
    CHECK(fp != NULL);
    if (!fp) return;
    /* NEVER: nothing at all */
    pbar_init(&p, "x", 10, 0, PBAR_NEVER);
    p.fp = fp;
    pbar_update(&p, 5); pbar_done(&p);
    CHECK(ftell(fp) == 0);
    /* FORCE: a final line with done/total and the label */
    pbar_init(&p, "solve", 100, 40, PBAR_FORCE);
    p.fp = fp; p.tty = 0; p.interval = 0;
    pbar_update(&p, 50);
    pbar_done(&p);
    char buf[512] = {0};
    rewind(fp);
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    CHECK(n > 0);
    CHECK(strstr(buf, "solve: 50/100 (50.0%)") != NULL);
    CHECK(strstr(buf, "ETA") != NULL);
    CHECK(strstr(buf, "H/s") != NULL);
    fclose(fp);
}

int main(void) {
    RUN(t_format);
    RUN(t_modes);
    return test_summary();
}
