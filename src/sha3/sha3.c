/* SPDX-License-Identifier: ISC */
/* src/sha3/sha3.c — SHA3-256 (FIPS 202 §6.1): the sponge with rate 136
 * bytes, domain bits 01 and pad10*1 (the byte 0x06 after the message, 0x80
 * in the last rate byte), over the selected Keccak-f[1600] backend.
 * sha3_256_2 hashes a ‖ b without copying them together. */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include "util/le.h"
#include <sodium.h>

typedef struct {
    uint64_t s[25];
    size_t pos;                 /* bytes absorbed into the current block */
    const sha3_impl *impl;
} sponge;

static void absorb(sponge *c, const uint8_t *p, size_t len) {
    while (len) {
        if (c->pos == 0) {              /* whole blocks, lane at a time */
            while (len >= SHA3_256_RATE) {
                for (unsigned i = 0; i < SHA3_256_RATE / 8; i++)
                    c->s[i] ^= util_load64le(p + 8 * i);
                c->impl->permute(c->s);
                p += SHA3_256_RATE;
                len -= SHA3_256_RATE;
            }
            if (!len) break;
        }
        if (c->pos % 8 == 0 && len >= 8) {   /* lane-aligned: 8 bytes at once */
            size_t room = SHA3_256_RATE - c->pos, k = (len < room ? len : room) / 8;
            for (size_t i = 0; i < k; i++)
                c->s[c->pos / 8 + i] ^= util_load64le(p + 8 * i);
            p += 8 * k;
            len -= 8 * k;
            c->pos += 8 * k;
        } else {
            c->s[c->pos / 8] ^= (uint64_t)*p++ << (8 * (c->pos % 8));
            len--;
            c->pos++;
        }
        if (c->pos == SHA3_256_RATE) {
            c->impl->permute(c->s);
            c->pos = 0;
        }
    }
}

static void finish(sponge *c, uint8_t out[32]) {
    c->s[c->pos / 8] ^= (uint64_t)0x06 << (8 * (c->pos % 8));
    c->s[(SHA3_256_RATE - 1) / 8] ^= (uint64_t)0x80 << 56;
    c->impl->permute(c->s);
    for (int i = 0; i < 4; i++) util_store64le(out + 8 * i, c->s[i]);
    /* The state of a keyed hash can be secret (K ‖ m): clear it. */
    sodium_memzero(c->s, sizeof c->s);
}

void sha3_256_2_with(const sha3_impl *impl, uint8_t out[32],
                     const void *a, size_t alen, const void *b, size_t blen) {
    sponge c = { { 0 }, 0, impl };
    if (alen) absorb(&c, (const uint8_t *)a, alen);
    if (blen) absorb(&c, (const uint8_t *)b, blen);
    finish(&c, out);
}

void sha3_256_2(uint8_t out[32], const void *a, size_t alen, const void *b, size_t blen) {
    sha3_256_2_with(sha3_impl_select(), out, a, alen, b, blen);
}

void sha3_256(uint8_t out[32], const void *in, size_t len) {
    sha3_256_2_with(sha3_impl_select(), out, in, len, NULL, 0);
}
