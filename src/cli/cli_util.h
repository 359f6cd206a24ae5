/* SPDX-License-Identifier: ISC */
/* src/cli/cli_util.h — the helpers every CLI command shares, so that each
 * command reads as parse, call, report: stop signals, the progress display
 * and JSON progress lines (with the engine and the one-line JIT fallback
 * warning), identity-file output, number / mode / pin parsing, and the
 * messages for refused puzzles, failed work and existing outputs.  Defined
 * by job: cli_progress_ui.c (signals, progress), cli_parse.c (option
 * values), cli_io.c (files, streams, JSON lines) and cli_errors.c
 * (messages). */
#ifndef RXLOCK_CLI_UTIL_H
#define RXLOCK_CLI_UTIL_H
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "cli/progress.h"
#include "util/util.h"
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* SIGINT, SIGTERM and SIGHUP set the returned flag; hand it to the library
 * as its `stop` (it checkpoints / cleans up and returns TL_EINTR). */
const volatile int *cli_catch_signals(void);
/* The exit code of a run the stop flag ended: 128 + the signal (130 for
 * SIGINT), or CLI_FAIL when no signal came (a callback stopped it). */
int cli_interrupted_rc(void);

/* Progress of a long library call: a one-line bar on stderr (a TTY, or
 * --progress), or JSON lines on stdout (--json).  Its callback prints the
 * engine warning once when the JIT fell back to the interpreter, puts the
 * engine into the bar's label and a {"event":"start"} JSON line, and
 * cancels when the stop flag is set. */
typedef struct {
    pbar bar;
    int  json;
    int  started;
    int  when;                /* PBAR_*: NEVER = quiet or json */
    const volatile int *stop;
    char base_label[16];
    tl_engine_info engine;    /* work == 0 until the library reported it */
    /* the dataset build before the work (full mode) */
    pbar setup_bar;  /* "dataset: N/2080 MiB", ETA + the hashing */
    int  setup_state;         /* 0 none yet, 1 drawing, 2 done */
} cli_progress;

/* PBAR_NEVER for quiet / json, FORCE for --progress, else AUTO. */
int  cli_progress_when(int quiet, int json, int forced);
void cli_progress_init(cli_progress *cp, const char *label, uint64_t total, int when, int json);
int  cli_progress_cb(const tl_progress *p, void *ctx);      /* a tl_progress_fn */
/* ok: draw the final line; else erase it (before an error message). */
void cli_progress_end(cli_progress *cp, int ok);
/* "jit (install: proc-mem), hardware AES, full mode" / "interpreter, ..." /
 * "sha3-256". */
void cli_engine_text(const tl_engine_info *e, char *buf, size_t cap);
/* Print a JSON object as one compact line on stdout and free it.  CLI_OK,
 * or CLI_FAIL after a message (NULL object, write error). */
int cli_print_json(json_t *o);
/* An age error found in the payload, after plaintext may have been
 * written (not a header error, which comes before any output). */
int cli_age_payload_error(int e);

/* Age identity file (mode 0600; "-": standard output) commented with the
 * puzzle id and `how` (may be ""), of the puzzle's epoch kind (X25519, or
 * post-quantum for a pq_epoch puzzle): CLI_OK, or CLI_FAIL after
 * saying why. */
int cli_write_identity(const char *path, const uint8_t x[32], const tl_puzzle *pz, const char *how, int force);
/* The epoch recipient string: age1... or, for a post-quantum epoch, the
 * age1pq1... one.  CLI_OK or CLI_FAIL after saying why. */
int cli_epoch_recipient(const tl_puzzle *pz, char out[TL_AGE_PQ_RECIPIENT_MAX]);
/* The recipient string (age1... or age1pq1...) of an identity's key (pq:
 * its seed, else its X25519 scalar).  0 or -1; nothing printed. */
int cli_identity_recipient(const uint8_t key[32], int pq, char out[TL_AGE_PQ_RECIPIENT_MAX]);
/* 1 when the age identity file at path (either kind) holds pz's epoch
 * identity (its recipient is the puzzle's epoch recipient), else 0 (a file
 * that is missing or no identity: nothing printed). */
int cli_identity_file_is_epoch(const char *path, const tl_puzzle *pz);

/* A whole output at once: atomically to path (no clobber without force),
 * or to stdout for NULL / "-".  CLI_OK, or CLI_FAIL after a message. */
int cli_write_text(const char *path, const void *text, size_t len, int force, mode_t mode);

/* Parsers: 0 on success, -1 otherwise (nothing printed). */
int cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);     /* decimal */
int cli_parse_double(const char *s, double lo, double hi, double *out);
int cli_parse_duration(const char *s, double *out);   /* "7d", "90m", "3600", "1.5h", "1h30m" */
/* A duration option (--checkpoint-every 5m) within lo..hi seconds: CLI_OK,
 * or the usage exit code after a message echoing the value and why. */
int cli_parse_seconds_opt(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);
/* A time-lock's length (lock --time, beacon --every / --opens-after): as
 * cli_parse_seconds_opt, but a bare number is refused: its unit is said. */
int cli_parse_span_opt(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out);
int cli_parse_mode(const char *s, tl_mode *out);      /* "light" / "full" */
int cli_parse_pin(const char *hex, uint8_t pin[32]);  /* 64 hex digits */

/* the one mode policy for a command.  requested -1 = choose
 * (tl_mode_resolve); prints the one warning line when low memory made it
 * light.  Returns the mode to run. */
tl_mode cli_mode_pick(tl_work_type work, int requested);
/* The warning line for a choice (nothing unless low memory chose light). */
void cli_mode_warn(const tl_mode_choice *mc);

/* Structure, signature and optional pin: CLI_OK, or the exit code after a
 * one-line message (CLI_VERIFY for a bad signature / pin mismatch). */
int cli_check_puzzle(const char *path, const tl_puzzle *pz, const uint8_t *pin);
/* The one warning line for a JIT that fell back to the interpreter. */
void cli_warn_fallback(const char *why);
/* "WHAT: the RandomX JIT cannot start: WHY (...)"; returns CLI_FAIL. */
int cli_jit_error(const char *what, const char *why);
/* A failed call that ran the work function: says plainly when the JIT
 * required by RXLOCK_ENGINE=jit cannot start.  Returns CLI_FAIL. */
int cli_work_error(const char *what, int rc, tl_work_type work);
/* "PATH: <strerror(errno)>" plus a --force hint for EEXIST; CLI_FAIL. */
int cli_output_error(const char *path);

/* A command's byte streams: input FILE or '-' (stdin, not a directory);
 * output OUT written atomically (never over an existing file without
 * force), or stdout when out_path is NULL or "-". */
typedef struct {
    int in_fd, out_fd;
    const char *out_path;      /* NULL: stdout */
    util_atomic out;
} cli_io;
/* CLI_OK, or CLI_FAIL after a message (nothing left open). */
int cli_io_open(cli_io *io, const char *in_path, const char *out_path, int force, mode_t mode);
/* Open only the output (stdout for NULL / "-"), e.g. once the long work
 * is done: the temp file exists only while writing.  CLI_OK or CLI_FAIL
 * after a message. */
int cli_io_open_out(cli_io *io, const char *out_path, int force, mode_t mode);
/* Close the input; commit the output when ok, else remove it.  CLI_OK, or
 * CLI_FAIL after a message when the commit fails. */
int cli_io_finish(cli_io *io, int ok);
#endif
