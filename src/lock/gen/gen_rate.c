/* SPDX-License-Identifier: ISC */
/* src/lock/gen/gen_rate.c — generation throughput measured as generation
 * runs (tl_measure_gen_rate): the work function built once, then the
 * workers the generation pool would run (tl_pool_workers), each a forked
 * process advancing a bundle of chains in SIMD lanes (tl_pool_bundle, as
 * the scheduler hands them out), all at once for a few seconds.  Each
 * worker publishes its running step count in shared memory; the parent
 * reads all of them at window boundaries and reports the median window's
 * total rate (a busy machine's one slow or fast second does not decide),
 * with the slowest and fastest window beside it.  Nothing secret is
 * involved: a fixed public key and chain values.  The same measurement on
 * a work function the caller holds (tl_measure_gen_rate_work) and the
 * windows alone over counters someone else advances (tl_rate_windows):
 * gen_rate.h. */
#include "gen_rate.h"
#include "gen_internal.h"
#include "util/util.h"
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GR_MAX_WINDOWS 32
typedef tl_rate_slot gr_slot;

static void gr_child(tl_work *w, unsigned lanes, unsigned k, gr_slot *slot, volatile int *quit, pid_t parent) {
    uint32_t g[TL_BUNDLE_MAX];
    uint64_t i0[TL_BUNDLE_MAX];
    uint8_t d[TL_BUNDLE_MAX][32];
    for (unsigned c = 0; c < lanes; c++) {
        g[c] = k * lanes + c + 1;
        i0[c] = 0;
        memset(d[c], (int)c, 32);
    }
    (void)tl_work_renew_vm(w);   /* as a generation worker does (worker.c) */
    uint64_t n = 1;   /* from one step: a RandomX step takes milliseconds, and a
                         window must see calls end (the counter moves per call) */
    while (!*quit && getppid() == parent) {
        double t0 = util_now();
        if (tl_work_steps_multi(w, lanes, g, i0, n, d) != TL_OK) _exit(2);
        for (unsigned c = 0; c < lanes; c++) i0[c] += n;
        __atomic_store_n(&slot->steps, slot->steps + n * lanes, __ATOMIC_RELEASE);
        if (util_now() - t0 < 0.01 && n < (1u << 24)) n *= 2;   /* a call of about 10 ms or more */
    }
    _exit(0);
}

static uint64_t gr_total(gr_slot *s, unsigned n) {
    uint64_t t = 0;
    for (unsigned k = 0; k < n; k++) t += __atomic_load_n(&s[k].steps, __ATOMIC_ACQUIRE);
    return t;
}

static void gr_sleep(double s) {
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* The windows: a short untimed start (every worker past its first calls),
 * then about `seconds` in 3..32 windows of the slots' total. */
int tl_rate_windows(tl_rate_slot *slots, unsigned n, double seconds, const volatile int *stop, tl_gen_rate *out) {
    if (!(seconds > 0) || seconds > 3600) return TL_EINVAL;
    unsigned nwin = (unsigned)(seconds / 0.5);
    if (nwin < 3) nwin = 3;
    if (nwin > GR_MAX_WINDOWS) nwin = GR_MAX_WINDOWS;
    double win = seconds / nwin, rates[GR_MAX_WINDOWS];
    gr_sleep(win < 0.2 ? win : 0.2);              /* every worker past its first calls */
    double t0 = util_now();
    uint64_t c0 = gr_total(slots, n), first = c0;
    double tstart = t0;
    unsigned k = 0;
    for (; k < nwin && !(stop && *stop); k++) {
        gr_sleep(win);
        double t1 = util_now();
        uint64_t c1 = gr_total(slots, n);
        rates[k] = t1 > t0 ? (double)(c1 - c0) / (t1 - t0) : 0;
        t0 = t1;
        c0 = c1;
    }
    if (stop && *stop) return TL_EINTR;
    out->mean = (double)(c0 - first) / (t0 - tstart);
    out->seconds = t0 - tstart;
    out->windows = k;
    out->rate = util_median(rates, k);
    out->rate_min = rates[0];
    out->rate_max = rates[k - 1];
    return TL_OK;
}

int tl_measure_gen_rate_work(tl_work *w, unsigned workers, uint32_t groups, double seconds,
                             const volatile int *stop, tl_gen_rate *out) {
    if (!w || !out || !(seconds > 0) || seconds > 3600) return TL_EINVAL;
    memset(out, 0, sizeof *out);
    tl_engine_info info;
    int rc = tl_work_engine(w, &info);
    if (rc) return rc;
    tl_work_type type = info.work;
    tl_gen_opts o;
    memset(&o, 0, sizeof o);
    o.workers = workers;
    unsigned W = tl_pool_workers(&o);
    uint32_t G = groups ? groups : W * tl_work_lanes(type);
    unsigned L = tl_pool_bundle(type, G, W);
    unsigned busy = (unsigned)((G + L - 1) / L);     /* bundles the chains fill */
    if (busy > W) busy = W;
    size_t shm_len = (size_t)(busy + 1) * sizeof(gr_slot);
    gr_slot *slots = mmap(NULL, shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (slots == MAP_FAILED) return TL_ENOMEM;
    volatile int *quit = (volatile int *)&slots[busy];
    pid_t *pid = calloc(busy, sizeof *pid);
    if (!pid) { munmap(slots, shm_len); return TL_ENOMEM; }
    pid_t self = getpid();
    unsigned started = 0;
    for (; started < busy; started++) {
        pid_t p = fork();
        if (p < 0) { rc = TL_EWORKER; break; }
        if (p == 0) gr_child(w, L, started, &slots[started], quit, self);
        pid[started] = p;
    }
    if (rc == TL_OK) rc = tl_rate_windows(slots, busy, seconds, stop, out);
    *quit = 1;
    for (unsigned k = 0; k < started; k++) {
        int st = 0;
        kill(pid[k], SIGKILL);
        while (waitpid(pid[k], &st, 0) < 0 && errno == EINTR) {}
        if (rc == TL_OK && WIFEXITED(st) && WEXITSTATUS(st) == 2) rc = TL_EWORK;
    }
    free(pid);
    munmap(slots, shm_len);
    if (rc) return rc;
    out->workers = busy;
    out->lanes = L;
    out->groups = G;
    if (!(out->rate > 0)) return TL_EWORK;
    return TL_OK;
}

int tl_measure_gen_rate(tl_work_type type, tl_mode mode, unsigned workers, uint32_t groups, double seconds,
                        const volatile int *stop, tl_gen_rate *out) {
    if (!out || !(seconds > 0) || seconds > 3600) return TL_EINVAL;
    memset(out, 0, sizeof *out);
    uint8_t key[32];
    memset(key, 0x5a, sizeof key);
    tl_work *w = NULL;
    int rc = tl_work_new(&w, type, key, mode);
    if (rc) return rc;
    rc = tl_measure_gen_rate_work(w, workers, groups, seconds, stop, out);
    tl_work_free(w);
    return rc;
}
