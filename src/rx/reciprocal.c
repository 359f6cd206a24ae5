/* SPDX-License-Identifier: ISC */
/* src/rx/reciprocal.c — rx_reciprocal: the IMUL_RCP multiplier
 * floor(2^x / d) with x = 63 + bitlen(d) (RandomX spec 5.2.6), computed by
 * binary long division so it needs no 128-bit integer type. */
#include "rx/internal.h"

uint64_t rx_reciprocal(uint64_t divisor) {
    if (divisor == 0) return 0;   /* undefined by contract; never trap */
    unsigned bits = 0;
    for (uint64_t v = divisor; v; v >>= 1) bits++;
    /* Start with 2^63 = q*d + r, then shift in `bits` more zero bits. */
    const uint64_t top = 1ull << 63;
    uint64_t q = top / divisor, r = top % divisor;
    for (unsigned i = 0; i < bits; i++) {
        /* 2r >= d  <=>  r >= d - r  (no overflow: r < d) */
        if (r >= divisor - r) {
            q = (q << 1) | 1u;
            r = r - (divisor - r);
        } else {
            q <<= 1;
            r <<= 1;
        }
    }
    return q;
}
