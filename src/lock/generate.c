/* src/lock/generate.c — tl_generate: draw the secrets, build the work
 * function once, run every group's chain in worker processes, wrap
 * s_2 .. s_G and x, sign, self-check every wrap, serialise canonically,
 * and wipe every secret on every path (docs/DESIGN.md §1). */
#include "tl_internal.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int tl_run_workers(tl_work *w, uint32_t G, uint64_t S, uint8_t (*seeds)[32], uint8_t (*e)[32],
                   void *secrets, size_t secrets_len, const tl_gen_opts *o);

static int rate_source_valid(const char *s) {
    size_t n = strnlen(s, TL_RATE_SOURCE_MAX);
    if (n >= TL_RATE_SOURCE_MAX) return 0;
    for (size_t k = 0; k < n; k++) if (s[k] < 0x20 || s[k] > 0x7e) return 0;
    return 1;
}

void tl_puzzle_from_params(tl_puzzle *pz, const tl_params *p) {
    pz->version = TL_PUZZLE_VERSION;
    pz->work = p->work;
    pz->groups = p->groups;
    pz->steps = p->steps;
    pz->rate_mhps = p->rate_mhps;
    strcpy(pz->rate_source, p->rate_source);
    pz->target_seconds = p->target_seconds;
    pz->test_only = tl_test_mode();
    pz->created = pz->test_only ? 0 : (int64_t)time(NULL);
    pz->pq_epoch = p->pq ? 1 : 0;       /* issue 21 */
#ifdef RXLOCK_TESTING
    /* Test build, with the insecure test mode: RXLOCK_TEST_PUZZLE_VERSION=1
     * writes a version-1 puzzle, as rxlock wrote before issue 21 (tests that
     * old puzzles still solve). */
    const char *ver = getenv("RXLOCK_TEST_PUZZLE_VERSION");
    if (ver && strcmp(ver, "1") == 0 && pz->test_only) pz->version = 1;
#endif
}

int tl_generate(const tl_params *p, const tl_gen_opts *o,
                char **json, size_t *json_len, uint8_t pk[32], uint8_t *keep_sk) {
    if (!p || !json || !pk) return TL_EINVAL;
    *json = NULL;
    if (!tl_work_name(p->work) || p->groups < 1 || p->groups > TL_MAX_GROUPS || p->steps < 1 ||
        p->steps > TL_MAX_STEPS || p->steps > TL_MAX_TOTAL / p->groups || !rate_source_valid(p->rate_source) ||
        p->rate_mhps > (1ull << 62) || p->target_seconds > (1ull << 62))
        return TL_EINVAL;
    if (sodium_init() < 0) return TL_ERANDOM;
    const uint32_t G = p->groups;
    tl_mode mode = o ? o->mode : TL_MODE_LIGHT;
    /* Secrets in one guarded, locked allocation: x, s_1..s_G, e_1..e_G. */
    size_t slen = 32 + (size_t)G * 64;
    uint8_t *sec = sodium_malloc(slen);
    tl_puzzle *pz = calloc(1, sizeof *pz);
    tl_wrap *wraps = calloc(G, sizeof *wraps);
    tl_work *w = NULL;
    int rc = TL_OK;
    if (!sec || !pz || !wraps) { rc = TL_ENOMEM; goto out; }
    memset(sec, 0, slen);
    uint8_t *x = sec;
    uint8_t (*seeds)[32] = (uint8_t (*)[32])(sec + 32);
    uint8_t (*e)[32] = (uint8_t (*)[32])(sec + 32 + (size_t)G * 32);

    tl_puzzle_from_params(pz, p);
#ifdef RXLOCK_TESTING   /* the test mode exists only in the test build */
    if (pz->test_only)
        tl_event_emit(o, TL_EVENT_TEST_MODE, 0, 0, "WARNING: RXLOCK_TEST_SEED deterministic test mode: "
                      "secrets are NOT random; never publish this puzzle");
#endif
    pz->wraps = wraps;
    if ((rc = tl_random(pz->id, 16, "puzzle-id", 0)) || (rc = tl_random(pz->key, 32, "key", 0)) ||
        (rc = tl_random(x, 32, "epoch-secret", 0)))
        goto out;
    for (uint32_t g = 0; g < G; g++)
        if ((rc = tl_random(seeds[g], 32, "seed", g + 1)) ||
            (rc = tl_random(wraps[g].nonce, 24, "nonce", g + 1)))
            goto out;
    if ((rc = tl_epoch_public(pz, x))) goto out;
    memcpy(pz->seed, seeds[0], 32);
    if (p->sign_sk) {
        pz->has_signer = 1;
        memcpy(pz->signer, p->sign_sk + 32, 32);
    }
    if ((rc = tl_header_digest(pz, pz->header_digest))) goto out;

    if ((rc = tl_work_new(&w, p->work, pz->key, mode))) goto out;
    if (o && o->progress) {   /* once before any work: the engine */
        tl_engine_info info;
        (void)tl_work_engine(w, &info);
        tl_progress pr = { .hashes_total = (uint64_t)G * p->steps, .eta_seconds = -1,
                           .groups_total = G, .engine = &info };
        if (o->progress(&pr, o->progress_ctx)) { rc = TL_EINTR; goto out; }
    }
    if ((rc = tl_run_workers(w, G, p->steps, seeds, e, sec, slen, o))) goto out;

    for (uint32_t g = 0; g < G; g++) {
        const uint8_t *pt = g + 1 < G ? seeds[g + 1] : x;
        if ((rc = tl_wrap_seal(wraps[g].ct, pt, e[g], pz->id, pz->header_digest, g + 1, wraps[g].nonce))) goto out;
    }
    if (p->sign_sk && (rc = tl_puzzle_sign(pz, p->sign_sk))) goto out;
    /* Self-check: every wrap opens to the value it must hold. */
    for (uint32_t g = 0; g < G; g++) {
        uint8_t pt[32];
        const uint8_t *want = g + 1 < G ? seeds[g + 1] : x;
        rc = tl_wrap_open(pt, wraps[g].ct, e[g], pz->id, pz->header_digest, g + 1, wraps[g].nonce);
        if (rc == TL_OK && sodium_memcmp(pt, want, 32) != 0) rc = TL_EAUTH;
        sodium_memzero(pt, sizeof pt);
        if (rc) goto out;
    }
    if ((rc = tl_puzzle_emit(pz, json, json_len))) goto out;
    memcpy(pk, pz->epoch_pk, 32);
    if (keep_sk) memcpy(keep_sk, x, 32);
out:
    if (w) tl_work_free(w);
    if (sec) sodium_free(sec);   /* wipes */
    if (wraps) { sodium_memzero(wraps, (size_t)G * sizeof *wraps); free(wraps); }
    if (pz) { sodium_memzero(pz, sizeof *pz); free(pz); }
    return rc;
}
