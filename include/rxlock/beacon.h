/* SPDX-License-Identifier: ISC */
/* include/rxlock/beacon.h — shared epochs: the pure parts of a beacon
 * (prefix tl_beacon_; src/lock/beacon/).  A beacon generates an epoch
 * puzzle every `every` seconds, ahead of time, and releases each at its
 * release time; everyone encrypts to an epoch's recipient for free.  This
 * header owns the schedule arithmetic (release, encrypt-until, earliest
 * opening at the floor rate, the "about" time), the choice rule ("encrypt
 * to a date"), the sealing rule seal(E), the feed (canonical bytes, Ed25519
 * signature, a strict bounded parser) and beacon.json.  No files, no
 * network, no terminal: the CLI owns those (src/cli/beacon_*.c).
 * docs/FORMAT.md §Beacon feed fixes every byte. */
#ifndef RXLOCK_BEACON_H
#define RXLOCK_BEACON_H
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/calibrate.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

#define TL_BEACON_FEED_VERSION   2          /* written; 1 and 2 are read   */
#define TL_BEACON_ARCHIVE_VERSION 1
#define TL_BEACON_CONFIG_VERSION 2      /* 1: F rounded up (legacy_ceil) */
#define TL_BEACON_MAX_FEED_BYTES (8u << 20)
#define TL_BEACON_MAX_EPOCHS     2048u      /* listed in one feed (v1: 1024) */
#define TL_BEACON_PAGE_EPOCHS    1024u      /* index range of one archive page */
#define TL_BEACON_SERVE_YEARS    100u       /* a schedule must be servable this long */
#define TL_BEACON_MAX_AHEAD      1024u
#define TL_BEACON_MAX_PERIOD     (1ull << 40)  /* every, opens_after (s)   */
#define TL_BEACON_MAX_TIME       ((1ll << 53) - (1ll << 42))
#define TL_BEACON_PATH_MAX       64         /* a public path, incl. NUL    */
#define TL_BEACON_ROW_MAX        64         /* the floor row's name, incl. NUL */

/* Epoch key kinds (bits of tl_beacon_sched.kinds). */
#define TL_BEACON_CLASSIC 1
#define TL_BEACON_PQ      2

/* Epoch states in the feed. */
#define TL_BEACON_SCHEDULED 0
#define TL_BEACON_RELEASED  1
#define TL_BEACON_SOLVED    2

typedef struct {
    uint8_t  signer[32];          /* Ed25519 public key of the feed        */
    tl_work_type work;
    uint32_t groups;              /* every epoch's G                       */
    uint64_t steps;               /* every epoch's S                       */
    uint64_t every;               /* the period, s, 1 .. 2^40              */
    uint64_t opens_after;         /* the --opens-after target, s           */
    int64_t  start;               /* release(0), Unix s                    */
    uint32_t ahead;               /* epochs kept generated in advance       */
    unsigned kinds;               /* TL_BEACON_CLASSIC | TL_BEACON_PQ      */
    uint64_t floor_mhps;          /* the floor rate, milli-hashes/s, > 0   */
    char     floor_row[TL_BEACON_ROW_MAX]; /* its machine (printable, no " \) */
    uint64_t assumed_mhps;        /* the assumed solver rate (0 = none)    */
    uint64_t setup_ms;            /* its setup                             */
    int      legacy_ceil;         /* 1: F rounded up, as feeds and beacon.json
                                     version 1 did (read, kept for their seals);
                                     0: F rounded down (never a second early) */
} tl_beacon_sched;

/* Bounds and consistency (docs/FORMAT.md §feed.json): 0 or TL_EINVAL with
 * a one-line reason. */
int tl_beacon_sched_check(const tl_beacon_sched *s, char *err, size_t errlen);

