/* SPDX-License-Identifier: ISC */
/* tests/test_rx_instr.c — every instr:* row of randomx-components.tsv
 * (execute and decode cases) on the interpreter, plus instruction-table,
 * program-configuration and CBRANCH/CFROUND behaviour checks. */
#include "test.h"
#include "rx/instr.h"
#include "rx/program.h"
#include "rx/vm_interp.h"
#include "rx/internal.h"
#include <fenv.h>

static uint8_t *g_sp;  /* a scratchpad for the tests */

/* ---- row parsing ---------------------------------------------------- */
struct row {
    char name[32]; int decode;
    int dst, src, has_src;             /* register indices             */
    char dst_grp, src_grp;             /* 'r','f','e','a'              */
    unsigned mod; int has_mod;
    uint32_t imm32; int has_imm;
    uint64_t r[8]; int r_set[8];
    double fe[12][2]; int fe_set[12];  /* f0-3, e0-3, a0-3 */
    int fprc[2], nfprc;
    uint64_t emask[2]; int has_emask;
    uint64_t sp64; int has_sp64;
    uint32_t sp32[2]; int has_sp32;
};

static int grp_base(char g) { return g == 'f' ? 0 : g == 'e' ? 4 : g == 'a' ? 8 : -1; }

static uint64_t num(const char *s) { return strtoull(s, NULL, 0); }

static void parse_fp(const char *v, double out[2]) {
    uint64_t hi = 0, lo = 0;
    const char *h = strstr(v, "hi="), *l = strstr(v, "lo=");
    if (h && l) { hi = num(h + 3); lo = num(l + 3); }
    else if (v[0] == '(') { hi = num(v + 1); const char *c = strchr(v, ','); if (c) lo = num(c + 1); }
    memcpy(&out[0], &lo, 8); memcpy(&out[1], &hi, 8);
}

static int fprc_of(const char *s) {
    if (!strncmp(s, "RoundToNearest", 14)) return 0;
    if (!strncmp(s, "RoundDown", 9)) return 1;
    if (!strncmp(s, "RoundUp", 7)) return 2;
    if (!strncmp(s, "RoundToZero", 11)) return 3;
    return -1;
}

static void parse_input(struct row *rw, char *in) {
    char *save = NULL;
    for (char *it = strtok_r(in, ";", &save); it; it = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(it, '=');
        if (!eq) continue;
        *eq = 0;
        const char *k = it, *v = eq + 1;
        if (!strcmp(k, "dst")) { rw->dst_grp = v[0]; rw->dst = v[1] - '0'; }
        else if (!strcmp(k, "src")) { rw->src_grp = v[0]; rw->src = v[1] - '0'; rw->has_src = 1; }
        else if (!strcmp(k, "mod")) { rw->mod = (unsigned)num(v); rw->has_mod = 1; }
        else if (!strcmp(k, "imm32")) { rw->imm32 = (uint32_t)num(v); rw->has_imm = 1; }
        else if (!strcmp(k, "fprc")) {
            rw->nfprc = 0;
            for (const char *p = v; p && *p; ) {
                rw->fprc[rw->nfprc++] = fprc_of(p);
                p = strchr(p, '|'); if (p) p++;
                if (rw->nfprc == 2) break;
            }
        }
        else if (!strcmp(k, "eMask[0]")) {
            rw->emask[0] = num(v); rw->has_emask = 1;
            const char *p = strstr(v, "eMask[1]=");  /* after a ',' in the same item */
            if (p) rw->emask[1] = num(p + 9);
        }
        else if (!strcmp(k, "eMask[1]")) { rw->emask[1] = num(v); }
        else if (!strcmp(k, "scratchpad[0..7]")) {
            const char *p = strchr(v, '('); rw->sp64 = num(p ? p + 1 : v); rw->has_sp64 = 1;
        }
        else if (!strcmp(k, "scratchpad u32[0]")) {
            rw->sp32[0] = (uint32_t)num(v);
            const char *p = strstr(v, "u32[1]=");  /* lives after a ',' in the same item */
            if (p) rw->sp32[1] = (uint32_t)num(p + 7);
            rw->has_sp32 = 1;
        }
        else if (k[0] == 'r' && k[1] >= '0' && k[1] <= '7' && !k[2]) {
            rw->r[k[1] - '0'] = num(v); rw->r_set[k[1] - '0'] = 1;
        }
        else if ((k[0] == 'f' || k[0] == 'e' || k[0] == 'a') && k[1] >= '0' && k[1] <= '3' && !k[2]) {
            int idx = grp_base(k[0]) + (k[1] - '0');
            parse_fp(v, rw->fe[idx]); rw->fe_set[idx] = 1;
        }
    }
}

