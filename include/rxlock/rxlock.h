/* SPDX-License-Identifier: ISC */
/* include/rxlock/rxlock.h — rxlock time-lock layer: public API (prefix tl_).
 *
 * A puzzle hides a 32-byte X25519 epoch secret x behind G serially wrapped
 * hash chains of S steps each (docs/DESIGN.md §1, docs/FORMAT.md):
 *
 *   generate:  tl_generate()  -> canonical puzzle JSON + epoch public key X
 *   publish:   the JSON text (≤ TL_MAX_PUZZLE_BYTES)
 *   check:     tl_puzzle_parse() -> tl_puzzle_verify() (structure, signature, pin)
 *   solve:     tl_solve()  -> x   (sequential, resumable through a journal)
 *
 * Every function returns 0 (TL_OK) or a negative code; nothing aborts.  The
 * codes are TL_E* (-100 .. -199); a call that runs the work function may also
 * return the RandomX engine's RX_E* code (-1 .. -99) unchanged, except
 * RX_ENOMEM, which becomes TL_ENOMEM (include/rxlock/error.h).
 * tl_strerror() = rxlock_strerror() names a code of any range.  The library
 * never prints: trouble a long call survives is reported through the
 * optional event callback (tl_gen_opts.event).  Secrets handed to the caller are the caller's
 * to wipe (sodium_memzero); everything the library allocates it wipes on free.
 * The library is not thread-safe per object; tl_generate() forks worker
 * processes and must be called from a single-threaded process.
 */
#ifndef RXLOCK_RXLOCK_H
#define RXLOCK_RXLOCK_H
#include "rxlock/error.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum tl_error {
    TL_OK        = 0,
    TL_EINVAL    = -101, /* bad argument / parameter out of bounds          */
    TL_ENOMEM    = -102,
    TL_EIO       = -103, /* read/write/fsync failed (errno kept)             */
    TL_EFORMAT   = -104, /* malformed puzzle or journal                      */
    TL_EVERSION  = -105, /* unsupported puzzle / journal version             */
    TL_ETOOBIG   = -106, /* input larger than the format allows              */
    TL_ESIG      = -107, /* signature missing or invalid                     */
    TL_EPIN      = -108, /* signer does not match the pinned key             */
    TL_EAUTH     = -109, /* a wrap failed to open (tampered or wrong chain)  */
    TL_ECOMMIT   = -110, /* recovered x does not match X = X25519(x, 9)      */
    TL_EJOURNAL  = -111, /* journal belongs to another puzzle / unusable     */
    TL_EWORKER   = -112, /* a worker process crashed, hung or lied           */
    TL_EINTR     = -113, /* interrupted (signal or progress callback)        */
    TL_ERANDOM   = -114, /* the OS CSPRNG failed                             */
    TL_EWORK     = -115, /* the work function (RandomX engine) failed        */
    TL_ENOTSUP   = -116  /* work type / mode not available                   */
};
/* Documented alias of rxlock_strerror() (include/rxlock/error.h), the error
 * space's one name: the same function, names a code of any range. */
const char *tl_strerror(int err);

/* Bounds (docs/FORMAT.md §Bounds). */
#define TL_MAX_GROUPS        4096u
#define TL_MAX_STEPS         (1ull << 40)
#define TL_MAX_TOTAL         (1ull << 48)
#define TL_MAX_PUZZLE_BYTES  (1u << 20)
#define TL_PUZZLE_VERSION    2   /* written; version 1 puzzles are still read */
#define TL_PUZZLE_VERSION_MIN 1
/* a post-quantum epoch's commitment, the age mlkem768x25519
 * recipient (= TL_AGE_PQ_RECIPIENT_BYTES, include/rxlock/age.h). */
#define TL_EPOCH_PQ_BYTES    1216

typedef enum {
    TL_WORK_RANDOMX_V2 = 1,
    TL_WORK_RANDOMX_V1 = 2,
    TL_WORK_SHA3_256   = 3
} tl_work_type;

/* RandomX memory mode.  Zero, TL_MODE_DEFAULT, is the mode policy
 * (tl_mode_resolve: full when the dataset fits here, else light) wherever a
 * mode is taken — tl_work_new, tl_gen_opts, tl_solve_opts, tl_calibrate —
 * except tl_task_opts.mode, where it means the plan's mode, and
 * tl_plan_opts.mode, where it means full (the nodes hold the dataset); so
 * a zero-initialised options struct never silently means light mode. */
