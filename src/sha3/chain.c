/* SPDX-License-Identifier: ISC */
/* src/sha3/chain.c — backend dispatch (the one place a Keccak backend is
 * chosen; RXLOCK_SHA3=<name> forces one) and the fused chain entry points
 * sha3_chain, sha3_chain_ctr, sha3_backend. */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "util/le.h"
#include <sodium.h>

static const sha3_impl *const impls[] = {
#if defined(SHA3_HAVE_ARMV8_SHA3)
    &sha3_impl_armv8_sha3,
#endif
#if defined(__x86_64__)
    &sha3_impl_avx512,
    &sha3_impl_bmi2,
#endif
    &sha3_impl_portable,
};

const sha3_impl *const *sha3_impls(size_t *n) {
    *n = sizeof impls / sizeof impls[0];
    return impls;
}

const sha3_impl *sha3_impl_select(void) {
    static _Atomic(const sha3_impl *) chosen;
    const sha3_impl *p = atomic_load_explicit(&chosen, memory_order_acquire);
    if (p) return p;
    p = NULL;
    const char *want = getenv("RXLOCK_SHA3");   /* a benchmark / test switch */
    for (size_t i = 0; want && !p && i < sizeof impls / sizeof impls[0]; i++)
        if (strcmp(want, impls[i]->name) == 0 && impls[i]->available()) p = impls[i];
    for (size_t i = 0; !p && i < sizeof impls / sizeof impls[0]; i++)
        if (impls[i]->available()) p = impls[i];
    if (!p) p = &sha3_impl_portable;
    atomic_store_explicit(&chosen, p, memory_order_release);
    return p;
}

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
