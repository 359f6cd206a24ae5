/* SPDX-License-Identifier: ISC */
/* src/cli/lock/state.c — the generation state directory of `rxlock lock -o`
 * and `rxlock lock FILE` (state.h; docs/FORMAT.md §Generation state):
 * the command's own files in it, read through the directory's handle as
 * regular files only, the commit (link out, then remove) written once for
 * both commands. */
#include "cli/lock/state.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_lock_state_init(cli_lock_state *s, const char *out, const char *fin, const char *keep) {
    memset(s, 0, sizeof *s);
    if (snprintf(s->dir, sizeof s->dir, "%s.state", out) >= (int)sizeof s->dir || strlen(s->dir) + 32 >= PATH_MAX)
        return cli_error("%s: path too long", out);
    s->out = out;
    s->keep = keep;
    s->fin = fin;
    int file = !strcmp(fin, "container.rxlock");
    s->other = file ? "puzzle.json" : "input.json";
    /* the removal order: the kept identity, the input record, the finished output last */
    size_t n = 0;
    if (!file) s->files[n++] = "epoch.key";
    else s->files[n++] = "input.json";
    s->files[n++] = fin;
    s->files[n] = NULL;
    return CLI_OK;
}

static int open_dir(const cli_lock_state *s) {
    return util_open_dir_at(AT_FDCWD, s->dir, 0);
}

static const char *why(int e) {
    return e == ELOOP ? "a symbolic link (refused)" : e == EINVAL ? "not a regular file (refused)" : strerror(e);
}

