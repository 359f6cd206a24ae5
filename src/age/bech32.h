/* SPDX-License-Identifier: ISC */
/* src/age/bech32.h — BIP-173 Bech32 (checksum constant 1) encode/decode,
 * at the 5-bit level (for the BIP-173 vectors) and with 8-bit data (what the
 * age keys use).  Strings are at most 90 characters (TL_BECH32_LONG_MAX for
 * the _long forms); mixed case is refused. */
#ifndef RXLOCK_AGE_BECH32_H
#define RXLOCK_AGE_BECH32_H
#include <stddef.h>
#include <stdint.h>

#define TL_BECH32_MAX 90           /* longest string, without the NUL */
/* age's post-quantum recipients (age1pq1..., 1,959 characters) are Bech32
 * without the 90-character limit; the _long functions allow this many. */
#define TL_BECH32_LONG_MAX 2048

/* Encode hrp (lowercase ASCII 33..126, 1..83 chars) and 5-bit values d5[n]
 * as a lowercase string.  out must hold outcap bytes incl. NUL.  0 / -1. */
int tl_bech32_encode5(char *out, size_t outcap, const char *hrp,
                      const uint8_t *d5, size_t n);
/* Decode s: hrp (in the string's case, NUL-terminated) into hrp[hrpcap],
 * the 5-bit values (checksum removed) into d5[cap], count in *n.  0 / -1. */
int tl_bech32_decode5(const char *s, char *hrp, size_t hrpcap,
                      uint8_t *d5, size_t cap, size_t *n);

/* 8-bit data versions: regroup bytes into 5-bit values with zero padding;
 * decode refuses non-zero padding or more than 4 padding bits.  Every
 * intermediate buffer is wiped before return (the data may be a secret). */
int tl_bech32_encode(char *out, size_t outcap, const char *hrp,
                     const uint8_t *data, size_t len);
int tl_bech32_decode(const char *s, char *hrp, size_t hrpcap,
                     uint8_t *data, size_t cap, size_t *len);
int tl_bech32_encode_long(char *out, size_t outcap, const char *hrp,
                          const uint8_t *data, size_t len);
int tl_bech32_decode_long(const char *s, char *hrp, size_t hrpcap,
                          uint8_t *data, size_t cap, size_t *len);
#endif
