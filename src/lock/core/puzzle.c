/* SPDX-License-Identifier: ISC */
/* src/lock/core/puzzle.c — puzzle JSON: canonical serialisation, strict bounded
 * parsing (exact field set, versions, hex lengths, ranges), loading from a
 * file, structure + signature + pin verification. */
#include "core_internal.h"
#include "util/util.h"
#include "rxlock/age.h"
#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const fields[] = {
    "rxlock_puzzle", "work", "groups", "steps", "puzzle_id", "key", "seed",
    "epoch_public_key", "assumed_rate_mhps", "rate_source", "target_seconds",
    "created", "test_only", "signer", "header_digest", "wraps", "signature",
    /* (version 2 only) */
    "rate_mode", "setup_ms",
    "verification",          /* version >= 2: resumable, verified generation */
    "epoch_pq_recipient"     /* version 2, post-quantum epochs only */
};
#define NFIELDS (sizeof fields / sizeof fields[0])
#define NFIELDS_V1 (NFIELDS - 4)   /* version 1: without the version-2 keys */

/* ---- rate_mode / setup_ms (puzzle version 2) ---------------- */
static const char *const rate_modes[] = { "none", "light", "full" };

static int add_v2_issue19(json_t *o, const tl_puzzle *pz);
static int parse_v2_issue19(json_t *o, tl_puzzle *pz, char *err, size_t errlen);


static int fmt_time(int64_t t, char out[32]) {
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm)) return -1;
    return strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm) == 20 ? 0 : -1;
}

