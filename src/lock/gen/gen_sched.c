/* SPDX-License-Identifier: ISC */
/* src/lock/gen/gen_sched.c — the generation scheduler (docs/DESIGN.md §3):
 * every group's chain runs from its last checkpoint, reporting its value
 * at each segment end (every C steps), which is sealed into the state
 * before it counts; free workers recompute chosen segments from their
 * recorded start (verification); a mismatch is decided by a third
 * computation, which names the odd worker; a chain found wrong is
 * corrected at that segment and recomputed from there.  The pool runs up to
 * tl_pool_bundle tasks per worker (SHA3 chains in SIMD lanes):
 * each task is still handed out, reported and lost on its own.  Nothing is wrapped
 * before every chain is complete and every chosen segment matched. */
#include "gen_internal.h"
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { VS_NONE = 0, VS_SKIP, VS_TODO, VS_RUN1, VS_DISPUTE, VS_RUN3, VS_OK };
#define TAG_THIRD (1ull << 63)

typedef struct {
    const tl_plan_info *pi;
    const uint8_t *sec;
    const tl_gen_opts *o;
    tl_state *st;
    uint32_t G, nseg;            /* segments per group */
    uint64_t S, C;
    double   frac;               /* share of segments verified */
    unsigned retries;
    uint8_t *val;                /* locked: (G x (nseg+1)) x 32; [g][0] = s_g */
    uint8_t *alt;                /* locked: a first verification's differing value */
    long    *pid;                /* who computed val (chain / correction)   */
    long    *alt_pid;
    char   (*host)[TL_HOST_MAX]; /* host of val's worker                    */
    uint8_t *vs;                 /* segment state                           */
    uint32_t *have, *epoch;
    uint8_t *running;            /* a chain task is out for the group       */
    unsigned *attempts;
    uint64_t *reached;           /* highest chain step seen (progress)      */
    unsigned vlost;
    char     me[TL_HOST_MAX];
    tl_gen_stats *stats;
    int      failed;
} sched;

static size_t ix(const sched *s, uint32_t g, uint32_t k) { return (size_t)(g - 1) * (s->nseg + 1) + k; }
static uint64_t pos(const sched *s, uint32_t k) { return k == s->nseg ? s->S : (uint64_t)k * s->C; }
static const uint8_t *rkey(const sched *s, uint32_t g) { return s->sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY + 56; }

uint64_t tl_sched_default_c(tl_work_type work, uint32_t G, uint64_t S) {
    /* about 1024 segments per group, at least ~0.1 s of work each, and
     * at most TL_MAX_SEGMENTS in all */
    uint64_t per = TL_MAX_SEGMENTS / G < 1024 ? TL_MAX_SEGMENTS / G : 1024;
    uint64_t c = (S + per - 1) / per, cmin = work == TL_WORK_SHA3_256 ? 1u << 17 : 64;
    if (c < cmin) c = cmin;
    return c > S ? S : c;
}

static int persist(sched *s, uint32_t g, int kind, uint32_t k, const uint8_t *d, long pid, const char *host) {
    if (!s->st) return TL_OK;
    char h[TL_HOST_MAX] = {0};
    snprintf(h, sizeof h, "%s", host);
    char err[600];
    int rc = tl_state_append(s->st, g, kind, pos(s, k), d, pid, h, rkey(s, g), err, sizeof err);
    if (rc == TL_EIO) tl_event_emit(s->o, TL_EVENT_STATE, g, 0, "%s", err);   /* names the file (a full disk?) */
    return rc;
}

/* A segment just got its recorded end: is it to be verified? */
static void choose(sched *s, uint32_t g, uint32_t k) {
    uint8_t r[4];
    if (s->frac >= 1) { s->vs[ix(s, g, k)] = VS_TODO; return; }
    if (s->frac <= 0 || tl_random(r, 4, "verify-sample", ((uint64_t)g << 32) | k) != TL_OK) {
        s->vs[ix(s, g, k)] = VS_SKIP;
        return;
    }
    s->vs[ix(s, g, k)] = (double)tl_get32(r) < s->frac * 4294967296.0 ? VS_TODO : VS_SKIP;
}

