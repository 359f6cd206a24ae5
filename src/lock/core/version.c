/* SPDX-License-Identifier: ISC */
/* src/lock/core/version.c — rxlock_version(): the linked library's version
 * (include/rxlock/version.h). */
#include "rxlock/version.h"

const char *rxlock_version(void) { return RXLOCK_VERSION_STRING; }
int rxlock_version_number(void) { return RXLOCK_VERSION_NUMBER; }
