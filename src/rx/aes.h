/* SPDX-License-Identifier: ISC */
/* src/rx/aes.h — AES rounds and the RandomX AES generators (spec 3.2-3.4),
 * with a hardware backend (AES-NI / ARMv8 crypto) and a portable software
 * backend selected at run time.
 *
 * One AES "encryption round" here is x86 AESENC semantics: ShiftRows,
 * SubBytes, MixColumns, XOR round key; "decryption round" is AESDEC:
 * InvShiftRows, InvSubBytes, InvMixColumns, XOR round key.  All blocks are
 * 16 bytes in memory order.  Lengths given to the fill/hash functions are
 * multiples of 64. */
#ifndef RX_AES_H
#define RX_AES_H
#include <stddef.h>
#include <stdint.h>

struct rx_aes_ops {
    const char *name;      /* "soft", "aesni", "armv8" */
    int hardware;          /* 1 for a hardware backend */
    /* One round on a 16-byte block, in place. */
    void (*enc)(uint8_t block[16], const uint8_t key[16]);
    void (*dec)(uint8_t block[16], const uint8_t key[16]);
    /* AesGenerator1R: fill out[0..len) and update state (final state). */
    void (*fill1r)(uint8_t state[64], void *out, size_t len);
    /* AesGenerator4R: fill out[0..len) from state (state not updated). */
    void (*fill4r)(const uint8_t state[64], void *out, size_t len);
    /* AesHash1R of in[0..len). */
    void (*hash1r)(const void *in, size_t len, uint8_t out[64]);
    /* RandomX v2 F/E mixing (spec 4.6.2 step 10): f = 4 blocks, e = 4 keys. */
    void (*mix_fe)(void *f /* 64 bytes */, const void *e /* 64 bytes */);
};

/* Constants of the spec (chapter 3), defined in aes_gen.c. */
extern const uint8_t rx_aes_gen1r_keys[4][16];
extern const uint8_t rx_aes_gen4r_keys[8][16];
extern const uint8_t rx_aes_hash1r_state[4][16];
extern const uint8_t rx_aes_hash1r_xkeys[2][16];

/* Backends (NULL where not built / not supported by the CPU). */
const struct rx_aes_ops *rx_aes_soft_ops(void);
const struct rx_aes_ops *rx_aes_ni_ops(void);     /* aes_ni.c    */
const struct rx_aes_ops *rx_aes_armv8_ops(void);  /* aes_armv8.c */
/* Hardware backend usable on this CPU, or NULL. */
const struct rx_aes_ops *rx_aes_hw_ops(void);

/* The one AES choice (aes_dispatch.c), for the interpreter, the generators
 * and the JITs alike.  rx_aes_choose: *soft = 1 for the software AES
 * (forced, or neither forced and no hardware AES); 0, RX_EINVAL when both
 * are forced, RX_ENOTSUP when hardware is forced and the CPU has none.
 * rx_aes_select: the backend for RX_FLAG_HARD_AES / RX_FLAG_SOFT_AES: HARD
 * -> hardware or NULL (caller reports RX_ENOTSUP); SOFT -> software;
 * neither -> hardware when available, else software. */
int rx_aes_choose(unsigned flags, int *soft);
const struct rx_aes_ops *rx_aes_select(unsigned flags);

#endif
