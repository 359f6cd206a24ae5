/* SPDX-License-Identifier: ISC */
/* src/cli/beacon_web.c — the beacon's web page, copied into DIR/public/ by
 * `beacon run`.  Owned by the web page's work; until it lands this stub
 * publishes nothing (no page is built). */
#include "cli/beacon_cli.h"
#include <stdio.h>

int cli_beacon_web_publish(const char *public_dir, char *err, size_t errlen) {
    (void)public_dir;
    if (err && errlen) err[0] = 0;
    return 0;
}
