/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/config.c — beacon.json, the schedule `beacon init`
 * writes and `beacon run` reads (docs/FORMAT.md §beacon.json): writer and
 * strict, bounded parser. */
#include "beacon_internal.h"
#include "util/util.h"
#include <stdlib.h>
#include <string.h>

#define GETI(o, k, lo, hi, v) (tl_beacon_get_int(o, k, lo, hi, &(v), err, errlen) == 0)

static const char *mode_name(int m) {
    return m == TL_MODE_DEFAULT ? "auto" : m == TL_MODE_LIGHT ? "light" : m == TL_MODE_FULL ? "full" : NULL;
}
static const char *const verify_names[] = { "sample", "none", "sample", "full" };

int tl_beacon_config_write(const tl_beacon_config *c, char **text, size_t *len) {
    const tl_beacon_sched *s = &c->s;
    *text = NULL;
    *len = 0;
    if (tl_beacon_sched_check(s, NULL, 0) != TL_OK || !mode_name(c->mode) || c->verify > TL_VERIFY_FULL)
        return TL_EINVAL;
    char signer[65];
    util_hex_encode(signer, s->signer, 32);
    json_t *kinds = json_array();
    if (!kinds) return TL_ENOMEM;
    if (s->kinds & TL_BEACON_CLASSIC) json_array_append_new(kinds, json_string("classic"));
    if (s->kinds & TL_BEACON_PQ) json_array_append_new(kinds, json_string("pq"));
    json_t *o = json_pack("{s:i, s:s, s:s, s:s, s:I, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:o, s:{s:I, s:s},"
                          " s:I, s:s, s:I, s:I}",
                          "rxlock_beacon", s->legacy_ceil ? 1 : TL_BEACON_CONFIG_VERSION, "signer", signer, "work", tl_work_name(s->work),
                          "mode", mode_name(c->mode), "groups", (json_int_t)s->groups,
                          "steps", (json_int_t)s->steps, "assumed_rate_mhps", (json_int_t)s->assumed_mhps,
                          "rate_source", c->rate_source, "setup_ms", (json_int_t)s->setup_ms,
                          "every", (json_int_t)s->every, "opens_after", (json_int_t)s->opens_after,
                          "start", (json_int_t)s->start, "ahead", (json_int_t)s->ahead, "kinds", kinds,
                          "floor", "rate_mhps", (json_int_t)s->floor_mhps, "row", s->floor_row,
                          "workers", (json_int_t)c->workers, "verify", verify_names[c->verify],
                          "verify_permille", (json_int_t)c->verify_permille,
                          "checkpoint_steps", (json_int_t)c->checkpoint_steps);
    if (!o) return TL_ENOMEM;
    char *t = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(o);
    if (!t) return TL_ENOMEM;
    size_t n = strlen(t);
    char *r = realloc(t, n + 2);
    if (!r) { free(t); return TL_ENOMEM; }
    r[n] = '\n';
    r[n + 1] = 0;
    *text = r;
    *len = n + 1;
    return TL_OK;
}

