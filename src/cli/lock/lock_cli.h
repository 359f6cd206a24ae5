/* SPDX-License-Identifier: ISC */
/* src/cli/lock/lock_cli.h — what the lock room's commands (lock, lock FILE,
 * solve, unlock, verify, inspect) share beyond the shared CLI: generating
 * a puzzle from parsed options and the promise printed after it
 * (generate.c), and the two lock commands' entry into each other. */
#ifndef RXLOCK_CLI_LOCK_LOCK_H
#define RXLOCK_CLI_LOCK_LOCK_H
#include "cli/lock_opts.h"
#include <stddef.h>
#include <stdint.h>

/* the promise on stderr after a lock: "rxlock: promise: ..." and
 * how to open it (command and mode). */
void cli_lock_promise(const cli_lock_opts *o, const tl_puzzle *pz, const char *open_cmd);
/* Load the signing key, run tl_generate with the progress display (label,
 * when / json as cli_progress_init) and the stop signals, wipe the key.
 * *pz receives the generated puzzle parsed once (tl_puzzle_free).  CLI_OK,
 * or the exit code after a one-line message (nothing written). */
int  cli_lock_generate(cli_lock_opts *o, const char *label, int when, int json,
                       char **text, size_t *len, tl_puzzle **pz, uint8_t pk[32], uint8_t *keep_sk);
/* `rxlock lock FILE` (lockfile.c), which `rxlock lock` hands a FILE to. */
int  cmd_lock_file(int argc, char **argv);
#endif