typedef enum { TL_MODE_DEFAULT = 0, TL_MODE_LIGHT = 1, TL_MODE_FULL = 2 } tl_mode;

/* ---- the one mode policy (src/lock/core/mode.c) ------------------ */
/* Full mode is this many times faster than light mode for RandomX:
 * RECORDED figures, not measured per run (bench/README.md): the Intel VM,
 * paired runs, v2 jit-secure with THP, 336.8 vs 74.7 H/s = 4.5x (3.0x at
 * 4 KiB pages); the AMD EPYC VM, `calibrate` 10 s each, quiet, THP, 158.5
 * vs 58.9 H/s = 2.7x.  TL_FULL_LIGHT_RATIO is the larger (how much sooner
 * a light-sized puzzle could open); texts print the range. */
#define TL_FULL_LIGHT_RATIO 4.5
#define TL_FULL_LIGHT_RANGE "2.7-4.5x"
#define TL_FULL_LIGHT_RATIO_MIN 2.7   /* the range's smaller end */
typedef struct {
    tl_mode  mode;                /* the mode to run                        */
    int      forced;              /* the caller's --mode decided it         */
    int      low_memory;          /* full does not fit here: light chosen   */
    uint64_t need_bytes;          /* what full mode needs (dataset + cache + margin) */
    uint64_t avail_bytes;         /* what the deciding check found (UINT64_MAX = no limit) */
    const char *why;              /* static: the check that decided         */
    double   ratio;               /* full/light speed ratio (recorded); 1 for sha3 */
} tl_mode_choice;
/* requested: TL_MODE_DEFAULT (or any negative value) = choose (full when
 * the dataset fits here, else light);
 * TL_MODE_LIGHT / TL_MODE_FULL = forced.  sha3-256 has no mode (light).
 * Checks, in order: the test build's RXLOCK_TEST_LOWMEM=1, RLIMIT_AS, the
 * cgroup v2 memory.max, MemAvailable, then an untouched trial mmap of the
 * whole size.  0 or TL_EINVAL. */
int tl_mode_resolve(tl_work_type work, int requested, tl_mode_choice *out);
/* TL_FULL_LIGHT_RATIO for RandomX, 1 for sha3-256. */
double tl_full_light_ratio(tl_work_type work);

/* "randomx-v2" / "randomx-v1" / "sha3-256"; NULL for an unknown type. */
const char *tl_work_name(tl_work_type t);
/* 0 and *t on success, TL_EINVAL for an unknown name. */
int tl_work_parse(const char *name, tl_work_type *t);

/* ---- work function: one chain step exactly as docs/DESIGN.md §1 ------ */
typedef struct tl_work tl_work;
typedef struct tl_puzzle tl_puzzle;   /* defined below (puzzles) */
/* key = the puzzle's public 32-byte key K.  For RandomX this builds the cache
 * (light) or cache + dataset (full, 2080 MiB, all online cores); sha3 ignores
 * mode.  The object may be inherited across fork() and used in the child. */
int  tl_work_new(tl_work **w, tl_work_type type, const uint8_t key[32], tl_mode mode);
/* d_out = W(K, m(g, i, d_in)); g is 1-based.  d_in and d_out may alias. */
int  tl_work_step(tl_work *w, uint32_t g, uint64_t i, const uint8_t d_in[32], uint8_t d_out[32]);
/* Run n steps from step i0: d <- W(K, m(g, i, d)) for i = i0 .. i0+n-1. */
int  tl_work_steps(tl_work *w, uint32_t g, uint64_t i0, uint64_t n, uint8_t d[32]);
/* L independent chains of one puzzle, each n steps: chain c runs
 * tl_work_steps(w, g[c], i0[c], n, d[c]).  sha3-256 advances them together in
 * SIMD lanes (tl_work_lanes() at a time); RandomX runs them one after the
 * other.  The same results as L tl_work_steps calls. */
int  tl_work_steps_multi(tl_work *w, size_t L, const uint32_t *g, const uint64_t *i0, uint64_t n,
                         uint8_t (*d)[32]);
/* How many chains tl_work_steps_multi advances at once for this work type
 * (1 for RandomX), so a caller can batch groups: a worker that takes this
 * many groups costs about what one group costs. */
unsigned tl_work_lanes(tl_work_type type);
void tl_work_free(tl_work *w);

/* The engine a work function really runs: never a silent fallback.  All
 * strings are static.  RandomX: with the environment switch
 * RXLOCK_ENGINE=jit a JIT that cannot start fails tl_work_new (and every
 * call that runs work; tl_engine_check says why); by default the
 * interpreter runs instead and `fallback` names the reason, for the caller
 * to report. */
