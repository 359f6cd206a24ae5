/* SPDX-License-Identifier: ISC */
/* src/util/nodump.c — keeping a process's secrets out of core dumps and
 * debuggers: RLIMIT_CORE 0 and PR_SET_DUMPABLE 0 (both inherited by forked
 * workers).  Test build: RXLOCK_TEST_DUMP_STATE=FILE appends the state that
 * resulted ("dumpable=D core=N") to FILE, for tests/cli/test_misuse.sh. */
#include "util/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>

int util_no_core_dumps(void) {
    struct rlimit rl = { 0, 0 };
    int rc = 0;
    if (setrlimit(RLIMIT_CORE, &rl) != 0) rc = -1;
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) rc = -1;
#ifdef RXLOCK_TESTING
    const char *path = getenv("RXLOCK_TEST_DUMP_STATE");
    FILE *fp = path ? fopen(path, "a") : NULL;
    if (fp) {
        struct rlimit now = { 1, 1 };
        (void)getrlimit(RLIMIT_CORE, &now);
        fprintf(fp, "dumpable=%d core=%llu\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), (unsigned long long)now.rlim_cur);
        fclose(fp);
    }
#endif
    return rc;
}
