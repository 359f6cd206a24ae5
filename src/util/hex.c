/* SPDX-License-Identifier: ISC */
/* src/util/hex.c — hex encoding and strict decoding. */
#include "util/util.h"

static int nib(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int util_hex_decode(const char *hex, uint8_t *out, size_t cap, size_t *out_len) {
    size_t n = 0;
    if (!hex || !out_len) return -1;
    while (hex[n]) n++;
    if (n % 2 || n / 2 > cap) return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = nib(hex[2 * i]), lo = nib(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *out_len = n / 2;
    return 0;
}

void util_hex_encode(char *out, const uint8_t *in, size_t len) {
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * len] = 0;
}
