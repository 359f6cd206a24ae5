/* SPDX-License-Identifier: ISC */
/* tests/test_feed_corpus.c — the beacon feed conformance corpus
 * (tests/vectors/feed-corpus/, README.md there fixes its format): its
 * generator and its C runner.
 *   test_feed_corpus --write DIR   (re)build the corpus into DIR
 *   test_feed_corpus               run the committed corpus against the
 *                                  library's client checks, and check that
 *                                  the generator still writes it byte for byte
 * The generator states each case's expected answer from the rule as written
 * in docs/FORMAT.md §Client checks (its own small arithmetic below), never by
 * asking the library; the web page's runner reads the same files. */
#include "test.h"
#include "rxlock/age.h"
#include "rxlock/beacon.h"
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the corpus's world ----------------------------------------------------- */
#define START   1780000000ll
#define EVERY   600ll
#define AHEAD   6u
#define STEPS   74892812500ull          /* G = 1: 3600.48 s at the client floor  */
#define CLIENT  20800781250ull          /* the built-in sha3-256 row, mH/s (up)  */
#define FIRST   14u                     /* first listed epoch                    */
#define LAST    26u                     /* last listed epoch (FIRST + 12)        */
#define UPD     (START + 20 * EVERY + 30)   /* epoch 20 released 30 s ago         */
#define CFLOOR  ((int64_t)((unsigned __int128)STEPS * 1000u / CLIENT))   /* 3600 */

static uint8_t skA[64], pkA[32], skB[64], pkB[32];

static void keys(void) {
    uint8_t seed[32];
    crypto_generichash(seed, 32, (const uint8_t *)"rxlock feed-corpus TEST signer A", 32, NULL, 0);
    crypto_sign_seed_keypair(pkA, skA, seed);
    crypto_generichash(seed, 32, (const uint8_t *)"rxlock feed-corpus TEST signer B", 32, NULL, 0);
    crypto_sign_seed_keypair(pkB, skB, seed);
}

static void recipient_of(uint64_t E, unsigned salt, char out[TL_AGE_RECIPIENT_MAX]) {
    char m[64];
    uint8_t sk[32], pk[32];
    snprintf(m, sizeof m, "rxlock feed-corpus TEST epoch %llu/%u", (unsigned long long)E, salt);
    crypto_generichash(sk, 32, (const uint8_t *)m, strlen(m), NULL, 0);
    crypto_scalarmult_base(pk, sk);
    age_recipient_encode(pk, out);
}

/* The honest feed at time `upd`: epochs FIRST..last, released when their
 * release is at or before upd, solved when 3 periods older. */
typedef struct {
    int64_t start, upd;
    uint64_t floor_mhps, steps;
    unsigned last;
    int signer_b;
    int legacy;                   /* F rounded up, as feeds of before */
} world;

static world honest(void) { return (world){ START, UPD, CLIENT, STEPS, LAST, 0, 0 }; }

static tl_beacon_feed *build(const world *w) {
    tl_beacon_feed *f = tl_beacon_feed_new(w->last - FIRST + 1);
    tl_beacon_sched *s = &f->beacon;
    memcpy(s->signer, w->signer_b ? pkB : pkA, 32);
    s->work = TL_WORK_SHA3_256;
    s->groups = 1;
    s->steps = w->steps;
    s->every = EVERY;
    s->opens_after = 3600;
    s->start = w->start;
    s->ahead = AHEAD;
    s->kinds = TL_BEACON_CLASSIC;
    s->floor_mhps = w->floor_mhps;
    s->legacy_ceil = w->legacy;
    snprintf(s->floor_row, sizeof s->floor_row, "Keccak fast core (130 nm ASIC, 500 MHz)");
    f->updated = w->upd;
    for (size_t k = 0; k < f->n; k++) {
        tl_beacon_epoch *e = &f->epochs[k];
        uint64_t E = FIRST + k, j;
        e->index = E;
        e->nkeys = 1;
        tl_beacon_key *y = &e->keys[0];
        y->kind = TL_BEACON_CLASSIC;
        recipient_of(E, (unsigned)w->signer_b, y->recipient);
        crypto_generichash(y->puzzle_sha256, 32, (const uint8_t *)y->recipient, strlen(y->recipient), NULL, 0);
        int64_t rel = w->start + (int64_t)E * EVERY;
        if (rel <= w->upd) snprintf(y->puzzle_path, sizeof y->puzzle_path, "puzzles/%llu.json", (unsigned long long)E);
        if (rel + 3 * EVERY <= w->upd)
            snprintf(y->identity, sizeof y->identity, "identities/%llu.txt", (unsigned long long)E);
        if (tl_beacon_seal(s, E, &j) && j >= FIRST) {
            y->has_sealed = 1;
            y->sealed_by = j;
            y->sealed_to = TL_BEACON_CLASSIC;
            snprintf(y->sealed_path, sizeof y->sealed_path, "sealed/%llu.age", (unsigned long long)E);
            memset(y->sealed_sha256, 0x5e, 32);
        }
    }
    tl_beacon_feed_derive(f);
    return f;
}

