/* SPDX-License-Identifier: ISC */
/* tests/test_beacon.c — the beacon's pure parts (src/lock/beacon/): the
 * sealing rule over many schedules and floors, including the recursive
 * case (no chain of sealed epochs opens a puzzle before its release at the
 * floor rate); the schedule arithmetic; the choice rule; the feed's canon,
 * signature, pin and strict parser (tampering, canon breaks, bounds);
 * archive pages, "about" observed, a version-1 feed; beacon.json round trip;
 * the keep-up arithmetic (tl_beacon_keepup_of). */
#include "test.h"
#include "rxlock/beacon.h"
#include "util/util.h"
#include <sodium.h>

static void sched_init(tl_beacon_sched *s, uint64_t every, uint32_t G, uint64_t S, uint64_t floor_mhps) {
    memset(s, 0, sizeof *s);
    s->work = TL_WORK_SHA3_256;
    s->groups = G;
    s->steps = S;
    s->every = every;
    s->opens_after = 100;
    s->start = 1700000000;
    s->ahead = 4;
    s->kinds = TL_BEACON_CLASSIC;
    s->floor_mhps = floor_mhps;
    strcpy(s->floor_row, "test floor");
}

static void t_arithmetic(void) {
    tl_beacon_sched s;
    sched_init(&s, 60, 4, 1000, 1000);            /* 4000 hashes at 1 H/s */
    CHECK(tl_beacon_sched_check(&s, NULL, 0) == TL_OK);
    CHECK(tl_beacon_release(&s, 0) == 1700000000);
    CHECK(tl_beacon_release(&s, 3) == 1700000180);
    CHECK(tl_beacon_encrypt_until(&s, 3) == 1700000180);
    CHECK(tl_beacon_floor_seconds(&s) == 4000);
    CHECK(tl_beacon_earliest_opening(&s, 1) == 1700000060 + 4000);
    CHECK(tl_beacon_about_seconds(&s) == 4000);   /* no rate: the floor */
    s.assumed_mhps = 500;                          /* 0.5 H/s + 1.5 s setup */
    s.setup_ms = 1500;
    CHECK(tl_beacon_about_seconds(&s) == 8002);
    CHECK(tl_beacon_seal_links(&s) == 66);
    s.floor_mhps = 3000;                           /* floor(4000/3): never a second early */
    CHECK(tl_beacon_floor_seconds(&s) == 1333);
    s.legacy_ceil = 1;                             /* feeds and beacon.json v1: ceil */
    CHECK(tl_beacon_floor_seconds(&s) == 1334);
    s.legacy_ceil = 0;
    int before = 0;
    CHECK(tl_beacon_epoch_at(&s, 1700000000 - 1, &before) == 0 && before == 1);
    CHECK(tl_beacon_epoch_at(&s, 1700000119, &before) == 1 && before == 0);
    s.every = 0;
    CHECK(tl_beacon_sched_check(&s, NULL, 0) == TL_EINVAL);
    s.every = 60;
    strcpy(s.floor_row, "bad \"row\"");
    CHECK(tl_beacon_sched_check(&s, NULL, 0) == TL_EINVAL);
}

/* The sealing rule, by brute force, over many schedules and floors; and
 * the recursive case: the operator releases epochs 0 .. r and then nothing;
 * every later epoch becomes available only through its chain of sealed
 * epochs, each solved at the floor rate; none before its release. */
