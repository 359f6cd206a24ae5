/* SPDX-License-Identifier: ISC */
/* src/lock/core/container.c — the .rxlock single-file container: the
 * caller's notice lines, puzzle JSON and age payload; bounded parsing of
 * the prelude.  The notice's text is measure/notice.c's. */
#include "rxlock/container.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void seterr(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* Every line of the notice starts with '#', ends with LF and fits a
 * reader's line limit; the whole fits TL_CONTAINER_NOTICE_MAX. */
static int notice_ok(const char *s) {
    size_t total = strlen(s), line = 0;
    if (total == 0 || total > TL_CONTAINER_NOTICE_MAX || s[total - 1] != '\n') return 0;
    for (size_t k = 0; k < total; k++) {
        if (line == 0 && s[k] != '#') return 0;
        if (s[k] == '\n') { line = 0; continue; }
        if (++line > TL_CONTAINER_LINE_MAX) return 0;
    }
    return 1;
}

int tl_container_write(int out_fd, int in_fd, const tl_puzzle *pz,
                       const char *json, size_t json_len, const char *notice) {
    if (!pz || !json || !notice || json_len == 0 || json_len > TL_MAX_PUZZLE_BYTES || !notice_ok(notice))
        return TL_AGE_EINVAL;
    char *head = malloc(TL_CONTAINER_NOTICE_MAX + 128);
    int rc;
    if (!head) return TL_AGE_ENOMEM;
    size_t n = strlen(TL_CONTAINER_MAGIC);
    memcpy(head, TL_CONTAINER_MAGIC "\n", n + 1);
    n++;
    memcpy(head + n, notice, strlen(notice));
    n += strlen(notice);
    n += (size_t)snprintf(head + n, 64, "puzzle %zu\n", json_len);
    rc = (util_write_all(out_fd, head, n) == 0 &&
          util_write_all(out_fd, json, json_len) == 0 &&
          util_write_all(out_fd, "\n", 1) == 0) ? 0 : TL_AGE_EIO;
    free(head);
    if (rc) return rc;
    if (pz->pq_epoch)   /* a post-quantum epoch's age1pq1 recipient */
        return age_pq_encrypt_fd(in_fd, out_fd, (const uint8_t (*)[TL_AGE_PQ_RECIPIENT_BYTES])pz->pq_recipient, 1, 0);
    return age_encrypt_fd(in_fd, out_fd, (const uint8_t (*)[32])pz->epoch_pk, 1, 0);
}

/* Read exactly one line (up to cap-1 bytes, LF required) byte by byte:
 * the prelude is small and we must not read past it. */
static int read_line(int fd, char *line, size_t cap, size_t *len) {
    size_t n = 0;
    for (;;) {
        char c;
        ssize_t k = read(fd, &c, 1);
        if (k < 0) { if (errno == EINTR) continue; return -1; }
        if (k == 0) return -2;
        if (c == '\n') break;
        if (n + 1 >= cap) return -3;
        line[n++] = c;
    }
    line[n] = 0;
    *len = n;
    return 0;
}

int tl_container_parse(int fd, char **json, size_t *json_len, off_t *payload_off,
                       char *err, size_t errlen) {
    char line[TL_CONTAINER_LINE_MAX + 2];
    if (!json || !json_len || !payload_off) { seterr(err, errlen, "invalid argument"); return TL_EINVAL; }
    size_t len = 0, notice = 0;
    off_t off = 0;
    int rc = read_line(fd, line, sizeof line, &len);
    if (rc == -1) { seterr(err, errlen, "read: %s", strerror(errno)); return TL_EIO; }
    if (rc || strcmp(line, TL_CONTAINER_MAGIC) != 0) {
        seterr(err, errlen, "not an rxlock time-locked file (first line is not \"%s\")", TL_CONTAINER_MAGIC);
        return TL_EFORMAT;
    }
    off += (off_t)len + 1;
    for (;;) {
        rc = read_line(fd, line, sizeof line, &len);
        if (rc == -1) { seterr(err, errlen, "read: %s", strerror(errno)); return TL_EIO; }
        if (rc == -2) { seterr(err, errlen, "truncated container: no \"puzzle\" line"); return TL_EFORMAT; }
        if (rc == -3) { seterr(err, errlen, "container notice line longer than %u bytes", TL_CONTAINER_LINE_MAX); return TL_EFORMAT; }
        off += (off_t)len + 1;
        notice += len + 1;
        if (notice > TL_CONTAINER_NOTICE_MAX) { seterr(err, errlen, "container notice longer than %u bytes", TL_CONTAINER_NOTICE_MAX); return TL_ETOOBIG; }
        if (line[0] == '#') {
            for (size_t i = 0; i < len; i++)
                if ((unsigned char)line[i] < 0x20 || (unsigned char)line[i] > 0x7e) {
                    seterr(err, errlen, "container notice holds a non-printable byte");
                    return TL_EFORMAT;
                }
            continue;
        }
        break;
    }
    /* "puzzle N": N decimal, no sign or leading zero, 1..TL_MAX_PUZZLE_BYTES. */
    if (strncmp(line, "puzzle ", 7) != 0 || line[7] < '1' || line[7] > '9' || len > 7 + 8) {
        seterr(err, errlen, "malformed container: expected \"puzzle <bytes>\" after the notice");
        return TL_EFORMAT;
    }
    size_t n = 0;
    for (size_t i = 7; i < len; i++) {
        if (line[i] < '0' || line[i] > '9') { seterr(err, errlen, "malformed container: bad puzzle length"); return TL_EFORMAT; }
        n = n * 10 + (size_t)(line[i] - '0');
    }
    if (n > TL_MAX_PUZZLE_BYTES) { seterr(err, errlen, "container puzzle larger than %u bytes", TL_MAX_PUZZLE_BYTES); return TL_ETOOBIG; }
    char *buf = malloc(n + 2);
    if (!buf) { seterr(err, errlen, "out of memory"); return TL_ENOMEM; }
    size_t got = 0;
    while (got < n + 1) {
        ssize_t k = read(fd, buf + got, n + 1 - got);
        if (k < 0) { if (errno == EINTR) continue; seterr(err, errlen, "read: %s", strerror(errno)); free(buf); return TL_EIO; }
        if (k == 0) break;
        got += (size_t)k;
    }
    if (got != n + 1 || buf[n] != '\n') {
        seterr(err, errlen, got != n + 1 ? "truncated container: puzzle cut short" : "malformed container: no LF after the puzzle");
        free(buf);
        return TL_EFORMAT;
    }
    buf[n] = 0;
    if (memchr(buf, 0, n)) { seterr(err, errlen, "malformed container: NUL byte in the puzzle"); free(buf); return TL_EFORMAT; }
    off += (off_t)n + 1;
    *json = buf;
    *json_len = n;
    *payload_off = off;
    return 0;
}

int tl_container_open_payload(int fd, off_t payload_off, const uint8_t x[32], int out_fd) {
    if (!x) return TL_AGE_EINVAL;
    if (lseek(fd, payload_off, SEEK_SET) != payload_off) return TL_AGE_EIO;
    /* x opens an X25519 stanza (classic epoch) or, as an identity seed, an
     * mlkem768x25519 one (post-quantum epoch): each stanza kind
     * is tried only with its own key list. */
    return age_decrypt_fd_any(fd, out_fd, (const uint8_t (*)[32])x, 1, (const uint8_t (*)[32])x, 1);
}
