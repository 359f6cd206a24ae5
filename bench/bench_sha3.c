/* SPDX-License-Identifier: ISC */
/* bench/bench_sha3.c — SHA3-256 chain throughput, all figures in one run:
 * every Keccak backend this CPU runs (fused sha3_chain), an OpenSSL
 * EVP_Digest chain, and the permutation bound (OpenSSL's long-message
 * SHA3-256 throughput on 16384-byte inputs ÷ the 136-byte rate).  Rounds
 * alternate the order of the variants; each variant's best round is kept.
 * Also the same chain through the generic sponge (sha3_256, to show what
 * fusing is worth) and the puzzle form W(K, m) = SHA3-256(K ‖ m), |K| = 32, |m| = 68
 * (docs/DESIGN.md §1; here m = 36 fixed bytes ‖ d, chained through d), ours via
 * sha3_256_2 against EVP_Digest on the same 100 bytes.
 * The fused puzzle-form chain (sha3_chain_ctr, "ctr-<backend>":
 * SHA3-256(prefix60 ‖ u64le(i) ‖ d), the step counter i as in the puzzles)
 * on every backend, and every multi-chain backend ("multi-<name>": its lane
 * count of such chains at once, lane 0 the same chain, rate = chain steps
 * per second summed over lanes, i.e. per core); "puzzle-form" (the sponge,
 * what tl_work_steps ran before) and "puzzle-form-evp" hash the same
 * messages, so all of them end on one digest.
 * Prints one JSON object per variant ("seconds"/"rate" from the best
 * round, "median_rate" from the median), then the ratios, computed both from
 * the best and from the median rounds, and `openssl speed`'s own figure.
 *   usage: bench_sha3 [steps (10000)] [rounds (301)]   (short rounds, many:
 *   the best round is the one the shared VM did not interrupt)
 * OpenSSL is the yardstick only; the product never links it. */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include "util/util.h"
#include "util/le.h"
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXV 24
#define MAXR 1000



static void evp_chain(uint8_t x[32], uint64_t steps) {
    const EVP_MD *md = EVP_sha3_256();
    for (uint64_t i = 0; i < steps; i++) {
        unsigned int n;
        if (EVP_Digest(x, 32, x, &n, md, NULL) != 1) { fprintf(stderr, "EVP_Digest\n"); exit(1); }
    }
}

/* Seconds for OpenSSL to hash `blocks` 16384-byte messages. */
static double evp_long(uint64_t blocks) {
    static uint8_t buf[16384];
    uint8_t out[32];
    unsigned int n;
    memset(buf, 0x5a, sizeof buf);
    double t = util_now();
    for (uint64_t i = 0; i < blocks; i++)
        if (EVP_Digest(buf, sizeof buf, out, &n, EVP_sha3_256(), NULL) != 1) { fprintf(stderr, "EVP_Digest\n"); exit(1); }
    return util_now() - t;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* `openssl speed`'s own long-message figure ÷ 136 (permutations/s), or 0
 * when the tool is missing or its output is not understood. */
#define SPEED_CMD "openssl speed -seconds 2 -evp sha3-256 -bytes 16384"
static double openssl_speed_bound(void) {
    FILE *f = popen(SPEED_CMD " 2>/dev/null", "r");
    char line[512];
    double kbs = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f)) {
        double k;
        if (strncmp(line, "sha3-256 ", 9) == 0 && sscanf(line + 9, "%lfk", &k) == 1) kbs = k;
    }
    if (pclose(f) != 0) return 0;
    return kbs * 1000.0 / SHA3_256_RATE;
}

/* Puzzle-form chain through a generic hash: d <- SHA3-256(prefix ‖
 * u64le(i) ‖ d), i = 0 .. steps-1, prefix bytes 1..60 (K ‖ the message's
 * fixed bytes). */
static void puzzle_chain(uint8_t x[32], uint64_t steps, int evp) {
    uint8_t km[100];
    for (int i = 0; i < 60; i++) km[i] = (uint8_t)(i + 1);
    memcpy(km + 68, x, 32);
    for (uint64_t i = 0; i < steps; i++) {
        util_store64le(km + 60, i);
        if (evp) {
            unsigned int n;
            if (EVP_Digest(km, 100, km + 68, &n, EVP_sha3_256(), NULL) != 1) { fprintf(stderr, "EVP_Digest\n"); exit(1); }
        } else {
            sha3_256_2(km + 68, km, 32, km + 32, 68);
        }
    }
    memcpy(x, km + 68, 32);
}

/* The same chain fused (one backend), and `lanes` of them at once (one
 * multi-chain backend; chain 0 = the chain above, the others differ in the
 * prefix's last byte). */
