/* SPDX-License-Identifier: ISC */
/* src/age/age_armor.c — the byte source and sink of age files: buffered
 * raw I/O and the strict PEM armor ("AGE ENCRYPTED FILE", RFC 7468 strict,
 * 64-column canonical padded base64, only whitespace around the block). */
#include "age/age_internal.h"
#include "util/util.h"
#include <errno.h>
#include <sodium.h>
#include <string.h>
#include <unistd.h>

#ifdef RXLOCK_TESTING
ssize_t (*age_read_hook)(int fd, void *buf, size_t n);
#endif

ssize_t age_sys_read(int fd, void *buf, size_t n) {
#ifdef RXLOCK_TESTING
    if (age_read_hook) return age_read_hook(fd, buf, n);
#endif
    return read(fd, buf, n);
}

/* ---- raw buffered input ------------------------------------------------ */
/* 0 (data appended, or EOF reached: r->eof) or TL_AGE_EIO, which sticks: a
 * stream that failed once is never read again, so an error can not turn
 * into an early end of file. */
static int raw_fill(age_raw *r) {
    if (r->err) return r->err;
    if (r->eof) return 0;
    if (r->pos == r->len) r->pos = r->len = 0;
    for (;;) {
        ssize_t k = age_sys_read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
        if (k < 0) {
            if (errno == EINTR) continue;
            r->err = TL_AGE_EIO;
            return r->err;
        }
        if (k == 0) r->eof = 1;
        r->len += (size_t)k;
        return 0;
    }
}

/* raw_getc at end of file.  Not an error code: every TL_AGE_E* is <= -200
 * (include/rxlock/error.h), but callers test RAW_EOF by equality first and
 * treat every other negative value as the error it is. */
#define RAW_EOF (-1)

/* Next byte (0..255), RAW_EOF, or a TL_AGE_E* error. */
static int raw_getc(age_raw *r) {
    if (r->pos == r->len) {
        int rc = raw_fill(r);
        if (rc) return rc;
        if (r->pos == r->len) return RAW_EOF;
    }
    return r->buf[r->pos++];
}

static ssize_t raw_read(age_raw *r, uint8_t *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        if (r->pos == r->len) {
            int rc = raw_fill(r);
            if (rc) return rc;
            if (r->pos == r->len) break;
        }
        size_t take = r->len - r->pos;
        if (take > n - got) take = n - got;
        memcpy(p + got, r->buf + r->pos, take);
        r->pos += take; got += take;
    }
    return (ssize_t)got;
}

/* A raw line without LF (a CR before the LF is dropped).  Returns 1 and the
 * line, 0 at EOF with nothing read, negative on error/over-long line. *nl
 * tells whether the line ended in LF. */
static int raw_line(age_raw *r, char *line, size_t cap, size_t *len, int *nl) {
    size_t n = 0;
    *nl = 0;
    for (;;) {
        int c = raw_getc(r);
        if (c == RAW_EOF) break;
        if (c < 0) return c;
        if (c == '\n') { *nl = 1; break; }
        if (n + 1 >= cap) return TL_AGE_EARMOR;
        line[n++] = (char)c;
    }
    if (n && line[n - 1] == '\r') n--;
    line[n] = 0;
    *len = n;
    return (n || *nl) ? 1 : 0;
}

