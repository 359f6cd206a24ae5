/* SPDX-License-Identifier: ISC */
/* src/lock/gen/worker.c — the generation worker pool (docs/DESIGN.md §3): the
 * single-threaded supervisor forks one child per running bundle after the
 * work function (cache / dataset) is built; a task runs steps i0 .. i1-1 of
 * one group's chain from a given value and reports fixed-size, MAC'd
 * messages over a pipe: progress, the value at every multiple of `every`
 * (a checkpoint) and the value at i1.  A bundle is up to tl_pool_cb.lanes
 * tasks in one child: their SHA3 chains advance together in
 * SIMD lanes (tl_work_steps_multi), each task reporting as its own; a
 * failed child is a lost task for each of its unfinished tasks.  The parent polls, hands every value
 * to the scheduler (gen_sched.c), aggregates progress, enforces a silence
 * deadline, reaps children and reports a lost task to the scheduler, which
 * re-runs it or fails.  Four parts: spawn, decode, reap, report. */
#include "gen_internal.h"
#include "util/util.h"
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- messages: one encoder (child) and one decoder (parent) ------------- */
#define MSG_MAGIC    0x4d575852u   /* "RXWM" */
#define MSG_PROGRESS 1u            /* step reached; no value                 */
#define MSG_VALUE    2u            /* the value at a checkpoint step         */
#define MSG_RESULT   3u            /* the value at the task's end i1         */
#define MSG_CKPT     4u            /* a value inside a segment (tl_pool_cb.ckpt) */
enum {                             /* byte offsets in a message              */
    MSG_OFF_MAGIC = 0, MSG_OFF_TYPE = 4, MSG_OFF_GROUP = 8, MSG_OFF_LANE = 12,
    MSG_OFF_STEP = 16, MSG_OFF_VALUE = 24, MSG_OFF_MAC = 56, MSG_SIZE = 72   /* < PIPE_BUF: atomic */
};
typedef struct {
    uint32_t type, g, lane;  /* lane: the task's index in its bundle */
    uint64_t step;
    uint8_t  value[32];
} msg;

static void msg_encode(uint8_t m[MSG_SIZE], const uint8_t mk[32], const msg *x) {
    memset(m, 0, MSG_SIZE);
    tl_put32(m + MSG_OFF_MAGIC, MSG_MAGIC);
    tl_put32(m + MSG_OFF_TYPE, x->type);
    tl_put32(m + MSG_OFF_GROUP, x->g);
    tl_put32(m + MSG_OFF_LANE, x->lane);
    tl_put64(m + MSG_OFF_STEP, x->step);
    memcpy(m + MSG_OFF_VALUE, x->value, 32);
    crypto_generichash(m + MSG_OFF_MAC, 16, m, MSG_OFF_MAC, mk, 32);
}

/* 0 and *x, or -1 for a message that is not authentic or not well formed. */
static int msg_decode(msg *x, const uint8_t m[MSG_SIZE], const uint8_t mk[32]) {
    uint8_t mac[16];
    crypto_generichash(mac, 16, m, MSG_OFF_MAC, mk, 32);
    if (sodium_memcmp(mac, m + MSG_OFF_MAC, 16) != 0 || tl_get32(m + MSG_OFF_MAGIC) != MSG_MAGIC ||
        tl_get32(m + MSG_OFF_LANE) >= TL_BUNDLE_MAX)
        return -1;
    x->type = tl_get32(m + MSG_OFF_TYPE);
    x->g = tl_get32(m + MSG_OFF_GROUP);
    x->lane = tl_get32(m + MSG_OFF_LANE);
    x->step = tl_get64(m + MSG_OFF_STEP);
    memcpy(x->value, m + MSG_OFF_VALUE, 32);
    return x->type >= MSG_PROGRESS && x->type <= MSG_CKPT ? 0 : -1;
}

/* ---- test-only fault injection ------------------------------------------ */
#ifdef RXLOCK_TESTING
/* RXLOCK_TEST_WORKER_FAULT=KIND:G[:all] with KIND crash | hang | garbage
 * (chain tasks; the first attempt, or all).  Honoured only in the insecure
 * test mode.  (RXLOCK_TEST_FLIP, a defective core, is the stepper's:
 * chain_steps.c, for chain tasks.) */
