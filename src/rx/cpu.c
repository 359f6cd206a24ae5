/* src/rx/cpu.c — run-time CPU feature detection (cpuid on x86-64,
 * getauxval(AT_HWCAP) on AArch64).  Thread-safe: detection is idempotent
 * and guarded by pthread_once. */
#include "rx/cpu.h"
#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <asm/hwcap.h>
#endif

static struct rx_cpu_features g_feat;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void detect(void) {
    memset(&g_feat, 0, sizeof g_feat);
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        g_feat.ssse3 = (c >> 9) & 1;
        g_feat.sse41 = (c >> 19) & 1;
        g_feat.aes   = ((c >> 25) & 1) && g_feat.sse41;
        int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
        if (osxsave && avx) {
            unsigned lo, hi;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            (void)hi;
            if ((lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d))
                g_feat.avx2 = (b >> 5) & 1;
        }
    }
#elif defined(__aarch64__) && defined(__linux__)
    unsigned long hw = getauxval(AT_HWCAP);
#ifdef HWCAP_AES
    g_feat.aes = (hw & HWCAP_AES) ? 1 : 0;
#endif
#ifdef HWCAP_ASIMD
    g_feat.arm_asimd = (hw & HWCAP_ASIMD) ? 1 : 0;
#endif
#endif
}

const struct rx_cpu_features *rx_cpu_features(void) {
    (void)pthread_once(&g_once, detect);
    return &g_feat;
}

int rx_cpu_has_hw_aes(void) {
#if defined(__x86_64__) || defined(__aarch64__)
    return rx_cpu_features()->aes;
#else
    return 0;
#endif
}
