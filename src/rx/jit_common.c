/* SPDX-License-Identifier: ISC */
/* src/rx/jit_common.c — what the JIT backends share (declared at the end of
 * jit.h): the mode (AES choice) and allocation of a JIT, the constant
 * masks, the argument checks of rx_jit_compile / rx_jit_run,
 * the register-file copies into and out of a run, and the phase profile
 * (per-JIT copy and booking, process-wide totals).  Built on every arch;
 * holds nothing architecture-specific. */
#include "rx/jit.h"
#include "rx/aes.h"
#include "rx/program.h"
#include "rx/vm_state.h"
#include <stdlib.h>
#include <string.h>

int rx_jit_choose_aes(unsigned flags, int *soft) { return rx_aes_choose(flags, soft); }

int rx_jit_mode_of(unsigned flags, struct rx_jit_mode *m) {
    if (!m) return RX_EINVAL;
    memset(m, 0, sizeof *m);
    int rc = rx_jit_choose_aes(flags, &m->soft_aes);
    if (rc) return rc;
    m->flags = flags;
    m->v2 = (flags & RX_FLAG_V2) != 0;
    m->full = (flags & RX_FLAG_FULL) != 0;
    return 0;
}

void *rx_jit_alloc(size_t size) {
    size_t rounded = (size + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded);
    if (p) memset(p, 0, rounded);
    return p;
}

void rx_jit_masks_init(uint64_t emask_and[2], uint64_t scale_mask[2]) {
    emask_and[0] = emask_and[1] = RX_JIT_EMASK_AND;
    scale_mask[0] = scale_mask[1] = RX_JIT_SCALE_MASK;
}

int rx_engine_check_compile(const struct rx_program *prog, const struct rx_vm_state *st, int v2) {
    if (!prog || !st) return RX_EINVAL;
    if ((st->version == 2) != (v2 != 0)) return RX_EINVAL;
    if (prog->count != (v2 ? RX_PROGRAM_SIZE_V2 : RX_PROGRAM_SIZE_V1)) return RX_EINVAL;
    return 0;
}

int rx_engine_check_run(const struct rx_vm_state *st, int v2, int full) {
    if (!st || !st->scratchpad) return RX_EINVAL;
    if (full ? !st->dataset : !st->cache) return RX_ESTATE;
    if ((st->version == 2) != (v2 != 0)) return RX_EINVAL;
    if (st->dataset_offset > RX_DATASET_EXTRA_SIZE || (st->dataset_offset & 63u)) return RX_EINVAL;
    return 0;
}

void rx_jit_regs_in(const struct rx_vm_state *st, uint64_t r[8], uint64_t f[8], uint64_t e[8],
                    uint64_t a[8], uint64_t emask_or[2]) {
    memset(r, 0, 8 * sizeof *r);            /* spec 4.6.1: r0-r7 = 0 */
    memcpy(f, st->f, 8 * sizeof *f);
    memcpy(e, st->e, 8 * sizeof *e);
    memcpy(a, st->a, 8 * sizeof *a);
    emask_or[0] = st->e_mask[0];
    emask_or[1] = st->e_mask[1];
}

int rx_jit_run_begin(const struct rx_vm_state *st, const struct rx_jit_mode *m, uint64_t r[8],
                     uint64_t f[8], uint64_t e[8], uint64_t a[8], uint64_t emask_or[2]) {
    if (!m) return RX_EINVAL;
    int rc = rx_engine_check_run(st, m->v2, m->full);
    if (rc == 0) rx_jit_regs_in(st, r, f, e, a, emask_or);
    return rc;
}

void rx_jit_regs_out(struct rx_vm_state *st, const uint64_t r[8], const uint64_t f[8], const uint64_t e[8]) {
    memcpy(st->r, r, sizeof st->r);
    memcpy(st->f, f, sizeof st->f);
    memcpy(st->e, e, sizeof st->e);
}

/* ---- phase profile ---- */
static struct rx_jit_profile rx_jit_prof_total;

int rx_jit_profile_copy(const struct rx_jit_profile *prof, struct rx_jit_profile *out) {
    if (!prof || !out) return RX_EINVAL;
#ifdef RX_JIT_PROFILE
    *out = *prof;
    return 0;
#else
    memset(out, 0, sizeof *out);
    return RX_ENOTSUP;
#endif
}

void rx_jit_profile_book(struct rx_jit_profile *prof, uint64_t compile_ns, uint64_t open_ns,
                         uint64_t seal_ns, uint64_t exec_ns, uint64_t programs, uint64_t emit_ns) {
    struct rx_jit_profile d = { compile_ns, open_ns, seal_ns, exec_ns, programs, 0, emit_ns };
    if (prof) {
        prof->emit_ns += emit_ns;
        prof->compile_ns += compile_ns;
        prof->open_ns += open_ns;
        prof->seal_ns += seal_ns;
        prof->exec_ns += exec_ns;
        prof->programs += programs;
    }
    rx_jit_profile_account(&d);
}

void rx_jit_profile_book_flips(struct rx_jit_profile *prof, uint64_t flips) {
    struct rx_jit_profile d = { 0, 0, 0, 0, 0, flips, 0 };
    if (prof) prof->flips += flips;
    rx_jit_profile_account(&d);
}

void rx_jit_profile_account(const struct rx_jit_profile *d) {
    if (!d) return;
    __atomic_fetch_add(&rx_jit_prof_total.flips, d->flips, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.compile_ns, d->compile_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.open_ns, d->open_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.seal_ns, d->seal_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.exec_ns, d->exec_ns, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.programs, d->programs, __ATOMIC_RELAXED);
    __atomic_fetch_add(&rx_jit_prof_total.emit_ns, d->emit_ns, __ATOMIC_RELAXED);
}

void rx_jit_profile_global(struct rx_jit_profile *out) {
    if (!out) return;
    out->compile_ns = __atomic_load_n(&rx_jit_prof_total.compile_ns, __ATOMIC_RELAXED);
    out->open_ns = __atomic_load_n(&rx_jit_prof_total.open_ns, __ATOMIC_RELAXED);
    out->seal_ns = __atomic_load_n(&rx_jit_prof_total.seal_ns, __ATOMIC_RELAXED);
    out->exec_ns = __atomic_load_n(&rx_jit_prof_total.exec_ns, __ATOMIC_RELAXED);
    out->programs = __atomic_load_n(&rx_jit_prof_total.programs, __ATOMIC_RELAXED);
    out->flips = __atomic_load_n(&rx_jit_prof_total.flips, __ATOMIC_RELAXED);
    out->emit_ns = __atomic_load_n(&rx_jit_prof_total.emit_ns, __ATOMIC_RELAXED);
}

void rx_jit_profile_global_reset(void) { memset(&rx_jit_prof_total, 0, sizeof rx_jit_prof_total); }

int rx_jit_args_ok(const void *jit, const struct rx_instr *code, unsigned n, unsigned max,
                   const uint32_t read_reg[4]) {
    if (!jit || !code || !read_reg || n == 0 || n > max) return 0;
    for (int i = 0; i < 4; i++) if (read_reg[i] > 7) return 0;
    return 1;
}
