/* SPDX-License-Identifier: ISC */
/* src/lock/core/work.c — the chain step W(K, m(g, i, d)) of docs/DESIGN.md §1 for the
 * three work functions: SHA3-256(K || m), RandomX v2 / v1 hash of m under
 * cache key K (light: 256 MiB cache; full: + 2080 MiB dataset); and what
 * engine really runs it (tl_work_engine: JIT or interpreter, AES, mode). */
#include "rxlock/rxlock.h"
#include "core_internal.h"
#include "rxlock/rx.h"
#include "rxlock/sha3.h"
#include "util/util.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const uint8_t chain_tag[20] = "rxlock/chain/v1";   /* + 5 NUL bytes */

struct tl_work {
    tl_work_type type;
    uint8_t key[32];
    rx_cache *cache;
    rx_dataset *ds;
    rx_vm *vm;
    uint8_t *msg;             /* key (sha3) + chain message, the live chain
                                 value among them: sodium_malloc'd (locked,
                                 guarded, not on the stack), wiped */
    tl_engine_info info;      /* fixed when the VM is built */
    unsigned flags;           /* RandomX flags the VM was asked for */
};
#define WORK_MSG_SIZE (32 + 68)

static unsigned work_flags(tl_work_type type) {
    unsigned flags = rx_flags_from_env(rx_flags_default());
    flags &= ~(unsigned)(RX_FLAG_V2 | RX_FLAG_FULL);
    if (type == TL_WORK_RANDOMX_V2) flags |= RX_FLAG_V2;
    return flags;
}

const char *tl_engine_check(tl_work_type type) {
    if (type != TL_WORK_RANDOMX_V1 && type != TL_WORK_RANDOMX_V2) return NULL;
    unsigned flags = work_flags(type);
    return (flags & RX_FLAG_JIT) ? rx_engine_check(flags) : NULL;
}

int tl_work_engine(const tl_work *w, tl_engine_info *out) {
    if (!w || !out) return TL_EINVAL;
    *out = w->info;
    return TL_OK;
}

double tl_work_huge_share(const tl_work *w) {
    return w && w->ds ? rx_dataset_huge_share(w->ds) : -1;
}


void tl_chain_message(uint8_t m[68], uint32_t g, uint64_t i, const uint8_t d[32]) {
    memcpy(m, chain_tag, 20);
    tl_put32(m + 20, g);
    tl_put32(m + 24, 0);
    tl_put64(m + 28, i);
    memmove(m + 36, d, 32);
}

/* the dataset in slices, reporting between them. */
#define SETUP_SLICES 64
typedef struct {
    tl_progress_fn cb;
    void *ctx;
    const tl_progress *p;
    double hash_eta, t0;
} setup_report;

static int setup_tell(const setup_report *r, double frac) {
    if (!r || !r->cb) return 0;
    tl_progress q = *r->p;
    double el = util_now() - r->t0;
    q.engine = NULL;
    q.setup = 1;
    q.setup_fraction = frac;
    q.setup_seconds = el;
    q.eta_seconds = frac > 0 ? el / frac - el : -1;
    if (q.eta_seconds >= 0 && r->hash_eta >= 0) q.eta_seconds += r->hash_eta;
    else if (frac == 0 && r->hash_eta >= 0) q.eta_seconds = -1;
    return r->cb(&q, r->ctx) ? TL_EINTR : 0;
}

static int dataset_build(rx_dataset *ds, const rx_cache *cache, const setup_report *r) {
    if (!r || !r->cb) return rx_dataset_init_parallel(ds, cache, 0);
    const uint64_t N = rx_dataset_item_count(), unit = 1024;
    uint64_t pos = 0;
    int rc = setup_tell(r, 0);
    for (unsigned k = 1; k <= SETUP_SLICES && rc == 0; k++) {
        uint64_t end = k == SETUP_SLICES ? N : N / SETUP_SLICES / unit * unit * k;
        rc = rx_dataset_init_range_parallel(ds, cache, pos, end - pos, 0);
        pos = end;
        if (rc == 0) rc = setup_tell(r, (double)pos / (double)N);
    }
    return rc;
}

static int work_new(tl_work **out, tl_work_type type, const uint8_t key[32], tl_mode mode, const setup_report *r);

int tl_work_new(tl_work **out, tl_work_type type, const uint8_t key[32], tl_mode mode) {
    return work_new(out, type, key, mode, NULL);
}

int tl_work_new_progress(tl_work **out, tl_work_type type, const uint8_t key[32], tl_mode mode,
                         tl_progress_fn cb, void *ctx, const tl_progress *p, double hash_eta) {
    tl_progress zero = {0};
    setup_report r = { cb, ctx, p ? p : &zero, hash_eta, util_now() };
    return work_new(out, type, key, mode, cb ? &r : NULL);
}

