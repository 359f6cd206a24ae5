/* SPDX-License-Identifier: ISC */
/* src/util/killpoint.c — named points where the test build can kill the
 * process (SIGKILL, as a power cut or kill -9 would): RXLOCK_TEST_KILL_AT=
 * NAME together with RXLOCK_TEST_INSECURE=1.  The shipping build's call
 * does nothing.  Used by `lock FILE` between its commit steps
 * (tests/cli/test_lockfile_resume.sh). */
#include "util/util.h"
#include <signal.h>
#include <stdlib.h>
#include <string.h>

void util_kill_point(const char *name) {
#ifdef RXLOCK_TESTING
    const char *at = getenv("RXLOCK_TEST_KILL_AT"), *ins = getenv("RXLOCK_TEST_INSECURE");
    if (at && ins && !strcmp(ins, "1") && !strcmp(at, name)) (void)raise(SIGKILL);
#else
    (void)name;
#endif
}
