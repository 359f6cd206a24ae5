/* SPDX-License-Identifier: ISC */
/* src/age/age_errors.c — age_strerror: the names of the age layer's
 * TL_AGE_E* codes (-200 .. -299 of the library's error space,
 * include/rxlock/error.h).  On its own so that anything naming errors links
 * without the age code. */
#include "rxlock/age.h"

const char *age_strerror(int rc) {
    switch (rc) {
    case TL_AGE_OK:        return "success";
    case TL_AGE_EIO:       return "age: read or write failed";
    case TL_AGE_EHEADER:   return "malformed age header";
    case TL_AGE_EVERSION:  return "not an age v1 file (bad or missing \"age-encryption.org/v1\" line)";
    case TL_AGE_ENOMATCH:  return "no identity matched any of the file's recipients (wrong identity?)";
    case TL_AGE_EMAC:      return "header MAC mismatch: the header was modified";
    case TL_AGE_EPAYLOAD:  return "payload authentication failed: the file is corrupted, truncated or has trailing data";
    case TL_AGE_ETRUNC:    return "the file is truncated";
    case TL_AGE_ETRAILING: return "trailing data after the end of the age file";
    case TL_AGE_EARMOR:    return "malformed ASCII armor";
    case TL_AGE_EINVAL:    return "age: invalid argument (no recipient or identity, or too many)";
    case TL_AGE_ESCRYPT:   return "passphrase-encrypted (scrypt) age files are not supported";
    case TL_AGE_ECRYPTO:   return "cryptographic failure (bad key or CSPRNG)";
    case TL_AGE_ENOMEM:    return "age: out of memory";
    case TL_AGE_EKEY:      return "malformed age recipient or identity";
    default:               return "unknown age error";
    }
}
extern __typeof__(age_strerror) tl_age_strerror __attribute__((alias("age_strerror")));   /* old name, one release */
