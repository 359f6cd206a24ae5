/* SPDX-License-Identifier: ISC */
/* include/rxlock/calibrate.h — rxlock calibration: public API (prefix tl_).
 * Measures this machine's sequential chain rate with the real chain code
 * (tl_work_steps) and reads / writes the calibration file that
 * `rxlock lock --calibration FILE` uses to size puzzles.  Like the rest of
 * the library it reports through return codes and the tl_progress_fn
 * callback only; it never prints.
 *
 * File format, version 2 (one JSON object, keys exactly these, in order):
 *   {"rxlock_calibration": 2, "work": "randomx-v2"|"randomx-v1",
 *    "mode": "light"|"full", "engine": "jit"|"interpreter",
 *    "aes": "hardware"|"software", "rate": <hashes/s>, "rate_min": n,
 *    "rate_max": n, "seconds": n, "cpu": "...", "created": "YYYY-MM-DDTHH:MM:SSZ"}
 * For "work": "sha3-256" the RandomX-only keys mode, engine and aes are
 * absent.  Version-1 files (mode for every work, no engine / aes) are still
 * read; their engine is unknown (NULL).
 * Version 3 (written now) adds, after "created":
 *   "setup_seconds": n (cache / dataset build, timed), "windows": n,
 *   "load_average": n (1-minute load average, the larger of start / end)
 * Version 4 (written now) adds, for full-mode RandomX only, after
 *   "load_average": "dataset_huge_pages": n (share 0..1 of the dataset the
 *   kernel backed with huge pages while it was measured; 1.4-1.5x in rate)
 * Version 5 (written now) adds, for full-mode RandomX only, after
 *   "dataset_huge_pages": "allocations": n (placements of the cache +
 *   dataset in RAM measured, 1..8), "allocation_rates": [n, ...] (each
 *   placement's rate over its windows), "window_spread": n (the largest
 *   windows' spread inside one placement: the noise)
 * Version-4, -3, -2 and -1 files are still read (setup unknown: 0 before 3).
 * Sizing uses a TYPICAL rate (tl_calibration_sizing_rate): the floor
 * (the fastest known hardware) bounds "no sooner than", so the assumed
 * rate gives the expected time "about T", not the fastest window.
 */
#ifndef RXLOCK_CALIBRATE_H
#define RXLOCK_CALIBRATE_H
#include "rxlock/rxlock.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)   /* public API, also under -fvisibility=hidden */

#define TL_CALIBRATION_VERSION   6
#define TL_CALIBRATION_MAX_BYTES 4096     /* bound on a file we read        */
#define TL_CALIBRATE_MIN_SECONDS 0.05
#define TL_CALIBRATE_MAX_SECONDS 86400.0
#define TL_CALIBRATE_ALLOCATIONS      2   /* full-mode RandomX placements:
                                             about two datasets held at once */
#define TL_CALIBRATE_MAX_ALLOCATIONS  8

typedef struct {
    tl_work_type work;
    tl_mode  mode;           /* RandomX only (TL_MODE_LIGHT for sha3-256)  */
    tl_engine_info engine;   /* what ran; strings NULL where not applicable
                                or not recorded (a version-1 file)         */
    double   rate;           /* hashes/s over the whole timed run          */
    double   rate_min;       /* slowest window                             */
    double   rate_max;       /* fastest window                             */
    double   seconds;        /* timed seconds (setup excluded)             */
    uint64_t hashes;         /* chain steps done (0 in a parsed file)      */
    unsigned windows;        /* windows the spread is over (0 when parsed) */
    double   setup_seconds;  /* cache / dataset build (0 from a v1/v2 file):
                                the smaller of its wall time and its CPU
                                time over the threads that built it (a
                                busy machine stretches only the wall)     */
    double   load_average;   /* 1-min load average (-1 unknown / old file) */
    double   huge_share;     /* full-mode RandomX: dataset share on huge
                                pages, 0..1 (-1 unknown / light / old file) */
    unsigned allocations;    /* full-mode RandomX: placements of the cache
                                + dataset measured, windows round robin
                                over them (0 / 1: one; light, sha3, old) */
    double   allocation_rates[TL_CALIBRATE_MAX_ALLOCATIONS];
                             /* each placement's rate (allocations > 1)   */
    double   window_spread;  /* allocations > 1: the largest windows'
                                spread inside one placement (the noise)   */
    char     cpu[128];       /* CPU model, printable ASCII                 */
    char     created[32];    /* ISO-8601 UTC                               */
} tl_calibration;