typedef struct {
    tl_work_type work;
    int         version;     /* RandomX 1 or 2; 0 for sha3-256             */
    const char *mode;        /* "light" / "full"; NULL for sha3-256         */
    const char *engine;      /* "jit" / "interpreter"; NULL for sha3-256    */
    const char *aes;         /* "hardware" / "software"; NULL for sha3-256  */
    const char *install;     /* the JIT's program install: "proc-mem" (pages
                                stay read+execute, written through
                                /proc/self/mem) or "mprotect" (pages flipped);
                                NULL for the interpreter and sha3-256       */
    const char *fallback;    /* NULL, or why the JIT did not start          */
} tl_engine_info;
int tl_work_engine(const tl_work *w, tl_engine_info *out);
/* Full-mode RandomX: the share (0..1) of the dataset backed by huge pages
 * (rx_dataset_huge_share); -1 in light mode, for sha3-256, or unknown. */
double tl_work_huge_share(const tl_work *w);
/* NULL when the engine the environment selects for `type` can start here,
 * else a one-line reason (a static string); NULL for sha3-256. */
const char *tl_engine_check(tl_work_type type);
/* The 68-byte chain message m(g, i, d). */
void tl_chain_message(uint8_t m[68], uint32_t g, uint64_t i, const uint8_t d[32]);

/* ---- puzzles ------------------------------------------------------------ */
#define TL_RATE_SOURCE_MAX 32
/* the mode a puzzle's rate was measured in (version 2). */
#define TL_RATE_MODE_NONE  0      /* sha3-256, no rate, or a version-1 puzzle */
#define TL_RATE_MODE_LIGHT 1
#define TL_RATE_MODE_FULL  2
#define TL_MAX_SETUP_MS    (1ull << 40)

typedef struct {
    tl_work_type work;
    uint32_t groups;              /* G, 1 .. TL_MAX_GROUPS                 */
    uint64_t steps;               /* S, 1 .. TL_MAX_STEPS, G*S ≤ TL_MAX_TOTAL */
    uint64_t rate_milli_hps;      /* assumed solver rate in milli-hashes per second
                                     (1000 = 1 hash/s; JSON "assumed_rate_mhps"); 0 = none */
    char     rate_source[TL_RATE_SOURCE_MAX]; /* "none", "flag", "calibration: <cpu>", ... [ -~]* */
    uint64_t target_seconds;      /* wall-clock target the caller asked for (0 = none) */
    int      rate_mode;           /* TL_RATE_MODE_*: what rate_milli_hps was measured in */
    uint64_t setup_ms;            /* work-function setup (cache/dataset build) on the
                                     rate's machine, ms; part of the promise */
    const uint8_t *sign_sk;       /* Ed25519 secret key (64 bytes, libsodium layout) or NULL */
    /* 1 = post-quantum epoch: x is an age mlkem768x25519 identity
     * seed and the puzzle commits to its age1pq1 recipient (version 2). */
    int      pq;
} tl_params;

typedef struct {
    uint64_t hashes_done, hashes_total;
    double   rate;                /* hashes/s over the run so far (all workers) */
    double   eta_seconds;         /* < 0 when unknown                       */
    uint32_t groups_done, groups_total;
    uint32_t group;               /* solver: current group (1-based)        */
    uint64_t step;                /* solver: step within the group          */
    const tl_engine_info *engine; /* the engine doing the work: set on the
                                     first call, made before any work (NULL
                                     on later calls where not known)       */
    /* calls while the work function is still being built (full
     * mode: the 2080 MiB dataset), before the first call above: setup = 1,
     * engine NULL, setup_fraction 0..1, setup_seconds elapsed so far,
     * eta_seconds = the rest of the setup plus the hashing at the puzzle's
     * assumed rate (< 0 when it has none).  tl_solve, tl_generate (eta:
     * the setup only) and tl_calibrate (eta: the rest of the setup + its
     * measuring seconds). */
    int      setup;
    double   setup_fraction;
    double   setup_seconds;
} tl_progress;
/* Return non-zero to cancel (the call then fails with TL_EINTR).  tl_solve,
 * tl_generate and tl_calibrate call it once as soon as the work function is
 * built (hashes_done = work done before, engine set), then about every
 * progress interval. */
typedef int (*tl_progress_fn)(const tl_progress *p, void *ctx);

