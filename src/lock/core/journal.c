/* SPDX-License-Identifier: ISC */
/* src/lock/core/journal.c — the solver's crash-safe journal (docs/FORMAT.md
 * §Journal): a 96-byte header bound to the puzzle's header digest H, then
 * append-only 80-byte entries (group, step, chain value) each with a
 * BLAKE2b-256 checksum keyed by H.  Every append is fsync'd; a torn or
 * corrupt tail is detected, ignored and cut off; another puzzle's journal
 * is refused. */
#include "core_internal.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define J_MAGIC "rxlock-journal/1"
#define J_VERSION 1u
#define J_ENTRY_TYPE 1u

struct tl_journal {
    int fd;
    off_t end;
    uint8_t H[32];
};

static void j_check(uint8_t out[32], const uint8_t H[32], const uint8_t *rec, size_t n) {
    crypto_generichash_state st;
    crypto_generichash_init(&st, H, 32, 32);
    crypto_generichash_update(&st, (const uint8_t *)"rxlock/journal/v1", 17);
    crypto_generichash_update(&st, rec, n);
    crypto_generichash_final(&st, out, 32);
}

void tl_journal_header(uint8_t out[TL_JOURNAL_HEADER_SIZE], const uint8_t H[32]) {
    memset(out, 0, TL_JOURNAL_HEADER_SIZE);
    memcpy(out, J_MAGIC, 16);
    tl_put32(out + 16, J_VERSION);
    memcpy(out + 24, H, 32);
    j_check(out + 64, H, out, 64);
}

void tl_journal_entry(uint8_t out[TL_JOURNAL_ENTRY_SIZE], const uint8_t H[32],
                      uint32_t g, uint64_t i, const uint8_t d[32]) {
    tl_put32(out, J_ENTRY_TYPE);
    tl_put32(out + 4, g);
    tl_put64(out + 8, i);
    memcpy(out + 16, d, 32);
    j_check(out + 48, H, out, 48);
}

/* Header check: TL_OK, or TL_EFORMAT / TL_EVERSION / TL_EJOURNAL. */
static int check_header(const uint8_t *b, const uint8_t H[32]) {
    uint8_t c[32];
    if (memcmp(b, J_MAGIC, 16) != 0) return TL_EFORMAT;
    if (tl_get32(b + 16) != J_VERSION) return TL_EVERSION;
    if (sodium_memcmp(b + 24, H, 32) != 0) return TL_EJOURNAL;
    j_check(c, H, b, 64);
    if (sodium_memcmp(c, b + 64, 32) != 0) return TL_EJOURNAL;
    return TL_OK;
}

/* Scan whole entries in buf; returns the count of leading valid entries. */
static size_t scan_entries(const uint8_t *buf, size_t len, const uint8_t H[32],
                           int *have, uint32_t *g, uint64_t *i, uint8_t d[32]) {
    size_t k = 0;
    uint8_t c[32];
    for (; (k + 1) * TL_JOURNAL_ENTRY_SIZE <= len; k++) {
        const uint8_t *e = buf + k * TL_JOURNAL_ENTRY_SIZE;
        if (tl_get32(e) != J_ENTRY_TYPE) break;
        j_check(c, H, e, 48);
        if (sodium_memcmp(c, e + 48, 32) != 0) break;
        *have = 1;
        *g = tl_get32(e + 4);
        *i = tl_get64(e + 8);
        memcpy(d, e + 16, 32);
    }
    sodium_memzero(c, sizeof c);
    return k;
}

int tl_journal_scan(const uint8_t *buf, size_t len, const uint8_t H[32],
                    int *have, uint32_t *g, uint64_t *i, uint8_t d[32], size_t *valid_len) {
    *have = 0;
    *valid_len = 0;
    if (len < TL_JOURNAL_HEADER_SIZE) {
        /* A torn header: acceptable only as a prefix of ours (crash at create). */
        uint8_t mine[TL_JOURNAL_HEADER_SIZE];
        tl_journal_header(mine, H);
        return memcmp(mine, buf, len) == 0 ? TL_OK : TL_EJOURNAL;
    }
    int rc = check_header(buf, H);
    if (rc) return rc;
    size_t n = scan_entries(buf + TL_JOURNAL_HEADER_SIZE, len - TL_JOURNAL_HEADER_SIZE, H, have, g, i, d);
    *valid_len = TL_JOURNAL_HEADER_SIZE + n * TL_JOURNAL_ENTRY_SIZE;
    return TL_OK;
}

static int read_full(int fd, uint8_t *buf, size_t n, off_t off, size_t *got) {
    size_t k = 0;
    while (k < n) {
        ssize_t r = pread(fd, buf + k, n - k, off + (off_t)k);
        if (r < 0) { if (errno == EINTR) continue; return -1; }
        if (r == 0) break;
        k += (size_t)r;
    }
    *got = k;
    return 0;
}