static char *sign(const tl_beacon_feed *f, int signer_b) {
    char *t = NULL;
    size_t n;
    if (tl_beacon_feed_write(f, signer_b ? skB : skA, &t, &n) != TL_OK) {
        fprintf(stderr, "feed_write failed\n");
        exit(2);
    }
    return t;
}

/* ---- the cases ------------------------------------------------------------ */
typedef struct {
    const char *name, *lie;
    char *feed;                   /* signed text                          */
    const char *op;               /* "choose" / "note"                    */
    int64_t now, t;
    uint64_t client_mhps;
    const uint8_t *pin, *accept;
    json_t *previous, *note;
    /* expected */
    const char *reason, *field;   /* reason NULL: an epoch                */
    int64_t epoch, opening;
    int recomputed;
    const char *old_rule;         /* what the unchecked rule answered     */
} kase;

static json_t *hexj(const uint8_t *p) {
    char h[65];
    for (int i = 0; i < 32; i++) snprintf(h + 2 * i, 3, "%02x", p[i]);
    return json_string(h);
}

static json_t *prev_of(const uint8_t *signer, int64_t upd, int64_t steps, int64_t rel_max, int64_t sol_max) {
    json_t *o = json_object();
    json_object_set_new(o, "signer", hexj(signer));
    json_object_set_new(o, "updated", json_integer(upd));
    json_object_set_new(o, "work", json_string("sha3-256"));
    json_object_set_new(o, "groups", json_integer(1));
    json_object_set_new(o, "steps", json_integer(steps));
    json_object_set_new(o, "every", json_integer(EVERY));
    json_object_set_new(o, "start", json_integer(START));
    json_object_set_new(o, "released_max", json_integer(rel_max));
    json_object_set_new(o, "solved_max", json_integer(sol_max));
    return o;
}

/* the earliest scheduled epoch whose release >= max(now, upd) + margin and
 * whose opening at floor seconds F is >= t: the rule, written out again */
static int64_t rule(int64_t start, int64_t upd, int64_t now, int64_t t, int64_t F, unsigned last) {
    int64_t after = (now > upd ? now : upd) + TL_BEACON_CHOICE_MARGIN;
    for (unsigned E = FIRST; E <= last; E++) {
        int64_t rel = start + (int64_t)E * EVERY;
        if (rel <= upd || rel < after) continue;   /* released, or too soon */
        if (rel + F >= t) return E;
    }
    return -1;
}

static const char *old_choice(const tl_beacon_feed *f, int64_t t, int64_t now) {
    static char b[32];
    for (size_t k = 0; k < f->n; k++)
        if (f->epochs[k].earliest_opening >= t && now < f->epochs[k].encrypt_until) {
            static const char *st[] = { "scheduled", "released", "solved" };
            snprintf(b, sizeof b, "epoch %llu (%s)", (unsigned long long)f->epochs[k].index, st[f->epochs[k].state]);
            return b;
        }
    return "none";
}

static int ncases;
static kase cases[48];

