/* SPDX-License-Identifier: ISC */
/* src/cli/cli_calib.c — the saved calibration's location and loading
 * (see cli_calib.h). */
#include "cli/cli_calib.h"
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_calib_path(tl_work_type work, char *buf, size_t cap) {
    const char *x = getenv("XDG_STATE_HOME"), *h = getenv("HOME");
    const char *w = tl_work_name(work);
    int n;
    if (!w) return -1;
    if (x && x[0] == '/') n = snprintf(buf, cap, "%s/rxlock/calibration-%s.json", x, w);
    else if (h && h[0] == '/') n = snprintf(buf, cap, "%s/.local/state/rxlock/calibration-%s.json", h, w);
    else return -1;
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

int cli_calib_mkdir(const char *path) {
    char d[PATH_MAX];
    if (snprintf(d, sizeof d, "%s", path) >= (int)sizeof d) { errno = ENAMETOOLONG; return -1; }
    char *end = strrchr(d, '/');
    if (!end || end == d) return 0;
    *end = 0;
    for (char *p = d + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(d, 0700) != 0 && errno != EEXIST) return -1;
            *p = c;
            if (!c) break;
        }
    }
    struct stat st;
    return stat(d, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

int cli_calib_load_saved(tl_work_type work, tl_calibration *c, char *path, size_t cap) {
    char p[PATH_MAX], err[256];
    if (cli_calib_path(work, p, sizeof p) != 0 || access(p, F_OK) != 0) return 0;
    if (tl_calibration_load(p, c, err, sizeof err) != 0) {
        fprintf(stderr, "rxlock: warning: the saved calibration does not load (%s): ignored; "
                        "`rxlock calibrate --work %s` measures again\n", err, tl_work_name(work));
        return 0;
    }
    if (c->work != work) {
        fprintf(stderr, "rxlock: warning: %s is for %s, not %s: ignored\n", p, tl_work_name(c->work), tl_work_name(work));
        return 0;
    }
    if (path && cap) snprintf(path, cap, "%s", p);
    return 1;
}
