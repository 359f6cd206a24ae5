/* SPDX-License-Identifier: ISC */
/* src/rx/program.h — a RandomX program (spec 4.4-4.5) and the constants of
 * the VM's configuration (spec table 1.2.1, v2.0 configuration.h values).
 *
 * STABLE LAYOUT: a JIT (src/rx/jit.h) reads struct rx_program; fields are
 * only ever appended, never reordered.  Offsets are asserted below. */
#ifndef RX_PROGRAM_H
#define RX_PROGRAM_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "rx/instr.h"

#define RX_PROGRAM_SIZE_V1      256u
#define RX_PROGRAM_SIZE_V2      384u
#define RX_PROGRAM_MAX_SIZE     384u
#define RX_PROGRAM_ITERATIONS   2048u
#define RX_PROGRAM_COUNT        8u
/* Bytes AesGenerator4R produces to program the VM: 128 config + 8/instr. */
#define RX_PROGRAM_BYTES(count) (128u + 8u * (count))

#define RX_SCRATCHPAD_L1        16384u
#define RX_SCRATCHPAD_L2        262144u
#define RX_SCRATCHPAD_L3        2097152u
#define RX_SCRATCHPAD_L1_MASK   ((RX_SCRATCHPAD_L1 - 1) & ~7u)   /* 0x3ff8   */
#define RX_SCRATCHPAD_L2_MASK   ((RX_SCRATCHPAD_L2 - 1) & ~7u)   /* 0x3fff8  */
#define RX_SCRATCHPAD_L3_MASK   ((RX_SCRATCHPAD_L3 - 1) & ~7u)   /* 0x1ffff8 */
#define RX_SCRATCHPAD_L3_MASK64 ((RX_SCRATCHPAD_L3 - 1) & ~63u)  /* 0x1fffc0 */

#define RX_DATASET_BASE_SIZE    2147483648ull
#define RX_DATASET_EXTRA_SIZE   33554368ull
#define RX_DATASET_ITEM_SIZE    64u
#define RX_DATASET_EXTRA_ITEMS  (RX_DATASET_EXTRA_SIZE / RX_DATASET_ITEM_SIZE)
/* ma/mx -> dataset byte address mask (64-byte aligned, < base size). */
#define RX_CACHE_LINE_ALIGN_MASK ((uint32_t)((RX_DATASET_BASE_SIZE - 1) & ~63ull))

#define RX_JUMP_BITS            8u
#define RX_JUMP_OFFSET          8u
#define RX_CONDITION_MASK       ((1u << RX_JUMP_BITS) - 1)
#define RX_STORE_L3_CONDITION   14u

/* One instruction word (spec 5.1): byte 0 opcode, 1 dst, 2 src, 3 mod,
 * 4-7 imm32 little-endian. */
struct rx_instr {
    uint8_t  opcode;
    uint8_t  dst;
    uint8_t  src;
    uint8_t  mod;
    uint32_t imm32;
};
_Static_assert(sizeof(struct rx_instr) == 8, "rx_instr is one 8-byte word");
_Static_assert(offsetof(struct rx_instr, dst) == 1 && offsetof(struct rx_instr, src) == 2 &&
               offsetof(struct rx_instr, mod) == 3 && offsetof(struct rx_instr, imm32) == 4,
               "rx_instr has the word's byte layout (a little-endian host parses with one copy)");

static inline unsigned rx_mod_mem(const struct rx_instr *in)   { return in->mod & 3u; }
static inline unsigned rx_mod_shift(const struct rx_instr *in) { return (in->mod >> 2) & 3u; }
static inline unsigned rx_mod_cond(const struct rx_instr *in)  { return in->mod >> 4; }

/* The program: configuration quadwords (spec table 4.5.1) and the program
 * buffer.  count is RX_PROGRAM_SIZE_V1 or RX_PROGRAM_SIZE_V2. */
struct rx_program {
    uint64_t        entropy[16];                        /* offset 0   */
    struct rx_instr instructions[RX_PROGRAM_MAX_SIZE];  /* offset 128 */
    uint32_t        count;                              /* offset 3200 */
};
_Static_assert(offsetof(struct rx_program, entropy) == 0, "JIT ABI");
_Static_assert(offsetof(struct rx_program, instructions) == 128, "JIT ABI");
_Static_assert(offsetof(struct rx_program, count) == 128 + 8 * RX_PROGRAM_MAX_SIZE, "JIT ABI");

/* Parse the RX_PROGRAM_BYTES(count) bytes from AesGenerator4R (little-endian
 * fields, so the result is the same on any host).  count must be 256 or 384. */
void rx_program_parse(struct rx_program *prog, const uint8_t *bytes, uint32_t count);

/* Helpers of the configuration (spec 4.5.2, 4.5.6), exposed for tests/JITs. */
uint64_t rx_small_positive_float_bits(uint64_t entropy);  /* a registers */
uint64_t rx_float_mask(uint64_t entropy);                  /* E masks     */
#ifdef RXLOCK_TESTING
/* Print prog, one instruction per line (disasm.c, test build only).  0 or
 * -1 on write error. */
int rx_program_print(const struct rx_program *prog, FILE *fp);
#endif
/* IMUL_RCP's immediate is a no-op when 0 or a power of two. */
static inline int rx_is_zero_or_pow2(uint32_t x) { return (x & (x - 1)) == 0; }
#endif
