/* bench/bench_sha3.c — SHA3-256 chain throughput, all figures in one run:
 * every Keccak backend this CPU runs (fused sha3_chain), an OpenSSL
 * EVP_Digest chain, and the permutation bound (OpenSSL's long-message
 * SHA3-256 throughput on 16384-byte inputs ÷ the 136-byte rate).  Rounds
 * alternate the order of the variants; each variant's best round is kept.
 * Also the same chain through the generic sponge (sha3_256, to show what
 * fusing is worth) and the puzzle form W(K, m) = SHA3-256(K ‖ m), |K| = 32, |m| = 68
 * (docs/DESIGN.md §1; here m = 36 fixed bytes ‖ d, chained through d), ours via
 * sha3_256_2 against EVP_Digest on the same 100 bytes.
 * Prints one JSON object per variant ("seconds"/"rate" from the best
 * round, "median_rate" from the median), then the ratios, computed both from
 * the best and from the median rounds, and `openssl speed`'s own figure.
 *   usage: bench_sha3 [steps (10000)] [rounds (301)]   (short rounds, many:
 *   the best round is the one the shared VM did not interrupt)
 * OpenSSL is the yardstick only; the product never links it. */
#include "rxlock/sha3.h"
#include "sha3/internal.h"
#include "util/util.h"
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXV 10
#define MAXR 1000



static void evp_chain(uint8_t x[32], uint64_t steps)
{
    const EVP_MD *md = EVP_sha3_256();
    for (uint64_t i = 0; i < steps; i++) {
        unsigned int n;
        if (EVP_Digest(x, 32, x, &n, md, NULL) != 1) { fprintf(stderr, "EVP_Digest\n"); exit(1); }
    }
}

