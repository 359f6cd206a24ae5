/* SPDX-License-Identifier: ISC */
/* src/cli/feed_archive.c — a reader's side of a feed's archive: an epoch
 * that left the feed's window is found in its archive page, fetched from
 * the same source and checked against the feed that leads to it (the
 * same signer and schedule; docs/FORMAT.md §Archive pages).  Used by
 * `decrypt --feed` (keys room) and by anyone else reading old epochs. */
#include "cli/feed.h"
#include "cli/cli.h"
#include <stdlib.h>

int bcn_archive_page(const bcn_src *s, const tl_beacon_feed *f, uint64_t K, tl_beacon_feed **page) {
    char rel[TL_BEACON_PATH_MAX], err[512];
    uint8_t *buf = NULL;
    size_t len = 0;
    *page = NULL;
    if (K >= f->archive_pages || tl_beacon_archive_path(K, rel) != TL_OK) return 0;
    int r = bcn_fetch(s, rel, TL_BEACON_MAX_FEED_BYTES, &buf, &len, err, sizeof err);
    if (r == 1) return 0;   /* no page: it held no epoch */
    if (r) { cli_error("%s", err); return -1; }
    int rc = tl_beacon_archive_parse((const char *)buf, len, f, K, page, err, sizeof err);
    free(buf);
    if (rc) { cli_error("%s/%s: refused: %s", s->base, rel, err); return -1; }
    (*page)->updated = f->updated;
    (*page)->archive_pages = f->archive_pages;
    return 1;
}

int bcn_feed_archived(const bcn_src *s, tl_beacon_feed **f, uint64_t E) {
    tl_beacon_feed *pg = NULL;
    if (tl_beacon_find(*f, E) >= 0) return 0;
    int r = bcn_archive_page(s, *f, E / TL_BEACON_PAGE_EPOCHS, &pg);
    if (r <= 0) return r;
    if (tl_beacon_find(pg, E) < 0) { tl_beacon_feed_free(pg); return 0; }
    tl_beacon_feed_free(*f);
    *f = pg;
    return 1;
}