/* ---- loading a state's records ------------------------------------------- */
static int apply(void *ctx, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                 const char host[TL_HOST_MAX]) {
    sched *s = ctx;
    uint32_t k = i == s->S ? s->nseg : (uint32_t)(i / s->C);
    if (i == 0 || (i != s->S && i % s->C != 0) || k > s->nseg) return -1;
    size_t at = ix(s, g, k);
    if (kind == TL_SEG_CHAIN) {
        if (k != s->have[g - 1] + 1) return -1;
        memcpy(s->val + at * 32, d, 32);
        s->pid[at] = pid;
        memcpy(s->host[at], host, TL_HOST_MAX);
        s->have[g - 1] = k;
        s->vs[at] = VS_NONE;
    } else if (kind == TL_SEG_VERIFIED) {
        if (k > s->have[g - 1] || sodium_memcmp(s->val + at * 32, d, 32) != 0) return -1;
        s->vs[at] = VS_OK;
    } else {
        if (k > s->have[g - 1]) return -1;
        memcpy(s->val + at * 32, d, 32);
        s->pid[at] = pid;
        memcpy(s->host[at], host, TL_HOST_MAX);
        s->have[g - 1] = k;
        for (uint32_t m = k + 1; m <= s->nseg; m++) s->vs[ix(s, g, m)] = VS_NONE;
        s->vs[at] = VS_OK;
    }
    return 0;
}

/* ---- the pool's callbacks ------------------------------------------------ */
static int cb_next(void *ctx, tl_task *t) {
    sched *s = ctx;
    if (s->failed) return 0;
    /* third computations first, then chains, then verification */
    for (int pass = 0; pass < 3; pass++)
        for (uint32_t g = 1; g <= s->G; g++) {
            if (pass == 1) {
                if (s->have[g - 1] >= s->nseg || s->running[g - 1]) continue;
                uint32_t k = s->have[g - 1];
                *t = (tl_task){ .g = g, .i0 = pos(s, k), .i1 = s->S, .every = s->C, .chain = 1,
                                .attempt = s->attempts[g - 1], .tag = s->epoch[g - 1] };
                memcpy(t->d0, s->val + ix(s, g, k) * 32, 32);
                s->running[g - 1] = 1;
                return 1;
            }
            for (uint32_t k = 1; k <= s->have[g - 1]; k++) {
                uint8_t *v = &s->vs[ix(s, g, k)];
                if (*v != (pass == 0 ? VS_DISPUTE : VS_TODO)) continue;
                *v = pass == 0 ? VS_RUN3 : VS_RUN1;
                *t = (tl_task){ .g = g, .i0 = pos(s, k - 1), .i1 = pos(s, k), .chain = 0,
                                .tag = ((uint64_t)s->epoch[g - 1] << 32) | k | (pass == 0 ? TAG_THIRD : 0) };
                memcpy(t->d0, s->val + ix(s, g, k - 1) * 32, 32);
                return 1;
            }
        }
    return 0;
}

static int chain_value(sched *s, const tl_task *t, uint64_t i, const uint8_t d[32], long pid) {
    uint32_t g = t->g;
    if (t->tag != s->epoch[g - 1]) return 1;            /* corrected meanwhile: stale */
    uint32_t k = i == s->S ? s->nseg : (uint32_t)(i / s->C);
    if (k != s->have[g - 1] + 1) return TL_EWORKER;
    size_t at = ix(s, g, k);
    memcpy(s->val + at * 32, d, 32);
    s->pid[at] = pid;
    memcpy(s->host[at], s->me, TL_HOST_MAX);
    int rc = persist(s, g, TL_SEG_CHAIN, k, d, pid, s->me);
    if (rc) return rc;
    s->have[g - 1] = k;
    if (i > s->reached[g - 1]) s->reached[g - 1] = i;
    choose(s, g, k);
    if (i == t->i1) s->running[g - 1] = 0;
    return 0;
}