static kase *add(const char *name, const char *lie, tl_beacon_feed *f, int signer_b, int64_t now, int64_t t) {
    kase *c = &cases[ncases++];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->lie = lie;
    c->feed = sign(f, signer_b);
    c->op = "choose";
    c->now = now;
    c->t = t;
    c->client_mhps = CLIENT;
    c->epoch = -1;
    c->old_rule = strdup(old_choice(f, t, now));
    tl_beacon_feed_free(f);
    return c;
}

static void expect_epoch(kase *c, int64_t start, int64_t upd, int64_t F, unsigned last, int recomputed) {
    c->epoch = rule(start, upd, c->now, c->t, F, last);
    if (c->epoch < 0) { c->reason = "no_epoch"; c->field = ""; return; }
    c->opening = start + c->epoch * EVERY + F;
    c->recomputed = recomputed;
}

static void refuse(kase *c, const char *reason, const char *field) { c->reason = reason; c->field = field; }

static void make_cases(void) {
    world w = honest();
    int64_t N = UPD + 10;
    kase *c;
    ncases = 0;

    c = add("honest", "none: an honest feed, the client's clock right", build(&w), 0, N, N + 3600 + 300);
    expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
    {
        world l = w;
        l.legacy = 1;
        c = add("honest-legacy-rounding", "none: a feed of before (floor_seconds rounded up, 3601 for 3600.48 s)",
                build(&l), 0, N, N + 3600 + 300);
        expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
        c = add("rounding-edge", "a feed of before whose rounded-up floor_seconds (3601) would make epoch 21 open "
                "0.52 s before the date asked (its release + 3601)", build(&l), 0, N, START + 21 * EVERY + 3601);
        expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
    }
    c = add("honest-soon", "none: the earliest date a scheduled epoch can hold", build(&w), 0, N, N + 60);
    expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
    c = add("honest-pinned", "none: pinned to its signer", build(&w), 0, N, N + 3900);
    c->pin = pkA;
    expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
    c = add("stale-feed", "none: a feed 10 minutes old (a cache)", build(&w), 0, UPD + 600, UPD + 660);
    expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
    c = add("clock-2m-behind", "the client clock 2 minutes behind (within the tolerance)", build(&w), 0, UPD - 120,
            UPD - 120 + 300);
    expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
    c = add("clock-50m-behind", "the client clock 50 minutes behind an honest feed", build(&w), 0, UPD - 3000,
            UPD - 3000 + 300);
    refuse(c, "clock_behind", "updated");
    c = add("clock-1h-behind", "the client clock an hour behind an honest pinned feed", build(&w), 0, UPD - 3600,
            UPD - 3600 + 300);
    c->pin = pkA;
    refuse(c, "clock_behind", "updated");
    {   /* the beacon's clock jumped a week ahead: it released a week of epochs */
        world j = w;
        j.upd = UPD + 7 * 86400;
        j.last = LAST;
        j.start = START;
        tl_beacon_feed *f = build(&j);
        c = add("week-jump", "the beacon's clock jumped a week ahead (every listed epoch released, updated a week "
                "ahead)", f, 0, N, N + 300);
        refuse(c, "clock_behind", "updated");
    }
    {
        world m = w;
        m.start = START + 365 * 86400;
        tl_beacon_feed *f = build(&m);   /* states of the real time: released a year early */
        for (size_t k = 0; k < f->n; k++) {
            uint64_t E = f->epochs[k].index;
            int64_t rel = START + (int64_t)E * EVERY;
            tl_beacon_key *y = &f->epochs[k].keys[0];
            if (rel <= UPD) snprintf(y->puzzle_path, sizeof y->puzzle_path, "puzzles/%llu.json", (unsigned long long)E);
            if (rel + 3 * EVERY <= UPD) snprintf(y->identity, sizeof y->identity, "identities/%llu.txt", (unsigned long long)E);
        }
        tl_beacon_feed_derive(f);
        c = add("moved-start-later", "start moved a year later, re-signed (solved epochs now release in a year)", f, 0,
                N, N + 300);
        refuse(c, "field", "epochs[0].state");
    }
    {
        world m = w;
        m.start = START - 365 * 86400;
        c = add("moved-start-earlier", "start moved a year earlier, re-signed (every epoch's release long past)",
                build(&m), 0, N, N + 300);
        refuse(c, "no_epoch", "");
    }
    {
        world m = w;
        m.floor_mhps = 1000;   /* "a very slow machine": 1 H/s */
        c = add("slower-floor-300d", "floor.rate_mhps = 1000 (1 H/s), re-signed; 300 days asked", build(&m), 0, N,
                N + 300 * 86400);
        refuse(c, "no_epoch", "");
        c = add("slower-floor-1h", "floor.rate_mhps = 1000 (1 H/s), re-signed; 65 minutes asked", build(&m), 0, N,
                N + 3900);
        expect_epoch(c, START, UPD, CFLOOR, LAST, 1);
    }
    {
        world m = w;
        m.floor_mhps = CLIENT * 10;   /* the operator's floor is faster: it is used */
        c = add("faster-floor", "none: the feed's floor is 10x this client's (an operator more careful than the "
                "client)", build(&m), 0, N, N + 400);
        expect_epoch(c, START, UPD, (int64_t)((unsigned __int128)STEPS * 1000u / (CLIENT * 10)), LAST, 0);
    }
    {
        world m = w;
        tl_beacon_feed *f = build(&m);
        f->beacon.steps = STEPS * 10;   /* the signed steps changed, the epoch times left */
        c = add("changed-steps-unsound", "steps x10, re-signed, the epochs' times not recomputed", f, 0, N, N + 300);
        refuse(c, "format", "");
        m.steps = STEPS * 10;
        c = add("changed-steps-after-seen", "steps x10, re-signed consistently; the client saw the old schedule",
                build(&m), 0, N, N + 300);
        c->previous = prev_of(pkA, UPD - 600, (int64_t)STEPS, 19, 16);
        refuse(c, "schedule_changed", "beacon.steps");
    }
    {
        world m = w;
        m.upd = UPD + 60;
        tl_beacon_feed *f = build(&m);
        f->epochs[20 - FIRST].keys[0].puzzle_path[0] = 0;   /* epoch 20: released -> scheduled */
        tl_beacon_feed_derive(f);
        c = add("state-regress-released", "epoch 20 back to scheduled after it was seen released, re-signed", f, 0,
                UPD + 70, UPD + 70 + 300);
        c->previous = prev_of(pkA, UPD, (int64_t)STEPS, 20, 17);
        refuse(c, "rollback", "epochs[6].state");
        f = build(&m);
        f->epochs[17 - FIRST].keys[0].identity[0] = 0;     /* epoch 17: solved -> released */
        tl_beacon_feed_derive(f);
        c = add("state-regress-solved", "epoch 17 back to released after it was seen solved, re-signed", f, 0,
                UPD + 70, UPD + 70 + 300);
        c->previous = prev_of(pkA, UPD, (int64_t)STEPS, 20, 17);
        refuse(c, "rollback", "epochs[3].state");
    }
    {
        world b = w;
        b.signer_b = 1;
        c = add("other-signer-pinned", "signed by another key; the client pinned the first", build(&b), 1, N, N + 300);
        c->pin = pkA;
        refuse(c, "signer_changed", "beacon.signer");
        c = add("other-signer-seen", "signed by another key; the client saw the first before (no pin)", build(&b), 1,
                N, N + 300);
        c->previous = prev_of(pkA, UPD - 600, (int64_t)STEPS, 19, 16);
        refuse(c, "signer_changed", "beacon.signer");
        c = add("other-signer-accepted", "none: a rotation the user named explicitly", build(&b), 1, N, N + 3900);
        c->previous = prev_of(pkA, UPD - 600, (int64_t)STEPS, 19, 16);
        c->accept = pkB;
        expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
        c = add("other-signer-accepted-older", "none: an accepted rotation starts its own history (its feed older "
                "than the last of the first signer)", build(&b), 1, N, N + 3900);
        c->previous = prev_of(pkA, UPD + 5, (int64_t)STEPS, 21, 18);
        c->accept = pkB;
        expect_epoch(c, START, UPD, CFLOOR, LAST, 0);
    }
    c = add("older-feed", "an older feed served after a newer one (a rollback)", build(&w), 0, UPD + 610, UPD + 910);
    c->previous = prev_of(pkA, UPD + 600, (int64_t)STEPS, 21, 18);
    refuse(c, "rollback", "updated");
    {
        tl_beacon_feed *f = build(&w);
        f->updated = 0;
        c = add("updated-zero", "updated = 0, re-signed", f, 0, N, N + 300);
        refuse(c, "field", "updated");
        f = build(&w);
        f->updated = UPD + 10ll * 365 * 86400;
        c = add("updated-far-future", "updated ten years ahead, re-signed", f, 0, N, N + 300);
        refuse(c, "field", "updated");
        f = build(&w);
        f->epochs[LAST - FIRST].keys[0].sealed_opening += 86400;
        c = add("sealed-opening-lie", "epoch 26's sealed.opening a day later than derived, re-signed", f, 0, N, N + 300);
        refuse(c, "field", "epochs[12].keys[0].sealed.opening");
    }
    {
        world m = w;
        m.last = LAST + 14;   /* epochs up to 40 listed: beyond `ahead` */
        c = add("ahead-lie", "epochs listed 20 periods ahead with ahead = 6, re-signed", build(&m), 0, N, N + 300);
        refuse(c, "field", "ahead");
    }
    {
        c = add("bad-signature", "one byte of the body changed after signing", build(&w), 0, N, N + 300);
        char *p = strstr(c->feed, "\"opens_after\":3600");
        p[15] = '9';
        refuse(c, "signature", "");
    }
    c = add("dead-beacon", "none: the beacon stopped 30 days ago (its last feed)", build(&w), 0, UPD + 30 * 86400,
            UPD + 30 * 86400 + 300);
    refuse(c, "no_epoch", "");
    c = add("beyond-horizon", "none: a date past the generated epochs", build(&w), 0, N, N + 30 * 86400);
    refuse(c, "no_epoch", "");

    /* decrypt --feed: the .beacon note against the feed */
    {
        char rcp[TL_AGE_RECIPIENT_MAX];
        recipient_of(21, 0, rcp);
        int64_t eo = START + 21 * EVERY + 3600;   /* the feed's signed earliest_opening (F rounded down) */
        json_t *note = json_pack("{s:o, s:I, s:s, s:s, s:I}", "signer", hexj(pkA), "epoch", (json_int_t)21,
                                 "kind", "classic", "recipient", rcp, "earliest_opening", (json_int_t)eo);
        c = add("note-honest", "none: the note and the feed agree", build(&w), 0, N, 0);
        c->op = "note"; c->note = json_deep_copy(note); c->epoch = 21;
        world b = w;
        b.signer_b = 1;
        c = add("note-other-signer", "the note's epoch looked up in another signer's feed", build(&b), 1, N, 0);
        c->op = "note"; c->note = json_deep_copy(note);
        refuse(c, "note_mismatch", "signer");
        tl_beacon_feed *f = build(&w);
        recipient_of(21, 7, f->epochs[21 - FIRST].keys[0].recipient);
        c = add("note-other-recipient", "epoch 21's recipient replaced, re-signed", f, 0, N, 0);
        c->op = "note"; c->note = json_deep_copy(note);
        refuse(c, "note_mismatch", "recipient");
        world m = w;
        m.floor_mhps = 1000;
        c = add("note-other-opening", "the floor changed under the note (1 H/s), re-signed", build(&m), 0, N, 0);
        c->op = "note"; c->note = json_deep_copy(note);
        refuse(c, "note_mismatch", "earliest_opening");
        json_decref(note);
    }
}

