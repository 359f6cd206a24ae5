/* SPDX-License-Identifier: ISC */
/* bench/bench.c — rxlock's benchmark harness: the measuring instrument for
 * every performance claim (docs/DESIGN.md §6).  See bench/README.md.
 *
 *   bench screen  [opts] VARIANT...   few repetitions, many variants
 *   bench confirm [opts] VARIANT...   many repetitions (default 2 variants)
 *   bench scale   [opts] VARIANT...   W workers as threads vs processes
 *   bench pair    [opts] VARIANT...   2-4 engines interleaved hash by hash, on
 *                                     one shared dataset, W workers each
 *
 * Variants run in alternating order (A B B A ...), caches/datasets are
 * built outside the timed part, and every run's final chain digest must
 * equal every other run's of the same work function, or the bench fails
 * (exit 1) after printing both digests.  One JSON object per run is appended
 * to --out FILE; a summary table (median, min–max) goes to stdout.
 */
#include "bench_host.h"
#include "bench_variant.h"
#include "bench_workers.h"
#include "cli/progress.h"
#include "rxlock/rxlock.h"
#include "rxlock/sha3.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_VARIANTS 32
#define MAX_REPS     1000
#define MAX_WORKERS  BENCH_MAX_WORKERS

static const char usage_text[] =
    "usage: bench screen|confirm|scale|pair [options] VARIANT...\n"
    "  -n, --n N            hashes per chain (default: light 32 / full 256 / sha3 1000000;\n"
    "                       confirm x4)\n"
    "  -r, --reps R         repetitions per variant (screen 3, confirm 10, scale 3)\n"
    "  -m, --mode MODE      light (default) or full for every RandomX variant\n"
    "  -w, --workers LIST   scale, pair: comma-separated worker counts (scale default 1,<cpus>;\n"
    "                       pair default 1)\n"
    "  -t, --threads T      dataset build threads (default: online CPUs)\n"
    "  -o, --out FILE       append one JSON object per run to FILE\n"
    "  -k, --key HEX        32-byte RandomX key / SHA3 prefix (default 00 01 .. 1f)\n"
    "  -s, --seed HEX       32-byte chain start d_0 (default 0x42 x 32)\n"
    "  -g, --group G        group index g in the message (default 1)\n"
    "      --no-warmup      skip the untimed warm-up chain (n/8 hashes) per variant\n"
    "      --test-wrong     allow the test-only variant test-wrong-sha3\n"
    "      --ref-lib PATH   librandomx.so for the ref-* variants (else $RXLOCK_BENCH_REF_LIB)\n"
    "      --ref-prefix P   its randomx_* API under the names P + randomx_* (else\n"
    "                       $RXLOCK_BENCH_REF_PREFIX; e.g. xmrig_ for a shim around XMRig)\n"
    "      --list           list the variant syntax\n"
    "exit: 0 ok, 1 digest mismatch or engine failure, 2 usage\n";

static int usage_err(const char *fmt, const char *arg) {
    fprintf(stderr, "bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see bench --help)\n");
    return 2;
}

struct opts {
    const char *bench;            /* screen / confirm / scale */
    uint64_t n;
    unsigned reps;
    int full;
    unsigned threads;
    unsigned workers[16];
    size_t nworkers;
    const char *out;
    uint8_t key[32], seed[32];
    uint32_t group;
    int warmup, test_wrong;
};

struct result {                   /* one timed run */
    size_t variant;
    unsigned rep, order;
    double seconds, rate;
    double user_s, sys_s;
    uint8_t digest[32];
};

static FILE *out_fp;
static json_t *host;
static char run_id[64];

