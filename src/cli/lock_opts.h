/* src/cli/lock_opts.h — the options `rxlock lock` (puzzle) and `rxlock lock
 * FILE` (single file) share: work function, size (--groups/--steps or
 * --time with --rate/--calibration), mode, workers, signing key; and the
 * step that turns them into tl_params. */
#ifndef RXLOCK_CLI_LOCK_OPTS_H
#define RXLOCK_CLI_LOCK_OPTS_H
#include "rxlock/rxlock.h"
#include <stdint.h>

typedef struct {
    tl_params   p;
    tl_gen_opts go;
    const char *calib, *sign_key;
    uint64_t    groups, steps;
    double      duration, rate;
} cli_lock_opts;

/* getopt_long entries for the shared options (short codes w g s t r c m n k). */
#define CLI_LOCK_LONG_OPTS \
    {"work", required_argument, 0, 'w'}, {"groups", required_argument, 0, 'g'}, \
    {"steps", required_argument, 0, 's'}, {"time", required_argument, 0, 't'}, \
    {"rate", required_argument, 0, 'r'}, {"calibration", required_argument, 0, 'c'}, \
    {"mode", required_argument, 0, 'm'}, {"workers", required_argument, 0, 'n'}, \
    {"sign-key", required_argument, 0, 'k'}

void cli_lock_opts_init(cli_lock_opts *o);
/* One getopt result: -1 if c is not a shared option, 0 if taken, else the
 * exit code of a usage error (already printed). */
int  cli_lock_opt(cli_lock_opts *o, int c, const char *arg, const char *cmd);
/* Check the combination, load the calibration, turn --time into G x S and
 * fill o->p.  0, or the exit code of an error (already printed). */
int  cli_lock_resolve(cli_lock_opts *o, const char *cmd);

/* "7d", "90m", "3600", "1.5h" -> seconds.  0 or -1. */
int  cli_parse_duration(const char *s, double *out);
/* Decimal in [lo, hi].  0 or -1. */
int  cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
#endif
