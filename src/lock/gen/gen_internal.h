/* SPDX-License-Identifier: ISC */
/* src/lock/gen/gen_internal.h — the internals of generation (docs/DESIGN.md
 * §4, room gen/): drawing a puzzle's secrets and finishing it, the public
 * generation record (plan.json) and the sealed records and key files a
 * local state and a cluster plan share, the worker pool (worker.c), the
 * state directory (gen_state.c), segment record files (seg_file.c), the
 * chain stepper (chain_steps.c) and the scheduler that resumes,
 * checkpoints and verifies every group's chain (gen_sched.c).  Included
 * by gen/ and by the rooms above it (cluster/). */
#ifndef RXLOCK_GEN_INTERNAL_H
#define RXLOCK_GEN_INTERNAL_H
#include "lock/core/core_internal.h"
#include <stddef.h>
#include <stdint.h>

/* ---- the public record of a generation (plan_info.c) -------------------- */
#define TL_SECRETS_HDR  80
#define TL_SECRETS_ENTRY 88                                 /* nonce 24, seed 32, result key 32 */
#define TL_PLAN_JSON_MAX (1u << 20)

/* The public plan (plan.json): a cluster plan's, or a local state's. */
typedef struct {
    tl_puzzle pub;            /* the puzzle's header fields; wraps NULL, unsigned */
    uint8_t  D[32];           /* plan digest = H of the unsigned header */
    tl_mode  mode;
    uint32_t batch, tasks;
    uint8_t  worker_pk[32], planner_pk[32];
    /* Plan version 2: verification as extra tasks.  verify is
     * TL_VERIFY_NONE (or 0: a version-1 plan), _SAMPLE or _FULL; the group
     * tasks record a sealed chain value every ckpt_steps steps
     * (results/group-NNNN.segs), the verification tasks recompute the
     * picked segments (results/group-NNNN.verify). */
    int      verify;
    uint32_t verify_ppm;      /* share of segments picked, per million (FULL: 1000000) */
    uint64_t ckpt_steps;      /* C */
    uint32_t nseg;            /* segments per group: ceil(S / C) */
} tl_plan_info;
/* Does this plan verify its chains? */
#define TL_PLAN_VERIFIES(pi) ((pi)->verify == TL_VERIFY_SAMPLE || (pi)->verify == TL_VERIFY_FULL)

/* plan.json: strict parse (everything bounded, D recomputed and checked). */
int tl_plan_info_load(const char *dir, tl_plan_info *pi, char *err, size_t errlen);
/* The same for the file name under the directory handle dfd (a regular
 * file only; shown: its name in messages). */
int tl_plan_info_load_at(int dfd, const char *name, const char *shown, tl_plan_info *pi, char *err, size_t errlen);
int tl_plan_info_json(const tl_plan_info *pi, char **out, size_t *len);

/* ---- drawing and finishing a puzzle (draw.c, finish.c) ------------------ */
/* Every secret of a new puzzle, in plan.secrets' layout followed by the
 * planner and worker secret keys: x, G x (nonce_g, s_g, r_g), psk, wsk
 * (tl_draw_size(G) bytes; the caller's locked memory).  Fills pi's public
 * header (unsigned, unverified), D, planner_pk and worker_pk. */
size_t tl_draw_size(uint32_t G);
int tl_draw(tl_plan_info *pi, uint8_t *sec, const tl_params *p);
/* The finished puzzle: pz holds the header fields (wraps NULL,
 * verification set); sec in the layout above, e = e_1 .. e_G.  Seals the
 * wraps, signs with sign_sk when given, self-checks every wrap, emits the
 * canonical text and its parse (parsed, when not NULL: the caller's to
 * free); pk = X, keep_sk (if given) = x. */
int tl_finish(tl_puzzle *pz, const uint8_t *sec, const uint8_t *e, const uint8_t *sign_sk,
              char **json, size_t *json_len, tl_puzzle **parsed, uint8_t pk[32], uint8_t *keep_sk);

