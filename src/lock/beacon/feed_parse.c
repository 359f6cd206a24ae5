/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/feed_parse.c — the strict, bounded reader of feed.json:
 * canon rules, exact key sets, bounds, the schedule's own arithmetic and
 * sealing rule, path shapes, then the Ed25519 signature and the pin
 * (docs/FORMAT.md §feed.json).  Nothing of a refused feed is returned.
 * Also the readers an archive page shares with it (archive.c): the
 * schedule, "about", an epoch, the epochs array, and the parse's start
 * and end. */
#include "beacon_internal.h"
#include "util/util.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define GETI(o, k, lo, hi, v) (tl_beacon_get_int(o, k, lo, hi, &(v), err, errlen) == 0)

int tl_beacon_parse_sched(const json_t *b, tl_beacon_sched *s, char *err, size_t errlen) {
    static const char *const keys[] = { "signer", "work", "groups", "steps", "every", "opens_after", "start",
                                        "ahead", "kinds", "floor", "assumed_rate_mhps", "setup_ms",
                                        "floor_seconds", "about_seconds", "seal_links" };
    static const char *const fkeys[] = { "rate_mhps", "row" };
    int64_t g, st, ev, oa, sa, ah, fr, ar, su, fs, as, sl;
    char work[16];
    if (!tl_beacon_keys_exact(b, keys, 15, "beacon", err, errlen)) return -1;
    const json_t *fl = json_object_get(b, "floor");
    if (!tl_beacon_keys_exact(fl, fkeys, 2, "beacon.floor", err, errlen)) return -1;
    if (tl_beacon_get_hex(b, "signer", s->signer, 32, err, errlen) ||
        tl_beacon_get_str(b, "work", work, sizeof work, err, errlen)) return -1;
    if (tl_work_parse(work, &s->work)) { tl_beacon_err(err, errlen, "beacon.work: unknown"); return -1; }
    if (!GETI(b, "groups", 1, TL_MAX_GROUPS, g) || !GETI(b, "steps", 1, (int64_t)TL_MAX_STEPS, st) ||
        !GETI(b, "every", 1, (int64_t)TL_BEACON_MAX_PERIOD, ev) ||
        !GETI(b, "opens_after", 0, (int64_t)TL_BEACON_MAX_PERIOD, oa) ||
        !GETI(b, "start", 0, TL_BEACON_MAX_TIME - 1, sa) || !GETI(b, "ahead", 1, TL_BEACON_MAX_AHEAD, ah) ||
        !GETI(fl, "rate_mhps", 1, (1ll << 53) - 1, fr) || !GETI(b, "assumed_rate_mhps", 0, (1ll << 53) - 1, ar) ||
        !GETI(b, "setup_ms", 0, (1ll << 40) - 1, su) || !GETI(b, "floor_seconds", 0, (1ll << 53) - 1, fs) ||
        !GETI(b, "about_seconds", 0, (1ll << 53) - 1, as) || !GETI(b, "seal_links", 0, (1ll << 53) - 1, sl))
        return -1;
    if (tl_beacon_get_kinds(b, "kinds", &s->kinds, err, errlen) ||
        tl_beacon_get_str(fl, "row", s->floor_row, sizeof s->floor_row, err, errlen)) return -1;
    s->groups = (uint32_t)g; s->steps = (uint64_t)st; s->every = (uint64_t)ev; s->opens_after = (uint64_t)oa;
    s->start = sa; s->ahead = (uint32_t)ah; s->floor_mhps = (uint64_t)fr; s->assumed_mhps = (uint64_t)ar;
    s->setup_ms = (uint64_t)su;
    if (tl_beacon_sched_check(s, err, errlen) != TL_OK) return -1;
    s->legacy_ceil = 0;   /* F rounded down; a feed of before rounded up: read as it was written */
    if ((uint64_t)fs != tl_beacon_floor_seconds(s)) s->legacy_ceil = 1;
    if ((uint64_t)fs != tl_beacon_floor_seconds(s) || (uint64_t)as != tl_beacon_about_seconds(s) ||
        (uint64_t)sl != tl_beacon_seal_links(s)) {
        tl_beacon_err(err, errlen, "beacon: floor_seconds / about_seconds / seal_links disagree with the schedule");
        return -1;
    }
    return 0;
}

