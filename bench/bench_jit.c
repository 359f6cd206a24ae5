/* SPDX-License-Identifier: ISC */
/* bench/bench_jit.c — RandomX JIT benchmark: dependent hash chains of the
 * docs/DESIGN.md §1 68-byte message in full mode, ours vs the reference library
 * (Debian librandomx 1.1.10 for v1; with -DBENCH_REF_V2, linked against a
 * tevador/RandomX v2.0 build outside the repository, also v2), variants run
 * A B B A with repetitions; final digests must agree across variants of a
 * version.  Also: dataset build time with T threads (ours with the
 * shipped C path, rx_dataset_init_parallel; ours with the superscalar JIT
 * on a partial range of -c items, scaled up; the reference), and with -DRX_JIT_PROFILE (EXTRA_CFLAGS, library and
 * bench) the phase profile of our hashing time.  JSON lines on stdout.
 *
 * usage: bench_jit [-n STEPS] [-r REPS] [-t THREADS] [-c SSJIT_BUILD_ITEMS] [--light]
 */
#include "rxlock/rx.h"
#include "rx/internal.h"
#include "rx/jit.h"
#include "rx/aes.h"
#include "rx/cache_internal.h"
#include "rx/program.h"
#include "rx/vm_state.h"
#include <getopt.h>
#include <pthread.h>
#include <randomx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rxlock/rxlock.h"
#include "util/util.h"

enum kind { OURS, REF };
struct variant {
    const char *name;
    int version;
    enum kind kind;
    rx_vm *vm;
    randomx_vm *rvm;
    double secs;            /* total over runs */
    long hashes;
    int runs;
    double best_hps;
    uint8_t digest[32];
    int have_digest, digest_mismatch;
    struct rx_jit_profile prof;
};

static int run_chain(struct variant *v, long steps, uint8_t out[32]) {
    uint8_t d[32], m[68];
    for (int k = 0; k < 32; k++) d[k] = (uint8_t)k;
    for (long i = 0; i < steps; i++) {
        tl_chain_message(m, 1, (uint64_t)i, d);
        if (v->kind == OURS) {
            if (rx_vm_hash(v->vm, m, sizeof m, d) != 0) return -1;
        } else {
            randomx_calculate_hash(v->rvm, m, sizeof m, d);
        }
    }
    memcpy(out, d, 32);
    return 0;
}

/* ---- dataset builds ---- */
struct build_job {
    const rx_jit_ss *code; const rx_cache *cache; rx_dataset *ds; uint8_t *mem;
    randomx_dataset *rds; randomx_cache *rcache;
    uint64_t first, count; int kind; int rc;
};
static void *build_thread(void *arg) {
    struct build_job *j = arg;
    if (j->kind == 0) j->rc = rx_jit_dataset_items(j->code, j->cache->memory, j->first, j->count, j->mem + j->first * 64);
    else if (j->kind == 1) j->rc = rx_dataset_init(j->ds, j->cache, j->first, j->count);
    else { randomx_init_dataset(j->rds, j->rcache, (unsigned long)j->first, (unsigned long)j->count); j->rc = 0; }
    return NULL;
}
static double build(int kind, unsigned threads, uint64_t first, uint64_t count, struct build_job proto) {
    pthread_t tid[64];
    struct build_job jobs[64];
    if (threads > 64) threads = 64;
    double t0 = util_now();
    for (unsigned t = 0; t < threads; t++) {
        jobs[t] = proto;
        jobs[t].kind = kind;
        jobs[t].first = first + count * t / threads;
        jobs[t].count = first + count * (t + 1) / threads - jobs[t].first;
        if (pthread_create(&tid[t], NULL, build_thread, &jobs[t]) != 0) { build_thread(&jobs[t]); tid[t] = 0; }
    }
    int rc = 0;
    for (unsigned t = 0; t < threads; t++) { if (tid[t]) pthread_join(tid[t], NULL); rc |= jobs[t].rc; }
    double dt = util_now() - t0;
    return rc ? -1.0 : dt;
}