/* Seconds for OpenSSL to hash `blocks` 16384-byte messages. */
static double evp_long(uint64_t blocks)
{
    static uint8_t buf[16384];
    uint8_t out[32];
    unsigned int n;
    memset(buf, 0x5a, sizeof buf);
    double t = util_now();
    for (uint64_t i = 0; i < blocks; i++)
        if (EVP_Digest(buf, sizeof buf, out, &n, EVP_sha3_256(), NULL) != 1) { fprintf(stderr, "EVP_Digest\n"); exit(1); }
    return util_now() - t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* `openssl speed`'s own long-message figure ÷ 136 (permutations/s), or 0
 * when the tool is missing or its output is not understood. */
#define SPEED_CMD "openssl speed -seconds 2 -evp sha3-256 -bytes 16384"
static double openssl_speed_bound(void)
{
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

/* Puzzle-form chain: d <- SHA3-256(K ‖ m36 ‖ d). */
static void puzzle_chain(uint8_t x[32], uint64_t steps, int evp)
{
    uint8_t km[100];
    for (int i = 0; i < 68; i++) km[i] = (uint8_t)(i + 1);
    memcpy(km + 68, x, 32);
    for (uint64_t i = 0; i < steps; i++) {
        if (evp) {
            unsigned int n;
            if (EVP_Digest(km, 100, km + 68, &n, EVP_sha3_256(), NULL) != 1) { fprintf(stderr, "EVP_Digest\n"); exit(1); }
        } else {
            sha3_256_2(km + 68, km, 32, km + 32, 68);
        }
    }
    memcpy(x, km + 68, 32);
}

typedef struct {
    const char *name;
    const sha3_impl *impl;      /* NULL: evp chain (kind 1), bound (kind 2),
                                   puzzle form ours (3) / EVP (4),
                                   sha3_256 chain through the sponge (5) */
    int kind;
    double best;                /* seconds of the fastest round */
    double rate;                /* hashes (or permutations) per second */
    double med_rate;            /* the same from the median round */
    double t[MAXR];
    uint64_t n;
    uint8_t digest[32];
} variant;

int main(int argc, char **argv)
{
    uint64_t steps = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000;
    int rounds = argc > 2 ? atoi(argv[2]) : 301;
    if (steps == 0 || rounds <= 0 || rounds > MAXR) { fprintf(stderr, "usage: bench_sha3 [steps] [rounds]\n"); return 2; }
    /* Long-message work sized like the chain: steps permutations. */
    uint64_t blocks = steps / 121 + 1;   /* 16384 bytes = 121 permutations */

    variant v[MAXV];
    int nv = 0;
    size_t ni;
    const sha3_impl *const *impls = sha3_impls(&ni);
    for (size_t i = 0; i < ni && nv < MAXV - 5; i++)
        if (impls[i]->available()) v[nv++] = (variant){ .name = impls[i]->name, .impl = impls[i], .n = steps };
    v[nv++] = (variant){ .name = "unfused-sha3_256", .kind = 5, .n = steps };
    v[nv++] = (variant){ .name = "puzzle-form", .kind = 3, .n = steps };
    v[nv++] = (variant){ .name = "puzzle-form-evp", .kind = 4, .n = steps };
    v[nv++] = (variant){ .name = "openssl-evp-chain", .kind = 1, .n = steps };
    v[nv++] = (variant){ .name = "permutation-bound", .kind = 2,
                         .n = blocks * 16384 / SHA3_256_RATE };

    fprintf(stderr, "sha3 backend selected: %s; %llu steps x %d rounds\n",
            sha3_backend(), (unsigned long long)steps, rounds);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < nv; k++) {
            variant *p = &v[r % 2 ? nv - 1 - k : k];   /* alternate order */
            uint8_t x[32] = { 0 };
            double t = util_now(), dt;
            if (p->kind == 0) { sha3_chain_with(p->impl, x, steps); dt = util_now() - t; }
            else if (p->kind == 1) { evp_chain(x, steps); dt = util_now() - t; }
            else if (p->kind == 5) { for (uint64_t i = 0; i < steps; i++) sha3_256(x, x, 32); dt = util_now() - t; }
            else if (p->kind >= 3) { puzzle_chain(x, steps, p->kind == 4); dt = util_now() - t; }
            else dt = evp_long(blocks);
            if (r == 0 || dt < p->best) p->best = dt;
            p->t[r] = dt;
            if (p->kind != 2) {
                if (r > 0 && memcmp(p->digest, x, 32) != 0) { fprintf(stderr, "%s: digest changed\n", p->name); return 1; }
                memcpy(p->digest, x, 32);
            }
        }
    }
    int ok = 1;
    for (int k = 0; k < nv; k++) {
        variant *p = &v[k];
        char d[65];
        qsort(p->t, (size_t)rounds, sizeof p->t[0], cmp_double);
        p->rate = (double)p->n / p->best;
        p->med_rate = (double)p->n / p->t[rounds / 2];
        if (p->kind == 2) strcpy(d, "");
        else util_hex_encode(d, p->digest, 32);
        if ((p->kind == 0 || p->kind == 1 || p->kind == 5) && memcmp(p->digest, v[0].digest, 32) != 0) ok = 0;
        if (p->kind == 4 && memcmp(p->digest, v[k - 1].digest, 32) != 0) ok = 0;
        printf("{\"variant\":\"%s\",\"n\":%llu,\"seconds\":%.6f,\"rate\":%.0f,\"median_rate\":%.0f,\"digest\":\"%s\"}\n",
               p->name, (unsigned long long)p->n, p->best, p->rate, p->med_rate, d);
    }
    double evp = v[nv - 2].rate, bound = v[nv - 1].rate;
    double mevp = v[nv - 2].med_rate, mbound = v[nv - 1].med_rate;
    double speed = openssl_speed_bound();
    if (speed > 0)
        printf("{\"variant\":\"openssl-speed-bound\",\"interleaved\":false,\"command\":\"%s\",\"rate\":%.0f}\n", SPEED_CMD, speed);
    int nb = nv - 5;                     /* backends come first */
    printf("{\"ratio\":\"fused-chain\",\"backend\":\"%s\",\"vs_unfused_sha3_256\":%.3f}\n",
           v[0].name, v[0].rate / v[nb].rate);
    nb++;
    printf("{\"ratio\":\"puzzle-form\",\"vs_evp\":%.3f,\"median_vs_evp\":%.3f}\n",
           v[nb].rate / v[nb + 1].rate, v[nb].med_rate / v[nb + 1].med_rate);
    for (int k = 0; k < nb; k++) {
        printf("{\"ratio\":\"%s\",\"vs_evp_chain\":%.3f,\"vs_permutation_bound\":%.3f,"
               "\"median_vs_evp_chain\":%.3f,\"median_vs_permutation_bound\":%.3f",
               v[k].name, v[k].rate / evp, v[k].rate / bound, v[k].med_rate / mevp, v[k].med_rate / mbound);
        if (speed > 0) printf(",\"vs_openssl_speed_bound\":%.3f", v[k].rate / speed);
        printf("}\n");
    }
    printf("{\"digests_agree\":%s}\n", ok ? "true" : "false");
    return ok ? 0 : 1;
}
