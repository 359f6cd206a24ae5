/* SPDX-License-Identifier: ISC */
/* bench/bench_mlkem.c — ML-KEM-768 (src/pq) speed on this machine: keygen,
 * encaps and decaps, microseconds per operation, median and min–max of R
 * rounds in one process (the three operations interleaved round by round).
 * Inputs come from a SHAKE128 stream, the same in every round; each round's
 * outputs are hashed and must give the same digest, or the bench fails.
 *   bench_mlkem [N per round, default 2000] [R rounds, default 7] */
#include "util/util.h"
#include "rxlock/pq.h"
#include "rxlock/sha3.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 2000, rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (n < 1 || rounds < 1 || rounds > 64) { fprintf(stderr, "usage: bench_mlkem [N] [R]\n"); return 2; }
    uint8_t (*ek)[PQ_MLKEM768_EK_BYTES] = malloc((size_t)n * PQ_MLKEM768_EK_BYTES);
    uint8_t (*dk)[PQ_MLKEM768_DK_BYTES] = malloc((size_t)n * PQ_MLKEM768_DK_BYTES);
    uint8_t (*ct)[PQ_MLKEM768_CT_BYTES] = malloc((size_t)n * PQ_MLKEM768_CT_BYTES);
    uint8_t (*in)[96] = malloc((size_t)n * 96), ss[32], first[32], digest[32];
    double t[3][64];
    if (!ek || !dk || !ct || !in) return 1;
    sha3_shake128(&in[0][0], (size_t)n * 96, "bench_mlkem", 11);
    for (int r = 0; r < rounds; r++) {
        sha3_xof acc;
        sha3_shake128_init(&acc);
        double t0 = util_now();
        for (int i = 0; i < n; i++) pq_mlkem768_keygen(ek[i], dk[i], in[i]);
        double t1 = util_now();
        for (int i = 0; i < n; i++) {
            if (pq_mlkem768_encaps_derand(ct[i], ss, ek[i], in[i] + 64) != 0) return 1;
            sha3_xof_absorb(&acc, ss, 32);
        }
        double t2 = util_now();
        for (int i = 0; i < n; i++) {
            if (pq_mlkem768_decaps(ss, ct[i], dk[i]) != 0) return 1;
            sha3_xof_absorb(&acc, ss, 32);
        }
        double t3 = util_now();
        for (int i = 0; i < n; i++) sha3_xof_absorb(&acc, ct[i], PQ_MLKEM768_CT_BYTES);
        sha3_xof_squeeze(&acc, digest, 32);
        if (r == 0) memcpy(first, digest, 32);
        else if (memcmp(first, digest, 32) != 0) { fprintf(stderr, "digest differs in round %d\n", r); return 1; }
        t[0][r] = (t1 - t0) / n * 1e6; t[1][r] = (t2 - t1) / n * 1e6; t[2][r] = (t3 - t2) / n * 1e6;
    }
    static const char *const names[3] = { "keygen", "encaps", "decaps" };
    printf("ML-KEM-768 (sha3 backend %s), %d ops x %d rounds, digest ", sha3_backend(), n, rounds);
    for (int i = 0; i < 8; i++) printf("%02x", first[i]);
    printf("\n");
    for (int k = 0; k < 3; k++) {
        qsort(t[k], (size_t)rounds, sizeof t[k][0], cmp);
        printf("  %-7s %8.1f us/op (min %.1f, max %.1f)\n", names[k], t[k][rounds / 2], t[k][0], t[k][rounds - 1]);
    }
    free(ek); free(dk); free(ct); free(in);
    return 0;
}