static void t_seal_rule(void) {
    uint64_t st = 0x5ea1;
    for (int trial = 0; trial < 3000; trial++) {
        tl_beacon_sched s;
        uint64_t every = 1 + test_rng(&st) % 5000;
        uint64_t total = 1 + test_rng(&st) % 200000;
        uint64_t fl = 1 + test_rng(&st) % 20000;
        sched_init(&s, every, 1, total, fl);
        CHECK(tl_beacon_sched_check(&s, NULL, 0) == TL_OK);
        int64_t F = (int64_t)tl_beacon_floor_seconds(&s);
        enum { N = 120 };
        int64_t avail[N];
        int64_t r = (int64_t)(test_rng(&st) % 5);   /* released by the operator: 0 .. r */
        for (uint64_t E = 0; E < N; E++) {
            uint64_t j = 0, best = UINT64_MAX;
            for (uint64_t q = 0; q < E; q++)
                if (tl_beacon_earliest_opening(&s, q) >= tl_beacon_release(&s, E)) { best = q; break; }
            int has = tl_beacon_seal(&s, E, &j);
            CHECK(has == (best != UINT64_MAX));
            if (has) {
                CHECK(j == best && j < E);
                CHECK(tl_beacon_earliest_opening(&s, j) >= tl_beacon_release(&s, E));
                /* exactly, not only in whole seconds: release(j) + G*S/f >= release(E) */
                CHECK((unsigned __int128)total * 1000u >= (unsigned __int128)((E - j) * every) * fl);
            }
            if ((int64_t)E <= r) avail[E] = tl_beacon_release(&s, E);
            else if (has && avail[j] != INT64_MAX) avail[E] = avail[j] + F;
            else avail[E] = INT64_MAX;
            if (avail[E] != INT64_MAX) CHECK(avail[E] >= tl_beacon_release(&s, E));
        }
        CHECK(tl_beacon_operator_only(&s, N) == (F >= (int64_t)every ? 1u : (uint64_t)N));
    }
}

static tl_beacon_feed *sample_feed(uint8_t sk[64], unsigned kinds) {
    uint8_t pk[32], x[32];
    crypto_sign_keypair(pk, sk);
    tl_beacon_feed *f = tl_beacon_feed_new(5);
    sched_init(&f->beacon, 60, 2, 3000, 1000);     /* F = 6000 s: 100 links */
    f->beacon.kinds = kinds;
    memcpy(f->beacon.signer, pk, 32);
    f->updated = 1700000100;
    for (size_t k = 0; k < 5; k++) {
        tl_beacon_epoch *e = &f->epochs[k];
        e->index = 10 + k;
        e->nkeys = kinds == 3 ? 2 : 1;
        for (unsigned q = 0; q < e->nkeys; q++) {
            tl_beacon_key *y = &e->keys[q];
            y->kind = e->nkeys == 2 ? (q ? TL_BEACON_PQ : TL_BEACON_CLASSIC) : (int)kinds;
            randombytes_buf(x, 32);
            if (y->kind == TL_BEACON_CLASSIC) {
                uint8_t p[32];
                age_public_key(x, p);
                age_recipient_encode(p, y->recipient);
            } else {
                static uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES];
                age_pq_public_key(x, rcp);
                age_pq_recipient_encode(rcp, y->recipient);
            }
            randombytes_buf(y->puzzle_sha256, 32);
            if (k < 2) tl_beacon_path(&f->beacon, "puzzles", e->index, y->kind, ".json", y->puzzle_path);
            if (k < 1) tl_beacon_path(&f->beacon, "identities", e->index, y->kind, ".txt", y->identity);
            uint64_t j;
            if (tl_beacon_seal(&f->beacon, e->index, &j)) {
                y->has_sealed = 1;
                y->sealed_by = j;
                y->sealed_to = kinds & TL_BEACON_PQ ? TL_BEACON_PQ : TL_BEACON_CLASSIC;
                tl_beacon_path(&f->beacon, "sealed", e->index, y->kind, ".age", y->sealed_path);
                randombytes_buf(y->sealed_sha256, 32);
            }
        }
    }
    tl_beacon_feed_derive(f);
    return f;
}

