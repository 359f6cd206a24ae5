/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/web.c — cli_beacon_web_publish (declared in beacon_cli.h):
 * finds the built web page and copies its three files (index.html, app.js,
 * style.css) into a beacon's public directory, each replaced atomically
 * (temp file, fsync, rename, fsync of the directory).  It looks in the
 * first directory holding all three of: $RXLOCK_WEB_DIR (when set, only
 * there); web/ beside the running binary (the build tree: build/rxlock,
 * build/web, made by `make web`); ../share/rxlock/web beside the binary's
 * directory (an installed tree); PREFIX/share/rxlock/web as built.  When
 * none holds the page it prints one note and publishes nothing (0). */
#include "cli/beacon/beacon_cli.h"
#include "util/util.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RXLOCK_WEB_DIR_BUILT
#define RXLOCK_WEB_DIR_BUILT "/usr/local/share/rxlock/web"
#endif

static const char *const web_files[] = { "index.html", "app.js", "style.css" };
#define WEB_NFILES (sizeof web_files / sizeof web_files[0])
#define WEB_FILE_MAX ((size_t)16 << 20)     /* the bundle is ~120 KB */

/* dir holds every file of the page (regular files). */
static int web_dir_complete(const char *dir)
{
    char p[PATH_MAX];
    struct stat sb;
    for (size_t i = 0; i < WEB_NFILES; i++) {
        int n = snprintf(p, sizeof p, "%s/%s", dir, web_files[i]);
        if (n < 0 || (size_t)n >= sizeof p || stat(p, &sb) != 0 || !S_ISREG(sb.st_mode))
            return 0;
    }
    return 1;
}

/* The first complete candidate directory into out (PATH_MAX): 1, else 0. */
static int web_find_dir(char out[PATH_MAX])
{
    const char *env = getenv("RXLOCK_WEB_DIR");
    if (env && *env) {
        if (strlen(env) >= PATH_MAX) return 0;
        strcpy(out, env);
        return web_dir_complete(out);   /* named: no fallback elsewhere */
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            const char *rel[] = { "web", "../share/rxlock/web" };
            for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
                int m = snprintf(out, PATH_MAX, "%s/%s", exe, rel[i]);
                if (m > 0 && (size_t)m < PATH_MAX && web_dir_complete(out)) return 1;
            }
        }
    }
    strcpy(out, RXLOCK_WEB_DIR_BUILT);
    return web_dir_complete(out);
}

int cli_beacon_web_publish(const char *public_dir, char *err, size_t errlen)
{
    char src[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
    if (!web_find_dir(src)) {
        fprintf(stderr, "rxlock: note: the web page is not built (make web), so %s has no index.html%s\n",
                public_dir, getenv("RXLOCK_WEB_DIR") ? " (RXLOCK_WEB_DIR lacks index.html, app.js or style.css)" : "");
        return 0;
    }
    for (size_t i = 0; i < WEB_NFILES; i++) {
        int a = snprintf(from, sizeof from, "%s/%s", src, web_files[i]);
        int b = snprintf(to, sizeof to, "%s/%s", public_dir, web_files[i]);
        if (a < 0 || (size_t)a >= sizeof from || b < 0 || (size_t)b >= sizeof to) {
            snprintf(err, errlen, "%s/%s: path too long", public_dir, web_files[i]);
            return -1;
        }
        uint8_t *data = NULL;
        size_t len = 0;
        if (util_read_file(from, WEB_FILE_MAX, &data, &len) != 0) {
            snprintf(err, errlen, "%s: %s", from, strerror(errno));
            return -1;
        }
        int rc = util_write_file_atomic(to, data, len, 1, 0644);
        int e = errno;
        free(data);
        if (rc != 0) {
            snprintf(err, errlen, "%s: %s", to, strerror(e));
            return -1;
        }
    }
    return 0;
}
