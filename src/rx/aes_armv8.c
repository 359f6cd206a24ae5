/* SPDX-License-Identifier: ISC */
/* src/rx/aes_armv8.c — AArch64 crypto-extension backend of the RandomX AES
 * generators.  ARM AESE/AESD XOR the key *before* SubBytes, so an x86-style
 * round is AESE(s, 0) -> AESMC -> XOR key (and AESD/AESIMC for decrypt).
 * Compile-tested only so far.  Elsewhere rx_aes_armv8_ops() returns NULL. */
#include "rx/aes.h"

#if defined(__aarch64__)
#include <arm_neon.h>

#define RX_A8 __attribute__((target("+crypto")))

static RX_A8 inline uint8x16_t a_enc(uint8x16_t s, uint8x16_t k) {
    return veorq_u8(vaesmcq_u8(vaeseq_u8(s, vdupq_n_u8(0))), k);
}
static RX_A8 inline uint8x16_t a_dec(uint8x16_t s, uint8x16_t k) {
    return veorq_u8(vaesimcq_u8(vaesdq_u8(s, vdupq_n_u8(0))), k);
}

static RX_A8 void a8_enc(uint8_t block[16], const uint8_t key[16]) {
    vst1q_u8(block, a_enc(vld1q_u8(block), vld1q_u8(key)));
}
static RX_A8 void a8_dec(uint8_t block[16], const uint8_t key[16]) {
    vst1q_u8(block, a_dec(vld1q_u8(block), vld1q_u8(key)));
}

static RX_A8 void a8_fill1r(uint8_t state[64], void *out, size_t len) {
    uint8x16_t k0 = vld1q_u8(rx_aes_gen1r_keys[0]), k1 = vld1q_u8(rx_aes_gen1r_keys[1]);
    uint8x16_t k2 = vld1q_u8(rx_aes_gen1r_keys[2]), k3 = vld1q_u8(rx_aes_gen1r_keys[3]);
    uint8x16_t s0 = vld1q_u8(state), s1 = vld1q_u8(state + 16);
    uint8x16_t s2 = vld1q_u8(state + 32), s3 = vld1q_u8(state + 48);
    uint8_t *o = out;
    for (size_t off = 0; off + 64 <= len; off += 64) {
        s0 = a_dec(s0, k0); s1 = a_enc(s1, k1); s2 = a_dec(s2, k2); s3 = a_enc(s3, k3);
        vst1q_u8(o + off, s0); vst1q_u8(o + off + 16, s1);
        vst1q_u8(o + off + 32, s2); vst1q_u8(o + off + 48, s3);
    }
    vst1q_u8(state, s0); vst1q_u8(state + 16, s1); vst1q_u8(state + 32, s2); vst1q_u8(state + 48, s3);
}

static RX_A8 void a8_fill4r(const uint8_t state[64], void *out, size_t len) {
    uint8x16_t k[8];
    for (int i = 0; i < 8; i++) k[i] = vld1q_u8(rx_aes_gen4r_keys[i]);
    uint8x16_t s0 = vld1q_u8(state), s1 = vld1q_u8(state + 16);
    uint8x16_t s2 = vld1q_u8(state + 32), s3 = vld1q_u8(state + 48);
    uint8_t *o = out;
    for (size_t off = 0; off + 64 <= len; off += 64) {
        for (int r = 0; r < 4; r++) {
            s0 = a_dec(s0, k[r]); s1 = a_enc(s1, k[r]);
            s2 = a_dec(s2, k[r + 4]); s3 = a_enc(s3, k[r + 4]);
        }
        vst1q_u8(o + off, s0); vst1q_u8(o + off + 16, s1);
        vst1q_u8(o + off + 32, s2); vst1q_u8(o + off + 48, s3);
    }
}

static RX_A8 void a8_hash1r(const void *in, size_t len, uint8_t out[64]) {
    uint8x16_t s0 = vld1q_u8(rx_aes_hash1r_state[0]), s1 = vld1q_u8(rx_aes_hash1r_state[1]);
    uint8x16_t s2 = vld1q_u8(rx_aes_hash1r_state[2]), s3 = vld1q_u8(rx_aes_hash1r_state[3]);
    const uint8_t *p = in;
    for (size_t off = 0; off + 64 <= len; off += 64) {
        s0 = a_enc(s0, vld1q_u8(p + off));
        s1 = a_dec(s1, vld1q_u8(p + off + 16));
        s2 = a_enc(s2, vld1q_u8(p + off + 32));
        s3 = a_dec(s3, vld1q_u8(p + off + 48));
    }
    for (int r = 0; r < 2; r++) {
        uint8x16_t x = vld1q_u8(rx_aes_hash1r_xkeys[r]);
        s0 = a_enc(s0, x); s1 = a_dec(s1, x); s2 = a_enc(s2, x); s3 = a_dec(s3, x);
    }
    vst1q_u8(out, s0); vst1q_u8(out + 16, s1); vst1q_u8(out + 32, s2); vst1q_u8(out + 48, s3);
}

static RX_A8 void a8_mix_fe(void *f, const void *e) {
    uint8_t *fb = f;
    const uint8_t *eb = e;
    uint8x16_t s0 = vld1q_u8(fb), s1 = vld1q_u8(fb + 16), s2 = vld1q_u8(fb + 32), s3 = vld1q_u8(fb + 48);
    for (int i = 0; i < 4; i++) {
        uint8x16_t k = vld1q_u8(eb + 16 * i);
        s0 = a_enc(s0, k); s1 = a_dec(s1, k); s2 = a_enc(s2, k); s3 = a_dec(s3, k);
    }
    vst1q_u8(fb, s0); vst1q_u8(fb + 16, s1); vst1q_u8(fb + 32, s2); vst1q_u8(fb + 48, s3);
}

static const struct rx_aes_ops a8_ops = {
    "armv8", 1, a8_enc, a8_dec, a8_fill1r, a8_fill4r, a8_hash1r, a8_mix_fe
};
const struct rx_aes_ops *rx_aes_armv8_ops(void) { return &a8_ops; }

#else
const struct rx_aes_ops *rx_aes_armv8_ops(void) { return NULL; }
#endif
