/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/clock.c — the service's clock: `beacon run` sleeps on
 * the boot-time clock (monotonic, counting a suspend), in steps that end
 * just after each wall-clock second, and notices a wall-clock change (the
 * wall clock, tl_beacon_now, moved 2 s or more away from the monotonic
 * one since the last read), so that it never waits on a time computed
 * from a clock since corrected. */
#include "cli/beacon/beacon_cli.h"
#include <errno.h>
#include <time.h>

static double mono(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0 && clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int64_t bcn_clock_read(bcn_clock *c, int64_t *jump) {
    int64_t wall = tl_beacon_now();
    double m = mono();
    *jump = 0;
    if (c->init) {
        double d = (double)(wall - c->wall) - (m - c->mono);   /* the wall's move beyond the monotonic one */
        if (d >= 2.0 || d <= -2.0) *jump = (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
    }
    /* measured from the last read (about a second ago): a whole-second
     * wall clock is off by less than 1 s, and a slewed one never adds up */
    c->wall = wall;
    c->mono = m;
    c->init = 1;
    return wall;
}

int64_t bcn_clock_sleep_until(bcn_clock *c, int64_t at, const volatile int *stop) {
    for (;;) {
        int64_t jump, now = bcn_clock_read(c, &jump);
        if (jump) return jump;
        if (now >= at || (stop && *stop)) return 0;
        /* until just after the next second of the real clock (the test
         * clock moves with it): a release is made within milliseconds */
        struct timespec rt, ts;
        clock_gettime(CLOCK_REALTIME, &rt);
        long ns = 1000000000L - rt.tv_nsec + 5000000L;
        ts.tv_sec = ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        int e;
        while ((e = clock_nanosleep(CLOCK_BOOTTIME, 0, &ts, &ts)) == EINTR && !(stop && *stop)) {}
        if (e && e != EINTR) nanosleep(&ts, NULL);   /* no boot-time sleeps here: the monotonic one */
    }
}
