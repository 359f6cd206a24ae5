/* SPDX-License-Identifier: ISC */
/* bench/bench_variant.h — the variants the harness measures and their
 * dependent chain of N hashes (docs/DESIGN.md §1 68-byte messages, built
 * by the library's tl_chain_message).  Implemented in bench/bench_variant.c.
 *
 * A variant name is dash-separated tokens:
 *   [rx-]v1|v2 [-interp|-jit-secure[-mprotect]] [-hardaes|-softaes] [-nothp] [-light|-full]
 *                                      ours (include/rxlock/rx.h); -mprotect: the JIT
 *                                      installs by page-permission flips (else through
 *                                      /proc/self/mem where the kernel allows it)
 *   librandomx-v1 [-interp|-jit] [-secure] [-hardaes|-softaes] [-light|-full]
 *                                      Debian's librandomx 1.1.10 (oracle, bench only)
 *   ref-v1|v2 [-interp|-jit] [-secure] [-hardaes|-softaes] [-light|-full]
 *                                      a reference RandomX library (e.g. tevador/RandomX
 *                                      v2.0 built outside the repository), dlopen'ed at
 *                                      run time from --ref-lib PATH or $RXLOCK_BENCH_REF_LIB;
 *                                      nothing in the product or CI depends on it
 *   sha3                               ours (include/rxlock/sha3.h): SHA3-256(K ‖ m)
 *                                      fused (sha3_chain_ctr, what tl_work_steps runs)
 *   sha3-sponge                        the same through the generic sponge, one
 *                                      sha3_256 per step (before the fused chain)
 *   openssl-sha3                       the same chain through OpenSSL EVP_Digest
 *   test-wrong-sha3                    TEST ONLY (needs --test-wrong): the sha3
 *                                      chain with one bit of every digest flipped,
 *                                      so the digest check must fail
 * Flags are exactly what the name says.  Ours has no JIT without W^X (code
 * pages are never writable and executable at once; RX_FLAG_SECURE is only
 * echoed), so ours is named "jit-secure" and a bare "jit" for ours is
 * refused; the peers' "jit" is their JIT without W^X, "jit-secure" with it.
 * No AES token = the engine's automatic choice.
 * Mode: light unless the name or --mode says full.
 */
#ifndef RXLOCK_BENCH_VARIANT_H
#define RXLOCK_BENCH_VARIANT_H
#include "rxlock/rx.h"
#include <openssl/evp.h>
#include <randomx.h>
#include <stddef.h>
#include <stdint.h>

enum bench_impl { IMPL_RX, IMPL_LIBRX, IMPL_SHA3, IMPL_OPENSSL, IMPL_WRONG, IMPL_REF, IMPL_SHA3_SPONGE };
/* RANDOMX_FLAG_V2 of tevador/RandomX v2.0 (Debian's 1.1.10 header has no v2) */
#define BENCH_REF_FLAG_V2 128u

/* The randomx_* C API, either Debian's (linked) or a reference library's
 * (dlopen + dlsym; RTLD_DEEPBIND so its internal calls never resolve to the
 * linked Debian copy of the same symbol names). */
struct bench_rxapi {
    randomx_flags (*get_flags)(void);
    randomx_cache *(*alloc_cache)(randomx_flags);
    void (*init_cache)(randomx_cache *, const void *, size_t);
    void *(*get_cache_memory)(randomx_cache *);     /* optional (NULL) */
    void (*release_cache)(randomx_cache *);
    randomx_dataset *(*alloc_dataset)(randomx_flags);
    unsigned long (*dataset_item_count)(void);
    void (*init_dataset)(randomx_dataset *, randomx_cache *, unsigned long, unsigned long);
    void *(*get_dataset_memory)(randomx_dataset *);
    void (*release_dataset)(randomx_dataset *);
    randomx_vm *(*create_vm)(randomx_flags, randomx_cache *, randomx_dataset *);
    void (*destroy_vm)(randomx_vm *);
    void (*calculate_hash)(randomx_vm *, const void *, size_t, void *);
};

enum bench_work { WORK_V2, WORK_V1, WORK_SHA3 };

struct bench_shared;  /* cache/dataset, shared by variants with equal keys */