/* "dir/name": dir one of the three, name [0-9A-Za-z.-]+ without "..". */
static int path_ok(const char *p, const char *dir) {
    size_t d = strlen(dir);
    if (strncmp(p, dir, d) || p[d] != '/' || !p[d + 1] || strstr(p, "..")) return 0;
    for (const char *q = p + d + 1; *q; q++)
        if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '.' || *q == '-'))
            return 0;
    return 1;
}

static int get_path(const json_t *o, const char *key, const char *dir, char out[TL_BEACON_PATH_MAX], int nullable,
                    char *err, size_t errlen) {
    json_t *v = json_object_get(o, key);
    out[0] = 0;
    if (nullable && json_is_null(v)) return 0;
    if (tl_beacon_get_str(o, key, out, TL_BEACON_PATH_MAX, err, errlen)) return -1;
    if (!path_ok(out, dir)) { tl_beacon_err(err, errlen, "\"%s\": want %s/NAME", key, dir); return -1; }
    return 0;
}

static int kind_of(const char *s) {
    return !strcmp(s, "classic") ? TL_BEACON_CLASSIC : !strcmp(s, "pq") ? TL_BEACON_PQ : 0;
}

static int parse_key(const json_t *o, const tl_beacon_sched *s, uint64_t E, int want_kind, int version,
                     tl_beacon_key *y, char *err, size_t errlen) {
    static const char *const keys[] = { "kind", "recipient", "puzzle", "sealed", "identity", "identity_at" };
    static const char *const pkeys[] = { "path", "sha256" };
    static const char *const skeys[] = { "by", "to", "path", "sha256", "opening" };
    char kind[16];
    if (!tl_beacon_keys_exact(o, keys, version >= 2 ? 6 : 5, "key", err, errlen) ||
        tl_beacon_get_str(o, "kind", kind, sizeof kind, err, errlen)) return -1;
    y->kind = kind_of(kind);
    if (y->kind != want_kind) { tl_beacon_err(err, errlen, "epoch %llu: keys not one per kind in order", (unsigned long long)E); return -1; }
    if (tl_beacon_get_str(o, "recipient", y->recipient, sizeof y->recipient, err, errlen)) return -1;
    uint8_t pk[32];
    uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES];
    if (y->kind == TL_BEACON_CLASSIC ? age_recipient_decode(y->recipient, pk) != 0
                                     : age_pq_recipient_decode(y->recipient, rcp) != 0) {
        tl_beacon_err(err, errlen, "epoch %llu: not a valid %s age recipient", (unsigned long long)E, kind);
        return -1;
    }
    const json_t *pz = json_object_get(o, "puzzle"), *se = json_object_get(o, "sealed");
    if (!tl_beacon_keys_exact(pz, pkeys, 2, "puzzle", err, errlen) ||
        get_path(pz, "path", "puzzles", y->puzzle_path, 1, err, errlen) ||
        tl_beacon_get_hex(pz, "sha256", y->puzzle_sha256, 32, err, errlen) ||
        get_path(o, "identity", "identities", y->identity, 1, err, errlen)) return -1;
    if (version >= 2 && !json_is_null(json_object_get(o, "identity_at"))) {
        int64_t at;
        if (!GETI(o, "identity_at", 1, TL_BEACON_MAX_TIME, at)) return -1;
        if (!y->identity[0]) { tl_beacon_err(err, errlen, "epoch %llu: identity_at without an identity", (unsigned long long)E); return -1; }
        y->identity_at = at;
    }
    uint64_t j;
    int sealable = tl_beacon_seal(s, E, &j);
    if (json_is_null(se)) return 0;   /* operator-only (also: its sealing epoch was never generated) */
    int64_t by, op;
    char to[16];
    if (!tl_beacon_keys_exact(se, skeys, 5, "sealed", err, errlen) || !GETI(se, "by", 0, (1ll << 53) - 1, by) ||
        tl_beacon_get_str(se, "to", to, sizeof to, err, errlen) ||
        get_path(se, "path", "sealed", y->sealed_path, 0, err, errlen) ||
        tl_beacon_get_hex(se, "sha256", y->sealed_sha256, 32, err, errlen)) return -1;
    if (!sealable || (uint64_t)by != j) {
        tl_beacon_err(err, errlen, "epoch %llu: sealed.by breaks the sealing rule", (unsigned long long)E);
        return -1;
    }
    y->sealed_to = kind_of(to);
    if (!y->sealed_to || !(s->kinds & (unsigned)y->sealed_to) ||
        (y->sealed_to == TL_BEACON_CLASSIC && (s->kinds & TL_BEACON_PQ))) {
        tl_beacon_err(err, errlen, "epoch %llu: sealed.to: want the sealing epoch's post-quantum key where it has one",
                      (unsigned long long)E);
        return -1;
    }
    y->has_sealed = 1;
    y->sealed_by = j;
    if (json_is_null(json_object_get(se, "opening"))) return 0;
    if (!GETI(se, "opening", 0, TL_BEACON_MAX_TIME, op)) return -1;
    y->has_sealed_opening = 1;
    y->sealed_opening = op;
    return 0;
}

