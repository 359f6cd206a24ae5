/* SPDX-License-Identifier: ISC */
/* src/rx/disasm.c — print a RandomX program in a readable form (debugging,
 * JIT development): one line per instruction with its decoded operands.
 * Test build only (-DRXLOCK_TESTING): the shipping library prints nothing. */
#include "rx/program.h"
#include <stdio.h>

#ifdef RXLOCK_TESTING

static const char *level(const struct rx_instr *in, int src_eq_dst) {
    if (src_eq_dst) return "L3";
    return rx_mod_mem(in) ? "L1" : "L2";
}

int rx_program_print(const struct rx_program *prog, FILE *fp) {
    if (!prog || !fp) return -1;
    for (int i = 0; i < 16; i++)
        if (fprintf(fp, "; entropy[%2d] = 0x%016llx\n", i, (unsigned long long)prog->entropy[i]) < 0) return -1;
    for (uint32_t i = 0; i < prog->count && i < RX_PROGRAM_MAX_SIZE; i++) {
        const struct rx_instr *in = &prog->instructions[i];
        enum rx_instr_type t = rx_instr_type_of(in->opcode);
        unsigned d = in->dst & 7u, s = in->src & 7u;
        int32_t imm = (int32_t)in->imm32;
        int n = fprintf(fp, "%3u: %-9s ", i, rx_instr_name[t]);
        switch (t) {
        case RX_I_IADD_RS:
            n = fprintf(fp, "r%u, r%u, SHFT %u%s", d, s, rx_mod_shift(in), d == 5 ? "" : "\n");
            if (d == 5) n = fprintf(fp, ", %d\n", imm);
            break;
        case RX_I_IADD_M: case RX_I_ISUB_M: case RX_I_IMUL_M: case RX_I_IMULH_M:
        case RX_I_ISMULH_M: case RX_I_IXOR_M:
            if (s == d) n = fprintf(fp, "r%u, %s[%d]\n", d, level(in, 1), imm);
            else n = fprintf(fp, "r%u, %s[r%u%+d]\n", d, level(in, 0), s, imm);
            break;
        case RX_I_ISUB_R: case RX_I_IMUL_R: case RX_I_IXOR_R: case RX_I_IROR_R: case RX_I_IROL_R:
            if (s == d) n = fprintf(fp, "r%u, %d\n", d, imm);
            else n = fprintf(fp, "r%u, r%u\n", d, s);
            break;
        case RX_I_IMULH_R: case RX_I_ISMULH_R: case RX_I_ISWAP_R:
            n = fprintf(fp, "r%u, r%u\n", d, s);
            break;
        case RX_I_IMUL_RCP:
            n = fprintf(fp, "r%u, %u%s\n", d, in->imm32, rx_is_zero_or_pow2(in->imm32) ? " ; nop" : "");
            break;
        case RX_I_INEG_R:
            n = fprintf(fp, "r%u\n", d);
            break;
        case RX_I_FSWAP_R:
            n = fprintf(fp, "%c%u\n", d < 4 ? 'f' : 'e', d & 3u);
            break;
        case RX_I_FADD_R: case RX_I_FSUB_R:
            n = fprintf(fp, "f%u, a%u\n", d & 3u, s & 3u);
            break;
        case RX_I_FMUL_R:
            n = fprintf(fp, "e%u, a%u\n", d & 3u, s & 3u);
            break;
        case RX_I_FADD_M: case RX_I_FSUB_M:
            n = fprintf(fp, "f%u, %s[r%u%+d]\n", d & 3u, level(in, 0), s, imm);
            break;
        case RX_I_FDIV_M:
            n = fprintf(fp, "e%u, %s[r%u%+d]\n", d & 3u, level(in, 0), s, imm);
            break;
        case RX_I_FSCAL_R:
            n = fprintf(fp, "f%u\n", d & 3u);
            break;
        case RX_I_FSQRT_R:
            n = fprintf(fp, "e%u\n", d & 3u);
            break;
        case RX_I_CBRANCH:
            n = fprintf(fp, "r%u, %d, COND %u\n", d, imm, rx_mod_cond(in));
            break;
        case RX_I_CFROUND:
            n = fprintf(fp, "r%u, %u\n", s, in->imm32 & 63u);
            break;
        case RX_I_ISTORE:
            n = fprintf(fp, "%s[r%u%+d], r%u\n",
                        rx_mod_cond(in) >= RX_STORE_L3_CONDITION ? "L3" : level(in, 0), d, imm, s);
            break;
        default:
            n = fprintf(fp, "\n");
            break;
        }
        if (n < 0) return -1;
    }
    return 0;
}
#endif /* RXLOCK_TESTING */
