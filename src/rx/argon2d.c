/* SPDX-License-Identifier: ISC */
/* src/rx/argon2d.c — Argon2d memory fill for the RandomX Cache (RFC 9106,
 * sections 3.2-3.5, one lane, version 0x13).  H0 and the variable-length
 * hash H' use libsodium's BLAKE2b; the BlaMka compression G is ours, in a
 * portable version and SSSE3 / AVX2 versions (x86-64, chosen at run time
 * with util/cpufeat). */
#include "rx/argon2d.h"
#include "rx/internal.h"
#include "util/cpufeat.h"
#include "util/le.h"
#include <sodium.h>
#include <string.h>

#define WORDS 128   /* 64-bit words per 1 KiB block */

typedef void (*fill_fn)(uint64_t *next, const uint64_t *prev, const uint64_t *ref, int xor_next);

/* ---- portable BlaMka --------------------------------------------------- */
static inline uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }
static inline uint64_t blamka(uint64_t x, uint64_t y) {
    return x + y + 2u * (uint64_t)(uint32_t)x * (uint64_t)(uint32_t)y;
}
#define GB(a, b, c, d) do {                          \
        a = blamka(a, b); d = rotr64(d ^ a, 32);     \
        c = blamka(c, d); b = rotr64(b ^ c, 24);     \
        a = blamka(a, b); d = rotr64(d ^ a, 16);     \
        c = blamka(c, d); b = rotr64(b ^ c, 63);     \
    } while (0)

/* Permutation P on 16 words (RFC 9106 3.6): columns, then diagonals. */
#define PERM(v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15) do { \
        GB(v0, v4, v8, v12); GB(v1, v5, v9, v13);                                       \
        GB(v2, v6, v10, v14); GB(v3, v7, v11, v15);                                     \
        GB(v0, v5, v10, v15); GB(v1, v6, v11, v12);                                     \
        GB(v2, v7, v8, v13); GB(v3, v4, v9, v14);                                       \
    } while (0)

static void fill_portable(uint64_t *next, const uint64_t *prev, const uint64_t *ref, int xor_next) {
    uint64_t r[WORDS], t[WORDS];
    for (unsigned k = 0; k < WORDS; k++) { r[k] = prev[k] ^ ref[k]; t[k] = r[k]; }
    if (xor_next) for (unsigned k = 0; k < WORDS; k++) t[k] ^= next[k];
    for (unsigned i = 0; i < 8; i++) {                /* rows: 16 consecutive words */
        uint64_t *v = r + 16 * i;
        PERM(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7],
             v[8], v[9], v[10], v[11], v[12], v[13], v[14], v[15]);
    }
    for (unsigned i = 0; i < 8; i++) {                /* columns: word pairs 2i + 16k */
        uint64_t *v = r + 2 * i;
        PERM(v[0], v[1], v[16], v[17], v[32], v[33], v[48], v[49],
             v[64], v[65], v[80], v[81], v[96], v[97], v[112], v[113]);
    }
    for (unsigned k = 0; k < WORDS; k++) next[k] = t[k] ^ r[k];
}

/* ---- x86-64 SIMD BlaMka ------------------------------------------------ */
#if defined(__x86_64__)
#include <immintrin.h>

#define SSSE3_FN __attribute__((target("ssse3")))
#define AVX2_FN  __attribute__((target("avx2")))

static SSSE3_FN inline __m128i bm128(__m128i x, __m128i y) {
    __m128i p = _mm_mul_epu32(x, y);
    return _mm_add_epi64(_mm_add_epi64(x, y), _mm_add_epi64(p, p));
}
static SSSE3_FN inline __m128i ror128_63(__m128i x) {
    return _mm_xor_si128(_mm_srli_epi64(x, 63), _mm_add_epi64(x, x));
}
#define G128(A, B, C, D, R16, R24) do {                                               \
        A = bm128(A, B); D = _mm_shuffle_epi32(_mm_xor_si128(D, A), _MM_SHUFFLE(2, 3, 0, 1)); \
        C = bm128(C, D); B = _mm_shuffle_epi8(_mm_xor_si128(B, C), R24);                \
        A = bm128(A, B); D = _mm_shuffle_epi8(_mm_xor_si128(D, A), R16);                \
        C = bm128(C, D); B = ror128_63(_mm_xor_si128(B, C));                            \
    } while (0)

