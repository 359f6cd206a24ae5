/* SPDX-License-Identifier: ISC */
/* src/lock/gen/generate.c — tl_generate: draw the secrets (or resume them from
 * a generation state directory), build the work function once, run and
 * verify every group's chain (gen_sched.c), finish the puzzle through the
 * one path assemble takes too (finish.c), and wipe every secret on every
 * path (docs/DESIGN.md §1, §3).  The caller removes the state after it has
 * committed the puzzle (tl_generate_state_remove). */
#include "gen_internal.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


int tl_generate(const tl_params *p, const tl_gen_opts *o_in,
                char **json, size_t *json_len, tl_puzzle **puzzle, uint8_t pk[32], uint8_t *keep_sk) {
    if (puzzle) *puzzle = NULL;
    if (!p || !json || !pk) return TL_EINVAL;
    *json = NULL;
    tl_gen_opts o0 = {0};
    if (o_in) o0 = *o_in;
    o0.mode = tl_mode_effective(p->work, o0.mode);   /* zero: the mode policy */
    const tl_gen_opts *o = &o0;
    if (!tl_params_valid(p) || o->verify > TL_VERIFY_FULL || o->verify_fraction < 0 || o->verify_fraction > 1 ||
        o->checkpoint_steps > p->steps)
        return TL_EINVAL;
    const uint32_t G = p->groups;
    uint64_t C = o->checkpoint_steps ? o->checkpoint_steps : tl_sched_default_c(p->work, G, p->steps);
    if ((p->steps + C - 1) / C * G > TL_MAX_SEGMENTS) return TL_EINVAL;
    if (sodium_init() < 0) return TL_ERANDOM;
    tl_gen_stats stats = {0};
    tl_plan_info *pi = calloc(1, sizeof *pi);
    uint8_t *sec = sodium_malloc(tl_draw_size(G));
    uint8_t *e = sodium_malloc((size_t)G * 32);
    tl_state *st = NULL;
    tl_work *w = NULL;
    int rc = TL_OK;
    if (!pi || !sec || !e) { rc = TL_ENOMEM; goto out; }
    memset(sec, 0, tl_draw_size(G));
    if (o->state_dir) {
        char err[400];
        rc = tl_state_open(&st, o->state_dir, o->state_files, p, C, pi, sec, &C, &stats.resumed, err, sizeof err);
        if (rc) { tl_event_emit(o, TL_EVENT_STATE, 0, 0, "%s", err); goto out; }
    } else if ((rc = tl_draw(pi, sec, p))) {
        goto out;
    }
#ifdef RXLOCK_TESTING   /* the test mode exists only in the test build */
    if (pi->pub.test_only)
        tl_event_emit(o, TL_EVENT_TEST_MODE, 0, 0, "WARNING: RXLOCK_TEST_SEED deterministic test mode: "
                      "secrets are NOT random; never publish this puzzle");
#endif
    if (o->progress && o->mode == TL_MODE_FULL && p->work != TL_WORK_SHA3_256) {   /* show the build */
        tl_progress sp = { .hashes_total = (uint64_t)G * p->steps, .groups_total = G, .eta_seconds = -1 };
        rc = tl_work_new_progress(&w, p->work, pi->pub.key, o->mode, o->progress, o->progress_ctx, &sp, -1);
    } else {
        rc = tl_work_new(&w, p->work, pi->pub.key, o->mode);
    }
    if (rc) goto out;
    if (o->progress) {   /* once before any work: the engine */
        tl_engine_info info;
        (void)tl_work_engine(w, &info);
        tl_progress pr = { .hashes_total = (uint64_t)G * p->steps, .eta_seconds = -1,
                           .groups_total = G, .engine = &info };
        if (o->progress(&pr, o->progress_ctx)) { rc = TL_EINTR; goto out; }
    }
    if ((rc = tl_sched_run(w, st, pi, sec, C, e, &pi->pub, o, &stats))) goto out;
    rc = tl_finish(&pi->pub, sec, e, p->sign_sk, json, json_len, puzzle, pk, keep_sk);
out:
    if (o->stats) *o->stats = stats;
    if (st) tl_state_close(st);
    if (w) tl_work_free(w);
    if (sec) sodium_free(sec);   /* wipes */
    if (e) sodium_free(e);
    if (pi) { sodium_memzero(pi, sizeof *pi); free(pi); }
    return rc;
}
