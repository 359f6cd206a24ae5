/* SPDX-License-Identifier: ISC */
/* src/rx/vm.c — the RandomX VM API (rx_vm_*, rx_flags_*) and
 * the hash flow of spec chapter 2: Blake2b-512 of the input, AesGenerator1R
 * scratchpad fill, 8 programs from AesGenerator4R (each run by the JIT when
 * one is enabled and starts, else by the interpreter), AesHash1R of the
 * scratchpad and the final Blake2b-256 of the register file.
 *
 * No silent fallback: a JIT asked for with RX_FLAG_JIT that cannot start
 * fails rx_vm_new with RX_EJIT, unless RX_FLAG_JIT_FALLBACK allows the
 * interpreter; the VM then keeps the reason (rx_vm_fallback_reason) and
 * rx_vm_flags() shows no RX_FLAG_JIT.  Test build: RXLOCK_TEST_JIT_FAIL=1
 * makes every JIT start fail.
 *
 * The VM handle, its state, program buffers and temporaries live in one
 * rx_mem_alloc region and the scratchpad in another; rx_vm_free wipes
 * both (sodium_memzero, then rx_mem_free wipes again) before unmapping. */
#include "rx/internal.h"
#include "rx/aes.h"
#include "rx/cpu.h"
#include "rx/jit.h"
#include "rx/execmem.h"
#include "rx/program.h"
#include "rx/vm_interp.h"
#include "rx/vm_state.h"
#include <fenv.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

struct rx_vm {
    struct rx_vm_state state;                       /* 64-byte aligned first */
    struct rx_program program;
    struct rx_decoded decoded;
    _Alignas(64) uint8_t prog_bytes[RX_PROGRAM_BYTES(RX_PROGRAM_MAX_SIZE)];
    _Alignas(64) uint8_t seed[64];                  /* Hash512 / generator state */
    const struct rx_aes_ops *aes;
    rx_jit *jit;
    unsigned flags;                                 /* what the VM really uses */
    const char *fallback;                           /* why no JIT, or NULL */
};

unsigned rx_flags_default(void) {
    unsigned f = RX_FLAG_V2;
    if (rx_jit_supported()) f |= RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_JIT_FALLBACK;
    if (rx_cpu_has_hw_aes()) f |= RX_FLAG_HARD_AES;
    return f;
}

unsigned rx_flags_from_env(unsigned flags) {
    const char *e = getenv("RXLOCK_ENGINE");
    if (e && strcmp(e, "interp") == 0) flags &= ~(unsigned)(RX_FLAG_JIT | RX_FLAG_SECURE | RX_FLAG_JIT_FALLBACK);
    else if (e && strcmp(e, "jit") == 0) flags = (flags | RX_FLAG_JIT | RX_FLAG_SECURE) & ~(unsigned)RX_FLAG_JIT_FALLBACK;
    const char *a = getenv("RXLOCK_AES");
    if (a && strcmp(a, "soft") == 0) flags = (flags & ~(unsigned)RX_FLAG_HARD_AES) | RX_FLAG_SOFT_AES;
    else if (a && strcmp(a, "hard") == 0) flags = (flags & ~(unsigned)RX_FLAG_SOFT_AES) | RX_FLAG_HARD_AES;
    const char *w = getenv("RXLOCK_JIT_INSTALL");
    if (w && strcmp(w, "mprotect") == 0) flags |= RX_FLAG_JIT_MPROTECT;
    else if (w && strcmp(w, "proc-mem") == 0) flags &= ~(unsigned)RX_FLAG_JIT_MPROTECT;
    return flags;
}

/* Why a JIT did not start, from rx_jit_new's code (static strings). */
static const char *jit_reason(int rc) {
    switch (rc) {
    case RX_ENOTSUP: return "the JIT does not support this CPU or configuration";
    case RX_ENOMEM:  return "cannot map memory for the JIT code";
    case RX_EPROT:   return "the system refuses executable memory (mprotect failed)";
    default:         return "the JIT failed to initialise";
    }
}

/* The JIT flags for VM flags: the AES the VM resolved, V2/FULL/SECURE. */
static unsigned jit_flags(unsigned flags, const struct rx_aes_ops *aes) {
    return (flags & ~(unsigned)(RX_FLAG_HARD_AES | RX_FLAG_SOFT_AES)) |
           (aes->hardware ? RX_FLAG_HARD_AES : RX_FLAG_SOFT_AES);
}

/* Start a JIT: RX_OK and *out, or an RX_E* code and *why. */
static int jit_start(rx_jit **out, unsigned jflags, const char **why) {
    *out = NULL;
    if (!rx_jit_supported()) { *why = "no RandomX JIT for this CPU or build"; return RX_ENOTSUP; }
#ifdef RXLOCK_TESTING
    const char *f = getenv("RXLOCK_TEST_JIT_FAIL");
    if (f && *f && strcmp(f, "0") != 0) { *why = "injected test fault RXLOCK_TEST_JIT_FAIL"; return RX_EPROT; }
#endif
    int rc = rx_jit_new(out, jflags);
    if (rc == RX_OK && *out) return RX_OK;
    rx_jit_free(*out);
    *out = NULL;
    *why = jit_reason(rc);
    return rc ? rc : RX_EINTERNAL;
}

const char *rx_engine_check(unsigned flags) {
    if ((flags & RX_FLAG_HARD_AES) && (flags & RX_FLAG_SOFT_AES)) return "bad flag combination";
    const struct rx_aes_ops *aes = rx_aes_select(flags);
    if (!aes) return "hardware AES requested but not available";
    rx_jit *jit = NULL;
    const char *why = NULL;
    if (jit_start(&jit, jit_flags(flags, aes), &why) == RX_OK) rx_jit_free(jit);
    return why;
}

