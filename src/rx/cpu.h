/* src/rx/cpu.h — run-time CPU feature detection for the RandomX engine
 * (hardware AES on x86-64 / AArch64, plus the SIMD levels other backends
 * may want).  Detection runs once; the answers are cached. */
#ifndef RX_CPU_H
#define RX_CPU_H

struct rx_cpu_features {
    int aes;      /* x86-64 AES-NI (with SSE4.1) or AArch64 crypto ext. AES */
    int ssse3;
    int sse41;
    int avx2;
    int arm_asimd;
};

/* Detected features of the running CPU (never NULL). */
const struct rx_cpu_features *rx_cpu_features(void);
/* 1 when the hardware AES backend of this build can run here, else 0. */
int rx_cpu_has_hw_aes(void);

#endif
