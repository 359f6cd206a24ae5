/* SPDX-License-Identifier: ISC */
/* bench/bench_gen_pair.c — bench_gen's paired mode (see bench_gen_pair.h):
 * our generation throughput against a peer RandomX engine's, interleaved.
 *
 * Ours: the work function built once (tl_work_new: cache, and in full mode
 * the dataset, outside every window), then tl_measure_gen_rate_work per
 * window: W forked workers advancing chains as a beacon generation does,
 * the median of its windows.  The peer: a bench variant (bench_variant.h:
 * ref-* through --ref-lib/--ref-prefix, or Debian's librandomx), its cache
 * and dataset built once by bench_setup, one VM per thread made once; per
 * window W threads each hash a serial chain (every hash's output is the
 * next step's input, as a generation chain), counted in the same windows
 * (tl_rate_windows).  Windows run A B B A (A = ours) within each round; a
 * round's ratio is ours / peer over its own two windows each, so what the
 * machine does meanwhile falls on both sides alike.  Before timing, a few
 * chain steps are computed by both sides and must be equal.
 *
 *   gen_pair_check work=randomx-v2 mode=full steps=3 agree=yes digest=...
 *   gen_pair_window work=... side=ours|peer workers=2 rate=... min=... max=...
 *       mean=... windows=... round=1 order=1 load=...
 *   gen_pair work=... workers=2 ours=... peer=... ratio=... round=1 load=...
 *   gen_pair_summary work=... workers=2 rounds=R peer_variant=... ours=...
 *       peer=... ratio=... min=... max=... ratio_mean=...
 */
#include "bench_gen_pair.h"
#include "bench_host.h"
#include "bench_variant.h"
#include "lock/gen/gen_rate.h"
#include "rxlock/calibrate.h"
#include "util/util.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GP_MAX_WORKERS 256
#define GP_MAX_ROUNDS  BENCH_GEN_MAX_ROUNDS
#define GP_CHECK_STEPS 3

struct gp_thread {                 /* one peer thread: its VM and its chain */
    struct bench_worker bw;
    const uint8_t *key;
    uint32_t g;
    uint64_t i;
    uint8_t d[32];
    tl_rate_slot *slot;
    int *quit;
    int rc;
    char err[200];
    pthread_t th;
};