/* Events a long call reports besides progress, for the caller to log or
 * show (the library itself never prints). */
typedef enum {
    TL_EVENT_WORKER_HUNG   = 1,   /* a worker was silent too long; killed   */
    TL_EVENT_WORKER_RETRY  = 2,   /* a worker failed; its group runs again  */
    TL_EVENT_WORKER_FAILED = 3,   /* a worker failed, no retry left: the call
                                     fails with TL_EWORKER                  */
    TL_EVENT_TEST_MODE     = 4,   /* test build only: the deterministic,
                                     insecure test mode made this puzzle    */
    /* resumable, verified generation */
    TL_EVENT_RESUMED       = 5,   /* resumed from a state directory: what was
                                     kept and what is recomputed            */
    TL_EVENT_VERIFY        = 6,   /* a verification mismatch and how it was
                                     decided (group, segment, worker named) */
    TL_EVENT_STATE         = 7    /* the state directory (tl_gen_opts.state_dir)
                                     was refused or could not be used; the
                                     message names the file and the way out,
                                     and the call fails with the code given.
                                     With a group: that group's record could
                                     not be written (e.g. a full disk; TL_EIO),
                                     what was sealed before stays and the
                                     same call again resumes from it        */
} tl_event_kind;
typedef struct {
    tl_event_kind kind;
    uint32_t group;               /* the group concerned (1-based), 0 = none */
    double   seconds;             /* WORKER_HUNG: seconds of silence        */
    const char *message;          /* one English line, no newline, e.g.
                                     "worker for group 3 failed; re-running the group" */
} tl_event;
typedef void (*tl_event_fn)(const tl_event *ev, void *ctx);

/* chain verification.  Each group's chain is split into segments
 * of C steps (tl_gen_opts.checkpoint_steps); a verified segment was
 * recomputed by another worker process from its recorded start and gave the
 * recorded end.  DEFAULT = SAMPLE at 0.25 (docs/SECURITY.md). */
typedef enum {
    TL_VERIFY_DEFAULT = 0,
    TL_VERIFY_NONE    = 1,        /* no segment is recomputed                */
    TL_VERIFY_SAMPLE  = 2,        /* each segment with probability F         */
    TL_VERIFY_FULL    = 3         /* every segment: about 1x the generation CPU */
} tl_verify;
typedef struct {
    uint64_t steps_total;         /* G*S                                     */
    uint64_t steps_resumed;       /* chain steps found checkpointed at start */
    uint64_t steps_lost;          /* steps a previous run had computed past its
                                     last checkpoints (recomputed now; at most
                                     C per group per interruption)          */
    uint64_t checkpoint_steps;    /* C used                                  */
    uint32_t segments;            /* segments in all groups                  */
    uint32_t checked;             /* of those, recomputed and matched        */
    uint32_t mismatches;          /* disputes decided by a third computation */
    uint32_t corrected;           /* of those, the chain was wrong and redone */
    uint64_t verify_steps;        /* steps computed for verification         */
    int      resumed;             /* 1 when a state directory was resumed    */
} tl_gen_stats;

typedef struct {
    unsigned workers;             /* concurrent worker processes (0 = online cores) */
    tl_mode  mode;                /* RandomX light / full                   */
    tl_progress_fn progress;      /* optional, called ~progress_interval    */
    void    *progress_ctx;
    double   progress_interval;   /* seconds, 0 = 0.5                       */
    unsigned worker_timeout;      /* seconds without a message = hung (0 = 120) */
    unsigned retries;             /* re-runs of a failed group (0 = none)   */
    const volatile int *stop;     /* optional: non-zero -> stop workers, TL_EINTR */
    tl_event_fn event;            /* optional: worker trouble, test mode    */
    void    *event_ctx;
    /* resumable, verified generation */
    const char *state_dir;        /* generation state directory (created 0700,
                                     resumed when it holds this puzzle's state;
                                     the caller removes it after committing the
                                     puzzle: tl_generate_state_remove); NULL =
                                     in memory.  Every file in it is opened
                                     through the directory's handle, as a
                                     regular file only */
    const char *const *state_files;  /* the caller's own file names in
                                     state_dir (NULL-terminated; NULL = none):
                                     accepted there, kept by a fresh start */
    uint64_t checkpoint_steps;    /* C: a sealed chain value every C steps, the
                                     unit of resume and verification (0 = auto) */
    tl_verify verify;             /* which segments are recomputed and compared */
    double   verify_fraction;     /* TL_VERIFY_SAMPLE: 0 < F <= 1 (0 = 0.25) */
    tl_gen_stats *stats;          /* optional: filled on return              */
} tl_gen_opts;

