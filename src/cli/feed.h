/* SPDX-License-Identifier: ISC */
/* src/cli/feed.h — reading a beacon's feed, shared by the beacon room
 * (`rxlock beacon solve / status`) and the keys room (`encrypt / decrypt
 * --feed`): a source by directory or URL and the checked feed
 * (feed_fetch.c), times, moments, file stems and identity files as text
 * (feed_util.c).  The pure parts live in the library
 * (include/rxlock/beacon.h). */
#ifndef RXLOCK_CLI_FEED_H
#define RXLOCK_CLI_FEED_H
#include "rxlock/beacon.h"
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* ---- a beacon DIR (feed_util.c) ------------------------------------------ */
typedef struct {
    char dir[PATH_MAX - 128];     /* DIR, as given (paths under it fit PATH_MAX) */
    tl_beacon_config cfg;
} bcn_dir;

/* Read DIR/beacon.json.  CLI_OK, or CLI_FAIL after a message. */
int  bcn_open(bcn_dir *b, const char *dir);
/* out = DIR/REL (REL printf-formatted). */
void bcn_file(const bcn_dir *b, char out[PATH_MAX], const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- sources: a beacon DIR, a copy of public/, or a URL (feed_fetch.c) ---- */
typedef struct {
    char base[PATH_MAX - 128];    /* URL, or the directory that holds feed.json */
    int  url;
    int  own;                     /* a beacon DIR (beacon.json beside public/) */
    char own_dir[PATH_MAX - 128];
} bcn_src;
/* http:// or https:// = URL; a directory with beacon.json = the beacon's
 * own DIR (its public/); else a directory holding feed.json.  CLI_OK,
 * CLI_USAGE or CLI_FAIL after a message. */
int bcn_src_open(bcn_src *s, const char *arg);
/* Fetch REL (a feed path, checked by the feed's parser) of at most max
 * bytes.  0 ok (*buf malloc'd, NUL-terminated), 1 not there (404 / no
 * file), -1 error (err says why). */
int bcn_fetch(const bcn_src *s, const char *rel, size_t max, uint8_t **buf, size_t *len, char *err, size_t errlen);
/* Fetch and check feed.json (pin: the signer's key; NULL: on the beacon's
 * own DIR its beacon.json's signer, else warn that nothing pins it, unless
 * quiet_pin).  CLI_OK, CLI_FAIL or CLI_VERIFY. */
int bcn_feed_load(const bcn_src *s, const uint8_t *pin, int quiet_pin, tl_beacon_feed **f);
/* 1 when this build fetches URLs (libcurl), else 0. */
int bcn_url_supported(void);
/* Epoch E is not in *f but its archive page may hold it (feed_archive.c):
 * fetch that page, check it against *f and replace *f with it.  1 replaced,
 * 0 not archived (*f unchanged), -1 refused or unreadable (message). */
int bcn_feed_archived(const bcn_src *s, tl_beacon_feed **f, uint64_t E);
/* Archive page K of feed f, fetched and checked against f: 1 (*page), 0 no
 * such page (it held no epoch), -1 refused or unreadable (message). */
int bcn_archive_page(const bcn_src *s, const tl_beacon_feed *f, uint64_t K, tl_beacon_feed **page);

/* ---- text (feed_util.c) --------------------------------------------------- */
/* "YYYY-MM-DD HH:MM:SS UTC". */
void bcn_time(char *buf, size_t cap, int64_t t);
/* A moment: "@UNIX", a duration from now ("90m", "+7d"), "YYYY-MM-DD",
 * "YYYY-MM-DDTHH:MM[:SS][Z]" (UTC).  0 and *out, or -1. */
int  bcn_parse_when(const char *s, int64_t now, int64_t *out);
/* "E" or "E-classic" / "E-pq" (the file stem, docs/FORMAT.md §Files). */
void bcn_stem(const tl_beacon_sched *s, uint64_t E, int kind, char out[48]);
/* Parse an age identity file's text (either kind): 0 and key / *pq, or -1. */
int  bcn_identity_parse(const uint8_t *text, size_t len, uint8_t key[32], int *pq);
/* ---- what a client checks itself (feed_trust.c) ------------------------------ */
/* This client's floor for the feed's work: table (a floor table file; NULL:
 * the built-in table) against the feed's; say != 0: one line when the feed
 * assumes a slower floor.  CLI_OK or CLI_FAIL after a message. */
int  bcn_client_floor(const char *what, const tl_beacon_sched *s, const char *table, int say, tl_beacon_floor *fl);
/* "rxlock: WHAT: <the verdict's message>"; returns CLI_FAIL. */
int  bcn_refused(const char *what, const tl_beacon_verdict *v);
/* Epoch e's "about" time beside this client's opening `mine`: the feed's
 * about_opening at its assumed rate or observed, never before mine (else
 * mine, as the feed's would be its own floor). */
int64_t bcn_about(const tl_beacon_feed *f, const tl_beacon_epoch *e, int64_t mine);
/* A follower's memory of the last good feed: the first signer (or the one
 * the user accepted), `updated`, the schedule, released / solved epochs. */
typedef struct {
    tl_beacon_seen seen;
    uint8_t accept[32];
    int has_accept;
} bcn_follow;
void bcn_follow_start(bcn_follow *w, const tl_beacon_feed *f, const uint8_t *accept);
/* CLI_OK (w now remembers nf), or CLI_VERIFY after a message naming both
 * keys and --accept-signer (another signer) or the rollback: keep the last
 * good feed. */
int  bcn_follow_next(bcn_follow *w, const char *what, const tl_beacon_feed *nf);
/* An identity file that does not open its epoch's recipient: renamed
 * PATH.set-aside[.N] (kept, never trusted by its name), said on stderr.
 * 0, or CLI_FAIL after a message. */
int  bcn_set_aside(const char *p);
/* The identity folder of signer under --ids OUTDIR (cap bytes, rewritten
 * in place): OUTDIR itself when it is this signer's (its
 * .rxlock-beacon/signer) or unclaimed, else OUTDIR/SIGNER16 (the first 16
 * hex digits), so two beacons never collide.  create (a solver): claim it
 * and make it; CLI_OK or CLI_FAIL after a message.  !create (a reader):
 * 0 = OUTDIR is this signer's or unclaimed, 1 = ids now names the subfolder
 * (OUTDIR belongs to another signer). */
int  bcn_ids_dir(char *ids, size_t cap, const uint8_t signer[32], int create);
#endif
