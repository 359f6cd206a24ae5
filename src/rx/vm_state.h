/* SPDX-License-Identifier: ISC */
/* src/rx/vm_state.h — the state one RandomX program run reads and writes:
 * the register file, the program's configuration, memory pointers.  The
 * interpreter (vm_interp.c) and the JITs (jit.h) both run on it.
 *
 * STABLE LAYOUT: a JIT reads and writes this struct at fixed offsets
 * (asserted below).  Fields are only appended, never reordered or resized.
 * The first 256 bytes are the spec's Register File (r0-r7, f0-f3, e0-e3,
 * a0-a3, little-endian; each FP register = {lo, hi} doubles). */
#ifndef RX_VM_STATE_H
#define RX_VM_STATE_H
#include <stddef.h>
#include <stdint.h>
#include "rxlock/rx.h"

struct rx_vm_state {
    /* ---- register file (hashed by Blake2b) ---- */
    _Alignas(64) uint64_t r[8];     /*   0: r0-r7 */
    double   f[4][2];               /*  64: f0-f3 ([i][0] = low half)  */
    double   e[4][2];               /* 128: e0-e3                      */
    double   a[4][2];               /* 192: a0-a3 (read-only per program) */
    /* ---- program configuration (set by rx_vm_state_configure) ---- */
    uint32_t ma;                    /* 256: dataset read address register     */
    uint32_t mx;                    /* 260: dataset prefetch address register */
    uint32_t read_reg[4];           /* 264: readReg0..3 (register indices)    */
    uint64_t dataset_offset;        /* 280: datasetOffset in bytes            */
    uint64_t e_mask[2];             /* 288: E-group masks (low, high half)    */
    /* ---- memory ---- */
    uint8_t       *scratchpad;      /* 304: RX_SCRATCHPAD_L3 bytes, 64-aligned */
    const uint8_t *dataset;         /* 312: full mode dataset, else NULL      */
    const rx_cache *cache;          /* 320: light mode cache, else NULL       */
    /* ---- mode ---- */
    uint32_t fprc;                  /* 328: rounding mode 0-3 (spec table 4.3.1) */
    uint32_t version;               /* 332: 1 or 2                            */
    uint32_t program_size;          /* 336: 256 (v1) or 384 (v2)              */
    uint32_t iterations;            /* 340: RX_PROGRAM_ITERATIONS             */
};

_Static_assert(offsetof(struct rx_vm_state, r) == 0, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, f) == 64, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, e) == 128, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, a) == 192, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, ma) == 256, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, mx) == 260, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, read_reg) == 264, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, dataset_offset) == 280, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, e_mask) == 288, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, scratchpad) == 304, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, dataset) == 312, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, cache) == 320, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, fprc) == 328, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, version) == 332, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, program_size) == 336, "JIT ABI");
_Static_assert(offsetof(struct rx_vm_state, iterations) == 340, "JIT ABI");

struct rx_program;
/* Program the VM (spec 4.5): a registers, ma, mx, readReg0-3,
 * datasetOffset, E masks from prog->entropy.  Leaves r/f/e, fprc and the
 * memory pointers alone. */
void rx_vm_state_configure(struct rx_vm_state *st, const struct rx_program *prog);
#endif