static int parse_time(const char *s, int64_t *t) {
    int Y, M, D, h, m, sec;
    char z;
    if (strlen(s) != 20 || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%c", &Y, &M, &D, &h, &m, &sec, &z) != 7 || z != 'Z')
        return -1;
    if (Y < 1970 || Y > 9999 || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 59 ||
        h < 0 || m < 0 || sec < 0)
        return -1;
    struct tm tm = {0};
    tm.tm_year = Y - 1900; tm.tm_mon = M - 1; tm.tm_mday = D;
    tm.tm_hour = h; tm.tm_min = m; tm.tm_sec = sec;
    time_t tt = timegm(&tm);
    char back[32];
    if (fmt_time((int64_t)tt, back) != 0 || strcmp(back, s) != 0) return -1;
    *t = (int64_t)tt;
    return 0;
}

/* X of small order (a point of the 8-torsion): X25519 with any
 * scalar (clamped: a multiple of 8) gives zero, so no x has X25519(x, 9) = X
 * and the puzzle is unsolvable by construction. */
static int tl_low_order_point(const uint8_t X[32]) {
    uint8_t n[32], q[32];
    memset(n, 0x5a, sizeof n);
    int low = crypto_scalarmult(q, n, X) != 0;
    sodium_memzero(q, sizeof q);
    return low;
}

static int add(json_t *o, const char *k, json_t *v) {
    return v && json_object_set_new(o, k, v) == 0 ? 0 : -1;
}
static json_t *hexval(const uint8_t *p, size_t n) {
    char buf[2 * 64 + 1];
    util_hex_encode(buf, p, n);
    return json_string(buf);
}

static int get_uint(json_t *o, const char *k, uint64_t lo, uint64_t hi, uint64_t *out,
                    char *err, size_t errlen);

/* ---- the verification record (version >= 2) ------------------ */
static const char *const verify_names[] = { NULL, "none", "sample", "full" };

static json_t *verification_json(const tl_puzzle *pz) {
    if (pz->verify_method < TL_VERIFY_NONE || pz->verify_method > TL_VERIFY_FULL) return NULL;
    return json_pack("{s:s, s:I, s:I}", "method", verify_names[pz->verify_method],
                     "segments", (json_int_t)pz->verify_segments, "checked", (json_int_t)pz->verify_checked);
}

static int parse_verification(json_t *o, tl_puzzle *pz, char *err, size_t errlen) {
    json_t *v = json_object_get(o, "verification");
    if (pz->version < 2) {
        if (v) { tl_set_err(err, errlen, "field \"verification\" is not allowed in a version-1 puzzle"); return TL_EFORMAT; }
        return TL_OK;
    }
    json_t *m = json_object_get(v, "method");
    const char *ms = json_is_string(m) ? json_string_value(m) : "";
    uint64_t seg = 0, chk = 0;
    int k = TL_VERIFY_NONE;
    while (k <= TL_VERIFY_FULL && strcmp(ms, verify_names[k])) k++;
    if (!json_is_object(v) || json_object_size(v) != 3 || k > TL_VERIFY_FULL ||
        get_uint(v, "segments", 0, TL_MAX_SEGMENTS, &seg, NULL, 0) ||
        get_uint(v, "checked", 0, seg, &chk, NULL, 0) ||
        (k == TL_VERIFY_NONE && (seg != 0 || chk != 0)) || (k == TL_VERIFY_SAMPLE && (chk == 0 || chk == seg)) || (k == TL_VERIFY_FULL && chk != seg)) {
        tl_set_err(err, errlen, "field \"verification\": want {\"method\": none|sample|full, \"segments\": N, "
                   "\"checked\": M}: none 0, 0; sample 0 < M < N; full M = N");
        return TL_EFORMAT;
    }
    pz->verify_method = k;
    pz->verify_segments = (uint32_t)seg;
    pz->verify_checked = (uint32_t)chk;
    return TL_OK;
}

int tl_puzzle_to_json(const tl_puzzle *pz, char **out, size_t *outlen) {
    if (!pz || !out || !pz->wraps || !tl_work_name(pz->work)) return TL_EINVAL;
    uint8_t H[32];
    char when[32];
    if (tl_header_digest(pz, H) != 0 || fmt_time(pz->created, when) != 0) return TL_EINVAL;
    json_t *o = json_object(), *w = json_array();
    int bad = !o || !w;
    bad |= add(o, "rxlock_puzzle", json_integer(pz->version));
    bad |= add(o, "work", json_string(tl_work_name(pz->work)));
    bad |= add(o, "groups", json_integer(pz->groups));
    bad |= add(o, "steps", json_integer((json_int_t)pz->steps));
    bad |= add(o, "puzzle_id", hexval(pz->id, 16));
    bad |= add(o, "key", hexval(pz->key, 32));
    bad |= add(o, "seed", hexval(pz->seed, 32));
    bad |= add(o, "epoch_public_key", hexval(pz->epoch_pk, 32));
    if (pz->pq_epoch) {                   /* the age1pq1 commitment */
        static char rcp[TL_AGE_PQ_RECIPIENT_MAX];
        bad |= pz->version < 2 || age_pq_recipient_encode(pz->pq_recipient, rcp) != 0;
        if (!bad) bad |= add(o, "epoch_pq_recipient", json_string(rcp));
    }
    bad |= add(o, "assumed_rate_mhps", json_integer((json_int_t)pz->rate_milli_hps));
    bad |= add(o, "rate_source", json_string(pz->rate_source));
    bad |= add(o, "target_seconds", json_integer((json_int_t)pz->target_seconds));
    bad |= add(o, "created", json_string(when));
    bad |= add(o, "test_only", json_boolean(pz->test_only));
    if (pz->version >= 2) bad |= add_v2_issue19(o, pz);
    if (pz->version >= 2) bad |= add(o, "verification", verification_json(pz));
    if (pz->has_signer) bad |= add(o, "signer", hexval(pz->signer, 32));
    bad |= add(o, "header_digest", hexval(H, 32));
    for (uint32_t g = 0; !bad && g < pz->groups; g++) {
        json_t *e = json_object();
        bad |= !e;
        bad |= add(e, "nonce", hexval(pz->wraps[g].nonce, 24));
        bad |= add(e, "ct", hexval(pz->wraps[g].ct, 48));
        if (!bad) bad |= json_array_append_new(w, e) != 0; else json_decref(e);
    }
    bad |= add(o, "wraps", w); w = NULL;
    if (pz->has_signature) bad |= add(o, "signature", hexval(pz->signature, 64));
    char *s = bad ? NULL : json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(o);
    if (w) json_decref(w);
    if (!s) return TL_ENOMEM;
    size_t n = strlen(s);
    char *r = malloc(n + 2);
    if (!r) { free(s); return TL_ENOMEM; }
    memcpy(r, s, n);
    r[n] = '\n'; r[n + 1] = 0;
    free(s);
    if (n + 1 > TL_MAX_PUZZLE_BYTES) { free(r); return TL_ETOOBIG; }
    *out = r;
    if (outlen) *outlen = n + 1;
    return TL_OK;
}

static int get_hex(json_t *o, const char *k, uint8_t *out, size_t n, char *err, size_t errlen) {
    json_t *v = json_object_get(o, k);
    size_t got = 0;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    if (!s || strlen(s) != 2 * n || util_hex_decode(s, out, n, &got) != 0 || got != n) {
        tl_set_err(err, errlen, "field \"%s\": want %zu hex digits", k, 2 * n);
        return TL_EFORMAT;
    }
    return TL_OK;
}

static int get_uint(json_t *o, const char *k, uint64_t lo, uint64_t hi, uint64_t *out,
                    char *err, size_t errlen) {
    json_t *v = json_object_get(o, k);
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        (uint64_t)json_integer_value(v) < lo || (uint64_t)json_integer_value(v) > hi) {
        tl_set_err(err, errlen, "field \"%s\": want an integer in [%llu, %llu]", k,
                (unsigned long long)lo, (unsigned long long)hi);
        return TL_EFORMAT;
    }
    *out = (uint64_t)json_integer_value(v);
    return TL_OK;
}

