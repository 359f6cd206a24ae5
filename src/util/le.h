/* SPDX-License-Identifier: ISC */
/* src/util/le.h — little-endian loads and stores of 16/32/64-bit words at
 * any byte address: the one copy every layer uses (hash lanes, program
 * words, emitted code, file fields).  On a little-endian host they are a
 * memcpy, which the compiler turns into one (unaligned) move; elsewhere
 * they assemble the bytes. */
#ifndef RXLOCK_UTIL_LE_H
#define RXLOCK_UTIL_LE_H
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define UTIL_LE_HOST 1
#else
#define UTIL_LE_HOST 0
#endif

static inline uint16_t util_load16le(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t util_load32le(const uint8_t *p) {
#if UTIL_LE_HOST
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}
static inline uint64_t util_load64le(const uint8_t *p) {
#if UTIL_LE_HOST
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    return (uint64_t)util_load32le(p) | (uint64_t)util_load32le(p + 4) << 32;
#endif
}
static inline void util_store16le(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static inline void util_store32le(uint8_t *p, uint32_t v) {
#if UTIL_LE_HOST
    memcpy(p, &v, 4);
#else
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
#endif
}
static inline void util_store64le(uint8_t *p, uint64_t v) {
#if UTIL_LE_HOST
    memcpy(p, &v, 8);
#else
    util_store32le(p, (uint32_t)v);
    util_store32le(p + 4, (uint32_t)(v >> 32));
#endif
}
#endif
