/* src/cli/lock_opts.h — the options `rxlock lock` (puzzle) and `rxlock lock
 * FILE` (single file) share: work function, size (--groups/--steps or
 * --time with --rate/--calibration), mode, workers, signing key; the step
 * that turns them into tl_params; and the generation run itself. */
#ifndef RXLOCK_CLI_LOCK_OPTS_H
#define RXLOCK_CLI_LOCK_OPTS_H
#include "cli/cli_util.h"   /* the parsers (cli_parse_u64, cli_parse_duration) */
#include "rxlock/rxlock.h"
#include <stdint.h>

typedef struct {
    tl_params   p;
    tl_gen_opts go;
    const char *calib, *sign_key;
    uint64_t    groups, steps;
    double      duration, rate;
    int         progress;      /* --progress: the bar even off a TTY */
    int         pq;            /* issue 21: --pq 1, --classic 0, neither -1 */
    tl_engine_info engine;     /* set by cli_lock_generate: what ran */
} cli_lock_opts;

/* getopt_long entries for the shared options (short codes w g s t r c m n k;
 * --progress returns CLI_OPT_PROGRESS, outside the char range, so commands
 * that add their own letters, e.g. plan's 'P', never clash with it). */
#define CLI_OPT_PROGRESS 0x150
#define CLI_OPT_PQ       0x151   /* issue 21: --pq / --classic epoch key */
#define CLI_OPT_CLASSIC  0x152
#define CLI_LOCK_LONG_OPTS \
    {"work", required_argument, 0, 'w'}, {"groups", required_argument, 0, 'g'}, \
    {"steps", required_argument, 0, 's'}, {"time", required_argument, 0, 't'}, \
    {"rate", required_argument, 0, 'r'}, {"calibration", required_argument, 0, 'c'}, \
    {"mode", required_argument, 0, 'm'}, {"workers", required_argument, 0, 'n'}, \
    {"sign-key", required_argument, 0, 'k'}, {"progress", no_argument, 0, CLI_OPT_PROGRESS}, \
    {"pq", no_argument, 0, CLI_OPT_PQ}, {"classic", no_argument, 0, CLI_OPT_CLASSIC}

void cli_lock_opts_init(cli_lock_opts *o);
/* One getopt result: -1 if c is not a shared option, 0 if taken, else the
 * exit code of a usage error (already printed). */
int  cli_lock_opt(cli_lock_opts *o, int c, const char *arg, const char *cmd);
/* Check the combination, load the calibration, turn --time into G x S and
 * fill o->p.  0, or the exit code of an error (already printed). */
int  cli_lock_resolve(cli_lock_opts *o, const char *cmd);
/* issue 21: the epoch key kind, --pq / --classic or the command's default
 * (1 = post-quantum), into o->p.pq. */
void cli_lock_pq_default(cli_lock_opts *o, int dflt);

/* Load the signing key, run tl_generate with the progress display (label,
 * when / json as cli_progress_init) and the stop signals, wipe the key.
 * CLI_OK, or the exit code after a one-line message (nothing written). */
int  cli_lock_generate(cli_lock_opts *o, const char *label, int when, int json,
                       char **text, size_t *len, uint8_t pk[32], uint8_t *keep_sk);
#endif