#ifdef RX_JIT_PROFILE
/* program generation cost per program (AesGenerator4R + parse + configure) */
static double program_gen_ns(unsigned version) {
    const struct rx_aes_ops *aes = rx_aes_select(RX_FLAG_HARD_AES);
    if (!aes) aes = rx_aes_soft_ops();
    static struct rx_program prog;
    static struct rx_vm_state st;
    static uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_MAX_SIZE)];
    uint8_t seed[64] = { 1 };
    uint32_t count = version == 2 ? RX_PROGRAM_SIZE_V2 : RX_PROGRAM_SIZE_V1;
    int n = 20000;
    double t0 = util_now();
    for (int i = 0; i < n; i++) {
        aes->fill4r(seed, bytes, RX_PROGRAM_BYTES(count));
        rx_program_parse(&prog, bytes, count);
        rx_vm_state_configure(&st, &prog);
        seed[i & 63] ^= bytes[i & 127];
    }
    return (util_now() - t0) * 1e9 / n;
}
#endif

int main(int argc, char **argv) {
    long steps = 1000; int reps = 2; unsigned threads = 2; uint64_t c_items = 1u << 21; int light = 0;
    static const struct option lo[] = { { "light", no_argument, 0, 'l' }, { 0, 0, 0, 0 } };
    int o;
    while ((o = getopt_long(argc, argv, "n:r:t:c:", lo, NULL)) != -1) {
        switch (o) {
        case 'n': steps = atol(optarg); break;
        case 'r': reps = atoi(optarg); break;
        case 't': threads = (unsigned)atoi(optarg); break;
        case 'c': c_items = strtoull(optarg, NULL, 0); break;
        case 'l': light = 1; break;
        default: fprintf(stderr, "usage: bench_jit [-n STEPS] [-r REPS] [-t THREADS] [-c SSJIT_BUILD_ITEMS] [--light]\n"); return 2;
        }
    }
    if (steps < 1 || reps < 1 || threads < 1 || c_items > RX_DATASET_ITEMS) return 2;
    static const uint8_t key[32] = "rxlock bench_jit dataset key 01";
#ifdef BENCH_REF_V2
    const char *ref_name = "tevador-RandomX-v2.0";
#else
    const char *ref_name = "librandomx-1.1.10";
#endif
    printf("{\"type\":\"config\",\"steps\":%ld,\"reps\":%d,\"threads\":%u,\"mode\":\"%s\",\"reference\":\"%s\",\"profile\":%d}\n",
           steps, reps, threads, light ? "light" : "full", ref_name,
#ifdef RX_JIT_PROFILE
           1
#else
           0
#endif
    );
    fflush(stdout);

    /* caches */
    rx_cache *cache = NULL;
    double t0 = util_now();
    if (rx_cache_new(&cache, 0) || rx_cache_init(cache, key, sizeof key)) { fprintf(stderr, "rx cache failed\n"); return 1; }
    double t_cache = util_now() - t0;
    randomx_flags rf = randomx_get_flags();
    randomx_cache *rcache = randomx_alloc_cache((randomx_flags)((rf & RANDOMX_FLAG_ARGON2) | RANDOMX_FLAG_JIT));
    if (!rcache) { fprintf(stderr, "randomx_alloc_cache failed\n"); return 1; }
    t0 = util_now();
    randomx_init_cache(rcache, key, sizeof key);
    double t_rcache = util_now() - t0;
    printf("{\"type\":\"cache\",\"ours_s\":%.3f,\"ref_s\":%.3f}\n", t_cache, t_rcache);
    fflush(stdout);

    /* datasets */
    rx_dataset *ds = NULL;
    randomx_dataset *rds = NULL;
    if (!light) {
        if (rx_dataset_new(&ds, 0)) { fprintf(stderr, "rx_dataset_new failed\n"); return 1; }
        rx_jit_ss *code = NULL;
        if (rx_jit_ss_new(&code, cache->prog)) { fprintf(stderr, "superscalar JIT failed\n"); return 1; }
        struct build_job proto = { 0 };
        proto.code = code; proto.cache = cache; proto.ds = ds;
        proto.mem = (uint8_t *)(uintptr_t)rx_dataset_bytes(ds);   /* the bench fills it in place */
        /* the shipped path: rx_dataset_init_parallel (C, 16 lanes) */
        double a = util_now();
        int brc = rx_dataset_init_parallel(ds, cache, threads);
        double t_c = util_now() - a;
        rds = randomx_alloc_dataset(RANDOMX_FLAG_DEFAULT);
        if (brc || !rds) { fprintf(stderr, "dataset allocation/build failed\n"); return 1; }
        proto.rds = rds; proto.rcache = rcache;
        double t_ref = build(2, threads, 0, RX_DATASET_ITEMS, proto);
        /* the superscalar JIT on a partial range (same items rewritten), scaled */
        uint64_t jfirst = RX_DATASET_ITEMS / 3;
        uint8_t *sample = malloc(64 * 64);
        if (sample) memcpy(sample, proto.mem + jfirst * 64, 64 * 64);
        double t_jit = c_items ? build(0, threads, jfirst, c_items, proto) : 0;
        int jit_same = sample && memcmp(sample, proto.mem + jfirst * 64, 64 * 64) == 0;
        free(sample);
        /* our dataset == the reference's (spot checks across the range) */
        const uint8_t *rmem = randomx_get_dataset_memory(rds);
        int same = 1;
        for (uint64_t i = 0; i < RX_DATASET_ITEMS; i += RX_DATASET_ITEMS / 997)
            if (memcmp(proto.mem + i * 64, rmem + i * 64, 64) != 0) same = 0;
        if (memcmp(proto.mem + (RX_DATASET_ITEMS - 1) * 64, rmem + (RX_DATASET_ITEMS - 1) * 64, 64) != 0) same = 0;
        double t_jit_full = c_items ? t_jit * (double)RX_DATASET_ITEMS / (double)c_items : 0;
        printf("{\"type\":\"dataset_build\",\"threads\":%u,\"ours_c_s\":%.2f,\"ref_s\":%.2f,"
               "\"ours_ssjit_items\":%llu,\"ours_ssjit_s\":%.2f,\"ours_ssjit_full_est_s\":%.2f,"
               "\"ratio_ours_c_over_ref\":%.3f,\"ratio_ours_ssjit_over_ref\":%.3f,\"datasets_equal\":%s,\"ssjit_equals_c\":%s}\n",
               threads, t_c, t_ref, (unsigned long long)c_items, t_jit, t_jit_full,
               t_ref > 0 ? t_c / t_ref : 0, t_ref > 0 ? t_jit_full / t_ref : 0,
               same ? "true" : "false", jit_same ? "true" : "false");
        fflush(stdout);
        rx_jit_ss_free(code);
        if (t_jit < 0 || !same || !jit_same) { fprintf(stderr, "dataset build failed or differs from the reference\n"); return 1; }
    }

    /* VMs */
    unsigned full = light ? 0 : RX_FLAG_FULL;
    unsigned base = full | RX_FLAG_JIT | RX_FLAG_HARD_AES;
    randomx_flags rbase = (randomx_flags)(RANDOMX_FLAG_JIT | RANDOMX_FLAG_HARD_AES | (light ? 0 : RANDOMX_FLAG_FULL_MEM));
    struct variant vars[8];
    int nv = 0;
    memset(vars, 0, sizeof vars);
    vars[nv++] = (struct variant){ .name = "ours-v2-secure", .version = 2, .kind = OURS };
    vars[nv - 1].vm = NULL; rx_vm_new(&vars[nv - 1].vm, base | RX_FLAG_V2 | RX_FLAG_SECURE, cache, ds);
    /* the same JIT installing with page-permission flips, paired with the
     * default (the /proc/self/mem writer where the system allows it) */
    vars[nv++] = (struct variant){ .name = "ours-v2-mprotect", .version = 2, .kind = OURS };
    vars[nv - 1].vm = NULL;
    rx_vm_new(&vars[nv - 1].vm, base | RX_FLAG_V2 | RX_FLAG_SECURE | RX_FLAG_JIT_MPROTECT, cache, ds);
    /* no "ours without W^X": our JIT never has a writable code page */
#ifdef BENCH_REF_V2
    vars[nv++] = (struct variant){ .name = "ref-v2-secure", .version = 2, .kind = REF };
    vars[nv - 1].rvm = randomx_create_vm((randomx_flags)(rbase | RANDOMX_FLAG_V2 | RANDOMX_FLAG_SECURE), rcache, rds);
    vars[nv++] = (struct variant){ .name = "ref-v2", .version = 2, .kind = REF };
    vars[nv - 1].rvm = randomx_create_vm((randomx_flags)(rbase | RANDOMX_FLAG_V2), rcache, rds);
#endif
    vars[nv++] = (struct variant){ .name = "ours-v1-secure", .version = 1, .kind = OURS };
    rx_vm_new(&vars[nv - 1].vm, base | RX_FLAG_SECURE, cache, ds);
    vars[nv++] = (struct variant){ .name = "ref-v1-secure", .version = 1, .kind = REF };
    vars[nv - 1].rvm = randomx_create_vm((randomx_flags)(rbase | RANDOMX_FLAG_SECURE), rcache, rds);
    vars[nv++] = (struct variant){ .name = "ref-v1", .version = 1, .kind = REF };
    vars[nv - 1].rvm = randomx_create_vm(rbase, rcache, rds);
    for (int i = 0; i < nv; i++) {
        if ((vars[i].kind == OURS && !vars[i].vm) || (vars[i].kind == REF && !vars[i].rvm)) {
            fprintf(stderr, "cannot create VM %s\n", vars[i].name); return 1;
        }
        if (vars[i].kind == OURS && !(rx_vm_flags(vars[i].vm) & RX_FLAG_JIT)) {
            fprintf(stderr, "%s: JIT not active\n", vars[i].name); return 1;
        }
    }

    /* warm-up, then A B ... B A per repetition */
    uint8_t d[32];
    for (int i = 0; i < nv; i++) run_chain(&vars[i], 20 < steps ? 20 : steps, d);
    for (int rep = 0; rep < reps; rep++) {
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < nv; k++) {
                struct variant *v = &vars[pass ? nv - 1 - k : k];
#ifdef RX_JIT_PROFILE
                rx_jit_profile_global_reset();
#endif
                double a = util_now();
                if (run_chain(v, steps, d) != 0) { fprintf(stderr, "%s: hash failed\n", v->name); return 1; }
                double dt = util_now() - a;
#ifdef RX_JIT_PROFILE
                struct rx_jit_profile p;
                rx_jit_profile_global(&p);
                v->prof.compile_ns += p.compile_ns; v->prof.open_ns += p.open_ns;
                v->prof.seal_ns += p.seal_ns; v->prof.exec_ns += p.exec_ns; v->prof.programs += p.programs;
                v->prof.flips += p.flips; v->prof.emit_ns += p.emit_ns;
#endif
                v->secs += dt; v->hashes += steps; v->runs++;
                double hps = (double)steps / dt;
                if (hps > v->best_hps) v->best_hps = hps;
                if (!v->have_digest) { memcpy(v->digest, d, 32); v->have_digest = 1; }
                else if (memcmp(v->digest, d, 32) != 0) v->digest_mismatch = 1;
                char h[65]; util_hex_encode(h, d, 32);
                printf("{\"type\":\"run\",\"variant\":\"%s\",\"rep\":%d,\"pass\":%d,\"steps\":%ld,\"seconds\":%.4f,\"hps\":%.2f,\"digest\":\"%s\"}\n",
                       v->name, rep, pass, steps, dt, hps, h);
                fflush(stdout);
            }
        }
    }
    int ok = 1;
    for (int i = 0; i < nv; i++) {
        struct variant *v = &vars[i];
        char h[65]; util_hex_encode(h, v->digest, 32);
        printf("{\"type\":\"variant\",\"variant\":\"%s\",\"runs\":%d,\"mean_hps\":%.2f,\"best_hps\":%.2f,\"digest\":\"%s\",\"stable\":%s}\n",
               v->name, v->runs, (double)v->hashes / v->secs, v->best_hps, h, v->digest_mismatch ? "false" : "true");
        if (v->digest_mismatch) ok = 0;
        for (int k = 0; k < nv; k++)
            if (vars[k].version == v->version && memcmp(vars[k].digest, v->digest, 32) != 0) ok = 0;
    }
    printf("{\"type\":\"digests_agree\",\"value\":%s}\n", ok ? "true" : "false");
