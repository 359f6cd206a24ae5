/* SPDX-License-Identifier: ISC */
/* src/rx/program.c — parsing a RandomX program from AesGenerator4R output
 * and programming the VM's configuration from its entropy (spec 4.5). */
#include "rx/program.h"
#include "rx/vm_state.h"
#include <string.h>
#include "util/le.h"

void rx_program_parse(struct rx_program *prog, const uint8_t *bytes, uint32_t count) {
    if (count > RX_PROGRAM_MAX_SIZE) count = RX_PROGRAM_MAX_SIZE;
    for (int i = 0; i < 16; i++) prog->entropy[i] = util_load64le(bytes + 8 * i);
    const uint8_t *p = bytes + 128;
#if UTIL_LE_HOST
    /* struct rx_instr is the instruction word's own byte layout here */
    memcpy(prog->instructions, p, sizeof(struct rx_instr) * count);
#else
    for (uint32_t i = 0; i < count; i++, p += 8) {
        struct rx_instr *in = &prog->instructions[i];
        in->opcode = p[0];
        in->dst = p[1];
        in->src = p[2];
        in->mod = p[3];
        in->imm32 = util_load32le(p + 4);
    }
#endif
    if (count < RX_PROGRAM_MAX_SIZE)
        memset(&prog->instructions[count], 0, sizeof(struct rx_instr) * (RX_PROGRAM_MAX_SIZE - count));
    prog->count = count;
}

/* spec 4.5.2: +1.fraction x 2^exponent, fraction = bits 0-51, exponent =
 * bits 59-63 (0..31), biased. */
uint64_t rx_small_positive_float_bits(uint64_t entropy) {
    uint64_t exponent = entropy >> 59;
    uint64_t mantissa = entropy & ((1ull << 52) - 1);
    exponent += 1023;
    exponent &= (1ull << 11) - 1;
    return exponent << 52 | mantissa;
}

/* spec 4.5.6 / 4.3.2: the E-group OR mask.  Fraction bits 0-21 come from
 * entropy bits 0-21; the 11-bit exponent field is 0x300 | (entropy >> 60) << 4
 * (the conversion keeps the value's low 56 bits and ORs this in). */
uint64_t rx_float_mask(uint64_t entropy) {
    uint64_t exponent = 0x300u | (entropy >> 60) << 4;
    return (entropy & ((1ull << 22) - 1)) | exponent << 52;
}

void rx_vm_state_configure(struct rx_vm_state *st, const struct rx_program *prog) {
    for (int i = 0; i < 4; i++) {
        uint64_t lo = rx_small_positive_float_bits(prog->entropy[2 * i]);
        uint64_t hi = rx_small_positive_float_bits(prog->entropy[2 * i + 1]);
        memcpy(&st->a[i][0], &lo, 8);
        memcpy(&st->a[i][1], &hi, 8);
    }
    st->ma = (uint32_t)prog->entropy[8] & RX_CACHE_LINE_ALIGN_MASK;
    st->mx = (uint32_t)prog->entropy[10];
    uint64_t sel = prog->entropy[12];
    st->read_reg[0] = 0 + (uint32_t)(sel & 1);
    st->read_reg[1] = 2 + (uint32_t)((sel >> 1) & 1);
    st->read_reg[2] = 4 + (uint32_t)((sel >> 2) & 1);
    st->read_reg[3] = 6 + (uint32_t)((sel >> 3) & 1);
    st->dataset_offset = (prog->entropy[13] % (RX_DATASET_EXTRA_ITEMS + 1)) * RX_DATASET_ITEM_SIZE;
    st->e_mask[0] = rx_float_mask(prog->entropy[14]);
    st->e_mask[1] = rx_float_mask(prog->entropy[15]);
}