static json_t *case_json(const kase *c) {
    json_t *o = json_object(), *ex = json_object();
    json_object_set_new(o, "name", json_string(c->name));
    json_object_set_new(o, "lie", json_string(c->lie));
    json_object_set_new(o, "op", json_string(c->op));
    json_object_set_new(o, "feed", json_string("feed.json"));
    json_object_set_new(o, "now", json_integer(c->now));
    json_object_set_new(o, "open_after", json_integer(c->t));
    json_object_set_new(o, "kind", json_string("classic"));
    json_object_set_new(o, "client_floor_mhps", json_integer((json_int_t)c->client_mhps));
    json_object_set_new(o, "pin", c->pin ? hexj(c->pin) : json_null());
    json_object_set_new(o, "accept_signer", c->accept ? hexj(c->accept) : json_null());
    json_object_set_new(o, "previous", c->previous ? json_incref(c->previous) : json_null());
    json_object_set_new(o, "note", c->note ? json_incref(c->note) : json_null());
    if (c->reason) {
        json_object_set_new(ex, "result", json_string("refuse"));
        json_object_set_new(ex, "reason", json_string(c->reason));
        json_object_set_new(ex, "field", json_string(c->field));
    } else if (!strcmp(c->op, "note")) {
        json_object_set_new(ex, "result", json_string("ok"));
    } else {
        json_object_set_new(ex, "result", json_string("epoch"));
        json_object_set_new(ex, "epoch", json_integer(c->epoch));
        json_object_set_new(ex, "earliest_opening", json_integer(c->opening));
        json_object_set_new(ex, "recomputed", json_boolean(c->recomputed));
    }
    json_object_set_new(o, "expect", ex);
    json_object_set_new(o, "unchecked_rule_chose", json_string(!strcmp(c->op, "note") ? "n/a" : c->old_rule));
    return o;
}

