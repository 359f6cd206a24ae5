/* SPDX-License-Identifier: ISC */
/* src/sha3/dispatch.c — the one place a Keccak backend is chosen: the
 * tables of compiled-in backends (single-chain, best first; multi-chain,
 * widest first) and their selection, made once per process: the backend a
 * switch names when this CPU runs it (RXLOCK_SHA3=<name>,
 * RXLOCK_SHA3_MULTI=<name>: benchmark and test switches), else the first
 * the CPU runs. */
#include "sha3/internal.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

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
#define NIMPL (sizeof impls / sizeof impls[0])

static const sha3_multi_impl *const multi_impls[] = {
#if defined(__x86_64__)
    &sha3_multi_avx512,
    &sha3_multi_avx2,
#endif
#if defined(SHA3_HAVE_ARMV8_SHA3)
    &sha3_multi_armv8_sha3,
#endif
    &sha3_multi_portable,
};
#define NMULTI (sizeof multi_impls / sizeof multi_impls[0])

const sha3_impl *const *sha3_impls(size_t *n) {
    *n = NIMPL;
    return impls;
}

const sha3_multi_impl *const *sha3_multi_impls(size_t *n) {
    *n = NMULTI;
    return multi_impls;
}

/* The index of the entry to use among n (name(i), available(i)): the one
 * the environment variable `env` names when available, else the first
 * available, else the last (the portable one, always available). */
static size_t pick(const char *env, size_t n, const char *(*name)(size_t), int (*available)(size_t)) {
    const char *want = getenv(env);
    for (size_t i = 0; want && i < n; i++)
        if (strcmp(want, name(i)) == 0 && available(i)) return i;
    for (size_t i = 0; i < n; i++)
        if (available(i)) return i;
    return n - 1;
}
static const char *impl_name(size_t i) { return impls[i]->name; }
static int impl_available(size_t i) { return impls[i]->available(); }
static const char *multi_name(size_t i) { return multi_impls[i]->name; }
static int multi_available(size_t i) { return multi_impls[i]->available(); }

const sha3_impl *sha3_impl_select(void) {
    static _Atomic(const sha3_impl *) chosen;
    const sha3_impl *p = atomic_load_explicit(&chosen, memory_order_acquire);
    if (p) return p;
    p = impls[pick("RXLOCK_SHA3", NIMPL, impl_name, impl_available)];
    atomic_store_explicit(&chosen, p, memory_order_release);
    return p;
}

const sha3_multi_impl *sha3_multi_select(void) {
    static _Atomic(const sha3_multi_impl *) chosen;
    const sha3_multi_impl *p = atomic_load_explicit(&chosen, memory_order_acquire);
    if (p) return p;
    p = multi_impls[pick("RXLOCK_SHA3_MULTI", NMULTI, multi_name, multi_available)];
    atomic_store_explicit(&chosen, p, memory_order_release);
    return p;
}
