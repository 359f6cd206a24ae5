/* src/lock/errors.c — tl_strerror and work-function names. */
#include "rxlock/rxlock.h"
#include <string.h>

const char *tl_strerror(int err) {
    switch (err) {
    case TL_OK:       return "success";
    case TL_EINVAL:   return "invalid argument or parameter out of bounds";
    case TL_ENOMEM:   return "out of memory";
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
    case TL_ENOTSUP:  return "not supported";
    default:          return "unknown error";
    }
}

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