struct bench_variant {
    char name[64];
    enum bench_impl impl;
    enum bench_work work;
    int  full;
    unsigned flags;               /* requested RX_FLAG_* (ours) or RANDOMX_FLAG_* */
    unsigned actual;              /* ours: rx_vm_flags() of the first VM    */
    const char *jit_install;      /* ours: rx_vm_jit_install() of the first VM, or NULL */
    struct bench_shared *sh;
    double cache_seconds, dataset_seconds;  /* setup cost (0 when reused) */
};

struct bench_shared {
    enum bench_impl impl;
    unsigned key_flags;
    int full;
    rx_cache *cache;
    rx_dataset *ds;
    randomx_cache *lcache;
    randomx_dataset *lds;
    int ds_borrowed;              /* dataset belongs to another entry      */
    int ds_view;                  /* ours over a peer's dataset memory
                                     (bench_share_dataset): free the struct only */
};

/* One VM / hashing context; single-threaded. */
struct bench_worker {
    struct bench_variant *v;
    rx_vm *vm;
    randomx_vm *lvm;
    EVP_MD_CTX *md;
};

extern const char *const bench_work_names[3];
/* --ref-lib PATH (else $RXLOCK_BENCH_REF_LIB): the ref-* variants' library */
extern const char *bench_ref_path;
/* --ref-prefix P (else $RXLOCK_BENCH_REF_PREFIX, else none): the library's
 * randomx_* API under symbol names P + "randomx_" + name, e.g. a shim that
 * exports another engine (XMRig's RandomX) as xmrig_randomx_* */
extern const char *bench_ref_prefix;
/* Set before bench_setup: a full-mode variant of ours set up after a peer's
 * reads the peer's dataset memory instead of building its own (one shared
 * dataset for a paired run: the same bytes on the same pages). */
extern int bench_share_dataset;

/* The randomx_* API of a peer variant: Debian's (linked) or the reference
 * library's (loaded by bench_parse_variant). */
const struct bench_rxapi *bench_api(enum bench_impl impl);
/* 1 for the peers (librandomx, ref), which use the randomx_* API. */
int  bench_is_peer(enum bench_impl impl);
/* THP coverage of the mapping that holds p: AnonHugePages and Size (kB) of
 * its /proc/self/smaps entry.  0, or -1 when not found. */
int  bench_thp_of(const void *p, long *huge_kb, long *size_kb);
/* Parse a variant name (syntax above).  0, or -1 with a message in err. */
int  bench_parse_variant(const char *name, int mode_full, int allow_test, struct bench_variant *v,
                         char *err, size_t errlen);
/* Names of the RX_FLAG_* / RANDOMX_FLAG_* bits, for the JSON lines. */
void bench_rx_flag_names(unsigned f, char *out, size_t cap);
void bench_librx_flag_names(unsigned f, char *out, size_t cap);
/* Build (or reuse) the cache/dataset a variant needs, outside any timing
 * (setup seconds in v).  0, or -1 with a message in err. */
int  bench_setup(struct bench_variant *v, const uint8_t key[32], unsigned threads,
                 char *err, size_t errlen);
/* Free every cache/dataset bench_setup built. */
void bench_pool_free(void);
/* One VM / hashing context for a set-up variant.  0, or -1 with err. */
int  bench_worker_new(struct bench_worker *w, struct bench_variant *v, char *err, size_t errlen);
void bench_worker_free(struct bench_worker *w);
/* The dependent chain: d <- W(K, m(g, i, d)) for i = 0 .. n-1.  0 ok, -1 on
 * an engine error (message in err). */
int  bench_chain(struct bench_worker *w, const uint8_t key[32], uint32_t g, uint64_t n,
                 uint8_t d[32], char *err, size_t errlen);
/* One step: d_out = W(K, m(g, i, d_in)), one hash (sha3: the sponge, not the
 * fused chain); d_out may be d_in.  0 ok, -1 on an engine error. */
int  bench_step(struct bench_worker *w, const uint8_t key[32], uint32_t g, uint64_t i,
                const uint8_t d_in[32], uint8_t d_out[32], char *err, size_t errlen);
/* The engine a VM really runs ("jit"/"interp"/"openssl"/"native"). */
const char *bench_engine_actual(const struct bench_variant *v);
#endif
