/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/archive.c — the operator's side of the feed's archive:
 * the epochs that leave the feed's window are written, page by page, to
 * public/archive/K.json (signed like the feed, each page written once and
 * never replaced; docs/FORMAT.md §Archive pages), before the feed that
 * says they are there. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "util/util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int bcn_archive_write(const bcn_dir *b, const uint8_t sk[64], const uint64_t *v, size_t n, uint64_t from,
                      uint64_t to, int64_t now) {
    const uint64_t P = TL_BEACON_PAGE_EPOCHS;
    char dir[PATH_MAX];
    bcn_file(b, dir, "public/archive");
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) return cli_error("%s: %s", dir, strerror(errno));
    size_t lo = 0;
    while (lo < n && v[lo] < from * P) lo++;
    for (uint64_t K = from; K < to; K++) {
        size_t hi = lo;
        while (hi < n && v[hi] < (K + 1) * P) hi++;
        if (hi == lo) continue;   /* no epoch there: no page */
        char rel[TL_BEACON_PATH_MAX], p[PATH_MAX];
        struct stat st;
        tl_beacon_archive_path(K, rel);
        bcn_file(b, p, "public/%s", rel);
        if (lstat(p, &st) == 0) { lo = hi; continue; }   /* written before: immutable */
        tl_beacon_feed *pg = NULL;
        int rc = bcn_epochs_from_files(b, v + lo, hi - lo, &pg);
        if (rc) return rc;
        pg->updated = now;
        tl_beacon_feed_observe_about(pg);
        tl_beacon_feed_derive(pg);
        char *text = NULL;
        size_t len = 0;
        int w = tl_beacon_archive_write(pg, K, sk, &text, &len);
        size_t listed = pg->n;
        tl_beacon_feed_free(pg);
        if (w) return cli_error("cannot build archive page %llu: %s", (unsigned long long)K, rxlock_strerror(w));
        w = util_write_file_atomic(p, text, len, 0, 0644);
        free(text);
        if (w != 0 && errno != EEXIST) return cli_error("%s: %s", p, strerror(errno));
        bcn_log("archived epochs %llu..%llu (%zu listed) in %s: they left the feed's window",
                (unsigned long long)(K * P), (unsigned long long)((K + 1) * P - 1), listed, rel);
        lo = hi;
    }
    return CLI_OK;
}