int rx_vm_new(rx_vm **out, unsigned flags, const rx_cache *cache, const rx_dataset *ds) {
    if (!out) return RX_EINVAL;
    *out = NULL;
    if ((flags & RX_FLAG_HARD_AES) && (flags & RX_FLAG_SOFT_AES)) return RX_EINVAL;
    const uint8_t *dataset = NULL;
    if (flags & RX_FLAG_FULL) {
        if (!ds) return RX_ESTATE;
        dataset = rx_dataset_bytes(ds);
        if (!dataset) return RX_ESTATE;
    } else if (!cache) {
        return RX_ESTATE;
    }
    const struct rx_aes_ops *aes = rx_aes_select(flags);
    if (!aes) return RX_ENOTSUP;
    rx_jit *jit = NULL;
    const char *why = NULL;
    if ((flags & RX_FLAG_JIT) && jit_start(&jit, jit_flags(flags, aes), &why) != RX_OK &&
        !(flags & RX_FLAG_JIT_FALLBACK))
        return RX_EJIT;

    rx_vm *vm = rx_mem_alloc(sizeof *vm, flags | RX_FLAG_NO_THP);
    if (!vm) { rx_jit_free(jit); return RX_ENOMEM; }
    memset(vm, 0, sizeof *vm);
    vm->state.scratchpad = rx_mem_alloc(RX_SCRATCHPAD_L3, flags);
    if (!vm->state.scratchpad) { rx_jit_free(jit); rx_mem_free(vm, sizeof *vm); return RX_ENOMEM; }
    vm->aes = aes;
    vm->state.dataset = (flags & RX_FLAG_FULL) ? dataset : NULL;
    vm->state.cache = (flags & RX_FLAG_FULL) ? NULL : cache;
    vm->state.version = (flags & RX_FLAG_V2) ? 2 : 1;
    vm->state.program_size = (flags & RX_FLAG_V2) ? RX_PROGRAM_SIZE_V2 : RX_PROGRAM_SIZE_V1;
    vm->state.iterations = RX_PROGRAM_ITERATIONS;

    unsigned eff = flags & (RX_FLAG_V2 | RX_FLAG_FULL | RX_FLAG_HUGEPAGES | RX_FLAG_NO_THP);
    eff |= aes->hardware ? RX_FLAG_HARD_AES : RX_FLAG_SOFT_AES;
    if (jit) eff |= RX_FLAG_JIT | (flags & RX_FLAG_SECURE);
    vm->jit = jit;
    vm->fallback = jit ? NULL : why;
    vm->flags = eff;
    *out = vm;
    return RX_OK;
}

unsigned rx_vm_flags(const rx_vm *vm) { return vm ? vm->flags : 0; }

const char *rx_vm_fallback_reason(const rx_vm *vm) { return vm ? vm->fallback : NULL; }

const char *rx_vm_jit_install(const rx_vm *vm) { return vm && vm->jit ? rx_jit_install(vm->jit) : NULL; }

int rx_engine_writer_prepare(void) { return rx_execmem_writer_prepare(); }

static void blake2b(void *out, size_t outlen, const void *in, size_t inlen) {
    static const uint8_t empty[1] = {0};
    (void)crypto_generichash(out, outlen, inlen ? in : empty, inlen, NULL, 0);
}

int rx_vm_hash(rx_vm *vm, const void *input, size_t input_len, uint8_t out[RX_HASH_SIZE]) {
    if (!vm || !out || (!input && input_len) || input_len > RX_MAX_INPUT_SIZE) return RX_EINVAL;
    struct rx_vm_state *st = &vm->state;
    const uint32_t count = st->program_size;
    int rc = RX_OK;
    fenv_t env;
    if (fegetenv(&env) != 0) return RX_EINTERNAL;

    blake2b(vm->seed, 64, input, input_len);
    vm->aes->fill1r(vm->seed, st->scratchpad, RX_SCRATCHPAD_L3);
    st->fprc = 0;
    for (unsigned p = 0; p < RX_PROGRAM_COUNT; p++) {
        vm->aes->fill4r(vm->seed, vm->prog_bytes, RX_PROGRAM_BYTES(count));
        rx_program_parse(&vm->program, vm->prog_bytes, count);
        rx_vm_state_configure(st, &vm->program);
        if (vm->jit) {
            rc = rx_jit_compile(vm->jit, &vm->program, st);
            if (rc == RX_OK) rc = rx_jit_run(vm->jit, st);
            if (rc != RX_OK) break;
        } else {
            rx_interp_decode(&vm->decoded, &vm->program, st->version);
            rx_interp_run(st, &vm->decoded, vm->aes);
        }
        if (p + 1 < RX_PROGRAM_COUNT) blake2b(vm->seed, 64, st, 256);
    }
    __asm__ volatile("" : : : "memory");
    (void)fesetenv(&env);
    if (rc != RX_OK) {
        sodium_memzero(out, RX_HASH_SIZE);
        return rc < 0 ? rc : RX_EINTERNAL;
    }
    vm->aes->hash1r(st->scratchpad, RX_SCRATCHPAD_L3, (uint8_t *)st->a);
    blake2b(out, RX_HASH_SIZE, st, 256);
    return RX_OK;
}

void rx_vm_free(rx_vm *vm) {
    if (!vm) return;
    if (vm->jit) rx_jit_free(vm->jit);
    if (vm->state.scratchpad) {
        sodium_memzero(vm->state.scratchpad, RX_SCRATCHPAD_L3);
        rx_mem_free(vm->state.scratchpad, RX_SCRATCHPAD_L3);
    }
    sodium_memzero(vm, sizeof *vm);
    rx_mem_free(vm, sizeof *vm);
}
