/* SPDX-License-Identifier: ISC */
/* src/lock/gen/draw.c — tl_draw: every secret of a new puzzle, drawn once for
 * all three ways to make one (lock in memory, lock with a state directory,
 * plan): P, K, x, and per group nonce_g, s_g and the result key r_g, then
 * the planner and worker keys; the public header (unsigned, unverified) and
 * the plan digest D.  The same labels in the test-only mode, so `lock` and
 * plan + assemble give the same bytes by construction. */
#include "gen_internal.h"
#include <sodium.h>
#include <string.h>

size_t tl_draw_size(uint32_t G) { return 32 + (size_t)G * TL_SECRETS_ENTRY + 64; }

int tl_draw(tl_plan_info *pi, uint8_t *sec, const tl_params *p) {
    if (!tl_params_valid(p)) return TL_EINVAL;
    const uint32_t G = p->groups;
    uint8_t *x = sec, *planner_sk = sec + 32 + (size_t)G * TL_SECRETS_ENTRY, *worker_sk = planner_sk + 32;
    tl_puzzle *pz = &pi->pub;
    int rc;
    memset(pi, 0, sizeof *pi);
    tl_puzzle_from_params(pz, p);
    if ((rc = tl_random(pz->id, 16, "puzzle-id", 0)) || (rc = tl_random(pz->key, 32, "key", 0)) ||
        (rc = tl_random(x, 32, "epoch-secret", 0)))
        return rc;
    for (uint32_t g = 1; g <= G; g++) {
        uint8_t *e = sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY;
        if ((rc = tl_random(e + 24, 32, "seed", g)) || (rc = tl_random(e, 24, "nonce", g)) ||
            (rc = tl_random(e + 56, 32, "plan-result-key", g)))
            return rc;
    }
    if ((rc = tl_random(planner_sk, 32, "plan-planner-key", 0)) || (rc = tl_random(worker_sk, 32, "plan-worker-key", 0)))
        return rc;
    if (tl_epoch_public(pz, x) != 0 || crypto_scalarmult_base(pi->planner_pk, planner_sk) != 0 ||
        crypto_scalarmult_base(pi->worker_pk, worker_sk) != 0)
        return TL_ERANDOM;
    memcpy(pz->seed, sec + 32 + 24, 32);
    if ((rc = tl_header_digest(pz, pi->D))) return rc;
    memcpy(pz->header_digest, pi->D, 32);
    return TL_OK;
}
