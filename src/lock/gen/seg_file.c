/* SPDX-License-Identifier: ISC */
/* src/lock/gen/seg_file.c — append-only files of sealed segment records
 * (docs/FORMAT.md §Generation state, §Cluster plan): one record appended
 * and fdatasync'd per call; read back in file order, a record that does
 * not open (or that the caller rejects) ending the file.  Every file is
 * opened relative to a directory handle as a regular file only, and a torn
 * tail is cut through that descriptor: a symbolic link or FIFO planted in
 * its place makes the call fail, never truncates or blocks on anything
 * else.  Used by the generation state of `lock` (gen_state.c) and by a
 * verified plan's group and verification tasks and assemble (group.c,
 * assemble.c). */
#include "gen_internal.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int tl_seg_file_append(int dfd, const char *name, const uint8_t D[32], uint32_t g, int kind, uint64_t i,
                       const uint8_t d[32], long pid, const char host[TL_HOST_MAX], const uint8_t rkey[32]) {
    uint8_t rec[TL_SEG_SIZE];
    struct stat sb;
    if (util_test_enospc(name)) return TL_EIO;   /* test build: a full disk */
    int created = fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0;
    int fd = util_open_reg_at(dfd, name, O_WRONLY | O_APPEND | O_CREAT, 0600);
    if (fd < 0) return TL_EIO;
    tl_seg_seal(rec, D, g, kind, i, d, pid, host, rkey);
    int rc = util_write_all(fd, rec, sizeof rec) == 0 && fdatasync(fd) == 0 ? TL_OK : TL_EIO;
    if (close(fd) != 0) rc = TL_EIO;
    if (rc == TL_OK && created && util_fsync_dir_at(dfd, name) != 0) rc = TL_EIO;
    sodium_memzero(rec, sizeof rec);
    return rc;
}

int tl_seg_file_read(int dfd, const char *name, const uint8_t D[32], uint32_t g, const uint8_t rkey[32], int cut,
                     tl_seg_fn fn, void *ctx) {
    char host[TL_HOST_MAX];
    uint8_t *data = NULL, d[32];
    size_t len = 0, off = 0;
    int fd = util_open_reg_at(dfd, name, cut ? O_RDWR : O_RDONLY, 0);
    if (fd < 0) return errno == ENOENT ? TL_OK : TL_EIO;
    /* 64 MiB: 335,544 records, more than the 65,536 segments a puzzle may have
     * with their verification and correction records */
    if (util_read_fd(fd, (size_t)64 << 20, &data, &len) != 0) { close(fd); return TL_EIO; }
    for (; off + TL_SEG_SIZE <= len; off += TL_SEG_SIZE) {
        int kind = 0;
        uint64_t i = 0;
        long pid = 0;
        if (tl_seg_open(&kind, &i, d, &pid, host, data + off, D, g, rkey) != TL_OK ||
            fn(ctx, g, kind, i, d, pid, host) != 0)
            break;
    }
    sodium_memzero(d, sizeof d);
    sodium_memzero(data, len);
    free(data);
    int rc = TL_OK;
    if (cut && off < len && (ftruncate(fd, (off_t)off) != 0 || fdatasync(fd) != 0)) rc = TL_EIO;   /* a torn or void tail */
    if (close(fd) != 0) rc = TL_EIO;
    return rc;
}