static int fault_for(const tl_task *t, char kind[16]) {
    const char *f = getenv("RXLOCK_TEST_WORKER_FAULT");
    if (!f || !tl_test_mode() || !t->chain) return 0;
    unsigned fg = 0;
    char all[8] = "";
    if (sscanf(f, "%15[a-z]:%u:%7s", kind, &fg, all) < 2) return 0;
    return fg == t->g && (t->attempt == 0 || !strcmp(all, "all"));
}
#else
static int fault_for(const tl_task *t, char kind[16]) { (void)t; (void)kind; return 0; }
#endif

/* ---- the child ---------------------------------------------------------- */
static int msg_send(int fd, const uint8_t mk[32], uint32_t type, const tl_task *t, unsigned lane, uint64_t step,
                    const uint8_t *d) {
    msg x = { .type = type, .g = t->g, .lane = lane, .step = step };
    uint8_t m[MSG_SIZE];
    if (d) memcpy(x.value, d, 32);
    msg_encode(m, mk, &x);
    int rc = write(fd, m, sizeof m) == (ssize_t)sizeof m ? 0 : -1;
    sodium_memzero(&x, sizeof x);
    sodium_memzero(m, sizeof m);
    return rc;
}

/* A test fault of lane c's task, once it is half done. */
static void child_fault(const char *kind, int fd) {
    if (!strcmp(kind, "crash")) abort();
    if (!strcmp(kind, "hang")) for (;;) pause();
    if (!strcmp(kind, "garbage")) {
        uint8_t m[MSG_SIZE];
        memset(m, 0x41, sizeof m);
        (void)!write(fd, m, sizeof m);
    }
}

/* A checkpointing pool's child: the parent's SIGTERM (or a SIGINT / SIGTERM
 * sent to the whole job) asks it to report where each chain is and end. */
static volatile sig_atomic_t child_stop;
static void on_child_stop(int sig) { (void)sig; child_stop = 1; }

/* Run the bundle t[0..nt-1] through the stepper (chain_steps.c): every call
 * advances all unfinished tasks by the same n (up to the nearest value
 * step, end or test flip of any of them), then each task that moved
 * reports its value, end or progress.  ck > 0 (a checkpointing pool): every
 * ck seconds, and when asked to stop, each unfinished task also reports
 * where it is (MSG_CKPT); after a stop the child ends. */
static void child_main(tl_work *w, tl_task *t, unsigned nt, int fd, const uint8_t mk_in[32], const tl_wipe *wipe,
                       double ck) {
    uint8_t d[TL_BUNDLE_MAX][32], mk[32];
    uint64_t i[TL_BUNDLE_MAX], i0[TL_BUNDLE_MAX], end[TL_BUNDLE_MAX], every[TL_BUNDLE_MAX], half[TL_BUNDLE_MAX];
    tl_stepper sp[TL_BUNDLE_MAX];
    char kind[TL_BUNDLE_MAX][16];
    int fault[TL_BUNDLE_MAX];
    (void)tl_work_renew_vm(w);   /* its own VM: the scratchpad stays on a huge page (else the inherited one) */
    memcpy(mk, mk_in, 32);
    for (unsigned c = 0; c < nt; c++) {
        memcpy(d[c], t[c].d0, 32);
        sodium_memzero(t[c].d0, 32);   /* the caller's copy: child_main never returns */
        kind[c][0] = 0;
        fault[c] = fault_for(&t[c], kind[c]);
        tl_stepper_init(&sp[c], t[c].g, t[c].chain);   /* the test flip: chain tasks only */
        i[c] = t[c].i0;
        end[c] = t[c].i1;
        every[c] = t[c].every;
        half[c] = t[c].i0 + (t[c].i1 - t[c].i0) / 2;
    }
    for (unsigned k = 0; k < TL_WIPE_MAX; k++)   /* this child needs only its bundle's start values */
        if (wipe->p[k]) sodium_memzero(wipe->p[k], wipe->len[k]);
    double last = util_now(), last_ck = last;
    int rc = 0;
    for (;;) {
        unsigned left = 0;
        for (unsigned c = 0; c < nt; c++) left += i[c] < end[c];
        if (left == 0 || rc) break;
        if (ck > 0 && (child_stop || util_now() - last_ck >= ck)) {
            for (unsigned c = 0; c < nt && rc == 0; c++)
                if (i[c] < end[c] && i[c] > t[c].i0) rc = msg_send(fd, mk, MSG_CKPT, &t[c], c, i[c], d[c]);
            last_ck = util_now();
            if (child_stop) break;
        }
        memcpy(i0, i, sizeof i0);
        rc = tl_stepper_run_multi(sp, nt, w, i, end, every, d);
        double t1 = util_now();
        int prog = t1 - last >= 0.1;
        if (prog) last = t1;
        for (unsigned c = 0; c < nt && rc == 0; c++) {
            if (i[c] == i0[c]) continue;
            if (fault[c] && i[c] >= half[c]) {
                child_fault(kind[c], fd);
                fault[c] = 0;
            }
            if (i[c] == end[c]) rc = msg_send(fd, mk, MSG_RESULT, &t[c], c, i[c], d[c]);
            else if (every[c] && i[c] % every[c] == 0) rc = msg_send(fd, mk, MSG_VALUE, &t[c], c, i[c], d[c]);
            else if (prog) rc = msg_send(fd, mk, MSG_PROGRESS, &t[c], c, i[c], NULL);
        }
    }
    sodium_memzero(d, sizeof d);
    sodium_memzero(mk, sizeof mk);
    tl_work_free_vm(w);
    close(fd);
    _exit(rc == 0 ? 0 : 1);
}

