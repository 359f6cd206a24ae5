/* SPDX-License-Identifier: ISC */
/* src/rx/dataset.c — the RandomX Cache (Argon2d fill + 8 SuperscalarHash
 * programs, spec 7.1-7.2) and Dataset (spec 7.3): light-mode item
 * computation, range builds and a pthread parallel build (through the
 * SuperscalarHash JIT when the dataset was made with RX_FLAG_JIT and one
 * exists for this CPU, with its AVX-512 / AVX2 vector form for whole groups
 * where the CPU has one, else the portable 16-lane C path; same bytes).  Cache and
 * dataset memory come from rx_mem_alloc (a private anonymous mapping:
 * after fork() children share the pages until someone writes) and are
 * wiped on free, as are the programs and the handles themselves. */
#include "rx/cache_internal.h"
#include "rx/argon2d.h"
#include "rx/jit.h"             /* the SuperscalarHash JIT: internal.h's contract */
#include "util/util.h"
#include "rx/blake2_gen.h"
#include <pthread.h>
#include <stdlib.h>
#include <sodium.h>
#include <string.h>
#include <unistd.h>
#include "util/le.h"

int rx_cache_argon2_impl = RX_ARGON2_AUTO;

static const uint8_t ARGON_SALT[8] = { 'R', 'a', 'n', 'd', 'o', 'm', 'X', 0x03 };

/* ---- cache --------------------------------------------------------------- */
int rx_cache_new(rx_cache **out, unsigned flags) {
    if (!out) return RX_EINVAL;
    *out = NULL;
    rx_cache *c = rx_mem_alloc(sizeof *c, RX_FLAG_NO_THP);
    if (!c) return RX_ENOMEM;
    memset(c, 0, sizeof *c);
    c->flags = flags;
    c->memory = rx_mem_alloc(RX_CACHE_SIZE, flags);
    if (!c->memory) { rx_mem_free(c, sizeof *c); return RX_ENOMEM; }
    *out = c;
    return RX_OK;
}

int rx_cache_init(rx_cache *cache, const void *key, size_t key_len) {
    if (!cache || !cache->memory) return RX_EINVAL;
    if ((!key && key_len) || key_len > RX_MAX_KEY_SIZE) return RX_EINVAL;
    cache->initialized = 0;
    int rc = rx_argon2d_fill(cache->memory, RX_ARGON_BLOCKS, RX_ARGON_PASSES,
                             key, key_len, ARGON_SALT, sizeof ARGON_SALT, rx_cache_argon2_impl);
    if (rc != RX_OK) return rc;
    rx_blake2_gen gen;
    rx_blake2_gen_init(&gen, key, key_len, 0);
    for (unsigned i = 0; i < RX_CACHE_ACCESSES; i++)
        rx_superscalar_generate(&cache->prog[i], &gen);
    rx_blake2_gen_wipe(&gen);
    cache->initialized = 1;
    return RX_OK;
}

_Static_assert(RX_CACHE_ACCESSES == RX_SS_PROGRAMS, "internal.h RX_SS_PROGRAMS");
const uint8_t *rx_cache_superscalar(const rx_cache *cache, const struct rx_ss_program **progs) {
    if (progs) *progs = NULL;
    if (!cache || !cache->initialized || !cache->memory || !progs) return NULL;
    *progs = cache->prog;
    return cache->memory;
}

int rx_cache_clone(rx_cache **out, const rx_cache *src) {
    if (!out) return RX_EINVAL;
    *out = NULL;
    if (!src || !src->memory) return RX_EINVAL;
    if (!src->initialized) return RX_ESTATE;
    int rc = rx_cache_new(out, src->flags);
    if (rc) return rc;
    memcpy((*out)->memory, src->memory, RX_CACHE_SIZE);
    memcpy((*out)->prog, src->prog, sizeof src->prog);
    (*out)->initialized = 1;
    return RX_OK;
}