int tl_beacon_config_parse(const char *text, size_t len, tl_beacon_config *c, char *err, size_t errlen) {
    static const char *const keys[] = { "rxlock_beacon", "signer", "work", "mode", "groups", "steps",
                                        "assumed_rate_mhps", "rate_source", "setup_ms", "every", "opens_after",
                                        "start", "ahead", "kinds", "floor", "workers", "verify",
                                        "verify_permille", "checkpoint_steps" };
    static const char *const fkeys[] = { "rate_mhps", "row" };
    memset(c, 0, sizeof *c);
    if (len > 65536) { tl_beacon_err(err, errlen, "beacon.json larger than 64 KiB"); return TL_ETOOBIG; }
    json_error_t je;
    json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) { tl_beacon_err(err, errlen, "beacon.json: not JSON: %s (line %d)", je.text, je.line); return TL_EFORMAT; }
    int rc = TL_EFORMAT;
    tl_beacon_sched *s = &c->s;
    int64_t v, g, st, ar, su, ev, oa, sa, ah, fr, wk, vp, cs;
    char work[16], mode[8], verify[8];
    if (!tl_beacon_keys_exact(o, keys, 19, "beacon.json", err, errlen) || !GETI(o, "rxlock_beacon", 0, 1000000, v))
        goto out;
    if (v != 1 && v != TL_BEACON_CONFIG_VERSION) { tl_beacon_err(err, errlen, "beacon.json: unsupported version %lld", (long long)v); rc = TL_EVERSION; goto out; }
    const json_t *fl = json_object_get(o, "floor");
    if (!tl_beacon_keys_exact(fl, fkeys, 2, "beacon.json floor", err, errlen) ||
        tl_beacon_get_hex(o, "signer", s->signer, 32, err, errlen) ||
        tl_beacon_get_str(o, "work", work, sizeof work, err, errlen) ||
        tl_beacon_get_str(o, "mode", mode, sizeof mode, err, errlen) ||
        tl_beacon_get_str(o, "rate_source", c->rate_source, sizeof c->rate_source, err, errlen) ||
        tl_beacon_get_str(o, "verify", verify, sizeof verify, err, errlen) ||
        tl_beacon_get_str(fl, "row", s->floor_row, sizeof s->floor_row, err, errlen) ||
        tl_beacon_get_kinds(o, "kinds", &s->kinds, err, errlen))
        goto out;
    if (!GETI(o, "groups", 1, TL_MAX_GROUPS, g) || !GETI(o, "steps", 1, (int64_t)TL_MAX_STEPS, st) ||
        !GETI(o, "assumed_rate_mhps", 0, (1ll << 53) - 1, ar) || !GETI(o, "setup_ms", 0, (1ll << 40) - 1, su) ||
        !GETI(o, "every", 1, (int64_t)TL_BEACON_MAX_PERIOD, ev) ||
        !GETI(o, "opens_after", 0, (int64_t)TL_BEACON_MAX_PERIOD, oa) ||
        !GETI(o, "start", 0, TL_BEACON_MAX_TIME - 1, sa) || !GETI(o, "ahead", 1, TL_BEACON_MAX_AHEAD, ah) ||
        !GETI(fl, "rate_mhps", 1, (1ll << 53) - 1, fr) || !GETI(o, "workers", 0, 1024, wk) ||
        !GETI(o, "verify_permille", 0, 1000, vp) || !GETI(o, "checkpoint_steps", 0, (int64_t)TL_MAX_STEPS, cs))
        goto out;
    if (tl_work_parse(work, &s->work)) { tl_beacon_err(err, errlen, "beacon.json: unknown work"); goto out; }
    c->mode = !strcmp(mode, "auto") ? TL_MODE_DEFAULT : !strcmp(mode, "light") ? TL_MODE_LIGHT
            : !strcmp(mode, "full") ? TL_MODE_FULL : -1;
    c->verify = !strcmp(verify, "none") ? TL_VERIFY_NONE : !strcmp(verify, "sample") ? TL_VERIFY_SAMPLE
              : !strcmp(verify, "full") ? TL_VERIFY_FULL : TL_VERIFY_DEFAULT;
    if (c->mode == -1 || c->verify == TL_VERIFY_DEFAULT) { tl_beacon_err(err, errlen, "beacon.json: bad mode or verify"); goto out; }
    s->groups = (uint32_t)g; s->steps = (uint64_t)st; s->assumed_mhps = (uint64_t)ar; s->setup_ms = (uint64_t)su;
    s->every = (uint64_t)ev; s->opens_after = (uint64_t)oa; s->start = sa; s->ahead = (uint32_t)ah;
    s->floor_mhps = (uint64_t)fr; c->workers = (unsigned)wk;
    s->legacy_ceil = v == 1;   /* a beacon of before keeps its rounding, and so its seals */ c->verify_permille = (uint32_t)vp;
    c->checkpoint_steps = (uint64_t)cs;
    if (c->verify == TL_VERIFY_SAMPLE && c->verify_permille < 1) { tl_beacon_err(err, errlen, "beacon.json: verify_permille: want 1 .. 1000"); goto out; }
    if (tl_beacon_sched_check(s, err, errlen) != TL_OK) goto out;
    rc = TL_OK;
out:
    json_decref(o);
    return rc;
}
