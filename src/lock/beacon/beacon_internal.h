/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/beacon_internal.h — what the beacon room's files share:
 * the canonical bytes of a feed body and their signature (canon.c), and
 * the strict JSON helpers of the parsers (json_strict.c). */
#ifndef RXLOCK_BEACON_INTERNAL_H
#define RXLOCK_BEACON_INTERNAL_H
#include "rxlock/beacon.h"
#include <jansson.h>

/* canon(x) of docs/FORMAT.md §feed.json: refuses (TL_EFORMAT) a tree that
 * breaks the rules (a real number, |n| >= 2^53, a string or key outside
 * printable ASCII or holding '"' or '\\', nesting deeper than 8), else
 * *out (malloc'd) = the sorted, compact bytes. */
int tl_beacon_canon(const json_t *x, char **out, size_t *len);
/* Ed25519 over "rxlock/beacon-feed/v1" || 0x00 || canon. */
int tl_beacon_sign_canon(const char *canon, size_t len, const uint8_t sk[64], uint8_t sig[64]);
int tl_beacon_verify_canon(const char *canon, size_t len, const uint8_t pk[32], const uint8_t sig[64]);

/* Strict object reading: the object has exactly the n keys named (1) or
 * not (0, err set naming `what`). */
int tl_beacon_keys_exact(const json_t *o, const char *const *keys, size_t n, const char *what,
                         char *err, size_t errlen);
/* An integer within lo..hi: 0, else -1 with err set. */
int tl_beacon_get_int(const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *out,
                      char *err, size_t errlen);
/* A string of at most cap-1 bytes: 0, else -1 with err set. */
int tl_beacon_get_str(const json_t *o, const char *key, char *out, size_t cap, char *err, size_t errlen);
/* Exactly 2n hex digits: 0, else -1 with err set. */
int tl_beacon_get_hex(const json_t *o, const char *key, uint8_t *out, size_t n, char *err, size_t errlen);
/* A JSON array of kind names ["classic"], ["pq"] or ["classic","pq"]. */
int tl_beacon_get_kinds(const json_t *o, const char *key, unsigned *kinds, char *err, size_t errlen);
void tl_beacon_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#endif
