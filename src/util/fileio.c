/* SPDX-License-Identifier: ISC */
/* src/util/fileio.c — bounded reads and crash-safe, no-clobber writes
 * (unnamed O_TMPFILE temp files linked at commit where the file system
 * allows; else named ones, flock'ed while written, stale ones removed by
 * the next write), every one relative to a directory handle where the
 * caller has one (AT_FDCWD: a path), and files opened as regular files
 * only: no symbolic link followed in the last component, no FIFO or
 * device blocking the open. */
#include "util/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int util_write_all(int fd, const void *buf, size_t len) {
    const uint8_t *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) { if (errno == EINTR) continue; return -1; }
        p += w; len -= (size_t)w;
    }
    return 0;
}

int util_open_reg_at(int dfd, const char *name, int flags, mode_t mode) {
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    if (fd < 0) return -1;
    struct stat st;
    int fl;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (fl = fcntl(fd, F_GETFL)) < 0 ||
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = S_ISREG(st.st_mode) ? errno : EINVAL;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int util_open_dir_at(int dfd, const char *name, int create) {
    if (create && mkdirat(dfd, name, 0700) != 0 && errno != EEXIST) return -1;
    return openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

int util_read_fd(int fd, size_t max, uint8_t **data, size_t *len) {
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap + 1);
    if (!buf) return -1;
    for (;;) {
        if (n == cap) {
            if (cap > max) { errno = EFBIG; goto fail; }
            size_t ncap = cap * 2;
            uint8_t *nb = realloc(buf, ncap + 1);
            if (!nb) goto fail;
            buf = nb; cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) { if (errno == EINTR) continue; goto fail; }
        if (r == 0) break;
        n += (size_t)r;
        if (n > max) { errno = EFBIG; goto fail; }
    }
    buf[n] = 0;
    *data = buf; *len = n;
    return 0;
fail:;
    int e = errno;
    free(buf);
    errno = e;
    return -1;
}

int util_read_file(const char *path, size_t max, uint8_t **data, size_t *len) {
    int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = util_read_fd(fd, max, data, len), e = errno;
    if (fd) close(fd);
    errno = e;
    return rc;
}

int util_read_at(int dfd, const char *name, size_t max, uint8_t **data, size_t *len) {
    int fd = util_open_reg_at(dfd, name, O_RDONLY, 0);
    if (fd < 0) return -1;
    int rc = util_read_fd(fd, max, data, len), e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The directory part of path ("." for a bare name) into dir. */
static int dir_of(const char *path, char dir[PATH_MAX]) {
    const char *slash = strrchr(path, '/');
    if (!slash) { strcpy(dir, "."); return 0; }
    if (slash == path) { strcpy(dir, "/"); return 0; }
    if ((size_t)(slash - path) >= PATH_MAX) { errno = ENAMETOOLONG; return -1; }
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = 0;
    return 0;
}

int util_fsync_dir_at(int dfd, const char *name) {
    char dir[PATH_MAX];
    if (dir_of(name, dir) != 0) return -1;
    int fd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int util_fsync_dir(const char *path) { return util_fsync_dir_at(AT_FDCWD, path); }

int util_unlink_at(int dfd, const char *name) {
    return unlinkat(dfd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
}

/* Remove temp files of our naming ("BASE.tmp-XXXXXX" beside name) that no
 * live writer holds (each writer keeps its temp file flock'ed): what a
 * kill -9 left behind. */
static void clean_stale(int dfd, const char *name) {
    char dir[PATH_MAX];
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    size_t bl = strlen(base);
    if (dir_of(name, dir) != 0) return;
    int dd = openat(dfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dd < 0) return;
    DIR *d = fdopendir(dd);
    if (!d) { close(dd); return; }
    for (struct dirent *de; (de = readdir(d));) {
        const char *n = de->d_name;
        if (strlen(n) != bl + 11 || strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp-", 5) != 0) continue;
        int fd = util_open_reg_at(dd, n, O_RDONLY, 0);
        struct stat st;
        if (fd < 0) continue;
        if (fstat(fd, &st) == 0 && st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0)
            (void)unlinkat(dd, n, 0);
        close(fd);
    }
    closedir(d);
}

/* An unnamed temp file in name's directory, or -1 (no O_TMPFILE here, or
 * no /proc to link it through: the caller falls back to a named one). */
static int open_anon(int dfd, const char *name) {
    char dir[PATH_MAX], proc[64];
    struct stat st;
    if (dir_of(name, dir) != 0) return -1;
#ifdef RXLOCK_TESTING   /* the named fallback, as on a file system without O_TMPFILE */
    if (getenv("RXLOCK_TEST_NO_TMPFILE")) return -1;
#endif
    int fd = openat(dfd, dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (stat(proc, &st) != 0) { close(fd); return -1; }
    return fd;
}

/* a->tmp = a->path + ".tmp-XXXXXX" with six random characters. */
static int tmp_name(util_atomic *a) {
    static const char cs[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = strlen(a->path);
    uint8_t r[6];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
    memcpy(a->tmp, a->path, n);
    memcpy(a->tmp + n, ".tmp-", 5);
    for (size_t i = 0; i < 6; i++) a->tmp[n + 5 + i] = cs[r[i] % (sizeof cs - 1)];
    a->tmp[n + 11] = 0;
    return 0;
}

int util_atomic_openat(util_atomic *a, int dfd, const char *name, int force, mode_t mode) {
    a->fd = -1;
    a->dfd = dfd;
    a->force = force;
    a->anon = 0;
    a->tmp[0] = 0;
    if (snprintf(a->path, sizeof a->path, "%s.tmp-XXXXXX", name) >= (int)sizeof a->path) {
        errno = ENAMETOOLONG; return -1;
    }
    snprintf(a->path, sizeof a->path, "%s", name);
    struct stat st;
    if (!force && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) { errno = EEXIST; return -1; }
    clean_stale(dfd, name);
    if ((a->fd = open_anon(dfd, name)) >= 0) {
        a->anon = 1;
    } else {
        for (int tries = 0; tries < 100 && a->fd < 0; tries++) {
            if (tmp_name(a) != 0) { a->tmp[0] = 0; return -1; }
            a->fd = openat(dfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (a->fd < 0 && errno != EEXIST) { a->tmp[0] = 0; return -1; }
        }
        if (a->fd < 0) { a->tmp[0] = 0; return -1; }
    }
    /* held until closed: marks the temp file as in use (clean_stale) */
    if (flock(a->fd, LOCK_EX | LOCK_NB) != 0) { util_atomic_abort(a); return -1; }
    /* the caller's mode less the umask, as open(2) would give */
    mode_t um = umask(077);
    umask(um);
    if (fchmod(a->fd, mode & ~um) != 0) { util_atomic_abort(a); return -1; }
    return 0;
}

int util_atomic_open(util_atomic *a, const char *path, int force, mode_t mode) {
    return util_atomic_openat(a, AT_FDCWD, path, force, mode);
}

/* Give the unnamed temp file a name of our naming ("PATH.tmp-XXXXXX", in
 * a->tmp): for --force, which renames it over the target.  It stays
 * flock'ed (same inode) until closed.  0 or -1. */
static int link_anon_tmp(util_atomic *a, const char *proc) {
    for (int tries = 0; tries < 100; tries++) {
        if (tmp_name(a) != 0) break;
        if (linkat(AT_FDCWD, proc, a->dfd, a->tmp, AT_SYMLINK_FOLLOW) == 0) return 0;
        if (errno != EEXIST) break;
    }
    a->tmp[0] = 0;
    return -1;
}

static int commit_anon(util_atomic *a) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", a->fd);
    if (fsync(a->fd) != 0) goto fail;
    if (!a->force) {
        /* linkat() refuses to replace an existing file: atomic no-clobber */
        if (linkat(AT_FDCWD, proc, a->dfd, a->path, AT_SYMLINK_FOLLOW) != 0) goto fail;
    } else {
        if (link_anon_tmp(a, proc) != 0 || renameat(a->dfd, a->tmp, a->dfd, a->path) != 0) goto fail;
        a->tmp[0] = 0;
    }
    int fd = a->fd;
    a->fd = -1;
    if (close(fd) != 0) return -1;   /* the file is in place; report the error */
    return util_fsync_dir_at(a->dfd, a->path);
fail:
    util_atomic_abort(a);   /* keeps errno */
    return -1;
}

int util_atomic_commit(util_atomic *a) {
    if (a->fd < 0) { errno = EBADF; return -1; }
    if (a->anon) return commit_anon(a);
    if (fsync(a->fd) != 0 || close(a->fd) != 0) { a->fd = -1; goto fail; }
    a->fd = -1;
    if (a->force) {
        if (renameat(a->dfd, a->tmp, a->dfd, a->path) != 0) goto fail;
    } else {
        /* link() refuses to replace an existing file: atomic no-clobber. */
        if (linkat(a->dfd, a->tmp, a->dfd, a->path, 0) != 0) goto fail;
        (void)unlinkat(a->dfd, a->tmp, 0);
    }
    a->tmp[0] = 0;
    return util_fsync_dir_at(a->dfd, a->path);
fail:
    util_atomic_abort(a);   /* keeps errno */
    return -1;
}

void util_atomic_abort(util_atomic *a) {
    int e = errno;
    if (a->fd >= 0) { close(a->fd); a->fd = -1; }
    if (a->tmp[0]) { (void)unlinkat(a->dfd, a->tmp, 0); a->tmp[0] = 0; }
    errno = e;
}

int util_write_at_atomic(int dfd, const char *name, const void *data, size_t len, int force, mode_t mode) {
    util_atomic a;
    if (util_atomic_openat(&a, dfd, name, force, mode) != 0) return -1;
    if (util_write_all(a.fd, data, len) != 0) { util_atomic_abort(&a); return -1; }
    return util_atomic_commit(&a);
}

int util_write_file_atomic(const char *path, const void *data, size_t len, int force, mode_t mode) {
    return util_write_at_atomic(AT_FDCWD, path, data, len, force, mode);
}
