/* SPDX-License-Identifier: ISC */
/* tests/test_rx_aes.c — AES rounds and the RandomX AES generators, for the
 * software and (where the CPU has it) hardware backends: the official
 * AesGenerator1R vector, FIPS-197 S-box spot checks, and soft == hard on
 * random data for every generator and the v2 F/E mixing. */
#include "test.h"
#include "rx/aes.h"
#include "rx/cpu.h"
#include "rxlock/rx.h"
#include <sodium.h>

static const struct rx_aes_ops *backends[2];
static int nbackends;

struct gen1r_ctx { int rows; };
static int gen1r_row(char **f, int nf, void *vctx) {
    struct gen1r_ctx *ctx = vctx;
    if (nf < 3 || strcmp(f[0], "AesGenerator1R") != 0) return 0;
    uint8_t in[64], want[64];
    long n = test_unhex(f[1], in, sizeof in);
    long m = test_unhex(f[2], want, sizeof want);
    CHECK(n == 64 && m == 32);
    for (int b = 0; b < nbackends; b++) {
        uint8_t state[64] = {0};
        memcpy(state, in, 32);  /* the source decodes 32 bytes into a zeroed state */
        uint8_t out[64];
        backends[b]->fill1r(state, out, sizeof out);
        CHECK_MEM(out, want, 32);
        CHECK_MEM(state, out, 64);  /* the state becomes the output */
    }
    ctx->rows++;
    return 0;
}

static void t_gen1r_vector(void) {
    struct gen1r_ctx ctx = {0};
    CHECK(test_tsv_each("randomx-components.tsv", gen1r_row, &ctx) > 0);
    CHECK(ctx.rows >= 1);
}

/* SubBytes of a zero block under a zero key, no MixColumns contribution
 * check: enc(0, 0) = MixColumns(63..63) = 63..63 (each column 63 63 63 63
 * maps to itself since 2^3^1^1 = 1); dec(0,0) = InvMixColumns(52..52) = 52.. */
static void t_round_basics(void) {
    for (int b = 0; b < nbackends; b++) {
        uint8_t blk[16] = {0}, key[16] = {0}, want[16];
        backends[b]->enc(blk, key);
        memset(want, 0x63, 16);
        CHECK_MEM(blk, want, 16);
        memset(blk, 0, 16);
        backends[b]->dec(blk, key);
        memset(want, 0x52, 16);
        CHECK_MEM(blk, want, 16);
        /* key is XORed last */
        memset(blk, 0, 16); memset(key, 0xff, 16);
        backends[b]->enc(blk, key);
        memset(want, 0x63 ^ 0xff, 16);
        CHECK_MEM(blk, want, 16);
    }
}

static void t_soft_vs_hard(void) {
    const struct rx_aes_ops *s = rx_aes_soft_ops(), *h = rx_aes_hw_ops();
    if (!h) { fprintf(stderr, "note: no hardware AES here; soft only\n"); return; }
    int rounds = test_quick() ? 20 : 200;
    for (int it = 0; it < rounds; it++) {
        uint8_t a[16], k[16], b1[16], b2[16];
        randombytes_buf(a, 16); randombytes_buf(k, 16);
        memcpy(b1, a, 16); memcpy(b2, a, 16);
        s->enc(b1, k); h->enc(b2, k); CHECK_MEM(b1, b2, 16);
        s->dec(b1, k); h->dec(b2, k); CHECK_MEM(b1, b2, 16);

        uint8_t st1[64], st2[64], o1[1024], o2[1024];
        randombytes_buf(st1, 64); memcpy(st2, st1, 64);
        s->fill1r(st1, o1, sizeof o1); h->fill1r(st2, o2, sizeof o2);
        CHECK_MEM(o1, o2, sizeof o1); CHECK_MEM(st1, st2, 64);
        s->fill4r(st1, o1, sizeof o1); h->fill4r(st1, o2, sizeof o2);
        CHECK_MEM(o1, o2, sizeof o1);
        uint8_t x1[64], x2[64];
        s->hash1r(o1, sizeof o1, x1); h->hash1r(o1, sizeof o1, x2);
        CHECK_MEM(x1, x2, 64);
        uint8_t f1[64], f2[64], e[64];
        randombytes_buf(f1, 64); randombytes_buf(e, 64); memcpy(f2, f1, 64);
        s->mix_fe(f1, e); h->mix_fe(f2, e);
        CHECK_MEM(f1, f2, 64);
    }
}

/* fill4r leaves the state alone; fill1r in two calls == one call. */
static void t_generator_shape(void) {
    for (int b = 0; b < nbackends; b++) {
        uint8_t st[64], st0[64], o[256], o2[256];
        for (int i = 0; i < 64; i++) st[i] = (uint8_t)i;
        memcpy(st0, st, 64);
        backends[b]->fill4r(st, o, sizeof o);
        CHECK_MEM(st, st0, 64);
        backends[b]->fill1r(st, o, 256);
        memcpy(st, st0, 64);
        backends[b]->fill1r(st, o2, 128);
        backends[b]->fill1r(st, o2 + 128, 128);
        CHECK_MEM(o, o2, 256);
        /* AesHash1R of nothing: only the two extra rounds, deterministic */
        uint8_t h1[64], h2[64];
        backends[b]->hash1r(o, 0, h1);
        backends[b]->hash1r(o, 0, h2);
        CHECK_MEM(h1, h2, 64);
        CHECK(memcmp(h1, rx_aes_hash1r_state, 64) != 0);
    }
}

static void t_select(void) {
    CHECK(rx_aes_select(RX_FLAG_SOFT_AES) == rx_aes_soft_ops());
    const struct rx_aes_ops *h = rx_aes_select(RX_FLAG_HARD_AES);
    CHECK(h == rx_aes_hw_ops());
    if (rx_cpu_has_hw_aes()) CHECK(h != NULL && h->hardware);
    const struct rx_aes_ops *d = rx_aes_select(0);
    CHECK(d != NULL);
    CHECK(d == (rx_cpu_has_hw_aes() ? rx_aes_hw_ops() : rx_aes_soft_ops()));
}

int main(void) {
    if (sodium_init() < 0) return 1;
    backends[nbackends++] = rx_aes_soft_ops();
    if (rx_aes_hw_ops()) backends[nbackends++] = rx_aes_hw_ops();
    fprintf(stderr, "AES backends: soft%s\n", nbackends > 1 ? " + hardware" : " only");
    RUN(t_gen1r_vector);
    RUN(t_round_basics);
    RUN(t_soft_vs_hard);
    RUN(t_generator_shape);
    RUN(t_select);
    return test_summary();
}