/* A work object with its type, key and locked message buffer, nothing
 * built yet; NULL when memory runs out. */
static tl_work *work_alloc(tl_work_type type, const uint8_t key[32]) {
    tl_work *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->type = type;
    w->info.work = type;
    memcpy(w->key, key, 32);
    if (sodium_init() < 0 || !(w->msg = sodium_malloc(WORK_MSG_SIZE))) { free(w); return NULL; }
    return w;
}

/* A build that failed: free what was made, RX_ENOMEM as TL_ENOMEM (other
 * RX_E* codes, and TL_EINTR, pass unchanged). */
static int work_fail(tl_work *w, int rc) {
    tl_work_free(w);
    return rc == RX_ENOMEM ? TL_ENOMEM : rc;
}

static int work_new(tl_work **out, tl_work_type type, const uint8_t key[32], tl_mode mode, const setup_report *r) {
    if (!out || !key || !tl_work_name(type) || (mode != TL_MODE_DEFAULT && mode != TL_MODE_LIGHT &&
                                                 mode != TL_MODE_FULL))
        return TL_EINVAL;
    mode = tl_mode_effective(type, mode);   /* TL_MODE_DEFAULT: the mode policy (mode.c) */
    *out = NULL;
    tl_work *w = work_alloc(type, key);
    if (!w) return TL_ENOMEM;
    if (type == TL_WORK_SHA3_256) {
        *out = w;
        return TL_OK;
    }
    unsigned flags = work_flags(type);
    /* a required JIT that cannot start: fail before building the cache */
    int rc = (flags & RX_FLAG_JIT) && !(flags & RX_FLAG_JIT_FALLBACK) && rx_engine_check(flags) ? RX_EJIT : 0;
    if (rc == 0) rc = rx_cache_new(&w->cache, flags);
    if (rc == 0) rc = rx_cache_init(w->cache, key, 32);
    if (rc == 0 && mode == TL_MODE_FULL) {
        flags |= RX_FLAG_FULL;
        rc = rx_dataset_new(&w->ds, flags);
        if (rc == 0) rc = dataset_build(w->ds, w->cache, r);
    }
    if (rc == 0) rc = rx_vm_new(&w->vm, flags, w->cache, w->ds);
    if (rc != 0) return work_fail(w, rc);
    w->flags = flags;
    unsigned eff = rx_vm_flags(w->vm);
    w->info.version = (eff & RX_FLAG_V2) ? 2 : 1;
    w->info.mode = (eff & RX_FLAG_FULL) ? "full" : "light";
    w->info.engine = (eff & RX_FLAG_JIT) ? "jit" : "interpreter";
    w->info.aes = (eff & RX_FLAG_HARD_AES) ? "hardware" : "software";
    w->info.install = (eff & RX_FLAG_JIT) ? rx_vm_jit_install(w->vm) : NULL;
    w->info.fallback = rx_vm_fallback_reason(w->vm);
    *out = w;
    return TL_OK;
}

int tl_work_clone(tl_work **out, const tl_work *src) {
    if (!out) return TL_EINVAL;
    *out = NULL;
    if (!src || !src->msg) return TL_EINVAL;
    tl_work *w = work_alloc(src->type, src->key);
    if (!w) return TL_ENOMEM;
    w->flags = src->flags;
    int rc = 0;
    if (src->cache) rc = rx_cache_clone(&w->cache, src->cache);
    if (rc == 0 && src->ds) rc = rx_dataset_clone(&w->ds, src->ds);
    if (rc == 0 && src->vm) rc = rx_vm_new(&w->vm, w->flags, w->cache, w->ds);
    if (rc == 0 && src->vm && rx_vm_flags(w->vm) != rx_vm_flags(src->vm)) rc = TL_EINVAL;   /* never measure another engine */
    if (rc != 0) return work_fail(w, rc);
    w->info = src->info;
    *out = w;
    return TL_OK;
}

int tl_work_step(tl_work *w, uint32_t g, uint64_t i, const uint8_t d_in[32], uint8_t d_out[32]) {
    if (!w || !d_in || !d_out) return TL_EINVAL;
    uint8_t *buf = w->msg;
    int rc = TL_OK;
    if (w->type == TL_WORK_SHA3_256) {
        memcpy(buf, w->key, 32);
        tl_chain_message(buf + 32, g, i, d_in);
        sha3_256(d_out, buf, WORK_MSG_SIZE);
    } else {
        tl_chain_message(buf, g, i, d_in);
        rc = rx_vm_hash(w->vm, buf, 68, d_out);
    }
    sodium_memzero(buf, WORK_MSG_SIZE);
    return rc;
}