static void *gp_peer_main(void *arg) {
    struct gp_thread *t = arg;
    while (!__atomic_load_n(t->quit, __ATOMIC_ACQUIRE)) {
        if (bench_step(&t->bw, t->key, t->g, t->i, t->d, t->d, t->err, sizeof t->err)) { t->rc = -1; break; }
        t->i++;
        __atomic_store_n(&t->slot->steps, t->slot->steps + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* One peer window: W threads hashing their chains, counted in windows. */
static int gp_peer_window(struct gp_thread *t, unsigned W, tl_rate_slot *slots, double seconds, tl_gen_rate *out) {
    int quit = 0, rc = 0;
    unsigned started = 0;
    memset(out, 0, sizeof *out);
    memset(slots, 0, W * sizeof *slots);
    for (; started < W; started++) {
        t[started].slot = &slots[started];
        t[started].quit = &quit;
        if (pthread_create(&t[started].th, NULL, gp_peer_main, &t[started]) != 0) break;
    }
    if (started != W) { fprintf(stderr, "bench_gen: pthread_create failed\n"); rc = -1; }
    else if (tl_rate_windows(slots, W, seconds, NULL, out) != TL_OK) rc = -1;
    __atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
    for (unsigned k = 0; k < started; k++) {
        pthread_join(t[k].th, NULL);
        if (t[k].rc) { fprintf(stderr, "bench_gen: peer: %s\n", t[k].err); rc = -1; }
    }
    out->workers = W;
    out->lanes = 1;
    out->groups = W;
    return rc;
}

/* Both sides compute the first steps of one chain; they must agree. */
static int gp_check(tl_work *w, struct bench_worker *bw, const uint8_t key[32], const char *work, const char *mode) {
    uint8_t d[32], ours[32], peer[32];
    char err[200], hex[17];
    memset(d, 0x42, sizeof d);
    for (uint64_t i = 0; i < GP_CHECK_STEPS; i++) {
        int rc = tl_work_step(w, 1, i, d, ours);
        if (rc) { fprintf(stderr, "bench_gen: ours: %s\n", rxlock_strerror(rc)); return 1; }
        if (bench_step(bw, key, 1, i, d, peer, err, sizeof err)) { fprintf(stderr, "bench_gen: peer: %s\n", err); return 1; }
        if (memcmp(ours, peer, 32)) {
            printf("gen_pair_check work=%s mode=%s steps=%llu agree=no\n", work, mode, (unsigned long long)i + 1);
            fprintf(stderr, "bench_gen: ours and the peer disagree at chain step %llu: not the same work function "
                            "(check the peer's version and mode)\n", (unsigned long long)i);
            return 1;
        }
        memcpy(d, ours, 32);
    }
    for (int k = 0; k < 8; k++) snprintf(hex + 2 * k, 3, "%02x", d[k]);
    printf("gen_pair_check work=%s mode=%s steps=%d agree=yes digest=%s...\n", work, mode, GP_CHECK_STEPS, hex);
    return 0;
}

static void gp_print_window(const char *work, const char *mode, const char *side, const tl_gen_rate *g,
                            unsigned round, unsigned order) {
    printf("gen_pair_window work=%s mode=%s side=%s workers=%u rate=%.1f min=%.1f max=%.1f mean=%.1f windows=%u "
           "round=%u order=%u load=%.2f\n", work, mode, side, g->workers, g->rate, g->rate_min, g->rate_max,
           g->mean, g->windows, round, order, bench_loadavg());
    fflush(stdout);
}

int bench_gen_pair(const struct bench_gen_pair_opts *o) {
    const char *work = tl_work_name(o->work), *mode = o->mode == TL_MODE_FULL ? "full" : "light";
    unsigned W = o->workers;
    char err[256];
    if (o->work == TL_WORK_SHA3_256 || W < 1 || W > GP_MAX_WORKERS || o->rounds < 1 || o->rounds > GP_MAX_ROUNDS) {
        fprintf(stderr, "bench_gen: pairing needs --work randomx-v2 or randomx-v1, 1-%d workers, 1-%d rounds\n",
                GP_MAX_WORKERS, GP_MAX_ROUNDS);
        return 2;
    }
    struct bench_variant pv;
    if (bench_parse_variant(o->peer, o->mode == TL_MODE_FULL, 0, &pv, err, sizeof err)) {
        fprintf(stderr, "bench_gen: --peer: %s\n", err);
        return 2;
    }
    if (!bench_is_peer(pv.impl) || pv.work != (o->work == TL_WORK_RANDOMX_V2 ? WORK_V2 : WORK_V1) ||
        pv.full != (o->mode == TL_MODE_FULL)) {
        fprintf(stderr, "bench_gen: --peer %s is not a peer RandomX engine of %s in %s mode (want ref-%s-jit or "
                        "librandomx-v1-jit; the mode comes from --mode)\n", o->peer, work, mode,
                o->work == TL_WORK_RANDOMX_V2 ? "v2" : "v1");
        return 2;
    }
    char cpu[128];
    tl_cpu_model(cpu, sizeof cpu);
    printf("# bench_gen paired: %s, %s mode, %u workers (ours, forked as a generation forks them) against %s on %u "
           "threads, windows A B B A of %.1f s, %u rounds, cpu %s\n", work, mode, W, pv.name, W, o->seconds, o->rounds, cpu);
    fflush(stdout);
    uint8_t key[32];
    memset(key, 0x5a, sizeof key);           /* tl_measure_gen_rate's public key */
    int ret = 1;
    tl_work *w = NULL;
    struct gp_thread *t = calloc(W, sizeof *t);
    tl_rate_slot *slots = aligned_alloc(64, W * sizeof *slots);
    unsigned made = 0;
    if (!t || !slots) { fprintf(stderr, "bench_gen: out of memory\n"); goto out; }
    double t0 = util_now();
    int rc = tl_work_new(&w, o->work, key, o->mode);
    if (rc) { fprintf(stderr, "bench_gen: ours: %s\n", rxlock_strerror(rc)); goto out; }
    double ours_setup = util_now() - t0;
    tl_engine_info info;
    tl_work_engine(w, &info);
    printf("gen_pair_setup side=ours work=%s mode=%s engine=%s install=%s seconds=%.1f huge_share=%.3f\n", work, mode,
           info.engine ? info.engine : "-", info.install ? info.install : "-", ours_setup, tl_work_huge_share(w));
    fflush(stdout);
    if (bench_setup(&pv, key, 0, err, sizeof err)) { fprintf(stderr, "bench_gen: peer: %s\n", err); goto out; }
    long huge_kb = 0, size_kb = 0;
    if (pv.full) bench_thp_of(bench_api(pv.impl)->get_dataset_memory(pv.sh->lds), &huge_kb, &size_kb);
    printf("gen_pair_setup side=peer variant=%s seconds=%.1f dataset_kb=%ld anon_huge_kb=%ld huge_share=%.3f\n",
           pv.name, pv.cache_seconds + pv.dataset_seconds, size_kb, huge_kb,
           size_kb > 0 ? (double)huge_kb / (double)size_kb : -1.0);
    for (; made < W; made++) {
        if (bench_worker_new(&t[made].bw, &pv, err, sizeof err)) { fprintf(stderr, "bench_gen: peer: %s\n", err); goto out; }
        t[made].key = key;
        t[made].g = made + 1;
        memset(t[made].d, (int)made, 32);
    }
    if (gp_check(w, &t[0].bw, key, work, mode)) goto out;
    double ratio[GP_MAX_ROUNDS], rmean[GP_MAX_ROUNDS], ours_r[GP_MAX_ROUNDS], peer_r[GP_MAX_ROUNDS];
    for (unsigned r = 0; r < o->rounds; r++) {
        double sum[2] = { 0, 0 }, sum_mean[2] = { 0, 0 };
        for (unsigned k = 0; k < 4; k++) {
            int peer = k == 1 || k == 2;                 /* A B B A, A = ours */
            tl_gen_rate g;
            if (peer) {
                if (gp_peer_window(t, W, slots, o->seconds, &g)) goto out;
            } else if ((rc = tl_measure_gen_rate_work(w, W, W, o->seconds, NULL, &g)) != TL_OK) {
                fprintf(stderr, "bench_gen: ours: %s\n", rxlock_strerror(rc));
                goto out;
            }
            gp_print_window(work, mode, peer ? "peer" : "ours", &g, r + 1, k + 1);
            sum[peer] += g.rate;
            sum_mean[peer] += g.mean;
        }
        ours_r[r] = sum[0] / 2;
        peer_r[r] = sum[1] / 2;
        ratio[r] = sum[1] > 0 ? sum[0] / sum[1] : 0;
        rmean[r] = sum_mean[1] > 0 ? sum_mean[0] / sum_mean[1] : 0;
        printf("gen_pair work=%s mode=%s workers=%u ours=%.1f peer=%.1f ratio=%.4f ratio_mean=%.4f round=%u load=%.2f\n",
               work, mode, W, ours_r[r], peer_r[r], ratio[r], rmean[r], r + 1, bench_loadavg());
        fflush(stdout);
    }
    double rmin = ratio[0], rmax = ratio[0];
    for (unsigned r = 1; r < o->rounds; r++) {
        if (ratio[r] < rmin) rmin = ratio[r];
        if (ratio[r] > rmax) rmax = ratio[r];
    }
    double rmed = bench_median(ratio, o->rounds);
    printf("gen_pair_summary work=%s mode=%s workers=%u rounds=%u peer_variant=%s ours=%.1f peer=%.1f ratio=%.4f "
           "min=%.4f max=%.4f ratio_mean=%.4f\n", work, mode, W, o->rounds, pv.name, bench_median(ours_r, o->rounds),
           bench_median(peer_r, o->rounds), rmed, rmin, rmax, bench_median(rmean, o->rounds));
    ret = 0;
out:
    for (unsigned k = 0; k < made; k++) bench_worker_free(&t[k].bw);
    free(t);
    free(slots);
    bench_pool_free();
    tl_work_free(w);
    return ret;
}