/* ---- schedule arithmetic (docs/FORMAT.md §Schedule arithmetic) -------- */
int64_t  tl_beacon_release(const tl_beacon_sched *s, uint64_t E);
int64_t  tl_beacon_encrypt_until(const tl_beacon_sched *s, uint64_t E);
uint64_t tl_beacon_floor_seconds(const tl_beacon_sched *s);   /* F = floor(G*S / floor) (legacy: ceil) */
uint64_t tl_beacon_about_seconds(const tl_beacon_sched *s);   /* A (F without a rate) */
int64_t  tl_beacon_earliest_opening(const tl_beacon_sched *s, uint64_t E);
int64_t  tl_beacon_about_opening(const tl_beacon_sched *s, uint64_t E);
uint64_t tl_beacon_seal_links(const tl_beacon_sched *s);      /* k = floor(F / every) */
/* The epoch whose release is the latest at or before t: 0 when t precedes
 * start (*before = 1 then, else 0). */
uint64_t tl_beacon_epoch_at(const tl_beacon_sched *s, int64_t t, int *before);

/* ---- keeping up (src/lock/beacon/keepup.c) ---------------------------
 * Generation of one period's epochs at `rate` hashes/s (all workers, lanes
 * included), verify_share (0..1) of each chain recomputed.  0 or TL_EINVAL. */
typedef struct {
    double per_epoch;             /* one key: G x S x (1 + verify_share)     */
    double hashes;                /* one period: kinds x per_epoch           */
    double seconds;               /* hashes / rate                           */
    double need_rate;             /* hashes / every: the rate that keeps up  */
    double margin;                /* every / seconds: >= 1 keeps up          */
    int    keeps_up;
    double min_every;             /* the shortest period that keeps up, s    */
    double max_opens_after;       /* the longest --opens-after that keeps up
                                     at this period (same sizing), s         */
    int    sealed;                /* the schedule seals (floor work >= every) */
    double seal_rate;             /* the rate any sealed schedule needs:
                                     floor rate x kinds x (1 + verify_share) */
    int    sealed_possible;       /* rate >= seal_rate                       */
} tl_beacon_keepup;
int tl_beacon_keepup_of(const tl_beacon_sched *s, double rate, double verify_share, tl_beacon_keepup *k);

/* THE sealing rule: the earliest j < E with earliest_opening(j) >=
 * release(E).  1 and *j when there is one, 0 when E is operator-only. */
int tl_beacon_seal(const tl_beacon_sched *s, uint64_t E, uint64_t *j);
/* How many of the epochs 0 .. n-1 are operator-only. */
uint64_t tl_beacon_operator_only(const tl_beacon_sched *s, uint64_t n);

/* ---- the feed ----------------------------------------------------------- */
typedef struct {
    int      kind;                /* TL_BEACON_CLASSIC / TL_BEACON_PQ       */
    char     recipient[TL_AGE_PQ_RECIPIENT_MAX];
    char     puzzle_path[TL_BEACON_PATH_MAX];   /* "" = null (withheld)     */
    uint8_t  puzzle_sha256[32];
    int      has_sealed;          /* 0: operator-only (sealed = null)       */
    uint64_t sealed_by;           /* j = seal(E)                            */
    int      sealed_to;           /* the kind of j's recipient used         */
    char     sealed_path[TL_BEACON_PATH_MAX];
    uint8_t  sealed_sha256[32];
    int      has_sealed_opening;  /* 0: null                                */
    int64_t  sealed_opening;
    char     identity[TL_BEACON_PATH_MAX];      /* "" = null (unsolved)     */
    int64_t  identity_at;         /* when it was published (v2), 0 = null   */
} tl_beacon_key;

typedef struct {
    uint64_t index;
    int      state;               /* TL_BEACON_SCHEDULED / RELEASED / SOLVED */
    int64_t  release, encrypt_until, earliest_opening, about_opening;
    unsigned nkeys;               /* one per kind, in kind order            */
    tl_beacon_key keys[2];
} tl_beacon_epoch;

/* Where an epoch's "about" comes from (v2's "about.from"). */
#define TL_BEACON_ABOUT_FLOOR    0    /* no rate: the floor time            */
#define TL_BEACON_ABOUT_RATE     1    /* the assumed solver rate            */
#define TL_BEACON_ABOUT_OBSERVED 2    /* the beacon's recent release-to-identity times */

