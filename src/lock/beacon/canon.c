/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/canon.c — canon(x) of a feed body (sorted keys, no
 * whitespace, integers below 2^53, plain printable strings that never need
 * an escape) and its Ed25519 signature under the domain
 * "rxlock/beacon-feed/v1" (an archive page's: "rxlock/beacon-archive/v1")
 * (docs/FORMAT.md §feed.json). */
#include "beacon_internal.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define CANON_DEPTH 8
#define DOMAIN "rxlock/beacon-feed/v1"

static int plain_str(const char *s) {
    for (; *s; s++)
        if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\') return 0;
    return 1;
}

static int check(const json_t *x, int depth) {
    if (depth > CANON_DEPTH) return 0;
    switch (json_typeof(x)) {
    case JSON_OBJECT: {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)x, k, v)
            if (!plain_str(k) || !check(v, depth + 1)) return 0;
        return 1;
    }
    case JSON_ARRAY:
        for (size_t i = 0; i < json_array_size(x); i++)
            if (!check(json_array_get(x, i), depth + 1)) return 0;
        return 1;
    case JSON_STRING:
        return strlen(json_string_value(x)) == json_string_length(x) && plain_str(json_string_value(x));
    case JSON_INTEGER: {
        json_int_t n = json_integer_value(x);
        return n > -(1ll << 53) && n < (1ll << 53);
    }
    case JSON_TRUE: case JSON_FALSE: case JSON_NULL: return 1;
    default: return 0;   /* JSON_REAL */
    }
}

int tl_beacon_canon(const json_t *x, char **out, size_t *len) {
    *out = NULL;
    *len = 0;
    if (!x || !check(x, 0)) return TL_EFORMAT;
    char *s = json_dumps(x, JSON_COMPACT | JSON_SORT_KEYS);
    if (!s) return TL_ENOMEM;
    *out = s;
    *len = strlen(s);
    return TL_OK;
}

static unsigned char *message(const char *dom, const char *canon, size_t len, size_t *mlen) {
    size_t d = strlen(dom) + 1;   /* includes the 0x00 */
    unsigned char *m = malloc(d + len);
    if (!m) return NULL;
    memcpy(m, dom, d);
    memcpy(m + d, canon, len);
    *mlen = d + len;
    return m;
}

int tl_beacon_sign_canon(const char *canon, size_t len, const uint8_t sk[64], uint8_t sig[64]) {
    return tl_beacon_sign_domain(DOMAIN, canon, len, sk, sig);
}

int tl_beacon_verify_canon(const char *canon, size_t len, const uint8_t pk[32], const uint8_t sig[64]) {
    return tl_beacon_verify_domain(DOMAIN, canon, len, pk, sig);
}

int tl_beacon_sign_domain(const char *dom, const char *canon, size_t len, const uint8_t sk[64], uint8_t sig[64]) {
    size_t ml;
    unsigned char *m = message(dom, canon, len, &ml);
    if (!m) return TL_ENOMEM;
    int ok = sodium_init() >= 0 && crypto_sign_detached(sig, NULL, m, ml, sk) == 0;
    free(m);
    return ok ? TL_OK : TL_ESIG;
}

int tl_beacon_verify_domain(const char *dom, const char *canon, size_t len, const uint8_t pk[32], const uint8_t sig[64]) {
    size_t ml;
    unsigned char *m = message(dom, canon, len, &ml);
    if (!m) return TL_ENOMEM;
    int ok = sodium_init() >= 0 && crypto_sign_verify_detached(sig, m, ml, pk) == 0;
    free(m);
    return ok ? TL_OK : TL_ESIG;
}