static int parse_obj(json_t *o, tl_puzzle *pz, char *err, size_t errlen) {
    int rc;
    uint64_t u;
    if (!json_is_object(o)) { tl_set_err(err, errlen, "not a JSON object"); return TL_EFORMAT; }
    json_t *ver = json_object_get(o, "rxlock_puzzle");
    if (!ver) { tl_set_err(err, errlen, "not an rxlock puzzle (no \"rxlock_puzzle\" field)"); return TL_EFORMAT; }
    if (!json_is_integer(ver)) { tl_set_err(err, errlen, "field \"rxlock_puzzle\": want an integer version"); return TL_EFORMAT; }
    if (json_integer_value(ver) < TL_PUZZLE_VERSION_MIN || json_integer_value(ver) > TL_PUZZLE_VERSION) {
        tl_set_err(err, errlen, "unsupported puzzle version %lld (this rxlock reads versions %d to %d)",
                (long long)json_integer_value(ver), TL_PUZZLE_VERSION_MIN, TL_PUZZLE_VERSION);
        return TL_EVERSION;
    }
    pz->version = (int)json_integer_value(ver);
    const size_t nf = pz->version == 1 ? NFIELDS_V1 : NFIELDS;
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        size_t k = 0;
        while (k < NFIELDS && strcmp(key, fields[k]) != 0) k++;
        if (k == NFIELDS) { tl_set_err(err, errlen, "unknown field \"%.40s\"", key); return TL_EFORMAT; }
        if (k >= nf) {   /* a version-2 key in a version-1 puzzle */
            tl_set_err(err, errlen, "field \"%.40s\" needs puzzle version 2", key);
            return TL_EFORMAT;
        }
    }
    if (pz->version >= 2 && (rc = parse_v2_issue19(o, pz, err, errlen))) return rc;
    json_t *v = json_object_get(o, "work");
    if (!json_is_string(v) || tl_work_parse(json_string_value(v), &pz->work) != 0) {
        tl_set_err(err, errlen, "field \"work\": want randomx-v2, randomx-v1 or sha3-256");
        return TL_EFORMAT;
    }
    if ((rc = get_uint(o, "groups", 1, TL_MAX_GROUPS, &u, err, errlen))) return rc;
    pz->groups = (uint32_t)u;
    if ((rc = get_uint(o, "steps", 1, TL_MAX_STEPS, &pz->steps, err, errlen))) return rc;
    if (!tl_shape_valid(pz->work, pz->groups, pz->steps)) {
        tl_set_err(err, errlen, "groups x steps exceeds 2^48");
        return TL_EFORMAT;
    }
    if ((rc = get_hex(o, "puzzle_id", pz->id, 16, err, errlen)) ||
        (rc = get_hex(o, "key", pz->key, 32, err, errlen)) ||
        (rc = get_hex(o, "seed", pz->seed, 32, err, errlen)) ||
        (rc = get_hex(o, "epoch_public_key", pz->epoch_pk, 32, err, errlen)))
        return rc;
    if (sodium_is_zero(pz->epoch_pk, 32)) { tl_set_err(err, errlen, "field \"epoch_public_key\": all zero"); return TL_EFORMAT; }
    if (tl_low_order_point(pz->epoch_pk)) {
        tl_set_err(err, errlen, "field \"epoch_public_key\": a low-order point (no secret opens it: unsolvable)");
        return TL_EFORMAT;
    }
    /* ---- a post-quantum epoch (version 2 only) commits to an
     * age1pq1 recipient whose X25519 part is epoch_public_key. */
    v = json_object_get(o, "epoch_pq_recipient");
    if (v) {
        if (pz->version < 2) {
            tl_set_err(err, errlen, "field \"epoch_pq_recipient\" needs puzzle version 2");
            return TL_EFORMAT;
        }
        if (!json_is_string(v) || age_pq_recipient_decode(json_string_value(v), pz->pq_recipient) != 0) {
            tl_set_err(err, errlen, "field \"epoch_pq_recipient\": want an age post-quantum recipient (age1pq1...)");
            return TL_EFORMAT;
        }
        if (sodium_memcmp(pz->pq_recipient + TL_EPOCH_PQ_BYTES - 32, pz->epoch_pk, 32) != 0) {
            tl_set_err(err, errlen, "field \"epoch_pq_recipient\": its X25519 part is not epoch_public_key");
            return TL_EFORMAT;
        }
        pz->pq_epoch = 1;
    }
    if ((rc = get_uint(o, "assumed_rate_mhps", 0, TL_RATE_MAX, &pz->rate_milli_hps, err, errlen))) return rc;
    v = json_object_get(o, "rate_source");
    if (!json_is_string(v) || !tl_rate_source_valid(json_string_value(v))) {
        tl_set_err(err, errlen, "field \"rate_source\": want printable ASCII, at most %d chars", TL_RATE_SOURCE_MAX - 1);
        return TL_EFORMAT;
    }
    strcpy(pz->rate_source, json_string_value(v));
    if ((rc = get_uint(o, "target_seconds", 0, TL_RATE_MAX, &pz->target_seconds, err, errlen))) return rc;
    v = json_object_get(o, "created");
    if (!json_is_string(v) || parse_time(json_string_value(v), &pz->created) != 0) {
        tl_set_err(err, errlen, "field \"created\": want YYYY-MM-DDTHH:MM:SSZ");
        return TL_EFORMAT;
    }
    v = json_object_get(o, "test_only");
    if (!json_is_boolean(v)) { tl_set_err(err, errlen, "field \"test_only\": want true or false"); return TL_EFORMAT; }
    pz->test_only = json_is_true(v);
    if ((rc = parse_verification(o, pz, err, errlen))) return rc;
    if (json_object_get(o, "signer")) {
        if ((rc = get_hex(o, "signer", pz->signer, 32, err, errlen))) return rc;
        pz->has_signer = 1;
    }
    if (json_object_get(o, "signature")) {
        if ((rc = get_hex(o, "signature", pz->signature, 64, err, errlen))) return rc;
        pz->has_signature = 1;
    }
    if (pz->has_signature != pz->has_signer) {
        tl_set_err(err, errlen, "\"signer\" and \"signature\" must appear together");
        return TL_EFORMAT;
    }
    v = json_object_get(o, "wraps");
    if (!json_is_array(v) || json_array_size(v) != pz->groups) {
        tl_set_err(err, errlen, "field \"wraps\": want an array of %u entries", pz->groups);
        return TL_EFORMAT;
    }
    pz->wraps = calloc(pz->groups, sizeof *pz->wraps);
    if (!pz->wraps) return TL_ENOMEM;
    for (uint32_t g = 0; g < pz->groups; g++) {
        json_t *e = json_array_get(v, g);
        if (!json_is_object(e) || json_object_size(e) != 2) {
            tl_set_err(err, errlen, "wrap %u: want {\"nonce\", \"ct\"}", g + 1);
            return TL_EFORMAT;
        }
        if (get_hex(e, "nonce", pz->wraps[g].nonce, 24, NULL, 0) != 0 ||
            get_hex(e, "ct", pz->wraps[g].ct, 48, NULL, 0) != 0) {
            tl_set_err(err, errlen, "wrap %u: want nonce (48 hex) and ct (96 hex)", g + 1);
            return TL_EFORMAT;
        }
    }
    uint8_t want[32];
    if ((rc = get_hex(o, "header_digest", want, 32, err, errlen))) return rc;
    if ((rc = tl_header_digest(pz, pz->header_digest))) return rc;
    if (sodium_memcmp(want, pz->header_digest, 32) != 0) {
        tl_set_err(err, errlen, "header digest mismatch: the puzzle header was modified");
        return TL_EFORMAT;
    }
    return TL_OK;
}

