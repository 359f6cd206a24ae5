/* SPDX-License-Identifier: ISC */
/* src/rx/jit_ssv.h — the vector form of the SuperscalarHash dataset code
 * (jit_superscalar_avx_x86_64.c), used by jit_superscalar_x86_64.c for
 * whole groups of 8 (AVX-512) or 4 (AVX2) items; private to those two files. */
#ifndef RX_JIT_SSV_H
#define RX_JIT_SSV_H
#include <stddef.h>
#include <stdint.h>
#include "rx/superscalar.h"
#include "rx/x86_emit.h"

enum rx_ssv_kind { RX_SSV_SCALAR = 0, RX_SSV_AVX2 = 1, RX_SSV_AVX512 = 2 };
/* code bytes and 64-bit constant words one emission may need at most (AVX2
 * keeps every constant as a 4-word vector, two for a reciprocal) */
#define RX_SSV_CODE_MAX  (8u * RX_SS_MAX_SIZE * 240u + 16384u)
#define RX_SSV_CONSTS    (4u * (16u + 2u * 8u * RX_SS_MAX_SIZE))

/* The vector code this CPU runs: AVX-512 (F + DQ, the OS saving zmm
 * state), else AVX2, else none.  RXLOCK_SUPERSCALAR=scalar|avx2|avx512 (a
 * benchmark / test switch) picks one; a form the CPU lacks is not used
 * (the best available runs instead). */
int rx_ssv_kind(void);
const char *rx_ssv_kind_name(int kind);
/* items per group: 8 (AVX-512), 4 (AVX2), 0 (scalar) */
unsigned rx_ssv_lanes(int kind);

/* Emit, for kind AVX2 or AVX512,
 *   void fn(const uint8_t *cache, uint64_t first, uint64_t groups,
 *           uint8_t *out, const uint64_t *consts)
 * computing items [first, first + lanes*groups) into out (64 bytes each),
 * and fill consts[0 .. *nconsts) with the constants it reads through
 * `consts` (64-byte aligned when it runs).  0, or -1 (a program out of
 * range, the buffer too small, an unknown kind). */
int rx_ssv_emit(xe_buf *b, int kind, const rx_ss_program *progs /* [8] */,
                uint64_t consts[RX_SSV_CONSTS], size_t *nconsts);
#endif
