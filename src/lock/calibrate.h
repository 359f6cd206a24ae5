/* src/lock/calibrate.h — measuring this machine's sequential chain rate with
 * the real chain code (tl_work_steps), and the calibration file that
 * `rxlock lock --calibration FILE` reads.  Shared by `rxlock calibrate` and
 * any quick estimate (inspect).
 *
 * File format (one JSON object, keys exactly these):
 *   {"rxlock_calibration": 1, "work": "randomx-v2"|"randomx-v1"|"sha3-256",
 *    "mode": "full"|"light", "rate": <hashes/s>, "rate_min": n, "rate_max": n,
 *    "seconds": n, "cpu": "...", "created": "YYYY-MM-DDTHH:MM:SSZ"}
 */
#ifndef RXLOCK_LOCK_CALIBRATE_H
#define RXLOCK_LOCK_CALIBRATE_H
#include "rxlock/rxlock.h"
#include "util/progress.h"
#include <stddef.h>
#include <stdint.h>

#define TL_CALIBRATION_VERSION   1
#define TL_CALIBRATION_MAX_BYTES 4096     /* bound on a file we read        */
#define TL_CALIBRATE_MIN_SECONDS 0.05
#define TL_CALIBRATE_MAX_SECONDS 86400.0

typedef struct {
    tl_work_type work;
    tl_mode  mode;
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

/* This machine's CPU model (printable ASCII, "unknown" when unreadable). */
void tl_cpu_model(char *out, size_t cap);

/* Build the work function (untimed), then run one dependent chain for about
 * `seconds` in equal windows (3..10 of them) and report the overall rate and
 * the slowest/fastest window.  prog (may be NULL) is updated as it runs.
 * stop (may be NULL): non-zero -> TL_EINTR.  Returns 0 or a TL_E* code. */
int tl_calibrate(tl_work_type type, tl_mode mode, double seconds, util_progress *prog,
                 const volatile int *stop, tl_calibration *out);

/* Canonical JSON text (malloc'd, NUL-terminated, trailing newline). */
int tl_calibration_to_json(const tl_calibration *c, char **json, size_t *len);
/* Parse and validate (all keys present, no others, known work/mode, rates
 * finite with 0 < rate_min <= rate <= rate_max, seconds > 0).  err gets a
 * one-line reason on failure (TL_EFORMAT, TL_EVERSION, TL_ETOOBIG). */
int tl_calibration_parse(const char *json, size_t len, tl_calibration *out, char *err, size_t errlen);
int tl_calibration_load(const char *path, tl_calibration *out, char *err, size_t errlen);
#endif