/* The largest epoch index whose release time a feed can hold. */
static int64_t max_index(const tl_beacon_sched *s) {
    return (int64_t)((uint64_t)(TL_BEACON_MAX_TIME - s->start) / s->every);
}

int tl_beacon_parse_epoch(const json_t *o, const tl_beacon_sched *s, uint64_t A, int version, tl_beacon_epoch *e,
                          char *err, size_t errlen) {
    static const char *const keys[] = { "index", "state", "release", "encrypt_until", "earliest_opening",
                                        "about_opening", "keys" };
    int64_t idx, r, eu, eo, ao;
    char state[16];
    if (!tl_beacon_keys_exact(o, keys, 7, "epoch", err, errlen) || !GETI(o, "index", 0, version >= 2 ? max_index(s) : 4000000, idx) ||
        tl_beacon_get_str(o, "state", state, sizeof state, err, errlen) ||
        !GETI(o, "release", 0, TL_BEACON_MAX_TIME, r) || !GETI(o, "encrypt_until", 0, TL_BEACON_MAX_TIME, eu) ||
        !GETI(o, "earliest_opening", 0, TL_BEACON_MAX_TIME, eo) || !GETI(o, "about_opening", 0, TL_BEACON_MAX_TIME, ao))
        return -1;
    e->index = (uint64_t)idx;
    if (r != tl_beacon_release(s, e->index) || eu != tl_beacon_encrypt_until(s, e->index) ||
        eo != tl_beacon_earliest_opening(s, e->index) || ao != r + (int64_t)A) {
        tl_beacon_err(err, errlen, "epoch %lld: its times disagree with the schedule", (long long)idx);
        return -1;
    }
    e->release = r; e->encrypt_until = eu; e->earliest_opening = eo; e->about_opening = ao;
    e->state = !strcmp(state, "scheduled") ? TL_BEACON_SCHEDULED : !strcmp(state, "released") ? TL_BEACON_RELEASED
             : !strcmp(state, "solved") ? TL_BEACON_SOLVED : -1;
    if (e->state < 0) { tl_beacon_err(err, errlen, "epoch %lld: unknown state", (long long)idx); return -1; }
    const json_t *ks = json_object_get(o, "keys");
    unsigned want = s->kinds == (TL_BEACON_CLASSIC | TL_BEACON_PQ) ? 2 : 1;
    if (!json_is_array(ks) || json_array_size(ks) != want) {
        tl_beacon_err(err, errlen, "epoch %lld: want %u key%s", (long long)idx, want, want > 1 ? "s" : "");
        return -1;
    }
    e->nkeys = want;
    unsigned rel = 0, sol = 0;
    for (unsigned q = 0; q < want; q++) {
        int kind = want == 2 ? (q ? TL_BEACON_PQ : TL_BEACON_CLASSIC) : (int)s->kinds;
        if (parse_key(json_array_get(ks, q), s, e->index, kind, version, &e->keys[q], err, errlen)) return -1;
        rel += e->keys[q].puzzle_path[0] != 0;
        sol += e->keys[q].identity[0] != 0;
    }
    int st = sol == want ? TL_BEACON_SOLVED : rel == want ? TL_BEACON_RELEASED : TL_BEACON_SCHEDULED;
    if (st != e->state) { tl_beacon_err(err, errlen, "epoch %lld: state disagrees with its keys", (long long)idx); return -1; }
    return 0;
}