typedef struct {
    tl_beacon_sched beacon;
    int64_t  updated;
    size_t   n;                   /* 0 .. TL_BEACON_MAX_EPOCHS              */
    tl_beacon_epoch *epochs;      /* n entries, strictly increasing index   */
    int      version;             /* as parsed (1, 2); written: the current */
    uint64_t archive_pages;       /* pages 0 .. archive_pages-1 may exist   */
    uint64_t about_seconds;       /* A of every listed epoch (0: the schedule's) */
    int      about_from;          /* TL_BEACON_ABOUT_*                      */
    uint32_t about_samples;       /* OBSERVED: how many solved epochs       */
    uint64_t page;                /* an archive page: its number            */
} tl_beacon_feed;

/* A feed of n zeroed epochs (calloc); NULL on ENOMEM or n too large. */
tl_beacon_feed *tl_beacon_feed_new(size_t n);
void tl_beacon_feed_free(tl_beacon_feed *f);
/* The public path of epoch E's file of a kind: DIR "puzzles" / "sealed" /
 * "identities", STEM "E" (one kind) or "E-classic" / "E-pq" (two kinds),
 * extension ".json" / ".age" / ".txt".  0 or TL_EINVAL. */
int tl_beacon_path(const tl_beacon_sched *s, const char *dir, uint64_t E, int kind, const char *ext,
                   char out[TL_BEACON_PATH_MAX]);
/* "classic" / "pq". */
const char *tl_beacon_kind_name(int kind);
/* Fill each epoch's schedule times, its state from the keys (solved when
 * every identity is there, released when every puzzle path is), and each
 * sealed key's expected opening through the sealed path (FORMAT). */
void tl_beacon_feed_derive(tl_beacon_feed *f);
/* The whole feed.json text (canon + "\n", malloc'd, NUL-terminated),
 * signed with sk (64 bytes, libsodium layout; its public half must be
 * f->beacon.signer).  0, TL_EINVAL (a field breaks the rules), TL_ENOMEM,
 * TL_ESIG. */
int tl_beacon_feed_write(const tl_beacon_feed *f, const uint8_t sk[64], char **text, size_t *len);
/* Parse feed.json (at most TL_BEACON_MAX_FEED_BYTES): canon rules, exact
 * key sets, bounds, the signature; pin (32 bytes) non-NULL: the signer
 * must be exactly it.  0, TL_ETOOBIG, TL_EFORMAT, TL_EVERSION, TL_ESIG,
 * TL_EPIN, TL_ENOMEM; err gets a one-line reason. */
int tl_beacon_feed_parse(const char *text, size_t len, const uint8_t *pin, tl_beacon_feed **out,
                         char *err, size_t errlen);
/* The choice rule at the built-in floor: tl_beacon_choose_checked (below)
 * without the reason.  0 and *idx (into f->epochs), or TL_EINVAL. */
int tl_beacon_choose(const tl_beacon_feed *f, int64_t t, int64_t now, int kind, size_t *idx);
/* The index of epoch E in f, or -1. */
long tl_beacon_find(const tl_beacon_feed *f, uint64_t E);
/* The "about" of f's epochs: f->about_seconds when set, else the schedule's. */
uint64_t tl_beacon_feed_about(const tl_beacon_feed *f);
/* With no assumed rate: the median release-to-identity time of the last
 * (at most 16) epochs of f whose identities have a publication time, at
 * least the floor time; sets f->about_* (OBSERVED) and returns 1, or 0
 * (about stays the schedule's) when none has one or a rate is assumed. */
int tl_beacon_feed_observe_about(tl_beacon_feed *f);

/* ---- archive pages (docs/FORMAT.md §Archive pages) ----------------------
 * Epochs that leave the feed's window go to archive/K.json, K = index /
 * TL_BEACON_PAGE_EPOCHS, written once and never changed: same signer, same
 * canonical form (domain "rxlock/beacon-archive/v1"), the feed's schedule;
 * the feed (v2) says how many pages there may be.  A missing page holds
 * no epoch. */
/* "archive/K.json".  0 or TL_EINVAL. */
int tl_beacon_archive_path(uint64_t K, char out[TL_BEACON_PATH_MAX]);
/* Page K's text from p (its epochs, all within the page's range; p->beacon
 * the schedule; p->about_* as the feed's), signed with sk.  Errors as
 * tl_beacon_feed_write. */
