/* SPDX-License-Identifier: ISC */
/* src/cli/lock/lockfile_state.h — what `rxlock lock FILE` keeps in OUT.state/
 * beside the library's generation state and state.c's finished
 * container: the input's identity (input.json).  docs/FORMAT.md
 * §Generation state. */
#ifndef RXLOCK_CLI_LOCKFILE_STATE_H
#define RXLOCK_CLI_LOCKFILE_STATE_H
#include "cli/lock/state.h"

/* Compare the input open on fd (named `name`) with the recorded one, or
 * record it when the state has none.  A changed input is refused (CLI_FAIL
 * after a message naming what changed; state kept) unless force: then it
 * is recorded anew and *changed = 1 (a finished container holds the old
 * content).  CLI_OK, or CLI_FAIL after a message. */
int cli_lockfile_input(const cli_lock_state *s, int fd, const char *name, int force, int *changed);
#endif