/* P over 8 registers (A0,A1,B0,B1,C0,C1,D0,D1) = words v0..v15 in pairs. */
static SSSE3_FN inline void perm128(__m128i *a0, __m128i *a1, __m128i *b0, __m128i *b1,
                                    __m128i *c0, __m128i *c1, __m128i *d0, __m128i *d1) {
    const __m128i r16 = _mm_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
    const __m128i r24 = _mm_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);
    __m128i A0 = *a0, A1 = *a1, B0 = *b0, B1 = *b1, C0 = *c0, C1 = *c1, D0 = *d0, D1 = *d1;
    G128(A0, B0, C0, D0, r16, r24);
    G128(A1, B1, C1, D1, r16, r24);
    /* diagonalise: B -> (v5,v6),(v7,v4); C -> swap; D -> (v15,v12),(v13,v14) */
    __m128i t0 = _mm_alignr_epi8(B1, B0, 8), t1 = _mm_alignr_epi8(B0, B1, 8);
    B0 = t0; B1 = t1;
    t0 = C0; C0 = C1; C1 = t0;
    t0 = _mm_alignr_epi8(D0, D1, 8); t1 = _mm_alignr_epi8(D1, D0, 8);
    D0 = t0; D1 = t1;
    G128(A0, B0, C0, D0, r16, r24);
    G128(A1, B1, C1, D1, r16, r24);
    /* undo: B0=(v5,v6),B1=(v7,v4) -> (v4,v5),(v6,v7) */
    t0 = _mm_alignr_epi8(B0, B1, 8); t1 = _mm_alignr_epi8(B1, B0, 8);
    B0 = t0; B1 = t1;
    t0 = C0; C0 = C1; C1 = t0;
    /* D0=(v15,v12),D1=(v13,v14) -> (v12,v13),(v14,v15) */
    t0 = _mm_alignr_epi8(D1, D0, 8); t1 = _mm_alignr_epi8(D0, D1, 8);
    D0 = t0; D1 = t1;
    *a0 = A0; *a1 = A1; *b0 = B0; *b1 = B1; *c0 = C0; *c1 = C1; *d0 = D0; *d1 = D1;
}

static SSSE3_FN void fill_ssse3(uint64_t *next, const uint64_t *prev, const uint64_t *ref, int xor_next) {
    __m128i r[64], t[64];
    for (unsigned k = 0; k < 64; k++) {
        r[k] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(prev + 2 * k)),
                             _mm_loadu_si128((const __m128i *)(const void *)(ref + 2 * k)));
        t[k] = xor_next ? _mm_xor_si128(r[k], _mm_loadu_si128((const __m128i *)(void *)(next + 2 * k))) : r[k];
    }
    for (unsigned i = 0; i < 8; i++)
        perm128(&r[8 * i], &r[8 * i + 1], &r[8 * i + 2], &r[8 * i + 3],
                &r[8 * i + 4], &r[8 * i + 5], &r[8 * i + 6], &r[8 * i + 7]);
    for (unsigned i = 0; i < 8; i++)
        perm128(&r[i], &r[i + 8], &r[i + 16], &r[i + 24],
                &r[i + 32], &r[i + 40], &r[i + 48], &r[i + 56]);
    for (unsigned k = 0; k < 64; k++)
        _mm_storeu_si128((__m128i *)(void *)(next + 2 * k), _mm_xor_si128(t[k], r[k]));
}

