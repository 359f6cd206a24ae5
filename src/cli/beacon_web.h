/* SPDX-License-Identifier: ISC */
/* src/cli/beacon_web.h — publishing the beacon's web page (index.html,
 * app.js, style.css; built by `make web`) into a beacon's public directory. */
#ifndef RXLOCK_CLI_BEACON_WEB_H
#define RXLOCK_CLI_BEACON_WEB_H
#include <stddef.h>

/* Copy the web page's files into public_dir, each replaced atomically
 * (temp file, fsync, rename, fsync of the directory).  The files come from
 * the first directory holding all three of: $RXLOCK_WEB_DIR; web/ beside
 * the running binary (the build tree: build/rxlock, build/web); the
 * installed ../share/rxlock/web beside the binary's directory; and
 * PREFIX/share/rxlock/web as built.  When none holds the page, prints one
 * note on stderr and returns 0 having written nothing.  0 on success, -1
 * with the reason in err on a failed read or write. */
int cli_beacon_web_publish(const char *public_dir, char *err, size_t errlen);
#endif