static char *dumps(const json_t *o) {
    char *s = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    size_t n = strlen(s);
    s = realloc(s, n + 2);
    s[n] = '\n';
    s[n + 1] = 0;
    return s;
}

static int put(const char *dir, const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *fp = fopen(p, "w");
    if (!fp) return -1;
    int r = fputs(text, fp) < 0;
    return fclose(fp) || r ? -1 : 0;
}

static int write_corpus(const char *dir) {
    make_cases();
    mkdir(dir, 0755);
    json_t *idx = json_array();
    for (int i = 0; i < ncases; i++) {
        char d[512];
        snprintf(d, sizeof d, "%s/%s", dir, cases[i].name);
        if (mkdir(d, 0755) && errno != EEXIST) return -1;
        json_t *o = case_json(&cases[i]);
        char *t = dumps(o);
        if (put(d, "feed.json", cases[i].feed) || put(d, "case.json", t)) return -1;
        free(t);
        json_decref(o);
        json_array_append_new(idx, json_string(cases[i].name));
    }
    json_t *top = json_pack("{s:i, s:o, s:o, s:o}", "rxlock_feed_corpus", 1, "test_signer_a", hexj(pkA),
                            "test_signer_b", hexj(pkB), "cases", idx);
    char *t = dumps(top);
    int r = put(dir, "index.json", t);
    free(t);
    json_decref(top);
    return r;
}

