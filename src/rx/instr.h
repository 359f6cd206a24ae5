/* SPDX-License-Identifier: ISC */
/* src/rx/instr.h — the RandomX instruction set as one X-macro table (spec
 * chapter 5), shared by the interpreter, the JITs and the disassembler.
 *
 *   RX_INSTR_TABLE(X) expands X(NAME, FREQUENCY) for the 29 instructions in
 *   opcode order: opcodes [RX_FIRST_OP_NAME, RX_LAST_OP_NAME] decode to NAME.
 * Frequencies are out of 256 and sum to 256 (checked below). */
#ifndef RX_INSTR_H
#define RX_INSTR_H
#include <stdint.h>

#define RX_INSTR_TABLE(X) \
    X(IADD_RS, 16) X(IADD_M, 7) X(ISUB_R, 16) X(ISUB_M, 7) \
    X(IMUL_R, 16) X(IMUL_M, 4) X(IMULH_R, 4) X(IMULH_M, 1) \
    X(ISMULH_R, 4) X(ISMULH_M, 1) X(IMUL_RCP, 8) X(INEG_R, 2) \
    X(IXOR_R, 15) X(IXOR_M, 5) X(IROR_R, 8) X(IROL_R, 2) X(ISWAP_R, 4) \
    X(FSWAP_R, 4) X(FADD_R, 16) X(FADD_M, 5) X(FSUB_R, 16) X(FSUB_M, 5) \
    X(FSCAL_R, 6) X(FMUL_R, 32) X(FDIV_M, 4) X(FSQRT_R, 6) \
    X(CBRANCH, 25) X(CFROUND, 1) X(ISTORE, 16)

/* Instruction types, in table order; RX_I_NOP is not in the table (it is
 * what IMUL_RCP with imm32 0 / a power of 2 and ISWAP_R with src == dst
 * become). */
enum rx_instr_type {
#define RX_X_(name, freq) RX_I_##name,
    RX_INSTR_TABLE(RX_X_)
#undef RX_X_
    RX_I_NOP,
    RX_I_COUNT
};

/* RX_LAST_OP_<NAME>: the highest opcode of NAME; RX_FIRST_OP_<NAME> the lowest. */
enum rx_instr_opcode_range {
    RX_OP_START_ = -1,
#define RX_X_(name, freq) RX_OP_D_##name, RX_LAST_OP_##name = RX_OP_D_##name + (freq) - 1,
    RX_INSTR_TABLE(RX_X_)
#undef RX_X_
    RX_OP_END_
};
enum rx_instr_opcode_first {
#define RX_X_(name, freq) RX_FIRST_OP_##name = RX_LAST_OP_##name - (freq) + 1,
    RX_INSTR_TABLE(RX_X_)
#undef RX_X_
    RX_FIRST_OP_END_
};
_Static_assert(RX_LAST_OP_ISTORE == 255, "instruction frequencies must sum to 256");

/* Frequencies and names indexed by enum rx_instr_type (RX_I_NOP: 0, "NOP"). */
static const uint8_t rx_instr_freq[RX_I_COUNT] = {
#define RX_X_(name, freq) freq,
    RX_INSTR_TABLE(RX_X_)
#undef RX_X_
    0
};
static const char *const rx_instr_name[RX_I_COUNT] = {
#define RX_X_(name, freq) #name,
    RX_INSTR_TABLE(RX_X_)
#undef RX_X_
    "NOP"
};

/* Type of an opcode byte (table order; never RX_I_NOP). */
static inline enum rx_instr_type rx_instr_type_of(uint8_t opcode) {
    unsigned op = opcode;
#define RX_X_(name, freq) if (op <= (unsigned)RX_LAST_OP_##name) return RX_I_##name;
    RX_INSTR_TABLE(RX_X_)
#undef RX_X_
    return RX_I_ISTORE;
}
#endif
