/* SPDX-License-Identifier: ISC */
/* src/cli/lockfile_state.c — `rxlock lock FILE`'s own files in OUT.state/
 * (issue 20; docs/FORMAT.md §Generation state, docs/SECURITY.md): the
 * generation itself resumes through the library (tl_gen_opts.state_dir);
 * this file records which input the lock was started for (size and
 * modification time, no content hash), refuses a re-run whose input
 * changed, and commits the container that was written inside the state
 * first: linked to OUT, then the state removed. */
#include "cli/lockfile_state.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_lockfile_state_init(cli_lockfile_state *s, const char *out) {
    if (snprintf(s->dir, sizeof s->dir, "%s.state", out) >= (int)sizeof s->dir ||
        snprintf(s->ctr, sizeof s->ctr, "%s/container.rxlock", s->dir) >= (int)sizeof s->ctr ||
        snprintf(s->in, sizeof s->in, "%s/input.json", s->dir) >= (int)sizeof s->in)
        return cli_error("%s: path too long", out);
    return CLI_OK;
}

int cli_lockfile_finished(const cli_lockfile_state *s, const char *out) {
    struct stat a, b;
    if (lstat(s->ctr, &a) != 0 || !S_ISREG(a.st_mode)) return 0;
    return lstat(out, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino ? 2 : 1;
}

/* UTC text of a modification time, to the nanosecond. */
static void time_text(char *buf, size_t cap, long long sec, long nsec) {
    struct tm tm;
    time_t t = (time_t)sec;
    char d[32] = "?";
    if (gmtime_r(&t, &tm)) strftime(d, sizeof d, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%09ld UTC", d, nsec);
}

static int record(const cli_lockfile_state *s, const struct stat *st) {
    struct stat ds;
    if (mkdir(s->dir, 0700) != 0 && errno != EEXIST) return cli_error("%s: %s", s->dir, strerror(errno));
    if (lstat(s->dir, &ds) != 0 || !S_ISDIR(ds.st_mode) || ds.st_uid != geteuid())
        return cli_error("%s: not a directory of this user", s->dir);
    char *txt = NULL;
    json_t *o = json_pack("{s:i, s:I, s:I, s:I}", "rxlock_lock_input", 1, "size", (json_int_t)st->st_size,
                          "mtime_sec", (json_int_t)st->st_mtim.tv_sec, "mtime_nsec", (json_int_t)st->st_mtim.tv_nsec);
    if (o) txt = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!txt) return cli_error("out of memory");
    int rc = util_write_file_atomic(s->in, txt, strlen(txt), 1, 0600) == 0 ? CLI_OK : cli_output_error(s->in);
    free(txt);
    return rc;
}

int cli_lockfile_input(const cli_lockfile_state *s, int fd, const char *name) {
    struct stat st;
    if (fstat(fd, &st) != 0) return cli_error("%s: %s", name, strerror(errno));
    uint8_t *data = NULL;
    size_t len = 0;
    if (util_read_file(s->in, 4096, &data, &len) != 0) {
        char plan[PATH_MAX + 16];
        if (errno != ENOENT) return cli_error("%s: %s", s->in, strerror(errno));
        snprintf(plan, sizeof plan, "%s/plan.json", s->dir);
        if (access(plan, F_OK) == 0)
            return cli_error("%s: holds the generation state of `rxlock lock -o` (a puzzle), not of a `lock FILE`: "
                             "remove it or give another -o", s->dir);
        return record(s, &st);
    }
    json_t *o = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, NULL);
    free(data);
    json_t *v = json_object_get(o, "rxlock_lock_input"), *z = json_object_get(o, "size"),
           *ms = json_object_get(o, "mtime_sec"), *mn = json_object_get(o, "mtime_nsec");
    if (!json_is_object(o) || json_object_size(o) != 4 || !json_is_integer(v) || json_integer_value(v) != 1 ||
        !json_is_integer(z) || !json_is_integer(ms) || !json_is_integer(mn)) {
        json_decref(o);
        return cli_error("%s: not an rxlock input record (damaged?): remove %s to start over", s->in, s->dir);
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
    return cli_error("%s: changed since this lock started (%s): its state %s/ is for the file as it was. "
                     "Restore the file and run the same command to resume, or remove %s/ to start over "
                     "(its work is lost)", name, what, s->dir, s->dir);
}

int cli_lockfile_commit(const cli_lockfile_state *s, const char *out, int force) {
    if (cli_lockfile_finished(s, out) != 2) {
        if (force ? rename(s->ctr, out) != 0 : link(s->ctr, out) != 0) return cli_output_error(out);
        if (util_fsync_dir(out) != 0) return cli_output_error(out);
        util_kill_point("lockfile-linked");   /* test build */
    }
    if (tl_generate_state_remove(s->dir) != TL_OK)
        fprintf(stderr, "rxlock: %s: could not remove the generation state: remove it by hand (it holds the "
                "epoch secret)\n", s->dir);
    return CLI_OK;
}
