/* SPDX-License-Identifier: ISC */
/* src/cli/feed_fetch.c — where a beacon's public files come from: the
 * beacon's own DIR (its public/), a copy of public/ (a directory holding
 * feed.json), or a URL (libcurl: http and https only, TLS verification on,
 * connect and total timeouts, a size limit per file, at most 3 redirects
 * and only to http/https).  Built with -DRXLOCK_NO_CURL (the static binary)
 * a URL is refused with a message saying so.  Also loads and checks the
 * feed (signature, optional pin); feed.json fetched again from the same
 * URL is asked for conditionally (If-Modified-Since), so a follower's
 * frequent looks cost a 304 when nothing changed. */
#include "cli/feed.h"
#include "cli/cli.h"
#include "util/util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#ifndef RXLOCK_NO_CURL
#include <curl/curl.h>
#endif

#define FETCH_CONNECT_TIMEOUT 15L
#define FETCH_TIMEOUT         120L

static int is_url(const char *s) { return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8); }

int bcn_url_supported(void) {
#ifdef RXLOCK_NO_CURL
    return 0;
#else
    return 1;
#endif
}

int bcn_src_open(bcn_src *s, const char *arg) {
    memset(s, 0, sizeof *s);
    if (strlen(arg) + 16 >= sizeof s->base) return cli_error("%s: too long", arg);
    if (is_url(arg)) {
        if (!bcn_url_supported())
            return cli_error("%s: this rxlock was built without URL support (the static binary has no libcurl): "
                             "fetch the beacon's public/ files with another tool and give their directory", arg);
        for (const char *c = arg; *c; c++)
            if (*c <= 0x20 || *c >= 0x7f) return cli_error("%s: not a plain URL", arg);
        snprintf(s->base, sizeof s->base, "%s", arg);
        size_t l = strlen(s->base);
        while (l > 8 && s->base[l - 1] == '/') s->base[--l] = 0;
        s->url = 1;
        return CLI_OK;
    }
    if (strstr(arg, "://")) return cli_error("%s: only http:// and https:// URLs are fetched", arg);
    char p[PATH_MAX];
    struct stat st;
    if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) return cli_error("%s: not a directory or an http(s) URL", arg);
    snprintf(p, sizeof p, "%s/beacon.json", arg);
    if (stat(p, &st) == 0) {
        s->own = 1;
        snprintf(s->own_dir, sizeof s->own_dir, "%s", arg);
        snprintf(s->base, sizeof s->base, "%s/public", arg);
    } else {
        snprintf(s->base, sizeof s->base, "%s", arg);
    }
    return CLI_OK;
}

#ifndef RXLOCK_NO_CURL
typedef struct { uint8_t *buf; size_t len, max; int over; } sink;

static size_t on_data(char *p, size_t sz, size_t n, void *ctx) {
    sink *k = ctx;
    size_t add = sz * n;
    if (add > k->max - k->len) { k->over = 1; return 0; }
    uint8_t *nb = realloc(k->buf, k->len + add + 1);
    if (!nb) return 0;
    memcpy(nb + k->len, p, add);
    k->buf = nb;
    k->len += add;
    k->buf[k->len] = 0;
    return add;
}

/* The last feed.json fetched, for a conditional request the next time
 * (--follow asks every few seconds around a release): its bytes and the
 * server's Last-Modified, used only when that was 2 s or more before the
 * fetch (a file changed again within the same second looks unmodified). */
static struct { char url[PATH_MAX]; uint8_t *buf; size_t len; long mtime; int usable; } last_feed;

/* The response's Date (the server's clock), for the 2 s rule above. */
static size_t on_header(char *p, size_t sz, size_t n, void *ctx) {
    size_t l = sz * n;
    char line[128];
    if (l > 5 && l < sizeof line && !strncasecmp(p, "date:", 5)) {
        memcpy(line, p + 5, l - 5);
        line[l - 5] = 0;
        *(time_t *)ctx = curl_getdate(line, NULL);
    }
    return l;
}

