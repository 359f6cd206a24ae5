/* SPDX-License-Identifier: ISC */
/* src/rx/jit_lifecycle.c — the JIT lifecycle, written once for every
 * backend (jit.h, "the lifecycle"): rx_jit_new (mode, allocation, code
 * buffer, entry/exit), rx_jit_compile (argument checks, emit through the
 * backend's table, install into the program pages), rx_jit_run (through
 * the table, then rx_jit_enter: checks, the call, the profile), rx_jit_free
 * (wipe, unmap) and the profile entries.  What differs per architecture
 * (the context, the emitters, the run's set-up) is behind rx_jit_arch();
 * where it is NULL (jit_none.c) every entry says RX_ENOTSUP. */
#include "rx/jit.h"
#include "rx/program.h"
#include "rx/vm_state.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rx_jit_supported(void) { return rx_jit_arch() != NULL; }

/* Call the probe installed at the program offset. */
static unsigned call_probe(const struct rx_jit_core *c) {
    unsigned (*fn)(void);
    uint8_t *p = c->mem.base + c->prog_off;
    memcpy(&fn, &p, sizeof fn);
    return fn();
}

/* Install a probe returning v; 0 when it returns v. */
static int probe(struct rx_jit_core *c, unsigned v) {
    uint8_t code[16];
    size_t n = c->arch->emit_probe(code, v);
    int rc = rx_execmem_install(&c->mem, c->prog_off, c->prog_cap, code, n, c->arch->fill,
                                c->arch->flush, &c->prog_span, NULL);
    if (rc) return rc;
    return call_probe(c) == v ? 0 : RX_EPROT;
}

/* Give the JIT the /proc/self/mem writer when the system allows it and a
 * probe shows that what it writes is what runs: the program region made
 * RX whole (one flip pair, here), a probe installed and run, the writer
 * opened, a second probe written through it and run.  Any refusal or a
 * stale result leaves today's flips, with the region as rx_jit_new left
 * it before (no access until the first compile).  0, or the flips' RX_EPROT / RX_EINTERNAL (fail closed). */
static int writer_setup(rx_jit *j) {
    struct rx_jit_core *c = rx_jit_core_of(j);
    c->prog_span = c->prog_cap;             /* every program page RX */
    int rc = probe(c, 0x5a17);
    if (rc) return rc;
    if (rx_execmem_writer_open(&c->mem) == 0 && probe(c, 0xa5e1) == 0 && rx_execmem_has_writer(&c->mem))
        return 0;
    rx_execmem_writer_close(&c->mem);
    rc = probe(c, 0x5a17);                  /* flips, as the JIT goes on */
    if (rc) return rc;
    rc = rx_execmem_forbid(&c->mem, c->prog_off, c->prog_cap);   /* as before any compile */
    if (rc) return rc;
    c->prog_span = 0;
    return 0;
}

const char *rx_jit_install(const rx_jit *j) {
    if (!j) return NULL;
    const struct rx_jit_core *c = (const struct rx_jit_core *)(const void *)j;
    return rx_execmem_has_writer(&c->mem) ? "proc-mem" : "mprotect";
}

int rx_jit_new(rx_jit **out, unsigned flags) {
    if (out) *out = NULL;
    const struct rx_jit_arch *arch = rx_jit_arch();
    if (!arch) return RX_ENOTSUP;
    if (!out) return RX_EINVAL;
    struct rx_jit_mode mode;
    int rc = rx_jit_mode_of(flags, &mode);
    if (rc) return rc;
    long ps = sysconf(_SC_PAGESIZE);
    if (ps <= 0 || ps > (1l << 20)) return RX_EINTERNAL;
    size_t page = (size_t)ps;
    if (arch->page && page != arch->page) return RX_ENOTSUP;
    rx_jit *j = rx_jit_alloc(arch->jit_size);
    if (!j) return RX_ENOMEM;
    struct rx_jit_core *c = rx_jit_core_of(j);
    c->arch = arch;
    c->mode = mode;
    c->stage = (uint8_t *)j + arch->stage_off;
    c->prog_off = 2 * page;
    c->prog_cap = (arch->stage_cap + page - 1) / page * page;
    size_t size = c->prog_off + c->prog_cap + page;      /* + the trailing guard */
    rc = rx_execmem_init(&c->mem, size);
    if (rc) { free(j); return rc; }
    if (c->mem.page != page || c->mem.size != size) { rx_jit_free(j); return RX_EINTERNAL; }
    size_t len = 0;
    rc = arch->emit_entry(j, page < arch->stage_cap ? page : arch->stage_cap, &len);
    if (rc == 0) rc = rx_execmem_install_entry(&c->mem, c->stage, len, arch->fill, arch->flush);
    if (rc) { rx_jit_free(j); return rc; }
    if (!(flags & RX_FLAG_JIT_MPROTECT)) rc = writer_setup(j);
    if (rc) { rx_jit_free(j); return rc; }
    arch->init(j);
    *out = j;
    return 0;
}