int tl_beacon_parse_about(const json_t *o, tl_beacon_feed *f, char *err, size_t errlen) {
    static const char *const keys[] = { "seconds", "from", "samples" };
    const tl_beacon_sched *s = &f->beacon;
    int64_t sec, n;
    char from[16];
    if (!tl_beacon_keys_exact(o, keys, 3, "about", err, errlen) ||
        !GETI(o, "seconds", 0, (int64_t)TL_BEACON_MAX_PERIOD, sec) || !GETI(o, "samples", 0, 16, n) ||
        tl_beacon_get_str(o, "from", from, sizeof from, err, errlen))
        return -1;
    if (!strcmp(from, "observed")) {
        if (s->assumed_mhps || n < 1 || (uint64_t)sec < tl_beacon_floor_seconds(s)) {
            tl_beacon_err(err, errlen, "about: \"observed\" needs no assumed rate, samples and at least the floor time");
            return -1;
        }
        f->about_seconds = (uint64_t)sec;
        f->about_from = TL_BEACON_ABOUT_OBSERVED;
        f->about_samples = (uint32_t)n;
        return 0;
    }
    int want = s->assumed_mhps ? TL_BEACON_ABOUT_RATE : TL_BEACON_ABOUT_FLOOR;
    if (strcmp(from, want == TL_BEACON_ABOUT_RATE ? "rate" : "floor") || n != 0 ||
        (uint64_t)sec != tl_beacon_about_seconds(s)) {
        tl_beacon_err(err, errlen, "about: disagrees with the schedule");
        return -1;
    }
    f->about_seconds = 0;
    f->about_from = want;
    return 0;
}

int tl_beacon_parse_epochs(const json_t *eps, tl_beacon_feed *f, const uint64_t *page, char *err, size_t errlen) {
    uint64_t A = tl_beacon_feed_about(f);
    for (size_t k = 0; k < f->n; k++) {
        if (tl_beacon_parse_epoch(json_array_get(eps, k), &f->beacon, A, f->version, &f->epochs[k], err, errlen))
            return -1;
        uint64_t E = f->epochs[k].index;
        if ((page && E / TL_BEACON_PAGE_EPOCHS != *page) || (k && E <= f->epochs[k - 1].index)) {
            tl_beacon_err(err, errlen, "epochs: indices not strictly increasing%s", page ? " within the page's range" : "");
            return -1;
        }
    }
    return 0;
}

json_t *tl_beacon_parse_load(const char *text, size_t len, const char *what, int *rc, char *err, size_t errlen) {
    *rc = TL_EFORMAT;
    if (len > TL_BEACON_MAX_FEED_BYTES) {
        tl_beacon_err(err, errlen, "%s larger than 8 MiB", what);
        *rc = TL_ETOOBIG;
        return NULL;
    }
    if (memchr(text, '\\', len)) {   /* no string of either ever needs an escape */
        tl_beacon_err(err, errlen, "%s holds a backslash: an escape, which canon never has", what);
        return NULL;
    }
    json_error_t je;
    json_t *top = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!top) tl_beacon_err(err, errlen, "not JSON: %s (line %d)", je.text, je.line);
    return top;
}

int tl_beacon_parse_end(int rc, tl_beacon_feed *f, tl_beacon_feed **out, char *canon, json_t *top) {
    if (rc == TL_OK) *out = f;
    else tl_beacon_feed_free(f);
    free(canon);
    json_decref(top);
    return rc;
}

