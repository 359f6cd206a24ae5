/* src/rx/jit_none.c — no-JIT fallback, built only where no backend exists
 * (jit_x86_64.c covers x86-64, jit_aarch64.c AArch64): every entry point
 * says RX_ENOTSUP, so the VM runs the portable interpreter.  Also holds the
 * process-wide JIT phase-profile totals (all arches). */
#if !defined(__x86_64__) && !defined(__aarch64__)
#include "rx/jit.h"

int rx_jit_supported(void) { return 0; }
int rx_jit_new(rx_jit **out, unsigned flags) { (void)flags; if (out) *out = 0; return RX_ENOTSUP; }
int rx_jit_compile(rx_jit *jit, const struct rx_program *prog, const struct rx_vm_state *state) {
    (void)jit; (void)prog; (void)state; return RX_ENOTSUP;
}
int rx_jit_run(rx_jit *jit, struct rx_vm_state *state) { (void)jit; (void)state; return RX_ENOTSUP; }
void rx_jit_free(rx_jit *jit) { (void)jit; }
int rx_jit_profile_get(const rx_jit *jit, struct rx_jit_profile *out) { (void)jit; (void)out; return RX_ENOTSUP; }
void rx_jit_profile_reset(rx_jit *jit) { (void)jit; }
#endif

/* ---- process-wide profile totals (every arch) ---- */
#include "rx/jit.h"
#include <string.h>
static struct rx_jit_profile rx_jit_prof_total;
void rx_jit_profile_account(const struct rx_jit_profile *d) {
    if (!d) return;
    __atomic_fetch_add(&rx_jit_prof_total.compile_ns, d->compile_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.open_ns, d->open_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.seal_ns, d->seal_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.exec_ns, d->exec_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.programs, d->programs, __ATOMIC_RELAXED);
}
void rx_jit_profile_global(struct rx_jit_profile *out) {
    if (!out) return;
    out->compile_ns = __atomic_load_n(&rx_jit_prof_total.compile_ns, __ATOMIC_RELAXED);
    out->open_ns = __atomic_load_n(&rx_jit_prof_total.open_ns, __ATOMIC_RELAXED);
    out->seal_ns = __atomic_load_n(&rx_jit_prof_total.seal_ns, __ATOMIC_RELAXED);
    out->exec_ns = __atomic_load_n(&rx_jit_prof_total.exec_ns, __ATOMIC_RELAXED);
    out->programs = __atomic_load_n(&rx_jit_prof_total.programs, __ATOMIC_RELAXED);
}
void rx_jit_profile_global_reset(void) { memset(&rx_jit_prof_total, 0, sizeof rx_jit_prof_total); }
