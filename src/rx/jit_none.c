/* SPDX-License-Identifier: ISC */
/* src/rx/jit_none.c — no-JIT fallback, built only where no backend exists
 * (jit_x86_64.c covers x86-64, jit_aarch64.c AArch64): every entry point
 * says RX_ENOTSUP, so the VM runs the portable interpreter.  The
 * process-wide profile totals live in jit_common.c (all arches). */
#if !defined(__x86_64__) && !defined(__aarch64__)
#include "rx/jit.h"
#include <string.h>

int rx_jit_supported(void) { return 0; }
int rx_jit_new(rx_jit **out, unsigned flags) { (void)flags; if (out) *out = 0; return RX_ENOTSUP; }
int rx_jit_compile(rx_jit *jit, const struct rx_program *prog, const struct rx_vm_state *state) {
    (void)jit; (void)prog; (void)state; return RX_ENOTSUP;
}
int rx_jit_run(rx_jit *jit, struct rx_vm_state *state) { (void)jit; (void)state; return RX_ENOTSUP; }
void rx_jit_free(rx_jit *jit) { (void)jit; }
int rx_jit_profile_get(const rx_jit *jit, struct rx_jit_profile *out) {
    (void)jit;
    if (out) memset(out, 0, sizeof *out);
    return RX_ENOTSUP;
}
void rx_jit_profile_reset(rx_jit *jit) { (void)jit; }
#else
typedef int rx_jit_none_unused_; /* ISO C: a translation unit is not empty */
#endif
