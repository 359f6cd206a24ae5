/* SPDX-License-Identifier: ISC */
/* src/lock/beacon/archive.c — a beacon's archive pages: the epochs that
 * left the feed's window, page K holding indices K*1024 .. K*1024+1023,
 * written once and never changed.  The same canonical form and signer as
 * the feed, under the domain "rxlock/beacon-archive/v1", with the feed's
 * schedule; the strict reader checks all of it against the feed that led
 * to the page (docs/FORMAT.md §Archive pages). */
#include "beacon_internal.h"
#include "util/util.h"
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DOMAIN "rxlock/beacon-archive/v1"
#define GETI(o, k, lo, hi, v) (tl_beacon_get_int(o, k, lo, hi, &(v), err, errlen) == 0)

int tl_beacon_archive_path(uint64_t K, char out[TL_BEACON_PATH_MAX]) {
    int n = snprintf(out, TL_BEACON_PATH_MAX, "archive/%llu.json", (unsigned long long)K);
    return n > 0 && n < TL_BEACON_PATH_MAX ? TL_OK : TL_EINVAL;
}

static int in_page(uint64_t E, uint64_t K) { return E / TL_BEACON_PAGE_EPOCHS == K; }

int tl_beacon_archive_write(const tl_beacon_feed *p, uint64_t K, const uint8_t sk[64], char **text, size_t *len) {
    *text = NULL;
    *len = 0;
    if (!p || !sk || p->n > TL_BEACON_PAGE_EPOCHS || memcmp(sk + 32, p->beacon.signer, 32) != 0 ||
        K >= (1ull << 53) || tl_beacon_sched_check(&p->beacon, NULL, 0) != TL_OK)
        return TL_EINVAL;
    json_t *epochs = json_array(), *body = NULL, *top = NULL;
    if (!epochs) return TL_ENOMEM;
    for (size_t k = 0; k < p->n; k++) {
        json_t *e = in_page(p->epochs[k].index, K) && (!k || p->epochs[k].index > p->epochs[k - 1].index)
                        ? tl_beacon_epoch_json(&p->epochs[k], TL_BEACON_FEED_VERSION) : NULL;
        if (!e || json_array_append_new(epochs, e)) { json_decref(epochs); return TL_EINVAL; }
    }
    body = json_pack("{s:o, s:I, s:o, s:o}", "beacon", tl_beacon_sched_json(&p->beacon), "page", (json_int_t)K,
                     "epochs", epochs, "about", tl_beacon_about_json(p));
    if (!body) return TL_ENOMEM;
    char *canon = NULL, sighex[129];
    size_t clen = 0;
    uint8_t sig[64];
    int rc = tl_beacon_canon(body, &canon, &clen);
    if (rc == TL_OK) rc = tl_beacon_sign_domain(DOMAIN, canon, clen, sk, sig);
    free(canon);
    if (rc == TL_OK) {
        util_hex_encode(sighex, sig, 64);
        top = json_pack("{s:O, s:i, s:s}", "page", body, "rxlock_beacon_archive", TL_BEACON_ARCHIVE_VERSION,
                        "signature", sighex);
        char *t = top ? json_dumps(top, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        size_t tl = t ? strlen(t) : 0;
        char *o = t ? realloc(t, tl + 2) : NULL;
        if (!o) { free(t); rc = TL_ENOMEM; }
        else {
            o[tl] = '\n';
            o[tl + 1] = 0;
            *text = o;
            *len = tl + 1;
        }
    }
    json_decref(top);
    json_decref(body);
    return rc;
}

static int same_sched(const tl_beacon_sched *a, const tl_beacon_sched *b) {
    return !memcmp(a->signer, b->signer, 32) && a->work == b->work && a->groups == b->groups && a->steps == b->steps &&
           a->every == b->every && a->opens_after == b->opens_after && a->start == b->start && a->ahead == b->ahead &&
           a->kinds == b->kinds && a->floor_mhps == b->floor_mhps && !strcmp(a->floor_row, b->floor_row) &&
           a->assumed_mhps == b->assumed_mhps && a->setup_ms == b->setup_ms;
}

int tl_beacon_archive_parse(const char *text, size_t len, const tl_beacon_feed *feed, uint64_t K,
                            tl_beacon_feed **out, char *err, size_t errlen) {
    static const char *const top_keys[] = { "page", "rxlock_beacon_archive", "signature" };
    static const char *const body_keys[] = { "beacon", "page", "epochs", "about" };
    *out = NULL;
    int rc;
    json_t *top = tl_beacon_parse_load(text, len, "archive page", &rc, err, errlen);
    if (!top) return rc;
    rc = TL_EFORMAT;
    tl_beacon_feed *f = NULL;
    char *canon = NULL;
    size_t clen = 0;
    int64_t ver, page;
    uint8_t sig[64];
    const json_t *body = json_object_get(top, "page"), *eps = json_object_get(body, "epochs");
    if (!tl_beacon_keys_exact(top, top_keys, 3, "archive page", err, errlen) ||
        !GETI(top, "rxlock_beacon_archive", 0, 1000000, ver))
        goto out;
    if (ver != TL_BEACON_ARCHIVE_VERSION) {
        tl_beacon_err(err, errlen, "unsupported archive page version %lld", (long long)ver);
        rc = TL_EVERSION;
        goto out;
    }
    if (tl_beacon_canon(body, &canon, &clen) != TL_OK) {
        tl_beacon_err(err, errlen, "archive page body breaks the canonical rules");
        goto out;
    }
    if (!tl_beacon_keys_exact(body, body_keys, 4, "archive page", err, errlen) ||
        tl_beacon_get_hex(top, "signature", sig, 64, err, errlen) || !GETI(body, "page", 0, (1ll << 53) - 1, page))
        goto out;
    if ((uint64_t)page != K) { tl_beacon_err(err, errlen, "archive page %lld where page %llu was asked for", (long long)page, (unsigned long long)K); goto out; }
    if (!json_is_array(eps) || json_array_size(eps) > TL_BEACON_PAGE_EPOCHS) {
        tl_beacon_err(err, errlen, "epochs: want an array of at most %u", TL_BEACON_PAGE_EPOCHS);
        goto out;
    }
    if (!(f = tl_beacon_feed_new(json_array_size(eps)))) { rc = TL_ENOMEM; goto out; }
    f->version = TL_BEACON_FEED_VERSION;
    f->page = K;
    if (tl_beacon_parse_sched(json_object_get(body, "beacon"), &f->beacon, err, errlen) ||
        tl_beacon_parse_about(json_object_get(body, "about"), f, err, errlen))
        goto out;
    if (!same_sched(&f->beacon, &feed->beacon)) {
        tl_beacon_err(err, errlen, "the archive page's schedule is not the feed's");
        goto out;
    }
    if (tl_beacon_parse_epochs(eps, f, &K, err, errlen)) goto out;
    if (tl_beacon_verify_domain(DOMAIN, canon, clen, feed->beacon.signer, sig) != TL_OK) {
        tl_beacon_err(err, errlen, "the archive page's signature does not verify with the feed's signer");
        rc = TL_ESIG;
        goto out;
    }
    rc = TL_OK;
out:
    return tl_beacon_parse_end(rc, f, out, canon, top);
}