int tl_beacon_archive_write(const tl_beacon_feed *p, uint64_t K, const uint8_t sk[64], char **text, size_t *len);
/* Parse page K: canon rules, exact keys, bounds, the signature by
 * feed->beacon.signer and a schedule identical to feed->beacon.  *out has
 * page = K.  Errors as tl_beacon_feed_parse. */
int tl_beacon_archive_parse(const char *text, size_t len, const tl_beacon_feed *feed, uint64_t K,
                            tl_beacon_feed **out, char *err, size_t errlen);

/* ---- what every client checks itself (src/lock/beacon/trust.c) ----------
 * docs/SECURITY.md §What a beacon client checks.  A signed feed is believed
 * about nothing it can be checked against: the client recomputes each
 * epoch's earliest opening at the faster of its own floor row for the work
 * and the feed's floor; chooses only a `scheduled` epoch whose release is
 * after its own clock and the feed's `updated` by TL_BEACON_CHOICE_MARGIN;
 * refuses when its clock is behind `updated` by more than
 * TL_BEACON_CLOCK_TOLERANCE; checks every signed number against the
 * schedule arithmetic and sane ranges; keeps the first signer (or the pin)
 * and refuses a feed older than the last one seen.  Every refusal carries a
 * stable reason keyword (tl_beacon_reason_name) and the field it names: the
 * conformance corpus (tests/vectors/feed-corpus/) fixes both for the CLI and
 * the web page alike. */
#define TL_BEACON_CHOICE_MARGIN   5         /* s: release after now and updated by this */
#define TL_BEACON_CLOCK_TOLERANCE 300       /* s: this machine's clock behind `updated` */
#define TL_BEACON_FUTURE_MAX      (366ll * 86400) /* `updated` further ahead: a false field */

enum {
    TL_BEACON_R_OK = 0,
    TL_BEACON_R_FORMAT,           /* "format": the strict parser refused it  */
    TL_BEACON_R_SIGNATURE,        /* "signature": does not verify            */
    TL_BEACON_R_SIGNER,           /* "signer_changed": not the pin / first signer */
    TL_BEACON_R_FIELD,            /* "field": a signed number breaks the rules */
    TL_BEACON_R_CLOCK,            /* "clock_behind": this machine's clock    */
    TL_BEACON_R_ROLLBACK,         /* "rollback": older than the last seen    */
    TL_BEACON_R_SCHEDULE,         /* "schedule_changed": work, G, S, every, start */
    TL_BEACON_R_NO_EPOCH,         /* "no_epoch": nothing can hold the date   */
    TL_BEACON_R_NOTE              /* "note_mismatch": the .beacon note differs */
};
/* The stable keyword of a reason ("ok", "format", ...; "?" out of range). */
const char *tl_beacon_reason_name(int reason);

typedef struct {
    int  reason;                  /* TL_BEACON_R_*                          */
    char field[64];               /* the field named ("updated",
                                     "epochs[3].state", ...; "" = none)     */
    char msg[384];                /* one English line, no prefix            */
} tl_beacon_verdict;

/* A client's floor for a feed: its own row (milli-hashes/s, rounded up:
 * the faster) against the feed's signed one; the faster is used. */
typedef struct {
    uint64_t feed_mhps;           /* beacon.floor.rate_mhps                 */
    uint64_t client_mhps;         /* this client's row for the work (0: none) */
    uint64_t mhps;                /* the faster of the two                  */
    uint64_t seconds;             /* floor(G*S*1000 / mhps): whole seconds
                                     the floor machine surely needs        */
    int      recomputed;          /* 1: the client's row is faster than the
                                     feed's: every opening recomputed      */
} tl_beacon_floor;
/* The fastest row of table (NULL: the built-in table) for work, in
 * milli-hashes/s rounded up; 0 when the table has none. */
uint64_t tl_beacon_table_mhps(const tl_floor_table *table, tl_work_type work);
void tl_beacon_floor_of(const tl_beacon_sched *s, uint64_t client_mhps, tl_beacon_floor *out);
/* release(E) + fl->seconds: the client's own earliest opening of E. */
int64_t tl_beacon_floor_opening(const tl_beacon_sched *s, const tl_beacon_floor *fl, uint64_t E);

