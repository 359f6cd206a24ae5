/* SPDX-License-Identifier: ISC */
/* include/rxlock/container.h — the single-file time-lock container
 * (.rxlock): a plain-text notice, the puzzle JSON, and an age v1 payload
 * encrypted to the puzzle's epoch recipient.  Layout: docs/FORMAT.md,
 * "Single-file container (.rxlock)".  Public API (prefix tl_container_).
 *
 *   make:  tl_generate() -> tl_container_notice() -> tl_container_write()
 *   open:  tl_container_parse() -> tl_puzzle_parse() -> tl_solve() -> x
 *          -> tl_container_open_payload(x)
 */
#ifndef RXLOCK_CONTAINER_H
#define RXLOCK_CONTAINER_H
#include "rxlock/rxlock.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

#define TL_CONTAINER_MAGIC      "rxlock time-locked file v1"
#define TL_CONTAINER_NOTICE_MAX 8192u    /* bytes of notice lines          */
#define TL_CONTAINER_LINE_MAX   256u     /* one notice line, without LF    */

/* The notice text (every line starts with '#') for puzzle pz; name is the
 * container's file name shown in the "rxlock unlock NAME" line.  0, or
 * TL_EINVAL (NULL argument) / TL_ETOOBIG (cap too small). */
int tl_container_notice(char *buf, size_t cap, const tl_puzzle *pz, const char *name);

/* Write the container to out_fd: magic line, the notice (normally
 * tl_container_notice's text: every line starting with '#' and ending with
 * LF, at most TL_CONTAINER_LINE_MAX bytes each, TL_CONTAINER_NOTICE_MAX in
 * all), "puzzle N" line, the N bytes of puzzle JSON (json, as tl_generate
 * gave it), LF, then the age payload: everything readable from in_fd
 * encrypted to the puzzle's epoch recipient.  Returns 0 or a TL_AGE_E*
 * code (TL_AGE_EIO, errno kept, when writing the prelude fails;
 * TL_AGE_EINVAL for bad arguments or a notice outside those rules). */
int tl_container_write(int out_fd, int in_fd, const tl_puzzle *pz,
                       const char *json, size_t json_len, const char *notice);

/* Parse the prelude of a container open on fd (at offset 0), reading only
 * what it needs: *json (malloc'd, NUL-terminated, *json_len bytes; the
 * caller frees it) and *payload_off, the offset of the age file.  0, or
 * TL_EIO (errno kept) / TL_EFORMAT / TL_ETOOBIG / TL_ENOMEM / TL_EINVAL
 * with a one-line reason in err (when err is not NULL). */
int tl_container_parse(int fd, char **json, size_t *json_len, off_t *payload_off,
                       char *err, size_t errlen);

/* Decrypt the age payload at payload_off of fd (seekable) with the epoch
 * secret x and write the plaintext to out_fd.  0 or a TL_AGE_E* code. */
int tl_container_open_payload(int fd, off_t payload_off, const uint8_t x[32], int out_fd);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
