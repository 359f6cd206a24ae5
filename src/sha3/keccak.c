/* SPDX-License-Identifier: ISC */
/* src/sha3/keccak.c — the portable C Keccak-f[1600] backend ("portable"):
 * plain C11, any architecture; the reference the other backends are tested
 * against. */
#include "sha3/internal.h"

#define KS_NAME(x) portable_##x
#include "sha3/keccak_scalar.h"
#undef KS_NAME

static int portable_available(void) { return 1; }

const sha3_impl sha3_impl_portable = {
    "portable", portable_available, portable_permute, portable_chain, portable_chain_ctr,
};
