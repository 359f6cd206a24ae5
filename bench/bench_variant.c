/* SPDX-License-Identifier: ISC */
/* bench/bench_variant.c — the bench harness's variants (see bench_variant.h):
 * parsing a name, the shared cache/dataset pool, a worker per variant and
 * the dependent chain, for our engine, Debian's librandomx, a dlopen'ed
 * reference library, our SHA3 and OpenSSL's. */
#include "bench_variant.h"
#include "rx/cache_internal.h"   /* struct rx_dataset: a view over a peer's dataset */
#include "rxlock/rxlock.h"
#include "rxlock/sha3.h"
#include "util/util.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct bench_rxapi bench_debian_api = {
    randomx_get_flags, randomx_alloc_cache, randomx_init_cache, NULL /* not in 1.1.10 */,
    randomx_release_cache, randomx_alloc_dataset, randomx_dataset_item_count,
    randomx_init_dataset, randomx_get_dataset_memory, randomx_release_dataset,
    randomx_create_vm, randomx_destroy_vm, randomx_calculate_hash
};
static struct bench_rxapi bench_ref_api;
static int bench_ref_loaded;
const char *bench_ref_path;   /* --ref-lib, else $RXLOCK_BENCH_REF_LIB */
const char *bench_ref_prefix; /* --ref-prefix, else $RXLOCK_BENCH_REF_PREFIX, else "" */
int bench_share_dataset;      /* ours reads a full-mode peer's dataset memory */

/* Load the reference library once.  0, or -1 with a message in err. */
static int bench_ref_load(char *err, size_t errlen) {
    if (bench_ref_loaded) return 0;
    const char *path = bench_ref_path ? bench_ref_path : getenv("RXLOCK_BENCH_REF_LIB");
    if (!path || !*path) {
        snprintf(err, errlen, "ref-* variants need --ref-lib PATH or RXLOCK_BENCH_REF_LIB "
                 "(a librandomx.so built outside the repository, see bench/RESULTS.md)");
        return -1;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) { snprintf(err, errlen, "dlopen %s: %s", path, dlerror()); return -1; }
    struct { const char *name; void **slot; } syms[] = {
#define BENCH_SYM(f) { "randomx_" #f, (void **)&bench_ref_api.f }
        BENCH_SYM(get_flags), BENCH_SYM(alloc_cache), BENCH_SYM(init_cache),
        BENCH_SYM(get_cache_memory), BENCH_SYM(release_cache), BENCH_SYM(alloc_dataset),
        BENCH_SYM(dataset_item_count), BENCH_SYM(init_dataset), BENCH_SYM(get_dataset_memory),
        BENCH_SYM(release_dataset), BENCH_SYM(create_vm), BENCH_SYM(destroy_vm),
        BENCH_SYM(calculate_hash),
#undef BENCH_SYM
    };
    const char *prefix = bench_ref_prefix ? bench_ref_prefix : getenv("RXLOCK_BENCH_REF_PREFIX");
    if (!prefix) prefix = "";
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        char name[128];
        if (snprintf(name, sizeof name, "%s%s", prefix, syms[i].name) >= (int)sizeof name) {
            snprintf(err, errlen, "--ref-prefix too long"); dlclose(h); return -1;
        }
        void *p = dlsym(h, name);
        if (!p && syms[i].slot == (void **)&bench_ref_api.get_cache_memory) continue;
        if (!p) { snprintf(err, errlen, "%s: no symbol %s", path, name); dlclose(h); return -1; }
        memcpy(syms[i].slot, &p, sizeof p);   /* object -> function pointer (POSIX) */
    }
    bench_ref_loaded = 1;
    return 0;
}
const struct bench_rxapi *bench_api(enum bench_impl impl) {
    return impl == IMPL_REF ? &bench_ref_api : &bench_debian_api;
}
int bench_is_peer(enum bench_impl impl) { return impl == IMPL_LIBRX || impl == IMPL_REF; }

