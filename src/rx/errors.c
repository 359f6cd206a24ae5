/* SPDX-License-Identifier: ISC */
/* src/rx/errors.c — rx_strerror: the names of the engine's RX_E* codes
 * (-1 .. -99 of the library's error space, include/rxlock/error.h).  On its
 * own so that anything naming errors links without the engine. */
#include "rxlock/rx.h"

const char *rx_strerror(int err) {
    switch (err) {
    case RX_OK:        return "success";
    case RX_EINVAL:    return "invalid argument";
    case RX_ENOMEM:    return "out of memory";
    case RX_EPROT:     return "page-permission change failed";
    case RX_ENOTSUP:   return "not supported on this CPU or build";
    case RX_ESTATE:    return "object not initialised or wrong mode";
    case RX_EINTERNAL: return "internal error";
    case RX_EJIT:      return "the JIT was required but cannot start here";
    default:           return "unknown error";
    }
}
