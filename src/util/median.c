/* SPDX-License-Identifier: ISC */
/* src/util/median.c — a sample's median: sorted in place, so that its
 * smallest and largest are v[0] and v[n - 1] after the call (the windows of
 * a throughput measurement, the pace a beacon kept, a bench's repetitions). */
#include "util/util.h"
#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double util_median(double *v, size_t n) {
    if (!n) return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
