/* SPDX-License-Identifier: ISC */
/* src/cli/beacon_cli.h — what the beacon's CLI files share (`rxlock beacon
 * init / run / solve / status`, `encrypt / decrypt --feed`): the beacon
 * directory and its files (beacon_dir.c), the feed rebuilt from those
 * files and published (beacon_publish.c), sources by directory or URL
 * (beacon_fetch.c), the one log line per event, times as text.  The pure
 * parts live in the library (include/rxlock/beacon.h). */
#ifndef RXLOCK_CLI_BEACON_H
#define RXLOCK_CLI_BEACON_H
#include "rxlock/beacon.h"
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the beacon directory (beacon_dir.c) ---------------------------------- */
typedef struct {
    char dir[PATH_MAX - 128];     /* DIR, as given (paths under it fit PATH_MAX) */
    tl_beacon_config cfg;
} bcn_dir;

/* Read DIR/beacon.json.  CLI_OK, or CLI_FAIL after a message. */
int  bcn_open(bcn_dir *b, const char *dir);
/* out = DIR/REL (REL printf-formatted). */
void bcn_file(const bcn_dir *b, char out[PATH_MAX], const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The signer key from DIR/private/signer.key, checked against beacon.json
 * (sk is the caller's, in locked memory, wiped by the caller). */
int  bcn_signer_load(const bcn_dir *b, uint8_t sk[64]);
/* The kinds of a schedule in feed order: returns their count (1 or 2). */
unsigned bcn_kinds(unsigned kinds, int out[2]);
/* "E" or "E-classic" / "E-pq" (the file stem, docs/FORMAT.md §Files). */
void bcn_stem(const tl_beacon_sched *s, uint64_t E, int kind, char out[48]);
/* Epoch E's puzzle of a kind: the public copy when released, else the
 * private one.  1 found (*buf malloc'd), 0 none, -1 error (message). */
int  bcn_puzzle_read(const bcn_dir *b, uint64_t E, int kind, uint8_t **buf, size_t *len, int *is_public);
/* Publish every generated puzzle whose release time has come (never one
 * before it).  *changed += the number published.  CLI_OK or CLI_FAIL. */
int  bcn_release_due(const bcn_dir *b, int64_t now, int *changed);
/* Write epoch E's sealed files (docs/FORMAT.md §Sealed file) that are
 * missing: E's puzzle encrypted to seal(E)'s recipient.  CLI_OK/CLI_FAIL. */
int  bcn_seal(const bcn_dir *b, uint64_t E, int *changed);
/* Rebuild feed.json from the files (beacon_publish.c), sign it and
 * replace public/feed.json atomically, under private/feed.lock.  *listed
 * (may be NULL) gets the number of epochs listed.  CLI_OK or CLI_FAIL. */
int  bcn_feed_publish(const bcn_dir *b, const uint8_t sk[64], int64_t now, size_t *listed);

/* ---- sources: a beacon DIR, a copy of public/, or a URL (beacon_fetch.c) -- */
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

/* ---- text ---------------------------------------------------------------- */
/* One log line: "YYYY-MM-DDTHH:MM:SSZ rxlock beacon: MSG" on stderr. */
void bcn_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "YYYY-MM-DD HH:MM:SS UTC". */
void bcn_time(char *buf, size_t cap, int64_t t);
/* A moment: "@UNIX", a duration from now ("90m", "+7d"), "YYYY-MM-DD",
 * "YYYY-MM-DDTHH:MM[:SS][Z]" (UTC).  0 and *out, or -1. */
int  bcn_parse_when(const char *s, int64_t now, int64_t *out);
/* SHA-256 of a buffer. */
void bcn_sha256(const uint8_t *buf, size_t len, uint8_t out[32]);
/* Parse an age identity file's text (either kind): 0 and key / *pq, or -1. */
int  bcn_identity_parse(const uint8_t *text, size_t len, uint8_t key[32], int *pq);

/* The web page (beacon_web.c): copy index.html, app.js, style.css into
 * public_dir, each atomically, from $RXLOCK_WEB_DIR, else build/web beside
 * the binary, else the installed share/rxlock/web; 0 and nothing done
 * (with a note on stderr) when none is built; -1 with the reason in err
 * when a read or write fails. */
int cli_beacon_web_publish(const char *public_dir, char *err, size_t errlen);

/* `rxlock encrypt --feed` / `rxlock decrypt --feed` (beacon_client.c). */
int cmd_encrypt_feed(int argc, char **argv);
int cmd_decrypt_feed(int argc, char **argv);
/* `rxlock beacon run / solve / status` (beacon_run.c, beacon_solve.c, beacon_status.c). */
int bcn_cmd_run(int argc, char **argv);
int bcn_cmd_solve(int argc, char **argv);
int bcn_cmd_status(int argc, char **argv);
#endif
