/* SPDX-License-Identifier: ISC */
/* src/util/util.h — small shared helpers: hex, bounded file reads, atomic
 * no-clobber file writes (temp file + fsync + link/rename + dir fsync),
 * the number of usable CPUs, the monotonic clock. */
#ifndef RXLOCK_UTIL_H
#define RXLOCK_UTIL_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <limits.h>

/* Hex decode (upper or lower case).  0 on success, -1 on bad hex or if the
 * result would exceed cap.  *out_len gets the byte count. */
int  util_hex_decode(const char *hex, uint8_t *out, size_t cap, size_t *out_len);
/* out must have room for 2*len+1 chars; always NUL-terminated. */
void util_hex_encode(char *out, const uint8_t *in, size_t len);

/* Read a whole file ("-" = stdin) of at most max bytes into a malloc'd
 * buffer (NUL-terminated, not counted in *len).  0 ok; -1 error (errno set;
 * EFBIG when larger than max). */
int  util_read_file(const char *path, size_t max, uint8_t **data, size_t *len);
/* The same from an open descriptor (read to its end). */
int  util_read_fd(int fd, size_t max, uint8_t **data, size_t *len);

/* Files through a directory handle (dfd; AT_FDCWD: name is a path): open
 * name as a regular file only — O_NOFOLLOW (a symbolic link: ELOOP),
 * O_NONBLOCK while opening (a FIFO or device never blocks; refused with
 * EINVAL, as is anything but S_ISREG), O_CLOEXEC.  The descriptor, or -1
 * (errno). */
int  util_open_reg_at(int dfd, const char *name, int flags, mode_t mode);
/* util_read_file through util_open_reg_at. */
int  util_read_at(int dfd, const char *name, size_t max, uint8_t **data, size_t *len);
/* The directory name under dfd (created 0700 first when create), opened
 * O_DIRECTORY | O_NOFOLLOW.  The descriptor, or -1. */
int  util_open_dir_at(int dfd, const char *name, int create);
/* unlinkat(dfd, name): 0 also when it is already gone, else -1. */
int  util_unlink_at(int dfd, const char *name);
/* fsync the directory holding name (relative to dfd).  0 or -1. */
int  util_fsync_dir_at(int dfd, const char *name);

/* Atomic output: write to a temp file beside the target, then commit.
 * Without force, commit fails with EEXIST if the target exists (checked at
 * open time and again atomically at commit).  abort removes the temp file.
 * The temp file is unnamed (O_TMPFILE, linked at commit through
 * /proc/self/fd) where the file system and /proc allow, so a kill -9 at
 * any moment leaves nothing; else it is "PATH.tmp-XXXXXX", flock'ed while
 * written, and the next write beside PATH removes what a kill left. */
typedef struct {
    int  fd;
    int  dfd;         /* the directory handle path and tmp are relative to */
    int  force;
    int  anon;        /* 1: O_TMPFILE, no name until commit */
    char tmp[PATH_MAX];
    char path[PATH_MAX];
} util_atomic;
int  util_atomic_open(util_atomic *a, const char *path, int force, mode_t mode);
/* The same for name relative to the directory handle dfd (kept open by the
 * caller until commit or abort). */
int  util_atomic_openat(util_atomic *a, int dfd, const char *name, int force, mode_t mode);
int  util_atomic_commit(util_atomic *a);   /* fsync, link/rename, fsync dir */
void util_atomic_abort(util_atomic *a);
/* Whole-buffer convenience wrapper around the three calls above. */
int  util_write_file_atomic(const char *path, const void *data, size_t len, int force, mode_t mode);
int  util_write_at_atomic(int dfd, const char *name, const void *data, size_t len, int force, mode_t mode);
/* write() all of buf, retrying on EINTR / short writes.  0 or -1. */
int  util_write_all(int fd, const void *buf, size_t len);
/* fsync the directory holding path.  0 or -1. */
int  util_fsync_dir(const char *path);

/* No core dumps of this process or its children: RLIMIT_CORE 0 and
 * PR_SET_DUMPABLE 0 (also keeps other processes of the user from ptrace
 * and /proc/PID/mem).  0, or -1 when either call failed. */
int  util_no_core_dumps(void);
/* Test build: SIGKILL here when RXLOCK_TEST_KILL_AT=name (and the insecure
 * test mode); the shipping build does nothing (killpoint.c). */
void util_kill_point(const char *name);
/* Test build: with RXLOCK_TEST_PAUSE_AT=name:FILE (and the insecure mode),
 * create FILE.reached and wait (at most 60 s) until FILE exists. */
void util_pause_point(const char *name);
/* Test build: 1 with errno = ENOSPC when RXLOCK_TEST_STATE_ENOSPC=name (and
 * the insecure test mode): the caller's write of the generation state's
 * file `name` then fails as on a full disk; the shipping build returns 0
 * (killpoint.c). */
int  util_test_enospc(const char *name);

/* CPUs this process may run on: its affinity mask's size (what Slurm,
 * cpusets and taskset allow), else the online CPUs; at least 1. */
unsigned util_cpus_usable(void);

/* The monotonic clock (CLOCK_MONOTONIC): seconds, nanoseconds. */
double   util_now(void);
uint64_t util_now_ns(void);
/* Share (0..1) of [p, p+len) the kernel backs with transparent huge pages
 * (AnonHugePages of the overlapping /proc/self/smaps entries, clamped);
 * -1 when unknown (no /proc, or no such mapping) (hugepages.c). */
double util_huge_share(const void *p, size_t len);
/* The selected word of /sys/kernel/mm/transparent_hugepage/enabled
 * ("always", "madvise", "never"; a static buffer), NULL when unknown. */
const char *util_thp_mode(void);
/* Format seconds as "1h02m03s" / "4m05s" / "7.2s" into buf (format.c). */
void util_format_duration(char *buf, size_t cap, double seconds);
/* Format a rate as "1.23 M" / "456.7 k" / "12.3" (no unit) into buf. */
void util_format_rate(char *buf, size_t cap, double rate);
/* The median of v[0..n) (NAN when n is 0), v sorted in place: v[0] and
 * v[n - 1] are then its smallest and largest (median.c). */
double util_median(double *v, size_t n);
#endif
