/* SPDX-License-Identifier: ISC */
/* src/cli/cli_puzzle.h — loading a puzzle the way every command does
 *: a puzzle file, or (where the command reads them) the puzzle
 * inside a .rxlock container; a file of the wrong kind is refused with the
 * command that reads it. */
#ifndef RXLOCK_CLI_PUZZLE_H
#define RXLOCK_CLI_PUZZLE_H
#include "rxlock/rxlock.h"

/* What a file's first bytes say it is. */
typedef enum { CLI_KIND_OTHER, CLI_KIND_PUZZLE, CLI_KIND_CONTAINER, CLI_KIND_AGE } cli_file_kind;
/* The kind of the file open on fd (read from offset 0, then rewound). */
cli_file_kind cli_file_kind_fd(int fd);
/* "rxlock solve PATH -o IDENTITY" etc.: the command for a kind. */
const char *cli_kind_hint(cli_file_kind k);
/* "a puzzle", "a time-locked file (.rxlock)", "an age file"; NULL for
 * CLI_KIND_OTHER. */
const char *cli_kind_name(cli_file_kind k);
/* What the regular file open on fd looks like when it is none of the kinds,
 * for a message: "empty", "JSON of another kind (N bytes)", "text (N
 * bytes)" or "binary data (N bytes)". */
void cli_file_looks(int fd, char *buf, size_t cap);

/* Load path ("-" = stdin, recognised by its content) as a puzzle; with
 * allow_container a .rxlock file gives its puzzle (*was_container = 1).
 * CLI_OK, or CLI_FAIL after one message. */
int cli_puzzle_load(const char *path, int allow_container, tl_puzzle **pz, int *was_container);
/* A container file's encrypted payload, as far as it can be checked
 * without the key (age_check_fd: the age header's syntax, the STREAM's
 * length): CLI_OK, or CLI_FAIL after saying what is wrong. */
int cli_container_payload_check(const char *path);

/* A failed tl_solve, named by its real cause: the journal (path, errno:
 * ELOOP, EROFS, ENOSPC; in use by a running solve; another version; not a
 * journal) or the puzzle / engine.  Returns the exit code (CLI_FAIL). */
int cli_solve_error(const char *puzzle_path, const char *journal, int rc, const tl_solve_stats *st,
                    tl_work_type work);
#endif
