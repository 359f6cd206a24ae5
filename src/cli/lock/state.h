/* SPDX-License-Identifier: ISC */
/* src/cli/lock/state.h — the generation state directory OUT.state/ as
 * `rxlock lock -o PUZZLE` and `rxlock lock FILE` both keep it (docs/FORMAT.md
 * §Generation state): the library's files (tl_gen_opts.state_dir) plus the
 * command's own — the finished output (puzzle.json or container.rxlock),
 * the kept epoch identity (epoch.key) and lock FILE's input record — read
 * through the directory's handle only, committed by linking them out, then
 * the state removed (secrets first, idempotent: any re-run finishes a
 * removal that was cut short). */
#ifndef RXLOCK_CLI_LOCK_STATE_H
#define RXLOCK_CLI_LOCK_STATE_H
#include <limits.h>
#include <stddef.h>

typedef struct {
    char dir[PATH_MAX];          /* OUT.state                               */
    const char *out;             /* OUT                                     */
    const char *keep;            /* --keep-epoch-key FILE, or NULL          */
    const char *fin;             /* the finished output's name in dir       */
    const char *other;           /* a file that marks the other command's state */
    const char *files[4];        /* tl_gen_opts.state_files                  */
} cli_lock_state;

/* OUT.state for output out; fin: "puzzle.json" (lock -o) or
 * "container.rxlock" (lock FILE); keep: the identity to link out too.
 * CLI_OK, or CLI_FAIL after a message. */
int cli_lock_state_init(cli_lock_state *s, const char *out, const char *fin, const char *keep);
/* Refuse the other command's state (its marker file present).  CLI_OK or
 * CLI_FAIL after a message naming the way out. */
int cli_lock_state_kind(const cli_lock_state *s);
/* A removal cut short after the finished output was gone (OUT exists, the
 * state holds neither it nor a generation): finish it. */
void cli_lock_state_tidy(const cli_lock_state *s);
/* The finished output in the state, opened read-only as a regular file
 * through the directory's handle: its descriptor, -1 when there is none
 * (no state, no file), -2 after a message (a symbolic link, a FIFO or
 * another file in its place: refused). */
int cli_lock_state_fin_open(const cli_lock_state *s);
/* 1 when the state still holds what a generation needs (plan.json): a
 * damaged finished output can then be made again. */
int cli_lock_state_can_resume(const cli_lock_state *s);
/* Remove the finished output that did not check (it is made again). */
int cli_lock_state_fin_drop(const cli_lock_state *s);
/* 1 when OUT is the state's finished output (the same file). */
int cli_lock_state_out_is_fin(const cli_lock_state *s);
/* 1 when path is the state's file name (linked out by an earlier run). */
int cli_lock_state_linked(const cli_lock_state *s, const char *name, const char *path);
/* Write name (the finished output or "epoch.key") inside the state,
 * atomically, through its handle.  CLI_OK or CLI_FAIL after a message. */
int cli_lock_state_write(const cli_lock_state *s, const char *name, const void *data, size_t len, int mode);
/* The message for a failed write of name inside the state (errno e): on a
 * full disk (ENOSPC, EDQUOT) it says the state is kept and that the same
 * command finishes once there is space.  CLI_FAIL. */
int cli_lock_state_write_error(const cli_lock_state *s, const char *name, int e);
/* Link the finished output to OUT and epoch.key to --keep-epoch-key
 * (nothing to do for what is already linked; with force an existing other
 * file is replaced atomically), sync, then remove the state.  CLI_OK, or
 * CLI_FAIL after a message (the state is kept: the same command again
 * finishes it). */
int cli_lock_state_commit(const cli_lock_state *s, int force);
#endif