/* ---- calibration and the floor ---------------------------------------------------------- */
static int add_v2_issue19(json_t *o, const tl_puzzle *pz) {
    if (pz->rate_mode < TL_RATE_MODE_NONE || pz->rate_mode > TL_RATE_MODE_FULL || pz->setup_ms > TL_MAX_SETUP_MS)
        return -1;
    return add(o, "rate_mode", json_string(rate_modes[pz->rate_mode])) |
           add(o, "setup_ms", json_integer((json_int_t)pz->setup_ms));
}

static int parse_v2_issue19(json_t *o, tl_puzzle *pz, char *err, size_t errlen) {
    const char *m = json_string_value(json_object_get(o, "rate_mode"));
    int k = 0;
    while (m && k < 3 && strcmp(m, rate_modes[k]) != 0) k++;
    if (!m || k == 3) { tl_set_err(err, errlen, "field \"rate_mode\": want none, light or full"); return TL_EFORMAT; }
    pz->rate_mode = k;
    return get_uint(o, "setup_ms", 0, TL_MAX_SETUP_MS, &pz->setup_ms, err, errlen);
}

int tl_puzzle_parse(const char *json, size_t len, tl_puzzle **out, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!json || !out) return TL_EINVAL;
    *out = NULL;
    if (len > TL_MAX_PUZZLE_BYTES) {
        tl_set_err(err, errlen, "puzzle larger than %u bytes", TL_MAX_PUZZLE_BYTES);
        return TL_ETOOBIG;
    }
    json_error_t je;
    json_t *o = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) {
        tl_set_err(err, errlen, "not valid JSON (line %d: %.80s)", je.line, je.text);
        return TL_EFORMAT;
    }
    tl_puzzle *pz = calloc(1, sizeof *pz);
    if (!pz) { json_decref(o); return TL_ENOMEM; }
    int rc = parse_obj(o, pz, err, errlen);
    json_decref(o);
    if (rc) { tl_puzzle_free(pz); return rc; }
    *out = pz;
    return TL_OK;
}