static int verify_value(sched *s, const tl_task *t, const uint8_t d[32], long pid) {
    uint32_t g = t->g, k = (uint32_t)(t->tag & 0xffffffffu);
    int third = (t->tag & TAG_THIRD) != 0;
    if ((uint32_t)((t->tag & ~TAG_THIRD) >> 32) != s->epoch[g - 1]) return 0;   /* stale: ignored */
    size_t at = ix(s, g, k);
    uint8_t *rec = s->val + at * 32, *alt = s->alt + at * 32;
    const tl_gen_opts *o = s->o;
    s->stats->verify_steps += t->i1 - t->i0;
    unsigned long long a = (unsigned long long)t->i0, b = (unsigned long long)t->i1;
    if (!third) {
        if (sodium_memcmp(d, rec, 32) == 0) {
            s->vs[at] = VS_OK;
            return persist(s, g, TL_SEG_VERIFIED, k, d, pid, s->me);
        }
        memcpy(alt, d, 32);
        s->alt_pid[at] = pid;
        s->vs[at] = VS_DISPUTE;
        s->stats->mismatches++;
        tl_event_emit(o, TL_EVENT_VERIFY, g, 0, "verification: group %u segment %u (steps %llu..%llu): the chain "
                      "(worker %s pid %ld) and a recomputation (worker %s pid %ld) differ; computing it a third time",
                      g, k, a, b, s->host[at], s->pid[at], s->me, pid);
        return 0;
    }
    if (sodium_memcmp(d, alt, 32) == 0) {               /* the chain was odd */
        tl_event_emit(o, TL_EVENT_VERIFY, g, 0, "verification: group %u segment %u (steps %llu..%llu): two "
                      "recomputations (pids %ld, %ld) agree; the chain's worker (%s pid %ld) gave the odd value: "
                      "corrected, group %u recomputed from step %llu", g, k, a, b, s->alt_pid[at], pid,
                      s->host[at], s->pid[at], g, b);
        memcpy(rec, d, 32);
        s->pid[at] = pid;
        memcpy(s->host[at], s->me, TL_HOST_MAX);
        s->have[g - 1] = k;
        s->epoch[g - 1]++;
        s->running[g - 1] = 0;
        for (uint32_t m = k + 1; m <= s->nseg; m++) s->vs[ix(s, g, m)] = VS_NONE;
        s->vs[at] = VS_OK;
        s->stats->corrected++;
        return persist(s, g, TL_SEG_CORRECTED, k, d, pid, s->me);
    }
    if (sodium_memcmp(d, rec, 32) == 0) {               /* the first recomputation was odd */
        tl_event_emit(o, TL_EVENT_VERIFY, g, 0, "verification: group %u segment %u (steps %llu..%llu): a third "
                      "computation (pid %ld) agrees with the chain; the verifying worker (%s pid %ld) gave the odd "
                      "value", g, k, a, b, pid, s->me, s->alt_pid[at]);
        s->vs[at] = VS_OK;
        return persist(s, g, TL_SEG_VERIFIED, k, d, pid, s->me);
    }
    tl_event_emit(o, TL_EVENT_VERIFY, g, 0, "verification: group %u segment %u (steps %llu..%llu): three "
                  "computations (pids %ld, %ld, %ld) all differ; giving up", g, k, a, b, s->pid[at], s->alt_pid[at], pid);
    s->failed = 1;
    return TL_EWORKER;
}

static int cb_value(void *ctx, const tl_task *t, uint64_t i, const uint8_t d[32], long pid) {
    sched *s = ctx;
    return t->chain ? chain_value(s, t, i, d, pid) : verify_value(s, t, d, pid);
}

static void cb_reached(void *ctx, const tl_task *t, uint64_t i) {
    sched *s = ctx;
    if (t->chain && t->tag == s->epoch[t->g - 1] && i > s->reached[t->g - 1]) s->reached[t->g - 1] = i;
}

