/* SPDX-License-Identifier: ISC */
/* src/sha3/shake.c — the general Keccak sponge (FIPS 202 §4) at any rate,
 * over the selected Keccak-f[1600] backend: SHA3-512 (rate 72, domain 01)
 * and the XOFs SHAKE128 (rate 168) / SHAKE256 (rate 136, domain 1111),
 * one-shot and incremental (absorb, then squeeze any number of times).
 * The state may be secret (ML-KEM seeds): sha3_xof_wipe clears it and the
 * one-shot forms always do.  Lengths never depend on secrets here, so the
 * byte loops are constant time in the data. */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include "util/le.h"
#include <sodium.h>

#define DOMAIN_SHA3  0x06u   /* 01 then the first pad bit   */
#define DOMAIN_SHAKE 0x1fu   /* 1111 then the first pad bit */

static void xof_init(sha3_xof *c, unsigned rate, unsigned domain) {
    for (int i = 0; i < 25; i++) c->s[i] = 0;
    c->pos = 0;
    c->rate = rate;
    c->domain = (uint8_t)domain;
    c->squeezing = 0;
    c->impl = sha3_impl_select();
}

static void permute(sha3_xof *c) {
    ((const sha3_impl *)c->impl)->permute(c->s);
}

void sha3_xof_absorb(sha3_xof *c, const void *in, size_t len) {
    const uint8_t *p = (const uint8_t *)in;
    if (c->squeezing) return;        /* misuse: absorbing after squeezing */
    while (len) {
        if (c->pos == 0) {
            while (len >= c->rate) {   /* whole blocks, lane at a time */
                for (unsigned i = 0; i < c->rate / 8; i++)
                    c->s[i] ^= util_load64le(p + 8 * i);
                permute(c);
                p += c->rate;
                len -= c->rate;
            }
            if (!len) break;
        }
        c->s[c->pos / 8] ^= (uint64_t)*p++ << (8 * (c->pos % 8));
        len--;
        if (++c->pos == c->rate) {
            permute(c);
            c->pos = 0;
        }
    }
}

void sha3_xof_squeeze(sha3_xof *c, void *out, size_t len) {
    uint8_t *o = (uint8_t *)out;
    if (!c->squeezing) {
        c->s[c->pos / 8] ^= (uint64_t)c->domain << (8 * (c->pos % 8));
        c->s[(c->rate - 1) / 8] ^= (uint64_t)0x80 << (8 * ((c->rate - 1) % 8));
        permute(c);
        c->pos = 0;
        c->squeezing = 1;
    }
    while (len) {
        if (c->pos == c->rate) {
            permute(c);
            c->pos = 0;
        }
        if (c->pos % 8 == 0 && len >= 8 && c->rate - c->pos >= 8) {
            util_store64le(o, c->s[c->pos / 8]);
            o += 8;
            len -= 8;
            c->pos += 8;
        } else {
            *o++ = (uint8_t)(c->s[c->pos / 8] >> (8 * (c->pos % 8)));
            len--;
            c->pos++;
        }
    }
}

void sha3_xof_wipe(sha3_xof *c) {
    sodium_memzero(c->s, sizeof c->s);
    c->pos = 0;
}

void sha3_shake128_init(sha3_xof *c) { xof_init(c, 168, DOMAIN_SHAKE); }
void sha3_shake256_init(sha3_xof *c) { xof_init(c, 136, DOMAIN_SHAKE); }

void sha3_shake128(uint8_t *out, size_t outlen, const void *in, size_t len) {
    sha3_xof c;
    sha3_shake128_init(&c);
    sha3_xof_absorb(&c, in, len);
    sha3_xof_squeeze(&c, out, outlen);
    sha3_xof_wipe(&c);
}

void sha3_shake256(uint8_t *out, size_t outlen, const void *in, size_t len) {
    sha3_xof c;
    sha3_shake256_init(&c);
    sha3_xof_absorb(&c, in, len);
    sha3_xof_squeeze(&c, out, outlen);
    sha3_xof_wipe(&c);
}

void sha3_512_2(uint8_t out[64], const void *a, size_t alen, const void *b, size_t blen) {
    sha3_xof c;
    xof_init(&c, 72, DOMAIN_SHA3);
    sha3_xof_absorb(&c, a, alen);
    sha3_xof_absorb(&c, b, blen);
    sha3_xof_squeeze(&c, out, 64);
    sha3_xof_wipe(&c);
}

void sha3_512(uint8_t out[64], const void *in, size_t len) {
    sha3_512_2(out, in, len, NULL, 0);
}