#define MEAN(i) ((double)vars[i].hashes / vars[i].secs)
    int iv2s = -1, iv1 = -1, ir1s = -1, ir1 = -1, ir2s = -1, ir2 = -1;
    for (int i = 0; i < nv; i++) {
        if (!strcmp(vars[i].name, "ours-v2-secure")) iv2s = i;
        if (!strcmp(vars[i].name, "ours-v1-secure")) iv1 = i;
        if (!strcmp(vars[i].name, "ref-v1-secure")) ir1s = i;
        if (!strcmp(vars[i].name, "ref-v1")) ir1 = i;
        if (!strcmp(vars[i].name, "ref-v2-secure")) ir2s = i;
        if (!strcmp(vars[i].name, "ref-v2")) ir2 = i;
    }
    printf("{\"type\":\"ratios\",\"ours_v1_over_ref_v1_secure\":%.3f,\"ours_v1_over_ref_v1_default\":%.3f",
           MEAN(iv1) / MEAN(ir1s), MEAN(iv1) / MEAN(ir1));
    if (ir2s >= 0 && ir2 >= 0)
        printf(",\"ours_v2_secure_over_ref_v2_secure\":%.3f,\"ours_v2_secure_over_ref_v2_default\":%.3f",
               MEAN(iv2s) / MEAN(ir2s), MEAN(iv2s) / MEAN(ir2));
    printf("}\n");