/* Generate a puzzle.  On success *json (malloc'd, NUL-terminated, *json_len
 * bytes, the canonical text written to disk byte for byte), *puzzle (when
 * puzzle is not NULL: that text parsed, for the caller to use instead of
 * parsing it again; free it with tl_puzzle_free) and pk = X.  If
 * keep_sk is non-NULL it receives x (the caller must wipe it); otherwise x is
 * wiped.  All other secrets are wiped in every process on every path.
 * Honours the test-only deterministic mode (RXLOCK_TEST_SEED=<hex> together
 * with RXLOCK_TEST_INSECURE=1): the puzzle is then marked test_only. */
int tl_generate(const tl_params *p, const tl_gen_opts *o,
                char **json, size_t *json_len, tl_puzzle **puzzle, uint8_t pk[32], uint8_t *keep_sk);
/* With o->state_dir, a successful tl_generate leaves the state directory
 * in place (running it again gives the same puzzle at once): commit the
 * puzzle first, then remove the state with this call, which deletes only
 * the files a generation state holds — its secrets first, then the rest,
 * then the caller's state_files in the order named (name the finished
 * output last: a re-run cut short sees it), then the directory.  Each step
 * is idempotent: a removal that was killed is finished by calling it
 * again.  TL_OK also when the directory is already gone; TL_EIO when it
 * is another run's (flock) or something stays. */
int tl_generate_state_remove(const char *state_dir, const char *const *state_files);

typedef struct {
    uint8_t nonce[24];
    uint8_t ct[48];               /* 32-byte plaintext + 16-byte tag       */
} tl_wrap;

typedef struct tl_puzzle {
    int      version;
    tl_work_type work;
    uint32_t groups;
    uint64_t steps;
    uint8_t  id[16];              /* P */
    uint8_t  key[32];             /* K */
    uint8_t  seed[32];            /* s_1 */
    uint8_t  epoch_pk[32];        /* X */
    uint64_t rate_milli_hps;      /* milli-hashes per second, as tl_params */
    char     rate_source[TL_RATE_SOURCE_MAX];
    uint64_t target_seconds;
    /* (version 2; NONE / 0 in a version-1 puzzle) */
    int      rate_mode;           /* TL_RATE_MODE_*                         */
    uint64_t setup_ms;            /* setup on the rate's machine, ms        */
    int64_t  created;             /* Unix seconds, UTC                      */
    int      test_only;
    int      has_signer;
    uint8_t  signer[32];          /* Ed25519 public key                     */
    int      has_signature;
    uint8_t  signature[64];
    tl_wrap *wraps;               /* groups entries                         */
    uint8_t  header_digest[32];   /* H, computed by parse                   */
    /* (version >= 2): which chain segments were verified */
    int      verify_method;       /* TL_VERIFY_NONE / SAMPLE / FULL; version 1:
                                     0 (not recorded)                       */
    uint32_t verify_segments;     /* segments in all groups                 */
    uint32_t verify_checked;      /* segments recomputed and matched        */
    /* (version 2): a post-quantum epoch commits to the hybrid age
     * recipient of x; epoch_pk is then that recipient's X25519 part. */
    int      pq_epoch;
    uint8_t  pq_recipient[TL_EPOCH_PQ_BYTES];
} tl_puzzle;

/* Parse puzzle JSON (len ≤ TL_MAX_PUZZLE_BYTES).  Checks syntax, field set,
 * bounds, version, hex lengths and that X is a valid point; does not check
 * the signature (tl_puzzle_verify).  If err/errlen given, a one-line reason. */
int  tl_puzzle_parse(const char *json, size_t len, tl_puzzle **out, char *err, size_t errlen);
int  tl_puzzle_load(const char *path, tl_puzzle **out, char *err, size_t errlen);
void tl_puzzle_free(tl_puzzle *pz);
/* Serialise canonically (the exact bytes tl_generate produced): *json gets
 * a NUL-terminated string of *len bytes that the caller owns and releases
 * with free().  On failure nothing is allocated. */