void tl_event_emit(const tl_gen_opts *o, tl_event_kind kind, uint32_t group, double seconds,
                   const char *fmt, ...) {
    if (!o || !o->event) return;
    char text[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    tl_event ev = { .kind = kind, .group = group, .seconds = seconds, .message = text };
    o->event(&ev, o->event_ctx);
}

/* ---- the parent --------------------------------------------------------- */
enum { LANE_RUNNING = 0, LANE_ENDED, LANE_DROPPED };   /* a task's state in its slot */
typedef struct {
    pid_t pid;
    int fd;
    unsigned nt;                    /* tasks in the bundle         */
    tl_task t[TL_BUNDLE_MAX];
    uint64_t at[TL_BUNDLE_MAX];     /* step reached (progress)     */
    uint8_t state[TL_BUNDLE_MAX];   /* LANE_*                      */
    double last;                    /* last message, seconds       */
    size_t fill;
    uint8_t buf[MSG_SIZE];
} slot;

typedef struct {
    tl_work *w;
    const tl_pool_cb *cb;
    const tl_gen_opts *o;
    const tl_wipe *wipe;
    slot *sl;
    struct pollfd *pf;
    unsigned nw, lanes;
    uint8_t mk[32];
} pool;

unsigned tl_pool_workers(const tl_gen_opts *o) {
    unsigned nw = o && o->workers ? o->workers : util_cpus_usable();
    return nw < 1 ? 1 : nw > 1024 ? 1024 : nw;
}

unsigned tl_pool_bundle(tl_work_type work, uint32_t G, unsigned nw) {
    unsigned L = tl_work_lanes(work), per = nw ? (unsigned)((G + nw - 1) / nw) : 1;
    if (L > TL_BUNDLE_MAX) L = TL_BUNDLE_MAX;
    if (L > per) L = per;
    return L < 1 ? 1 : L;
}

static void kill_slot(slot *s) {
    if (s->pid > 0) {
        kill(s->pid, SIGKILL);
        while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (s->fd >= 0) close(s->fd);
    sodium_memzero(s, sizeof *s);
    s->pid = -1;
    s->fd = -1;
}

/* Spawn: a bundle of tasks from the scheduler into every free slot. */
static int spawn(pool *P) {
    for (unsigned k = 0; k < P->nw; k++) {
        if (P->sl[k].pid > 0) continue;
        tl_task t[TL_BUNDLE_MAX];
        unsigned nt = 0;
        memset(t, 0, sizeof t);
        while (nt < P->lanes && P->cb->next(P->cb->ctx, &t[nt]) == 1) nt++;
        if (nt == 0) { sodium_memzero(t, sizeof t); return TL_OK; }
        for (unsigned c = 0; c < nt; c++) t[c].bundled = nt;
        int p[2], rc = TL_OK;
        pid_t pid = -1, parent = -1;
        if (pipe(p) != 0) rc = TL_EWORKER;
        else {
            fflush(NULL);
            parent = getpid();
            if ((pid = fork()) < 0) { close(p[0]); close(p[1]); rc = TL_EWORKER; }
        }
        if (rc) { sodium_memzero(t, sizeof t); return rc; }
        if (pid == 0) {
            close(p[0]);
            for (unsigned j = 0; j < P->nw; j++) if (P->sl[j].fd >= 0) close(P->sl[j].fd);
            for (int j = 0; j < 2; j++) if (P->wipe->fd[j] >= 0) close(P->wipe->fd[j]);
            signal(SIGINT, P->cb->ckpt ? on_child_stop : SIG_DFL);
            signal(SIGTERM, P->cb->ckpt ? on_child_stop : SIG_DFL);
            signal(SIGPIPE, SIG_DFL);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) _exit(1);   /* the parent died before PDEATHSIG was set (it may be PID 1: a container) */
            for (unsigned j = 0; j < P->nw; j++) sodium_memzero(P->sl[j].t, sizeof P->sl[j].t);
            child_main(P->w, t, nt, p[1], P->mk, P->wipe, P->cb->ckpt ? P->cb->ckpt_seconds : 0);
        }
        close(p[1]);
        slot *s = &P->sl[k];
        memset(s, 0, sizeof *s);
        s->pid = pid;
        s->fd = p[0];
        s->nt = nt;
        for (unsigned c = 0; c < nt; c++) {
            s->t[c] = t[c];
            s->at[c] = t[c].i0;
            sodium_memzero(s->t[c].d0, 32);   /* the start values stay with the child */
        }
        s->last = util_now();
        sodium_memzero(t, sizeof t);
    }
    return TL_OK;
}

/* Every task of the slot ended or dropped; *dropped = some were dropped. */
static int slot_finished(const slot *s, int *dropped) {
    int fin = 1;
    *dropped = 0;
    for (unsigned c = 0; c < s->nt; c++) {
        if (s->state[c] == LANE_RUNNING) fin = 0;
        if (s->state[c] == LANE_DROPPED) *dropped = 1;
    }
    return fin;
}

/* Decode: read what a slot's pipe holds; hand whole messages on.  Returns
 * 0, 1 (the bundle's worker lied), 2 (EOF), 3 (every task ended and the
 * scheduler dropped some: kill the worker) or a TL_E* code from the
 * scheduler.  A dropped task's further messages are ignored. */
static int decode(pool *P, slot *s, double now) {
    ssize_t r = read(s->fd, s->buf + s->fill, MSG_SIZE - s->fill);
    if (r < 0) return errno == EINTR || errno == EAGAIN ? 0 : 1;
    if (r == 0) return 2;
    s->fill += (size_t)r;
    s->last = now;
    if (s->fill < MSG_SIZE) return 0;
    s->fill = 0;
    msg x;
    int bad = msg_decode(&x, s->buf, P->mk) != 0 || x.lane >= s->nt;
    const tl_task *t = bad ? NULL : &s->t[x.lane];
    int lane = bad ? 0 : (int)x.lane, st = bad ? LANE_RUNNING : s->state[lane];
    if (!bad && st != LANE_DROPPED)
        bad = x.g != t->g || st == LANE_ENDED || x.step < s->at[lane] || x.step > t->i1 ||
              (x.type == MSG_RESULT) != (x.step == t->i1) ||
              (x.type == MSG_VALUE && (!t->every || x.step % t->every != 0 || x.step == s->at[lane]));
    sodium_memzero(s->buf, sizeof s->buf);
    int rc = 0, dropped = 0;
    if (bad) rc = 1;
    else if (st != LANE_DROPPED) {
        s->at[lane] = x.step;
        if (x.type == MSG_RESULT) s->state[lane] = LANE_ENDED;
        if (x.type == MSG_CKPT) {
            if (!P->cb->ckpt) rc = 1;
            else if ((rc = P->cb->ckpt(P->cb->ctx, t, x.step, x.value)) > 0) rc = 0;
        } else if (x.type != MSG_PROGRESS) {
            rc = P->cb->value(P->cb->ctx, t, x.step, x.value, (long)s->pid);
            if (rc == 1) { s->state[lane] = LANE_DROPPED; rc = 0; }
        } else if (P->cb->reached) P->cb->reached(P->cb->ctx, t, x.step);
        if (rc == 0 && slot_finished(s, &dropped) && dropped) rc = 3;
    }
    sodium_memzero(&x, sizeof x);
    return rc;
}

/* Reap: a child whose pipe closed; 0 when it finished its bundle cleanly. */
static int reap(slot *s) {
    int st = 0, dropped;
    pid_t wr;
    while ((wr = waitpid(s->pid, &st, 0)) < 0 && errno == EINTR) {}
    s->pid = -1;
    close(s->fd);
    s->fd = -1;
    return wr > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && slot_finished(s, &dropped) && s->fill == 0 ? 0 : -1;
}

/* "group G" or "groups G1, G2, ..." of a slot's bundle, for messages. */
static void bundle_groups(char *out, size_t len, const slot *s) {
    size_t at = (size_t)snprintf(out, len, "group%s", s->nt > 1 ? "s" : "");
    for (unsigned c = 0; c < s->nt && at < len; c++)
        at += (size_t)snprintf(out + at, len - at, "%s %u", c ? "," : "", s->t[c].g);
}

/* A failed bundle: every unfinished task is lost (the scheduler re-runs or fails). */
static int slot_lost(pool *P, slot *s) {
    tl_task t[TL_BUNDLE_MAX];
    unsigned nt = 0;
    for (unsigned c = 0; c < s->nt; c++) if (s->state[c] == LANE_RUNNING) t[nt++] = s->t[c];
    kill_slot(s);
    int rc = TL_OK;
    for (unsigned c = 0; c < nt && rc == TL_OK; c++) rc = P->cb->lost(P->cb->ctx, &t[c]);
    sodium_memzero(t, sizeof t);
    return rc;
}

/* Report: progress over every running task. */
static int report(pool *P, double now, double t_start, uint64_t done_start) {
    const tl_gen_opts *o = P->o;
    tl_progress p = {0};
    P->cb->totals(P->cb->ctx, &p.hashes_done, &p.hashes_total, &p.groups_done, &p.groups_total);
    for (unsigned k = 0; k < P->nw; k++)
        for (unsigned c = 0; P->sl[k].pid > 0 && c < P->sl[k].nt; c++)
            if (P->sl[k].state[c] == LANE_RUNNING) p.hashes_done += P->sl[k].at[c] - P->sl[k].t[c].i0;
    if (p.hashes_done > p.hashes_total) p.hashes_done = p.hashes_total;
    double rate = now > t_start ? (double)(p.hashes_done - (p.hashes_done > done_start ? done_start : p.hashes_done)) /
                                  (now - t_start) : 0;
    p.rate = rate;
    p.eta_seconds = rate > 0 ? (double)(p.hashes_total - p.hashes_done) / rate : -1;
    return o->progress(&p, o->progress_ctx) ? TL_EINTR : TL_OK;
}

/* The running slots' pipes into P->pf, in slot order: how many. */
static unsigned poll_set(pool *P) {
    unsigned np = 0;
    for (unsigned k = 0; k < P->nw; k++)
        if (P->sl[k].pid > 0) { P->pf[np].fd = P->sl[k].fd; P->pf[np].events = POLLIN; P->pf[np].revents = 0; np++; }
    return np;
}

/* Drain (a checkpointing pool, stopped): ask every worker to report where
 * its chains are and end (SIGTERM), and hand on what it sends until each
 * pipe closes or TL_POOL_DRAIN_SECONDS pass. */
#define TL_POOL_DRAIN_SECONDS 10.0
static void drain(pool *P) {
    for (unsigned k = 0; k < P->nw; k++) if (P->sl[k].pid > 0) kill(P->sl[k].pid, SIGTERM);
    double deadline = util_now() + TL_POOL_DRAIN_SECONDS;
    for (;;) {
        unsigned np = poll_set(P);
        double now = util_now();
        if (np == 0 || now >= deadline) return;
        int pr = poll(P->pf, np, 100);
        if (pr < 0 && errno != EINTR) return;
        for (unsigned k = 0, q = 0; k < P->nw && pr > 0; k++) {
            slot *s = &P->sl[k];
            if (s->pid <= 0) continue;
            short rev = P->pf[q++].revents;
            if (!(rev & (POLLIN | POLLHUP | POLLERR))) continue;
            int r = decode(P, s, now);
            if (r == 2) (void)reap(s);
            else if (r != 0) kill_slot(s);
        }
    }
}

int tl_pool_run(tl_work *w, const tl_pool_cb *cb, const tl_wipe *wipe, const tl_gen_opts *o) {
    pool P = { .w = w, .cb = cb, .o = o, .wipe = wipe, .nw = tl_pool_workers(o) };
    P.lanes = cb->lanes < 1 ? 1 : cb->lanes > TL_BUNDLE_MAX ? TL_BUNDLE_MAX : cb->lanes;
    double timeout = o->worker_timeout ? o->worker_timeout : 120;
    double pint = o->progress_interval > 0 ? o->progress_interval : 0.5;
    P.sl = calloc(P.nw, sizeof *P.sl);
    P.pf = calloc(P.nw, sizeof *P.pf);
    if (!P.sl || !P.pf) { free(P.sl); free(P.pf); return TL_ENOMEM; }
    if (tl_random(P.mk, sizeof P.mk, "ipc-mac", 0) != 0) { free(P.sl); free(P.pf); return TL_ERANDOM; }
    for (unsigned k = 0; k < P.nw; k++) { P.sl[k].pid = -1; P.sl[k].fd = -1; }
    double t_start = util_now(), t_prog = t_start, t_tick = t_start;
    uint64_t done_start = 0, unused = 0;
    uint32_t u32 = 0;
    cb->totals(cb->ctx, &done_start, &unused, &u32, &u32);
    int rc = TL_OK;
    while (rc == TL_OK && !cb->done(cb->ctx)) {
        if ((rc = spawn(&P))) break;
        unsigned np = poll_set(&P);
        if (np == 0) { rc = TL_EWORKER; break; }   /* nothing runs, nothing to run, not done */
        int pr = poll(P.pf, np, 100);
        if (pr < 0 && errno != EINTR) { rc = TL_EWORKER; break; }
        double now = util_now();
        for (unsigned k = 0, q = 0; k < P.nw && rc == TL_OK; k++) {
            slot *s = &P.sl[k];
            if (s->pid <= 0) continue;
            short rev = pr > 0 ? P.pf[q].revents : 0;
            q++;
            int r = rev & (POLLIN | POLLHUP | POLLERR) ? decode(&P, s, now) : 0;
            int failed = 0;
            if (r < 0) { rc = r; break; }
            if (r == 3) { kill_slot(s); continue; }
            if (r == 1) failed = 1;
            else if (r == 2) {
                if (reap(s) == 0) { sodium_memzero(s->t, sizeof s->t); s->nt = 0; continue; }
                failed = 1;
            }
            if (!failed && now - s->last > timeout) {
                char gs[96];
                bundle_groups(gs, sizeof gs, s);
                tl_event_emit(o, TL_EVENT_WORKER_HUNG, s->t[0].g, now - s->last,
                              "worker for %s silent for %.0f s: killing it", gs, now - s->last);
                failed = 1;
            }
            /* a worker ended by the stop that ends this run (a service
             * manager's SIGTERM or a terminal's SIGINT reach the whole
             * process group) is no failure: nothing is re-run or said */
            if (failed && o->stop && *o->stop) { kill_slot(s); rc = TL_EINTR; break; }
            if (failed) rc = slot_lost(&P, s);
        }
        if (rc == TL_OK && o->stop && *o->stop) rc = TL_EINTR;
        if (rc == TL_OK && now - t_tick >= 0.1) {   /* what the scheduler tracks, saved often */
            t_tick = now;
            if (cb->tick) cb->tick(cb->ctx);
        }
        if (rc == TL_OK && (now - t_prog >= pint || cb->done(cb->ctx))) {
            t_prog = now;
            if (o->progress) rc = report(&P, now, t_start, done_start);
        }
    }
    if (rc == TL_EINTR && cb->ckpt) drain(&P);
    for (unsigned k = 0; k < P.nw; k++) if (P.sl[k].pid > 0 || P.sl[k].fd >= 0) kill_slot(&P.sl[k]);
    sodium_memzero(P.mk, sizeof P.mk);
    sodium_memzero(P.sl, P.nw * sizeof *P.sl);
    free(P.sl);
    free(P.pf);
    return rc;
}
