/* SPDX-License-Identifier: ISC */
/* src/util/cpufeat.c — the run-time CPU feature probe (see cpufeat.h).
 * x86-64: cpuid leaves 1 and 7, XCR0 through xgetbv; AArch64 Linux: the
 * AT_HWCAP auxiliary vector.  Other targets: every feature 0. */
#include "util/cpufeat.h"
#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <asm/hwcap.h>
#ifndef HWCAP_SHA3
#define HWCAP_SHA3 (1UL << 17)   /* arch/arm64/include/uapi/asm/hwcap.h */
#endif
#endif

static util_cpufeat g_feat;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__)
#define BIT(r, n) ((unsigned char)(((r) >> (n)) & 1u))
static void probe(util_cpufeat *f) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    f->ssse3 = BIT(c, 9);
    f->sse41 = BIT(c, 19);
    f->aesni = BIT(c, 25) & f->sse41;
    unsigned xcr0 = 0;
    if (BIT(c, 27)) {                       /* OSXSAVE: XCR0 readable */
        unsigned hi;
        __asm__ volatile("xgetbv" : "=a"(xcr0), "=d"(hi) : "c"(0));
        (void)hi;
    }
    int os_avx = BIT(c, 28) && (xcr0 & 0x06u) == 0x06u;       /* XMM, YMM */
    int os_avx512 = os_avx && (xcr0 & 0xe0u) == 0xe0u;      /* k, ZMM   */
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return;
    f->bmi1 = BIT(b, 3);
    f->bmi2 = BIT(b, 8);
    f->avx2 = (unsigned char)(os_avx && BIT(b, 5));
    f->avx512f = (unsigned char)(os_avx512 && BIT(b, 16));
    f->avx512vl = (unsigned char)(os_avx512 && BIT(b, 31));
    f->avx512dq = (unsigned char)(os_avx512 && BIT(b, 17));
}
#elif defined(__aarch64__) && defined(__linux__)
static void probe(util_cpufeat *f) {
    unsigned long hw = getauxval(AT_HWCAP);
#ifdef HWCAP_ASIMD
    f->arm_asimd = (hw & HWCAP_ASIMD) != 0;
#endif
#ifdef HWCAP_AES
    f->arm_aes = (hw & HWCAP_AES) != 0;
#endif
#ifdef HWCAP_SHA3
    f->arm_sha3 = (hw & HWCAP_SHA3) != 0;
#endif
    (void)hw;
}
#else
static void probe(util_cpufeat *f) { (void)f; }
#endif

static void once(void) {
    memset(&g_feat, 0, sizeof g_feat);
    probe(&g_feat);
}

const util_cpufeat *util_cpufeat_get(void) {
    (void)pthread_once(&g_once, once);
    return &g_feat;
}