int tl_beacon_feed_parse(const char *text, size_t len, const uint8_t *pin, tl_beacon_feed **out,
                         char *err, size_t errlen) {
    static const char *const top_keys[] = { "feed", "rxlock_beacon_feed", "signature" };
    static const char *const body_keys[] = { "beacon", "updated", "epochs", "about", "archive" };
    static const char *const arch_keys[] = { "pages", "per_page" };
    *out = NULL;
    int rc;
    json_t *top = tl_beacon_parse_load(text, len, "feed", &rc, err, errlen);
    if (!top) return rc;
    rc = TL_EFORMAT;
    tl_beacon_feed *f = NULL;
    char *canon = NULL;
    size_t clen = 0;
    int64_t ver, upd;
    uint8_t sig[64];
    if (!tl_beacon_keys_exact(top, top_keys, 3, "feed file", err, errlen)) goto out;
    if (!GETI(top, "rxlock_beacon_feed", 0, 1000000, ver)) goto out;
    if (ver != 1 && ver != TL_BEACON_FEED_VERSION) { tl_beacon_err(err, errlen, "unsupported feed version %lld", (long long)ver); rc = TL_EVERSION; goto out; }
    const json_t *body = json_object_get(top, "feed");
    if (tl_beacon_canon(body, &canon, &clen) != TL_OK) {
        tl_beacon_err(err, errlen, "feed body breaks the canonical rules (a fraction, a large number, an escape or a "
                      "non-printable character)");
        goto out;
    }
    if (!tl_beacon_keys_exact(body, body_keys, ver >= 2 ? 5 : 3, "feed", err, errlen) ||
        tl_beacon_get_hex(top, "signature", sig, 64, err, errlen) || !GETI(body, "updated", 0, TL_BEACON_MAX_TIME, upd))
        goto out;
    const json_t *eps = json_object_get(body, "epochs");
    unsigned cap = ver >= 2 ? TL_BEACON_MAX_EPOCHS : 1024u;
    if (!json_is_array(eps) || json_array_size(eps) > cap) {
        tl_beacon_err(err, errlen, "epochs: want an array of at most %u", cap);
        goto out;
    }
    if (!(f = tl_beacon_feed_new(json_array_size(eps)))) { rc = TL_ENOMEM; goto out; }
    f->updated = upd;
    f->version = (int)ver;
    if (tl_beacon_parse_sched(json_object_get(body, "beacon"), &f->beacon, err, errlen)) goto out;
    if (ver >= 2) {
        const json_t *ar = json_object_get(body, "archive");
        int64_t pages, per;
        if (tl_beacon_parse_about(json_object_get(body, "about"), f, err, errlen) ||
            !tl_beacon_keys_exact(ar, arch_keys, 2, "archive", err, errlen) ||
            !GETI(ar, "pages", 0, (1ll << 53) - 1, pages) || !GETI(ar, "per_page", 1, 1ll << 30, per))
            goto out;
        if (per != TL_BEACON_PAGE_EPOCHS) { tl_beacon_err(err, errlen, "archive.per_page: want %u", TL_BEACON_PAGE_EPOCHS); goto out; }
        f->archive_pages = (uint64_t)pages;
    }
    if (tl_beacon_parse_epochs(eps, f, NULL, err, errlen)) goto out;
    if (tl_beacon_verify_canon(canon, clen, f->beacon.signer, sig) != TL_OK) {
        tl_beacon_err(err, errlen, "the feed's signature does not verify (tampered or not signed by its signer)");
        rc = TL_ESIG;
        goto out;
    }
    if (pin && sodium_memcmp(pin, f->beacon.signer, 32) != 0) {
        char h1[65], h2[65];
        util_hex_encode(h1, f->beacon.signer, 32);
        util_hex_encode(h2, pin, 32);
        tl_beacon_err(err, errlen, "the feed is signed by another key than the pinned signer: %s, not %s", h1, h2);
        rc = TL_EPIN;
        goto out;
    }
    rc = TL_OK;
out:
    return tl_beacon_parse_end(rc, f, out, canon, top);
}
