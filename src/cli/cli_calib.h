/* SPDX-License-Identifier: ISC */
/* src/cli/cli_calib.h — the saved calibration: one file per work function
 * at the default location, $XDG_STATE_HOME/rxlock/calibration-WORK.json
 * (else $HOME/.local/state/rxlock/...), written by `rxlock calibrate`
 * without -o and read by lock / plan / inspect for the "about T here" and
 * the generation estimate (docs/FORMAT.md §Calibration file). */
#ifndef RXLOCK_CLI_CALIB_H
#define RXLOCK_CLI_CALIB_H
#include "rxlock/calibrate.h"
#include <stddef.h>

/* The saved calibration's path for work into buf: 0, or -1 when neither
 * XDG_STATE_HOME nor HOME is set (absolute) or the path does not fit. */
int cli_calib_path(tl_work_type work, char *buf, size_t cap);
/* Create the path's directories (0700) as needed: 0, or -1 (errno). */
int cli_calib_mkdir(const char *path);
/* Load the saved calibration for work: 1 loaded (path in `path`, when
 * given), 0 none there.  A file that exists but does not load, or is for
 * another work, is one warning line on stderr and counts as none. */
int cli_calib_load_saved(tl_work_type work, tl_calibration *c, char *path, size_t cap);
#endif
