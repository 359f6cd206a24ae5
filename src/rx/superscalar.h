/* SPDX-License-Identifier: ISC */
/* src/rx/superscalar.h — SuperscalarHash (RandomX spec 6): program
 * generation by simulating the reference CPU (decoder groups, macro-ops,
 * ports P0/P1/P5, latencies) and program execution.
 *
 * rx_superscalar_execute() is the one function that runs a program on one
 * register file; a JIT may replace it.  rx_superscalar_execute_lanes() runs
 * one program over RX_SS_LANES independent register files at once (the
 * dataset builder's fast path in C); both give identical results. */
#ifndef RX_SUPERSCALAR_H
#define RX_SUPERSCALAR_H
#include <stddef.h>
#include <stdint.h>
#include "rx/blake2_gen.h"

#define RX_SS_LATENCY   170                      /* RANDOMX_SUPERSCALAR_LATENCY */
#define RX_SS_MAX_SIZE  (3 * RX_SS_LATENCY + 2)  /* 512 instructions            */
#ifndef RX_SS_LANES
#define RX_SS_LANES     16
#endif

/* Instruction types; the numbering is the reference's SuperscalarInstructionType
 * (it is part of the serialized form the test vectors hash). */
enum rx_ss_op {
    RX_SS_ISUB_R = 0, RX_SS_IXOR_R = 1, RX_SS_IADD_RS = 2, RX_SS_IMUL_R = 3,
    RX_SS_IROR_C = 4, RX_SS_IADD_C7 = 5, RX_SS_IXOR_C7 = 6, RX_SS_IADD_C8 = 7,
    RX_SS_IXOR_C8 = 8, RX_SS_IADD_C9 = 9, RX_SS_IXOR_C9 = 10, RX_SS_IMULH_R = 11,
    RX_SS_ISMULH_R = 12, RX_SS_IMUL_RCP = 13, RX_SS_OP_COUNT = 14
};

typedef struct rx_ss_instr {
    uint8_t  op, dst, src, mod;  /* src == dst for instructions without a source */
    uint32_t imm32;
    uint64_t imm64;              /* decoded operand: sign-extended imm32, rotate
                                    count, shift, or the IMUL_RCP reciprocal */
} rx_ss_instr;

typedef struct rx_ss_program {
    uint32_t    size;
    uint32_t    addr_reg;        /* register with the longest dependency chain */
    rx_ss_instr ins[RX_SS_MAX_SIZE];
} rx_ss_program;

/* Generate one program from the generator's stream (spec 6.3). */
void rx_superscalar_generate(rx_ss_program *prog, rx_blake2_gen *gen);
/* Run prog on r[0..7]. */
void rx_superscalar_execute(const rx_ss_program *prog, uint64_t r[8]);
/* Run prog on r[reg][lane] for RX_SS_LANES lanes. */
void rx_superscalar_execute_lanes(const rx_ss_program *prog, uint64_t r[8][RX_SS_LANES]);
/* The reference's 8-byte-per-instruction form (opcode, dst, src, mod,
 * imm32 LE) used by the test vectors.  Returns bytes written (size * 8),
 * or 0 if cap is too small. */
size_t rx_superscalar_serialize(const rx_ss_program *prog, uint8_t *out, size_t cap);
#endif
