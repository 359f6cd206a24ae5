/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/feed_build.c — a beacon feed in memory: allocation, the
 * public file names, the derived fields (schedule times, states, the
 * expected opening through the sealed path, "about" observed from the
 * identities' publication times) and the signed feed.json text (canon of
 * the body, Ed25519; docs/FORMAT.md §feed.json). */
#include "rxlock/beacon.h"
#include "beacon_internal.h"
#include "util/util.h"
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tl_beacon_feed *tl_beacon_feed_new(size_t n) {
    if (n > TL_BEACON_MAX_EPOCHS) return NULL;
    tl_beacon_feed *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    if (n && !(f->epochs = calloc(n, sizeof *f->epochs))) { free(f); return NULL; }
    f->n = n;
    return f;
}

void tl_beacon_feed_free(tl_beacon_feed *f) {
    if (!f) return;
    free(f->epochs);
    free(f);
}

const char *tl_beacon_kind_name(int kind) {
    return kind == TL_BEACON_PQ ? "pq" : kind == TL_BEACON_CLASSIC ? "classic" : NULL;
}

int tl_beacon_path(const tl_beacon_sched *s, const char *dir, uint64_t E, int kind, const char *ext,
                   char out[TL_BEACON_PATH_MAX]) {
    const char *kn = tl_beacon_kind_name(kind);
    if (!kn || !dir || !ext) return TL_EINVAL;
    int both = s->kinds == (TL_BEACON_CLASSIC | TL_BEACON_PQ);
    int n = both ? snprintf(out, TL_BEACON_PATH_MAX, "%s/%llu-%s%s", dir, (unsigned long long)E, kn, ext)
                 : snprintf(out, TL_BEACON_PATH_MAX, "%s/%llu%s", dir, (unsigned long long)E, ext);
    return n > 0 && n < TL_BEACON_PATH_MAX ? TL_OK : TL_EINVAL;
}

/* Epoch E's availability through sealed paths alone, should the operator
 * release nothing more: 1 and *at, or 0 when the chain ends at an
 * unreleased operator-only epoch.  hops counts the sealed links walked. */
static int available(const tl_beacon_feed *f, uint64_t E, int64_t *at) {
    const tl_beacon_sched *s = &f->beacon;
    int64_t A = (int64_t)tl_beacon_feed_about(f);
    uint64_t hops = 0, j;
    for (;;) {
        long k = tl_beacon_find(f, E);
        int released = k >= 0 ? f->epochs[k].state >= TL_BEACON_RELEASED
                              : tl_beacon_release(s, E) <= f->updated && (f->n == 0 || E < f->epochs[0].index);
        if (released) { *at = tl_beacon_release(s, E) + (int64_t)hops * A; return 1; }
        if (!tl_beacon_seal(s, E, &j)) return 0;
        E = j;
        hops++;   /* E becomes available one solve of j after j is */
    }
}

