/* SPDX-License-Identifier: ISC */
/* src/lock/container.c — the .rxlock single-file container: notice text,
 * puzzle JSON and age payload; bounded parsing of the prelude. */
#include "rxlock/container.h"
#include "rxlock/age.h"
#include "rxlock/calibrate.h"
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

static void human_duration(char *b, size_t cap, double s) {
    if (s < 120) snprintf(b, cap, "%.0f seconds", s);
    else if (s < 7200) snprintf(b, cap, "%.1f minutes", s / 60);
    else if (s < 2 * 86400) snprintf(b, cap, "%.1f hours", s / 3600);
    else if (s < 2 * 365.25 * 86400) snprintf(b, cap, "%.1f days", s / 86400);
    else snprintf(b, cap, "%.1f years", s / (365.25 * 86400));
}

/* Only printable ASCII in the notice (names may hold anything). */
static void sanitize(char *dst, size_t cap, const char *src) {
    size_t n = 0;
    for (; *src && n + 1 < cap && n < 120; src++)
        dst[n++] = (*src >= 0x20 && *src <= 0x7e) ? *src : '?';
    dst[n] = 0;
}

/* issue 19: the promise (tl_promise_text, built-in floor table) and the
 * mode to open it with, as "# " lines wrapped at 72 columns. */
static void promise_lines(char *out, size_t cap, const tl_puzzle *pz) {
    char t[400];
    tl_floor_table ft;
    tl_floor_builtin(&ft);
    tl_promise_text(t, sizeof t, pz, &ft);
    size_t n = 0, len = strlen(t), i = 0;
    if (len + 1 < sizeof t) { t[len++] = '.'; t[len] = 0; }
    out[0] = 0;
    const char *lead = "# It ";
    while (i < len && n + 80 < cap) {
        size_t w = len - i, room = 72 - strlen(lead);
        if (w > room) { w = room; while (w > 0 && t[i + w] != ' ') w--; if (!w) w = room; }
        n += (size_t)snprintf(out + n, cap - n, "%s%.*s\n", lead, (int)w, t + i);
        i += w;
        while (i < len && t[i] == ' ') i++;
        lead = "# ";
    }
    if (pz->work != TL_WORK_SHA3_256 && n + 240 < cap)
        snprintf(out + n, cap - n,
                 "# The command above runs RandomX in full mode when 2.3 GiB of memory\n"
                 "# is free (fastest), else in light mode, %s slower, with a\n"
                 "# warning; --mode full|light forces either.\n", TL_FULL_LIGHT_RANGE);
    n = strlen(out);
    if (n + 3 < cap) snprintf(out + n, cap - n, "#\n");
}

int tl_container_notice(char *buf, size_t cap, const tl_puzzle *pz, const char *name) {
    char nm[128], dur[64], rate[160], promise[1024];
    if (!buf || !pz || !name) return TL_EINVAL;
    const char *slash = strrchr(name, '/');
    sanitize(nm, sizeof nm, slash ? slash + 1 : name);
    double total = (double)pz->groups * (double)pz->steps;
    if (pz->rate_milli_hps) {
        double r = (double)pz->rate_milli_hps / 1000.0;
        human_duration(dur, sizeof dur, total / r);
        snprintf(rate, sizeof rate, "about %s at the assumed rate of %.1f hashes/s (%s)",
                 dur, r, pz->rate_source);
    } else {
        snprintf(rate, sizeof rate, "no solver rate was assumed when it was made");
    }
    promise_lines(promise, sizeof promise, pz);
    char made[32] = "unknown";
    time_t t = (time_t)pz->created;
    struct tm tmv;
    if (gmtime_r(&t, &tmv)) strftime(made, sizeof made, "%Y-%m-%d %H:%M:%S UTC", &tmv);
    int n = snprintf(buf, cap,
        "#\n"
        "# This file is time-locked: its content is encrypted, and the key can be\n"
        "# recovered by anyone, but only by computing a long chain of hashes one\n"
        "# after the other.  No password is needed; only time.\n"
        "#\n"
        "# To open it, install rxlock and run:\n"
        "#\n"
        "#     rxlock unlock %s\n"
        "#\n"
        "%s"
        "# Work: %u group(s) x %" PRIu64 " sequential %s hashes = %.0f hashes,\n"
        "# %s.\n"
        "# The work cannot be spread over several cores.  It can be interrupted\n"
        "# and resumed: progress is kept in a journal file beside this one.\n"
        "# Made %s%s.\n"
        "#\n"
        "# Layout (docs/FORMAT.md, \"Single-file container\"): these notice lines,\n"
        "# a \"puzzle <bytes>\" line, the rxlock puzzle (JSON), then an age v1 file\n"
        "# encrypted to the puzzle's epoch key: 'rxlock solve' gives the identity\n"
        "# and 'age -d -i' opens the rest.\n"
        "#\n"
        "# These notice lines are not authenticated (anyone can change them):\n"
        "# before spending the time, check the real parameters with\n"
        "#     rxlock inspect %s\n"
        "# (and rxlock verify %s --signer-pin KEY for a signed file).\n"
        "#\n",
        nm, promise, pz->groups, pz->steps, tl_work_name(pz->work) ? tl_work_name(pz->work) : "?",
        total, rate, made, pz->has_signature ? "; the puzzle is signed" : "", nm, nm);
    return (n < 0 || (size_t)n >= cap) ? TL_ETOOBIG : 0;
}

int tl_container_write(int out_fd, int in_fd, const tl_puzzle *pz,
                       const char *json, size_t json_len, const char *name) {
    if (!pz || !json || !name || json_len == 0 || json_len > TL_MAX_PUZZLE_BYTES) return TL_AGE_EINVAL;
    char *head = malloc(TL_CONTAINER_NOTICE_MAX + 128);
    int rc;
    if (!head) return TL_AGE_ENOMEM;
    size_t n = strlen(TL_CONTAINER_MAGIC);
    memcpy(head, TL_CONTAINER_MAGIC "\n", n + 1);
    n++;
    if (tl_container_notice(head + n, TL_CONTAINER_NOTICE_MAX, pz, name) != 0) { free(head); return TL_AGE_EINVAL; }
    n += strlen(head + n);
    n += (size_t)snprintf(head + n, 64, "puzzle %zu\n", json_len);
    rc = (util_write_all(out_fd, head, n) == 0 &&
          util_write_all(out_fd, json, json_len) == 0 &&
          util_write_all(out_fd, "\n", 1) == 0) ? 0 : TL_AGE_EIO;
    free(head);
    if (rc) return rc;
    if (pz->pq_epoch)   /* issue 21: a post-quantum epoch's age1pq1 recipient */
        return tl_age_pq_encrypt_fd(in_fd, out_fd, (const uint8_t (*)[TL_AGE_PQ_RECIPIENT_BYTES])pz->pq_recipient, 1, 0);
    return tl_age_encrypt_fd(in_fd, out_fd, (const uint8_t (*)[32])pz->epoch_pk, 1, 0);
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
     * mlkem768x25519 one (post-quantum epoch, issue 21): each stanza kind
     * is tried only with its own key list. */
    return tl_age_decrypt_fd_any(fd, out_fd, (const uint8_t (*)[32])x, 1, (const uint8_t (*)[32])x, 1);
}
