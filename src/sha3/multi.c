/* SPDX-License-Identifier: ISC */
/* src/sha3/multi.c — multi-chain hashing: the portable one-lane backend,
 * and sha3_chain_ctr_multi, which packs any
 * number of chains into the backend's lanes (a partial last batch repeats
 * its last chain in the spare lanes and drops their results). */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include <string.h>
#include "util/le.h"
#include <sodium.h>

/* One lane: the selected single-chain backend's counter chain. */
static void portable_multi_chain_ctr(sha3_lanes *st, uint64_t steps) {
    uint64_t pre[8], x[4];
    for (int j = 0; j < 8; j++) pre[j] = st->pre[j][0];
    for (int k = 0; k < 4; k++) x[k] = st->x[k][0];
    sha3_impl_select()->chain_ctr(pre, st->ctr[0], steps, x);
    for (int k = 0; k < 4; k++) st->x[k][0] = x[k];
    st->ctr[0] += steps;
    sodium_memzero(pre, sizeof pre);
    sodium_memzero(x, sizeof x);
}

static int portable_multi_available(void) { return 1; }

const sha3_multi_impl sha3_multi_portable = {
    "portable", 1, portable_multi_available, portable_multi_chain_ctr,
};

void sha3_chain_ctr_multi_with(const sha3_multi_impl *impl, size_t n, const uint8_t (*prefix)[60],
                               const uint64_t *i0, uint64_t steps, uint8_t (*d)[32]) {
    sha3_lanes st;
    const size_t L = impl->lanes;
    for (size_t base = 0; base < n; base += L) {
        for (size_t c = 0; c < L; c++) {
            size_t src = base + c < n ? base + c : n - 1;   /* spare lanes: repeat the last chain */
            uint64_t pre[8];
            sha3_prefix_lanes(pre, prefix[src]);
            for (int j = 0; j < 8; j++) st.pre[j][c] = pre[j];
            st.ctr[c] = i0[src];
            for (int k = 0; k < 4; k++) st.x[k][c] = util_load64le(d[src] + 8 * k);
            sodium_memzero(pre, sizeof pre);
        }
        impl->chain_ctr(&st, steps);
        for (size_t c = 0; c < L && base + c < n; c++)
            for (int k = 0; k < 4; k++) util_store64le(d[base + c] + 8 * k, st.x[k][c]);
    }
    /* prefixes can hold a key and the chain values are secrets: clear them */
    sodium_memzero(&st, sizeof st);
}

void sha3_chain_ctr_multi(size_t n, const uint8_t (*prefix)[60], const uint64_t *i0,
                          uint64_t steps, uint8_t (*d)[32]) {
    sha3_chain_ctr_multi_with(sha3_multi_select(), n, prefix, i0, steps, d);
}

const char *sha3_multi_backend(void) {
    return sha3_multi_select()->name;
}

unsigned sha3_multi_lanes(void) {
    return sha3_multi_select()->lanes;
}
