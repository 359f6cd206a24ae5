/* SPDX-License-Identifier: ISC */
/* bench/bench_gen.c — beacon generation throughput on all cores against one
 * chain: tl_measure_gen_rate (the workers a generation runs, chains in SIMD
 * lanes as the pool hands them out, the median of windows) for one chain
 * (1 worker, 1 group), every worker on one chain each (groups = workers),
 * and every worker with its lanes full (groups = workers x lanes).  The
 * settings alternate A B C C B A over the rounds; one machine-readable line
 * per setting and round, then one summary line per setting (median over the
 * rounds) with its ratio to one chain:
 *   gen work=sha3-256 mode=light setting=all-lanes workers=2 lanes=4
 *       groups=8 rate=... min=... max=... round=1 load=...
 *   gen_summary work=... setting=... rate=... ratio_to_one_chain=...
 * With --ref-lib / --peer it pairs instead: W of our workers against a peer
 * RandomX engine's chains on W threads, windows A B B A per round
 * (bench_gen_pair.c: gen_pair ... ours= peer= ratio= lines, a summary).
 * usage: bench_gen [--work sha3-256|randomx-v2|randomx-v1] [--mode light|full]
 *                  [--workers W] [--seconds S (3)] [--rounds R (1)]
 *                  [--ref-lib LIB [--ref-prefix P]] [--peer VARIANT] [--no-thp]
 * --no-thp: no transparent huge pages in this process (PR_SET_THP_DISABLE),
 * so every dataset is on 4 KiB pages whatever it asks for. */
#include "bench_gen_pair.h"
#include "bench_host.h"
#include "bench_variant.h"
#include "rxlock/calibrate.h"
#include "rxlock/rxlock.h"
#include "util/util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#define MAXR BENCH_GEN_MAX_ROUNDS

int main(int argc, char **argv) {
    tl_work_type work = TL_WORK_SHA3_256;
    tl_mode mode = TL_MODE_LIGHT;
    unsigned W = util_cpus_usable(), rounds = 1;
    double seconds = 3;
    const char *peer = NULL;
    int paired = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--work") && v) { if (tl_work_parse(v, &work)) goto usage; i++; }
        else if (!strcmp(argv[i], "--mode") && v) { mode = !strcmp(v, "full") ? TL_MODE_FULL : TL_MODE_LIGHT; i++; }
        else if (!strcmp(argv[i], "--workers") && v) { W = (unsigned)atoi(v); i++; }
        else if (!strcmp(argv[i], "--seconds") && v) { seconds = atof(v); i++; }
        else if (!strcmp(argv[i], "--rounds") && v) { rounds = (unsigned)atoi(v); i++; }
        else if (!strcmp(argv[i], "--ref-lib") && v) { bench_ref_path = v; paired = 1; i++; }
        else if (!strcmp(argv[i], "--ref-prefix") && v) { bench_ref_prefix = v; i++; }
        else if (!strcmp(argv[i], "--peer") && v) { peer = v; paired = 1; i++; }
        else if (!strcmp(argv[i], "--no-thp")) {      /* 4 KiB pages for every mapping, ours and a peer's */
            if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) { perror("bench_gen: prctl(PR_SET_THP_DISABLE)"); return 1; }
        }
        else goto usage;
    }
    if (W < 1 || W > 1024 || rounds < 1 || rounds > MAXR || !(seconds > 0) || seconds > 600) goto usage;
    if (paired) {
        if (work == TL_WORK_SHA3_256) {
            fprintf(stderr, "bench_gen: --ref-lib / --peer pair RandomX only: add --work randomx-v2 (or randomx-v1)\n");
            return 2;
        }
        struct bench_gen_pair_opts po = { work, mode, W, rounds, seconds, peer };
        if (!po.peer) po.peer = work == TL_WORK_RANDOMX_V2 ? "ref-v2-jit" : "ref-v1-jit";
        return bench_gen_pair(&po);
    }
    if (work == TL_WORK_SHA3_256) mode = TL_MODE_LIGHT;
    unsigned L = tl_work_lanes(work);
    struct { const char *name; unsigned workers; uint32_t groups; } set[3] = {
        { "one-chain", 1, 1 }, { "one-lane-per-worker", W, W }, { "all-lanes", W, W * L }
    };
    unsigned ns = L > 1 ? 3 : 2;
    double rates[3][MAXR];
    char cpu[128];
    tl_cpu_model(cpu, sizeof cpu);
    printf("# bench_gen: %s, %s mode, %u workers, %u lanes per worker available, %.1f s per setting, cpu %s\n",
           tl_work_name(work), mode == TL_MODE_FULL ? "full" : "light", W, L, seconds, cpu);
    for (unsigned r = 0; r < rounds; r++) {
        for (unsigned k = 0; k < 2 * ns; k++) {
            unsigned s = k < ns ? k : 2 * ns - 1 - k;     /* A B C C B A */
            tl_gen_rate g;
            int rc = tl_measure_gen_rate(work, mode, set[s].workers, set[s].groups, seconds, NULL, &g);
            if (rc) { fprintf(stderr, "bench_gen: %s: %s\n", set[s].name, rxlock_strerror(rc)); return 1; }
            printf("gen work=%s mode=%s setting=%s workers=%u lanes=%u groups=%u rate=%.0f min=%.0f max=%.0f "
                   "windows=%u round=%u load=%.2f\n", tl_work_name(work), mode == TL_MODE_FULL ? "full" : "light",
                   set[s].name, g.workers, g.lanes, g.groups, g.rate, g.rate_min, g.rate_max, g.windows, r + 1, bench_loadavg());
            fflush(stdout);
            if (k < ns) rates[s][r] = g.rate;
            else rates[s][r] = (rates[s][r] + g.rate) / 2;   /* the round's pair, averaged */
        }
    }
    double med[3];
    for (unsigned s = 0; s < ns; s++) med[s] = bench_median(rates[s], rounds);
    for (unsigned s = 0; s < ns; s++)
        printf("gen_summary work=%s setting=%s workers=%u groups=%u rate=%.0f ratio_to_one_chain=%.2f\n",
               tl_work_name(work), set[s].name, set[s].workers, set[s].groups, med[s], med[s] / med[0]);
    return 0;
usage:
    fprintf(stderr, "usage: bench_gen [--work sha3-256|randomx-v2|randomx-v1] [--mode light|full] [--workers W] "
                    "[--seconds S] [--rounds R] [--ref-lib LIB [--ref-prefix P]] [--peer VARIANT] [--no-thp]\n"
                    "  --ref-lib / --peer: pair W of our workers (RandomX) against a peer engine's serial chains on W\n"
                    "  threads, windows A B B A per round (peer default ref-v2-jit / ref-v1-jit; see bench/README.md)\n");
    return 2;
}