int  tl_puzzle_to_json(const tl_puzzle *pz, char **json, size_t *len);
/* Canonical binary header (docs/FORMAT.md) and its digest H. */
int  tl_puzzle_header(const tl_puzzle *pz, uint8_t *buf, size_t cap, size_t *len);
/* Structure + signature.  pin (32 bytes) non-NULL: the puzzle must be signed
 * by exactly that key (TL_EPIN otherwise).  An unsigned puzzle with no pin
 * passes; a present but bad signature always fails (TL_ESIG).  A version 2
 * signature covers the header and every wrap; a version 1 signature covers
 * the header only (tl_puzzle_signs_wraps tells which). */
int  tl_puzzle_verify(const tl_puzzle *pz, const uint8_t *pin);
/* 1 when pz's signature (if any) covers its wraps (version >= 2), else 0. */
int  tl_puzzle_signs_wraps(const tl_puzzle *pz);

/* ---- solving ------------------------------------------------------------ */
typedef struct {
    tl_mode  mode;
    const char *journal;          /* path or NULL (no resume)              */
    double   checkpoint_seconds;  /* journal entry at least this often (0 = 60) */
    uint64_t checkpoint_steps;    /* also every N steps (0 = off)          */
    tl_progress_fn progress;
    void    *progress_ctx;
    double   progress_interval;   /* seconds, 0 = 0.5                      */
    const volatile int *stop;     /* optional: non-zero -> checkpoint, TL_EINTR */
} tl_solve_opts;

typedef struct {
    uint64_t steps_computed;      /* hashes computed by this call          */
    uint32_t resumed_group;       /* 0 = started fresh                     */
    uint64_t resumed_step;
    uint64_t checkpoints;         /* journal entries written               */
    uint32_t failed_group;        /* group whose wrap failed (TL_EAUTH), else 0 */
    tl_engine_info engine;        /* the engine that ran (work = 0 if none) */
    int      journal_failed;      /* 1: the error came from the journal (open,
                                     check or append), not the puzzle     */
    int      journal_errno;       /* then errno at the failure (EBUSY: another
                                     process holds the journal), else 0   */
    double   setup_seconds;       /* building the work function (cache,
                                     dataset), timed                      */
    double   hash_seconds;        /* the chain after it, this call        */
    double   huge_share;          /* full-mode RandomX: dataset share on
                                     huge pages (0..1), else -1           */
} tl_solve_stats;

/* Solve sequentially; x receives the epoch secret (caller wipes it).  With
 * a journal, progress is appended + fsync'd and a re-run resumes; a journal
 * for another puzzle gives TL_EJOURNAL.  A journal this call created is
 * removed again when it fails before writing any entry (refused puzzle,
 * engine that cannot start).  stats may be NULL. */
int tl_solve(const tl_puzzle *pz, const tl_solve_opts *o, uint8_t x[32], tl_solve_stats *stats);
/* x from a journal that already holds the final chain state (G, S): a
 * solve that finished and was stopped before its caller removed the
 * journal.  Nothing is computed or built; the journal is only read (a torn
 * tail cut, as tl_solve would).  TL_OK with x (the last wrap opened with
 * the journal's value, X25519(x) checked against the puzzle's key);
 * TL_EJOURNAL when the journal is missing, held by a running solve, of
 * another puzzle or short of the final state; TL_EAUTH when its final
 * value does not open the last wrap.  The caller wipes x. */
int tl_solve_from_journal(const tl_puzzle *pz, const char *journal, uint8_t x[32]);

/* Ed25519 signer key file helpers (docs/FORMAT.md §Signer key). */
int tl_signer_keygen(uint8_t pk[32], uint8_t sk[64]);
int tl_signer_save(const char *path, const uint8_t sk[64], int force);
int tl_signer_load(const char *path, uint8_t sk[64], uint8_t pk[32]);

/* Quick rate estimate for this machine (hashes/s) of the work function in
 * the given mode, measured for about `seconds`. */
int tl_measure_rate(tl_work_type type, tl_mode mode, double seconds, double *rate);

/* Generation throughput here, measured as generation runs it
 * (src/lock/gen/gen_rate.c): the workers tl_generate would run (workers, 0
 * = the usable CPUs), each advancing a bundle of chains in SIMD lanes as
 * the generation pool hands out `groups` (0 = workers x tl_work_lanes), all
 * at once for about `seconds` in windows; rate is the median window's
 * hashes/s over all workers.  stop (optional): non-zero -> TL_EINTR. */
