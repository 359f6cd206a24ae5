/* SPDX-License-Identifier: ISC */
/* src/rx/jit_ssv.h — the vector form of the SuperscalarHash dataset code
 * (jit_superscalar_avx_x86_64.c), used by jit_superscalar_x86_64.c for
 * whole groups of RX_SSV_LANES items; private to those two files. */
#ifndef RX_JIT_SSV_H
#define RX_JIT_SSV_H
#include <stddef.h>
#include <stdint.h>
#include "rx/superscalar.h"
#include "rx/x86_emit.h"

enum rx_ssv_kind { RX_SSV_SCALAR = 0, RX_SSV_AVX512 = 1 };
#define RX_SSV_LANES     8u
/* code bytes and 64-bit constants one emission may need at most */
#define RX_SSV_CODE_MAX  (8u * RX_SS_MAX_SIZE * 240u + 16384u)
#define RX_SSV_CONSTS    (32u + 8u * RX_SS_MAX_SIZE)

/* The vector code this CPU runs: AVX-512 (F + DQ, the OS saving zmm state)
 * unless RXLOCK_SUPERSCALAR=scalar forces the scalar JIT (a benchmark /
 * test switch; "avx512" asks for AVX-512, which still needs the CPU). */
int rx_ssv_kind(void);
const char *rx_ssv_kind_name(int kind);

/* Emit  void fn(const uint8_t *cache, uint64_t first, uint64_t groups,
 *               uint8_t *out, const uint64_t *consts)
 * computing items [first, first + 8*groups) into out (64 bytes each), and
 * fill consts[0 .. *nconsts) with the constants it reads through `consts`.
 * 0, or -1 (a program out of range, or the buffer too small). */
int rx_ssv_emit(xe_buf *b, const rx_ss_program *progs /* [8] */, uint64_t consts[RX_SSV_CONSTS],
                size_t *nconsts);
#endif