static void t_feed_roundtrip(void) {
    for (unsigned kinds = 1; kinds <= 3; kinds++) {
        uint8_t sk[64];
        tl_beacon_feed *f = sample_feed(sk, kinds), *g = NULL;
        CHECK(f->epochs[0].state == TL_BEACON_SOLVED && f->epochs[1].state == TL_BEACON_RELEASED &&
              f->epochs[2].state == TL_BEACON_SCHEDULED);
        /* epoch 12 is sealed by 0 (not listed, released before 'updated'):
         * available at release(0), opens after two solves */
        int64_t A = (int64_t)tl_beacon_about_seconds(&f->beacon);
        CHECK(f->epochs[2].keys[0].has_sealed_opening &&
              f->epochs[2].keys[0].sealed_opening == tl_beacon_release(&f->beacon, 0) + 2 * A);
        char *text = NULL;
        size_t len = 0;
        char err[256];
        CHECK(tl_beacon_feed_write(f, sk, &text, &len) == TL_OK);
        CHECK(text && len == strlen(text) && text[len - 1] == '\n');
        CHECK(tl_beacon_feed_parse(text, len, NULL, &g, err, sizeof err) == TL_OK);
        if (g) {
            CHECK(g->n == 5 && g->updated == f->updated && g->epochs[3].index == 13);
            CHECK(!strcmp(g->epochs[4].keys[0].recipient, f->epochs[4].keys[0].recipient));
            CHECK(g->epochs[1].keys[0].sealed_opening == f->epochs[1].keys[0].sealed_opening);
            size_t idx = 99;
            /* the checked rule at the feed's floor (client row 0): the
             * earliest scheduled epoch releasing after now and updated
             * with its opening >= t (trust.c; the corpus covers the rest) */
            tl_beacon_floor fl;
            tl_beacon_floor_of(&g->beacon, 0, &fl);
            CHECK(fl.seconds == 6000);
            g->updated = g->epochs[1].release;
            int kd = g->epochs[0].keys[0].kind;
            CHECK(tl_beacon_choose_checked(g, &fl, g->epochs[3].earliest_opening - 5, g->epochs[1].release, kd, &idx, NULL) == 0 && idx == 3);
            CHECK(tl_beacon_choose_checked(g, &fl, 0, g->epochs[2].release, kd, &idx, NULL) == 0 && idx == 3);
            CHECK(tl_beacon_choose_checked(g, &fl, 0, g->epochs[0].release - 10, kd, &idx, NULL) == 0 && idx == 2);
            CHECK(tl_beacon_choose_checked(g, &fl, g->epochs[4].earliest_opening + 1, g->epochs[1].release, kd, &idx, NULL) == TL_EINVAL);
        }
        tl_beacon_feed_free(g);
        g = NULL;
        /* the pin */
        uint8_t pin[32];
        memcpy(pin, f->beacon.signer, 32);
        CHECK(tl_beacon_feed_parse(text, len, pin, &g, err, sizeof err) == TL_OK);
        tl_beacon_feed_free(g);
        g = NULL;
        pin[0] ^= 1;
        CHECK(tl_beacon_feed_parse(text, len, pin, &g, err, sizeof err) == TL_EPIN && !g);
        /* every single-byte change of a digit in the body is refused */
        size_t changed = 0, refused = 0;
        for (size_t i = 0; i < len; i += 7) {
            char c = text[i];
            if (c < '0' || c > '9') continue;
            text[i] = c == '9' ? '8' : (char)(c + 1);
            changed++;
            if (tl_beacon_feed_parse(text, len, NULL, &g, err, sizeof err) != TL_OK) refused++;
            tl_beacon_feed_free(g);
            g = NULL;
            text[i] = c;
        }
        CHECK(changed > 50 && refused == changed);
        free(text);
        tl_beacon_feed_free(f);
    }
}

static int parse_rc(const char *s) {
    tl_beacon_feed *g = NULL;
    char err[256];
    int rc = tl_beacon_feed_parse(s, strlen(s), NULL, &g, err, sizeof err);
    tl_beacon_feed_free(g);
    return rc;
}

/* Substitute the first occurrence of a by b in text (a fresh string). */
static char *subst(const char *text, const char *a, const char *b) {
    const char *p = strstr(text, a);
    if (!p) return NULL;
    size_t n = strlen(text) - strlen(a) + strlen(b);
    char *o = malloc(n + 1);
    size_t k = (size_t)(p - text);
    memcpy(o, text, k);
    strcpy(o + k, b);
    strcat(o, p + strlen(a));
    return o;
}