#ifdef RX_JIT_PROFILE
    for (int i = 0; i < nv; i++) {
        struct variant *v = &vars[i];
        if (v->kind != OURS) continue;
        double total = v->secs * 1e9;
        double gen_one = program_gen_ns((unsigned)v->version);
        double gen = gen_one * (double)v->hashes * RX_PROGRAM_COUNT;
        double open = (double)v->prof.open_ns, comp = (double)v->prof.compile_ns;
        double seal = (double)v->prof.seal_ns, exec = (double)v->prof.exec_ns;
        double emit = (double)v->prof.emit_ns, inst = comp - emit + open + seal, np = (double)v->prof.programs;
#define PER_PROGRAM(x) (np > 0 ? (x) / np : 0)
        double other = total - gen - open - comp - seal - exec;
        printf("{\"type\":\"profile\",\"variant\":\"%s\",\"programs\":%llu,\"program_generation_pct\":%.2f,"
               "\"make_writable_pct\":%.2f,\"compile_pct\":%.2f,\"make_executable_pct\":%.2f,\"execute_pct\":%.2f,"
               "\"other_pct\":%.2f,\"open_us_per_program\":%.2f,\"seal_us_per_program\":%.2f,"
               "\"compile_us_per_program\":%.2f,\"program_generation_us_per_program\":%.2f,"
               "\"flips_per_program\":%.2f,\"install\":\"%s\",\"emit_us_per_program\":%.2f,"
               "\"install_us_per_program\":%.2f}\n",
               v->name, (unsigned long long)v->prof.programs, 100 * gen / total, 100 * open / total,
               100 * comp / total, 100 * seal / total, 100 * exec / total, 100 * other / total,
               PER_PROGRAM(open / 1e3), PER_PROGRAM(seal / 1e3), PER_PROGRAM(comp / 1e3), gen_one / 1e3,
               PER_PROGRAM((double)v->prof.flips),
               v->vm && rx_vm_jit_install(v->vm) ? rx_vm_jit_install(v->vm) : "-",
               PER_PROGRAM(emit / 1e3), PER_PROGRAM(inst / 1e3));
#undef PER_PROGRAM
    }
#endif
    for (int i = 0; i < nv; i++) { rx_vm_free(vars[i].vm); if (vars[i].rvm) randomx_destroy_vm(vars[i].rvm); }
    if (rds) randomx_release_dataset(rds);
    randomx_release_cache(rcache);
    rx_dataset_free(ds);
    rx_cache_free(cache);
    return ok ? 0 : 1;
}