uint64_t tl_beacon_feed_about(const tl_beacon_feed *f) {
    return f->about_seconds ? f->about_seconds : tl_beacon_about_seconds(&f->beacon);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int tl_beacon_feed_observe_about(tl_beacon_feed *f) {
    const tl_beacon_sched *s = &f->beacon;
    int64_t v[16];
    unsigned n = 0;
    f->about_seconds = 0;
    f->about_from = s->assumed_mhps ? TL_BEACON_ABOUT_RATE : TL_BEACON_ABOUT_FLOOR;
    f->about_samples = 0;
    if (s->assumed_mhps) return 0;
    for (size_t k = f->n; k-- > 0 && n < 16;) {
        const tl_beacon_epoch *e = &f->epochs[k];
        int64_t last = 0;   /* the epoch's last identity */
        unsigned have = 0;
        for (unsigned q = 0; q < e->nkeys; q++)
            if (e->keys[q].identity[0] && e->keys[q].identity_at > 0) {
                have++;
                if (e->keys[q].identity_at > last) last = e->keys[q].identity_at;
            }
        int64_t r = tl_beacon_release(s, e->index);
        if (have == e->nkeys && have && last >= r) v[n++] = last - r;
    }
    if (!n) return 0;
    qsort(v, n, sizeof v[0], cmp_i64);
    uint64_t med = (uint64_t)v[n / 2], F = tl_beacon_floor_seconds(s);
    if (med < F) med = F;   /* never sooner than the floor says */
    if (med > TL_BEACON_MAX_PERIOD) med = TL_BEACON_MAX_PERIOD;
    f->about_seconds = med;
    f->about_from = TL_BEACON_ABOUT_OBSERVED;
    f->about_samples = n;
    return 1;
}

void tl_beacon_feed_derive(tl_beacon_feed *f) {
    const tl_beacon_sched *s = &f->beacon;
    int64_t A = (int64_t)tl_beacon_feed_about(f);
    for (size_t k = 0; k < f->n; k++) {
        tl_beacon_epoch *e = &f->epochs[k];
        e->release = tl_beacon_release(s, e->index);
        e->encrypt_until = tl_beacon_encrypt_until(s, e->index);
        e->earliest_opening = tl_beacon_earliest_opening(s, e->index);
        e->about_opening = e->release + A;
        unsigned rel = 0, sol = 0;
        for (unsigned q = 0; q < e->nkeys; q++) {
            rel += e->keys[q].puzzle_path[0] != 0;
            sol += e->keys[q].identity[0] != 0;
        }
        e->state = e->nkeys && sol == e->nkeys ? TL_BEACON_SOLVED
                 : e->nkeys && rel == e->nkeys ? TL_BEACON_RELEASED : TL_BEACON_SCHEDULED;
    }
    for (size_t k = 0; k < f->n; k++) {
        tl_beacon_epoch *e = &f->epochs[k];
        int64_t at = 0;
        uint64_t j;
        /* seal(E) = j available, then j solved: E's sealed file opens */
        int ok = tl_beacon_seal(s, e->index, &j) && available(f, j, &at);
        at += A;
        for (unsigned q = 0; q < e->nkeys; q++) {
            tl_beacon_key *y = &e->keys[q];
            y->has_sealed_opening = y->has_sealed && ok;
            y->sealed_opening = y->has_sealed_opening ? at + A : 0;   /* then E's own solve */
        }
    }
}

static json_t *str_or_null(const char *s) { return s[0] ? json_string(s) : json_null(); }

json_t *tl_beacon_sched_json(const tl_beacon_sched *s) {
    char signer[65];
    util_hex_encode(signer, s->signer, 32);
    json_t *kinds = json_array();
    if (!kinds) return NULL;
    if (s->kinds & TL_BEACON_CLASSIC) json_array_append_new(kinds, json_string("classic"));
    if (s->kinds & TL_BEACON_PQ) json_array_append_new(kinds, json_string("pq"));
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:{s:I, s:s}, s:I, s:I, s:I, s:I, s:I}",
                     "signer", signer, "work", tl_work_name(s->work), "groups", (json_int_t)s->groups,
                     "steps", (json_int_t)s->steps, "every", (json_int_t)s->every,
                     "opens_after", (json_int_t)s->opens_after, "start", (json_int_t)s->start,
                     "ahead", (json_int_t)s->ahead, "kinds", kinds,
                     "floor", "rate_mhps", (json_int_t)s->floor_mhps, "row", s->floor_row,
                     "assumed_rate_mhps", (json_int_t)s->assumed_mhps, "setup_ms", (json_int_t)s->setup_ms,
                     "floor_seconds", (json_int_t)tl_beacon_floor_seconds(s),
                     "about_seconds", (json_int_t)tl_beacon_about_seconds(s),
                     "seal_links", (json_int_t)tl_beacon_seal_links(s));
}

static json_t *key_json(const tl_beacon_key *y, int version) {
    char ph[65], sh[65];
    util_hex_encode(ph, y->puzzle_sha256, 32);
    json_t *sealed = json_null();
    if (y->has_sealed) {
        util_hex_encode(sh, y->sealed_sha256, 32);
        json_t *op = y->has_sealed_opening ? json_integer((json_int_t)y->sealed_opening) : json_null();
        sealed = json_pack("{s:I, s:s, s:s, s:s, s:o}", "by", (json_int_t)y->sealed_by,
                           "to", tl_beacon_kind_name(y->sealed_to), "path", y->sealed_path, "sha256", sh,
                           "opening", op);
    }
    if (!sealed || !tl_beacon_kind_name(y->kind)) { json_decref(sealed); return NULL; }
    json_t *k = json_pack("{s:s, s:s, s:{s:o, s:s}, s:o, s:o}", "kind", tl_beacon_kind_name(y->kind),
                          "recipient", y->recipient, "puzzle", "path", str_or_null(y->puzzle_path), "sha256", ph,
                          "sealed", sealed, "identity", str_or_null(y->identity));
    if (k && version >= 2 &&
        json_object_set_new(k, "identity_at", y->identity[0] && y->identity_at > 0
                                                  ? json_integer((json_int_t)y->identity_at) : json_null())) {
        json_decref(k);
        return NULL;
    }
    return k;
}

