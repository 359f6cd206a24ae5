/* SPDX-License-Identifier: ISC */
/* src/cli/feed_trust.c — what the CLI's beacon clients (encrypt / decrypt
 * --feed, beacon solve) check themselves before they believe a feed about
 * time, on top of the library's rule (include/rxlock/beacon.h, trust.c):
 * this client's floor table (--floor-table FILE, else the built-in one),
 * the sentence that says when the feed's floor is slower than this
 * client's, and the follower's memory of the last good feed (signer
 * continuity, no rollback; docs/SECURITY.md §What a beacon client checks). */
#include "cli/feed.h"
#include "cli/cli.h"
#include "util/util.h"
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>
#include <limits.h>
#include <string.h>
#include <errno.h>

int bcn_client_floor(const char *what, const tl_beacon_sched *s, const char *table, int say, tl_beacon_floor *fl) {
    tl_floor_table *ft = malloc(sizeof *ft);
    char err[256];
    if (!ft) return cli_error("out of memory");
    if (!table) tl_floor_builtin(ft);
    else if (tl_floor_load(table, ft, err, sizeof err)) { free(ft); return cli_error("%s", err); }
    const tl_floor_row *r = tl_floor_fastest(ft, s->work);
    tl_beacon_floor_of(s, tl_beacon_table_mhps(table ? ft : NULL, s->work), fl);   /* NULL: built-in (tests: theirs) */
    if (fl->recomputed && say) {
        char a[32], b[32];
        util_format_rate(a, sizeof a, (double)s->floor_mhps / 1000.0);
        util_format_rate(b, sizeof b, r ? r->rate : 0);
        fprintf(stderr, "rxlock: %s: the feed assumes %sH/s (%s); this client's floor is %sH/s (%s, %s): earliest "
                "openings recomputed\n", what, a, s->floor_row, b, r ? r->machine : "?", ft->origin);
    }
    free(ft);
    return CLI_OK;
}

int bcn_refused(const char *what, const tl_beacon_verdict *v) {
    return cli_error("%s: %s", what, v->msg);
}

void bcn_follow_start(bcn_follow *w, const tl_beacon_feed *f, const uint8_t *accept) {
    memset(w, 0, sizeof *w);
    tl_beacon_seen_of(f, &w->seen);
    if (accept) { memcpy(w->accept, accept, 32); w->has_accept = 1; }
}

int bcn_follow_next(bcn_follow *w, const char *what, const tl_beacon_feed *nf) {
    tl_beacon_verdict v;
    if (tl_beacon_continuity(&w->seen, NULL, w->has_accept ? w->accept : NULL, nf, &v) != TL_OK) {
        if (v.reason == TL_BEACON_R_SIGNER) {
            char h[65];
            util_hex_encode(h, nf->beacon.signer, 32);
            cli_error("%s: %s: refused (to accept this rotation: --accept-signer %s); solving from the last good feed",
                      what, v.msg, h);
        } else {
            cli_error("%s: %s (%s)", what, v.msg, v.field);
        }
        return CLI_VERIFY;
    }
    tl_beacon_seen_of(nf, &w->seen);
    return CLI_OK;
}

int bcn_set_aside(const char *p) {
    char q[PATH_MAX + 32];
    for (int n = 0; n < 100; n++) {
        if (n) snprintf(q, sizeof q, "%s.set-aside.%d", p, n);
        else snprintf(q, sizeof q, "%s.set-aside", p);
        if (access(q, F_OK) == 0) continue;
        if (rename(p, q) != 0) return cli_error("%s: %s", p, strerror(errno));
        fprintf(stderr, "rxlock: %s does not open this epoch's recipient: set aside as %s\n", p, q);
        return 0;
    }
    return cli_error("%s: does not open this epoch's recipient, and 100 set-aside copies exist", p);
}

/* OUTDIR/.rxlock-beacon/signer: the signer whose identities OUTDIR holds. */
static int claim_read(const char *dir, uint8_t signer[32]) {
    char p[PATH_MAX];
    uint8_t *t = NULL;
    size_t l = 0, got = 0;
    snprintf(p, sizeof p, "%s/.rxlock-beacon/signer", dir);
    if (util_read_file(p, 256, &t, &l) != 0) return errno == ENOENT ? 0 : -1;
    char h[65];
    if (l >= 64) { memcpy(h, t, 64); h[64] = 0; }
    int ok = l >= 64 && util_hex_decode(h, signer, 32, &got) == 0 && got == 32;
    free(t);
    return ok ? 1 : -1;
}

static int claim_write(const char *dir, const uint8_t signer[32]) {
    char p[PATH_MAX], h[66];
    snprintf(p, sizeof p, "%s/.rxlock-beacon", dir);
    if ((mkdir(dir, 0700) != 0 && errno != EEXIST) || (mkdir(p, 0700) != 0 && errno != EEXIST))
        return cli_error("%s: %s", p, strerror(errno));
    util_hex_encode(h, signer, 32);
    h[64] = '\n';
    snprintf(p, sizeof p, "%s/.rxlock-beacon/signer", dir);
    return util_write_file_atomic(p, h, 65, 1, 0600) == 0 ? CLI_OK : cli_error("%s: %s", p, strerror(errno));
}

int bcn_ids_dir(char *ids, size_t cap, const uint8_t signer[32], int create) {
    uint8_t have[32];
    int c = claim_read(ids, have);
    if (c == 0 || (c == 1 && !memcmp(have, signer, 32))) return create && c == 0 ? claim_write(ids, signer) : CLI_OK;
    if (c < 0 && !create) return 1;   /* unreadable claim: read, never set aside */
    char sub[17], base[PATH_MAX];
    util_hex_encode(sub, signer, 8);
    snprintf(base, sizeof base, "%s", ids);
    if (strlen(base) + 18 >= cap) return cli_error("%s: path too long", base);
    snprintf(ids, cap, "%s/%s", base, sub);
    if (!create) return 1;
    fprintf(stderr, "rxlock: %s holds another beacon's identities: this beacon's go to %s\n", base, ids);
    return claim_write(ids, signer);
}

int64_t bcn_about(const tl_beacon_feed *f, const tl_beacon_epoch *e, int64_t mine) {
    /* at an assumed rate or observed; else the feed's "about" is its own floor: mine instead */
    int64_t a = f->beacon.assumed_mhps || f->about_from == TL_BEACON_ABOUT_OBSERVED ? e->about_opening : mine;
    return a > mine ? a : mine;
}