static void ctr_chain(const sha3_impl *impl, uint8_t x[32], uint64_t steps) {
    uint8_t pre[60];
    for (int i = 0; i < 60; i++) pre[i] = (uint8_t)(i + 1);
    sha3_chain_ctr_with(impl, pre, 0, steps, x);
}
static void multi_chain(const sha3_multi_impl *impl, uint8_t x[32], uint64_t steps) {
    uint8_t pre[SHA3_LANES_MAX][60], d[SHA3_LANES_MAX][32];
    uint64_t i0[SHA3_LANES_MAX] = { 0 };
    for (unsigned c = 0; c < impl->lanes; c++) {
        for (int i = 0; i < 60; i++) pre[c][i] = (uint8_t)(i + 1);
        pre[c][59] = (uint8_t)(pre[c][59] + c);
        memcpy(d[c], x, 32);
    }
    sha3_chain_ctr_multi_with(impl, impl->lanes, (const uint8_t (*)[60])pre, i0, steps, d);
    memcpy(x, d[0], 32);
}

typedef struct {
    const char *name;
    const sha3_impl *impl;      /* kind 0 (fused chain) and 6 (ctr chain) */
    const sha3_multi_impl *multi;   /* kind 7 */
    int kind;                   /* 0 fused chain, 1 evp chain, 2 bound,
                                   3 / 4 puzzle form ours (sponge) / EVP,
                                   5 sha3_256 chain through the sponge,
                                   6 fused puzzle-form chain, 7 multi-chain */
    double best;                /* seconds of the fastest round */
    double rate;                /* hashes (or permutations) per second */
    double med_rate;            /* the same from the median round */
    double t[MAXR];
    uint64_t n;
    uint8_t digest[32];
    char label[40];
} variant;

static variant *find(variant *v, int nv, int kind, const char *name) {
    for (int k = 0; k < nv; k++)
        if (v[k].kind == kind && (!name || strcmp(v[k].impl ? v[k].impl->name : v[k].name, name) == 0)) return &v[k];
    return NULL;
}