static int cb_lost(void *ctx, const tl_task *t) {
    sched *s = ctx;
    uint32_t g = t->g;
    if (!t->chain) {
        uint32_t k = (uint32_t)(t->tag & 0xffffffffu);
        if ((uint32_t)((t->tag & ~TAG_THIRD) >> 32) == s->epoch[g - 1]) {
            uint8_t *v = &s->vs[ix(s, g, k)];
            if (*v == VS_RUN1) *v = VS_TODO;
            else if (*v == VS_RUN3) *v = VS_DISPUTE;
        }
        if (++s->vlost > (4 + 4 * s->retries) * (t->bundled ? t->bundled : 1)) {   /* a lost bundle loses each of its tasks */
            tl_event_emit(s->o, TL_EVENT_WORKER_FAILED, g, 0, "verification workers keep failing");
            return TL_EWORKER;
        }
        tl_event_emit(s->o, TL_EVENT_WORKER_RETRY, g, 0, "verification worker for group %u failed; re-running it", g);
        return TL_OK;
    }
    if (t->tag != s->epoch[g - 1]) return TL_OK;        /* a stale chain task */
    s->running[g - 1] = 0;
    char with[48] = "";
    if (t->bundled > 1) snprintf(with, sizeof with, " (one of %u tasks in its worker)", t->bundled);
    if (++s->attempts[g - 1] > s->retries) {
        tl_event_emit(s->o, TL_EVENT_WORKER_FAILED, g, 0, "worker for group %u%s failed", g, with);
        return TL_EWORKER;
    }
    tl_event_emit(s->o, TL_EVENT_WORKER_RETRY, g, 0, "worker for group %u%s failed; re-running the group from step %llu",
                  g, with, (unsigned long long)pos(s, s->have[g - 1]));
    return TL_OK;
}

static int cb_done(void *ctx) {
    sched *s = ctx;
    for (uint32_t g = 1; g <= s->G; g++) {
        if (s->have[g - 1] < s->nseg) return 0;
        for (uint32_t k = 1; k <= s->nseg; k++) {
            uint8_t v = s->vs[ix(s, g, k)];
            if (v != VS_SKIP && v != VS_OK) return 0;
        }
    }
    return 1;
}

static void cb_totals(void *ctx, uint64_t *done, uint64_t *total, uint32_t *gdone, uint32_t *gtotal) {
    sched *s = ctx;
    uint64_t d = 0;
    uint32_t gd = 0;
    for (uint32_t g = 1; g <= s->G; g++) {
        d += pos(s, s->have[g - 1]);
        gd += s->have[g - 1] == s->nseg;
    }
    uint64_t chain = (uint64_t)s->G * s->S, vplan = (uint64_t)((double)chain * s->frac);
    if (vplan < s->stats->verify_steps) vplan = s->stats->verify_steps;
    *done = d + s->stats->verify_steps;
    *total = chain + vplan;
    *gdone = gd;
    *gtotal = s->G;
}

static void cb_tick(void *ctx) {
    sched *s = ctx;
    if (s->st) tl_state_progress_save(s->st, s->reached, s->G);
}

