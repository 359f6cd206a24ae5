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

#define TL_CALIBRATION_VERSION   2
#define TL_CALIBRATION_MAX_BYTES 4096     /* bound on a file we read        */
#define TL_CALIBRATE_MIN_SECONDS 0.05
#define TL_CALIBRATE_MAX_SECONDS 86400.0

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
    double   setup_seconds;  /* cache / dataset build (0 when parsed)      */
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
} tl_calibrate_opts;

/* This machine's CPU model (printable ASCII, "unknown" when unreadable). */
void tl_cpu_model(char *out, size_t cap);

/* Build the work function (untimed), then run one dependent chain for about
 * `seconds` in equal windows (3..10 of them) and report the overall rate,
 * the slowest/fastest window and the engine that ran.  o may be NULL.
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

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