static AVX2_FN inline __m256i bm256(__m256i x, __m256i y) {
    __m256i p = _mm256_mul_epu32(x, y);
    return _mm256_add_epi64(_mm256_add_epi64(x, y), _mm256_add_epi64(p, p));
}
#define G256(A, B, C, D, R16, R24) do {                                                     \
        A = bm256(A, B); D = _mm256_shuffle_epi32(_mm256_xor_si256(D, A), _MM_SHUFFLE(2, 3, 0, 1)); \
        C = bm256(C, D); B = _mm256_shuffle_epi8(_mm256_xor_si256(B, C), R24);                \
        A = bm256(A, B); D = _mm256_shuffle_epi8(_mm256_xor_si256(D, A), R16);                \
        C = bm256(C, D); B = _mm256_xor_si256(B, C);                                          \
        B = _mm256_xor_si256(_mm256_srli_epi64(B, 63), _mm256_add_epi64(B, B));               \
    } while (0)

/* Two independent permutations (A,B,C,D) and (E,F,G,H) interleaved; each
 * register holds 4 words: A=(v0..v3), B=(v4..v7), C=(v8..v11), D=(v12..v15). */
static AVX2_FN inline void perm256x2(__m256i *A, __m256i *B, __m256i *C, __m256i *D,
                                     __m256i *E, __m256i *F, __m256i *G, __m256i *H) {
    const __m256i r16 = _mm256_setr_epi8(2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9,
                                         2, 3, 4, 5, 6, 7, 0, 1, 10, 11, 12, 13, 14, 15, 8, 9);
    const __m256i r24 = _mm256_setr_epi8(3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10,
                                         3, 4, 5, 6, 7, 0, 1, 2, 11, 12, 13, 14, 15, 8, 9, 10);
    __m256i a = *A, b = *B, c = *C, d = *D, e = *E, f = *F, g = *G, h = *H;
    G256(a, b, c, d, r16, r24);
    G256(e, f, g, h, r16, r24);
    b = _mm256_permute4x64_epi64(b, _MM_SHUFFLE(0, 3, 2, 1));
    c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(1, 0, 3, 2));
    d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(2, 1, 0, 3));
    f = _mm256_permute4x64_epi64(f, _MM_SHUFFLE(0, 3, 2, 1));
    g = _mm256_permute4x64_epi64(g, _MM_SHUFFLE(1, 0, 3, 2));
    h = _mm256_permute4x64_epi64(h, _MM_SHUFFLE(2, 1, 0, 3));
    G256(a, b, c, d, r16, r24);
    G256(e, f, g, h, r16, r24);
    b = _mm256_permute4x64_epi64(b, _MM_SHUFFLE(2, 1, 0, 3));
    c = _mm256_permute4x64_epi64(c, _MM_SHUFFLE(1, 0, 3, 2));
    d = _mm256_permute4x64_epi64(d, _MM_SHUFFLE(0, 3, 2, 1));
    f = _mm256_permute4x64_epi64(f, _MM_SHUFFLE(2, 1, 0, 3));
    g = _mm256_permute4x64_epi64(g, _MM_SHUFFLE(1, 0, 3, 2));
    h = _mm256_permute4x64_epi64(h, _MM_SHUFFLE(0, 3, 2, 1));
    *A = a; *B = b; *C = c; *D = d; *E = e; *F = f; *G = g; *H = h;
}