/* THP coverage of the mapping that holds p: AnonHugePages and Size (kB) of
 * its /proc/self/smaps entry.  -1 when not found. */
int bench_thp_of(const void *p, long *huge_kb, long *size_kb) {
    *huge_kb = *size_kb = 0;
    if (!p) return -1;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0, found = -1;
    uintptr_t a = (uintptr_t)p;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (in) break;
            in = a >= lo && a < hi;
            if (in) found = 0;
            continue;
        }
        if (!in) continue;
        long v;
        if (sscanf(line, "Size: %ld kB", &v) == 1) *size_kb = v;
        else if (sscanf(line, "AnonHugePages: %ld kB", &v) == 1) *huge_kb = v;
    }
    fclose(f);
    return found;
}
const char *const bench_work_names[3] = { "randomx-v2", "randomx-v1", "sha3-256" };




int bench_parse_variant(const char *name, int mode_full, int allow_test, struct bench_variant *v,
                               char *err, size_t errlen) {
    memset(v, 0, sizeof *v);
    if (snprintf(v->name, sizeof v->name, "%s", name) >= (int)sizeof v->name) {
        snprintf(err, errlen, "variant name too long: %s", name);
        return -1;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%s", name);
    char *save = NULL, *t = strtok_r(buf, "-", &save);
    if (!t) { snprintf(err, errlen, "empty variant name"); return -1; }
    int have_version = 0, jit = 0, secure = 0, hard = 0, soft = 0, nothp = 0, flips = 0;
    v->full = mode_full;
    if (!strcmp(t, "sha3")) {
        v->impl = IMPL_SHA3; v->work = WORK_SHA3; t = strtok_r(NULL, "-", &save);
        if (t && !strcmp(t, "sponge")) { v->impl = IMPL_SHA3_SPONGE; t = strtok_r(NULL, "-", &save); }
    }
    else if (!strcmp(t, "openssl")) {
        t = strtok_r(NULL, "-", &save);
        if (!t || strcmp(t, "sha3")) { snprintf(err, errlen, "%s: expected openssl-sha3", name); return -1; }
        v->impl = IMPL_OPENSSL; v->work = WORK_SHA3; t = strtok_r(NULL, "-", &save);
    } else if (!strcmp(t, "test")) {
        t = strtok_r(NULL, "-", &save);
        if (!t || strcmp(t, "wrong")) { snprintf(err, errlen, "%s: unknown variant", name); return -1; }
        t = strtok_r(NULL, "-", &save);
        if (!t || strcmp(t, "sha3")) { snprintf(err, errlen, "%s: expected test-wrong-sha3", name); return -1; }
        if (!allow_test) { snprintf(err, errlen, "%s is a test-only variant (needs --test-wrong)", name); return -1; }
        v->impl = IMPL_WRONG; v->work = WORK_SHA3; t = strtok_r(NULL, "-", &save);
    } else {
        v->impl = IMPL_RX;
        if (!strcmp(t, "rx")) t = strtok_r(NULL, "-", &save);
        else if (!strcmp(t, "librandomx")) { v->impl = IMPL_LIBRX; t = strtok_r(NULL, "-", &save); }
        else if (!strcmp(t, "ref")) { v->impl = IMPL_REF; t = strtok_r(NULL, "-", &save); }
        for (; t; t = strtok_r(NULL, "-", &save)) {
            if (!strcmp(t, "v1")) { v->work = WORK_V1; have_version = 1; }
            else if (!strcmp(t, "v2")) { v->work = WORK_V2; have_version = 1; }
            else if (!strcmp(t, "interp")) jit = 0;
            else if (!strcmp(t, "jit")) jit = 1;
            else if (!strcmp(t, "secure")) secure = 1;
            else if (!strcmp(t, "insecure")) secure = 0;
            else if (!strcmp(t, "hardaes")) hard = 1;
            else if (!strcmp(t, "softaes")) soft = 1;
            else if (!strcmp(t, "nothp")) nothp = 1;
            else if (!strcmp(t, "mprotect")) flips = 1;
            else if (!strcmp(t, "thp")) nothp = 0;
            else if (!strcmp(t, "full")) v->full = 1;
            else if (!strcmp(t, "light")) v->full = 0;
            else { snprintf(err, errlen, "%s: unknown token '%s'", name, t); return -1; }
        }
        if (!have_version) { snprintf(err, errlen, "%s: needs v1 or v2", name); return -1; }
        if (hard && soft) { snprintf(err, errlen, "%s: hardaes and softaes together", name); return -1; }
        if (bench_is_peer(v->impl)) {
            if (v->impl == IMPL_LIBRX && v->work != WORK_V1) { snprintf(err, errlen, "%s: librandomx 1.1.10 is v1 only", name); return -1; }
            if (flips) { snprintf(err, errlen, "%s: -mprotect names our JIT's install path; a peer's is -jit or -jit-secure", name); return -1; }
            if (nothp) { snprintf(err, errlen, "%s: %s has no THP switch (see bench/RESULTS.md: GLIBC_TUNABLES)", name, v->impl == IMPL_REF ? "ref" : "librandomx"); return -1; }
            if (v->impl == IMPL_REF && bench_ref_load(err, errlen)) return -1;
            randomx_flags host_flags = bench_api(v->impl)->get_flags();
            unsigned f = RANDOMX_FLAG_DEFAULT;
            if (jit) f |= RANDOMX_FLAG_JIT;
            if (secure) f |= RANDOMX_FLAG_SECURE;
            if (hard || (!soft && (host_flags & RANDOMX_FLAG_HARD_AES))) f |= RANDOMX_FLAG_HARD_AES;
            if (v->full) f |= RANDOMX_FLAG_FULL_MEM;
            f |= (unsigned)host_flags & RANDOMX_FLAG_ARGON2;
            if (v->impl == IMPL_REF && v->work == WORK_V2) f |= BENCH_REF_FLAG_V2;
            v->flags = f;
        } else {
            if (jit && !secure) {   /* no JIT without W^X to suggest */
                snprintf(err, errlen, "%s: our JIT is always W^X (its code pages are never writable and executable); name it with -jit-secure", name);
                return -1;
            }
            if (flips && !jit) { snprintf(err, errlen, "%s: -mprotect is a JIT install path: add -jit-secure", name); return -1; }
            unsigned f = 0;
            if (v->work == WORK_V2) f |= RX_FLAG_V2;
            if (jit) f |= RX_FLAG_JIT;
            if (secure) f |= RX_FLAG_SECURE;
            if (hard) f |= RX_FLAG_HARD_AES;
            if (soft) f |= RX_FLAG_SOFT_AES;
            if (nothp) f |= RX_FLAG_NO_THP;
            if (flips) f |= RX_FLAG_JIT_MPROTECT;
            if (v->full) f |= RX_FLAG_FULL;
            v->flags = f;
        }
        return 0;
    }
    if (t) { snprintf(err, errlen, "%s: unexpected token '%s'", name, t); return -1; }
    v->full = 0;
    return 0;
}

/* Names of the set bits of the low 8 flag bits, comma-separated. */
static void flag_names(unsigned f, const char *const n[8], char *out, size_t cap) {
    size_t used = 0;
    out[0] = 0;
    for (unsigned b = 0; b < 8; b++) {
        if (!(f & (1u << b))) continue;
        int k = snprintf(out + used, cap - used, "%s%s", used ? "," : "", n[b]);
        if (k > 0 && (size_t)k < cap - used) used += (size_t)k;
    }
}
void bench_rx_flag_names(unsigned f, char *out, size_t cap) {
    static const char *const n[8] = { "v2", "full", "jit", "secure", "hardaes", "softaes", "hugepages", "nothp" };
    flag_names(f, n, out, cap);
}
void bench_librx_flag_names(unsigned f, char *out, size_t cap) {
    static const char *const n[8] = { "largepages", "hardaes", "full", "jit", "secure", "argon2ssse3", "argon2avx2", "v2" };
    flag_names(f, n, out, cap);
}

/* ---- shared cache / dataset pool --------------------------------------- */
#define BENCH_MAX_SHARED 16
static struct bench_shared bench_pool[BENCH_MAX_SHARED];
static size_t bench_pool_n;

struct bench_ds_job { const struct bench_rxapi *api; randomx_dataset *ds; randomx_cache *c; unsigned long first, count; };
static void *bench_ds_thread(void *arg) {
    struct bench_ds_job *j = arg;
    j->api->init_dataset(j->ds, j->c, j->first, j->count);
    return NULL;
}

/* Build (or reuse) the cache/dataset a variant needs, outside any timing. */
int bench_setup(struct bench_variant *v, const uint8_t key[32], unsigned threads,
                       char *err, size_t errlen) {
    if (v->impl != IMPL_RX && !bench_is_peer(v->impl)) return 0;
    const struct bench_rxapi *api = bench_api(v->impl);
    unsigned kf = v->impl == IMPL_RX
        ? v->flags & (RX_FLAG_V2 | RX_FLAG_JIT | RX_FLAG_NO_THP | RX_FLAG_HUGEPAGES)
        : v->flags & (RANDOMX_FLAG_JIT | RANDOMX_FLAG_LARGE_PAGES | RANDOMX_FLAG_ARGON2 | BENCH_REF_FLAG_V2);
    struct bench_shared *s = NULL;
    double t0;
    for (size_t i = 0; i < bench_pool_n; i++) {
        s = &bench_pool[i];
        if (s->impl == v->impl && s->key_flags == kf) { v->sh = s; goto dataset; }  /* reuse */
    }
    if (bench_pool_n == BENCH_MAX_SHARED) { snprintf(err, errlen, "too many distinct caches"); return -1; }
    s = &bench_pool[bench_pool_n];
    memset(s, 0, sizeof *s);
    s->impl = v->impl; s->key_flags = kf;
    t0 = util_now();
    if (v->impl == IMPL_RX) {
        int rc = rx_cache_new(&s->cache, kf);
        if (rc == 0) rc = rx_cache_init(s->cache, key, 32);
        if (rc) { snprintf(err, errlen, "%s: cache: %s", v->name, rxlock_strerror(rc)); rx_cache_free(s->cache); return -1; }
    } else {
        s->lcache = api->alloc_cache((randomx_flags)kf);
        if (!s->lcache) { snprintf(err, errlen, "%s: randomx_alloc_cache failed", v->name); return -1; }
        api->init_cache(s->lcache, key, 32);
    }
    v->cache_seconds = util_now() - t0;
    bench_pool_n++;
    v->sh = s;
dataset:
    if (!v->full || s->full) return 0;
    /* The dataset does not depend on the JIT flag (nor, ours, on the
     * version: RandomX v2 changes only the VM): borrow an equal one. */
    unsigned nodep = v->impl == IMPL_RX ? (unsigned)(RX_FLAG_JIT | RX_FLAG_V2) : (unsigned)RANDOMX_FLAG_JIT;
    unsigned dkf = kf & ~nodep;
    for (size_t i = 0; i < bench_pool_n; i++) {
        struct bench_shared *o = &bench_pool[i];
        unsigned okf = o->key_flags & ~nodep;
        if (o != s && o->impl == v->impl && okf == dkf && o->full) {
            s->ds = o->ds; s->lds = o->lds; s->ds_borrowed = 1; s->full = 1;
            return 0;
        }
    }
    if (v->impl == IMPL_RX && bench_share_dataset) {
        /* one shared dataset: ours reads the peer's memory (same bytes, the
         * same pages), so placement cannot favour either engine */
        for (size_t i = 0; i < bench_pool_n; i++) {
            struct bench_shared *o = &bench_pool[i];
            if (!bench_is_peer(o->impl) || !o->full || !o->lds) continue;
            s->ds = calloc(1, sizeof *s->ds);
            if (!s->ds) { snprintf(err, errlen, "%s: out of memory", v->name); return -1; }
            s->ds->memory = bench_api(o->impl)->get_dataset_memory(o->lds);
            s->ds->flags = v->flags;
            s->ds_view = 1; s->full = 1;
            return 0;
        }
    }
    t0 = util_now();
    if (v->impl == IMPL_RX) {
        int rc = rx_dataset_new(&s->ds, v->flags);
        if (rc == 0) rc = rx_dataset_init_parallel(s->ds, s->cache, threads);
        if (rc) { snprintf(err, errlen, "%s: dataset: %s", v->name, rxlock_strerror(rc)); rx_dataset_free(s->ds); s->ds = NULL; return -1; }
    } else {
        s->lds = api->alloc_dataset((randomx_flags)(v->flags & RANDOMX_FLAG_LARGE_PAGES));
        if (!s->lds) { snprintf(err, errlen, "%s: randomx_alloc_dataset failed", v->name); return -1; }
        unsigned long items = api->dataset_item_count();
        unsigned nt = threads ? threads : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
        if (nt < 1) nt = 1;
        if (nt > 64) nt = 64;
        pthread_t th[64];
        struct bench_ds_job job[64];
        unsigned started = 0;
        for (unsigned i = 0; i < nt; i++) {
            job[i].api = api; job[i].ds = s->lds; job[i].c = s->lcache;
            job[i].first = items * i / nt; job[i].count = items * (i + 1) / nt - job[i].first;
            if (pthread_create(&th[i], NULL, bench_ds_thread, &job[i]) != 0) break;
            started++;
        }
        for (unsigned i = 0; i < started; i++) pthread_join(th[i], NULL);
        if (started != nt) { snprintf(err, errlen, "%s: pthread_create failed", v->name); return -1; }
    }
    s->full = 1;
    v->dataset_seconds = util_now() - t0;
    return 0;
}

void bench_pool_free(void) {
    for (size_t i = 0; i < bench_pool_n; i++) {
        struct bench_shared *s = &bench_pool[i];
        if (s->ds_view) free(s->ds);      /* the memory is the peer's */
        else if (!s->ds_borrowed) {
            rx_dataset_free(s->ds);
            if (s->lds) bench_api(s->impl)->release_dataset(s->lds);
        }
        rx_cache_free(s->cache);
        if (s->lcache) bench_api(s->impl)->release_cache(s->lcache);
    }
    bench_pool_n = 0;
}

/* ---- workers ---------------------------------------------------------- */
int bench_worker_new(struct bench_worker *w, struct bench_variant *v, char *err, size_t errlen) {
    memset(w, 0, sizeof *w);
    w->v = v;
    switch (v->impl) {
    case IMPL_RX: {
        int rc = rx_vm_new(&w->vm, v->flags, v->sh->cache, v->full ? v->sh->ds : NULL);
        if (rc) { snprintf(err, errlen, "%s: rx_vm_new: %s", v->name, rxlock_strerror(rc)); return -1; }
        v->actual = rx_vm_flags(w->vm);
        v->jit_install = rx_vm_jit_install(w->vm);
        return 0;
    }
    case IMPL_LIBRX: case IMPL_REF:
        w->lvm = bench_api(v->impl)->create_vm((randomx_flags)v->flags, v->sh->lcache, v->full ? v->sh->lds : NULL);
        if (!w->lvm) { snprintf(err, errlen, "%s: randomx_create_vm failed", v->name); return -1; }
        v->actual = v->flags;
        return 0;
    case IMPL_OPENSSL:
        w->md = EVP_MD_CTX_new();
        if (!w->md) { snprintf(err, errlen, "EVP_MD_CTX_new failed"); return -1; }
        return 0;
    default:
        return 0;
    }
}

void bench_worker_free(struct bench_worker *w) {
    rx_vm_free(w->vm);
    if (w->lvm) bench_api(w->v->impl)->destroy_vm(w->lvm);
    if (w->md) EVP_MD_CTX_free(w->md);
    memset(w, 0, sizeof *w);
}

/* The dependent chain: d <- W(K, m(g, i, d)) for i = 0 .. n-1, the message
 * built by the library's tl_chain_message as the product builds it.  For
 * sha3, the buffer is K || m (100 bytes).  0 ok, -1 on an engine error. */
int bench_chain(struct bench_worker *w, const uint8_t key[32], uint32_t g, uint64_t n,
                uint8_t d[32], char *err, size_t errlen) {
    uint8_t buf[100], out[32];
    uint8_t *m = buf + 32;
    memcpy(buf, key, 32);
    memcpy(out, d, 32);
    struct bench_variant *v = w->v;
    if (v->impl == IMPL_SHA3) {            /* the fused puzzle-form chain */
        uint8_t zero[32] = { 0 };
        tl_chain_message(m, g, 0, zero);   /* K || tag, g, 0: the fixed 60 bytes */
        sha3_chain_ctr(buf, 0, n, d);
        return 0;
    }
    for (uint64_t i = 0; i < n; i++)
        if (bench_step(w, key, g, i, out, out, err, errlen)) return -1;
    memcpy(d, out, 32);
    return 0;
}

/* One step of the chain, d_out = W(K, m(g, i, d_in)), one hash however the
 * variant computes it (sha3: the plain sponge, not the fused chain).
 * d_out may be d_in.  0 ok, -1 on an engine error. */
int bench_step(struct bench_worker *w, const uint8_t key[32], uint32_t g, uint64_t i,
               const uint8_t d_in[32], uint8_t d_out[32], char *err, size_t errlen) {
    uint8_t buf[100];
    uint8_t *m = buf + 32;
    struct bench_variant *v = w->v;
    memcpy(buf, key, 32);
    tl_chain_message(m, g, i, d_in);
    switch (v->impl) {
    case IMPL_RX: {
        int rc = rx_vm_hash(w->vm, m, 68, d_out);
        if (rc) { snprintf(err, errlen, "%s: rx_vm_hash: %s", v->name, rxlock_strerror(rc)); return -1; }
        return 0;
    }
    case IMPL_LIBRX: case IMPL_REF:
        bench_api(v->impl)->calculate_hash(w->lvm, m, 68, d_out);
        return 0;
    case IMPL_SHA3: case IMPL_SHA3_SPONGE:
        sha3_256(d_out, buf, 100);
        return 0;
    case IMPL_WRONG:
        sha3_256(d_out, buf, 100);
        d_out[31] ^= 1;   /* deliberately wrong: the harness must notice */
        return 0;
    case IMPL_OPENSSL: {
        unsigned olen = 0;
        if (EVP_DigestInit_ex(w->md, EVP_sha3_256(), NULL) != 1 ||
            EVP_DigestUpdate(w->md, buf, 100) != 1 ||
            EVP_DigestFinal_ex(w->md, d_out, &olen) != 1 || olen != 32) {
            snprintf(err, errlen, "openssl sha3 failed"); return -1;
        }
        return 0;
    }
    }
    snprintf(err, errlen, "%s: no step function", v->name);
    return -1;
}

/* The engine a VM really runs ("jit"/"interp"), for the JSON lines. */
const char *bench_engine_actual(const struct bench_variant *v) {
    if (v->impl == IMPL_RX) return (v->actual & RX_FLAG_JIT) ? "jit" : "interp";
    if (bench_is_peer(v->impl)) return (v->actual & RANDOMX_FLAG_JIT) ? "jit" : "interp";
    return v->impl == IMPL_OPENSSL ? "openssl" : "native";
}
