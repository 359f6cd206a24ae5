/* SPDX-License-Identifier: ISC */
/* include/rxlock/version.h — the library's version, at compile time (the
 * macros) and at run time (rxlock_version: the library actually linked).
 * The Makefile reads its VERSION from RXLOCK_VERSION_STRING here. */
#ifndef RXLOCK_VERSION_H
#define RXLOCK_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define RXLOCK_VERSION_MAJOR  0
#define RXLOCK_VERSION_MINOR  1
#define RXLOCK_VERSION_PATCH  0
#define RXLOCK_VERSION_STRING "0.1.0"
/* MAJOR * 10000 + MINOR * 100 + PATCH, for #if comparisons. */
#define RXLOCK_VERSION_NUMBER (RXLOCK_VERSION_MAJOR * 10000 + RXLOCK_VERSION_MINOR * 100 + RXLOCK_VERSION_PATCH)

#pragma GCC visibility push(default)
/* The linked library's RXLOCK_VERSION_STRING ("0.1.0"); never NULL.  A
 * program can compare it with the header it was built against. */
const char *rxlock_version(void);
/* The linked library's RXLOCK_VERSION_NUMBER. */
int rxlock_version_number(void);
#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