static void t_feed_strict(void) {
    uint8_t sk[64];
    tl_beacon_feed *f = sample_feed(sk, TL_BEACON_CLASSIC);
    char *text = NULL;
    size_t len = 0;
    CHECK(tl_beacon_feed_write(f, sk, &text, &len) == TL_OK);
    static const char *const cases[][2] = {
        { "\"updated\":1700000100", "\"updated\":1700000100.0" },   /* a fraction */
        { "\"updated\":1700000100", "\"updated\":17e8" },           /* an exponent */
        { "\"updated\":1700000100", "\"updated\":9007199254740993" }, /* >= 2^53 */
        { "\"row\":\"test floor\"", "\"row\":\"test\\u0020floor\"" }, /* an escape */
        { "\"row\":\"test floor\"", "\"row\":\"test\\tfloor\"" },
        { "\"updated\":", "\"extra\":1,\"updated\":" },             /* unknown key */
        { ",\"updated\":1700000100", "" },                          /* missing key */
        { "\"rxlock_beacon_feed\":2", "\"rxlock_beacon_feed\":3" }, /* version */
        { "\"per_page\":1024", "\"per_page\":512" },              /* archive layout */
        { "\"from\":\"floor\"", "\"from\":\"observed\"" },          /* about without samples */
        { "\"state\":\"solved\"", "\"state\":\"released\"" },       /* state vs keys */
        { "\"index\":10", "\"index\":9" },                          /* times vs schedule */
        { "\"by\":0", "\"by\":1" },                                 /* sealing rule */
        { "\"path\":\"puzzles/10.json\"", "\"path\":\"../10.json\"" },
        { "\"path\":\"puzzles/10.json\"", "\"path\":\"puzzles/../x\"" },
        { "\"updated\":1700000100", "\"updated\":1700000100,\"updated\":1700000100" }, /* duplicate */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *t = subst(text, cases[k][0], cases[k][1]);
        if (!t) fprintf(stderr, "case %zu: no '%s'\n", k, cases[k][0]);
        CHECK(t != NULL);
        if (!t) continue;
        int rc = parse_rc(t);
        if (rc == TL_OK) fprintf(stderr, "case %zu accepted\n", k);
        CHECK(rc != TL_OK);
        free(t);
    }
    CHECK(parse_rc(text) == TL_OK);
    /* whitespace outside the body's canon is fine: the signature covers canon */
    char *t = subst(text, "{\"feed\":", "{ \"feed\" :\n ");
    CHECK(t && parse_rc(t) == TL_OK);
    free(t);
    CHECK(parse_rc("[]") == TL_EFORMAT && parse_rc("") == TL_EFORMAT);
    free(text);
    tl_beacon_feed_free(f);
}

/* Archive pages: a page round-trips, is tied to its number, the feed's
 * signer and schedule; "about" observed from identity publication times
 * (never below the floor); a version 1 feed (tests/vectors) still opens. */