void rx_cache_free(rx_cache *cache) {
    if (!cache) return;
    rx_mem_free(cache->memory, RX_CACHE_SIZE);
    rx_mem_free(cache, sizeof *cache);   /* wipes programs + state */
}

/* ---- dataset items ------------------------------------------------------- */
static const uint64_t SS_MUL0 = 6364136223846793005ull;
static const uint64_t SS_XOR[8] = {
    0, 9298411001130361340ull, 12065312585734608966ull, 9306329213124626780ull,
    5281919268842080866ull, 10536153434571861004ull, 3398623926847679864ull,
    9549104520008361294ull
};

static inline const uint8_t *mix_line(const rx_cache *c, uint64_t v) {
    return c->memory + (v & (RX_CACHE_LINES - 1)) * 64u;
}

void rx_cache_item(const rx_cache *cache, uint64_t item, uint64_t out[8]) {
    if (!out) return;
    if (!cache || !cache->initialized) { memset(out, 0, 8 * sizeof out[0]); return; }
    uint64_t r[8];
    r[0] = (item + 1) * SS_MUL0;
    for (unsigned k = 1; k < 8; k++) r[k] = r[0] ^ SS_XOR[k];
    uint64_t idx = item;
    for (unsigned i = 0; i < RX_CACHE_ACCESSES; i++) {
        const uint8_t *line = mix_line(cache, idx);
        rx_superscalar_execute(&cache->prog[i], r);
        for (unsigned k = 0; k < 8; k++) r[k] ^= util_load64le(line + 8 * k);
        idx = r[cache->prog[i].addr_reg];
    }
    memcpy(out, r, sizeof r);
}

/* RX_SS_LANES consecutive items starting at `first` into out (64 B each). */
static void items_lanes(const rx_cache *c, uint64_t first, uint8_t *out) {
    uint64_t r[8][RX_SS_LANES], idx[RX_SS_LANES];
    for (unsigned l = 0; l < RX_SS_LANES; l++) {
        uint64_t item = first + l;
        uint64_t r0 = (item + 1) * SS_MUL0;
        for (unsigned k = 0; k < 8; k++) r[k][l] = r0 ^ SS_XOR[k];
        idx[l] = item;
    }
    for (unsigned i = 0; i < RX_CACHE_ACCESSES; i++) {
        const rx_ss_program *p = &c->prog[i];
        const uint8_t *line[RX_SS_LANES];
        for (unsigned l = 0; l < RX_SS_LANES; l++) {
            line[l] = mix_line(c, idx[l]);
            __builtin_prefetch(line[l]);
        }
        rx_superscalar_execute_lanes(p, r);
        for (unsigned l = 0; l < RX_SS_LANES; l++) {
            for (unsigned k = 0; k < 8; k++) r[k][l] ^= util_load64le(line[l] + 8 * k);
            idx[l] = r[p->addr_reg][l];
        }
    }
    for (unsigned l = 0; l < RX_SS_LANES; l++)
        for (unsigned k = 0; k < 8; k++) util_store64le(out + 64u * l + 8u * k, r[k][l]);
}

static void build_range(const rx_cache *c, uint8_t *ds, uint64_t first, uint64_t count) {
    uint64_t i = first, end = first + count;
    for (; i + RX_SS_LANES <= end; i += RX_SS_LANES) items_lanes(c, i, ds + i * 64u);
    for (; i < end; i++) {
        uint64_t w[8];
        rx_cache_item(c, i, w);
        for (unsigned k = 0; k < 8; k++) util_store64le(ds + i * 64u + 8u * k, w[k]);
    }
}

/* ---- dataset --------------------------------------------------------------- */
uint64_t rx_dataset_item_count(void) { return RX_DATASET_ITEMS; }

int rx_dataset_new(rx_dataset **out, unsigned flags) {
    if (!out) return RX_EINVAL;
    *out = NULL;
    rx_dataset *d = rx_mem_alloc(sizeof *d, RX_FLAG_NO_THP);
    if (!d) return RX_ENOMEM;
    memset(d, 0, sizeof *d);
    d->flags = flags;
    d->memory = rx_mem_alloc((size_t)RX_DATASET_BYTES, flags);
    if (!d->memory) { rx_mem_free(d, sizeof *d); return RX_ENOMEM; }
    *out = d;
    return RX_OK;
}

