/* SPDX-License-Identifier: ISC */
/* src/rx/vm_interp.h — the portable RandomX interpreter (vm_interp.c):
 * a program is decoded once into a compact pre-decoded form, then the full
 * iteration loop (spec 4.6) runs over it on a struct rx_vm_state. */
#ifndef RX_VM_INTERP_H
#define RX_VM_INTERP_H
#include <stdint.h>
#include "rx/program.h"
#include "rx/vm_state.h"
#include "rx/aes.h"

/* Pre-decoded operation types (the src == dst forms of spec table 5.2.1
 * get their own *_I types; ISUB_R with src == dst becomes IADD_RS with the
 * zero register and -imm; IMUL_RCP becomes IMUL_I; IROL by imm IROR_I). */
enum rx_op_type {
    OP_IADD_RS, OP_IADD_M, OP_ISUB_R, OP_ISUB_M, OP_IMUL_R, OP_IMUL_I, OP_IMUL_M,
    OP_IMULH_R, OP_IMULH_M, OP_ISMULH_R, OP_ISMULH_M, OP_INEG_R,
    OP_IXOR_R, OP_IXOR_I, OP_IXOR_M, OP_IROR_R, OP_IROR_I, OP_IROL_R, OP_ISWAP_R,
    OP_FSWAP_F, OP_FSWAP_E, OP_FADD_R, OP_FADD_M, OP_FSUB_R, OP_FSUB_M, OP_FSCAL_R,
    OP_FMUL_R, OP_FDIV_M, OP_FSQRT_R, OP_CBRANCH, OP_CFROUND1, OP_CFROUND2, OP_ISTORE,
    OP_NOP,
    OP_END      /* sentinel after the last op */
};

/* One pre-decoded instruction (16 bytes). */
struct rx_op {
    uint8_t  type;   /* enum rx_op_type (vm_interp.c)                        */
    uint8_t  dst;    /* register index                                        */
    uint8_t  src;    /* register index; 8 = the constant-zero register        */
    uint8_t  shift;  /* IADD_RS shift / CBRANCH condition shift               */
    uint32_t mask;   /* scratchpad mask; CBRANCH: the pc to resume at         */
    uint64_t imm;    /* sign-extended imm32, reciprocal, rotate count, cimm   */
};

struct rx_decoded {
    struct rx_op ops[RX_PROGRAM_MAX_SIZE + 1];  /* + the OP_END sentinel */
    uint32_t count;
};

/* Decode prog for the given version (1 or 2). */
void rx_interp_decode(struct rx_decoded *d, const struct rx_program *prog, unsigned version);
/* Execute the decoded instructions once (one pass of the program buffer,
 * spec 4.6.2 step 4) on st — for per-instruction tests.  Uses and updates
 * st->r / f / e and st->fprc; the caller's rounding mode is restored. */
void rx_interp_exec_once(struct rx_vm_state *st, const struct rx_decoded *d);
/* Run the whole program (spec 4.6: initialization + all iterations) on st,
 * which rx_vm_state_configure() programmed.  Sets the hardware rounding
 * mode from st->fprc and leaves it at the final fprc (the caller saves and
 * restores the FP environment around a hash).  aes: the v2 F/E mixing. */
void rx_interp_run(struct rx_vm_state *st, const struct rx_decoded *d,
                   const struct rx_aes_ops *aes);

/* Hardware rounding mode <- fprc (0 nearest, 1 down, 2 up, 3 toward zero). */
void rx_set_rounding(uint32_t fprc);
#endif
