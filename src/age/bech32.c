/* SPDX-License-Identifier: ISC */
/* src/age/bech32.c — BIP-173 Bech32 encoding (the age key encoding).
 * Written from BIP-173; checksum constant 1 (not Bech32m). */
#include "age/bech32.h"
#include <sodium.h>
#include <string.h>

static const char charset[] = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";

static uint32_t polymod_step(uint32_t chk, uint8_t v) {
    static const uint32_t gen[5] = {0x3b6a57b2u, 0x26508e6du, 0x1ea119fau,
                                    0x3d4233ddu, 0x2a1462b3u};
    uint32_t top = chk >> 25;
    chk = ((chk & 0x1ffffffu) << 5) ^ v;
    for (int i = 0; i < 5; i++)
        if ((top >> i) & 1u) chk ^= gen[i];
    return chk;
}

static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

/* Checksum state after the expanded (lowercased) HRP. */
static uint32_t hrp_state(const char *hrp, size_t hl) {
    uint32_t chk = 1;
    for (size_t i = 0; i < hl; i++) chk = polymod_step(chk, (uint8_t)((uint8_t)lower(hrp[i]) >> 5));
    chk = polymod_step(chk, 0);
    for (size_t i = 0; i < hl; i++) chk = polymod_step(chk, (uint8_t)((uint8_t)lower(hrp[i]) & 31));
    return chk;
}

static int enc5(char *out, size_t outcap, const char *hrp,
                const uint8_t *d5, size_t n, size_t maxlen) {
    size_t hl = strlen(hrp);
    if (hl < 1 || hl > 83 || hl + 1 + n + 6 > maxlen || outcap < hl + 1 + n + 6 + 1)
        return -1;
    for (size_t i = 0; i < hl; i++) {
        unsigned char c = (unsigned char)hrp[i];
        if (c < 33 || c > 126 || (c >= 'A' && c <= 'Z')) return -1;
    }
    uint32_t chk = hrp_state(hrp, hl);
    size_t o = 0;
    memcpy(out, hrp, hl); o = hl;
    out[o++] = '1';
    for (size_t i = 0; i < n; i++) {
        if (d5[i] >> 5) { sodium_memzero(out, outcap); return -1; }
        chk = polymod_step(chk, d5[i]);
        out[o++] = charset[d5[i]];
    }
    for (int i = 0; i < 6; i++) chk = polymod_step(chk, 0);
    chk ^= 1;
    for (int i = 0; i < 6; i++) out[o++] = charset[(chk >> (5 * (5 - i))) & 31];
    out[o] = 0;
    return 0;
}

static int charset_rev(char c) {
    c = lower(c);
    const char *p = (c != 0) ? strchr(charset, c) : NULL;
    return p ? (int)(p - charset) : -1;
}

int tl_bech32_encode5(char *out, size_t outcap, const char *hrp,
                      const uint8_t *d5, size_t n) {
    return enc5(out, outcap, hrp, d5, n, TL_BECH32_MAX);
}

static int dec5(const char *s, char *hrp, size_t hrpcap,
                uint8_t *d5, size_t cap, size_t *n, size_t maxlen) {
    size_t len = strnlen(s, maxlen + 1);
    if (len > maxlen || len < 8) return -1;
    int has_lower = 0, has_upper = 0;
    size_t sep = len;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 33 || c > 126) return -1;
        if (c >= 'a' && c <= 'z') has_lower = 1;
        if (c >= 'A' && c <= 'Z') has_upper = 1;
        if (c == '1') sep = i;
    }
    if (has_lower && has_upper) return -1;
    if (sep == len || sep < 1 || sep + 7 > len) return -1;
    size_t nd = len - sep - 1 - 6;
    if (sep + 1 > hrpcap || nd > cap) return -1;
    uint32_t chk = hrp_state(s, sep);
    for (size_t i = sep + 1; i < len; i++) {
        int v = charset_rev(s[i]);
        if (v < 0) { sodium_memzero(d5, cap); return -1; }
        chk = polymod_step(chk, (uint8_t)v);
        if (i < len - 6) d5[i - sep - 1] = (uint8_t)v;
    }
    if (chk != 1) { sodium_memzero(d5, cap); return -1; }
    memcpy(hrp, s, sep);
    hrp[sep] = 0;
    *n = nd;
    return 0;
}

int tl_bech32_decode5(const char *s, char *hrp, size_t hrpcap,
                      uint8_t *d5, size_t cap, size_t *n) {
    return dec5(s, hrp, hrpcap, d5, cap, n, TL_BECH32_MAX);
}

static int enc8(char *out, size_t outcap, const char *hrp,
                const uint8_t *data, size_t len, size_t maxlen) {
    uint8_t d5[TL_BECH32_LONG_MAX];
    size_t n = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    int rc = -1;
    if (len > (maxlen * 5) / 8) return -1;
    for (size_t i = 0; i < len; i++) {
        acc = ((acc << 8) | data[i]) & 0xfffu;
        bits += 8;
        while (bits >= 5) { bits -= 5; d5[n++] = (uint8_t)((acc >> bits) & 31); }
    }
    if (bits) d5[n++] = (uint8_t)((acc << (5 - bits)) & 31);
    rc = enc5(out, outcap, hrp, d5, n, maxlen);
    sodium_memzero(d5, n);
    sodium_memzero(&acc, sizeof acc);
    return rc;
}

static int dec8(const char *s, char *hrp, size_t hrpcap,
                uint8_t *data, size_t cap, size_t *len, size_t maxlen) {
    uint8_t d5[TL_BECH32_LONG_MAX];
    size_t n = 0, o = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    int rc = -1;
    if (dec5(s, hrp, hrpcap, d5, maxlen, &n, maxlen) != 0) goto out;
    for (size_t i = 0; i < n; i++) {
        acc = ((acc << 5) | d5[i]) & 0xfffu;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            if (o >= cap) goto out;
            data[o++] = (uint8_t)((acc >> bits) & 0xff);
        }
    }
    /* Leftover bits must be padding: fewer than 5 and all zero. */
    if (bits >= 5 || (acc & ((1u << bits) - 1u)) != 0) goto out;
    *len = o;
    rc = 0;
out:
    if (rc != 0 && o) sodium_memzero(data, o);
    sodium_memzero(d5, maxlen);
    sodium_memzero(&acc, sizeof acc);
    return rc;
}

int tl_bech32_encode(char *out, size_t outcap, const char *hrp,
                     const uint8_t *data, size_t len) {
    return enc8(out, outcap, hrp, data, len, TL_BECH32_MAX);
}
int tl_bech32_decode(const char *s, char *hrp, size_t hrpcap,
                     uint8_t *data, size_t cap, size_t *len) {
    return dec8(s, hrp, hrpcap, data, cap, len, TL_BECH32_MAX);
}
int tl_bech32_encode_long(char *out, size_t outcap, const char *hrp,
                          const uint8_t *data, size_t len) {
    return enc8(out, outcap, hrp, data, len, TL_BECH32_LONG_MAX);
}
int tl_bech32_decode_long(const char *s, char *hrp, size_t hrpcap,
                          uint8_t *data, size_t cap, size_t *len) {
    return dec8(s, hrp, hrpcap, data, cap, len, TL_BECH32_LONG_MAX);
}