/* The copy runs on every usable CPU: most of its time is the kernel
 * faulting in and clearing the new pages, which scales with threads. */
typedef struct { uint8_t *dst; const uint8_t *src; size_t n; } copy_job;
static void *copy_run(void *arg) {
    copy_job *j = arg;
    memcpy(j->dst, j->src, j->n);
    return NULL;
}

int rx_dataset_clone(rx_dataset **out, const rx_dataset *src) {
    if (!out) return RX_EINVAL;
    *out = NULL;
    if (!src || !src->memory) return RX_EINVAL;
    int rc = rx_dataset_new(out, src->flags);
    if (rc) return rc;
    enum { MAXT = 64 };
    unsigned threads = util_cpus_usable();
    if (threads < 1) threads = 1;
    if (threads > MAXT) threads = MAXT;
    const size_t total = (size_t)RX_DATASET_BYTES, step = (total / threads + 4095) & ~(size_t)4095;
    copy_job jobs[MAXT];
    pthread_t tid[MAXT];
    unsigned char started[MAXT] = { 0 };
    for (unsigned t = 0; t < threads; t++) {
        size_t off = step * t < total ? step * t : total;
        size_t end = t + 1 == threads || off + step > total ? total : off + step;
        jobs[t] = (copy_job){ (*out)->memory + off, src->memory + off, end - off };
    }
    for (unsigned t = 1; t < threads; t++) started[t] = pthread_create(&tid[t], NULL, copy_run, &jobs[t]) == 0;
    copy_run(&jobs[0]);
    for (unsigned t = 1; t < threads; t++) {   /* a thread that did not start: its share here */
        if (started[t]) (void)pthread_join(tid[t], NULL);
        else copy_run(&jobs[t]);
    }
    return RX_OK;
}

const uint8_t *rx_dataset_bytes(const rx_dataset *ds) {
    return ds ? ds->memory : NULL;
}

static int check_args(const rx_dataset *ds, const rx_cache *cache) {
    if (!ds || !ds->memory || !cache) return RX_EINVAL;
    if (!cache->initialized) return RX_ESTATE;
    return RX_OK;
}

/* The SuperscalarHash JIT for a build, or *ss = NULL for the C path.
 * RX_FLAG_JIT asks for it; where none exists (RX_ENOTSUP: not x86-64) the
 * C path runs, since both write the same bytes.  Any other failure (its
 * W^X mapping could not be made) fails the build unless
 * RX_FLAG_JIT_FALLBACK allows the C path, as for the VM. */
static int ss_prepare(const rx_dataset *ds, const rx_cache *cache, rx_jit_ss **ss, const uint8_t **cmem) {
    *ss = NULL;
    *cmem = NULL;
    if (!(ds->flags & RX_FLAG_JIT)) return RX_OK;
    const struct rx_ss_program *progs;
    const uint8_t *mem = rx_cache_superscalar(cache, &progs);
    if (!mem) return RX_ESTATE;
    int rc = rx_jit_ss_new_dataset(ss, progs);
    if (rc == RX_OK) { *cmem = mem; return RX_OK; }
    *ss = NULL;
    if (rc == RX_ENOTSUP || (ds->flags & RX_FLAG_JIT_FALLBACK)) return RX_OK;
    return rc;
}

typedef struct job {
    const rx_cache *cache;
    const rx_jit_ss *ss;          /* NULL: C path */
    const uint8_t *cmem;          /* the cache's bytes, for ss */
    uint8_t *mem;
    uint64_t first, count;
    int rc;
} job;