/* ---- the runner ------------------------------------------------------------- */

static char *slurp(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    char *b = malloc(TL_BEACON_MAX_FEED_BYTES + 1);
    *n = fread(b, 1, TL_BEACON_MAX_FEED_BYTES, fp);
    b[*n] = 0;
    fclose(fp);
    return b;
}

static int hex32(const json_t *v, uint8_t out[32]) {
    const char *s = json_string_value(v);
    size_t got = 0;
    return s && strlen(s) == 64 && sodium_hex2bin(out, 32, s, 64, NULL, &got, NULL) == 0 && got == 32;
}

static void seen_from(const json_t *p, tl_beacon_seen *s) {
    memset(s, 0, sizeof *s);
    hex32(json_object_get(p, "signer"), s->signer);
    s->updated = json_integer_value(json_object_get(p, "updated"));
    s->released_max = json_object_get(p, "released_max") ? json_integer_value(json_object_get(p, "released_max")) : -1;
    s->solved_max = json_object_get(p, "solved_max") ? json_integer_value(json_object_get(p, "solved_max")) : -1;
    if (json_object_get(p, "steps")) {
        s->has_sched = 1;
        tl_work_parse(json_string_value(json_object_get(p, "work")), &s->work);
        s->groups = (uint32_t)json_integer_value(json_object_get(p, "groups"));
        s->steps = (uint64_t)json_integer_value(json_object_get(p, "steps"));
        s->every = (uint64_t)json_integer_value(json_object_get(p, "every"));
        s->start = json_integer_value(json_object_get(p, "start"));
    }
}

