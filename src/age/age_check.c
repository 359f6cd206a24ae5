/* SPDX-License-Identifier: ISC */
/* src/age/age_check.c — age_check_fd: what can be checked of an age v1
 * file without a key (its header's syntax and its payload's length), so
 * that a caller who will only get the key after long work can refuse a
 * broken file first. */
#include "age_internal.h"
#include <stdlib.h>

int age_check_fd(int in_fd) {
    age_in *in = malloc(sizeof *in);
    uint8_t buf[4096], none[16];
    if (!in) return TL_AGE_ENOMEM;
    age_in_init(in, in_fd);
    /* no identity: a well-formed header (X25519 or mlkem768x25519 stanzas) ends in "no match" */
    int rc = age_header_read(in, NULL, 0, NULL, 0, none);
    if (rc == TL_AGE_ENOMATCH) rc = 0;
    uint64_t n = 0;
    for (ssize_t k; rc == 0 && (k = age_in_read(in, buf, sizeof buf)) != 0; n += (uint64_t)k)
        if (k < 0) rc = (int)k;
    if (rc == 0) {
        /* 16-byte nonce, then chunks of at most 64 KiB + 16; only the last
         * may be shorter, and it is empty (16 bytes) only when it is the
         * first. */
        const uint64_t full = TL_AGE_CHUNK + TL_AGE_TAG;
        if (n < 16 + TL_AGE_TAG) rc = TL_AGE_ETRUNC;
        else {
            uint64_t p = n - 16, r = p % full;
            if ((r && r < TL_AGE_TAG) || (r == TL_AGE_TAG && p > full)) rc = TL_AGE_ETRUNC;
        }
    }
    if (rc && in->raw.err) rc = in->raw.err;
    free(in);
    return rc;
}
extern __typeof__(age_check_fd) tl_age_check_fd __attribute__((alias("age_check_fd")));   /* old name, one release */
