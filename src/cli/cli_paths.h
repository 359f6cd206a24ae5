/* SPDX-License-Identifier: ISC */
/* src/cli/cli_paths.h — the one check every command makes of all the files
 * it names, before any work: no two outputs, and no output and
 * input, may be the same file (device + inode where they exist, resolved
 * paths otherwise); an output must not exist unless --force, must not be a
 * directory, and its directory must exist and be writable.  NULL paths and
 * "-" (standard input / output) are skipped.  Also the plan directory's
 * first check (plan status, assemble): a directory holding plan.json. */
#ifndef RXLOCK_CLI_PATHS_H
#define RXLOCK_CLI_PATHS_H
#include <stddef.h>

typedef enum {
    CLI_PATH_IN    = 0,   /* read only                                    */
    CLI_PATH_OUT   = 1,   /* written; refused when it exists, unless force */
    CLI_PATH_STATE = 2    /* written and re-read (a journal): may exist     */
} cli_path_kind;

typedef struct {
    const char   *path;   /* NULL or "-": skipped                         */
    const char   *what;   /* the option, for messages: "--keep-epoch-key" */
    cli_path_kind kind;
} cli_path;

/* CLI_OK, or CLI_FAIL after one message naming the file and the cause. */
int cli_paths_check(const cli_path *paths, size_t n, int force);
/* "-" or NULL: the standard stream. */
int cli_path_is_std(const char *path);
/* dir is a plan directory (holds plan.json): CLI_OK, or CLI_FAIL after a
 * message saying what dir is instead and which directory to give. */
int cli_plan_dir_check(const char *dir);
#endif
