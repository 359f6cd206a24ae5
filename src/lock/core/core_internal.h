/* SPDX-License-Identifier: ISC */
/* src/lock/core/core_internal.h — shared internals of the time-lock layer (room core/, below every other room): wrap
 * key derivation and AEAD, randomness (with the test-only deterministic
 * mode), little-endian helpers, the journal, and the worker IPC message. */
#ifndef RXLOCK_TL_INTERNAL_H
#define RXLOCK_TL_INTERNAL_H
#include "rxlock/rxlock.h"
#include "util/util.h"   /* util_now: the monotonic clock */
#include <stddef.h>
#include <stdint.h>

/* Little-endian loads and stores: the one header (util/le.h). */
#include "util/le.h"
#define tl_put32 util_store32le
#define tl_put64 util_store64le
#define tl_get32 util_load32le
#define tl_get64 util_load64le

/* k_g = BLAKE2b-256(key = e_g, msg = "rxlock/wrap/v1" || P || u32le(g)) */
int tl_wrap_key(uint8_t k[32], const uint8_t e[32], const uint8_t id[16], uint32_t g);
/* c = XChaCha20-Poly1305(k_g, nonce, pt, aad = H || u32le(g)) */
int tl_wrap_seal(uint8_t ct[48], const uint8_t pt[32], const uint8_t e[32],
                 const uint8_t id[16], const uint8_t H[32], uint32_t g, const uint8_t nonce[24]);
/* 0 or TL_EAUTH; pt wiped on failure. */
int tl_wrap_open(uint8_t pt[32], const uint8_t ct[48], const uint8_t e[32],
                 const uint8_t id[16], const uint8_t H[32], uint32_t g, const uint8_t nonce[24]);

/* Random bytes for `label`/`index` (the label only matters in test mode).
 * Test mode: RXLOCK_TEST_INSECURE=1 and RXLOCK_TEST_SEED=<hex>: out =
 * BLAKE2b(key = seed, "rxlock/test-rng/v1" || label || u64le(index)). */
int tl_random(uint8_t *out, size_t len, const char *label, uint64_t index);
/* 1 when the test-only deterministic mode is active (always 0 outside the
 * test build); tl_generate reports it as a TL_EVENT_TEST_MODE event. */
int tl_test_mode(void);
/* printf into the caller's error buffer (err may be NULL or errlen 0). */
void tl_set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Parameter bounds, one check for every path (params.c).  1 = valid. */
#define TL_RATE_MAX (1ull << 62)   /* assumed_rate_mhps and target_seconds */
int tl_shape_valid(tl_work_type work, uint32_t G, uint64_t S);
int tl_rate_source_valid(const char *s);
int tl_params_valid(const tl_params *p);
/* chain segments of all groups together (bounds the verification
 * record and the chain values a generation keeps in locked memory). */
#define TL_MAX_SEGMENTS 65536u

/* Canonical header (header.c).  TL_HEADER_MAX bounds its size. */
#define TL_HEADER_MAX (512 + TL_EPOCH_PQ_BYTES)   /* + the recipient */
int tl_header_digest(const tl_puzzle *pz, uint8_t H[32]);
/* the message the Ed25519 signature covers: the canonical header,
 * and from version 2 on the wraps' digest after it (header.c). */
#define TL_SIGNED_MAX (TL_HEADER_MAX + 32)
int tl_signed_message(const tl_puzzle *pz, uint8_t *buf, size_t cap, size_t *len);
/* The public parameters of a new puzzle from p: version, work, G, S, rate
 * and its source, target, test-only flag, creation time (params.c). */
void tl_puzzle_from_params(tl_puzzle *pz, const tl_params *p);
/* (epoch.c): the epoch's public commitment from x — X25519(x, 9),
 * or for a post-quantum epoch (pz->pq_epoch) the age mlkem768x25519
 * recipient of seed x and its X25519 part — and the solver's check of a
 * recovered x against it (TL_ECOMMIT when it does not match). */
int tl_epoch_public(tl_puzzle *pz, const uint8_t x[32]);
int tl_epoch_check(const tl_puzzle *pz, const uint8_t x[32]);
/* Sign the canonical header with sign_sk (Ed25519; pz->signer already set)
 * and verify the result (signer.c). */
int tl_puzzle_sign(tl_puzzle *pz, const uint8_t sign_sk[64]);
/* Key files (signer.c): "# TITLE", "# public key: HEX(pub)", HEX(secret);
 * atomic, mode 0600, no clobber unless force.  load: the first line that is
 * not a comment, 64 hex digits; TL_EFORMAT otherwise. */
int tl_keyfile_save(const char *path, const char *title, const uint8_t pub[32],
                    const uint8_t secret[32], int force);