static void t_archive(void) {
    uint8_t sk[64], sk2[64];
    tl_beacon_feed *f = sample_feed(sk, TL_BEACON_CLASSIC), *g = sample_feed(sk2, TL_BEACON_CLASSIC), *p = NULL;
    char *text = NULL, path[TL_BEACON_PATH_MAX], err[256];
    size_t len = 0;
    CHECK(tl_beacon_archive_path(3, path) == TL_OK && !strcmp(path, "archive/3.json"));
    CHECK(tl_beacon_archive_write(f, 0, sk, &text, &len) == TL_OK);
    CHECK(tl_beacon_archive_parse(text, len, f, 0, &p, err, sizeof err) == TL_OK);
    CHECK(p && p->n == 5 && p->epochs[4].index == 14 && p->page == 0 && !strcmp(p->epochs[0].keys[0].identity, "identities/10.txt"));
    tl_beacon_feed_free(p);
    p = NULL;
    CHECK(tl_beacon_archive_parse(text, len, f, 1, &p, err, sizeof err) == TL_EFORMAT);   /* another page */
    CHECK(tl_beacon_archive_parse(text, len, g, 0, &p, err, sizeof err) != TL_OK);        /* another beacon */
    char *t = subst(text, "\"index\":12", "\"index\":13");
    CHECK(t && tl_beacon_archive_parse(t, strlen(t), f, 0, &p, err, sizeof err) != TL_OK);
    free(t);
    free(text);
    CHECK(tl_beacon_archive_write(f, 1, sk, &text, &len) == TL_EINVAL);   /* epochs outside page 1 */
    /* about observed: identities published 7000 and 9000 s after release */
    f->epochs[0].keys[0].identity_at = f->epochs[0].release + 7000;
    tl_beacon_path(&f->beacon, "identities", 11, TL_BEACON_CLASSIC, ".txt", f->epochs[1].keys[0].identity);
    f->epochs[1].keys[0].identity_at = f->epochs[1].release + 9000;
    CHECK(tl_beacon_feed_observe_about(f) == 1 && f->about_seconds == 9000 && f->about_samples == 2);
    tl_beacon_feed_derive(f);
    CHECK(f->epochs[3].about_opening == f->epochs[3].release + 9000);
    CHECK(tl_beacon_feed_write(f, sk, &text, &len) == TL_OK);
    CHECK(tl_beacon_feed_parse(text, len, NULL, &p, err, sizeof err) == TL_OK);
    CHECK(p && p->about_from == TL_BEACON_ABOUT_OBSERVED && p->epochs[3].about_opening == f->epochs[3].about_opening &&
          p->epochs[1].keys[0].identity_at == f->epochs[1].release + 9000);
    tl_beacon_feed_free(p);
    p = NULL;
    free(text);
    f->epochs[1].keys[0].identity_at = f->epochs[1].release + 10;   /* faster than the floor: the floor */
    f->epochs[0].keys[0].identity_at = f->epochs[0].release + 10;
    CHECK(tl_beacon_feed_observe_about(f) == 1 && f->about_seconds == tl_beacon_floor_seconds(&f->beacon));
    /* a version 1 feed written before archive pages */
    uint8_t *v1 = NULL;
    size_t v1len = 0;
    CHECK(util_read_file("tests/vectors/beacon-feed-v1.json", 1u << 20, &v1, &v1len) == 0);
    CHECK(v1 && tl_beacon_feed_parse((const char *)v1, v1len, NULL, &p, err, sizeof err) == TL_OK);
    CHECK(p && p->version == 1 && p->archive_pages == 0 && p->n > 0);
    free(v1);
    tl_beacon_feed_free(p);
    tl_beacon_feed_free(f);
    tl_beacon_feed_free(g);
}

static void t_config(void) {
    tl_beacon_config c, d;
    memset(&c, 0, sizeof c);
    sched_init(&c.s, 3600, 8, 123456, 8070000000ull);
    c.s.kinds = TL_BEACON_CLASSIC | TL_BEACON_PQ;
    c.mode = TL_MODE_DEFAULT;
    strcpy(c.rate_source, "flag");
    c.workers = 4;
    c.verify = TL_VERIFY_SAMPLE;
    c.verify_permille = 250;
    char *text = NULL;
    size_t len = 0;
    char err[256];
    CHECK(tl_beacon_config_write(&c, &text, &len) == TL_OK);
    CHECK(tl_beacon_config_parse(text, len, &d, err, sizeof err) == TL_OK);
    CHECK(d.s.every == 3600 && d.s.steps == 123456 && d.s.kinds == 3 && d.verify == TL_VERIFY_SAMPLE &&
          d.verify_permille == 250 && d.mode == TL_MODE_DEFAULT && d.workers == 4 && !strcmp(d.rate_source, "flag"));
    char *bad = subst(text, "\"every\": 3600", "\"every\": 0");
    CHECK(bad && tl_beacon_config_parse(bad, strlen(bad), &d, err, sizeof err) != TL_OK);
    free(bad);
    /* version 2 rounds F down; a version-1 beacon.json keeps rounding up
     * (its sealed files were made with those seals) and is written back so */
    CHECK(strstr(text, "\"rxlock_beacon\": 2") != NULL && d.s.legacy_ceil == 0);
    char *v1 = subst(text, "\"rxlock_beacon\": 2", "\"rxlock_beacon\": 1");
    CHECK(v1 && tl_beacon_config_parse(v1, strlen(v1), &d, err, sizeof err) == TL_OK && d.s.legacy_ceil == 1);
    char *t1 = NULL;
    CHECK(tl_beacon_config_write(&d, &t1, &len) == TL_OK && strstr(t1, "\"rxlock_beacon\": 1") != NULL);
    free(t1);
    free(v1);
    free(text);
}

