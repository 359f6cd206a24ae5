/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/solver.h — what `beacon solve`'s two files share: the
 * per-key pieces (solve.c: an identity already in OUTDIR, a puzzle
 * fetched or unsealed and checked, one key solved, identities published
 * on the beacon's own DIR) and the engine that schedules them, once or
 * following the feed (follow.c). */
#ifndef RXLOCK_CLI_BEACON_SOLVER_H
#define RXLOCK_CLI_BEACON_SOLVER_H
#include "cli/beacon/beacon_cli.h"
#include "rxlock/rxlock.h"
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    bcn_src src;
    tl_beacon_feed *f;            /* the last good feed                   */
    const uint8_t *pin;           /* --signer-pin, or NULL                */
    char ids[PATH_MAX - 256];
    tl_mode mode;
    int quiet;
    const volatile int *stop;
    bcn_follow *trust;            /* the follower's memory of the last good feed (NULL: none) */
    const char *ids_base;         /* --ids as given (ids: this signer's folder in it) */
} solver;

typedef struct { size_t e; unsigned q; uint8_t *buf; size_t len; } job;

/* 1 when OUTDIR/STEM.txt holds the identity of recipient, 0 when absent,
 * -1 when it holds another (message). */
int bcn_have_identity(const solver *sv, const char *stem, const char *recipient, uint8_t key[32], int *pq);
/* Epoch e's key q's puzzle bytes (released, or unsealed with the sealing
 * epoch's identity), checked against the feed: 1 got, 0 not available yet
 * (why), -1 refused (message). */
int bcn_get_puzzle(const solver *sv, size_t e, unsigned q, uint8_t **buf, size_t *len, char *why, size_t whylen);
/* Solve one job and write OUTDIR/STEM.txt.  CLI_OK or an exit code. */
int bcn_solve_one(const solver *sv, const job *jb);
/* The beacon's own DIR: identities in OUTDIR the feed does not list yet
 * go to public/identities/ and the feed is republished.  CLI_OK/CLI_FAIL. */
int bcn_publish_own(solver *sv);
/* The engine (follow.c): up to par workers; follow: until a stop.  The
 * counts of this run (solved here, taken from the feed's published
 * identities, solved in all, waiting, failed).  CLI_OK, CLI_FAIL (some keys failed, said above, or
 * an error), or the interrupted code. */
int bcn_solve_run(solver *sv, size_t par, int follow, double poll, size_t *solved, size_t *taken, size_t *have,
                  size_t *waiting, size_t *failed);
#endif