/* ---- sealed records and key files (records.c) --------------------------- */
/* BLAKE2b-256(key, label || a || b): every record key. */
void tl_rec_kdf(uint8_t out[32], const uint8_t key[32], const char *label,
                const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* Ephemeral-static X25519 key k for a record sealed to to_pk (eph_pk goes
 * into the record), and the recipient's side of it. */
int tl_rec_seal_key(uint8_t k[32], uint8_t eph_pk[32], const char *label, uint32_t g,
                    const uint8_t to_pk[32], const char *kdf_label);
int tl_rec_open_key(uint8_t k[32], const uint8_t eph_pk[32], const uint8_t sk[32], const char *kdf_label);
/* XChaCha20-Poly1305: ct = len + 16 bytes; open wipes pt on failure (TL_EAUTH). */
int tl_rec_aead_seal(uint8_t *ct, const uint8_t *pt, size_t len, const uint8_t *aad, size_t alen,
                     const uint8_t nonce[24], const uint8_t k[32]);
int tl_rec_aead_open(uint8_t *pt, const uint8_t *ct, size_t len, const uint8_t *aad, size_t alen,
                     const uint8_t nonce[24], const uint8_t k[32]);

/* "DIR/jobs/group-0001.job", "DIR/results/group-0001.result", ".ckpt",
 * ".segs" (kind "segs"), ".verify", else "DIR/KIND"; -1 when the path
 * does not fit. */
int tl_plan_path(char *buf, size_t cap, const char *dir, const char *kind, uint32_t g);

/* X25519 key files ("# ..." lines, then 64 hex digits of the secret key). */
int tl_plan_key_save(const char *path, const uint8_t sk[32], const char *title, int force);
int tl_plan_key_load(const char *path, uint8_t sk[32], uint8_t pk[32]);
/* The same relative to a directory handle (a generation state's key). */
int tl_plan_key_save_at(int dfd, const char *name, const uint8_t sk[32], const char *title, int force);
int tl_plan_key_load_at(int dfd, const char *name, uint8_t sk[32], uint8_t pk[32]);
/* The plan's `role` key ("planner", "worker") from path, refused unless its
 * public key is want_pk: the one check assemble and the group task make. */
int tl_plan_key_load_for(const char *path, const char *role, const uint8_t want_pk[32], uint8_t sk[32],
                         uint8_t pk[32], char *err, size_t errlen);

/* plan.secrets: x, then (nonce_g, s_g, r_g) for g = 1..G, under a key
 * derived from the planner's secret key and D. */
size_t tl_secrets_size(uint32_t G);
int  tl_secrets_seal(uint8_t *out, const uint8_t D[32], uint32_t G, const uint8_t *pt,
                     const uint8_t planner_sk[32]);
int  tl_secrets_open(uint8_t *pt, const uint8_t *in, size_t len, const uint8_t D[32], uint32_t G,
                     const uint8_t planner_sk[32]);

/* ---- the worker pool (worker.c) ----------------------------------------- */
/* One task: steps i0 .. i1-1 of group g's chain from d0 = d_{i0}(g); the
 * worker reports d at every multiple of `every` inside (i0, i1) and at i1. */
typedef struct {
    uint32_t g;
    uint64_t i0, i1;
    uint8_t  d0[32];
    uint64_t every;          /* 0 = only the end                         */
    int      chain;          /* 1 = the group's chain, 0 = a verification */
    unsigned attempt;        /* chain: earlier failed attempts (test faults) */
    uint64_t tag;            /* the scheduler's                          */
    unsigned bundled;        /* tasks in the worker's bundle (set by the pool) */
} tl_task;

/* a worker runs a bundle of up to TL_BUNDLE_MAX tasks at once
 * (SHA3: their chains advance together in SIMD lanes, tl_work_steps_multi);
 * each task still reports its own values.  tl_pool_cb.lanes bounds it. */
#define TL_BUNDLE_MAX 8

/* Memory a child wipes before it starts (the parent's other secrets), and
 * descriptors it closes (the state directory's lock: a killed parent's
 * children must not hold it; -1 = none). */
#define TL_WIPE_MAX 4
typedef struct { void *p[TL_WIPE_MAX]; size_t len[TL_WIPE_MAX]; int fd[2]; } tl_wipe;

typedef struct {
    void *ctx;
    int  (*next)(void *ctx, tl_task *t);            /* 1 = *t is the next task, 0 = none now */
    /* A value the worker `pid` reported: d_i(g) (i = t->i1: the end).
     * 0 = go on, 1 = drop the task (kill it; not a failure), < 0 = fail. */
    int  (*value)(void *ctx, const tl_task *t, uint64_t i, const uint8_t d[32], long pid);
    void (*reached)(void *ctx, const tl_task *t, uint64_t i);   /* progress (optional) */
    int  (*lost)(void *ctx, const tl_task *t);      /* crashed / hung / lied: 0 = re-run, < 0 = fail */
    int  (*done)(void *ctx);                        /* 1 = nothing left      */
    void (*totals)(void *ctx, uint64_t *done, uint64_t *total, uint32_t *gdone, uint32_t *gtotal);
    void (*tick)(void *ctx);                        /* about every 0.1 s (optional) */
    unsigned lanes;          /* tasks per worker, 1..TL_BUNDLE_MAX (0 = 1) */
    /* Optional (a checkpointing pool, as a cluster task is): a task's value
     * d_i inside its run, reported every ckpt_seconds and when the pool is
     * stopped (its workers are asked to report and end, not killed: up to
     * 10 s).  0 = go on, < 0 = fail. */
    int  (*ckpt)(void *ctx, const tl_task *t, uint64_t i, const uint8_t d[32]);
    double ckpt_seconds;
} tl_pool_cb;

/* The number of worker processes tl_pool_run starts for o. */
unsigned tl_pool_workers(const tl_gen_opts *o);
/* Tasks per worker for G groups of `work`: min(tl_work_lanes, ceil(G / nw),
 * TL_BUNDLE_MAX), so every worker gets a bundle while there are groups. */
unsigned tl_pool_bundle(tl_work_type work, uint32_t G, unsigned nw);

/* Run tasks until cb->done: o->workers processes, o->worker_timeout,
 * o->stop, o->progress.  TL_OK, TL_EINTR, TL_EWORKER or the callbacks' code. */
int tl_pool_run(tl_work *w, const tl_pool_cb *cb, const tl_wipe *wipe, const tl_gen_opts *o);

/* ---- the generation state directory (gen_state.c) ----------------------- */
#define TL_SEG_CHAIN     1   /* the chain's value at a segment end             */
#define TL_SEG_VERIFIED  2   /* a second worker recomputed the segment: equal */
#define TL_SEG_CORRECTED 3   /* two recomputations agreed against the chain:
                                the value from here on; later records void   */
#define TL_HOST_MAX 56       /* host name in a record, NUL padded            */
typedef struct tl_state tl_state;
/* A group's records, in file order (sealed records that do not open end
 * the file: a torn tail, cut off). */
typedef int (*tl_seg_fn)(void *ctx, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                         const char host[TL_HOST_MAX]);

/* Open (resume) or create the state directory `dir` for parameters p;
 * extra: the caller's own file names in it (NULL-terminated, may be NULL).
 * Fills pi and sec (tl_draw's layout) and *C (the recorded segment size
 * when resumed, else C_new); *resumed = 1 when it held this puzzle's
 * state.  Refuses (TL_EINVAL, err) a state for other parameters and a
 * directory another run holds (TL_EIO); err names the file and the way
 * out. */
int  tl_state_open(tl_state **st, const char *dir, const char *const *extra, const tl_params *p, uint64_t C_new,
                   tl_plan_info *pi, uint8_t *sec, uint64_t *C, int *resumed, char *err, size_t errlen);
int  tl_state_read(tl_state *st, uint32_t g, const uint8_t rkey[32], tl_seg_fn fn, void *ctx);
/* Append one sealed record to group g's file; a failed write (TL_EIO, as
 * on a full disk) leaves err naming the file and the cause (what was
 * written before stays). */
int  tl_state_append(tl_state *st, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                     const char host[TL_HOST_MAX], const uint8_t rkey[32], char *err, size_t errlen);
/* The highest chain step each group had reached (progress, about every
 * 0.1 s, not synced): what a resumed run reports as lost. */
void tl_state_progress_save(tl_state *st, const uint64_t *reached, uint32_t G);
int  tl_state_progress_load(tl_state *st, uint64_t *reached, uint32_t G);
void tl_state_close(tl_state *st);
void tl_state_fds(const tl_state *st, int fd[2]);

/* Sealed segment record (records.c), docs/FORMAT.md §Generation state. */
#define TL_SEG_SIZE 200
void tl_seg_seal(uint8_t out[TL_SEG_SIZE], const uint8_t D[32], uint32_t g, int kind, uint64_t i,
                 const uint8_t d[32], long pid, const char host[TL_HOST_MAX], const uint8_t rkey[32]);
int  tl_seg_open(int *kind, uint64_t *i, uint8_t d[32], long *pid, char host[TL_HOST_MAX],
                 const uint8_t in[TL_SEG_SIZE], const uint8_t D[32], uint32_t g, const uint8_t rkey[32]);
/* Files of such records (seg_file.c), name relative to the directory
 * handle dfd (AT_FDCWD: a path), opened as regular files only (no symbolic
 * link, FIFO or device: TL_EIO): append one (fdatasync'd; the directory
 * synced when the file is new); read them in order into fn, a record that
 * does not open or that fn rejects (non-zero) ending the file, which `cut`
 * truncates there through its descriptor (only the file's writer cuts).
 * An absent file reads as empty. */
int  tl_seg_file_append(int dfd, const char *name, const uint8_t D[32], uint32_t g, int kind, uint64_t i,
                        const uint8_t d[32], long pid, const char host[TL_HOST_MAX], const uint8_t rkey[32]);
int  tl_seg_file_read(int dfd, const char *name, const uint8_t D[32], uint32_t g, const uint8_t rkey[32], int cut,
                      tl_seg_fn fn, void *ctx);

/* ---- advancing a chain (chain_steps.c) ---------------------------------- */
typedef struct { uint32_t g; uint64_t batch, flip; } tl_stepper;
/* faults: honour the test build's RXLOCK_TEST_FLIP for this chain. */
void tl_stepper_init(tl_stepper *s, uint32_t g, int faults);
/* One batch of steps from *i (< end) toward end, never past the next
 * multiple of `every` (0 = none); *i advanced, d updated. */
int  tl_stepper_run(tl_stepper *s, tl_work *w, uint64_t *i, uint64_t end, uint64_t every, uint8_t d[32]);
/* chains k < nc (stepper s[k], at i[k], value d[k]) that have
 * not reached end[k] take one batch of the same number of steps together
 * (tl_work_steps_multi: SHA3 lanes), capped at every running chain's end,
 * next multiple of its every[k] (0 = none) and test flip, so a caller can
 * record each at its own boundaries.  nc <= TL_BUNDLE_MAX. */
int  tl_stepper_run_multi(tl_stepper *s, unsigned nc, tl_work *w, uint64_t *i, const uint64_t *end,
                          const uint64_t *every, uint8_t (*d)[32]);

/* ---- the scheduler (gen_sched.c) ---------------------------------------- */
/* Run every group's chain to S from what st (may be NULL: in memory)
 * holds, checkpointing every C steps and verifying segments as o asks;
 * e receives e_1 .. e_G (G x 32 bytes, locked memory).  The verification
 * outcome goes to pz (method, segments, checked) and o->stats. */
int  tl_sched_run(tl_work *w, tl_state *st, const tl_plan_info *pi, const uint8_t *sec, uint64_t C,
                  uint8_t *e, tl_puzzle *pz, const tl_gen_opts *o, tl_gen_stats *stats);
/* The default segment size for G x S of `work` (bounded by TL_MAX_SEGMENTS). */
uint64_t tl_sched_default_c(tl_work_type work, uint32_t G, uint64_t S);
#endif
