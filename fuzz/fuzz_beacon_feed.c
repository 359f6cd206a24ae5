/* SPDX-License-Identifier: ISC */
/* fuzz/fuzz_beacon_feed.c — libFuzzer target for the beacon feed parser
 * (src/lock/beacon/feed_parse.c) and beacon.json's (config.c): any bytes
 * as feed.json or beacon.json.  A refused input returns nothing and says
 * why; an accepted one is within its bounds, a feed's epochs strictly
 * increase and every sealed key names seal(E) (an accepted feed also had
 * a valid signature, which random bytes practically never carry: the
 * structure checks before it are what this target exercises). */
#include "rxlock/beacon.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    tl_beacon_feed *f = NULL;
    char err[256] = "";
    int rc = tl_beacon_feed_parse((const char *)data, size, NULL, &f, err, sizeof err);
    if (rc != 0) {
        if (f || !err[0]) abort();
    } else {
        if (!f || f->n > TL_BEACON_MAX_EPOCHS || tl_beacon_sched_check(&f->beacon, NULL, 0) != 0) abort();
        for (size_t k = 0; k < f->n; k++) {
            const tl_beacon_epoch *e = &f->epochs[k];
            if (k && e->index <= f->epochs[k - 1].index) abort();
            for (unsigned q = 0; q < e->nkeys; q++) {
                uint64_t j;
                if (e->keys[q].has_sealed && (!tl_beacon_seal(&f->beacon, e->index, &j) || j != e->keys[q].sealed_by))
                    abort();
            }
        }
        tl_beacon_feed_free(f);
    }
    tl_beacon_config c;
    err[0] = 0;
    if (tl_beacon_config_parse((const char *)data, size, &c, err, sizeof err) != 0) {
        if (!err[0]) abort();
    } else if (tl_beacon_sched_check(&c.s, NULL, 0) != 0) abort();
    return 0;
}