/* One case through the library, in the order README.md fixes: parse,
 * continuity, (note) or sanity + choice.  The answer as "epoch E T R",
 * "ok" or "refuse REASON FIELD". */
static void answer(const char *dir, const json_t *c, char *out, size_t cap) {
    char p[1400];
    size_t n;
    snprintf(p, sizeof p, "%s/%s", dir, json_string_value(json_object_get(c, "feed")));
    char *text = slurp(p, &n);
    tl_beacon_feed *f = NULL;
    char err[256];
    if (!text) { snprintf(out, cap, "missing feed"); return; }
    int rc = tl_beacon_feed_parse(text, n, NULL, &f, err, sizeof err);
    free(text);
    if (rc) { snprintf(out, cap, "refuse %s ", rc == TL_ESIG ? "signature" : "format"); return; }
    uint8_t pin[32], acc[32];
    int has_pin = hex32(json_object_get(c, "pin"), pin), has_acc = hex32(json_object_get(c, "accept_signer"), acc);
    tl_beacon_seen seen;
    const json_t *pv = json_object_get(c, "previous");
    if (json_is_object(pv)) seen_from(pv, &seen);
    tl_beacon_verdict v;
    int64_t now = json_integer_value(json_object_get(c, "now"));
    if (tl_beacon_continuity(json_is_object(pv) ? &seen : NULL, has_pin ? pin : NULL, has_acc ? acc : NULL, f, &v)) {
        snprintf(out, cap, "refuse %s %s", tl_beacon_reason_name(v.reason), v.field);
    } else if (!strcmp(json_string_value(json_object_get(c, "op")), "note")) {
        const json_t *nt = json_object_get(c, "note");
        uint8_t sg[32];
        hex32(json_object_get(nt, "signer"), sg);
        int kind = !strcmp(json_string_value(json_object_get(nt, "kind")), "pq") ? TL_BEACON_PQ : TL_BEACON_CLASSIC;
        if (tl_beacon_note_check(f, sg, (uint64_t)json_integer_value(json_object_get(nt, "epoch")), kind,
                                 json_string_value(json_object_get(nt, "recipient")),
                                 json_integer_value(json_object_get(nt, "earliest_opening")), &v))
            snprintf(out, cap, "refuse %s %s", tl_beacon_reason_name(v.reason), v.field);
        else
            snprintf(out, cap, "ok");
    } else {
        tl_beacon_floor fl;
        size_t idx;
        tl_beacon_floor_of(&f->beacon, (uint64_t)json_integer_value(json_object_get(c, "client_floor_mhps")), &fl);
        if (tl_beacon_choose_checked(f, &fl, json_integer_value(json_object_get(c, "open_after")), now,
                                     TL_BEACON_CLASSIC, &idx, &v))
            snprintf(out, cap, "refuse %s %s", tl_beacon_reason_name(v.reason), v.field);
        else
            snprintf(out, cap, "epoch %llu %lld %d", (unsigned long long)f->epochs[idx].index,
                     (long long)tl_beacon_floor_opening(&f->beacon, &fl, f->epochs[idx].index), fl.recomputed);
        if (getenv("RXLOCK_TEST_VERBOSE")) fprintf(stderr, "    %s\n", v.msg);
    }
    tl_beacon_feed_free(f);
}

static void expected(const json_t *c, char *out, size_t cap) {
    const json_t *ex = json_object_get(c, "expect");
    const char *r = json_string_value(json_object_get(ex, "result"));
    if (!strcmp(r, "refuse"))
        snprintf(out, cap, "refuse %s %s", json_string_value(json_object_get(ex, "reason")),
                 json_string_value(json_object_get(ex, "field")));
    else if (!strcmp(r, "ok"))
        snprintf(out, cap, "ok");
    else
        snprintf(out, cap, "epoch %lld %lld %d", (long long)json_integer_value(json_object_get(ex, "epoch")),
                 (long long)json_integer_value(json_object_get(ex, "earliest_opening")),
                 json_is_true(json_object_get(ex, "recomputed")));
}