int main(int argc, char **argv) {
    uint64_t steps = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
    int rounds = argc > 2 ? atoi(argv[2]) : 301;
    if (steps == 0 || rounds <= 0 || rounds > MAXR) { fprintf(stderr, "usage: bench_sha3 [steps] [rounds]\n"); return 2; }
    /* Long-message work sized like the chain: steps permutations. */
    uint64_t blocks = steps / 121 + 1;   /* 16384 bytes = 121 permutations */

    variant v[MAXV];
    int nv = 0;
    size_t ni, nm;
    const sha3_impl *const *impls = sha3_impls(&ni);
    const sha3_multi_impl *const *multis = sha3_multi_impls(&nm);
    for (size_t i = 0; i < ni && nv < 8; i++)
        if (impls[i]->available()) v[nv++] = (variant){ .name = impls[i]->name, .impl = impls[i], .n = steps };
    v[nv++] = (variant){ .name = "unfused-sha3_256", .kind = 5, .n = steps };
    v[nv++] = (variant){ .name = "puzzle-form", .kind = 3, .n = steps };
    v[nv++] = (variant){ .name = "puzzle-form-evp", .kind = 4, .n = steps };
    for (size_t i = 0; i < ni && nv < MAXV - 8; i++)
        if (impls[i]->available()) {
            v[nv] = (variant){ .impl = impls[i], .kind = 6, .n = steps };
            snprintf(v[nv].label, sizeof v[nv].label, "ctr-%s", impls[i]->name);
            v[nv].name = v[nv].label;
            nv++;
        }
    for (size_t i = 0; i < nm && nv < MAXV - 2; i++)
        if (multis[i]->available()) {
            v[nv] = (variant){ .multi = multis[i], .kind = 7, .n = steps * multis[i]->lanes };
            snprintf(v[nv].label, sizeof v[nv].label, "multi-%s", multis[i]->name);
            v[nv].name = v[nv].label;
            nv++;
        }
    v[nv++] = (variant){ .name = "openssl-evp-chain", .kind = 1, .n = steps };
    v[nv++] = (variant){ .name = "permutation-bound", .kind = 2,
                         .n = blocks * 16384 / SHA3_256_RATE };

    fprintf(stderr, "sha3 backend selected: %s, multi-chain: %s (%u lanes); %llu steps x %d rounds\n",
            sha3_backend(), sha3_multi_backend(), sha3_multi_lanes(), (unsigned long long)steps, rounds);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < nv; k++) {
            variant *p = &v[r % 2 ? nv - 1 - k : k];   /* alternate order */
            uint8_t x[32] = { 0 };
            double t = util_now(), dt;
            if (p->kind == 0) sha3_chain_with(p->impl, x, steps);
            else if (p->kind == 1) evp_chain(x, steps);
            else if (p->kind == 5) { for (uint64_t i = 0; i < steps; i++) sha3_256(x, x, 32); }
            else if (p->kind == 3 || p->kind == 4) puzzle_chain(x, steps, p->kind == 4);
            else if (p->kind == 6) ctr_chain(p->impl, x, steps);
            else if (p->kind == 7) multi_chain(p->multi, x, steps);
            else (void)evp_long(blocks);
            dt = util_now() - t;
            if (r == 0 || dt < p->best) p->best = dt;
            p->t[r] = dt;
            if (p->kind != 2) {
                if (r > 0 && memcmp(p->digest, x, 32) != 0) { fprintf(stderr, "%s: digest changed\n", p->name); return 1; }
                memcpy(p->digest, x, 32);
            }
        }
    }
    int ok = 1;
    const variant *chain0 = &v[0], *puz0 = find(v, nv, 3, NULL);
    for (int k = 0; k < nv; k++) {
        variant *p = &v[k];
        char d[65];
        qsort(p->t, (size_t)rounds, sizeof p->t[0], cmp_double);
        p->rate = (double)p->n / p->best;
        p->med_rate = (double)p->n / p->t[rounds / 2];
        if (p->kind == 2) strcpy(d, "");
        else util_hex_encode(d, p->digest, 32);
        if ((p->kind == 0 || p->kind == 1 || p->kind == 5) && memcmp(p->digest, chain0->digest, 32) != 0) ok = 0;
        if ((p->kind == 4 || p->kind == 6 || p->kind == 7) && memcmp(p->digest, puz0->digest, 32) != 0) ok = 0;
        printf("{\"variant\":\"%s\",\"n\":%llu,\"seconds\":%.6f,\"rate\":%.0f,\"median_rate\":%.0f,\"digest\":\"%s\"}\n",
               p->name, (unsigned long long)p->n, p->best, p->rate, p->med_rate, d);
    }
    const variant *evpv = find(v, nv, 1, NULL), *boundv = find(v, nv, 2, NULL);
    double evp = evpv->rate, bound = boundv->rate, mevp = evpv->med_rate, mbound = boundv->med_rate;
    double speed = openssl_speed_bound();
    if (speed > 0)
        printf("{\"variant\":\"openssl-speed-bound\",\"interleaved\":false,\"command\":\"%s\",\"rate\":%.0f}\n", SPEED_CMD, speed);
    printf("{\"ratio\":\"fused-chain\",\"backend\":\"%s\",\"vs_unfused_sha3_256\":%.3f}\n",
           v[0].name, v[0].rate / find(v, nv, 5, NULL)->rate);
    const variant *puzevp = find(v, nv, 4, NULL);
    printf("{\"ratio\":\"puzzle-form\",\"vs_evp\":%.3f,\"median_vs_evp\":%.3f}\n",
           puz0->rate / puzevp->rate, puz0->med_rate / puzevp->med_rate);
    for (int k = 0; k < nv; k++) {
        const variant *p = &v[k];
        if (p->kind != 0 && p->kind != 6) continue;
        printf("{\"ratio\":\"%s\",\"vs_evp_chain\":%.3f,\"vs_permutation_bound\":%.3f,"
               "\"median_vs_evp_chain\":%.3f,\"median_vs_permutation_bound\":%.3f",
               p->name, p->rate / evp, p->rate / bound, p->med_rate / mevp, p->med_rate / mbound);
        if (speed > 0) printf(",\"vs_openssl_speed_bound\":%.3f", p->rate / speed);
        if (p->kind == 6) {   /* the puzzle-form targets: vs the fused chain, vs the sponge */
            const variant *f = find(v, nv, 0, p->impl->name);
            printf(",\"vs_fused_chain\":%.3f,\"median_vs_fused_chain\":%.3f,\"vs_puzzle_form_sponge\":%.3f",
                   p->rate / f->rate, p->med_rate / f->med_rate, p->rate / puz0->rate);
        }
        printf("}\n");
    }
    for (int k = 0; k < nv; k++) {          /* multi-chain: per-core rate vs one chain */
        const variant *p = &v[k];
        if (p->kind != 7) continue;
        printf("{\"ratio\":\"%s\",\"lanes\":%u", p->name, p->multi->lanes);
        for (int j = 0; j < nv; j++)
            if (v[j].kind == 6)
                printf(",\"vs_%s\":%.3f,\"median_vs_%s\":%.3f", v[j].name, p->rate / v[j].rate,
                       v[j].name, p->med_rate / v[j].med_rate);
        printf("}\n");
    }
    printf("{\"digests_agree\":%s}\n", ok ? "true" : "false");
    return ok ? 0 : 1;
}
