/* SPDX-License-Identifier: ISC */
/* src/rx/blake2_gen.c — BlakeGenerator (RandomX spec 3.5) on libsodium's
 * BLAKE2b.  The state is rehashed (S = Hash512(S)) whenever fewer unused
 * bytes remain than requested. */
#include "rx/blake2_gen.h"
#include <sodium.h>
#include <string.h>
#include "util/le.h"

void rx_blake2_gen_init(rx_blake2_gen *g, const void *seed, size_t len, uint32_t nonce) {
    memset(g->data, 0, sizeof g->data);
    if (len > RX_BLAKE2_GEN_MAX_SEED) len = RX_BLAKE2_GEN_MAX_SEED;
    if (seed && len) memcpy(g->data, seed, len);
    util_store32le(g->data + 60, nonce);
    g->index = sizeof g->data;   /* first request hashes the seed block */
}

static void refill(rx_blake2_gen *g, size_t need) {
    if (g->index + need <= sizeof g->data) return;
    uint8_t tmp[64];
    /* Cannot fail for these fixed, valid lengths. */
    (void)crypto_generichash(tmp, sizeof tmp, g->data, sizeof g->data, NULL, 0);
    memcpy(g->data, tmp, sizeof tmp);
    sodium_memzero(tmp, sizeof tmp);
    g->index = 0;
}

uint8_t rx_blake2_gen_byte(rx_blake2_gen *g) {
    refill(g, 1);
    return g->data[g->index++];
}

uint32_t rx_blake2_gen_u32(rx_blake2_gen *g) {
    refill(g, 4);
    const uint8_t *p = g->data + g->index;
    g->index += 4;
    return util_load32le(p);
}

void rx_blake2_gen_wipe(rx_blake2_gen *g) {
    sodium_memzero(g, sizeof *g);
}