static const char *corpus_dir(void) {
    static char d[512];
    const char *v = getenv("RXLOCK_VECTORS");
    snprintf(d, sizeof d, "%s/feed-corpus", v && *v ? v : "tests/vectors");
    return d;
}

static void t_corpus(void) {
    const char *dir = corpus_dir();
    char p[1400];
    snprintf(p, sizeof p, "%s/index.json", dir);
    json_t *idx = json_load_file(p, 0, NULL);
    CHECK(idx != NULL);
    if (!idx) return;
    const json_t *names = json_object_get(idx, "cases");
    CHECK(json_array_size(names) >= 20);
    for (size_t i = 0; i < json_array_size(names); i++) {
        char d[1200], got[200], want[200];
        snprintf(d, sizeof d, "%s/%s", dir, json_string_value(json_array_get(names, i)));
        snprintf(p, sizeof p, "%s/case.json", d);
        json_t *c = json_load_file(p, 0, NULL);
        CHECK(c != NULL);
        if (!c) continue;
        answer(d, c, got, sizeof got);
        expected(c, want, sizeof want);
        if (strcmp(got, want)) fprintf(stderr, "case %s: got \"%s\", want \"%s\"\n", json_string_value(json_array_get(names, i)), got, want);
        CHECK(!strcmp(got, want));
        json_decref(c);
    }
    json_decref(idx);
}

/* The generator writes the committed corpus byte for byte (Ed25519 is
 * deterministic), so the expectations cannot drift from their source. */
static void t_regenerates(void) {
    char tmp[] = "/tmp/rxlock-corpus-XXXXXX";
    CHECK(mkdtemp(tmp) != NULL);
    CHECK(write_corpus(tmp) == 0);
    for (int i = 0; i < ncases; i++)
        for (int w = 0; w < 2; w++) {
            char a[600], b[600];
            const char *nm = w ? "case.json" : "feed.json";
            snprintf(a, sizeof a, "%s/%s/%s", tmp, cases[i].name, nm);
            snprintf(b, sizeof b, "%s/%s/%s", corpus_dir(), cases[i].name, nm);
            size_t na, nb;
            char *x = slurp(a, &na), *y = slurp(b, &nb);
            CHECK(x && y && na == nb && !memcmp(x, y, na));
            if (!(x && y && na == nb && !memcmp(x, y, na))) fprintf(stderr, "differs: %s\n", b);
            free(x);
            free(y);
            unlink(a);
        }
    for (int i = 0; i < ncases; i++) {
        char d[600];
        snprintf(d, sizeof d, "%s/%s", tmp, cases[i].name);
        rmdir(d);
    }
    char ix[600];
    snprintf(ix, sizeof ix, "%s/index.json", tmp);
    unlink(ix);
    rmdir(tmp);
}

/* The exact floor: whole seconds rounded down, the table's rate rounded up. */
static void t_floor(void) {
    tl_beacon_sched s;
    memset(&s, 0, sizeof s);
    s.work = TL_WORK_SHA3_256;
    s.groups = 1;
    s.steps = STEPS;
    s.floor_mhps = 1000;
    tl_beacon_floor fl;
    tl_beacon_floor_of(&s, CLIENT, &fl);
    CHECK(fl.recomputed == 1 && fl.mhps == CLIENT && fl.seconds == 3600);
    CHECK(tl_beacon_table_mhps(NULL, TL_WORK_SHA3_256) == CLIENT);
    s.floor_mhps = CLIENT * 2;
    tl_beacon_floor_of(&s, CLIENT, &fl);
    CHECK(fl.recomputed == 0 && fl.mhps == CLIENT * 2 && fl.seconds == 1800);
    s.steps = 3; s.floor_mhps = 2000;   /* 1.5 s: 1, never 2 */
    tl_beacon_floor_of(&s, 0, &fl);
    CHECK(fl.seconds == 1);
}

int main(int argc, char **argv) {
    if (sodium_init() < 0) return 2;
    keys();
    if (argc == 3 && !strcmp(argv[1], "--write")) return write_corpus(argv[2]) ? 1 : 0;
    RUN(t_floor);
    RUN(t_corpus);
    RUN(t_regenerates);
    return test_summary();
}