/* ---- the run -------------------------------------------------------------- */
int tl_sched_run(tl_work *w, tl_state *st, const tl_plan_info *pi, const uint8_t *sec, uint64_t C,
                 uint8_t *e, tl_puzzle *pz, const tl_gen_opts *o, tl_gen_stats *stats) {
    sched s = { .pi = pi, .sec = sec, .o = o, .st = st, .G = pi->pub.groups, .S = pi->pub.steps, .C = C,
                .retries = o->retries, .stats = stats };
    if (C < 1 || C > s.S) return TL_EINVAL;
    s.nseg = (uint32_t)((s.S + C - 1) / C);
    if ((uint64_t)s.nseg * s.G > TL_MAX_SEGMENTS) return TL_EINVAL;
    switch (o->verify) {
    case TL_VERIFY_NONE: s.frac = 0; break;
    case TL_VERIFY_FULL: s.frac = 1; break;
    default: s.frac = o->verify_fraction > 0 && o->verify_fraction <= 1 ? o->verify_fraction : 0.25; break;
    }
    size_t n = (size_t)s.G * (s.nseg + 1);
    s.val = sodium_malloc(n * 32);
    s.alt = sodium_malloc(n * 32);
    s.pid = calloc(n, sizeof *s.pid);
    s.alt_pid = calloc(n, sizeof *s.alt_pid);
    s.host = calloc(n, sizeof *s.host);
    s.vs = calloc(n, 1);
    s.have = calloc(s.G, sizeof *s.have);
    s.epoch = calloc(s.G, sizeof *s.epoch);
    s.running = calloc(s.G, 1);
    s.attempts = calloc(s.G, sizeof *s.attempts);
    s.reached = calloc(s.G, sizeof *s.reached);
    uint64_t *before = calloc(s.G, sizeof *before);
    int rc = TL_OK;
    if (!s.val || !s.alt || !s.pid || !s.alt_pid || !s.host || !s.vs || !s.have || !s.epoch || !s.running ||
        !s.attempts || !s.reached || !before) { rc = TL_ENOMEM; goto out; }
    memset(s.val, 0, n * 32);
    memset(s.alt, 0, n * 32);
    if (gethostname(s.me, sizeof s.me - 1) != 0) strcpy(s.me, "localhost");
    s.me[TL_HOST_MAX - 1] = 0;
    stats->checkpoint_steps = C;
    stats->steps_total = (uint64_t)s.G * s.S;
    stats->segments = s.nseg * s.G;
    for (uint32_t g = 1; g <= s.G; g++)
        memcpy(s.val + ix(&s, g, 0) * 32, sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY + 24, 32);
    if (st) {                                  /* resume: what the state holds */
        int have_prog = tl_state_progress_load(st, before, s.G) == 0;
        for (uint32_t g = 1; g <= s.G && rc == TL_OK; g++) {
            rc = tl_state_read(st, g, rkey(&s, g), apply, &s);
            uint64_t at = pos(&s, s.have[g - 1]);
            stats->steps_resumed += at;
            if (have_prog && before[g - 1] > at && before[g - 1] <= s.S) stats->steps_lost += before[g - 1] - at;
            s.reached[g - 1] = at;
            for (uint32_t k = 1; k <= s.have[g - 1]; k++) {
                if (s.vs[ix(&s, g, k)] == VS_OK) stats->checked++;   /* for the message */
                else choose(&s, g, k);
            }
        }
        if (rc) goto out;
        if (stats->resumed)
            tl_event_emit(o, TL_EVENT_RESUMED, 0, 0, "resumed: %llu of %llu chain steps were checkpointed, %u of %u "
                          "segments already verified; %llu steps computed before the interruption were lost and are "
                          "recomputed (at most %llu per group)", (unsigned long long)stats->steps_resumed,
                          (unsigned long long)stats->steps_total, stats->checked, stats->segments,
                          (unsigned long long)stats->steps_lost, (unsigned long long)C);
        tl_state_progress_save(st, s.reached, s.G);
    }
    tl_pool_cb cb = { .ctx = &s, .next = cb_next, .value = cb_value, .reached = cb_reached, .lost = cb_lost,
                      .done = cb_done, .totals = cb_totals, .tick = cb_tick,
                      .lanes = tl_pool_bundle(pi->pub.work, s.G, tl_pool_workers(o)) };
    tl_wipe wipe = { .p = { (void *)sec, s.val, s.alt, e }, .len = { tl_draw_size(s.G), n * 32, n * 32, (size_t)s.G * 32 } };
    tl_state_fds(st, wipe.fd);
    if (!cb_done(&s)) rc = tl_pool_run(w, &cb, &wipe, o);
    if (rc == TL_OK && !cb_done(&s)) rc = TL_EWORKER;
    if (rc == TL_OK) {
        stats->checked = 0;   /* what holds now (a correction voids later checks) */
        for (uint32_t g = 1; g <= s.G; g++) {
            memcpy(e + (size_t)(g - 1) * 32, s.val + ix(&s, g, s.nseg) * 32, 32);
            for (uint32_t k = 1; k <= s.nseg; k++) stats->checked += s.vs[ix(&s, g, k)] == VS_OK;
        }
        pz->verify_segments = stats->checked ? stats->segments : 0;   /* none: 0, 0 */
        pz->verify_checked = stats->checked;
        pz->verify_method = stats->checked == 0 ? TL_VERIFY_NONE
                          : stats->checked == stats->segments ? TL_VERIFY_FULL : TL_VERIFY_SAMPLE;
    }
out:
    if (s.val) sodium_free(s.val);
    if (s.alt) sodium_free(s.alt);
    free(s.pid); free(s.alt_pid); free(s.host); free(s.vs); free(s.have); free(s.epoch); free(s.running);
    free(s.attempts); free(s.reached); free(before);
    return rc;
}