static const char *const state_names[] = { "scheduled", "released", "solved" };

json_t *tl_beacon_epoch_json(const tl_beacon_epoch *e, int version) {
    json_t *keys = json_array();
    if (!keys || e->state < 0 || e->state > 2) { json_decref(keys); return NULL; }
    for (unsigned q = 0; q < e->nkeys && q < 2; q++) {
        json_t *k = key_json(&e->keys[q], version);
        if (!k || json_array_append_new(keys, k)) { json_decref(keys); return NULL; }
    }
    return json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:o}", "index", (json_int_t)e->index,
                     "state", state_names[e->state], "release", (json_int_t)e->release,
                     "encrypt_until", (json_int_t)e->encrypt_until,
                     "earliest_opening", (json_int_t)e->earliest_opening,
                     "about_opening", (json_int_t)e->about_opening, "keys", keys);
}

static const char *const about_names[] = { "floor", "rate", "observed" };

json_t *tl_beacon_about_json(const tl_beacon_feed *f) {
    int from = f->about_seconds ? f->about_from : f->beacon.assumed_mhps ? TL_BEACON_ABOUT_RATE : TL_BEACON_ABOUT_FLOOR;
    if (from < 0 || from > 2) return NULL;
    return json_pack("{s:I, s:s, s:I}", "seconds", (json_int_t)tl_beacon_feed_about(f), "from", about_names[from],
                     "samples", (json_int_t)(from == TL_BEACON_ABOUT_OBSERVED ? f->about_samples : 0));
}

int tl_beacon_feed_write(const tl_beacon_feed *f, const uint8_t sk[64], char **text, size_t *len) {
    *text = NULL;
    *len = 0;
    if (!f || !sk || f->n > TL_BEACON_MAX_EPOCHS || memcmp(sk + 32, f->beacon.signer, 32) != 0) return TL_EINVAL;
    if (tl_beacon_sched_check(&f->beacon, NULL, 0) != TL_OK) return TL_EINVAL;
    json_t *epochs = json_array(), *body = NULL, *top = NULL;
    int rc = TL_ENOMEM;
    if (!epochs) return TL_ENOMEM;
    for (size_t k = 0; k < f->n; k++) {
        json_t *e = tl_beacon_epoch_json(&f->epochs[k], TL_BEACON_FEED_VERSION);
        if (!e || json_array_append_new(epochs, e)) { json_decref(epochs); return TL_EINVAL; }
    }
    body = json_pack("{s:o, s:I, s:o, s:o, s:{s:I, s:I}}", "beacon", tl_beacon_sched_json(&f->beacon),
                     "updated", (json_int_t)f->updated, "epochs", epochs, "about", tl_beacon_about_json(f),
                     "archive", "pages", (json_int_t)f->archive_pages, "per_page", (json_int_t)TL_BEACON_PAGE_EPOCHS);
    if (!body) return TL_ENOMEM;
    char *canon = NULL;
    size_t clen = 0;
    if ((rc = tl_beacon_canon(body, &canon, &clen)) != TL_OK) goto out;
    uint8_t sig[64];
    char sighex[129];
    rc = tl_beacon_sign_canon(canon, clen, sk, sig);
    free(canon);
    if (rc) goto out;
    util_hex_encode(sighex, sig, 64);
    top = json_pack("{s:O, s:i, s:s}", "feed", body, "rxlock_beacon_feed", TL_BEACON_FEED_VERSION,
                    "signature", sighex);
    char *t = top ? json_dumps(top, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    if (!t) { rc = TL_ENOMEM; goto out; }
    size_t tl = strlen(t);
    char *o = realloc(t, tl + 2);
    if (!o) { free(t); rc = TL_ENOMEM; goto out; }
    o[tl] = '\n';
    o[tl + 1] = 0;
    *text = o;
    *len = tl + 1;
    rc = TL_OK;
out:
    json_decref(top);
    json_decref(body);
    return rc;
}