static enum rx_instr_type type_by_name(const char *n) {
    for (int t = 0; t < RX_I_NOP; t++) if (!strcmp(rx_instr_name[t], n)) return (enum rx_instr_type)t;
    return RX_I_NOP;
}

static unsigned first_opcode(enum rx_instr_type t) {
    for (unsigned op = 0; op < 256; op++) if (rx_instr_type_of((uint8_t)op) == t) return op;
    return 0;
}
static unsigned last_opcode(enum rx_instr_type t) {
    unsigned last = 0;
    for (unsigned op = 0; op < 256; op++) if (rx_instr_type_of((uint8_t)op) == t) last = op;
    return last;
}

static void setup_state(struct rx_vm_state *st, const struct row *rw, int fprc) {
    memset(st, 0, sizeof *st);
    memset(g_sp, 0, RX_SCRATCHPAD_L3);
    st->scratchpad = g_sp;
    st->version = 1;
    st->fprc = (uint32_t)(fprc < 0 ? 0 : fprc);
    for (int i = 0; i < 8; i++) if (rw->r_set[i]) st->r[i] = rw->r[i];
    for (int i = 0; i < 4; i++) {
        if (rw->fe_set[i]) memcpy(st->f[i], rw->fe[i], 16);
        if (rw->fe_set[4 + i]) memcpy(st->e[i], rw->fe[4 + i], 16);
        if (rw->fe_set[8 + i]) memcpy(st->a[i], rw->fe[8 + i], 16);
    }
    if (rw->has_emask) { st->e_mask[0] = rw->emask[0]; st->e_mask[1] = rw->emask[1]; }
    if (rw->has_sp64) memcpy(g_sp, &rw->sp64, 8);
    if (rw->has_sp32) { memcpy(g_sp, &rw->sp32[0], 4); memcpy(g_sp + 4, &rw->sp32[1], 4); }
}

static struct rx_instr make_instr(const struct row *rw, enum rx_instr_type t, int high) {
    struct rx_instr in;
    in.opcode = (uint8_t)(high ? last_opcode(t) : first_opcode(t));
    /* the high bits of dst/src must be ignored (the source sets 192 | reg) */
    in.dst = (uint8_t)((rw->dst_grp == 'e' ? 0 : 0) + rw->dst + (high ? 0xc0 : 0));
    in.src = (uint8_t)(rw->src + (high ? 0xc0 : 0));
    in.mod = (uint8_t)rw->mod;
    in.imm32 = rw->imm32;
    return in;
}

static int rows_exec, rows_decode;

static void run_exec_row(const struct row *rw, const char *expect) {
    enum rx_instr_type t = type_by_name(rw->name);
    CHECK(t != RX_I_NOP);
    int nmodes = rw->nfprc ? rw->nfprc : 1;
    for (int high = 0; high < 2; high++)
    for (int m = 0; m < nmodes; m++) {
        struct rx_vm_state st;
        setup_state(&st, rw, rw->nfprc ? rw->fprc[m] : 0);
        struct rx_program prog;
        memset(&prog, 0, sizeof prog);
        struct rx_decoded dec;
        if (t == RX_I_CBRANCH) {
            /* [0] IADD_RS r1 += r2 (counts passes), [1] CBRANCH dst; r0 was
             * never modified, so a taken branch resumes at 0. */
            struct row cb = *rw;
            cb.mod = 3u << 4;            /* cond 3 -> imm 0x...c0cb9ad2, mask 0x7f800 */
            cb.imm32 = 0xc0cb96d2u;
            prog.instructions[0].opcode = (uint8_t)first_opcode(RX_I_IADD_RS);
            prog.instructions[0].dst = 1; prog.instructions[0].src = 2;
            prog.instructions[1] = make_instr(&cb, RX_I_CBRANCH, high);
            prog.count = 2;
            st.r[2] = 1;
            rx_interp_decode(&dec, &prog, 1);
            rx_interp_exec_once(&st, &dec);
            int taken = st.r[1] >= 2;
            CHECK(taken == (strcmp(expect, "taken") == 0));
            CHECK(dec.ops[1].imm == 0xffffffffc0cb9ad2ull);
            continue;
        }
        prog.instructions[0] = make_instr(rw, t, high);
        prog.count = 1;
        rx_interp_decode(&dec, &prog, 1);
        rx_interp_exec_once(&st, &dec);
        if (expect[0] == 'r' && expect[2] == '=') {
            char buf[256]; snprintf(buf, sizeof buf, "%s", expect);
            char *save = NULL;
            for (char *it = strtok_r(buf, ";", &save); it; it = strtok_r(NULL, ";", &save)) {
                int reg = it[1] - '0';
                uint64_t want = num(it + 3);
                if (st.r[reg] != want)
                    fprintf(stderr, "  %s: r%d = %016llx want %016llx\n", rw->name, reg,
                            (unsigned long long)st.r[reg], (unsigned long long)want);
                CHECK(st.r[reg] == want);
            }
        } else {
            uint8_t want[16];
            CHECK(test_unhex(expect, want, 16) == 16);
            const double *got = rw->dst_grp == 'e' ? st.e[rw->dst] : st.f[rw->dst];
            if (memcmp(got, want, 16)) fprintf(stderr, "  %s fprc=%d\n", rw->name, rw->nfprc ? rw->fprc[m] : 0);
            CHECK_MEM(got, want, 16);
        }
    }
    rows_exec++;
}

