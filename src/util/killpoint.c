/* SPDX-License-Identifier: ISC */
/* src/util/killpoint.c — named points where the test build can kill the
 * process (SIGKILL, as a power cut or kill -9 would): RXLOCK_TEST_KILL_AT=
 * NAME together with RXLOCK_TEST_INSECURE=1; and named writes of a
 * generation state it can fail as on a full disk: RXLOCK_TEST_STATE_ENOSPC=
 * NAME, also with the insecure mode; and named points where it can pause
 * until the test says go: RXLOCK_TEST_PAUSE_AT=NAME:FILE creates
 * FILE.reached and waits (at most 60 s) until FILE exists.  The shipping
 * build's calls do nothing.  Used by `lock FILE` between its commit steps
 * (tests/cli/test_lockfile_resume.sh) and by the full-disk cases of `lock`
 * (tests/cli/test_misuse.sh). */
#include "util/util.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>

void util_kill_point(const char *name) {
#ifdef RXLOCK_TESTING
    const char *at = getenv("RXLOCK_TEST_KILL_AT"), *ins = getenv("RXLOCK_TEST_INSECURE");
    if (at && ins && !strcmp(ins, "1") && !strcmp(at, name)) (void)raise(SIGKILL);
#else
    (void)name;
#endif
}

int util_test_enospc(const char *name) {
#ifdef RXLOCK_TESTING
    const char *at = getenv("RXLOCK_TEST_STATE_ENOSPC"), *ins = getenv("RXLOCK_TEST_INSECURE");
    if (at && ins && !strcmp(ins, "1") && !strcmp(at, name)) {
        errno = ENOSPC;
        return 1;
    }
#else
    (void)name;
#endif
    return 0;
}

void util_pause_point(const char *name) {
#ifdef RXLOCK_TESTING
    const char *at = getenv("RXLOCK_TEST_PAUSE_AT"), *ins = getenv("RXLOCK_TEST_INSECURE");
    size_t n = strlen(name);
    if (!at || !ins || strcmp(ins, "1") || strncmp(at, name, n) || at[n] != ':' || !at[n + 1]) return;
    char reached[4096];
    if (snprintf(reached, sizeof reached, "%s.reached", at + n + 1) >= (int)sizeof reached) return;
    int fd = open(reached, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
    struct timespec ts = { 0, 50 * 1000 * 1000 };
    for (int k = 0; k < 1200 && access(at + n + 1, F_OK) != 0; k++) nanosleep(&ts, NULL);
#else
    (void)name;
#endif
}
