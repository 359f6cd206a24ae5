/* SPDX-License-Identifier: ISC */
/* src/sha3/chain.c — the fused chain entry points sha3_chain,
 * sha3_chain_ctr, sha3_backend (the backend is dispatch.c's choice). */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include "util/le.h"
#include <sodium.h>

void sha3_chain_with(const sha3_impl *impl, uint8_t state[32], uint64_t steps) {
    uint64_t x[4];
    for (int i = 0; i < 4; i++) x[i] = util_load64le(state + 8 * i);
    impl->chain(x, steps);
    for (int i = 0; i < 4; i++) util_store64le(state + 8 * i, x[i]);
}

void sha3_chain(uint8_t state[32], uint64_t steps) {
    sha3_chain_with(sha3_impl_select(), state, steps);
}

void sha3_prefix_lanes(uint64_t pre[8], const uint8_t prefix[60]) {
    for (int j = 0; j < 7; j++) pre[j] = util_load64le(prefix + 8 * j);
    pre[7] = util_load32le(prefix + 56);
}

void sha3_chain_ctr_with(const sha3_impl *impl, const uint8_t prefix[60], uint64_t i0,
                         uint64_t steps, uint8_t d[32]) {
    uint64_t pre[8], x[4];
    sha3_prefix_lanes(pre, prefix);
    for (int i = 0; i < 4; i++) x[i] = util_load64le(d + 8 * i);
    impl->chain_ctr(pre, i0, steps, x);
    for (int i = 0; i < 4; i++) util_store64le(d + 8 * i, x[i]);
    /* the prefix can hold a key and x a secret chain value: clear them */
    sodium_memzero(pre, sizeof pre);
    sodium_memzero(x, sizeof x);
}

void sha3_chain_ctr(const uint8_t prefix[60], uint64_t i0, uint64_t steps, uint8_t d[32]) {
    sha3_chain_ctr_with(sha3_impl_select(), prefix, i0, steps, d);
}

const char *sha3_backend(void) {
    return sha3_impl_select()->name;
}
