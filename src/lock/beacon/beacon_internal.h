/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/beacon_internal.h — what the beacon room's files share:
 * the canonical bytes of a feed body and their signature (canon.c), the
 * strict JSON helpers of the parsers (json_strict.c), and the epoch and
 * schedule pieces a feed and an archive page share (feed_build.c,
 * feed_parse.c; archive.c uses them). */
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
/* The same under another domain (archive pages). */
int tl_beacon_sign_domain(const char *dom, const char *canon, size_t len, const uint8_t sk[64], uint8_t sig[64]);
int tl_beacon_verify_domain(const char *dom, const char *canon, size_t len, const uint8_t pk[32], const uint8_t sig[64]);

/* The pieces a feed and an archive page share (feed_build.c, feed_parse.c):
 * the JSON of the schedule, of an epoch and of "about" (v2); their strict
 * readers.  A: the about seconds every epoch's about_opening uses. */
json_t *tl_beacon_sched_json(const tl_beacon_sched *s);
json_t *tl_beacon_epoch_json(const tl_beacon_epoch *e, int version);
json_t *tl_beacon_about_json(const tl_beacon_feed *f);
int tl_beacon_parse_sched(const json_t *b, tl_beacon_sched *s, char *err, size_t errlen);
int tl_beacon_parse_about(const json_t *o, tl_beacon_feed *f, char *err, size_t errlen);
int tl_beacon_parse_epoch(const json_t *o, const tl_beacon_sched *s, uint64_t A, int version, tl_beacon_epoch *e,
                          char *err, size_t errlen);
/* f's n epochs from the array eps (f's schedule, version and about read
 * first), indices strictly increasing and, with page, all on that archive
 * page: 0, else -1 with err set. */
int tl_beacon_parse_epochs(const json_t *eps, tl_beacon_feed *f, const uint64_t *page, char *err, size_t errlen);
/* The start of a feed or archive page parse (what: "feed" or "archive
 * page"): at most 8 MiB, no backslash, JSON without duplicate keys; the
 * tree, else NULL with *rc and err set. */
json_t *tl_beacon_parse_load(const char *text, size_t len, const char *what, int *rc, char *err, size_t errlen);
/* The end of a feed or archive page parse: on TL_OK *out = f, else f is
 * freed; canon and top are freed either way.  Returns rc. */
int tl_beacon_parse_end(int rc, tl_beacon_feed *f, tl_beacon_feed **out, char *canon, json_t *top);

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
