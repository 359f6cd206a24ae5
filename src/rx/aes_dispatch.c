/* SPDX-License-Identifier: ISC */
/* src/rx/aes_dispatch.c — the one place an AES backend is chosen (aes.h):
 * hardware (AES-NI on x86-64, the ARMv8 crypto extension on AArch64) where
 * this build has it and the CPU runs it, else the portable software AES;
 * RX_FLAG_HARD_AES / RX_FLAG_SOFT_AES force one.  The interpreter and the
 * generators take the backend (rx_aes_select), the JITs the same choice as
 * a flag (rx_aes_choose: they emit the AES themselves). */
#include "rx/aes.h"
#include "rx/cpu.h"
#include "rxlock/rx.h"

const struct rx_aes_ops *rx_aes_hw_ops(void) {
    if (!rx_cpu_has_hw_aes()) return NULL;
#if defined(__x86_64__)
    return rx_aes_ni_ops();
#elif defined(__aarch64__)
    return rx_aes_armv8_ops();
#else
    return NULL;
#endif
}

int rx_aes_choose(unsigned flags, int *soft) {
    if (!soft) return RX_EINVAL;
    int hard = (flags & RX_FLAG_HARD_AES) != 0, sw = (flags & RX_FLAG_SOFT_AES) != 0;
    if (hard && sw) return RX_EINVAL;
    if (hard && !rx_aes_hw_ops()) return RX_ENOTSUP;
    *soft = sw || !rx_aes_hw_ops();
    return 0;
}

const struct rx_aes_ops *rx_aes_select(unsigned flags) {
    if (flags & RX_FLAG_HARD_AES) return rx_aes_hw_ops();
    if (flags & RX_FLAG_SOFT_AES) return rx_aes_soft_ops();
    const struct rx_aes_ops *hw = rx_aes_hw_ops();
    return hw ? hw : rx_aes_soft_ops();
}
