/* SPDX-License-Identifier: ISC */
/* src/rx/aes_ni.c — x86-64 AES-NI backend of the RandomX AES generators
 * (compiled with a per-function target attribute; only called after
 * util/cpufeat.c reported AES-NI).  Elsewhere rx_aes_ni_ops() returns NULL. */
#include "rx/aes.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define RX_NI __attribute__((target("aes,sse4.1")))

static RX_NI inline __m128i ld(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static RX_NI inline void st(void *p, __m128i v) { _mm_storeu_si128((__m128i *)p, v); }

static RX_NI void ni_enc(uint8_t block[16], const uint8_t key[16]) {
    st(block, _mm_aesenc_si128(ld(block), ld(key)));
}
static RX_NI void ni_dec(uint8_t block[16], const uint8_t key[16]) {
    st(block, _mm_aesdec_si128(ld(block), ld(key)));
}

static RX_NI void ni_fill1r(uint8_t state[64], void *out, size_t len) {
    __m128i k0 = ld(rx_aes_gen1r_keys[0]), k1 = ld(rx_aes_gen1r_keys[1]);
    __m128i k2 = ld(rx_aes_gen1r_keys[2]), k3 = ld(rx_aes_gen1r_keys[3]);
    __m128i s0 = ld(state), s1 = ld(state + 16), s2 = ld(state + 32), s3 = ld(state + 48);
    uint8_t *o = out;
    for (size_t off = 0; off + 64 <= len; off += 64) {
        s0 = _mm_aesdec_si128(s0, k0);
        s1 = _mm_aesenc_si128(s1, k1);
        s2 = _mm_aesdec_si128(s2, k2);
        s3 = _mm_aesenc_si128(s3, k3);
        st(o + off, s0); st(o + off + 16, s1); st(o + off + 32, s2); st(o + off + 48, s3);
    }
    st(state, s0); st(state + 16, s1); st(state + 32, s2); st(state + 48, s3);
}

static RX_NI void ni_fill4r(const uint8_t state[64], void *out, size_t len) {
    __m128i k[8];
    for (int i = 0; i < 8; i++) k[i] = ld(rx_aes_gen4r_keys[i]);
    __m128i s0 = ld(state), s1 = ld(state + 16), s2 = ld(state + 32), s3 = ld(state + 48);
    uint8_t *o = out;
    for (size_t off = 0; off + 64 <= len; off += 64) {
        for (int r = 0; r < 4; r++) {
            s0 = _mm_aesdec_si128(s0, k[r]);
            s1 = _mm_aesenc_si128(s1, k[r]);
            s2 = _mm_aesdec_si128(s2, k[r + 4]);
            s3 = _mm_aesenc_si128(s3, k[r + 4]);
        }
        st(o + off, s0); st(o + off + 16, s1); st(o + off + 32, s2); st(o + off + 48, s3);
    }
}

static RX_NI void ni_hash1r(const void *in, size_t len, uint8_t out[64]) {
    __m128i s0 = ld(rx_aes_hash1r_state[0]), s1 = ld(rx_aes_hash1r_state[1]);
    __m128i s2 = ld(rx_aes_hash1r_state[2]), s3 = ld(rx_aes_hash1r_state[3]);
    const uint8_t *p = in;
    for (size_t off = 0; off + 64 <= len; off += 64) {
        s0 = _mm_aesenc_si128(s0, ld(p + off));
        s1 = _mm_aesdec_si128(s1, ld(p + off + 16));
        s2 = _mm_aesenc_si128(s2, ld(p + off + 32));
        s3 = _mm_aesdec_si128(s3, ld(p + off + 48));
    }
    for (int r = 0; r < 2; r++) {
        __m128i x = ld(rx_aes_hash1r_xkeys[r]);
        s0 = _mm_aesenc_si128(s0, x);
        s1 = _mm_aesdec_si128(s1, x);
        s2 = _mm_aesenc_si128(s2, x);
        s3 = _mm_aesdec_si128(s3, x);
    }
    st(out, s0); st(out + 16, s1); st(out + 32, s2); st(out + 48, s3);
}

static RX_NI void ni_mix_fe(void *f, const void *e) {
    uint8_t *fb = f;
    const uint8_t *eb = e;
    __m128i s0 = ld(fb), s1 = ld(fb + 16), s2 = ld(fb + 32), s3 = ld(fb + 48);
    for (int i = 0; i < 4; i++) {
        __m128i k = ld(eb + 16 * i);
        s0 = _mm_aesenc_si128(s0, k);
        s1 = _mm_aesdec_si128(s1, k);
        s2 = _mm_aesenc_si128(s2, k);
        s3 = _mm_aesdec_si128(s3, k);
    }
    st(fb, s0); st(fb + 16, s1); st(fb + 32, s2); st(fb + 48, s3);
}

static const struct rx_aes_ops ni_ops = {
    "aesni", 1, ni_enc, ni_dec, ni_fill1r, ni_fill4r, ni_hash1r, ni_mix_fe
};
const struct rx_aes_ops *rx_aes_ni_ops(void) { return &ni_ops; }

#else
const struct rx_aes_ops *rx_aes_ni_ops(void) { return NULL; }
#endif
