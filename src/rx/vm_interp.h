/* src/rx/vm_interp.h — the portable RandomX interpreter (vm_interp.c):
 * a program is decoded once into a compact pre-decoded form, then the full
 * iteration loop (spec 4.6) runs over it on a struct rx_vm_state. */
#ifndef RX_VM_INTERP_H
#define RX_VM_INTERP_H
#include <stdint.h>
#include "rx/program.h"
#include "rx/vm_state.h"
#include "rx/aes.h"

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
    struct rx_op ops[RX_PROGRAM_MAX_SIZE];
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