static void run_decode_row(const struct row *rw, const char *expect, const char *note) {
    enum rx_instr_type t = type_by_name(rw->name);
    CHECK(t != RX_I_NOP);
    struct rx_program prog;
    struct rx_decoded dec;
    memset(&prog, 0, sizeof prog);
    struct row r2 = *rw;
    int same = note && strstr(note, "src==dst") != NULL;
    if (!rw->has_src) { r2.src = same ? r2.dst : (r2.dst + 1) % 8; }
    if (t == RX_I_CBRANCH) {
        prog.instructions[0] = make_instr(&r2, t, 1);
        prog.count = 1;
        rx_interp_decode(&dec, &prog, 1);
        const char *im = strstr(expect, "imm="), *mm = strstr(expect, "memMask=");
        CHECK(im && mm);
        CHECK(dec.ops[0].type == OP_CBRANCH);
        CHECK(dec.ops[0].imm == num(im + 4));
        CHECK(((uint64_t)RX_CONDITION_MASK << dec.ops[0].shift) == num(mm + 8));
        CHECK(dec.ops[0].mask == 0);   /* r0 never modified: resume at 0 */
        /* a CBRANCH at 200 after one at 100 resumes after 100 */
        memset(&prog, 0, sizeof prog);
        for (int i = 0; i < 256; i++) {  /* FP-only filler modifies no integer register */
            prog.instructions[i].opcode = (uint8_t)first_opcode(RX_I_FMUL_R);
        }
        prog.instructions[100] = make_instr(&r2, t, 0);
        prog.instructions[200] = make_instr(&r2, t, 0);
        prog.count = 256;
        rx_interp_decode(&dec, &prog, 1);
        CHECK(dec.ops[200].type == OP_CBRANCH && dec.ops[200].mask == 101);
        rows_decode++;
        return;
    }
    if (t == RX_I_CFROUND) {
        prog.instructions[0] = make_instr(&r2, t, 1);
        prog.count = 1;
        for (unsigned v = 1; v <= 2; v++) {
            rx_interp_decode(&dec, &prog, v);
            const char *rot = strstr(expect, "rotate=");
            CHECK(rot && dec.ops[0].imm == num(rot + 7));
            CHECK(dec.ops[0].type == (v == 1 ? OP_CFROUND1 : OP_CFROUND2));
        }
        rows_decode++;
        return;
    }
    if (t == RX_I_IMUL_RCP) {
        prog.instructions[0] = make_instr(&r2, t, 1);
        prog.count = 1;
        rx_interp_decode(&dec, &prog, 1);
        if (strstr(expect, "type=NOP")) CHECK(dec.ops[0].type == OP_NOP);
        else {
            CHECK(dec.ops[0].type == OP_IMUL_I);
            CHECK(dec.ops[0].imm == rx_reciprocal(rw->imm32));
        }
        rows_decode++;
        return;
    }
    /* memory-operand level selection */
    prog.instructions[0] = make_instr(&r2, t, 1);
    prog.count = 1;
    rx_interp_decode(&dec, &prog, 1);
    const char *mm = strrchr(expect, '=');
    CHECK(mm != NULL);
    uint32_t want = (uint32_t)num(mm + 1);
    if (dec.ops[0].mask != want)
        fprintf(stderr, "  %s: mask %x want %x\n", rw->name, dec.ops[0].mask, want);
    CHECK(dec.ops[0].mask == want);
    CHECK(dec.ops[0].imm == (uint64_t)(int64_t)(int32_t)rw->imm32);
    rows_decode++;
}

