/* SPDX-License-Identifier: ISC */
/* src/lock/core/errors.c — the one strerror of the library (rxlock_strerror,
 * alias tl_strerror) over the three error ranges of include/rxlock/error.h,
 * work-function names, and tl_set_err (the error-text buffer the layer fills). */
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/error.h"
#include "rxlock/rx.h"
#include "rxlock/pq.h"
#include "core_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Codes of the time-lock range (-100 .. -199). */
static const char *tl_message(int err) {
    switch (err) {
    case TL_EINVAL:   return "invalid argument or parameter out of bounds";
    case TL_ENOMEM:   return "not enough memory";
    case TL_EIO:      return "I/O error";
    case TL_EFORMAT:  return "malformed puzzle or journal";
    case TL_EVERSION: return "unsupported format version";
    case TL_ETOOBIG:  return "input too large";
    case TL_ESIG:     return "signature missing or invalid";
    case TL_EPIN:     return "puzzle not signed by the pinned signer";
    case TL_EAUTH:    return "wrap failed to authenticate (tampered puzzle or wrong chain value)";
    case TL_ECOMMIT:  return "recovered key does not match the epoch public key";
    case TL_EJOURNAL: return "journal does not belong to this puzzle or is unusable";
    case TL_EWORKER:  return "a worker process failed";
    case TL_EINTR:    return "interrupted";
    case TL_ERANDOM:  return "the system random generator failed";
    case TL_EWORK:    return "the work function failed";
    case TL_ENOTSUP:  return "work type or mode not supported";
    default:          return "unknown error";
    }
}

const char *rxlock_strerror(int err) {
    if (err == 0) return "success";
    if (err <= RXLOCK_ERANGE_RX_FIRST && err >= RXLOCK_ERANGE_RX_LAST) return rx_strerror(err);
    if (err <= RXLOCK_ERANGE_TL_FIRST && err >= RXLOCK_ERANGE_TL_LAST) return tl_message(err);
    if (err <= RXLOCK_ERANGE_AGE_FIRST && err >= RXLOCK_ERANGE_AGE_LAST) {
        const char *m = age_strerror(err);
        return strcmp(m, "unknown age error") == 0 ? "unknown error" : m;
    }
    if (err <= RXLOCK_ERANGE_PQ_FIRST && err >= RXLOCK_ERANGE_PQ_LAST) {
        const char *m = pq_strerror(err);
        return strcmp(m, "unknown post-quantum error") == 0 ? "unknown error" : m;
    }
    return "unknown error";
}

const char *tl_strerror(int err) { return rxlock_strerror(err); }

const char *tl_work_name(tl_work_type t) {
    switch (t) {
    case TL_WORK_RANDOMX_V2: return "randomx-v2";
    case TL_WORK_RANDOMX_V1: return "randomx-v1";
    case TL_WORK_SHA3_256:   return "sha3-256";
    default: return NULL;
    }
}

int tl_work_parse(const char *name, tl_work_type *t) {
    static const tl_work_type all[] = { TL_WORK_RANDOMX_V2, TL_WORK_RANDOMX_V1, TL_WORK_SHA3_256 };
    if (!name || !t) return TL_EINVAL;
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if (!strcmp(name, tl_work_name(all[k]))) { *t = all[k]; return TL_OK; }
    return TL_EINVAL;
}

void tl_set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
