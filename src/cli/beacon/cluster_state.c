/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/cluster_state.c — `beacon run --cluster`'s record of one
 * epoch key's submissions, DIR/private/cluster/STEM.state (docs/FORMAT.md
 * §Service record): `key=value` lines, at most 1 KiB, read leniently
 * (unknown lines ignored, numbers bounded) and replaced atomically, 0600.
 * cluster_epoch.c writes the job name before a submission and the job ids
 * after it, so a kill between the two is found by the name. */
#include "cli/beacon/beacon_cli.h"
#include "util/util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CL_STATE_MAX 1024

int bcn_cl_state_read(const bcn_dir *b, const char *stem, bcn_cl_state *st) {
    char p[PATH_MAX];
    memset(st, 0, sizeof *st);
    bcn_file(b, p, "private/cluster/%s.state", stem);
    uint8_t *buf = NULL;
    size_t len = 0;
    if (util_read_file(p, CL_STATE_MAX, &buf, &len) != 0) return errno == ENOENT ? 0 : -1;
    char *save = NULL;
    for (char *l = strtok_r((char *)buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        unsigned long long v;
        if (sscanf(l, "attempt=%llu", &v) == 1) st->attempt = (unsigned)(v > 1000 ? 1000 : v);
        else if (sscanf(l, "first_submit=%llu", &v) == 1) st->first_submit = (int64_t)(v > (1ull << 53) ? 0 : v);
        else if (sscanf(l, "submitted=%llu", &v) == 1) st->submitted = (int64_t)(v > (1ull << 53) ? 0 : v);
        else if (sscanf(l, "gave_up=%llu", &v) == 1) st->gave_up = v != 0;
        else if (sscanf(l, "verify_applied=%llu", &v) == 1) st->verify_applied = v != 0;
        else if (!strncmp(l, "name=", 5)) snprintf(st->name, sizeof st->name, "%.95s", l + 5);
        else if (!strncmp(l, "job0=", 5)) snprintf(st->jobs[0], 32, "%.31s", l + 5);
        else if (!strncmp(l, "job1=", 5)) snprintf(st->jobs[1], 32, "%.31s", l + 5);
    }
    free(buf);
    if (!st->submitted) st->submitted = st->first_submit;   /* a record written before this field */
    return 1;
}

int bcn_cl_state_write(const bcn_dir *b, const char *stem, const bcn_cl_state *st, char *err, size_t errlen) {
    char p[PATH_MAX], text[CL_STATE_MAX];
    bcn_file(b, p, "private/cluster");
    if (mkdir(p, 0700) != 0 && errno != EEXIST) { snprintf(err, errlen, "%s: %s", p, strerror(errno)); return -1; }
    int n = snprintf(text, sizeof text, "attempt=%u\nname=%s\njob0=%s\njob1=%s\nfirst_submit=%lld\nsubmitted=%lld\n"
                     "gave_up=%d\nverify_applied=%d\n", st->attempt, st->name, st->jobs[0], st->jobs[1],
                     (long long)st->first_submit, (long long)st->submitted, st->gave_up, st->verify_applied);
    bcn_file(b, p, "private/cluster/%s.state", stem);
    char fault[80];   /* the test build's full disk: RXLOCK_TEST_STATE_ENOSPC=private/cluster/STEM.state */
    snprintf(fault, sizeof fault, "private/cluster/%s.state", stem);
    if (n < 0 || (size_t)n >= sizeof text || util_test_enospc(fault) ||
        util_write_file_atomic(p, text, (size_t)n, 1, 0600) != 0) {
        snprintf(err, errlen, "%s: %s", p, strerror(errno));
        return -1;
    }
    return 0;
}