static int instr_row(char **f, int nf, void *ctx) {
    (void)ctx;
    if (nf < 3 || strncmp(f[0], "instr:", 6) != 0) return 0;
    struct row rw;
    memset(&rw, 0, sizeof rw);
    snprintf(rw.name, sizeof rw.name, "%s", f[0] + 6);
    char *dash = strstr(rw.name, "-decode");
    if (dash) { *dash = 0; rw.decode = 1; }
    char in[1024];
    snprintf(in, sizeof in, "%s", f[1]);
    parse_input(&rw, in);
    if (rw.decode) run_decode_row(&rw, f[2], nf > 3 ? f[3] : "");
    else run_exec_row(&rw, f[2]);
    return 0;
}

static void t_instr_vectors(void) {
    long n = test_tsv_each("randomx-components.tsv", instr_row, NULL);
    CHECK(n > 0);
    fprintf(stderr, "instr rows: %d execute, %d decode\n", rows_exec, rows_decode);
    CHECK(rows_exec == 32);
    CHECK(rows_decode == 16);
}

static void t_table(void) {
    unsigned sum = 0, counts[RX_I_COUNT] = {0};
    for (int t = 0; t < RX_I_NOP; t++) sum += rx_instr_freq[t];
    CHECK(sum == 256);
    for (unsigned op = 0; op < 256; op++) counts[rx_instr_type_of((uint8_t)op)]++;
    for (int t = 0; t < RX_I_NOP; t++) CHECK(counts[t] == rx_instr_freq[t]);
    CHECK(RX_FIRST_OP_IADD_RS == 0 && RX_LAST_OP_IADD_RS == 15);
    CHECK(RX_FIRST_OP_IADD_M == 16 && RX_LAST_OP_ISTORE == 255);
    CHECK(rx_instr_type_of(RX_FIRST_OP_FMUL_R) == RX_I_FMUL_R);
}

static void t_config(void) {
    struct rx_program prog;
    memset(&prog, 0, sizeof prog);
    for (int i = 0; i < 16; i++) prog.entropy[i] = UINT64_C(0x0123456789abcdef) * (uint64_t)(i + 1);
    prog.entropy[12] = 0xa;  /* 1010b: r0, r3, r4, r7 */
    struct rx_vm_state st;
    memset(&st, 0, sizeof st);
    rx_vm_state_configure(&st, &prog);
    CHECK(st.read_reg[0] == 0 && st.read_reg[1] == 3 && st.read_reg[2] == 4 && st.read_reg[3] == 7);
    for (int i = 0; i < 4; i++) for (int h = 0; h < 2; h++) {
        double a = st.a[i][h];
        CHECK(a >= 1.0 && a < 4294967296.0);
    }
    CHECK((st.ma & 63) == 0);
    CHECK(st.dataset_offset % 64 == 0 && st.dataset_offset <= RX_DATASET_EXTRA_SIZE);
    CHECK(rx_small_positive_float_bits(0) == 0x3ff0000000000000ull);
    CHECK(rx_float_mask(0) == 0x3000000000000000ull);
    CHECK(rx_float_mask(~0ull) == (0x3f00000000000000ull | 0x3fffff));
    /* parse: little-endian fields */
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_SIZE_V1)];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)i;
    rx_program_parse(&prog, bytes, RX_PROGRAM_SIZE_V1);
    CHECK(prog.count == 256);
    CHECK(prog.entropy[0] == 0x0706050403020100ull);
    CHECK(prog.instructions[0].opcode == 128 && prog.instructions[0].dst == 129);
    CHECK(prog.instructions[0].imm32 == 0x87868584u);
}