static void *job_run(void *arg) {
    job *j = arg;
    if (j->count == 0) return NULL;
    if (j->ss) j->rc = rx_jit_dataset_items(j->ss, j->cmem, j->first, j->count, j->mem + j->first * 64u);
    else build_range(j->cache, j->mem, j->first, j->count);
    return NULL;
}

int rx_dataset_init(rx_dataset *ds, const rx_cache *cache, uint64_t first, uint64_t count) {
    int rc = check_args(ds, cache);
    if (rc) return rc;
    if (first > RX_DATASET_ITEMS || count > RX_DATASET_ITEMS - first) return RX_EINVAL;
    job j = { .cache = cache, .mem = ds->memory, .first = first, .count = count, .rc = RX_OK };
    rx_jit_ss *ss;
    rc = ss_prepare(ds, cache, &ss, &j.cmem);
    if (rc) return rc;
    j.ss = ss;
    job_run(&j);
    rx_jit_ss_free(ss);
    return j.rc;
}

#define RX_MAX_THREADS 1024u

int rx_dataset_init_parallel(rx_dataset *ds, const rx_cache *cache, unsigned threads) {
    return rx_dataset_init_range_parallel(ds, cache, 0, RX_DATASET_ITEMS, threads);
}

int rx_dataset_init_range_parallel(rx_dataset *ds, const rx_cache *cache, uint64_t first, uint64_t count,
                                   unsigned threads) {
    int rc = check_args(ds, cache);
    if (rc) return rc;
    if (first > RX_DATASET_ITEMS || count > RX_DATASET_ITEMS - first) return RX_EINVAL;
    if (threads == 0) threads = util_cpus_usable();   /* inside a Slurm/cpuset allocation: its CPUs */
    if (threads > RX_MAX_THREADS) threads = RX_MAX_THREADS;
    if (threads == 1) return rx_dataset_init(ds, cache, first, count);

    rx_jit_ss *ss;
    const uint8_t *cmem;
    rc = ss_prepare(ds, cache, &ss, &cmem);
    if (rc) return rc;
    job *jobs = calloc(threads, sizeof *jobs);
    pthread_t *tid = calloc(threads, sizeof *tid);
    unsigned char *started = calloc(threads, 1);
    if (!jobs || !tid || !started) {
        free(jobs); free(tid); free(started);
        rx_jit_ss_free(ss);
        return RX_ENOMEM;
    }
    /* Split on multiples of RX_SS_LANES so every thread uses the fast path. */
    uint64_t groups = count / RX_SS_LANES, pos = first;
    for (unsigned t = 0; t < threads; t++) {
        uint64_t g = groups / threads + (t < groups % threads ? 1 : 0);
        jobs[t].cache = cache;
        jobs[t].ss = ss;
        jobs[t].cmem = cmem;
        jobs[t].mem = ds->memory;
        jobs[t].first = pos;
        jobs[t].count = g * RX_SS_LANES;
        pos += jobs[t].count;
    }
    jobs[threads - 1].count += first + count - pos;   /* the tail */
    /* Worker threads take jobs 1..n-1; this thread runs job 0 and any job
     * whose thread could not be started. */
    for (unsigned t = 1; t < threads; t++)
        started[t] = pthread_create(&tid[t], NULL, job_run, &jobs[t]) == 0;
    job_run(&jobs[0]);
    for (unsigned t = 1; t < threads; t++) {
        if (started[t]) (void)pthread_join(tid[t], NULL);
        else job_run(&jobs[t]);
    }
    for (unsigned t = 0; t < threads; t++) if (jobs[t].rc && !rc) rc = jobs[t].rc;
    free(jobs); free(tid); free(started);
    rx_jit_ss_free(ss);
    return rc;
}

void rx_dataset_free(rx_dataset *ds) {
    if (!ds) return;
    rx_mem_free(ds->memory, (size_t)RX_DATASET_BYTES);
    rx_mem_free(ds, sizeof *ds);
}

double rx_dataset_huge_share(const rx_dataset *ds) {
    return ds ? util_huge_share(ds->memory, (size_t)RX_DATASET_BYTES) : -1;
}
