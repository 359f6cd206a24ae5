/* SPDX-License-Identifier: ISC */
/* src/util/fileio.c — bounded reads and crash-safe, no-clobber writes
 * (unnamed O_TMPFILE temp files linked at commit where the file system
 * allows; else named ones, flock'ed while written, stale ones removed by
 * the next write). */
#include "util/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
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

int util_read_file(const char *path, size_t max, uint8_t **data, size_t *len) {
    int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap + 1);
    if (!buf) goto fail;
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
    if (fd) close(fd);
    buf[n] = 0;
    *data = buf; *len = n;
    return 0;
fail:;
    int e = errno;
    if (fd > 0) close(fd);
    free(buf);
    errno = e;
    return -1;
}

int util_fsync_dir(const char *path) {
    char tmp[PATH_MAX];
    if (strlen(path) >= sizeof tmp) { errno = ENAMETOOLONG; return -1; }
    strcpy(tmp, path);
    int fd = open(dirname(tmp), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
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

/* Remove temp files of our naming ("BASE.tmp-XXXXXX" beside path) that no
 * live writer holds (each writer keeps its temp file flock'ed): what a
 * kill -9 left behind. */
static void clean_stale(const char *path) {
    char dir[PATH_MAX], f[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t bl = strlen(base);
    if (dir_of(path, dir) != 0) return;
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *de; (de = readdir(d));) {
        const char *n = de->d_name;
        if (strlen(n) != bl + 11 || strncmp(n, base, bl) != 0 || strncmp(n + bl, ".tmp-", 5) != 0) continue;
        if (snprintf(f, sizeof f, "%s/%s", dir, n) >= (int)sizeof f) continue;
        int fd = open(f, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (fd < 0) continue;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
            flock(fd, LOCK_EX | LOCK_NB) == 0)
            (void)unlink(f);
        close(fd);
    }
    closedir(d);
}

/* An unnamed temp file in path's directory, or -1 (no O_TMPFILE here, or
 * no /proc to link it through: the caller falls back to a named one). */
static int open_anon(const char *path) {
    char dir[PATH_MAX], proc[64];
    struct stat st;
    if (dir_of(path, dir) != 0) return -1;
#ifdef RXLOCK_TESTING   /* the named fallback, as on a file system without O_TMPFILE */
    if (getenv("RXLOCK_TEST_NO_TMPFILE")) return -1;
#endif
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    if (stat(proc, &st) != 0) { close(fd); return -1; }
    return fd;
}

int util_atomic_open(util_atomic *a, const char *path, int force, mode_t mode) {
    a->fd = -1;
    a->force = force;
    a->anon = 0;
    if (snprintf(a->path, sizeof a->path, "%s", path) >= (int)sizeof a->path ||
        snprintf(a->tmp, sizeof a->tmp, "%s.tmp-XXXXXX", path) >= (int)sizeof a->tmp) {
        errno = ENAMETOOLONG; return -1;
    }
    struct stat st;
    if (!force && lstat(path, &st) == 0) { errno = EEXIST; return -1; }
    clean_stale(path);
    if ((a->fd = open_anon(path)) >= 0) {
        a->anon = 1;
        a->tmp[0] = 0;      /* nothing to unlink */
    } else {
        a->fd = mkostemp(a->tmp, O_CLOEXEC);
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

/* Give the unnamed temp file a name of our naming ("PATH.tmp-XXXXXX", in
 * a->tmp): for --force, which renames it over the target.  It stays
 * flock'ed (same inode) until closed.  0 or -1. */
static int link_anon_tmp(util_atomic *a, const char *proc) {
    static const char cs[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    size_t n = strlen(a->path);
    for (int tries = 0; tries < 100; tries++) {
        uint8_t r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) return -1;
        memcpy(a->tmp, a->path, n);
        memcpy(a->tmp + n, ".tmp-", 5);
        for (size_t i = 0; i < 6; i++) a->tmp[n + 5 + i] = cs[r[i] % (sizeof cs - 1)];
        a->tmp[n + 11] = 0;
        if (linkat(AT_FDCWD, proc, AT_FDCWD, a->tmp, AT_SYMLINK_FOLLOW) == 0) return 0;
        if (errno != EEXIST) { a->tmp[0] = 0; return -1; }
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
        if (linkat(AT_FDCWD, proc, AT_FDCWD, a->path, AT_SYMLINK_FOLLOW) != 0) goto fail;
    } else {
        if (link_anon_tmp(a, proc) != 0 || rename(a->tmp, a->path) != 0) goto fail;
        a->tmp[0] = 0;
    }
    int fd = a->fd;
    a->fd = -1;
    if (close(fd) != 0) return -1;   /* the file is in place; report the error */
    return util_fsync_dir(a->path);
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
        if (rename(a->tmp, a->path) != 0) goto fail;
    } else {
        /* link() refuses to replace an existing file: atomic no-clobber. */
        if (link(a->tmp, a->path) != 0) goto fail;
        (void)unlink(a->tmp);
    }
    a->tmp[0] = 0;
    return util_fsync_dir(a->path);
fail:
    util_atomic_abort(a);   /* keeps errno */
    return -1;
}

void util_atomic_abort(util_atomic *a) {
    int e = errno;
    if (a->fd >= 0) { close(a->fd); a->fd = -1; }
    if (a->tmp[0]) { (void)unlink(a->tmp); a->tmp[0] = 0; }
    errno = e;
}

int util_write_file_atomic(const char *path, const void *data, size_t len, int force, mode_t mode) {
    util_atomic a;
    if (util_atomic_open(&a, path, force, mode) != 0) return -1;
    if (util_write_all(a.fd, data, len) != 0) { util_atomic_abort(&a); return -1; }
    return util_atomic_commit(&a);
}