/* CFROUND: v1 always sets fprc; v2 only when bits 2-5 of the rotated value are 0. */
static void t_cfround_versions(void) {
    struct rx_program prog;
    memset(&prog, 0, sizeof prog);
    prog.instructions[0].opcode = (uint8_t)first_opcode(RX_I_CFROUND);
    prog.instructions[0].src = 1;
    prog.instructions[0].imm32 = 0;   /* rotate 0 */
    prog.count = 1;
    struct rx_decoded dec;
    struct rx_vm_state st;
    memset(&st, 0, sizeof st);
    st.scratchpad = g_sp;
    for (unsigned v = 1; v <= 2; v++) {
        rx_interp_decode(&dec, &prog, v);
        st.fprc = 0; st.r[1] = 0x6;   /* bits 0-1 = 2, bit 2 set */
        rx_interp_exec_once(&st, &dec);
        CHECK(st.fprc == (v == 1 ? 2u : 0u));
        st.fprc = 0; st.r[1] = 0x3;   /* bits 2-5 clear */
        rx_interp_exec_once(&st, &dec);
        CHECK(st.fprc == 3);
        st.fprc = 1; st.r[1] = 0x40;  /* bit 6 set only: v2 applies (bits 2-5 clear) */
        rx_interp_exec_once(&st, &dec);
        CHECK(st.fprc == 0);
    }
    /* the caller's rounding mode is restored */
    CHECK(fegetround() == FE_TONEAREST);
}

/* ISTORE / ISWAP_R / IMUL_RCP no-op forms. */
static void t_misc_forms(void) {
    struct rx_program prog;
    memset(&prog, 0, sizeof prog);
    prog.instructions[0].opcode = (uint8_t)first_opcode(RX_I_ISTORE);
    prog.instructions[0].dst = 2; prog.instructions[0].src = 3;
    prog.instructions[0].mod = 0xe0;  /* cond 14: L3 */
    prog.instructions[0].imm32 = 8;
    prog.instructions[1].opcode = (uint8_t)first_opcode(RX_I_ISWAP_R);
    prog.instructions[1].dst = 4; prog.instructions[1].src = 4;
    prog.instructions[2].opcode = (uint8_t)first_opcode(RX_I_IMUL_RCP);
    prog.instructions[2].dst = 5; prog.instructions[2].imm32 = 1u << 20;
    prog.instructions[3].opcode = (uint8_t)first_opcode(RX_I_IROL_R);
    prog.instructions[3].dst = 6; prog.instructions[3].src = 6; prog.instructions[3].imm32 = 4;
    prog.count = 4;
    struct rx_decoded dec;
    rx_interp_decode(&dec, &prog, 2);
    CHECK(dec.ops[0].mask == RX_SCRATCHPAD_L3_MASK);
    CHECK(dec.ops[1].type == OP_NOP && dec.ops[2].type == OP_NOP);
    struct rx_vm_state st;
    memset(&st, 0, sizeof st);
    memset(g_sp, 0, RX_SCRATCHPAD_L3);
    st.scratchpad = g_sp;
    st.r[2] = 0x100000 - 8 + 0x200000;  /* (r2 + 8) & L3 mask = 0x100000 */
    st.r[3] = 0x1122334455667788ull;
    st.r[4] = 7; st.r[5] = 9; st.r[6] = 0x1000000000000001ull;
    rx_interp_exec_once(&st, &dec);
    uint64_t v;
    memcpy(&v, g_sp + 0x100000, 8);
    CHECK(v == 0x1122334455667788ull);
    CHECK(st.r[4] == 7 && st.r[5] == 9);
    CHECK(st.r[6] == 0x0000000000000011ull);
}

static void t_disasm(void) {
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_SIZE_V2)];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (uint8_t)(i * 97 + 13);
    struct rx_program prog;
    rx_program_parse(&prog, bytes, RX_PROGRAM_SIZE_V2);
    char *buf = NULL; size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    CHECK(fp != NULL);
    if (!fp) return;
    CHECK(rx_program_print(&prog, fp) == 0);
    fclose(fp);
    int lines = 0;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    CHECK(lines == 16 + 384);
    CHECK(strstr(buf, "  0: ") != NULL);
    free(buf);
    CHECK(rx_program_print(NULL, stdout) == -1);
}

int main(void) {
    g_sp = calloc(1, RX_SCRATCHPAD_L3);
    if (!g_sp) return 1;
    RUN(t_table);
    RUN(t_instr_vectors);
    RUN(t_config);
    RUN(t_cfround_versions);
    RUN(t_misc_forms);
    RUN(t_disasm);
    free(g_sp);
    return test_summary();
}