/* The sha3-256 chain's fixed 60 bytes: K ‖ the message up to its step
 * counter (tag, g, 4 zero bytes); sha3_chain_ctr appends LE64(i) ‖ d. */
static void sha3_prefix(uint8_t pre[60], const tl_work *w, uint32_t g) {
    uint8_t m[68], zero[32] = { 0 };
    memcpy(pre, w->key, 32);
    tl_chain_message(m, g, 0, zero);
    memcpy(pre + 32, m, 28);
}

int tl_work_steps(tl_work *w, uint32_t g, uint64_t i0, uint64_t n, uint8_t d[32]) {
    if (!w || !d) return TL_EINVAL;
    uint8_t *buf = w->msg;
    int rc = TL_OK;
    if (w->type == TL_WORK_SHA3_256) {
        sha3_prefix(buf, w, g);            /* one fused permutation per step */
        sha3_chain_ctr(buf, i0, n, d);
    } else {
        tl_chain_message(buf, g, 0, d);
        for (uint64_t k = 0; k < n && rc == TL_OK; k++) {
            tl_put64(buf + 28, i0 + k);
            rc = rx_vm_hash(w->vm, buf, 68, buf + 36);
        }
        if (rc == TL_OK) memcpy(d, buf + 36, 32);
    }
    sodium_memzero(buf, WORK_MSG_SIZE);
    return rc;
}

unsigned tl_work_lanes(tl_work_type type) {
    return type == TL_WORK_SHA3_256 ? sha3_multi_lanes() : 1;
}

int tl_work_steps_multi(tl_work *w, size_t L, const uint32_t *g, const uint64_t *i0, uint64_t n,
                        uint8_t (*d)[32]) {
    if (!w || (L && (!g || !i0 || !d))) return TL_EINVAL;
    if (w->type != TL_WORK_SHA3_256) {
        for (size_t c = 0; c < L; c++) {
            int rc = tl_work_steps(w, g[c], i0[c], n, d[c]);
            if (rc) return rc;
        }
        return TL_OK;
    }
    enum { BATCH = 16 };                   /* prefixes built per call */
    uint8_t pre[BATCH][60];
    for (size_t base = 0; base < L; base += BATCH) {
        size_t k = L - base < BATCH ? L - base : BATCH;
        for (size_t c = 0; c < k; c++) sha3_prefix(pre[c], w, g[base + c]);
        sha3_chain_ctr_multi(k, (const uint8_t (*)[60])pre, i0 + base, n, d + base);
    }
    sodium_memzero(pre, sizeof pre);
    return TL_OK;
}

int tl_work_renew_vm(tl_work *w) {
    if (!w) return TL_EINVAL;
    if (!w->vm) return TL_OK;                 /* sha3-256: no VM */
    rx_vm *vm = NULL;
    int rc = rx_vm_new(&vm, w->flags, w->cache, w->ds);
    if (rc) return rc == RX_ENOMEM ? TL_ENOMEM : rc;
    if (rx_vm_flags(vm) != rx_vm_flags(w->vm)) { rx_vm_free(vm); return TL_EINVAL; }   /* never another engine */
    rx_vm_free(w->vm);
    w->vm = vm;
    return TL_OK;
}

void tl_work_free_vm(tl_work *w) {
    if (!w) return;
    if (w->vm) rx_vm_free(w->vm);
    w->vm = NULL;
    sodium_memzero(w->key, sizeof w->key);
    if (w->msg) sodium_memzero(w->msg, WORK_MSG_SIZE);
}

void tl_work_free(tl_work *w) {
    if (!w) return;
    if (w->vm) rx_vm_free(w->vm);
    if (w->ds) rx_dataset_free(w->ds);
    if (w->cache) rx_cache_free(w->cache);
    if (w->msg) sodium_free(w->msg);
    sodium_memzero(w, sizeof *w);
    free(w);
}

int tl_measure_rate(tl_work_type type, tl_mode mode, double seconds, double *rate) {
    if (!rate || seconds <= 0) return TL_EINVAL;
    uint8_t key[32], d[32];
    memset(key, 0x5a, sizeof key);
    memset(d, 0, sizeof d);
    tl_work *w;
    int rc = tl_work_new(&w, type, key, mode);
    if (rc) return rc;
    uint64_t n = 0, batch = 1;
    double t0 = util_now(), t;
    for (;;) {
        rc = tl_work_steps(w, 1, n, batch, d);
        if (rc) break;
        n += batch;
        t = util_now() - t0;
        if (t >= seconds) break;
        if (t < seconds / 8 && batch < (1u << 20)) batch *= 2;
    }
    tl_work_free(w);
    if (rc) return rc;
    *rate = (double)n / (util_now() - t0);
    return TL_OK;
}
