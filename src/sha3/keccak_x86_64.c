/* src/sha3/keccak_x86_64.c — x86-64 scalar Keccak-f[1600] backend ("bmi2"):
 * the scalar template built for BMI1/BMI2 (ANDN folds chi's NOT into one
 * instruction, so no lane complementing is needed; RORX rotates without
 * clobbering its source).  Chosen at run time when the CPU has both. */
#if defined(__x86_64__)
#include "sha3/internal.h"

#pragma GCC push_options
#pragma GCC target("bmi,bmi2")
#define KS_NAME(x) bmi2_##x
#include "sha3/keccak_scalar.h"
#undef KS_NAME
#pragma GCC pop_options

static int bmi2_available(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
}

const sha3_impl sha3_impl_bmi2 = {
    "bmi2", bmi2_available, bmi2_permute, bmi2_chain,
};
#else
typedef int sha3_keccak_x86_64_unused;   /* ISO C: no empty translation unit */
#endif
