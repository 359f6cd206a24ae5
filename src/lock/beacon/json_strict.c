/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/json_strict.c — the strict JSON reading both beacon
 * parsers (the feed, beacon.json) share: exact key sets, bounded integers,
 * bounded strings, fixed-length hex, the kinds array. */
#include "beacon_internal.h"
#include "util/util.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void tl_beacon_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int tl_beacon_keys_exact(const json_t *o, const char *const *keys, size_t n, const char *what,
                         char *err, size_t errlen) {
    if (!json_is_object(o)) { tl_beacon_err(err, errlen, "%s: not an object", what); return 0; }
    for (size_t i = 0; i < n; i++)
        if (!json_object_get(o, keys[i])) { tl_beacon_err(err, errlen, "%s: missing \"%s\"", what, keys[i]); return 0; }
    if (json_object_size(o) != n) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)o, k, v) {
            size_t i = 0;
            while (i < n && strcmp(k, keys[i])) i++;
            if (i == n) { tl_beacon_err(err, errlen, "%s: unknown key \"%.40s\"", what, k); return 0; }
        }
    }
    return 1;
}

int tl_beacon_get_int(const json_t *o, const char *key, int64_t lo, int64_t hi, int64_t *out,
                      char *err, size_t errlen) {
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        tl_beacon_err(err, errlen, "\"%s\": want an integer %lld .. %lld", key, (long long)lo, (long long)hi);
        return -1;
    }
    *out = (int64_t)json_integer_value(v);
    return 0;
}

int tl_beacon_get_str(const json_t *o, const char *key, char *out, size_t cap, char *err, size_t errlen) {
    json_t *v = json_object_get(o, key);
    if (!json_is_string(v) || json_string_length(v) >= cap) {
        tl_beacon_err(err, errlen, "\"%s\": want a string of at most %zu characters", key, cap - 1);
        return -1;
    }
    memcpy(out, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

int tl_beacon_get_hex(const json_t *o, const char *key, uint8_t *out, size_t n, char *err, size_t errlen) {
    json_t *v = json_object_get(o, key);
    size_t got = 0;
    if (!json_is_string(v) || json_string_length(v) != 2 * n ||
        util_hex_decode(json_string_value(v), out, n, &got) != 0 || got != n) {
        tl_beacon_err(err, errlen, "\"%s\": want %zu hex digits", key, 2 * n);
        return -1;
    }
    return 0;
}

int tl_beacon_get_kinds(const json_t *o, const char *key, unsigned *kinds, char *err, size_t errlen) {
    json_t *a = json_object_get(o, key);
    const char *k0 = json_string_value(json_array_get(a, 0)), *k1 = json_string_value(json_array_get(a, 1));
    size_t n = json_array_size(a);
    *kinds = 0;
    if (json_is_array(a) && n == 1 && k0 && !strcmp(k0, "classic")) *kinds = TL_BEACON_CLASSIC;
    else if (json_is_array(a) && n == 1 && k0 && !strcmp(k0, "pq")) *kinds = TL_BEACON_PQ;
    else if (json_is_array(a) && n == 2 && k0 && k1 && !strcmp(k0, "classic") && !strcmp(k1, "pq"))
        *kinds = TL_BEACON_CLASSIC | TL_BEACON_PQ;
    if (!*kinds) { tl_beacon_err(err, errlen, "\"%s\": want [\"classic\"], [\"pq\"] or [\"classic\",\"pq\"]", key); return -1; }
    return 0;
}
