/* SPDX-License-Identifier: ISC */
/* src/util/format.c — human-readable durations and rates ("1h02m03s",
 * "1.23 M"), for the CLI's progress lines and the lock layer's promise
 * and notice texts. */
#include "util/util.h"
#include <math.h>
#include <stdio.h>

void util_format_duration(char *buf, size_t cap, double s) {
    if (!(s >= 0) || s > 1e9) { snprintf(buf, cap, "?"); return; }
    if (s < 60) { snprintf(buf, cap, "%.1fs", s); return; }
    unsigned long t = (unsigned long)(s + 0.5);
    unsigned long d = t / 86400, h = t / 3600 % 24, m = t / 60 % 60, sec = t % 60;
    if (d) snprintf(buf, cap, "%lud%02luh%02lum", d, h, m);
    else if (h) snprintf(buf, cap, "%luh%02lum%02lus", h, m, sec);
    else snprintf(buf, cap, "%lum%02lus", m, sec);
}

void util_format_rate(char *buf, size_t cap, double r) {
    if (!(r >= 0) || isinf(r)) snprintf(buf, cap, "?");
    else if (r >= 1e6) snprintf(buf, cap, "%.2f M", r / 1e6);
    else if (r >= 1e4) snprintf(buf, cap, "%.1f k", r / 1e3);
    else snprintf(buf, cap, "%.1f", r);
}