int cli_lock_state_kind(const cli_lock_state *s) {
    int dfd = open_dir(s);
    if (dfd < 0) {
        if (errno == ENOENT) return CLI_OK;
        return cli_error("%s: %s: remove it or give another -o", s->dir,
                         errno == ELOOP || errno == ENOTDIR ? "not a directory (a symbolic link or file is refused)"
                                                            : strerror(errno));
    }
    struct stat sb;
    int theirs = fstatat(dfd, s->other, &sb, AT_SYMLINK_NOFOLLOW) == 0 ||
                 (!strcmp(s->fin, "container.rxlock") && fstatat(dfd, "epoch.key", &sb, AT_SYMLINK_NOFOLLOW) == 0);
    int plan_no_input = !strcmp(s->fin, "container.rxlock") && !theirs &&
                        fstatat(dfd, "plan.json", &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
                        fstatat(dfd, "input.json", &sb, AT_SYMLINK_NOFOLLOW) != 0;
    close(dfd);
    if (!(theirs || plan_no_input)) return CLI_OK;
    if (!strcmp(s->fin, "container.rxlock"))
        return cli_error("%s: holds the generation state of `rxlock lock -o` (a puzzle), not of a `lock FILE`: "
                         "remove it or give another -o", s->dir);
    return cli_error("%s: holds the generation state of a `rxlock lock FILE`, not of a puzzle: remove it "
                     "or give another -o", s->dir);
}

void cli_lock_state_tidy(const cli_lock_state *s) {
    struct stat sb;
    int dfd = open_dir(s);
    if (dfd < 0) return;
    static const char *const live[] = { "plan.json", "planner.key", "plan.secrets" };
    int left = fstatat(dfd, s->fin, &sb, AT_SYMLINK_NOFOLLOW) == 0;
    for (size_t k = 0; k < sizeof live / sizeof live[0]; k++)
        left |= fstatat(dfd, live[k], &sb, AT_SYMLINK_NOFOLLOW) == 0;
    close(dfd);
    if (!left && lstat(s->out, &sb) == 0) (void)tl_generate_state_remove(s->dir, s->files);
}

int cli_lock_state_fin_open(const cli_lock_state *s) {
    int dfd = open_dir(s);
    if (dfd < 0) return -1;
    int fd = util_open_reg_at(dfd, s->fin, O_RDONLY, 0), e = errno;
    close(dfd);
    if (fd >= 0) return fd;
    if (e == ENOENT) return -1;
    cli_error("%s/%s: %s: remove %s/ to start over", s->dir, s->fin, why(e), s->dir);
    return -2;
}

int cli_lock_state_can_resume(const cli_lock_state *s) {
    struct stat sb;
    int dfd = open_dir(s);
    if (dfd < 0) return 0;
    int r = fstatat(dfd, "plan.json", &sb, AT_SYMLINK_NOFOLLOW) == 0 && fstatat(dfd, "planner.key", &sb, AT_SYMLINK_NOFOLLOW) == 0;
    close(dfd);
    return r;
}

int cli_lock_state_fin_drop(const cli_lock_state *s) {
    int dfd = open_dir(s);
    if (dfd < 0) return cli_error("%s: %s", s->dir, strerror(errno));
    int rc = util_unlink_at(dfd, s->fin) == 0 && util_fsync_dir_at(dfd, s->fin) == 0 ? CLI_OK
             : cli_error("%s/%s: %s", s->dir, s->fin, strerror(errno));
    close(dfd);
    return rc;
}

/* 1 when name in dfd and path are the same file. */
static int same_inode(int dfd, const char *name, const char *path) {
    struct stat a, b;
    return fstatat(dfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(a.st_mode) && lstat(path, &b) == 0 &&
           a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int cli_lock_state_linked(const cli_lock_state *s, const char *name, const char *path) {
    int dfd = open_dir(s);
    if (dfd < 0) return 0;
    int r = same_inode(dfd, name, path);
    close(dfd);
    return r;
}

int cli_lock_state_out_is_fin(const cli_lock_state *s) { return cli_lock_state_linked(s, s->fin, s->out); }

int cli_lock_state_write_error(const cli_lock_state *s, const char *name, int e) {
    if (e == ENOSPC || e == EDQUOT)   /* the work so far is sealed in the state */
        return cli_error("%s/%s: %s: the generation state is kept in %s/: run the same command again once there is "
                         "space to finish", s->dir, name, strerror(e), s->dir);
    return cli_error("%s/%s: %s", s->dir, name, why(e));
}

int cli_lock_state_write(const cli_lock_state *s, const char *name, const void *data, size_t len, int mode) {
    int dfd = open_dir(s);
    if (dfd < 0) return cli_error("%s: %s", s->dir, why(errno));
    int rc = !util_test_enospc(name) && util_write_at_atomic(dfd, name, data, len, 1, (mode_t)mode) == 0 ? CLI_OK
             : cli_lock_state_write_error(s, name, errno);
    close(dfd);
    return rc;
}

/* Give dir/name the name path too: a hard link (no clobber), or with
 * force a hard link under a temp name renamed over path.  0 or -1. */
static int link_out(int dfd, const char *name, const char *path, int force) {
    if (linkat(dfd, name, AT_FDCWD, path, 0) == 0) return util_fsync_dir(path);
    if (errno != EEXIST || !force) return -1;
    char tmp[PATH_MAX];
    static const char cs[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    for (int tries = 0; tries < 100; tries++) {
        uint8_t r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
        int n = snprintf(tmp, sizeof tmp, "%s.tmp-", path);
        if (n < 0 || (size_t)n + 7 > sizeof tmp) { errno = ENAMETOOLONG; return -1; }
        for (int i = 0; i < 6; i++) tmp[n + i] = cs[r[i] % (sizeof cs - 1)];
        tmp[n + 6] = 0;
        if (linkat(dfd, name, AT_FDCWD, tmp, 0) == 0) {
            if (rename(tmp, path) != 0) { int e = errno; (void)unlink(tmp); errno = e; return -1; }
            return util_fsync_dir(path);
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

int cli_lock_state_commit(const cli_lock_state *s, int force) {
    struct stat sb;
    int dfd = open_dir(s);
    if (dfd < 0) return cli_error("%s: %s", s->dir, why(errno));
    int rc = CLI_OK;
    if (s->keep && !same_inode(dfd, "epoch.key", s->keep)) {
        /* gone from the state: the removal had begun (secrets first), so
         * it was linked before; else link it now */
        int begun = fstatat(dfd, "epoch.key", &sb, AT_SYMLINK_NOFOLLOW) != 0 &&
                    fstatat(dfd, "planner.key", &sb, AT_SYMLINK_NOFOLLOW) != 0 && lstat(s->keep, &sb) == 0;
        if (!begun && link_out(dfd, "epoch.key", s->keep, force) != 0)
            rc = errno == EEXIST ? cli_output_error(s->keep) : cli_error("%s: %s (the epoch identity is kept in %s/epoch.key)",
                                                                       s->keep, strerror(errno), s->dir);
        if (rc == CLI_OK) util_kill_point("lock-keep-linked");   /* test build */
    }
    if (rc == CLI_OK && !same_inode(dfd, s->fin, s->out)) {
        if (link_out(dfd, s->fin, s->out, force) != 0) rc = cli_output_error(s->out);
        else util_kill_point("lock-linked");   /* test build */
    }
    close(dfd);
    if (rc == CLI_OK && tl_generate_state_remove(s->dir, s->files) != TL_OK)
        fprintf(stderr, "rxlock: %s: could not remove the generation state: run the same command again, or remove "
                "it by hand (until then it holds the epoch secret)\n", s->dir);
    return rc;
}
