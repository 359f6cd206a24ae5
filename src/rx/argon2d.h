/* SPDX-License-Identifier: ISC */
/* src/rx/argon2d.h — Argon2d memory fill (RFC 9106, version 0x13, one lane)
 * as RandomX uses it for the Cache (spec 7.1): no secret, no associated
 * data, tag length 0, and no finalisation: the output is the filled memory.
 * The compression function G (BlaMka) has a portable C version and SSSE3 /
 * AVX2 versions chosen at run time. */
#ifndef RX_ARGON2D_H
#define RX_ARGON2D_H
#include <stddef.h>
#include <stdint.h>

#define RX_ARGON2_BLOCK_SIZE 1024u

enum rx_argon2_impl {
    RX_ARGON2_AUTO     = 0,  /* fastest this CPU supports           */
    RX_ARGON2_PORTABLE = 1,
    RX_ARGON2_SSSE3    = 2,
    RX_ARGON2_AVX2     = 3
};

/* 1 when `impl` can run on this build + CPU (AUTO and PORTABLE always). */
int rx_argon2d_impl_supported(int impl);
/* Name of what AUTO (or impl) resolves to: "portable", "ssse3", "avx2". */
const char *rx_argon2d_impl_name(int impl);

/* Fill memory[blocks * 1024] (64-bit words stored little-endian).
 * blocks: multiple of 4, >= 8; passes >= 1; pwd / salt lengths < 2^32.
 * Returns 0, or RX_EINVAL / RX_ENOTSUP.  Wipes its stack copies of H0. */
int rx_argon2d_fill(void *memory, uint32_t blocks, uint32_t passes,
                    const void *pwd, size_t pwd_len,
                    const void *salt, size_t salt_len, int impl);
#endif
