/* src/sha3/chain.c — backend dispatch (the one place a Keccak backend is
 * chosen) and the fused chain entry points sha3_chain / sha3_backend. */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include <stdatomic.h>

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

const sha3_impl *const *sha3_impls(size_t *n)
{
    *n = sizeof impls / sizeof impls[0];
    return impls;
}

const sha3_impl *sha3_impl_select(void)
{
    static _Atomic(const sha3_impl *) chosen;
    const sha3_impl *p = atomic_load_explicit(&chosen, memory_order_acquire);
    if (p) return p;
    p = &sha3_impl_portable;
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++)
        if (impls[i]->available()) { p = impls[i]; break; }
    atomic_store_explicit(&chosen, p, memory_order_release);
    return p;
}

void sha3_chain_with(const sha3_impl *impl, uint8_t state[32], uint64_t steps)
{
    uint64_t x[4];
    for (int i = 0; i < 4; i++) x[i] = sha3_load64_le(state + 8 * i);
    impl->chain(x, steps);
    for (int i = 0; i < 4; i++) sha3_store64_le(state + 8 * i, x[i]);
}

void sha3_chain(uint8_t state[32], uint64_t steps)
{
    sha3_chain_with(sha3_impl_select(), state, steps);
}

const char *sha3_backend(void)
{
    return sha3_impl_select()->name;
}