static AVX2_FN void fill_avx2(uint64_t *next, const uint64_t *prev, const uint64_t *ref, int xor_next) {
    __m256i r[32], t[32];
    for (unsigned k = 0; k < 32; k++) {
        r[k] = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(prev + 4 * k)),
                                _mm256_loadu_si256((const __m256i *)(const void *)(ref + 4 * k)));
        t[k] = xor_next ? _mm256_xor_si256(r[k], _mm256_loadu_si256((const __m256i *)(void *)(next + 4 * k))) : r[k];
    }
    /* rows: row i = words 16i..16i+15 = r[4i..4i+3] */
    for (unsigned i = 0; i < 8; i += 2)
        perm256x2(&r[4 * i], &r[4 * i + 1], &r[4 * i + 2], &r[4 * i + 3],
                  &r[4 * i + 4], &r[4 * i + 5], &r[4 * i + 6], &r[4 * i + 7]);
    /* columns: column i = 128-bit pairs i, i+8, ..., i+56 (pair p = words 2p,2p+1).
     * Pack (pair i, pair i+8) etc. into 256-bit registers, permute, unpack. */
    __m128i *q = (__m128i *)(void *)r;
    for (unsigned i = 0; i < 8; i += 2) {
        __m256i c[8];
        for (unsigned k = 0; k < 4; k++) {
            c[k]     = _mm256_setr_m128i(q[i + 16 * k], q[i + 16 * k + 8]);
            c[4 + k] = _mm256_setr_m128i(q[i + 1 + 16 * k], q[i + 1 + 16 * k + 8]);
        }
        perm256x2(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7]);
        for (unsigned k = 0; k < 4; k++) {
            q[i + 16 * k]         = _mm256_castsi256_si128(c[k]);
            q[i + 16 * k + 8]     = _mm256_extracti128_si256(c[k], 1);
            q[i + 1 + 16 * k]     = _mm256_castsi256_si128(c[4 + k]);
            q[i + 1 + 16 * k + 8] = _mm256_extracti128_si256(c[4 + k], 1);
        }
    }
    for (unsigned k = 0; k < 32; k++)
        _mm256_storeu_si256((__m256i *)(void *)(next + 4 * k), _mm256_xor_si256(t[k], r[k]));
}
#endif /* __x86_64__ */

int rx_argon2d_impl_supported(int impl) {
    switch (impl) {
    case RX_ARGON2_AUTO: case RX_ARGON2_PORTABLE: return 1;
#if defined(__x86_64__)
    case RX_ARGON2_SSSE3: return util_cpufeat_get()->ssse3;
    case RX_ARGON2_AVX2:  return util_cpufeat_get()->avx2;
#endif
    default: return 0;
    }
}

static int resolve(int impl) {
    if (impl != RX_ARGON2_AUTO) return impl;
    if (rx_argon2d_impl_supported(RX_ARGON2_AVX2)) return RX_ARGON2_AVX2;
    if (rx_argon2d_impl_supported(RX_ARGON2_SSSE3)) return RX_ARGON2_SSSE3;
    return RX_ARGON2_PORTABLE;
}

const char *rx_argon2d_impl_name(int impl) {
    switch (resolve(impl)) {
    case RX_ARGON2_PORTABLE: return "portable";
    case RX_ARGON2_SSSE3: return "ssse3";
    case RX_ARGON2_AVX2: return "avx2";
    default: return "unknown";
    }
}

/* ---- H0, H', block initialisation --------------------------------------- */

/* H'(1024, H0 || LE32(i) || LE32(lane=0)) into a block (RFC 9106 3.3). */
static void first_block(uint64_t *blk, const uint8_t h0[64], uint32_t i) {
    uint8_t in[4 + 64 + 8], v[64], out[RX_ARGON2_BLOCK_SIZE];
    util_store32le(in, RX_ARGON2_BLOCK_SIZE);
    memcpy(in + 4, h0, 64);
    util_store32le(in + 68, i);
    util_store32le(in + 72, 0);
    (void)crypto_generichash(v, 64, in, sizeof in, NULL, 0);
    /* r = ceil(1024/32) - 2 = 30 blocks of 32 bytes, then a final 64 bytes */
    size_t pos = 0;
    for (unsigned k = 0; k < 30; k++) {
        memcpy(out + pos, v, 32);
        pos += 32;
        uint8_t nv[64];
        (void)crypto_generichash(nv, 64, v, 64, NULL, 0);
        memcpy(v, nv, 64);
        sodium_memzero(nv, sizeof nv);
    }
    memcpy(out + pos, v, 64);   /* V_31 = H^64(V_30): 1024 - 30*32 = 64 bytes */
    for (unsigned k = 0; k < WORDS; k++) blk[k] = util_load64le(out + 8 * k);
    sodium_memzero(in, sizeof in);
    sodium_memzero(v, sizeof v);
    sodium_memzero(out, sizeof out);
}

