/* SPDX-License-Identifier: ISC */
/* src/cli/feed_util.c — what every command that reads a beacon feed shares
 * (the beacon room's run, solve and status; the keys room's `encrypt /
 * decrypt --feed`): a beacon DIR's beacon.json and file names, times as
 * text, a moment given on the command line, an epoch's file stem, an age
 * identity file's key. */
#include "cli/feed.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include "rxlock/age.h"
#include <errno.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void bcn_file(const bcn_dir *b, char out[PATH_MAX], const char *fmt, ...) {
    char rel[PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel, sizeof rel, fmt, ap);
    va_end(ap);
    snprintf(out, PATH_MAX, "%s/%.*s", b->dir, (int)(PATH_MAX - sizeof b->dir - 2), rel);
}

int bcn_open(bcn_dir *b, const char *dir) {
    memset(b, 0, sizeof *b);
    if (strlen(dir) >= sizeof b->dir) return cli_error("%s: path too long", dir);
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    char p[PATH_MAX], err[256];
    bcn_file(b, p, "beacon.json");
    uint8_t *text = NULL;
    size_t len = 0;
    if (util_read_file(p, 65536, &text, &len) != 0)
        return cli_error("%s: %s (not a beacon directory? `rxlock beacon init` makes one)", p, strerror(errno));
    int rc = tl_beacon_config_parse((const char *)text, len, &b->cfg, err, sizeof err);
    free(text);
    return rc ? cli_error("%s: %s", p, err) : CLI_OK;
}

void bcn_time(char *buf, size_t cap, int64_t t) {
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || !strftime(buf, cap, "%Y-%m-%d %H:%M:%S UTC", &tm)) snprintf(buf, cap, "@%lld", (long long)t);
}

void bcn_stem(const tl_beacon_sched *s, uint64_t E, int kind, char out[48]) {
    if (s->kinds == (TL_BEACON_CLASSIC | TL_BEACON_PQ))
        snprintf(out, 48, "%llu-%s", (unsigned long long)E, tl_beacon_kind_name(kind));
    else
        snprintf(out, 48, "%llu", (unsigned long long)E);
}

int bcn_identity_parse(const uint8_t *text, size_t len, uint8_t key[32], int *pq) {
    size_t i = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && text[e] != '\n') e++;
        size_t l = e - i;
        if (l && text[i + l - 1] == '\r') l--;
        if (l && text[i] != '#') {
            char line[TL_AGE_IDENTITY_MAX];
            int rc = -1;
            if (l < sizeof line) {
                memcpy(line, text + i, l);
                line[l] = 0;
                if (age_identity_decode(line, key) == 0) { *pq = 0; rc = 0; }
                else if (age_pq_identity_decode(line, key) == 0) { *pq = 1; rc = 0; }
            }
            sodium_memzero(line, sizeof line);
            return rc;
        }
        i = e + 1;
    }
    return -1;
}

int bcn_parse_when(const char *s, int64_t now, int64_t *out) {
    double d;
    if (s[0] == '@') {
        char *end;
        errno = 0;
        long long v = strtoll(s + 1, &end, 10);
        if (errno || *end || end == s + 1 || v < 0 || v >= TL_BEACON_MAX_TIME) return -1;
        *out = v;
        return 0;
    }
    if (s[0] == '+' ? cli_parse_duration(s + 1, &d) == 0 : cli_parse_duration(s, &d) == 0) {
        if (!(d >= 0 && d < 1e15)) return -1;
        *out = now + (int64_t)d;
        return 0;
    }
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *e = strptime(s, "%Y-%m-%d", &tm);
    if (!e) return -1;
    if (*e == 'T' || *e == ' ') {
        const char *e2 = strptime(e + 1, "%H:%M:%S", &tm);
        if (!e2) e2 = strptime(e + 1, "%H:%M", &tm);
        if (!e2) return -1;
        e = e2;
    }
    if (*e == 'Z') e++;
    if (*e) return -1;
    time_t t = timegm(&tm);
    if (t < 0) return -1;
    *out = (int64_t)t;
    return 0;
}