int tl_keyfile_load(const char *path, uint8_t secret[32]);
/* The same relative to a directory handle, the file opened as a regular
 * file only (util_open_reg_at): a generation state's key. */
int tl_keyfile_save_at(int dfd, const char *name, const char *title, const uint8_t pub[32],
                       const uint8_t secret[32], int force);
int tl_keyfile_load_at(int dfd, const char *name, uint8_t secret[32]);
/* The canonical JSON text, checked to parse back to the same header
 * digest; *json is the caller's to free, and so is *parsed (when parsed is
 * not NULL): that parse of the text, the one a caller then uses (puzzle.c). */
int tl_puzzle_emit(const tl_puzzle *pz, char **json, size_t *json_len, tl_puzzle **parsed);

/* Journal (journal.c). */
typedef struct tl_journal tl_journal;
/* Open or create; checks the file belongs to H.  *have = 1 and (g, i, d)
 * = the last valid entry when one exists.  A torn/corrupt tail is cut off. */
int  tl_journal_open(tl_journal **j, const char *path, const uint8_t H[32],
                     int *have, uint32_t *g, uint64_t *i, uint8_t d[32]);
int  tl_journal_append(tl_journal *j, uint32_t g, uint64_t i, const uint8_t d[32]);
void tl_journal_close(tl_journal *j);
/* the last valid entry (g, 0, s_g) of j: TL_OK and d, or
 * TL_EJOURNAL when there is none. */
int  tl_journal_group_start(tl_journal *j, uint32_t g, uint8_t d[32]);
#define TL_JOURNAL_HEADER_SIZE 96
#define TL_JOURNAL_ENTRY_SIZE  80
/* Pure parser (fuzzed): scan a journal image; returns 0 and fills the last
 * valid entry / the valid length, or a TL_E* code for a bad header. */
int  tl_journal_scan(const uint8_t *buf, size_t len, const uint8_t H[32],
                     int *have, uint32_t *g, uint64_t *i, uint8_t d[32], size_t *valid_len);
void tl_journal_header(uint8_t out[TL_JOURNAL_HEADER_SIZE], const uint8_t H[32]);
void tl_journal_entry(uint8_t out[TL_JOURNAL_ENTRY_SIZE], const uint8_t H[32],
                      uint32_t g, uint64_t i, const uint8_t d[32]);

/* A forked worker's own VM: the same engine on new memory.  The VM it
 * inherited shares its pages with the parent copy-on-write, and the first
 * write to a shared huge page splits it, so the 2 MiB scratchpad would run
 * on 4 KiB pages in every worker (bench/README.md "Generation paired with
 * XMRig rx/2").  TL_OK (sha3-256: nothing to do); on failure the old VM is
 * kept and still works. */
int tl_work_renew_vm(tl_work *w);

/* Worker exit: free (and wipe) only the VM; the cache / dataset are public,
 * derived from K, and shared copy-on-write with the parent (wiping them in
 * a child would copy 2 GiB). */
void tl_work_free_vm(tl_work *w);

/* the same work function with its memory (RandomX cache, dataset,
 * VM) in new allocations, copied rather than rebuilt (a second placement in
 * RAM for calibration); same engine, same results.  Free with tl_work_free.
 * 0, TL_EINVAL, TL_ENOMEM or an RX_E* code. */
int tl_work_clone(tl_work **out, const tl_work *src);

/* 1 when `copies` more full-mode RandomX datasets (cache + margin included)
 * fit here by tl_mode_resolve's checks, else 0 (mode.c, the mode policy:
 * in core because every room that builds a work function uses it). */
int tl_full_fits(unsigned copies);

/* m, or for TL_MODE_DEFAULT the mode the policy picks here for `work`
 * (tl_mode_resolve; light when it cannot decide) (mode.c). */
tl_mode tl_mode_effective(tl_work_type work, tl_mode m);


/* tl_work_new, reporting the dataset build (full mode) through
 * cb in slices: p is copied, with setup = 1, setup_fraction and
 * setup_seconds filled in, and eta_seconds = the rest of the setup +
 * hash_eta (when hash_eta >= 0).  cb returning non-zero: TL_EINTR. */
int tl_work_new_progress(tl_work **w, tl_work_type type, const uint8_t key[32], tl_mode mode,
                         tl_progress_fn cb, void *ctx, const tl_progress *p, double hash_eta);

/* Report an event to o->event when the caller gave one (worker.c); the
 * message is formatted printf-style into a bounded buffer. */
void tl_event_emit(const tl_gen_opts *o, tl_event_kind kind, uint32_t group, double seconds,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#endif