int rx_argon2d_fill(void *memory, uint32_t blocks, uint32_t passes,
                    const void *pwd, size_t pwd_len,
                    const void *salt, size_t salt_len, int impl) {
    if (!memory || blocks < 8 || blocks % 4 || passes == 0) return RX_EINVAL;
    if ((!pwd && pwd_len) || (!salt && salt_len)) return RX_EINVAL;
    if (pwd_len > UINT32_MAX || salt_len > UINT32_MAX) return RX_EINVAL;
    impl = resolve(impl);
    if (!rx_argon2d_impl_supported(impl)) return RX_ENOTSUP;
    fill_fn fill = fill_portable;
#if defined(__x86_64__)
    if (impl == RX_ARGON2_SSSE3) fill = fill_ssse3;
    else if (impl == RX_ARGON2_AVX2) fill = fill_avx2;
#endif

    /* H0 = H^64(p, T, m, t, v, y, |P|, P, |S|, S, |K|, K, |X|, X) */
    crypto_generichash_state st;
    uint8_t h0[64], w[4];
    if (crypto_generichash_init(&st, NULL, 0, 64) != 0) return RX_EINTERNAL;
    const uint32_t head[6] = { 1u, 0u, blocks, passes, 0x13u, 0u };
    for (unsigned k = 0; k < 6; k++) { util_store32le(w, head[k]); crypto_generichash_update(&st, w, 4); }
    util_store32le(w, (uint32_t)pwd_len); crypto_generichash_update(&st, w, 4);
    if (pwd_len) crypto_generichash_update(&st, (const uint8_t *)pwd, pwd_len);
    util_store32le(w, (uint32_t)salt_len); crypto_generichash_update(&st, w, 4);
    if (salt_len) crypto_generichash_update(&st, (const uint8_t *)salt, salt_len);
    util_store32le(w, 0); crypto_generichash_update(&st, w, 4);   /* secret */
    util_store32le(w, 0); crypto_generichash_update(&st, w, 4);   /* associated data */
    crypto_generichash_final(&st, h0, 64);
    sodium_memzero(&st, sizeof st);

    uint64_t *mem = (uint64_t *)memory;
    first_block(mem, h0, 0);
    first_block(mem + WORDS, h0, 1);
    sodium_memzero(h0, sizeof h0);

    const uint32_t seg = blocks / 4;
    for (uint32_t pass = 0; pass < passes; pass++) {
        for (uint32_t slice = 0; slice < 4; slice++) {
            uint32_t idx = (pass == 0 && slice == 0) ? 2 : 0;
            for (; idx < seg; idx++) {
                uint32_t cur = slice * seg + idx;
                uint32_t prev = cur ? cur - 1 : blocks - 1;
                uint64_t j1 = mem[(size_t)prev * WORDS] & 0xffffffffu;
                uint64_t area;
                if (pass == 0) area = (uint64_t)slice * seg + idx - 1;
                else area = (uint64_t)blocks - seg + idx - 1;
                uint64_t x = (j1 * j1) >> 32;
                uint64_t y = (area * x) >> 32;
                uint64_t rel = area - 1 - y;
                uint64_t start = (pass == 0 || slice == 3) ? 0 : (uint64_t)(slice + 1) * seg;
                uint32_t ref = (uint32_t)((start + rel) % blocks);
                fill(mem + (size_t)cur * WORDS, mem + (size_t)prev * WORDS,
                     mem + (size_t)ref * WORDS, pass > 0);
            }
        }
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (size_t k = 0; k < (size_t)blocks * WORDS; k++) mem[k] = __builtin_bswap64(mem[k]);
#endif
    return RX_OK;
}
