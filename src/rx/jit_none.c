/* SPDX-License-Identifier: ISC */
/* src/rx/jit_none.c — no-JIT fallback, built only where no backend exists
 * (jit_x86_64.c covers x86-64, jit_aarch64.c AArch64): no backend table,
 * so every lifecycle entry (jit_lifecycle.c) says RX_ENOTSUP and the VM
 * runs the portable interpreter. */
#if !defined(__x86_64__) && !defined(__aarch64__)
#include "rx/jit.h"

const struct rx_jit_arch *rx_jit_arch(void) { return 0; }
#else
typedef int rx_jit_none_unused_; /* ISO C: a translation unit is not empty */
#endif
