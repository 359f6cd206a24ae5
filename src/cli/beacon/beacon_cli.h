/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/beacon_cli.h — what the beacon room's files share
 * (`rxlock beacon init / run / solve / status`): the beacon directory and
 * its files (dir.c), the feed rebuilt from those files and published
 * (publish.c), the one log line per event, the web page (web.c).  Reading
 * a feed (sources, times as text) is the shared CLI's (cli/feed.h), since
 * the keys room's `encrypt / decrypt --feed` reads feeds too; the pure
 * parts live in the library (include/rxlock/beacon.h). */
#ifndef RXLOCK_CLI_BEACON_H
#define RXLOCK_CLI_BEACON_H
#include "cli/feed.h"
#include "rxlock/beacon.h"
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* ---- keeping up (keepup.c) ------------------------------------------------ */
typedef struct {
    double rate;                  /* generation throughput, hashes/s, all workers */
    unsigned workers, lanes;      /* what was measured (0: given)              */
    double gen_seconds;           /* one epoch key's generation at the rate    */
    char source[200];             /* how the rate was had, for texts           */
    tl_beacon_keepup k;
} bcn_keepup;
/* Measure (unless given_rate > 0) and judge; says the verdict (at_init: on
 * stderr, else as a log line).  CLI_OK when it keeps up, else CLI_FAIL after
 * a refusal naming the flags that fix it. */
int bcn_keepup_check(const tl_beacon_config *c, tl_mode mode, double given_rate, int at_init, const volatile int *stop,
                     bcn_keepup *out);
/* The share of each chain recomputed (0..1). */
double bcn_verify_share(const tl_beacon_config *c);
/* Workers generation may count on here: the configured ones up to the CPUs. */
unsigned bcn_workers_here(unsigned configured);
/* Groups that fill the workers x SIMD lanes of this machine. */
uint32_t bcn_fill_groups(tl_work_type work, unsigned workers);

/* ---- the beacon directory (dir.c) ---------------------------------- */
/* The signer key from DIR/private/signer.key, checked against beacon.json
 * (sk is the caller's, in locked memory, wiped by the caller). */
int  bcn_signer_load(const bcn_dir *b, uint8_t sk[64]);
/* The kinds of a schedule in feed order: returns their count (1 or 2). */
unsigned bcn_kinds(unsigned kinds, int out[2]);
/* Epoch E's puzzle of a kind: the public copy when released, else the
 * private one.  1 found (*buf malloc'd), 0 none, -1 error (message). */
int  bcn_puzzle_read(const bcn_dir *b, uint64_t E, int kind, uint8_t **buf, size_t *len, int *is_public);
/* Publish every generated puzzle whose release time has come (never one
 * before it).  *changed += the number published.  CLI_OK or CLI_FAIL. */
int  bcn_release_due(const bcn_dir *b, int64_t now, int *changed);
/* Write epoch E's sealed files (docs/FORMAT.md §Sealed file) that are
 * missing: E's puzzle encrypted to seal(E)'s recipient.  CLI_OK/CLI_FAIL. */
int  bcn_seal(const bcn_dir *b, uint64_t E, int *changed);
/* Rebuild feed.json from the files (publish.c), sign it and
 * replace public/feed.json atomically, under private/feed.lock.  *listed
 * (may be NULL) gets the number of epochs listed.  CLI_OK or CLI_FAIL. */
int  bcn_feed_publish(const bcn_dir *b, const uint8_t sk[64], int64_t now, size_t *listed);

/* ---- text ---------------------------------------------------------------- */
/* One log line: "YYYY-MM-DDTHH:MM:SSZ rxlock beacon: MSG" on stderr. */
void bcn_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* SHA-256 of a buffer. */
void bcn_sha256(const uint8_t *buf, size_t len, uint8_t out[32]);

/* The web page (web.c): copy index.html, app.js, style.css into
 * public_dir, each atomically, from $RXLOCK_WEB_DIR, else build/web beside
 * the binary, else the installed share/rxlock/web; 0 and nothing done
 * (with a note on stderr) when none is built; -1 with the reason in err
 * when a read or write fails. */
int cli_beacon_web_publish(const char *public_dir, char *err, size_t errlen);

/* `rxlock beacon run / solve / status` (run.c, solve.c, status.c). */
int bcn_cmd_run(int argc, char **argv);
int bcn_cmd_solve(int argc, char **argv);
int bcn_cmd_status(int argc, char **argv);
#endif
