/* SPDX-License-Identifier: ISC */
/* src/cli/lock_opts.h — the options `rxlock lock` (puzzle) and `rxlock lock
 * FILE` (single file) share: work function, size (--groups/--steps, or
 * --time / --until against the floor or --rate / --calibration), mode,
 * workers, signing key; the step that turns them into tl_params; the
 * generation estimate and --dry-run before the work; and the generation
 * run itself. */
#ifndef RXLOCK_CLI_LOCK_OPTS_H
#define RXLOCK_CLI_LOCK_OPTS_H
#include "cli/cli_util.h"   /* the parsers (cli_parse_u64, cli_parse_duration) */
#include "rxlock/rxlock.h"
#include "rxlock/calibrate.h"
#include <stdint.h>
#include <stdio.h>

typedef struct {
    tl_params   p;
    tl_gen_opts go;
    const char *calib, *sign_key;
    uint64_t    groups, steps;
    double      duration, rate;
    int         progress;      /* --progress: the bar even off a TTY */
    int         pq;            /* --pq 1, --classic 0, neither -1 */
    tl_engine_info engine;     /* set by cli_lock_generate: what ran */

    int         mode_req;      /* -1: the mode policy; else --mode */
    tl_mode_choice mc;         /* the generation mode the policy chose */
    int         floor;         /* --floor: size for the fastest known CPU */
    const char *floor_table;   /* --floor-table FILE (else the built-in) */
    tl_floor_table ft;         /* loaded by cli_lock_resolve */
    double      setup;         /* setup seconds of the rate's machine */
    const char *cpu;           /* the calibrated CPU ("" for --rate) */
    tl_calibration cal;
    tl_gen_stats stats;        /* set by cli_lock_generate: resume, verification */
    /* the floor / --time / dates */
    long long   until;         /* --until DATE (Unix seconds), 0 = none */
    int         dry_run;       /* --dry-run: print the plan, write nothing */
    int         implied_floor; /* --time alone: sized against the floor */
    tl_calibration saved;      /* the saved calibration (cli_calib.h) */
    int         have_saved;    /* 1: `saved` loaded */
    int         rate_saved;    /* 1: the assumed rate is the saved one's */
    int state_refused;         /* a TL_EVENT_STATE was printed: the state is why */
    char state_write[320];     /* a state write that failed mid-generation (its
                                  TL_EVENT_STATE names a group): the file, the cause */
} cli_lock_opts;

/* The help lines of the verification and checkpoint options. */
#define CLI_VERIFY_HELP \
    "  --verify[=full|sample:F]  recompute chain segments on other worker processes and\n" \
    "                       compare before any wrap is made (a mismatch is decided by a\n" \
    "                       third computation and the chain corrected).  full: every\n" \
    "                       segment, about 1x the generation CPU again; sample:F: a random\n" \
    "                       share F of them, about F x the CPU (default sample:0.25)\n" \
    "  --no-verify          no verification (the puzzle records it as unverified)\n" \
    "  --checkpoint-steps C a sealed chain value every C steps: the unit of verification\n" \
    "                       and of resume (default: about 1/1024 of a group)\n"

/* getopt_long entries for the shared options (short codes w g s t r c m n k;
 * --progress returns CLI_OPT_PROGRESS, outside the char range, so commands
 * that add their own letters, e.g. plan's 'P', never clash with it). */
#define CLI_OPT_PROGRESS 0x150
#define CLI_OPT_FLOOR 0x151
#define CLI_OPT_FLOOR_TABLE 0x152
#define CLI_OPT_VERIFY    0x153   /* --verify[=full|sample[:F]|none] */
#define CLI_OPT_NO_VERIFY 0x154   /* --no-verify                               */
#define CLI_OPT_CKPT      0x155   /* --checkpoint-steps C                      */
#define CLI_OPT_PQ       0x156   /* --pq / --classic epoch key */
#define CLI_OPT_CLASSIC  0x157
#define CLI_OPT_UNTIL    0x158   /* --until DATE (ISO 8601 with zone)        */
#define CLI_OPT_DRY_RUN  0x159   /* --dry-run: the plan, nothing written     */
#define CLI_LOCK_LONG_OPTS \
    {"work", required_argument, 0, 'w'}, {"groups", required_argument, 0, 'g'}, \
    {"steps", required_argument, 0, 's'}, {"time", required_argument, 0, 't'}, \
    {"rate", required_argument, 0, 'r'}, {"calibration", required_argument, 0, 'c'}, \
    {"mode", required_argument, 0, 'm'}, {"workers", required_argument, 0, 'n'}, \
    {"sign-key", required_argument, 0, 'k'}, {"progress", no_argument, 0, CLI_OPT_PROGRESS}, \
    {"floor", no_argument, 0, CLI_OPT_FLOOR}, {"floor-table", required_argument, 0, CLI_OPT_FLOOR_TABLE}, \
    {"verify", optional_argument, 0, CLI_OPT_VERIFY}, {"no-verify", no_argument, 0, CLI_OPT_NO_VERIFY}, \
    {"checkpoint-steps", required_argument, 0, CLI_OPT_CKPT}, \
    {"pq", no_argument, 0, CLI_OPT_PQ}, {"classic", no_argument, 0, CLI_OPT_CLASSIC}, \
    {"until", required_argument, 0, CLI_OPT_UNTIL}, {"dry-run", no_argument, 0, CLI_OPT_DRY_RUN}

void cli_lock_opts_init(cli_lock_opts *o);
/* One getopt result: -1 if c is not a shared option, 0 if taken, else the
 * exit code of a usage error (already printed). */
int  cli_lock_opt(cli_lock_opts *o, int c, const char *arg, const char *cmd);
/* Check the combination, load the calibration, turn --time into G x S and
 * fill o->p.  0, or the exit code of an error (already printed). */
int  cli_lock_resolve(cli_lock_opts *o, const char *cmd);
/* Before any work (after cli_lock_resolve): the generation estimate here,
 * G x S over the workers at this machine's generation rate (the saved
 * calibration; without one a lower bound at the floor's rate), as wall
 * and CPU time, on f; past about 10 minutes the cheaper ways. */
void cli_lock_estimate(const cli_lock_opts *o, FILE *f);
/* --dry-run: the whole plan on stdout (sizes, promise, generation
 * estimate, memory); nothing is generated or written.  CLI_OK. */
int  cli_lock_dry_run(const cli_lock_opts *o, const char *what);
/* the epoch key kind, --pq / --classic or the command's default
 * (1 = post-quantum), into o->p.pq. */
void cli_lock_pq_default(cli_lock_opts *o, int dflt);

#endif