static int fetch_url(const char *url, size_t max, uint8_t **buf, size_t *len, char *err, size_t errlen, int feed) {
    static int inited;
    if (!inited) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) { snprintf(err, errlen, "libcurl failed to start"); return -1; }
        inited = 1;
    }
    CURL *c = curl_easy_init();
    if (!c) { snprintf(err, errlen, "libcurl failed to start"); return -1; }
    sink k = { NULL, 0, max, 0 };
    char ebuf[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 3L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, FETCH_CONNECT_TIMEOUT);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, FETCH_TIMEOUT);
    curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "rxlock/" RXLOCK_VERSION);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &k);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, ebuf);
    int cond = feed && last_feed.usable && !strcmp(last_feed.url, url);
    time_t date = -1;
    if (feed) {
        curl_easy_setopt(c, CURLOPT_FILETIME, 1L);
        curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        curl_easy_setopt(c, CURLOPT_HEADERDATA, &date);
    }
    if (cond) {
        curl_easy_setopt(c, CURLOPT_TIMECONDITION, (long)CURL_TIMECOND_IFMODSINCE);
        curl_easy_setopt(c, CURLOPT_TIMEVALUE, last_feed.mtime);
    }
    CURLcode rc = curl_easy_perform(c);
    long code = 0, unmet = 0, mtime = -1;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (cond) curl_easy_getinfo(c, CURLINFO_CONDITION_UNMET, &unmet);
    if (feed) curl_easy_getinfo(c, CURLINFO_FILETIME, &mtime);
    curl_easy_cleanup(c);
    if (rc == CURLE_OK && cond && (unmet || code == 304)) {   /* not modified: the bytes of last time */
        free(k.buf);
        if (!(*buf = malloc(last_feed.len + 1))) { snprintf(err, errlen, "out of memory"); return -1; }
        memcpy(*buf, last_feed.buf, last_feed.len);
        (*buf)[last_feed.len] = 0;
        *len = last_feed.len;
        return 0;
    }
    int r = 0;
    if (k.over || rc == CURLE_FILESIZE_EXCEEDED) { snprintf(err, errlen, "%s: larger than %zu bytes", url, max); r = -1; }
    else if (rc != CURLE_OK) { snprintf(err, errlen, "%s: %s", url, ebuf[0] ? ebuf : curl_easy_strerror(rc)); r = -1; }
    else if (code == 404 || code == 410) r = 1;
    else if (code != 200) { snprintf(err, errlen, "%s: HTTP status %ld", url, code); r = -1; }
    if (r) { free(k.buf); return r; }
    if (!k.buf && !(k.buf = calloc(1, 1))) { snprintf(err, errlen, "out of memory"); return -1; }
    if (feed) {
        free(last_feed.buf);
        last_feed.usable = 0;
        if ((last_feed.buf = malloc(k.len + 1)) != NULL && strlen(url) < sizeof last_feed.url) {
            memcpy(last_feed.buf, k.buf, k.len);
            last_feed.len = k.len;
            snprintf(last_feed.url, sizeof last_feed.url, "%s", url);
            last_feed.mtime = mtime;
            last_feed.usable = mtime > 0 && date > 0 && (long)date - mtime >= 2;
        }
    }
    *buf = k.buf;
    *len = k.len;
    return 0;
}
#endif

int bcn_fetch(const bcn_src *s, const char *rel, size_t max, uint8_t **buf, size_t *len, char *err, size_t errlen) {
    char p[PATH_MAX];
    *buf = NULL;
    *len = 0;
    if (strstr(rel, "..") || rel[0] == '/') { snprintf(err, errlen, "%s: not a feed path", rel); return -1; }
    snprintf(p, sizeof p, "%s/%s", s->base, rel);
#ifndef RXLOCK_NO_CURL
    if (s->url) return fetch_url(p, max, buf, len, err, errlen, !strcmp(rel, "feed.json"));
#endif
    if (s->url) { snprintf(err, errlen, "no URL support in this build"); return -1; }
    if (util_read_file(p, max, buf, len) == 0) return 0;
    if (errno == ENOENT) return 1;
    snprintf(err, errlen, "%s: %s", p, errno == EFBIG ? "larger than the limit" : strerror(errno));
    return -1;
}

int bcn_feed_load(const bcn_src *s, const uint8_t *pin, int quiet_pin, tl_beacon_feed **f) {
    uint8_t *buf = NULL, own_pin[32];
    size_t len = 0;
    char err[512];
    *f = NULL;
    if (!pin && s->own) {   /* the beacon's own DIR: its beacon.json names the signer */
        bcn_dir b;
        if (bcn_open(&b, s->own_dir) != CLI_OK) return CLI_FAIL;
        memcpy(own_pin, b.cfg.s.signer, 32);
        pin = own_pin;
    }
    int r = bcn_fetch(s, "feed.json", TL_BEACON_MAX_FEED_BYTES, &buf, &len, err, sizeof err);
    if (r == 1) return cli_error("%s/feed.json: no feed there", s->base);
    if (r) return cli_error("%s", err);
    int rc = tl_beacon_feed_parse((const char *)buf, len, pin, f, err, sizeof err);
    free(buf);
    if (rc) {
        cli_error("%s/feed.json: refused: %s", s->base, err);
        return rc == TL_ESIG || rc == TL_EPIN ? CLI_VERIFY : CLI_FAIL;
    }
    if (!pin && !quiet_pin) {
        char hex[65];
        util_hex_encode(hex, (*f)->beacon.signer, 32);
        fprintf(stderr, "rxlock: warning: no --signer-pin: the feed is trusted on its own key %s; pin it "
                        "(--signer-pin %s) to refuse another signer\n", hex, hex);
    }
    return CLI_OK;
}