int tl_puzzle_load(const char *path, tl_puzzle **out, char *err, size_t errlen) {
    uint8_t *data = NULL;
    size_t len = 0;
    if (err && errlen) err[0] = 0;
    if (!path || !out) return TL_EINVAL;
    if (util_read_file(path, TL_MAX_PUZZLE_BYTES, &data, &len) != 0) {
        if (errno == EFBIG) {
            tl_set_err(err, errlen, "%s: puzzle larger than %u bytes", path, TL_MAX_PUZZLE_BYTES);
            return TL_ETOOBIG;
        }
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return TL_EIO;
    }
    char e2[200];
    int rc = tl_puzzle_parse((const char *)data, len, out, e2, sizeof e2);
    free(data);
    if (rc) tl_set_err(err, errlen, "%s: %s", path, e2);
    return rc;
}

void tl_puzzle_free(tl_puzzle *pz) {
    if (!pz) return;
    if (pz->wraps) {
        sodium_memzero(pz->wraps, pz->groups * sizeof *pz->wraps);
        free(pz->wraps);
    }
    sodium_memzero(pz, sizeof *pz);
    free(pz);
}

int tl_puzzle_verify(const tl_puzzle *pz, const uint8_t *pin) {
    if (!pz || !pz->wraps || !tl_shape_valid(pz->work, pz->groups, pz->steps)) return TL_EFORMAT;
    uint8_t H[32];
    if (tl_header_digest(pz, H) != 0 || sodium_memcmp(H, pz->header_digest, 32) != 0) return TL_EFORMAT;
    if (pin) {
        if (!pz->has_signer) return TL_EPIN;
        if (sodium_memcmp(pin, pz->signer, 32) != 0) return TL_EPIN;
    }
    if (pz->has_signer) {
        uint8_t buf[TL_SIGNED_MAX];
        size_t len;
        if (!pz->has_signature) return TL_ESIG;
        if (tl_signed_message(pz, buf, sizeof buf, &len) != 0) return TL_EFORMAT;
        if (crypto_sign_verify_detached(pz->signature, buf, len, pz->signer) != 0) return TL_ESIG;
    }
    return TL_OK;
}

int tl_puzzle_emit(const tl_puzzle *pz, char **json, size_t *json_len, tl_puzzle **parsed) {
    if (parsed) *parsed = NULL;
    int rc = tl_puzzle_to_json(pz, json, json_len);
    if (rc) return rc;
    tl_puzzle *back = NULL;   /* the text must parse back to the same header */
    rc = tl_puzzle_parse(*json, strlen(*json), &back, NULL, 0);
    if (rc == TL_OK && sodium_memcmp(back->header_digest, pz->header_digest, 32) != 0) rc = TL_EFORMAT;
    if (rc == TL_OK && parsed) { *parsed = back; back = NULL; }
    tl_puzzle_free(back);
    if (rc) { free(*json); *json = NULL; }
    return rc;
}