static int parse_u64(const char *s, uint64_t *v, uint64_t lo, uint64_t hi) {
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-' || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

static double rusage_s(const struct timeval *tv) { return (double)tv->tv_sec + (double)tv->tv_usec * 1e-6; }


static void emit(json_t *o) {
    json_object_set(o, "host", host);
    if (out_fp) {
        char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (s) { fprintf(out_fp, "%s\n", s); fflush(out_fp); free(s); }
    }
    json_decref(o);
}

static json_t *base_json(const struct opts *o, const struct bench_variant *v) {
    char fl[128], hex[65];
    json_t *j = json_object();
    json_object_set_new(j, "bench", json_string(o->bench));
    json_object_set_new(j, "run_id", json_string(run_id));
    json_object_set_new(j, "variant", json_string(v->name));
    json_object_set_new(j, "work", json_string(bench_work_names[v->work]));
    json_object_set_new(j, "version", json_string(v->work == WORK_V2 ? "v2" : v->work == WORK_V1 ? "v1" : "sha3"));
    json_object_set_new(j, "impl", json_string(v->impl == IMPL_RX ? "rxlock" : v->impl == IMPL_LIBRX ? "librandomx-1.1.10"
                                              : v->impl == IMPL_REF ? "ref"
                                              : v->impl == IMPL_OPENSSL ? "openssl" : v->impl == IMPL_WRONG ? "test-wrong" : "rxlock"));
    json_object_set_new(j, "mode", json_string(v->work == WORK_SHA3 ? "none" : v->full ? "full" : "light"));
    json_object_set_new(j, "engine", json_string(bench_engine_actual(v)));
    if (v->impl == IMPL_RX) {
        bench_rx_flag_names(v->flags, fl, sizeof fl);
        json_object_set_new(j, "flags_requested", json_string(fl));
        bench_rx_flag_names(v->actual, fl, sizeof fl);
        json_object_set_new(j, "flags_actual", json_string(fl));
        json_object_set_new(j, "jit_install", v->jit_install ? json_string(v->jit_install) : json_null());
    } else if (bench_is_peer(v->impl)) {
        bench_librx_flag_names(v->flags, fl, sizeof fl);
        json_object_set_new(j, "flags_requested", json_string(fl));
        json_object_set_new(j, "flags_actual", json_string(fl));
    }
    if (v->work == WORK_SHA3 && v->impl != IMPL_OPENSSL)
        json_object_set_new(j, "sha3_backend", json_string(sha3_backend()));
    json_object_set_new(j, "n", json_integer((json_int_t)o->n));
    json_object_set_new(j, "group", json_integer((json_int_t)o->group));
    util_hex_encode(hex, o->key, 32);
    json_object_set_new(j, "key", json_string(hex));
    util_hex_encode(hex, o->seed, 32);
    json_object_set_new(j, "seed", json_string(hex));
    json_object_set_new(j, "rxlock_version", json_string(RXLOCK_VERSION));
    if (v->impl == IMPL_REF) {
        const char *path = bench_ref_path ? bench_ref_path : getenv("RXLOCK_BENCH_REF_LIB");
        json_object_set_new(j, "ref_lib", json_string(path ? path : ""));
    }
    return j;
}

/* ---- digest check ------------------------------------------------------ */
/* Every run of the same work function must end on the same digest.  Prints
 * every disagreement loudly; returns the number of mismatching runs. */
static int check_digests(struct bench_variant *vs, size_t nv, const struct result *r, size_t nr) {
    int bad = 0;
    for (int w = WORK_V2; w <= WORK_SHA3; w++) {
        const struct result *ref = NULL;
        for (size_t i = 0; i < nr; i++) {
            if ((int)vs[r[i].variant].work != w) continue;
            if (!ref) { ref = &r[i]; continue; }
            if (memcmp(ref->digest, r[i].digest, 32)) {
                char a[65], b[65];
                util_hex_encode(a, ref->digest, 32);
                util_hex_encode(b, r[i].digest, 32);
                fprintf(stderr, "bench: DIGEST MISMATCH (%s): %s rep %u = %s but %s rep %u = %s\n",
                        bench_work_names[w], vs[ref->variant].name, ref->rep, a,
                        vs[r[i].variant].name, r[i].rep, b);
                bad++;
            }
        }
    }
    (void)nv;
    return bad;
}

static int setup_all(const struct opts *o, struct bench_variant *vs, size_t nv) {
    char err[256];
    for (size_t i = 0; i < nv; i++) {
        if (vs[i].impl == IMPL_RX || bench_is_peer(vs[i].impl))
            fprintf(stderr, "bench: %s: preparing %s (untimed)...\n", vs[i].name, vs[i].full ? "cache + 2080 MiB dataset" : "cache");
        if (bench_setup(&vs[i], o->key, o->threads, err, sizeof err)) { fprintf(stderr, "bench: %s\n", err); return -1; }
        if (vs[i].impl == IMPL_RX || bench_is_peer(vs[i].impl)) {
            if (vs[i].cache_seconds == 0 && vs[i].dataset_seconds == 0)
                fprintf(stderr, "bench: %s: shares an earlier variant's cache/dataset\n", vs[i].name);
            else
                fprintf(stderr, "bench: %s: cache %.2f s, dataset %.1f s\n", vs[i].name, vs[i].cache_seconds, vs[i].dataset_seconds);
        }
        json_t *j = base_json(o, &vs[i]);
        if (bench_is_peer(vs[i].impl) && vs[i].sh) {
            /* the peer's page size as it really is (equal-page comparisons):
             * AnonHugePages of the mappings holding its cache and dataset */
            const struct bench_rxapi *api = bench_api(vs[i].impl);
            long hk, sk;
            if (api->get_cache_memory && bench_thp_of(api->get_cache_memory(vs[i].sh->lcache), &hk, &sk) == 0) {
                json_object_set_new(j, "cache_thp_kb", json_integer(hk));
                fprintf(stderr, "bench: %s: cache mapping %ld kB, AnonHugePages %ld kB\n", vs[i].name, sk, hk);
            }
            if (vs[i].full && vs[i].sh->lds &&
                bench_thp_of(api->get_dataset_memory(vs[i].sh->lds), &hk, &sk) == 0) {
                json_object_set_new(j, "dataset_thp_kb", json_integer(hk));
                fprintf(stderr, "bench: %s: dataset mapping %ld kB, AnonHugePages %ld kB\n", vs[i].name, sk, hk);
            }
        }
        json_object_set_new(j, "event", json_string("setup"));
        json_object_set_new(j, "cache_seconds", json_real(vs[i].cache_seconds));
        json_object_set_new(j, "dataset_seconds", json_real(vs[i].dataset_seconds));
        json_object_set_new(j, "shared", json_boolean(vs[i].cache_seconds == 0 && vs[i].dataset_seconds == 0));
        emit(j);
    }
    return 0;
}

/* ---- screen / confirm ------------------------------------------------- */
static int run_one(const struct opts *o, struct bench_worker *w, uint64_t n, struct result *res) {
    char err[256];
    struct rusage ru0, ru1;
    memcpy(res->digest, o->seed, 32);
    if (getrusage(RUSAGE_SELF, &ru0) != 0) return -1;
    double t0 = util_now();
    int rc = bench_chain(w, o->key, o->group, n, res->digest, err, sizeof err);
    double t1 = util_now();
    if (getrusage(RUSAGE_SELF, &ru1) != 0) return -1;
    if (rc) { fprintf(stderr, "bench: %s\n", err); return -1; }
    res->seconds = t1 - t0;
    res->rate = res->seconds > 0 ? (double)n / res->seconds : 0;
    res->user_s = rusage_s(&ru1.ru_utime) - rusage_s(&ru0.ru_utime);
    res->sys_s = rusage_s(&ru1.ru_stime) - rusage_s(&ru0.ru_stime);
    return 0;
}

static void summary(const struct opts *o, struct bench_variant *vs, size_t nv, const struct result *r, size_t nr) {
    double med[MAX_VARIANTS];
    double *tmp = malloc(sizeof(double) * (nr ? nr : 1));
    if (!tmp) return;
    printf("\n%s: n=%llu, %u reps, order A B .. B A; %s\n", o->bench, (unsigned long long)o->n, o->reps,
           json_string_value(json_object_get(host, "cpu")));
    printf("%-28s %-7s %5s %12s %25s %10s %8s %12s  %s\n", "variant", "engine", "runs", "median H/s",
           "min–max H/s", "median s", "vs first", "H/CPU-s", "digest");
    for (size_t v = 0; v < nv; v++) {
        size_t k = 0;
        double lo = INFINITY, hi = 0, secs[MAX_REPS], cpur[MAX_REPS];
        const uint8_t *dg = NULL;
        for (size_t i = 0; i < nr; i++) {
            if (r[i].variant != v) continue;
            if (k < MAX_REPS) {
                secs[k] = r[i].seconds;
                double cs = r[i].user_s + r[i].sys_s;
                cpur[k] = cs > 0 ? (double)o->n / cs : 0;
            }
            tmp[k++] = r[i].rate;
            if (r[i].rate < lo) lo = r[i].rate;
            if (r[i].rate > hi) hi = r[i].rate;
            dg = r[i].digest;
        }
        med[v] = bench_median(tmp, k);
        double ms = bench_median(secs, k < MAX_REPS ? k : MAX_REPS);
        char hex[65] = "-", range[64];
        if (dg) { util_hex_encode(hex, dg, 32); hex[16] = 0; }
        snprintf(range, sizeof range, "%.6g–%.6g", lo, hi);
        double mc = bench_median(cpur, k < MAX_REPS ? k : MAX_REPS);
        printf("%-28s %-7s %5zu %12.6g %25s %10.4f %8.3f %12.6g  %s\n", vs[v].name, bench_engine_actual(&vs[v]),
               k, med[v], range, ms, med[0] > 0 ? med[v] / med[0] : NAN, mc, hex);
    }
    free(tmp);
}

static int run_screen(const struct opts *o, struct bench_variant *vs, size_t nv) {
    char err[256];
    struct bench_worker w[MAX_VARIANTS];
    size_t made = 0;
    int ret = 1;
    size_t nr = (size_t)o->reps * nv, k = 0;
    struct result *r = calloc(nr, sizeof *r);
    if (!r) return 1;
    if (setup_all(o, vs, nv)) goto out;
    for (; made < nv; made++)
        if (bench_worker_new(&w[made], &vs[made], err, sizeof err)) { fprintf(stderr, "bench: %s\n", err); goto out; }
    if (o->warmup) {
        for (size_t v = 0; v < nv; v++) {
            struct result tmp;
            uint64_t wn = o->n / 8 ? o->n / 8 : 1;
            if (run_one(o, &w[v], wn, &tmp)) goto out;
        }
    }
    pbar pr;
    pbar_init(&pr, o->bench, nr, 0, PBAR_AUTO);
    snprintf(pr.unit, sizeof pr.unit, "runs/s");
    for (unsigned rep = 0; rep < o->reps; rep++) {
        for (size_t j = 0; j < nv; j++) {
            size_t v = rep % 2 ? nv - 1 - j : j;   /* A B, B A, A B, ... */
            r[k].variant = v; r[k].rep = rep; r[k].order = (unsigned)k;
            if (run_one(o, &w[v], o->n, &r[k])) { pbar_clear(&pr); goto out; }
            char hex[65];
            util_hex_encode(hex, r[k].digest, 32);
            json_t *jo = base_json(o, &vs[v]);
            json_object_set_new(jo, "event", json_string("run"));
            json_object_set_new(jo, "rep", json_integer(rep));
            json_object_set_new(jo, "order", json_integer((json_int_t)k));
            json_object_set_new(jo, "seconds", json_real(r[k].seconds));
            json_object_set_new(jo, "rate", json_real(r[k].rate));
            json_object_set_new(jo, "user_s", json_real(r[k].user_s));
            json_object_set_new(jo, "sys_s", json_real(r[k].sys_s));
            /* hashes per CPU-second: less sensitive to being descheduled */
            json_object_set_new(jo, "cpu_rate", json_real(r[k].user_s + r[k].sys_s > 0
                                ? (double)o->n / (r[k].user_s + r[k].sys_s) : 0));
            json_object_set_new(jo, "digest", json_string(hex));
            emit(jo);
            k++;
            pbar_update(&pr, k);
        }
    }
    pbar_done(&pr);
    summary(o, vs, nv, r, k);
    int bad = check_digests(vs, nv, r, k);
    if (bad) {
        fprintf(stderr, "bench: FAILED: %d run(s) disagree on the chain digest — the numbers above are not comparable\n", bad);
        if (out_fp) fprintf(out_fp, "{\"event\":\"digest_mismatch\",\"run_id\":\"%s\",\"mismatches\":%d}\n", run_id, bad);
        goto out;
    }
    printf("digests: all runs of each work function agree\n");
    ret = 0;
out:
    for (size_t i = 0; i < made; i++) bench_worker_free(&w[i]);
    free(r);
    return ret;
}

/* The keys a scale / pair line shares (worker_rates: taken). */
static json_t *workers_json(const struct opts *o, const struct bench_variant *v, const char *event, int kind,
                            unsigned W, unsigned rep, double seconds, double rate, double per_worker,
                            json_t *worker_rates) {
    json_t *jj = base_json(o, v);
    json_object_set_new(jj, "event", json_string(event));
    json_object_set_new(jj, "kind", json_string(kind ? "processes" : "threads"));
    json_object_set_new(jj, "workers", json_integer(W));
    json_object_set_new(jj, "rep", json_integer(rep));
    json_object_set_new(jj, "seconds", json_real(seconds));
    json_object_set_new(jj, "rate", json_real(rate));
    json_object_set_new(jj, "rate_per_worker", json_real(per_worker));
    json_object_set_new(jj, "worker_rates", worker_rates);
    return jj;
}

/* ---- scale: W workers as threads vs processes --------------------------- */
struct sres { double seconds, user_s, sys_s; uint8_t digest[32]; };
struct sworker {
    struct bench_job job;         /* first: the launcher sees a bench_job */
    const struct opts *o;
    struct bench_variant *v;
    uint32_t g;
    struct sres r;
};

/* Create the VM, wait for go, run the chain, measure own CPU time. */
static void sworker_run(struct bench_job *job, int (*wait_go)(void *), void *ctx, int who) {
    struct sworker *s = (struct sworker *)job;
    char err[256];
    struct bench_worker w;
    struct rusage ru0, ru1;
    job->rc = -1;
    int made = bench_worker_new(&w, s->v, err, sizeof err) == 0;
    if (!made) fprintf(stderr, "bench: %s\n", err);
    if (wait_go(ctx) != 0 || !made) { if (made) bench_worker_free(&w); return; }
    memcpy(s->r.digest, s->o->seed, 32);
    if (getrusage(who, &ru0) != 0) goto done;
    double t0 = util_now();
    int rc = bench_chain(&w, s->o->key, s->g, s->o->n, s->r.digest, err, sizeof err);
    s->r.seconds = util_now() - t0;
    if (getrusage(who, &ru1) != 0) goto done;
    if (rc) { fprintf(stderr, "bench: %s\n", err); goto done; }
    s->r.user_s = rusage_s(&ru1.ru_utime) - rusage_s(&ru0.ru_utime);
    s->r.sys_s = rusage_s(&ru1.ru_stime) - rusage_s(&ru0.ru_stime);
    job->rc = 0;
done:
    bench_worker_free(&w);
}

static int run_scale(const struct opts *o, struct bench_variant *vs, size_t nv) {
    if (setup_all(o, vs, nv)) return 1;
    struct sworker *s = calloc(MAX_WORKERS, sizeof *s);
    /* reference digests per worker index (thread run), to check processes */
    uint8_t (*ref)[32] = calloc(MAX_WORKERS, 32);
    int ret = 1, bad = 0;
    if (!s || !ref) goto out;
    printf("\nscale: n=%llu per worker, %u reps, threads/processes alternating; %s\n",
           (unsigned long long)o->n, o->reps, json_string_value(json_object_get(host, "cpu")));
    printf("%-24s %3s %-9s %12s %21s %12s %9s %9s\n", "variant", "W", "kind", "total H/s", "min–max total",
           "per-worker", "user s", "sys s");
    for (size_t v = 0; v < nv; v++) {
        for (size_t wi = 0; wi < o->nworkers; wi++) {
            unsigned W = o->workers[wi];
            double tot[2][MAX_REPS], per[2][MAX_REPS], us[2][MAX_REPS], ss[2][MAX_REPS];
            unsigned cnt[2] = {0, 0};
            int have_ref = 0;
            for (unsigned rep = 0; rep < o->reps; rep++) {
                for (int j = 0; j < 2; j++) {
                    int kind = rep % 2 ? 1 - j : j;          /* T P, P T, ... */
                    double wall = 0;
                    struct bench_job *jobs[MAX_WORKERS];
                    for (unsigned i = 0; i < W; i++) {
                        memset(&s[i], 0, sizeof s[i]);
                        s[i].job.run = sworker_run; s[i].job.result = &s[i].r; s[i].job.result_size = sizeof s[i].r;
                        s[i].o = o; s[i].v = &vs[v]; s[i].g = o->group + i;
                        jobs[i] = &s[i].job;
                    }
                    int rc = kind == 0 ? bench_run_threads(jobs, W, &wall) : bench_run_procs(jobs, W, &wall);
                    if (rc) { fprintf(stderr, "bench: %s: %u %s failed\n", vs[v].name, W, kind ? "processes" : "threads"); goto out; }
                    double user = 0, sys = 0, psum = 0;
                    json_t *pw = json_array(), *dg = json_array();
                    for (unsigned i = 0; i < W; i++) {
                        char hex[65];
                        double pr = s[i].r.seconds > 0 ? (double)o->n / s[i].r.seconds : 0;
                        user += s[i].r.user_s; sys += s[i].r.sys_s; psum += pr;
                        json_array_append_new(pw, json_real(pr));
                        util_hex_encode(hex, s[i].r.digest, 32);
                        json_array_append_new(dg, json_string(hex));
                        if (!have_ref) memcpy(ref[i], s[i].r.digest, 32);
                        else if (memcmp(ref[i], s[i].r.digest, 32)) {
                            char a[65];
                            util_hex_encode(a, ref[i], 32);
                            fprintf(stderr, "bench: DIGEST MISMATCH (%s worker %u, %s rep %u): %s vs %s\n",
                                    vs[v].name, i, kind ? "processes" : "threads", rep, hex, a);
                            bad++;
                        }
                    }
                    have_ref = 1;
                    double total = wall > 0 ? (double)W * (double)o->n / wall : 0;
                    json_t *jj = workers_json(o, &vs[v], "scale", kind, W, rep, wall, total, psum / W, pw);
                    json_object_set_new(jj, "user_s", json_real(user));
                    json_object_set_new(jj, "sys_s", json_real(sys));
                    json_object_set_new(jj, "digests", dg);
                    emit(jj);
                    unsigned c = cnt[kind]++;
                    if (c < MAX_REPS) { tot[kind][c] = total; per[kind][c] = psum / W; us[kind][c] = user; ss[kind][c] = sys; }
                }
            }
            for (int kind = 0; kind < 2; kind++) {
                unsigned c = cnt[kind] < MAX_REPS ? cnt[kind] : MAX_REPS;
                double lo = INFINITY, hi = 0;
                for (unsigned i = 0; i < c; i++) { if (tot[kind][i] < lo) lo = tot[kind][i]; if (tot[kind][i] > hi) hi = tot[kind][i]; }
                char range[64];
                snprintf(range, sizeof range, "%.6g–%.6g", lo, hi);
                printf("%-24s %3u %-9s %12.6g %21s %12.6g %9.3f %9.3f\n", vs[v].name, W, kind ? "processes" : "threads",
                       bench_median(tot[kind], c), range, bench_median(per[kind], c), bench_median(us[kind], c), bench_median(ss[kind], c));
            }
        }
    }
    if (bad) {
        fprintf(stderr, "bench: FAILED: %d worker chain(s) disagree between runs\n", bad);
        goto out;
    }
    printf("digests: every worker's chain agrees across threads and processes\n");
    ret = 0;
out:
    free(s);
    free(ref);
    return ret;
}

/* ---- pair: engines interleaved hash by hash ----------------------------- */
/* Every worker holds one VM of each variant and computes its chain once per
 * variant, step by step: at step i every variant hashes the same message
 * (the order rotates each step: A B, B A, ...), each hash timed alone, and
 * all results must be equal before the chain goes on.  Whatever slows the
 * machine down (another tenant, the clock, the placement of memory) then
 * falls on every engine alike, and full-mode variants read one dataset. */
#define PAIR_MAX 4
struct pres {
    double secs[PAIR_MAX];        /* hashing seconds per variant */
    double user_s, sys_s;
    uint64_t bad_step;            /* 1 + the step whose results differed, or 0 */
    uint8_t digest[32];
};
struct pworker {
    struct bench_job job;         /* first: the launcher sees a bench_job */
    const struct opts *o;
    struct bench_variant *vs;
    size_t nv;
    uint32_t g;
    struct pres r;
};

static void pworker_run(struct bench_job *job, int (*wait_go)(void *), void *ctx, int who) {
    struct pworker *p = (struct pworker *)job;
    const struct opts *o = p->o;
    char err[256];
    struct bench_worker w[PAIR_MAX];
    struct rusage ru0, ru1;
    uint8_t d[32], out[PAIR_MAX][32];
    size_t made = 0;
    job->rc = -1;
    for (; made < p->nv; made++)
        if (bench_worker_new(&w[made], &p->vs[made], err, sizeof err)) { fprintf(stderr, "bench: %s\n", err); break; }
    /* untimed warm-up: a few paired steps of another chain */
    uint64_t wn = o->warmup ? (o->n / 8 < 8 ? o->n / 8 : 8) : 0;
    memcpy(d, o->seed, 32);
    for (uint64_t i = 0; made == p->nv && i < wn; i++)
        for (size_t v = 0; v < p->nv; v++)
            if (bench_step(&w[v], o->key, p->g + MAX_WORKERS, i, d, out[v], err, sizeof err)) made = 0;
    if (wait_go(ctx) != 0 || made != p->nv) goto done;
    memcpy(d, o->seed, 32);
    if (getrusage(who, &ru0) != 0) goto done;
    for (uint64_t i = 0; i < o->n; i++) {
        for (size_t k = 0; k < p->nv; k++) {
            size_t v = (size_t)((i + k) % p->nv);
            double t0 = util_now();
            if (bench_step(&w[v], o->key, p->g, i, d, out[v], err, sizeof err)) { fprintf(stderr, "bench: %s\n", err); goto done; }
            p->r.secs[v] += util_now() - t0;
        }
        for (size_t v = 1; v < p->nv; v++)
            if (memcmp(out[v], out[0], 32)) { p->r.bad_step = i + 1; memcpy(p->r.digest, d, 32); goto done; }
        memcpy(d, out[0], 32);
    }
    if (getrusage(who, &ru1) != 0) goto done;
    p->r.user_s = rusage_s(&ru1.ru_utime) - rusage_s(&ru0.ru_utime);
    p->r.sys_s = rusage_s(&ru1.ru_stime) - rusage_s(&ru0.ru_stime);
    memcpy(p->r.digest, d, 32);
    job->rc = 0;
done:
    for (size_t v = 0; v < made; v++) bench_worker_free(&w[v]);
}

static int pair_check(const struct bench_variant *vs, size_t nv) {
    if (nv < 2 || nv > PAIR_MAX) return usage_err("pair takes 2 to 4 variants%s", "");
    for (size_t i = 1; i < nv; i++) {
        if (vs[i].work != vs[0].work)
            return usage_err("pair: every variant must compute the same work function (%s)", bench_work_names[vs[0].work]);
        if (vs[i].work != WORK_SHA3 && vs[i].full != vs[0].full)
            return usage_err("pair: every RandomX variant in the same mode (%s)", vs[0].full ? "full" : "light");
    }
    return 0;
}

static int run_pair(const struct opts *o, struct bench_variant *vs, size_t nv) {
    /* peers first, so that ours can read their dataset */
    bench_share_dataset = 1;
    for (int peers = 1; peers >= 0; peers--)
        for (size_t i = 0; i < nv; i++)
            if (bench_is_peer(vs[i].impl) == peers && setup_all(o, &vs[i], 1)) return 1;
    int ret = 1, bad = 0;
    struct pworker *p = calloc(MAX_WORKERS, sizeof *p);
    uint8_t (*ref)[32] = calloc(MAX_WORKERS, 32);
    double (*rates)[16][2][MAX_REPS] = calloc(PAIR_MAX, sizeof *rates);   /* [v][wi][kind][rep] */
    double (*ratio)[16][2][MAX_REPS] = calloc(PAIR_MAX, sizeof *ratio);   /* over the first variant */
    uint8_t *have_ref = calloc(MAX_WORKERS, 1);   /* ref[i] holds worker i's chain digest */
    if (!p || !ref || !rates || !ratio || !have_ref) goto out;
    printf("\npair: n=%llu per worker, %u reps, %zu variants interleaved hash by hash, worker counts and threads/processes in turn each rep; eff. = W workers' rate / (W x one worker's), paired by rep and kind; %s\n",
           (unsigned long long)o->n, o->reps, nv, json_string_value(json_object_get(host, "cpu")));
    /* rep by rep, every worker count and both kinds in turn (T P, then P T
     * the next rep): a worker count's rate is paired with the one-worker
     * rate of its own rep and kind, measured minutes apart at most */
    for (unsigned rep = 0; rep < o->reps; rep++) {
        for (size_t wi = 0; wi < o->nworkers; wi++) {
            unsigned W = o->workers[wi];
            for (int j = 0; j < 2; j++) {
                int kind = rep % 2 ? 1 - j : j;          /* T P, P T, ... */
                struct bench_job *jobs[MAX_WORKERS];
                double wall = 0;
                for (unsigned i = 0; i < W; i++) {
                    memset(&p[i], 0, sizeof p[i]);
                    p[i].job.run = pworker_run; p[i].job.result = &p[i].r; p[i].job.result_size = sizeof p[i].r;
                    p[i].o = o; p[i].vs = vs; p[i].nv = nv; p[i].g = o->group + i;
                    jobs[i] = &p[i].job;
                }
                int rc = kind == 0 ? bench_run_threads(jobs, W, &wall) : bench_run_procs(jobs, W, &wall);
                for (unsigned i = 0; i < W; i++) {
                    if (!p[i].r.bad_step) continue;
                    fprintf(stderr, "bench: DIGEST MISMATCH (%s, worker %u, %s rep %u): the variants disagree at step %llu\n",
                            bench_work_names[vs[0].work], i, kind ? "processes" : "threads", rep,
                            (unsigned long long)(p[i].r.bad_step - 1));
                    if (out_fp) fprintf(out_fp, "{\"event\":\"digest_mismatch\",\"run_id\":\"%s\",\"step\":%llu}\n",
                                        run_id, (unsigned long long)(p[i].r.bad_step - 1));
                    bad++;
                }
                if (bad) goto out;
                if (rc) { fprintf(stderr, "bench: pair: %u %s failed\n", W, kind ? "processes" : "threads"); goto out; }
                double first = 0;
                for (size_t v = 0; v < nv; v++) {
                    double tot = 0, secs = 0;
                    json_t *pw = json_array(), *dg = json_array();
                    for (unsigned i = 0; i < W; i++) {
                        char hex[65];
                        double r = p[i].r.secs[v] > 0 ? (double)o->n / p[i].r.secs[v] : 0;
                        tot += r; secs += p[i].r.secs[v];
                        json_array_append_new(pw, json_real(r));
                        util_hex_encode(hex, p[i].r.digest, 32);
                        json_array_append_new(dg, json_string(hex));
                        if (v) continue;
                        if (!have_ref[i]) { memcpy(ref[i], p[i].r.digest, 32); have_ref[i] = 1; }
                        else if (memcmp(ref[i], p[i].r.digest, 32)) {
                            fprintf(stderr, "bench: DIGEST MISMATCH (worker %u, %s rep %u): its chain differs from an earlier run\n",
                                    i, kind ? "processes" : "threads", rep);
                            bad++;
                        }
                    }
                    if (!v) first = tot;
                    rates[v][wi][kind][rep] = tot;
                    ratio[v][wi][kind][rep] = first > 0 ? tot / first : 0;
                    json_t *jj = workers_json(o, &vs[v], "pair", kind, W, rep, secs, tot, tot / W, pw);
                    json_object_set_new(jj, "ratio_to_first", json_real(ratio[v][wi][kind][rep]));
                    json_object_set_new(jj, "first", json_string(vs[0].name));
                    json_object_set_new(jj, "wall_seconds", json_real(wall));
                    json_object_set_new(jj, "digests", dg);
                    emit(jj);
                }
                if (bad) goto out;
            }
        }
    }
    printf("%-30s %3s %-9s %12s %21s %10s %17s %6s\n", "variant", "W", "kind", "total H/s", "min–max total",
           "/ first", "paired min–max", "eff.");
    for (size_t v = 0; v < nv; v++) {
        int w1 = -1;        /* the one-worker entry: each efficiency's base */
        for (size_t wi = 0; wi < o->nworkers; wi++)
            if (o->workers[wi] == 1) w1 = (int)wi;
        for (size_t wi = 0; wi < o->nworkers; wi++)
            for (int kind = 0; kind < 2; kind++) {
                double t[MAX_REPS], q[MAX_REPS], e[MAX_REPS], lo = INFINITY, hi = 0, qlo = INFINITY, qhi = 0;
                for (unsigned r = 0; r < o->reps; r++) {
                    /* paired: this rep's rate over W x the same rep's and
                     * kind's one-worker rate (NAN without a one-worker run) */
                    double base = w1 < 0 ? NAN : rates[v][w1][kind][r];
                    e[r] = base > 0 ? rates[v][wi][kind][r] / ((double)o->workers[wi] * base) : NAN;
                    t[r] = rates[v][wi][kind][r]; q[r] = ratio[v][wi][kind][r];
                    if (t[r] < lo) lo = t[r];
                    if (t[r] > hi) hi = t[r];
                    if (q[r] < qlo) qlo = q[r];
                    if (q[r] > qhi) qhi = q[r];
                }
                char range[64], qr[64];
                snprintf(range, sizeof range, "%.6g–%.6g", lo, hi);
                snprintf(qr, sizeof qr, "%.4f–%.4f", qlo, qhi);
                double mt = bench_median(t, o->reps);
                printf("%-30s %3u %-9s %12.6g %21s %10.4f %17s %6.3f\n", vs[v].name, o->workers[wi],
                       kind ? "processes" : "threads", mt, range, bench_median(q, o->reps), qr,
                       w1 < 0 ? NAN : bench_median(e, o->reps));
            }
    }
    printf("digests: every step agreed across the variants; every worker's chain agrees across runs\n");
    ret = 0;
out:
    if (bad) fprintf(stderr, "bench: FAILED: %d disagreement(s) — the numbers are not comparable\n", bad);
    free(p); free(ref); free(rates); free(ratio); free(have_ref);
    return ret;
}

static void list_variants(void) {
    puts("variants (dash-separated tokens; flags are exactly what the name says):\n"
         "  [rx-]v1|v2[-interp|-jit-secure[-mprotect]][-hardaes|-softaes][-nothp][-light|-full]  ours (our JIT is always W^X;\n"
         "                  -mprotect: install by page-permission flips, else through /proc/self/mem)\n"
         "  librandomx-v1[-interp|-jit][-secure][-hardaes|-softaes][-light|-full]          Debian librandomx 1.1.10\n"
         "  ref-v1|v2[-interp|-jit][-secure][-hardaes|-softaes][-light|-full]              --ref-lib PATH (dlopen)\n"
         "  sha3            ours: d <- SHA3-256(K || m), fused (sha3_chain_ctr)\n"
         "  sha3-sponge     ours through the generic sponge (one sha3_256 per step)\n"
         "  openssl-sha3    the same chain through OpenSSL EVP\n"
         "  test-wrong-sha3 TEST ONLY (--test-wrong): flips a bit of every digest\n"
         "examples: v2-interp v2-jit-secure v1-interp-softaes librandomx-v1-jit v2-jit-secure-nothp-full");
}

int main(int argc, char **argv) {
    static const struct option lo[] = {
        {"n", required_argument, 0, 'n'}, {"reps", required_argument, 0, 'r'},
        {"mode", required_argument, 0, 'm'}, {"workers", required_argument, 0, 'w'},
        {"threads", required_argument, 0, 't'}, {"out", required_argument, 0, 'o'},
        {"key", required_argument, 0, 'k'}, {"seed", required_argument, 0, 's'},
        {"group", required_argument, 0, 'g'}, {"no-warmup", no_argument, 0, 'W'},
        {"test-wrong", no_argument, 0, 'T'}, {"list", no_argument, 0, 'L'},
        {"ref-lib", required_argument, 0, 'R'}, {"ref-prefix", required_argument, 0, 'P'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}
    };
    struct opts o;
    memset(&o, 0, sizeof o);
    o.warmup = 1; o.group = 1;
    for (int i = 0; i < 32; i++) { o.key[i] = (uint8_t)i; o.seed[i] = 0x42; }
    int c;
    uint64_t x;
    size_t len;
    opterr = 0;
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) { fputs(usage_text, stdout); return 0; }
    if (argc >= 2 && !strcmp(argv[1], "--list")) { list_variants(); return 0; }
    if (argc < 2 || (strcmp(argv[1], "screen") && strcmp(argv[1], "confirm") && strcmp(argv[1], "scale") &&
                     strcmp(argv[1], "pair")))
        return usage_err("first argument must be screen, confirm, scale or pair%s", "");
    o.bench = argv[1];
    argv++; argc--;
    while ((c = getopt_long(argc, argv, "n:r:m:w:t:o:k:s:g:h", lo, NULL)) != -1) {
        switch (c) {
        case 'n': if (parse_u64(optarg, &o.n, 1, 1ull << 40)) return usage_err("bad --n '%s'", optarg); break;
        case 'r': if (parse_u64(optarg, &x, 1, MAX_REPS)) return usage_err("bad --reps '%s' (1..1000)", optarg); o.reps = (unsigned)x; break;
        case 'm':
            if (!strcmp(optarg, "full")) o.full = 1;
            else if (!strcmp(optarg, "light")) o.full = 0;
            else return usage_err("bad --mode '%s' (light|full)", optarg);
            break;
        case 'w': {
            char buf[256], *save = NULL;
            snprintf(buf, sizeof buf, "%s", optarg);
            o.nworkers = 0;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (o.nworkers == 16 || parse_u64(t, &x, 1, MAX_WORKERS)) return usage_err("bad --workers '%s' (1..256, at most 16 counts)", optarg);
                o.workers[o.nworkers++] = (unsigned)x;
            }
            if (!o.nworkers) return usage_err("bad --workers '%s'", optarg);
            break;
        }
        case 't': if (parse_u64(optarg, &x, 1, 64)) return usage_err("bad --threads '%s' (1..64)", optarg); o.threads = (unsigned)x; break;
        case 'o': o.out = optarg; break;
        case 'k': if (util_hex_decode(optarg, o.key, 32, &len) || len != 32) return usage_err("--key needs 64 hex digits, got '%s'", optarg); break;
        case 's': if (util_hex_decode(optarg, o.seed, 32, &len) || len != 32) return usage_err("--seed needs 64 hex digits, got '%s'", optarg); break;
        case 'g': if (parse_u64(optarg, &x, 1, 0xffffffffu)) return usage_err("bad --group '%s'", optarg); o.group = (uint32_t)x; break;
        case 'W': o.warmup = 0; break;
        case 'T': o.test_wrong = 1; break;
        case 'R': bench_ref_path = optarg; break;
        case 'P': bench_ref_prefix = optarg; break;
        case 'L': list_variants(); return 0;
        case 'h': fputs(usage_text, stdout); return 0;
        default: return usage_err("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    size_t nv = (size_t)(argc - optind);
    if (nv == 0) return usage_err("no variants given%s", "");
    if (nv > MAX_VARIANTS) return usage_err("too many variants%s", "");
    struct bench_variant vs[MAX_VARIANTS];
    int any_rx = 0, any_full = 0;
    for (size_t i = 0; i < nv; i++) {
        char err[256];
        if (bench_parse_variant(argv[optind + (int)i], o.full, o.test_wrong, &vs[i], err, sizeof err))
            return usage_err("%s", err);
        if (vs[i].work != WORK_SHA3) { any_rx = 1; if (vs[i].full) any_full = 1; }
    }
    int scale = !strcmp(o.bench, "scale"), confirm = !strcmp(o.bench, "confirm"), pair = !strcmp(o.bench, "pair");
    if (pair && pair_check(vs, nv)) return 2;
    if (pair && !o.nworkers) o.workers[o.nworkers++] = 1;
    if (!o.n) o.n = (any_full ? 256 : any_rx ? 32 : 1000000) * (confirm ? 4u : 1u);
    if (!o.reps) o.reps = confirm ? 10 : 3;
    if (!o.nworkers) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        o.workers[o.nworkers++] = 1;
        if (cpus > 1) o.workers[o.nworkers++] = (unsigned)(cpus > MAX_WORKERS ? MAX_WORKERS : cpus);
    }
    if (o.group > 0xffffffffu - MAX_WORKERS) return usage_err("--group too large%s", "");
    if (o.out) {
        int fd = open(o.out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 || !(out_fp = fdopen(fd, "a"))) { fprintf(stderr, "bench: %s: %s\n", o.out, strerror(errno)); return 1; }
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    strftime(run_id, sizeof run_id, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(run_id + strlen(run_id), sizeof run_id - strlen(run_id), "-%ld", (long)getpid());
    host = bench_host_json();
    int ret = scale ? run_scale(&o, vs, nv) : pair ? run_pair(&o, vs, nv) : run_screen(&o, vs, nv);
    bench_pool_free();
    json_decref(host);
    if (out_fp && fclose(out_fp) != 0) { fprintf(stderr, "bench: %s: %s\n", o.out, strerror(errno)); ret = 1; }
    return ret;
}