typedef struct {
    double   rate;                /* hashes/s, all workers: the median window */
    double   rate_min, rate_max;  /* the slowest / fastest window             */
    double   mean;                /* over the whole timed run                 */
    double   seconds;             /* timed                                    */
    unsigned workers;             /* worker processes that ran chains         */
    unsigned lanes;               /* chains per worker at once                */
    unsigned windows;
    uint32_t groups;              /* the groups it was measured for           */
} tl_gen_rate;
int tl_measure_gen_rate(tl_work_type type, tl_mode mode, unsigned workers, uint32_t groups, double seconds,
                        const volatile int *stop, tl_gen_rate *out);


/* ---- generation on a cluster: plan / task / assemble -------------------
 * (docs/FORMAT.md §Cluster plan, docs/SECURITY.md §Generation on a cluster)
 * tl_plan_create() draws every secret exactly as tl_generate() does and
 * writes a plan directory: plan.json (public), one job file per group
 * (sealed to a per-plan worker X25519 key), plan.secrets (sealed under the
 * planner key); the caller writes its job files (the CLI: slurm.sbatch,
 * k8s-job.yaml, ...) from the tl_plan_summary it gets.  Each cluster task
 * runs tl_plan_task() (idempotent; atomic, authenticated result files;
 * sealed checkpoints so a preempted task resumes).  tl_plan_assemble(),
 * holding the planner key, checks every result and builds the puzzle, byte
 * for byte what tl_generate() would have written for the same secrets. */
#define TL_PLAN_PATH_MAX      4096
#define TL_PLAN_RECIPIENT_MAX 1984     /* = TL_AGE_PQ_RECIPIENT_MAX (rxlock/age.h) */
/* What a new plan is: enough for a caller to write job files and say
 * what to run.  The two paths are resolved and hold only letters, digits
 * and /._-+,:=@ (tl_plan_create refuses others), so a job script may
 * carry them unquoted. */
typedef struct {
    char     id[13];              /* the plan's short id (12 hex): job and Secret names */
    char     dir[TL_PLAN_PATH_MAX];        /* the plan directory, resolved        */
    char     worker_key[TL_PLAN_PATH_MAX]; /* the worker key file, resolved      */
    char     recipient[TL_PLAN_RECIPIENT_MAX]; /* age1... (age1pq1... for --pq)   */
    uint8_t  epoch_pk[32];        /* X, known from the start                */
    tl_work_type work;
    tl_mode  mode;                /* the tasks' RandomX mode                */
    uint32_t groups, batch, tasks;  /* G, groups per task, tasks = ceil(G / batch) */
    uint64_t steps;               /* S                                      */
    tl_verify verify;             /* NONE, SAMPLE or FULL (DEFAULT resolved) */
    uint64_t ckpt_steps;          /* C: the verification unit (0 without)   */
} tl_plan_summary;
/* The caller's job files: called by tl_plan_create once the plan's own
 * files are written and before plan.json (a directory without plan.json is
 * an unfinished plan).  Non-zero fails the plan (err set): tl_plan_create
 * removes what it wrote; the callback removes what it wrote itself. */
typedef int (*tl_plan_files_fn)(const tl_plan_summary *s, void *ctx, char *err, size_t errlen);
typedef struct {
    const char *planner_key;      /* path written (0600); refused inside the plan dir */
    const char *worker_key;       /* path written (0600); refused inside the plan dir */
    uint32_t batch;               /* groups per task (0 = 1)                 */
    tl_mode  mode;                /* RandomX mode the tasks use (TL_MODE_DEFAULT:
                                     full: the nodes hold the dataset)      */
    int      force;               /* replace an existing plan / key files    */
    /* Verification as extra tasks (plan version 2).  The group tasks
     * record a sealed chain value every checkpoint_steps steps; a second
     * array of tasks, run after the group array, recomputes the picked
     * segments, and tl_plan_assemble refuses until every one matched.
     * DEFAULT = FULL for a plan (docs/SECURITY.md); NONE writes a
     * version-1 plan. */
    tl_verify verify;
    double   verify_fraction;     /* TL_VERIFY_SAMPLE: 0 < F <= 1 (0 = 0.25) */
    uint64_t checkpoint_steps;    /* C (0 = auto, as tl_generate)            */
    tl_plan_files_fn job_files;   /* optional: the caller's job files        */
    void    *job_files_ctx;
} tl_plan_opts;
/* s receives the summary (on success; the recipient is usable at once). */
int tl_plan_create(const tl_params *p, const tl_plan_opts *o, const char *dir,
                   tl_plan_summary *s, char *err, size_t errlen);
