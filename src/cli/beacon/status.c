/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/status.c — `rxlock beacon status DIR|URL`: the checked
 * feed as text (the schedule, then each epoch's state, release, earliest
 * and "about" openings with countdowns, and the opening through the sealed
 * path should the operator go) or as one JSON line (--json); warns when
 * fewer epochs are generated ahead than the schedule's `ahead`.  On the
 * beacon's own DIR, then the service's record for its operator (the epoch
 * being made, its ETA against its release, the keep-up margin, the cluster
 * jobs, the last error; metrics.c): a section, or a second JSON line. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void countdown(char *buf, size_t cap, int64_t t, int64_t now) {
    char d[32];
    util_format_duration(d, sizeof d, (double)(t > now ? t - now : now - t));
    snprintf(buf, cap, t > now ? "in %s" : "%s ago", d);
}

int bcn_cmd_status(int argc, char **argv) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"signer-pin", required_argument, 0, 'p'}, {0, 0, 0, 0}
    };
    int json = 0, c;
    const char *pinhex = NULL;
    uint8_t pin[32];
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'p': pinhex = optarg; break;
        case ':': return cli_usage_error("beacon status", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option("beacon status", optopt, argv[optind - 1]);
        }
    }
    if (optind + 1 != argc) return cli_usage_error("beacon status", "want one DIR or URL");
    if (pinhex && cli_parse_pin(pinhex, pin)) return cli_usage_error("beacon status", "--signer-pin: want 64 hex digits");
    bcn_src src;
    int rc = bcn_src_open(&src, argv[optind]);
    if (rc) return rc;
    tl_beacon_feed *f = NULL;
    if ((rc = bcn_feed_load(&src, pinhex ? pin : NULL, 0, &f)) != CLI_OK) return rc;
    const tl_beacon_sched *s = &f->beacon;
    int64_t now = tl_beacon_now();
    /* what a client checks itself (feed_trust.c): said, the feed still shown */
    tl_beacon_floor fl;
    tl_beacon_verdict v;
    if ((rc = bcn_client_floor(argv[optind], s, NULL, !json, &fl)) != CLI_OK) { tl_beacon_feed_free(f); return rc; }
    if (tl_beacon_feed_sane(f, now, &v) != TL_OK)
        fprintf(stderr, "rxlock: warning: %s: %s (%s): clients refuse to encrypt to this feed\n", argv[optind], v.msg,
                v.field);
    size_t ahead = 0;
    for (size_t k = 0; k < f->n; k++) ahead += f->epochs[k].release > now;
    if (json) {
        uint8_t *buf = NULL;
        size_t len = 0;
        char err[256];
        if (bcn_fetch(&src, "feed.json", TL_BEACON_MAX_FEED_BYTES, &buf, &len, err, sizeof err) == 0) {
            fwrite(buf, 1, len, stdout);   /* the file just checked (re-fetched: the same bytes but for a race) */
            if (!len || buf[len - 1] != '\n') fputc('\n', stdout);
        }
        free(buf);
    } else {
        char hex[65], t0[48], ev[32], fs[32], as[32], up[48];
        util_hex_encode(hex, s->signer, 32);
        bcn_time(t0, sizeof t0, s->start);
        bcn_time(up, sizeof up, f->updated);
        util_format_duration(ev, sizeof ev, (double)s->every);
        util_format_duration(fs, sizeof fs, (double)fl.seconds);   /* this client's floor */
        char from[96];
        util_format_duration(as, sizeof as, (double)tl_beacon_feed_about(f));
        if (f->about_from == TL_BEACON_ABOUT_OBSERVED)   /* the beacon's own record, said as such */
            snprintf(from, sizeof from, " (observed: the median release-to-identity time of its last %u solved epoch%s)",
                     f->about_samples, f->about_samples == 1 ? "" : "s");
        else
            snprintf(from, sizeof from, "%s", s->assumed_mhps ? " (at the assumed rate)" : " (the floor: no rate given)");
        printf("beacon %s\n  signer %s%s\n  an epoch every %s from %s; %u x %llu %s hashes; keys: %s\n"
               "  opens no sooner than %s after release (%s), about %s%s; sealing: %s\n  feed updated %s; now %lld\n",
               src.base, hex, pinhex ? " (pinned)" : "", ev, t0, s->groups, (unsigned long long)s->steps,
               tl_work_name(s->work), s->kinds == 3 ? "classic + pq" : tl_beacon_kind_name((int)s->kinds), fs,
               fl.recomputed ? "this client's floor" : s->floor_row, as, from,
               tl_beacon_seal_links(s) ? "each epoch but 0" : "none (operator-only)", up,
               (long long)now);
        if (f->archive_pages)
            printf("  archive: epochs below %llu in up to %llu signed pages (archive/K.json)\n",
                   (unsigned long long)(f->archive_pages * TL_BEACON_PAGE_EPOCHS), (unsigned long long)f->archive_pages);
        static const char *const st[] = { "scheduled", "released", "solved" };
        for (size_t k = 0; k < f->n; k++) {
            const tl_beacon_epoch *e = &f->epochs[k];
            char r[48], rc2[48], eo[48], ec[48], ao[48];
            bcn_time(r, sizeof r, e->release);
            countdown(rc2, sizeof rc2, e->release, now);
            int64_t mine = tl_beacon_floor_opening(s, &fl, e->index);   /* this client's floor */
            bcn_time(eo, sizeof eo, mine);
            countdown(ec, sizeof ec, mine, now);
            bcn_time(ao, sizeof ao, bcn_about(f, e, mine));
            printf("epoch %llu  %-9s  release %s (%s)  opens >= %s (%s), about %s\n", (unsigned long long)e->index,
                   st[e->state], r, rc2, eo, ec, ao);
            for (unsigned q = 0; q < e->nkeys; q++) {
                const tl_beacon_key *y = &e->keys[q];
                char so[48] = "";
                if (y->has_sealed_opening) bcn_time(so, sizeof so, y->sealed_opening);
                printf("  %-7s %.72s%s\n          sealed: %s%s%s\n", tl_beacon_kind_name(y->kind), y->recipient,
                       strlen(y->recipient) > 72 ? "..." : "",
                       !y->has_sealed ? "none (operator-only)" : y->sealed_path,
                       y->has_sealed ? ", opens without the operator about " : "",
                       y->has_sealed ? (y->has_sealed_opening ? so : "never (its chain needs an unreleased epoch)") : "");
            }
        }
    }
    if (src.own) bcn_service_print(src.own_dir, json);   /* the operator's view: the service's own record */
    if (ahead < s->ahead)
        fprintf(stderr, "rxlock: warning: only %zu epoch%s generated ahead, fewer than the schedule's %u: the beacon is "
                        "behind or stopped\n", ahead, ahead == 1 ? "" : "s", s->ahead);
    tl_beacon_feed_free(f);
    return fflush(stdout) == 0 ? CLI_OK : cli_error("stdout: write failed");
}
