/* SPDX-License-Identifier: ISC */
/* fuzz/fuzz_floor.c — libFuzzer target for the floor-table parser (issue
 * 19, src/lock/measure/floor.c): any bytes as a table file.  A table is either
 * refused whole (no rows) or every row is sane: a known work, 0 < rate <=
 * 1e15, a printable non-empty machine name, and the fastest row is one of
 * them with the largest rate. */
#include "rxlock/calibrate.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static tl_floor_table t;
    char err[200];
    if (tl_floor_parse((const char *)data, size, &t, err, sizeof err) != 0) {
        if (t.n != 0 || !err[0]) abort();
        return 0;
    }
    if (t.n == 0 || t.n > TL_FLOOR_MAX_ROWS) abort();
    for (unsigned k = 0; k < t.n; k++) {
        const tl_floor_row *r = &t.rows[k];
        if (!tl_work_name(r->work) || !(r->rate > 0) || r->rate > 1e15 || !isfinite(r->rate)) abort();
        size_t n = strnlen(r->machine, sizeof r->machine);
        if (n == 0 || n >= sizeof r->machine) abort();
        for (size_t i = 0; i < n; i++) if (r->machine[i] < 0x20 || r->machine[i] > 0x7e) abort();
        const tl_floor_row *f = tl_floor_fastest(&t, r->work);
        if (!f || f->rate < r->rate) abort();
        uint64_t h;
        int rc = tl_floor_hashes(f, 3600.0, &h);
        if (rc == 0 && (h < 1 || h > TL_MAX_TOTAL)) abort();
    }
    return 0;
}
