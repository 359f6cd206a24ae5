/* SPDX-License-Identifier: ISC */
/* src/rx/cpu.h — the engine's one CPU question: may the hardware AES
 * backend of this build run here?  The probe itself is util/cpufeat.c. */
#ifndef RX_CPU_H
#define RX_CPU_H
#include "util/cpufeat.h"

/* 1 when the hardware AES backend of this build can run here, else 0. */
static inline int rx_cpu_has_hw_aes(void) {
    const util_cpufeat *f = util_cpufeat_get();
#if defined(__x86_64__)
    return f->aesni;
#elif defined(__aarch64__)
    return f->arm_aes;
#else
    (void)f;
    return 0;
#endif
}
#endif