/* A time limit for one task (seconds, a whole number of minutes): 2 x
 * (steps / rate) + setup (RandomX full: 600 s, light: 60 s) + 600 s, where
 * rate is task_rate_mhps (milli-hashes/s, one group on the nodes in the
 * tasks' mode) when non-zero, else the plan's rate (divided by 10 for
 * RandomX light-mode tasks when the rate is not a light-mode
 * calibration's); 0 when there is no rate (no limit). */
uint64_t tl_plan_time_limit(const tl_params *p, tl_mode mode, uint64_t task_rate_mhps);

typedef struct {
    const char *worker_key;       /* path of the worker key file (required)  */
    tl_mode  mode;                /* TL_MODE_DEFAULT = the plan's mode       */
    double   checkpoint_seconds;  /* sealed checkpoint at least this often (0 = 60) */
    tl_progress_fn progress;      /* optional (hashes of this task)          */
    void    *progress_ctx;
    double   progress_interval;   /* seconds, 0 = 0.5                        */
    const volatile int *stop;     /* optional: non-zero -> checkpoint, TL_EINTR */
    int      verify;              /* 1 = run verification task INDEX
                                     of a version-2 plan instead: recompute the
                                     picked segments of the groups of task
                                     (INDEX + 1) mod tasks and record them   */
} tl_task_opts;
typedef struct {
    uint32_t first, last;         /* groups of this task (1-based, inclusive) */
    uint32_t present;             /* valid results already there (skipped)    */
    uint32_t computed;            /* results written by this call             */
    uint32_t resumed;             /* of those, resumed from a checkpoint      */
} tl_task_stats;
/* Run task `task` (0-based: SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX):
 * groups task*batch+1 .. min((task+1)*batch, G).  stats may be NULL.
 * With o->verify: the verification task (first..last: the groups checked;
 * computed: groups whose picked segments all matched, present: of those,
 * already recorded before; a mismatch is TL_EWORKER naming the segment). */
int tl_plan_task(const char *dir, uint32_t task, const tl_task_opts *o, tl_task_stats *stats,
                 char *err, size_t errlen);

/* A plan's progress (`rxlock plan status`), read from its results/ files.
 * With the worker key the results are authenticated and the verification
 * records compared; without it only their presence is known. */
typedef enum {
    TL_TASK_MISSING = 0,          /* nothing recorded yet                    */
    TL_TASK_RUNNING = 1,          /* checkpoints / records, not finished     */
    TL_TASK_DONE    = 2,          /* every result (or every picked segment matched) */
    TL_TASK_FAILED  = 3,          /* a result that does not authenticate, or a
                                     verification mismatch                  */
    TL_TASK_RECORDED = 4          /* verification records present, not
                                     compared (no worker key)               */
} tl_task_state;
typedef struct {
    uint32_t task;                /* 0-based index (the array index)         */
    int      verify;              /* 0 group task, 1 verification task       */
    uint32_t first, last;         /* its groups (a verification task: the groups it checks) */
    tl_task_state state;
    uint32_t groups_done;         /* groups finished (verification: all picked segments matched) */
    double   checkpoint_age;      /* seconds since its newest checkpoint or
                                     record was written; -1 = none         */
    uint32_t bad_group, bad_segment; /* FAILED: the first bad group (and segment, 0 = the result) */
} tl_task_status;
typedef struct {
    uint32_t groups, batch, tasks;
    int      verifies;            /* the plan has verification tasks         */
    int      authenticated;       /* opened with the worker key              */
    uint32_t n;                   /* entries: tasks, then tasks more when verifies */
    tl_task_status *task;         /* free with tl_plan_status_free           */
} tl_plan_status;
/* worker_key: path or NULL. */
int  tl_plan_status_read(const char *dir, const char *worker_key, tl_plan_status *st, char *err, size_t errlen);
void tl_plan_status_free(tl_plan_status *st);

typedef void (*tl_report_fn)(const char *msg, void *ctx);
typedef struct {
    const char *planner_key;      /* path of the planner key file (required) */
    const uint8_t *sign_sk;       /* Ed25519 secret key (64 bytes) or NULL   */
    tl_report_fn report;          /* one call per bad or missing group       */
    void    *report_ctx;
} tl_assemble_opts;
/* Check every result (present, authenticated, right plan, group and
 * steps; no stray result files) and build the puzzle.  Outputs as
 * tl_generate(); nothing is returned unless every group is good. */
int tl_plan_assemble(const char *dir, const tl_assemble_opts *o, char **json, size_t *json_len,
                     tl_puzzle **puzzle, uint8_t pk[32], uint8_t *keep_sk, char *err, size_t errlen);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
