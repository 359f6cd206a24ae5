/* SPDX-License-Identifier: ISC */
/* src/pq/mlkem_poly.c — the ring R_q = Z_q[X]/(X^256+1), q = 3329, of
 * ML-KEM (FIPS 203 §4): field arithmetic by Barrett reduction, the NTT and
 * its inverse (Algorithms 9, 10), MultiplyNTTs (11, 12), SampleNTT (7),
 * SamplePolyCBD_2 (8), ByteEncode/ByteDecode (5, 6) and Compress /
 * Decompress.  Constant time in the coefficients (mlkem_internal.h). */
#include "pq/mlkem_internal.h"
#include "rxlock/sha3.h"
#include <sodium.h>
#include <string.h>

/* ζ^BitRev7(i) mod q, ζ = 17 (the NTT's twiddle factors). */
static const uint16_t zetas[128] = {
       1, 1729, 2580, 3289, 2642,  630, 1897,  848, 1062, 1919,  193,  797,
    2786, 3260,  569, 1746,  296, 2447, 1339, 1476, 3046,   56, 2240, 1333,
    1426, 2094,  535, 2882, 2393, 2879, 1974,  821,  289,  331, 3253, 1756,
    1197, 2304, 2277, 2055,  650, 1977, 2513,  632, 2865,   33, 1320, 1915,
    2319, 1435,  807,  452, 1438, 2868, 1534, 2402, 2647, 2617, 1481,  648,
    2474, 3110, 1227,  910,   17, 2761,  583, 2649, 1637,  723, 2288, 1100,
    1409, 2662, 3281,  233,  756, 2156, 3015, 3050, 1703, 1651, 2789, 1789,
    1847,  952, 1461, 2687,  939, 2308, 2437, 2388,  733, 2337,  268,  641,
    1584, 2298, 2037, 3220,  375, 2549, 2090, 1645, 1063,  319, 2773,  757,
    2099,  561, 2466, 2594, 2804, 1092,  403, 1026, 1143, 2150, 2775,  886,
    1722, 1212, 1874, 1029, 2110, 2935,  885, 2154,
};
/* ζ^(2·BitRev7(i)+1) mod q (the base-case multiplication's γ). */
static const uint16_t gammas[128] = {
      17, 3312, 2761,  568,  583, 2746, 2649,  680, 1637, 1692,  723, 2606,
    2288, 1041, 1100, 2229, 1409, 1920, 2662,  667, 3281,   48,  233, 3096,
     756, 2573, 2156, 1173, 3015,  314, 3050,  279, 1703, 1626, 1651, 1678,
    2789,  540, 1789, 1540, 1847, 1482,  952, 2377, 1461, 1868, 2687,  642,
     939, 2390, 2308, 1021, 2437,  892, 2388,  941,  733, 2596, 2337,  992,
     268, 3061,  641, 2688, 1584, 1745, 2298, 1031, 2037, 1292, 3220,  109,
     375, 2954, 2549,  780, 2090, 1239, 1645, 1684, 1063, 2266,  319, 3010,
    2773,  556,  757, 2572, 2099, 1230,  561, 2768, 2466,  863, 2594,  735,
    2804,  525, 1092, 2237,  403, 2926, 1026, 2303, 1143, 2186, 2150, 1179,
    2775,  554,  886, 2443, 1722, 1607, 1212, 2117, 1874, 1455, 1029, 2300,
    2110, 1219, 2935,  394,  885, 2444, 2154, 1175,
};

/* a mod q for a < 2q: subtract q, add it back under a mask. */
static inline uint16_t csubq(uint32_t a) {
    a -= MLKEM_Q;
    a += mlkem_ct_barrier((uint32_t)0 - (a >> 31)) & MLKEM_Q;
    return (uint16_t)a;
}
/* a mod q for any 32-bit a: Barrett with m = floor(2^32 / q), so the
 * quotient estimate is low by at most 1 and one csubq finishes. */
static inline uint16_t reduce(uint32_t a) {
    uint32_t t = (uint32_t)(((uint64_t)a * 1290167u) >> 32);
    return csubq(a - t * MLKEM_Q);
}
static inline uint16_t fmul(uint32_t a, uint32_t b) { return reduce(a * b); }

void mlkem_ntt(mlkem_poly *f) {
    unsigned i = 1;
    for (unsigned len = 128; len >= 2; len >>= 1)
        for (unsigned start = 0; start < 256; start += 2 * len) {
            uint32_t z = zetas[i++];
            for (unsigned j = start; j < start + len; j++) {
                uint32_t t = fmul(z, f->c[j + len]);
                f->c[j + len] = csubq(f->c[j] + MLKEM_Q - t);
                f->c[j] = csubq(f->c[j] + t);
            }
        }
}

void mlkem_invntt(mlkem_poly *f) {
    unsigned i = 127;
    for (unsigned len = 2; len <= 128; len <<= 1)
        for (unsigned start = 0; start < 256; start += 2 * len) {
            uint32_t z = zetas[i--];
            for (unsigned j = start; j < start + len; j++) {
                uint32_t t = f->c[j];
                f->c[j] = csubq(t + f->c[j + len]);
                f->c[j + len] = fmul(z, f->c[j + len] + MLKEM_Q - t);
            }
        }
    for (unsigned j = 0; j < 256; j++) f->c[j] = fmul(f->c[j], 3303);   /* 128^-1 mod q */
}

