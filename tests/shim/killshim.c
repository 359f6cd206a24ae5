/* SPDX-License-Identifier: ISC */
/* tests/shim/killshim.c — an LD_PRELOAD shim for the enumerated crash test
 * (tests/cli/test_crash_points.sh): it counts every mutating file-system
 * call the process makes (open/openat/creat with O_CREAT or O_TMPFILE,
 * write/pwrite to a regular file other than fds 0-2, fsync, fdatasync,
 * rename/renameat/renameat2, link/linkat, unlink/unlinkat, rmdir,
 * mkdir/mkdirat, truncate/ftruncate), after the call has returned:
 *   RXLOCK_SHIM_LOG=FILE   append "N NAME" for each counted call
 *   RXLOCK_SHIM_KILL=N     SIGKILL the process right after call N (1-based)
 * Only the process that loaded the shim counts (forked workers do not).
 * Test-only: built as build/tests/killshim.so, never linked into rxlock. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t main_pid;
static unsigned long count, kill_at;
static int log_fd = -1;

__attribute__((constructor)) static void shim_init(void) {
    main_pid = getpid();
    const char *k = getenv("RXLOCK_SHIM_KILL"), *l = getenv("RXLOCK_SHIM_LOG");
    kill_at = k ? strtoul(k, NULL, 10) : 0;
    if (l) log_fd = (int)syscall(SYS_openat, AT_FDCWD, l, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
}

static void point(const char *name, long rc) {
    if (getpid() != main_pid || rc < 0) return;
    count++;
    if (log_fd >= 0) {
        char b[96];
        int n = snprintf(b, sizeof b, "%lu %s\n", count, name);
        if (n > 0) (void)syscall(SYS_write, log_fd, b, (size_t)n);
    }
    if (kill_at && count == kill_at) (void)raise(SIGKILL);
}

static int is_reg(int fd) {
    struct stat st;
    return fd > 2 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

#define REAL(ret, name, ...) \
    static ret (*real)(__VA_ARGS__); \
    if (!real) real = (ret (*)(__VA_ARGS__))dlsym(RTLD_NEXT, name)

static int creates(int flags) { return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE; }

int open(const char *p, int flags, ...) {
    REAL(int, "open", const char *, int, ...);
    mode_t m = 0;
    if (creates(flags)) { va_list ap; va_start(ap, flags); m = (mode_t)va_arg(ap, int); va_end(ap); }
    int rc = real(p, flags, m);
    if (creates(flags)) point("open", rc);
    return rc;
}
int open64(const char *p, int flags, ...) {
    REAL(int, "open64", const char *, int, ...);
    mode_t m = 0;
    if (creates(flags)) { va_list ap; va_start(ap, flags); m = (mode_t)va_arg(ap, int); va_end(ap); }
    int rc = real(p, flags, m);
    if (creates(flags)) point("open", rc);
    return rc;
}
int openat(int d, const char *p, int flags, ...) {
    REAL(int, "openat", int, const char *, int, ...);
    mode_t m = 0;
    if (creates(flags)) { va_list ap; va_start(ap, flags); m = (mode_t)va_arg(ap, int); va_end(ap); }
    int rc = real(d, p, flags, m);
    if (creates(flags)) point("openat", rc);
    return rc;
}
int openat64(int d, const char *p, int flags, ...) {
    REAL(int, "openat64", int, const char *, int, ...);
    mode_t m = 0;
    if (creates(flags)) { va_list ap; va_start(ap, flags); m = (mode_t)va_arg(ap, int); va_end(ap); }
    int rc = real(d, p, flags, m);
    if (creates(flags)) point("openat", rc);
    return rc;
}
int creat(const char *p, mode_t m) { REAL(int, "creat", const char *, mode_t); int rc = real(p, m); point("creat", rc); return rc; }
ssize_t write(int fd, const void *b, size_t n) {
    REAL(ssize_t, "write", int, const void *, size_t);
    int reg = is_reg(fd);
    ssize_t rc = real(fd, b, n);
    if (reg) point("write", rc);
    return rc;
}
ssize_t pwrite(int fd, const void *b, size_t n, off_t o) {
    REAL(ssize_t, "pwrite", int, const void *, size_t, off_t);
    int reg = is_reg(fd);
    ssize_t rc = real(fd, b, n, o);
    if (reg) point("pwrite", rc);
    return rc;
}
ssize_t pwrite64(int fd, const void *b, size_t n, off_t o) {
    REAL(ssize_t, "pwrite64", int, const void *, size_t, off_t);
    int reg = is_reg(fd);
    ssize_t rc = real(fd, b, n, o);
    if (reg) point("pwrite", rc);
    return rc;
}
int fsync(int fd) { REAL(int, "fsync", int); int rc = real(fd); point("fsync", rc); return rc; }
int fdatasync(int fd) { REAL(int, "fdatasync", int); int rc = real(fd); point("fdatasync", rc); return rc; }
int rename(const char *a, const char *b) { REAL(int, "rename", const char *, const char *); int rc = real(a, b); point("rename", rc); return rc; }
int renameat(int da, const char *a, int db, const char *b) {
    REAL(int, "renameat", int, const char *, int, const char *);
    int rc = real(da, a, db, b); point("renameat", rc); return rc;
}
int renameat2(int da, const char *a, int db, const char *b, unsigned f) {
    REAL(int, "renameat2", int, const char *, int, const char *, unsigned);
    int rc = real(da, a, db, b, f); point("renameat2", rc); return rc;
}
int link(const char *a, const char *b) { REAL(int, "link", const char *, const char *); int rc = real(a, b); point("link", rc); return rc; }
int linkat(int da, const char *a, int db, const char *b, int f) {
    REAL(int, "linkat", int, const char *, int, const char *, int);
    int rc = real(da, a, db, b, f); point("linkat", rc); return rc;
}
int unlink(const char *p) { REAL(int, "unlink", const char *); int rc = real(p); point("unlink", rc); return rc; }
int unlinkat(int d, const char *p, int f) { REAL(int, "unlinkat", int, const char *, int); int rc = real(d, p, f); point("unlinkat", rc); return rc; }
int rmdir(const char *p) { REAL(int, "rmdir", const char *); int rc = real(p); point("rmdir", rc); return rc; }
int mkdir(const char *p, mode_t m) { REAL(int, "mkdir", const char *, mode_t); int rc = real(p, m); point("mkdir", rc); return rc; }
int mkdirat(int d, const char *p, mode_t m) { REAL(int, "mkdirat", int, const char *, mode_t); int rc = real(d, p, m); point("mkdirat", rc); return rc; }
int truncate(const char *p, off_t l) { REAL(int, "truncate", const char *, off_t); int rc = real(p, l); point("truncate", rc); return rc; }
int ftruncate(int fd, off_t l) { REAL(int, "ftruncate", int, off_t); int rc = real(fd, l); point("ftruncate", rc); return rc; }