/* Sane ranges and the schedule arithmetic beyond what the parser checks:
 * `updated` (not 0, not more than TL_BEACON_FUTURE_MAX ahead of now, not
 * ahead of now by more than TL_BEACON_CLOCK_TOLERANCE: "clock_behind"),
 * each epoch's state against its release and `updated`, the generated
 * window against `ahead`, each sealed.opening against the derivation.
 * 0, or TL_EINVAL with *v filled. */
int tl_beacon_feed_sane(const tl_beacon_feed *f, int64_t now, tl_beacon_verdict *v);

/* THE choice rule, checked: tl_beacon_feed_sane, then the earliest listed
 * epoch in state `scheduled`, with a key of `kind`, whose release is at
 * least TL_BEACON_CHOICE_MARGIN after both now and f->updated and whose
 * client earliest opening (fl) is at or after t.  0 and *idx, or TL_EINVAL
 * with *v filled (no_epoch when none can hold t). */
int tl_beacon_choose_checked(const tl_beacon_feed *f, const tl_beacon_floor *fl, int64_t t, int64_t now, int kind,
                             size_t *idx, tl_beacon_verdict *v);

/* What a client remembers of the last good feed it read (a follower in
 * memory, a note on disk): its signer, `updated`, schedule, and the
 * highest released and solved epochs (-1: none). */
typedef struct {
    uint8_t  signer[32];
    int64_t  updated;             /* 0: unknown (a note knows only the signer) */
    int      has_sched;           /* 0: unknown                             */
    tl_work_type work;
    uint32_t groups;
    uint64_t steps, every;
    int64_t  start;
    int64_t  released_max, solved_max;
} tl_beacon_seen;
void tl_beacon_seen_of(const tl_beacon_feed *f, tl_beacon_seen *out);
/* Signer continuity and no rollback: next's signer must be prev's (or the
 * pin, when prev is NULL), unless it is exactly `accept` (a rotation the
 * user named); the schedule must be prev's; from the same signer (an
 * accepted rotation starts its own history) `updated` must not go back, no
 * listed epoch at or below prev's highest released one may be `scheduled`,
 * and prev's highest solved one must still be solved.
 * prev and pin may be NULL (nothing to compare).  0, or TL_EINVAL with *v
 * filled (signer_changed names both keys in hex). */
int tl_beacon_continuity(const tl_beacon_seen *prev, const uint8_t *pin, const uint8_t *accept,
                         const tl_beacon_feed *next, tl_beacon_verdict *v);

/* A `.beacon` note's layer (FORMAT §Files encrypted to a beacon) against
 * the feed: the signer, and for epoch E (when listed) the key of `kind`,
 * its recipient and the signed earliest_opening must be the note's.  0,
 * or TL_EINVAL with *v filled (note_mismatch naming "signer", "kind",
 * "recipient" or "earliest_opening"). */
int tl_beacon_note_check(const tl_beacon_feed *f, const uint8_t signer[32], uint64_t E, int kind,
                         const char *recipient, int64_t earliest_opening, tl_beacon_verdict *v);

/* ---- beacon.json --------------------------------------------------------- */
typedef struct {
    tl_beacon_sched s;
    int      mode;                /* TL_MODE_DEFAULT (auto), LIGHT, FULL    */
    char     rate_source[TL_RATE_SOURCE_MAX];
    unsigned workers;             /* 0 = usable CPUs                       */
    tl_verify verify;             /* NONE / SAMPLE / FULL                   */
    uint32_t verify_permille;     /* SAMPLE: 1 .. 1000                      */
    uint64_t checkpoint_steps;    /* 0 = auto                              */
} tl_beacon_config;
int tl_beacon_config_write(const tl_beacon_config *c, char **text, size_t *len);
int tl_beacon_config_parse(const char *text, size_t len, tl_beacon_config *c, char *err, size_t errlen);

/* The beacon's clock: Unix seconds, UTC.  The test build adds
 * RXLOCK_TEST_CLOCK_SKEW (signed seconds, @T, or /FILE holding either,
 * read at every call) under RXLOCK_TEST_INSECURE=1, so
 * tests can move time forward and back. */
int64_t tl_beacon_now(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