typedef struct {
    tl_progress_fn progress;      /* optional; first call once the work
                                     function is built (engine set), then
                                     about every progress_interval; the
                                     total is an estimate until the end    */
    void    *progress_ctx;
    double   progress_interval;   /* seconds, 0 = 0.5                       */
    const volatile int *stop;     /* optional: non-zero -> TL_EINTR         */
    unsigned allocations;         /* full-mode RandomX placements to measure,
                                     0 = TL_CALIBRATE_ALLOCATIONS, at most
                                     TL_CALIBRATE_MAX_ALLOCATIONS; fewer
                                     where memory is short (tl_mode_resolve) */
} tl_calibrate_opts;

/* This machine's CPU model (printable ASCII, "unknown" when unreadable). */
void tl_cpu_model(char *out, size_t cap);

/* Build the work function (timed: setup_seconds), then run one dependent chain for about
 * `seconds` in equal windows (3..10 of them) and report the overall rate,
 * the slowest/fastest window and the engine that ran.  Full-mode RandomX:
 * the cache + dataset are also copied into up to o->allocations - 1 new
 * allocations held at once, the windows (at least 2 per placement) go
 * round robin over them, and the fastest window is taken over all: where
 * the dataset lands can move the rate (allocation_rates).  o may be NULL.
 * Returns 0 or an error code (an engine that cannot start: tl_engine_check
 * says why). */
int tl_calibrate(tl_work_type type, tl_mode mode, double seconds,
                 const tl_calibrate_opts *o, tl_calibration *out);

/* Canonical JSON text, version 2 (malloc'd, NUL-terminated, trailing newline). */
int tl_calibration_to_json(const tl_calibration *c, char **json, size_t *len);
/* Parse and validate (exactly the keys of its version and work, known
 * work/mode/engine/aes, rates finite with 0 < rate_min <= rate <= rate_max,
 * seconds > 0).  err gets a one-line reason on failure (TL_EFORMAT,
 * TL_EVERSION, TL_ETOOBIG). */
int tl_calibration_parse(const char *json, size_t len, tl_calibration *out, char *err, size_t errlen);
int tl_calibration_load(const char *path, tl_calibration *out, char *err, size_t errlen);
/* The statistic a puzzle is sized with: the typical rate, with several
 * placements the best placement's mean, else the mean over the run
 * (rate).  0 for NULL. */
double tl_calibration_sizing_rate(const tl_calibration *c);
/* Its name, for texts: "the best placement's mean" / "the mean over the run". */
const char *tl_calibration_sizing_statistic(const tl_calibration *c);
/* The windows' spread, 0..1, the noise of the run: (rate_max - rate_min) /
 * rate_max, or with several placements the largest inside one of them. */
double tl_calibration_spread(const tl_calibration *c);
/* The slowest and fastest placement rates: 1, or 0 (lo / hi untouched)
 * with fewer than two placements. */
int tl_calibration_placement_range(const tl_calibration *c, double *lo, double *hi);
/* (fastest - slowest placement rate) / fastest, 0..1; 0 with one. */
double tl_calibration_placement_spread(const tl_calibration *c);