void mlkem_basemul_acc(mlkem_poly *acc, const mlkem_poly *f, const mlkem_poly *g) {
    for (unsigned i = 0; i < 128; i++) {
        uint32_t a0 = f->c[2 * i], a1 = f->c[2 * i + 1], b0 = g->c[2 * i], b1 = g->c[2 * i + 1];
        uint32_t c0 = reduce(a0 * b0 + (uint32_t)fmul(fmul(a1, b1), gammas[i]));
        uint32_t c1 = reduce(a0 * b1 + a1 * b0);
        acc->c[2 * i] = csubq(acc->c[2 * i] + c0);
        acc->c[2 * i + 1] = csubq(acc->c[2 * i + 1] + c1);
    }
}

void mlkem_poly_add(mlkem_poly *r, const mlkem_poly *a) {
    for (unsigned j = 0; j < 256; j++) r->c[j] = csubq((uint32_t)r->c[j] + a->c[j]);
}

void mlkem_poly_sub(mlkem_poly *r, const mlkem_poly *a) {
    for (unsigned j = 0; j < 256; j++) r->c[j] = csubq((uint32_t)a->c[j] + MLKEM_Q - r->c[j]);
}

/* Rejection sampling from SHAKE128(ρ ‖ x ‖ y), 3 bytes -> two 12-bit
 * candidates; ρ is public, so the data-dependent loop is fine.  The XOF is
 * read a block (168 bytes = 56 triples) at a time. */
void mlkem_sample_ntt(mlkem_poly *f, const uint8_t rho[32], uint8_t x, uint8_t y) {
    uint8_t in[34], buf[168];
    sha3_xof c;
    memcpy(in, rho, 32);
    in[32] = x;
    in[33] = y;
    sha3_shake128_init(&c);
    sha3_xof_absorb(&c, in, sizeof in);
    unsigned j = 0;
    while (j < 256) {
        sha3_xof_squeeze(&c, buf, sizeof buf);
        for (unsigned p = 0; p < sizeof buf && j < 256; p += 3) {
            uint16_t d1 = (uint16_t)(buf[p] | (buf[p + 1] & 0x0f) << 8);
            uint16_t d2 = (uint16_t)(buf[p + 1] >> 4 | buf[p + 2] << 4);
            if (d1 < MLKEM_Q) f->c[j++] = d1;
            if (d2 < MLKEM_Q && j < 256) f->c[j++] = d2;
        }
    }
    sha3_xof_wipe(&c);
}

void mlkem_sample_cbd2(mlkem_poly *f, const uint8_t s[32], uint8_t b) {
    uint8_t in[33], buf[128];
    memcpy(in, s, 32);
    in[32] = b;
    sha3_shake256(buf, sizeof buf, in, sizeof in);
    for (unsigned i = 0; i < 128; i++) {
        uint32_t v = buf[i];
        for (unsigned h = 0; h < 2; h++, v >>= 4) {
            uint32_t xs = (v & 1) + (v >> 1 & 1), ys = (v >> 2 & 1) + (v >> 3 & 1);
            f->c[2 * i + h] = csubq(xs + MLKEM_Q - ys);
        }
    }
    sodium_memzero(in, sizeof in);
    sodium_memzero(buf, sizeof buf);
}

void mlkem_encode(uint8_t *out, const mlkem_poly *f, unsigned d) {
    uint32_t acc = 0;
    unsigned bits = 0, o = 0;
    for (unsigned j = 0; j < 256; j++) {
        acc |= (uint32_t)f->c[j] << bits;
        bits += d;
        while (bits >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
}

void mlkem_decode(mlkem_poly *f, const uint8_t *in, unsigned d) {
    uint32_t acc = 0, mask = (1u << d) - 1;
    unsigned bits = 0, i = 0;
    for (unsigned j = 0; j < 256; j++) {
        while (bits < d) {
            acc |= (uint32_t)in[i++] << bits;
            bits += 8;
        }
        uint32_t v = acc & mask;
        acc >>= d;
        bits -= d;
        f->c[j] = d == 12 ? csubq(v) : (uint16_t)v;
    }
}

int mlkem_decode12_canonical(const uint8_t in[MLKEM_POLYBYTES]) {
    for (unsigned i = 0; i < MLKEM_POLYBYTES; i += 3) {
        unsigned a = in[i] | (in[i + 1] & 0x0fu) << 8, b = in[i + 1] >> 4 | (unsigned)in[i + 2] << 4;
        if (a >= MLKEM_Q || b >= MLKEM_Q) return 0;
    }
    return 1;
}

/* floor(t / q) for t < 2^23: the Barrett estimate, then +1 when the
 * remainder is still >= q (a mask, not a branch). */
static inline uint32_t divq(uint32_t t) {
    uint32_t qe = (uint32_t)(((uint64_t)t * 1290167u) >> 32);
    uint32_t r = t - qe * MLKEM_Q;
    return qe + (mlkem_ct_barrier(MLKEM_Q - 1 - r) >> 31);
}

/* Compress_d(x) = round(2^d·x / q) mod 2^d = floor((2^d·x + (q-1)/2) / q)
 * mod 2^d (q is odd, so no tie). */
void mlkem_compress(mlkem_poly *f, unsigned d) {
    for (unsigned j = 0; j < 256; j++)
        f->c[j] = (uint16_t)(divq(((uint32_t)f->c[j] << d) + (MLKEM_Q - 1) / 2) & ((1u << d) - 1));
}

/* Decompress_d(y) = round(q·y / 2^d) = floor((q·y + 2^(d-1)) / 2^d). */
void mlkem_decompress(mlkem_poly *f, unsigned d) {
    for (unsigned j = 0; j < 256; j++)
        f->c[j] = (uint16_t)(((uint32_t)f->c[j] * MLKEM_Q + (1u << (d - 1))) >> d);
}
