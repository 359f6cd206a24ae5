/* SPDX-License-Identifier: ISC */
/* src/cli/lock/lockfile_state.c — `rxlock lock FILE`'s input record in
 * OUT.state/ (docs/FORMAT.md §Generation state, docs/SECURITY.md): which
 * input the lock was started for (size and modification time, no content
 * hash), read and written through the state directory's handle; a re-run
 * whose input changed is refused, naming what changed, unless --force
 * takes the file as it is now.  The state directory itself, the finished
 * container and the commit are state.c's. */
#include "cli/lock/lockfile_state.h"
#include "cli/lock/state.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* UTC text of a modification time, to the nanosecond. */
static void time_text(char *buf, size_t cap, long long sec, long nsec) {
    struct tm tm;
    time_t t = (time_t)sec;
    char d[32] = "?";
    if (gmtime_r(&t, &tm)) strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%09ld UTC", d, nsec);
}

static int record(const cli_lock_state *s, const struct stat *st) {
    struct stat ds;
    int dfd = util_open_dir_at(AT_FDCWD, s->dir, 1);
    if (dfd < 0 || fstat(dfd, &ds) != 0 || ds.st_uid != geteuid()) {
        if (dfd >= 0) close(dfd);
        return cli_error("%s: not a directory of this user: remove it or give another -o", s->dir);
    }
    close(dfd);
    char *txt = NULL;
    json_t *o = json_pack("{s:i, s:I, s:I, s:I}", "rxlock_lock_input", 1, "size", (json_int_t)st->st_size,
                          "mtime_sec", (json_int_t)st->st_mtim.tv_sec, "mtime_nsec", (json_int_t)st->st_mtim.tv_nsec);
    if (o) txt = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!txt) return cli_error("out of memory");
    int rc = cli_lock_state_write(s, "input.json", txt, strlen(txt), 0600);
    free(txt);
    return rc;
}

int cli_lockfile_input(const cli_lock_state *s, int fd, const char *name, int force, int *changed) {
    struct stat st;
    *changed = 0;
    if (fstat(fd, &st) != 0) return cli_error("%s: %s", name, strerror(errno));
    uint8_t *data = NULL;
    size_t len = 0;
    int dfd = util_open_dir_at(AT_FDCWD, s->dir, 0);
    int r = dfd < 0 ? -1 : util_read_at(dfd, "input.json", 4096, &data, &len);
    int e = errno;
    if (dfd >= 0) close(dfd);
    if (r != 0) {
        if (e != ENOENT) return cli_error("%s/input.json: %s: remove %s/ to start over", s->dir,
                                          e == ELOOP ? "a symbolic link (refused)" : e == EINVAL ? "not a regular file (refused)"
                                          : strerror(e), s->dir);
        return record(s, &st);   /* the kind of state was checked (cli_lock_state_kind) */
    }
    json_t *o = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, NULL);
    free(data);
    json_t *v = json_object_get(o, "rxlock_lock_input"), *z = json_object_get(o, "size"),
           *ms = json_object_get(o, "mtime_sec"), *mn = json_object_get(o, "mtime_nsec");
    if (!json_is_object(o) || json_object_size(o) != 4 || !json_is_integer(v) || json_integer_value(v) != 1 ||
        !json_is_integer(z) || !json_is_integer(ms) || !json_is_integer(mn)) {
        json_decref(o);
        return cli_error("%s/input.json: not an rxlock input record (damaged?): remove %s/ to start over", s->dir, s->dir);
    }
    long long size = json_integer_value(z), sec = json_integer_value(ms);
    long nsec = (long)json_integer_value(mn);
    json_decref(o);
    int size_diff = size != (long long)st.st_size;
    int time_diff = sec != (long long)st.st_mtim.tv_sec || nsec != st.st_mtim.tv_nsec;
    if (!size_diff && !time_diff) return CLI_OK;
    char was[64], now[64], what[256];
    time_text(was, sizeof was, sec, nsec);
    time_text(now, sizeof now, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
    if (size_diff && time_diff)
        snprintf(what, sizeof what, "size %lld -> %lld bytes, modified %s -> %s", size, (long long)st.st_size, was, now);
    else if (size_diff)
        snprintf(what, sizeof what, "size %lld -> %lld bytes", size, (long long)st.st_size);
    else
        snprintf(what, sizeof what, "modified %s -> %s", was, now);
    if (force) {   /* the puzzle does not depend on the file: lock it as it is now */
        fprintf(stderr, "rxlock: note: %s changed since this lock started (%s): --force locks it as it is now "
                "(the generation's work is kept)\n", name, what);
        *changed = 1;
        return record(s, &st);
    }
    return cli_error("%s: changed since this lock started (%s): its state %s/ is for the file as it was. "
                     "Restore the file and run the same command to resume, or remove %s/ to start over "
                     "(its work is lost), or give --force to lock the file as it is now", name, what, s->dir, s->dir);
}