/* Keeping up: a period's work over a rate, the margin, what would keep
 * up, and the rate any sealed schedule needs (the floor x kinds x verify). */
static void t_keepup(void) {
    tl_beacon_sched s;
    tl_beacon_keepup k;
    sched_init(&s, 60, 8, 1000000, 4000000000ull);   /* 8 M hashes; floor 4 MH/s: 2 s, unsealed */
    CHECK(tl_beacon_keepup_of(&s, 1e6, 0.25, &k) == TL_OK);
    CHECK(k.hashes == 10e6 && k.seconds == 10 && k.keeps_up && k.margin == 6);
    CHECK(k.min_every == 10 && !k.sealed && k.max_opens_after == 600);
    CHECK(k.seal_rate == 5e6 && !k.sealed_possible);
    s.kinds = TL_BEACON_CLASSIC | TL_BEACON_PQ;           /* twice the work */
    CHECK(tl_beacon_keepup_of(&s, 1e5, 0, &k) == TL_OK);
    CHECK(k.seconds == 160 && !k.keeps_up && k.min_every == 160 && k.need_rate == 16e6 / 60);
    s.kinds = TL_BEACON_CLASSIC;
    s.steps = 30000000;                                   /* 240 M at 4 MH/s = 60 s: sealed, k = 1 */
    CHECK(tl_beacon_keepup_of(&s, 4.5e6, 0.1, &k) == TL_OK);
    CHECK(k.sealed && k.sealed_possible && k.keeps_up);
    CHECK(tl_beacon_keepup_of(&s, 4.3e6, 0.1, &k) == TL_OK);
    CHECK(k.sealed && !k.sealed_possible && !k.keeps_up);
    CHECK(tl_beacon_keepup_of(&s, 0, 0, &k) == TL_EINVAL);
    CHECK(tl_beacon_keepup_of(&s, 1, 1.5, &k) == TL_EINVAL);
    CHECK(tl_beacon_keepup_of(NULL, 1, 0, &k) == TL_EINVAL);
}

/* A feed of before (F rounded up) still parses, read with its rounding;
 * a feed now rounds down.  The client's own floor rounds down either way. */
static void t_legacy_rounding(void) {
    uint8_t sk[64];
    tl_beacon_feed *f = sample_feed(sk, 1), *g = NULL;
    f->beacon.steps = 3001;                        /* 6002 / 1 H/s... */
    f->beacon.floor_mhps = 3000;                   /* ...at 3 H/s: 2000.67 s */
    for (int legacy = 0; legacy < 2; legacy++) {
        f->beacon.legacy_ceil = legacy;
        for (size_t k = 0; k < f->n; k++) {
            uint64_t j;
            for (unsigned q = 0; q < f->epochs[k].nkeys; q++) {
                tl_beacon_key *y = &f->epochs[k].keys[q];
                y->has_sealed = tl_beacon_seal(&f->beacon, f->epochs[k].index, &j);
                y->sealed_by = j;
            }
        }
        tl_beacon_feed_derive(f);
        char *text = NULL, err[256];
        size_t len = 0;
        CHECK(tl_beacon_feed_write(f, sk, &text, &len) == TL_OK);
        CHECK(strstr(text, legacy ? "\"floor_seconds\":2001" : "\"floor_seconds\":2000") != NULL);
        CHECK(tl_beacon_feed_parse(text, len, NULL, &g, err, sizeof err) == TL_OK);
        CHECK(g && g->beacon.legacy_ceil == legacy && g->epochs[0].earliest_opening == f->epochs[0].earliest_opening);
        tl_beacon_floor fl;
        if (g) tl_beacon_floor_of(&g->beacon, 0, &fl);
        CHECK(g && fl.seconds == 2000);
        tl_beacon_feed_free(g);
        g = NULL;
        free(text);
    }
    tl_beacon_feed_free(f);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    RUN(t_arithmetic);
    RUN(t_seal_rule);
    RUN(t_feed_roundtrip);
    RUN(t_feed_strict);
    RUN(t_config);
    RUN(t_legacy_rounding);
    RUN(t_archive);
    RUN(t_keepup);
    return test_summary();
}