int tl_journal_open(tl_journal **out, const char *path, const uint8_t H[32],
                    int *have, uint32_t *g, uint64_t *i, uint8_t d[32]) {
    *out = NULL;
    *have = 0;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return TL_EIO;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) { close(fd); errno = EBUSY; return TL_EJOURNAL; }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { close(fd); return TL_EIO; }
    uint8_t hdr[TL_JOURNAL_HEADER_SIZE];
    size_t got = 0;
    off_t valid = 0;
    int rc = TL_OK;
    if (read_full(fd, hdr, sizeof hdr, 0, &got) != 0) { close(fd); return TL_EIO; }
    size_t vl = 0;
    rc = tl_journal_scan(hdr, got, H, have, g, i, d, &vl);
    if (rc) { close(fd); return rc; }
    if (got == TL_JOURNAL_HEADER_SIZE) {
        /* Stream the entries in chunks of whole entries. */
        enum { CHUNK = 820 * TL_JOURNAL_ENTRY_SIZE };
        uint8_t *buf = malloc(CHUNK);
        if (!buf) { close(fd); return TL_ENOMEM; }
        valid = TL_JOURNAL_HEADER_SIZE;
        for (;;) {
            if (read_full(fd, buf, CHUNK, valid, &got) != 0) { rc = TL_EIO; break; }
            size_t n = scan_entries(buf, got, H, have, g, i, d);
            valid += (off_t)(n * TL_JOURNAL_ENTRY_SIZE);
            if (got < CHUNK || n * TL_JOURNAL_ENTRY_SIZE < got) break;
        }
        sodium_memzero(buf, CHUNK);
        free(buf);
        if (rc) { close(fd); return rc; }
    }
    if (valid < st.st_size) {   /* torn or corrupt tail: never trusted, cut off */
        if (ftruncate(fd, valid) != 0 || fsync(fd) != 0) { close(fd); return TL_EIO; }
    }
    if (valid == 0) {
        tl_journal_header(hdr, H);
        if (ftruncate(fd, 0) != 0 || pwrite(fd, hdr, sizeof hdr, 0) != (ssize_t)sizeof hdr ||
            fsync(fd) != 0 || util_fsync_dir(path) != 0) { close(fd); return TL_EIO; }
        valid = TL_JOURNAL_HEADER_SIZE;
    }
    tl_journal *j = calloc(1, sizeof *j);
    if (!j) { close(fd); return TL_ENOMEM; }
    j->fd = fd;
    j->end = valid;
    memcpy(j->H, H, 32);
    *out = j;
    return TL_OK;
}

int tl_journal_append(tl_journal *j, uint32_t g, uint64_t i, const uint8_t d[32]) {
    uint8_t e[TL_JOURNAL_ENTRY_SIZE];
    tl_journal_entry(e, j->H, g, i, d);
#ifdef RXLOCK_TESTING
    /* Test build: RXLOCK_TEST_JOURNAL_FLIP=1 journals a wrong chain value
     * (one bit flipped, checksum valid) in every mid-group entry: a memory
     * error before the write, for the solver's fall-back to the group start. */
    const char *flip = getenv("RXLOCK_TEST_JOURNAL_FLIP");
    if (flip && !strcmp(flip, "1") && i > 0) {
        uint8_t bad[32];
        memcpy(bad, d, 32);
        bad[0] ^= 1;
        tl_journal_entry(e, j->H, g, i, bad);
        sodium_memzero(bad, sizeof bad);
    }
#endif
    ssize_t w;
    do w = pwrite(j->fd, e, sizeof e, j->end); while (w < 0 && errno == EINTR);
    sodium_memzero(e, sizeof e);
    if (w != (ssize_t)sizeof e) return TL_EIO;
    if (fdatasync(j->fd) != 0) return TL_EIO;
    j->end += (off_t)sizeof e;
    return TL_OK;
}

/* ---- back to a group's start ------------------------------------ */
int tl_journal_group_start(tl_journal *j, uint32_t g, uint8_t d[32]) {
    uint8_t e[TL_JOURNAL_ENTRY_SIZE], c[32];
    int found = 0;
    for (off_t off = TL_JOURNAL_HEADER_SIZE; off + TL_JOURNAL_ENTRY_SIZE <= j->end; off += TL_JOURNAL_ENTRY_SIZE) {
        size_t got = 0;
        if (read_full(j->fd, e, sizeof e, off, &got) != 0 || got != sizeof e) break;
        j_check(c, j->H, e, 48);
        if (tl_get32(e) != J_ENTRY_TYPE || sodium_memcmp(c, e + 48, 32) != 0) break;
        if (tl_get32(e + 4) == g && tl_get64(e + 8) == 0) { memcpy(d, e + 16, 32); found = 1; }
    }
    sodium_memzero(e, sizeof e);
    return found ? TL_OK : TL_EJOURNAL;
}

void tl_journal_close(tl_journal *j) {
    if (!j) return;
    close(j->fd);
    sodium_memzero(j, sizeof *j);
    free(j);
}
