/* SPDX-License-Identifier: ISC */
/* bench/bench_compile.c — what compiling one RandomX program costs, with
 * nothing run: K programs made as rx_vm_hash makes them (AesGenerator4R
 * from a 64-byte seed, parse, configure; the seed then moves on by a
 * Blake2b-512 of 256 bytes, as the register file would), each compiled by
 * rx_jit_compile (emission + install).  The two phases are separate
 * functions, so `valgrind --tool=callgrind` gives instructions per phase
 * (inclusive counts of gen_program and compile_program divided by K;
 * bench/README.md "Compile cost").  -t MiB writes that much memory between
 * programs (outside the timing), so the compile starts cold as after a
 * program run.  One JSON line on stdout.
 *
 * usage: bench_compile [-n PROGRAMS] [-t THRASH_MIB] [--v1] [--full] [--mprotect] [--emit-only]
 */
#include "rxlock/rx.h"
#include "rx/aes.h"
#include "rx/jit.h"
#include "rx/program.h"
#include "rx/vm_state.h"
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"

struct gen {
    const struct rx_aes_ops *aes;
    uint8_t seed[64];
    uint32_t count;
    struct rx_program prog;
    struct rx_vm_state st;
    uint8_t bytes[RX_PROGRAM_BYTES(RX_PROGRAM_MAX_SIZE)];
};

/* the next program and the state it configures */
__attribute__((noinline)) static void gen_program(struct gen *g) {
    (void)crypto_generichash(g->seed, 64, g->bytes, 256, NULL, 0);
    g->aes->fill4r(g->seed, g->bytes, RX_PROGRAM_BYTES(g->count));
    rx_program_parse(&g->prog, g->bytes, g->count);
    rx_vm_state_configure(&g->st, &g->prog);
}

__attribute__((noinline)) static int compile_program(rx_jit *jit, struct gen *g) {
    return rx_jit_compile(jit, &g->prog, &g->st);
}

/* --emit-only: the backend's emitter alone (into its staging buffer), no install */
__attribute__((noinline)) static int emit_only(rx_jit *jit, struct gen *g) {
    unsigned rr[4];
    size_t len = 0;
    for (int i = 0; i < 4; i++) rr[i] = g->st.read_reg[i];
    return rx_jit_core_of(jit)->arch->emit_program(jit, g->prog.instructions, g->prog.count, rr, &len);
}

int main(int argc, char **argv) {
    long n = 2000, thrash_mib = 0;
    int v1 = 0, full = 0, mprot = 0, emit = 0, o;
    static const struct option lo[] = { { "v1", no_argument, 0, '1' }, { "full", no_argument, 0, 'f' },
                                        { "mprotect", no_argument, 0, 'm' },
                                        { "emit-only", no_argument, 0, 'e' }, { 0, 0, 0, 0 } };
    while ((o = getopt_long(argc, argv, "n:t:", lo, NULL)) != -1) {
        switch (o) {
        case 'n': n = atol(optarg); break;
        case 't': thrash_mib = atol(optarg); break;
        case '1': v1 = 1; break;
        case 'f': full = 1; break;
        case 'm': mprot = 1; break;
        case 'e': emit = 1; break;
        default:
            fprintf(stderr, "usage: bench_compile [-n PROGRAMS] [-t THRASH_MIB] [--v1] [--full] [--mprotect] [--emit-only]\n");
            return 2;
        }
    }
    if (n < 1 || thrash_mib < 0 || thrash_mib > 4096 || sodium_init() < 0) return 2;
    static struct gen g;
    g.aes = rx_aes_select(RX_FLAG_HARD_AES);
    if (!g.aes) g.aes = rx_aes_soft_ops();
    g.count = v1 ? RX_PROGRAM_SIZE_V1 : RX_PROGRAM_SIZE_V2;
    g.st.version = v1 ? 1 : 2;
    g.st.program_size = g.count;
    g.st.iterations = RX_PROGRAM_ITERATIONS;
    unsigned flags = (v1 ? 0 : RX_FLAG_V2) | (full ? RX_FLAG_FULL : 0) | RX_FLAG_JIT | RX_FLAG_SECURE |
                     (g.aes->hardware ? RX_FLAG_HARD_AES : RX_FLAG_SOFT_AES) | (mprot ? RX_FLAG_JIT_MPROTECT : 0);
    rx_jit *jit = NULL;
    int rc = rx_jit_new(&jit, flags);
    if (rc) { fprintf(stderr, "rx_jit_new: %d\n", rc); return 1; }
    size_t tlen = (size_t)thrash_mib << 20;
    uint8_t *thrash = tlen ? malloc(tlen) : NULL;
    if (tlen && !thrash) return 1;
    const struct rx_jit_core *c = rx_jit_core_of(jit);
    uint64_t gen_ns = 0, comp_ns = 0, flips0 = c->mem.flips;
    crypto_generichash_state code_h;
    (void)crypto_generichash_init(&code_h, NULL, 0, 32);
    for (long i = 0; i < n && rc == 0; i++) {
        if (thrash) memset(thrash, (int)i, tlen);
        uint64_t t0 = util_now_ns();
        gen_program(&g);
        uint64_t t1 = util_now_ns();
        rc = emit ? emit_only(jit, &g) : compile_program(jit, &g);
        uint64_t t2 = util_now_ns();
        gen_ns += t1 - t0;
        comp_ns += t2 - t1;
        if (rc == 0 && !emit) (void)crypto_generichash_update(&code_h, c->mem.base + c->prog_off, c->mem.written);
    }
    if (rc) { fprintf(stderr, "rx_jit_compile: %d\n", rc); return 1; }
    uint8_t digest[32];
    char hex[65];
    (void)crypto_generichash_final(&code_h, digest, sizeof digest);
    util_hex_encode(hex, digest, sizeof digest);
    printf("{\"type\":\"%s\",\"version\":%d,\"mode\":\"%s\",\"programs\":%ld,\"thrash_mib\":%ld,"
           "\"gen_us_per_program\":%.3f,\"compile_us_per_program\":%.3f,\"flips_per_program\":%.2f,"
           "\"install\":\"%s\",\"code_bytes_last\":%zu,\"code_digest\":\"%s\"}\n",
           emit ? "emit" : "compile", v1 ? 1 : 2, full ? "full" : "light", n, thrash_mib, (double)gen_ns / 1e3 / (double)n,
           (double)comp_ns / 1e3 / (double)n, (double)(c->mem.flips - flips0) / (double)n, rx_jit_install(jit),
           c->mem.written, hex);
    rx_jit_free(jit);
    free(thrash);
    return 0;
}