int rx_jit_compile(rx_jit *jit, const struct rx_program *prog, const struct rx_vm_state *state) {
    if (!rx_jit_arch()) return RX_ENOTSUP;
    if (!jit) return RX_EINVAL;
    struct rx_jit_core *c = rx_jit_core_of(jit);
    int rc = rx_engine_check_compile(prog, state, c->mode.v2);
    if (rc) return rc;
    if (!rx_jit_args_ok(jit, prog->instructions, prog->count, RX_PROGRAM_MAX_SIZE, state->read_reg))
        return RX_EINVAL;
    unsigned rr[4];
    for (int i = 0; i < 4; i++) rr[i] = state->read_reg[i];
    RX_PROF_T0(t0);
    c->ready = 0;
    uint64_t flips0 = c->mem.flips;
    size_t len = 0;
    rc = c->arch->emit_program(jit, prog->instructions, prog->count, rr, &len);
    if (rc) return rc;
    RX_PROF_T(t1);
    RX_PROF_PH(ph);
    rc = rx_execmem_install(&c->mem, c->prog_off, c->prog_cap, c->stage, len, c->arch->fill,
                            c->arch->flush, &c->prog_span, RX_PROF_PH_ARG(ph));
    if (rc) return rc;
    RX_PROF_COMPILED(c, t0, t1, ph);
    RX_PROF_FLIPS(c, c->mem.flips - flips0);
    (void)flips0;
    c->ready = 1;
    return 0;
}

int rx_jit_runnable(rx_jit *j) {
    if (!j) return RX_EINVAL;
    struct rx_jit_core *c = rx_jit_core_of(j);
    if (!c->ready) return RX_ESTATE;
    if (rx_execmem_is_open(&c->mem)) return RX_EPROT;
    return 0;
}

int rx_jit_enter(rx_jit *j, void *ctx) {
    int rc = rx_jit_runnable(j);
    if (rc) return rc;
    struct rx_jit_core *c = rx_jit_core_of(j);
    void (*entry)(void *);
    uint8_t *p = c->mem.base;
    memcpy(&entry, &p, sizeof entry);
    RX_PROF_T0(t0);
    entry(ctx);
    RX_PROF_T(t1);
    RX_PROF_RAN(c, t0, t1);
    return 0;
}

int rx_jit_run(rx_jit *jit, struct rx_vm_state *state) {
    if (!rx_jit_arch()) return RX_ENOTSUP;
    if (!jit) return RX_EINVAL;
    return rx_jit_core_of(jit)->arch->run(jit, state);
}

void rx_jit_free(rx_jit *jit) {
    if (!jit) return;
    struct rx_jit_core *c = rx_jit_core_of(jit);
    const struct rx_jit_arch *arch = c->arch;
    rx_execmem_free(&c->mem);
    if (arch->release) arch->release(jit);
    sodium_memzero(jit, arch->jit_size);
    free(jit);
}

int rx_jit_profile_get(const rx_jit *jit, struct rx_jit_profile *out) {
    if (!rx_jit_arch()) {
        if (out) memset(out, 0, sizeof *out);
        return RX_ENOTSUP;
    }
    const struct rx_jit_core *c = (const struct rx_jit_core *)(const void *)jit;
    return rx_jit_profile_copy(c ? &c->prof : NULL, out);
}

void rx_jit_profile_reset(rx_jit *jit) {
    if (jit) memset(&rx_jit_core_of(jit)->prof, 0, sizeof rx_jit_core_of(jit)->prof);
}