/* ---- the floor (src/lock/measure/floor.c) -------------------------------------
 * The fastest known rates of one dependent chain per work function, each
 * row with its kind: a built-in table (docs/SECURITY.md §The floor, with
 * sources and arithmetic) or a user's table file: lines
 * "WORK RATE [KIND] MACHINE [; CONDITIONS]", KIND measured | bound |
 * hardware (default measured), '#' comments, at most TL_FLOOR_MAX_ROWS
 * rows / TL_FLOOR_MAX_BYTES.  The floor is the fastest row of any kind. */
#define TL_FLOOR_MAX_ROWS  64
#define TL_FLOOR_MAX_BYTES 16384
typedef enum {
    TL_FLOOR_MEASURED = 0,        /* one chain measured on one core          */
    TL_FLOOR_BOUND    = 1,        /* published throughput of a whole core
                                     (all its threads): a chain on one core
                                     does not beat it                       */
    TL_FLOOR_HARDWARE = 2         /* demonstrated dedicated hardware         */
} tl_floor_kind;
typedef struct {
    tl_work_type work;
    double rate;                  /* hashes/s, one chain                    */
    char   machine[64];
    char   conditions[96];
    tl_floor_kind kind;
} tl_floor_row;
typedef struct {
    unsigned n;
    tl_floor_row rows[TL_FLOOR_MAX_ROWS];
    char origin[64];              /* "built-in table" / "table NAME"        */
} tl_floor_table;
void tl_floor_builtin(tl_floor_table *t);
/* "measured single chain", "bound from per-core throughput",
 * "demonstrated hardware" ("?" out of range). */
const char *tl_floor_kind_name(tl_floor_kind k);
/* 0, or TL_EFORMAT / TL_ETOOBIG / TL_EIO with a one-line reason. */
int  tl_floor_parse(const char *text, size_t len, tl_floor_table *t, char *err, size_t errlen);
int  tl_floor_load(const char *path, tl_floor_table *t, char *err, size_t errlen);
/* The fastest row for work, of any kind; NULL when the table has none. */
const tl_floor_row *tl_floor_fastest(const tl_floor_table *t, tl_work_type work);
/* total hashes / floor rate (seconds); -1 for no row. */
double tl_floor_seconds(const tl_floor_row *r, uint64_t total);
/* ceil(seconds x floor rate): the hashes that make the floor CPU need
 * `seconds`.  0, TL_EINVAL, or TL_ETOOBIG (over 2^48). */
int  tl_floor_hashes(const tl_floor_row *r, double seconds, uint64_t *total);

/* ---- the promise (src/lock/measure/promise.c) ------------------------ */
typedef struct {
    uint64_t total;               /* G x S                                  */
    double   rate;                /* the puzzle's assumed rate (0 = none)   */
    double   hash_seconds;        /* total / rate (-1 without a rate)       */
    double   setup_seconds;       /* recorded setup                         */
    double   here_seconds;        /* hashing + setup on the rate's machine (-1) */
    const tl_floor_row *floor;    /* NULL: no floor known for the work      */
    double   floor_seconds;       /* total / floor rate (-1)                */
} tl_promise;
void tl_promise_of(const tl_puzzle *pz, const tl_floor_table *ft, tl_promise *out);
/* One English sentence, no newline: "opens no sooner than T_min on the
 * fastest known hardware (MACHINE, RATE H/s, KIND), about T at the assumed
 * rate (H hashing + S setup, MODE-mode rate)".  Fits in 512 bytes. */
void tl_promise_text(char *buf, size_t cap, const tl_puzzle *pz, const tl_floor_table *ft);
/* The same with dates: published (Unix seconds, UTC; 0 = no dates, as
 * tl_promise_text) prefixes "published DATE: " and puts " (DATE)" after
 * T_min and T.  Dates are "YYYY-MM-DD HH:MM UTC". */
void tl_promise_text_at(char *buf, size_t cap, const tl_puzzle *pz, const tl_floor_table *ft, int64_t published);
/* t (Unix seconds) as "YYYY-MM-DD HH:MM UTC"; "after 9999" outside 1970..9999. */
void tl_promise_date(char *buf, size_t cap, int64_t t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
