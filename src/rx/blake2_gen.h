/* SPDX-License-Identifier: ISC */
/* src/rx/blake2_gen.h — BlakeGenerator (RandomX spec 3.5): a byte / 32-bit
 * pseudo-random stream from a 64-byte BLAKE2b-512 state.  Used to generate
 * the SuperscalarHash programs from the cache key. */
#ifndef RX_BLAKE2_GEN_H
#define RX_BLAKE2_GEN_H
#include <stddef.h>
#include <stdint.h>

#define RX_BLAKE2_GEN_MAX_SEED 60

typedef struct rx_blake2_gen {
    uint8_t data[64];
    size_t  index;
} rx_blake2_gen;

/* Seed: first min(len, 60) bytes of seed, zero padded, nonce LE at byte 60. */
void     rx_blake2_gen_init(rx_blake2_gen *g, const void *seed, size_t len, uint32_t nonce);
uint8_t  rx_blake2_gen_byte(rx_blake2_gen *g);
uint32_t rx_blake2_gen_u32(rx_blake2_gen *g);
/* Wipe the generator state. */
void     rx_blake2_gen_wipe(rx_blake2_gen *g);
#endif
