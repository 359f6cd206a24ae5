/* SPDX-License-Identifier: ISC */
/* src/lock/gen_internal.h — internals of generation (issue 20): the worker
 * pool's task and callbacks (worker.c), the generation state directory
 * (gen_state.c) and the scheduler that resumes, checkpoints and verifies
 * every group's chain (gen_sched.c). */
#ifndef RXLOCK_GEN_INTERNAL_H
#define RXLOCK_GEN_INTERNAL_H
#include "plan_internal.h"
#include <stddef.h>
#include <stdint.h>

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

/* Issue 23: a worker runs a bundle of up to TL_BUNDLE_MAX tasks at once
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
    void (*reached)(void *ctx, const tl_task *t, uint64_t i);   /* progress */
    int  (*lost)(void *ctx, const tl_task *t);      /* crashed / hung / lied: 0 = re-run, < 0 = fail */
    int  (*done)(void *ctx);                        /* 1 = nothing left      */
    void (*totals)(void *ctx, uint64_t *done, uint64_t *total, uint32_t *gdone, uint32_t *gtotal);
    void (*tick)(void *ctx);                        /* about every 0.1 s */
    unsigned lanes;          /* tasks per worker, 1..TL_BUNDLE_MAX (0 = 1) */
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

/* Open (resume) or create the state directory `dir` for parameters p.
 * Fills pi and sec (tl_draw's layout) and *C (the recorded segment size
 * when resumed, else C_new); *resumed = 1 when it held this puzzle's
 * state.  Refuses (TL_EINVAL, err) a state for other parameters and a
 * directory another run holds (TL_EIO). */
int  tl_state_open(tl_state **st, const char *dir, const tl_params *p, uint64_t C_new, tl_plan_info *pi,
                   uint8_t *sec, uint64_t *C, int *resumed, char *err, size_t errlen);
int  tl_state_read(tl_state *st, uint32_t g, const uint8_t rkey[32], tl_seg_fn fn, void *ctx);
int  tl_state_append(tl_state *st, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                     const char host[TL_HOST_MAX], const uint8_t rkey[32]);
/* The highest chain step each group had reached (progress, about every
 * 0.1 s, not synced): what a resumed run reports as lost. */
void tl_state_progress_save(tl_state *st, const uint64_t *reached, uint32_t G);
int  tl_state_progress_load(tl_state *st, uint64_t *reached, uint32_t G);
void tl_state_close(tl_state *st);
void tl_state_fds(const tl_state *st, int fd[2]);

/* Sealed segment record (plan_files.c), docs/FORMAT.md §Generation state. */
#define TL_SEG_SIZE 200
void tl_seg_seal(uint8_t out[TL_SEG_SIZE], const uint8_t D[32], uint32_t g, int kind, uint64_t i,
                 const uint8_t d[32], long pid, const char host[TL_HOST_MAX], const uint8_t rkey[32]);
int  tl_seg_open(int *kind, uint64_t *i, uint8_t d[32], long *pid, char host[TL_HOST_MAX],
                 const uint8_t in[TL_SEG_SIZE], const uint8_t D[32], uint32_t g, const uint8_t rkey[32]);
/* Files of such records (seg_file.c): append one (fdatasync'd; the
 * directory synced when the file is new); read them in order into fn, a
 * record that does not open or that fn rejects (non-zero) ending the file,
 * which `cut` truncates there (only the file's writer cuts).  An absent
 * file reads as empty. */
int  tl_seg_file_append(const char *path, const uint8_t D[32], uint32_t g, int kind, uint64_t i,
                        const uint8_t d[32], long pid, const char host[TL_HOST_MAX], const uint8_t rkey[32]);
int  tl_seg_file_read(const char *path, const uint8_t D[32], uint32_t g, const uint8_t rkey[32], int cut,
                      tl_seg_fn fn, void *ctx);

/* ---- a verified plan's record files (plan_segs.c) ------------------------ */
/* Where segment k (1..nseg) of a plan's chains ends: k*C, the last at S. */
uint64_t tl_plan_seg_end(const tl_plan_info *pi, uint32_t k);
/* A group's recorded chain values (.segs): val[k] = d at the end of segment
 * k for k = 1..have (val: (nseg + 1) x 32 bytes, val[0] the caller's);
 * pid / host (nseg + 1 entries) optional. */
typedef struct {
    uint32_t have;
    uint8_t *val;
    long    *pid;
    char   (*host)[TL_HOST_MAX];
} tl_plan_chain;
int tl_plan_chain_read(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t rkey[32], int cut,
                       tl_plan_chain *c);
/* A group's verification records (.verify) against c: state[k] (nseg + 1
 * bytes) 0 = none, MATCHED, or DIFFERS (which a later record never
 * outvotes); bad = how many differ, first_bad the first; pid / host of the
 * verifier, optional. */
#define TL_PLAN_MATCHED 1
#define TL_PLAN_DIFFERS 2
typedef struct {
    uint8_t *state;
    long    *pid;
    char   (*host)[TL_HOST_MAX];
    uint32_t bad, first_bad;
} tl_plan_checks;
int tl_plan_checks_read(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t rkey[32], int cut,
                        const tl_plan_chain *c, tl_plan_checks *v);

/* ---- advancing a chain (chain_steps.c) ---------------------------------- */
typedef struct { uint32_t g; uint64_t batch, flip; } tl_stepper;
/* faults: honour the test build's RXLOCK_TEST_FLIP for this chain. */
void tl_stepper_init(tl_stepper *s, uint32_t g, int faults);
/* One batch of steps from *i (< end) toward end, never past the next
 * multiple of `every` (0 = none); *i advanced, d updated. */
int  tl_stepper_run(tl_stepper *s, tl_work *w, uint64_t *i, uint64_t end, uint64_t every, uint8_t d[32]);
/* Issue 23: chains k < nc (stepper s[k], at i[k], value d[k]) that have
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
