/* SPDX-License-Identifier: ISC */
/* src/cli/lockfile_state.h — what `rxlock lock FILE` keeps in OUT.state/
 * beside the library's generation state (issue 20): the input's identity
 * (input.json) and the finished container (container.rxlock), then linked
 * to OUT.  docs/FORMAT.md §Generation state. */
#ifndef RXLOCK_CLI_LOCKFILE_STATE_H
#define RXLOCK_CLI_LOCKFILE_STATE_H
#include <limits.h>

typedef struct {
    char dir[PATH_MAX];      /* OUT.state                  */
    char ctr[PATH_MAX];      /* OUT.state/container.rxlock */
    char in[PATH_MAX];       /* OUT.state/input.json       */
} cli_lockfile_state;

/* The paths for output `out`.  CLI_OK, or CLI_FAIL after a message. */
int cli_lockfile_state_init(cli_lockfile_state *s, const char *out);
/* 1 when the state holds a finished container (2 when `out` is already
 * that file: a run stopped after linking it), else 0. */
int cli_lockfile_finished(const cli_lockfile_state *s, const char *out);
/* Compare the input open on fd (named `name`) with the recorded one, or
 * record it when the state has none and holds no started generation.
 * CLI_OK, or CLI_FAIL after a message naming what changed (state kept). */
int cli_lockfile_input(const cli_lockfile_state *s, int fd, const char *name);
/* Link the finished container to out (rename with force; nothing to do
 * when out is it already), sync the directory, remove the state.  CLI_OK,
 * or CLI_FAIL after a message (the state is kept). */
int cli_lockfile_commit(const cli_lockfile_state *s, const char *out, int force);
#endif