static int is_ws(int c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* ---- input ------------------------------------------------------------- */
void age_in_init(age_in *in, int fd) {
    memset(in, 0, sizeof *in);
    in->raw.fd = fd;
    /* Look at the start: leading whitespace, then the armor BEGIN line. */
    while (in->raw.len < sizeof TL_AGE_ARMOR_BEGIN + 64 && !in->raw.eof)
        if (raw_fill(&in->raw) != 0) break;    /* sticky: shows on a later read */
    size_t i = 0;
    while (i < in->raw.len && is_ws(in->raw.buf[i]) && i < 64) i++;
    size_t bl = strlen(TL_AGE_ARMOR_BEGIN);
    if (in->raw.len - i >= bl && memcmp(in->raw.buf + i, TL_AGE_ARMOR_BEGIN, bl) == 0)
        in->armored = 1;
}

/* Armor: decode the next line into in->dec.  Sets done at the END line. */
static int armor_next(age_in *in) {
    char line[TL_AGE_ARMOR_COLS + 8];
    size_t len = 0;
    int nl, rc;
    if (in->armored == 1) {
        /* First call: skip leading whitespace and take the BEGIN line. */
        int c;
        while ((c = raw_getc(&in->raw)) >= 0 && is_ws(c)) {}
        if (c == RAW_EOF) return TL_AGE_EARMOR;
        if (c < 0) return c;
        in->raw.pos--;
        rc = raw_line(&in->raw, line, sizeof line, &len, &nl);
        if (rc < 0) return rc == TL_AGE_EIO ? rc : TL_AGE_EARMOR;
        if (rc == 0 || !nl || strcmp(line, TL_AGE_ARMOR_BEGIN) != 0) return TL_AGE_EARMOR;
        in->armored = 2;
    }
    rc = raw_line(&in->raw, line, sizeof line, &len, &nl);
    if (rc < 0) return rc == TL_AGE_EIO ? rc : TL_AGE_EARMOR;
    if (rc == 0) return TL_AGE_EARMOR;                   /* no END line */
    if (strcmp(line, TL_AGE_ARMOR_END) == 0) {
        /* Only whitespace may follow. */
        int c;
        while ((c = raw_getc(&in->raw)) >= 0)
            if (!is_ws(c)) return TL_AGE_ETRAILING;
        if (c != RAW_EOF) return c;
        in->done = 1;
        return 0;
    }
    if (!nl || in->last_line || len == 0 || len > TL_AGE_ARMOR_COLS || len % 4 != 0)
        return TL_AGE_EARMOR;
    size_t n = 0;
    const char *end = NULL;
    if (sodium_base642bin(in->dec, sizeof in->dec, line, len, NULL, &n, &end,
                          sodium_base64_VARIANT_ORIGINAL) != 0 || end != line + len)
        return TL_AGE_EARMOR;
    /* Canonical: re-encoding gives the same text (no stray padding bits). */
    char again[TL_AGE_ARMOR_COLS + 8];
    sodium_bin2base64(again, sizeof again, in->dec, n, sodium_base64_VARIANT_ORIGINAL);
    if (strlen(again) != len || memcmp(again, line, len) != 0) return TL_AGE_EARMOR;
    if (len < TL_AGE_ARMOR_COLS || line[len - 1] == '=') in->last_line = 1;
    in->dpos = 0;
    in->dlen = n;
    return 0;
}

ssize_t age_in_read(age_in *in, uint8_t *buf, size_t n) {
    if (!in->armored) return raw_read(&in->raw, buf, n);
    size_t got = 0;
    while (got < n) {
        if (in->dpos == in->dlen) {
            if (in->done) break;
            in->dpos = in->dlen = 0;
            int rc = armor_next(in);
            if (rc) return rc;
            continue;
        }
        size_t take = in->dlen - in->dpos;
        if (take > n - got) take = n - got;
        memcpy(buf + got, in->dec + in->dpos, take);
        in->dpos += take; got += take;
    }
    return (ssize_t)got;
}

int age_in_line(age_in *in, char *line, size_t cap, size_t *len) {
    size_t n = 0;
    for (;;) {
        uint8_t c;
        ssize_t k = age_in_read(in, &c, 1);
        if (k < 0) return (int)k;
        if (k == 0) return TL_AGE_ETRUNC;
        if (c == '\n') break;
        if (n + 1 >= cap) return TL_AGE_EHEADER;
        line[n++] = (char)c;
    }
    line[n] = 0;
    *len = n;
    return 0;
}

/* ---- output ------------------------------------------------------------ */
static int out_flush(age_out *o) {
    if (o->olen && util_write_all(o->fd, o->obuf, o->olen) != 0) return TL_AGE_EIO;
    o->olen = 0;
    return 0;
}

static int out_put(age_out *o, const void *p, size_t n) {
    if (o->olen + n > sizeof o->obuf) {
        int rc = out_flush(o);
        if (rc) return rc;
    }
    if (n > sizeof o->obuf) return util_write_all(o->fd, p, n) == 0 ? 0 : TL_AGE_EIO;
    memcpy(o->obuf + o->olen, p, n);
    o->olen += n;
    return 0;
}

static int armor_line(age_out *o, const uint8_t *p, size_t n) {
    char line[TL_AGE_ARMOR_COLS + 2];
    sodium_bin2base64(line, sizeof line, p, n, sodium_base64_VARIANT_ORIGINAL);
    size_t l = strlen(line);
    line[l++] = '\n';
    return out_put(o, line, l);
}

int age_out_init(age_out *o, int fd, int armor) {
    memset(o, 0, sizeof *o);
    o->fd = fd;
    o->armored = armor ? 1 : 0;
    if (armor) return out_put(o, TL_AGE_ARMOR_BEGIN "\n", strlen(TL_AGE_ARMOR_BEGIN) + 1);
    return 0;
}

int age_out_write(age_out *o, const void *data, size_t n) {
    const uint8_t *p = data;
    if (!o->armored) return out_put(o, p, n);
    while (n) {
        size_t take = sizeof o->abuf - o->alen;
        if (take > n) take = n;
        memcpy(o->abuf + o->alen, p, take);
        o->alen += take; p += take; n -= take;
        if (o->alen == sizeof o->abuf) {
            int rc = armor_line(o, o->abuf, o->alen);
            if (rc) return rc;
            o->alen = 0;
        }
    }
    return 0;
}

int age_out_finish(age_out *o) {
    int rc;
    if (o->armored) {
        if (o->alen && (rc = armor_line(o, o->abuf, o->alen)) != 0) return rc;
        o->alen = 0;
        if ((rc = out_put(o, TL_AGE_ARMOR_END "\n", strlen(TL_AGE_ARMOR_END) + 1)) != 0) return rc;
    }
    return out_flush(o);
}

void age_out_wipe(age_out *o) { sodium_memzero(o, sizeof *o); }

int age_b64_decode(const char *s, size_t slen, uint8_t *out, size_t want) {
    size_t n = 0;
    const char *end = NULL;
    if (slen != (want * 4 + 2) / 3) return -1;
    if (sodium_base642bin(out, want, s, slen, NULL, &n, &end,
                          sodium_base64_VARIANT_ORIGINAL_NO_PADDING) != 0 ||
        end != s + slen || n != want)
        return -1;
    /* Canonical: no stray bits in the last character. */
    char again[TL_AGE_LINE_MAX];
    if (slen + 1 > sizeof again) return -1;
    sodium_bin2base64(again, sizeof again, out, n, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
    return memcmp(again, s, slen) == 0 ? 0 : -1;
}
