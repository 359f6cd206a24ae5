/* SPDX-License-Identifier: ISC */
/* fuzz/fuzz_journal.c — libFuzzer target for the journal scanner: any bytes
 * as a journal image, bound to the H found at its header offset (so seeds
 * taken from real journals reach the entry checks) and to a fixed H.  The
 * valid length must be consistent and re-scanning the valid prefix must give
 * the same last entry. */
#include "lock/core/core_internal.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t H[2][32];
    memset(H[1], 0x42, 32);
    if (size >= 56) memcpy(H[0], data + 24, 32); else memset(H[0], 0, 32);
    for (int k = 0; k < 2; k++) {
        int have = 0, have2 = 0;
        uint32_t g = 0, g2 = 0;
        uint64_t i = 0, i2 = 0;
        uint8_t d[32], d2[32];
        size_t valid = 0, valid2 = 0;
        if (tl_journal_scan(data, size, H[k], &have, &g, &i, d, &valid) != 0) continue;
        if (valid > size) abort();
        if (valid && (valid < TL_JOURNAL_HEADER_SIZE ||
                      (valid - TL_JOURNAL_HEADER_SIZE) % TL_JOURNAL_ENTRY_SIZE != 0)) abort();
        if (valid >= TL_JOURNAL_HEADER_SIZE) {
            if (tl_journal_scan(data, valid, H[k], &have2, &g2, &i2, d2, &valid2) != 0) abort();
            if (valid2 != valid || have2 != have || (have && (g2 != g || i2 != i || memcmp(d, d2, 32)))) abort();
        }
    }
    return 0;
}
