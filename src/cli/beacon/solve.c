/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/solve.c — `rxlock beacon solve DIR|URL --ids OUTDIR`: a
 * solver anyone can run.  Follows the feed oldest first: takes each
 * released puzzle, or, where the operator has not released it, unseals
 * it with the identity of its sealing epoch (solved earlier in the same
 * run); checks every digest against the feed, the puzzle's signer and
 * recipient, solves it with a journal (resumable), checks the identity
 * and writes OUTDIR/STEM.txt.  On the beacon's own DIR it also publishes
 * public/identities/ and the feed.  This file owns the command and the
 * per-key pieces; the engine that schedules them (--parallel workers,
 * --follow, identities taken from the feed) is follow.c. */
#include "cli/beacon/beacon_cli.h"
#include "cli/beacon/solver.h"
#include "cli/cli.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>


static void out_path(const solver *sv, char out[PATH_MAX], const char *stem, const char *ext, int hidden) {
    snprintf(out, PATH_MAX, "%s/%s%s%s", sv->ids, hidden ? ".rxlock-beacon/" : "", stem, ext);
}

/* 1 when OUTDIR/STEM.txt holds the identity of recipient, 0 when absent,
 * -1 when it holds another (message). */
int bcn_have_identity(const solver *sv, const char *stem, const char *recipient, uint8_t key[32], int *pq) {
    char p[PATH_MAX];
    out_path(sv, p, stem, ".txt", 0);
    uint8_t *t = NULL;
    size_t l = 0;
    if (util_read_file(p, 65536, &t, &l) != 0) {
        if (errno == ENOENT) return 0;
        cli_error("%s: %s", p, strerror(errno));
        return -1;
    }
    char *rcp = malloc(TL_AGE_PQ_RECIPIENT_MAX);
    int ok = rcp && bcn_identity_parse(t, l, key, pq) == 0 && cli_identity_recipient(key, *pq, rcp) == 0 &&
             !strcmp(rcp, recipient);
    sodium_memzero(t, l);
    free(t);
    free(rcp);
    if (!ok) {   /* never trusted by its name: kept aside, the epoch solved again (feed_trust.c) */
        sodium_memzero(key, 32);
        return bcn_set_aside(p) == 0 ? 0 : -1;
    }
    return 1;
}

/* Decrypt buf with one identity into *out (bounded).  0 or -1. */
static int unseal(const uint8_t *buf, size_t len, const uint8_t key[32], int pq, uint8_t **out, size_t *olen) {
    int in = memfd_create("rxlock-sealed", MFD_CLOEXEC), o = memfd_create("rxlock-unsealed", MFD_CLOEXEC);
    int rc = -1;
    if (in >= 0 && o >= 0 && util_write_all(in, buf, len) == 0 && lseek(in, 0, SEEK_SET) == 0 &&
        (pq ? age_decrypt_fd_any(in, o, NULL, 0, (const uint8_t (*)[32])key, 1)
            : age_decrypt_fd_any(in, o, (const uint8_t (*)[32])key, 1, NULL, 0)) == 0) {
        off_t n = lseek(o, 0, SEEK_END);
        if (n > 0 && n <= (off_t)TL_MAX_PUZZLE_BYTES && (*out = malloc((size_t)n + 1)) &&
            pread(o, *out, (size_t)n, 0) == n) {
            (*out)[n] = 0;
            *olen = (size_t)n;
            rc = 0;
        } else if (*out) { free(*out); *out = NULL; }
    }
    if (in >= 0) close(in);
    if (o >= 0) close(o);
    return rc;
}

/* Epoch e's key q's puzzle bytes: 1 got, 0 not available yet (why),
 * -1 refused (message). */
int bcn_get_puzzle(const solver *sv, size_t e, unsigned q, uint8_t **buf, size_t *len, char *why, size_t whylen) {
    const tl_beacon_epoch *ep = &sv->f->epochs[e];
    const tl_beacon_key *y = &ep->keys[q];
    char stem[48], cache[PATH_MAX], err[512], when[48];
    bcn_stem(&sv->f->beacon, ep->index, y->kind, stem);
    out_path(sv, cache, stem, ".json", 1);
    uint8_t d[32];
    *buf = NULL;
    if (util_read_file(cache, TL_MAX_PUZZLE_BYTES, buf, len) == 0) {
        bcn_sha256(*buf, *len, d);
        if (!memcmp(d, y->puzzle_sha256, 32)) return 1;
        free(*buf);
        *buf = NULL;
        unlink(cache);
    }
    int via_seal = 0;
    if (y->puzzle_path[0]) {
        int r = bcn_fetch(&sv->src, y->puzzle_path, TL_MAX_PUZZLE_BYTES, buf, len, err, sizeof err);
        if (r == 1) { snprintf(why, whylen, "released, but %s is not there yet", y->puzzle_path); return 0; }
        if (r) { cli_error("%s", err); return -1; }
    } else if (y->has_sealed) {
        char jstem[48];
        uint8_t key[32];
        int pq = 0;
        long jk = tl_beacon_find(sv->f, y->sealed_by);
        bcn_stem(&sv->f->beacon, y->sealed_by, y->sealed_to, jstem);
        bcn_time(when, sizeof when, ep->release);
        /* the sealing epoch's identity, solved before (its recipient from the feed when listed) */
        char p[PATH_MAX];
        out_path(sv, p, jstem, ".txt", 0);
        uint8_t *t = NULL;
        size_t tl = 0;
        if (util_read_file(p, 65536, &t, &tl) != 0) {
            snprintf(why, whylen, "withheld until %s; its sealing epoch %llu is not solved yet", when,
                     (unsigned long long)y->sealed_by);
            return 0;
        }
        int ok = bcn_identity_parse(t, tl, key, &pq) == 0 && pq == (y->sealed_to == TL_BEACON_PQ);
        sodium_memzero(t, tl);
        free(t);
        int h = 1;
        if (ok && jk >= 0) {   /* listed: the identity must be that epoch's */
            const tl_beacon_epoch *je = &sv->f->epochs[jk];
            for (unsigned k = 0; k < je->nkeys; k++)
                if (je->keys[k].kind == y->sealed_to) h = bcn_have_identity(sv, jstem, je->keys[k].recipient, key, &pq);
        }
        if (ok && h == 0) {   /* set aside (not its identity): solved again first */
            sodium_memzero(key, 32);
            snprintf(why, whylen, "withheld until %s; its sealing epoch %llu is to be solved again", when,
                     (unsigned long long)y->sealed_by);
            return 0;
        }
        ok = ok && h == 1;
        if (!ok) { sodium_memzero(key, 32); cli_error("%s: not a usable identity of epoch %llu", p, (unsigned long long)y->sealed_by); return -1; }
        uint8_t *sealed = NULL;
        size_t sl = 0;
        int r = bcn_fetch(&sv->src, y->sealed_path, 2u << 20, &sealed, &sl, err, sizeof err);
        if (r) {
            sodium_memzero(key, 32);
            if (r == 1) { snprintf(why, whylen, "withheld until %s; its sealed file is not there", when); return 0; }
            cli_error("%s", err);
            return -1;
        }
        bcn_sha256(sealed, sl, d);
        if (memcmp(d, y->sealed_sha256, 32)) {
            free(sealed);
            sodium_memzero(key, 32);
            cli_error("epoch %llu: %s differs from the feed's digest: refused", (unsigned long long)ep->index, y->sealed_path);
            return -1;
        }
        r = unseal(sealed, sl, key, pq, buf, len);
        free(sealed);
        sodium_memzero(key, 32);
        if (r) {
            cli_error("epoch %llu: %s does not decrypt with epoch %llu's identity: refused", (unsigned long long)ep->index,
                      y->sealed_path, (unsigned long long)y->sealed_by);
            return -1;
        }
        via_seal = 1;
    } else {
        bcn_time(when, sizeof when, ep->release);
        if (tl_beacon_now() > ep->release + 2 * (int64_t)sv->f->beacon.every)   /* a dead beacon says so */
            snprintf(why, whylen, "was never released (due %s); it opens only if its operator returns", when);
        else
            snprintf(why, whylen, "withheld until %s (operator-only: no sealed copy)", when);
        return 0;
    }
    bcn_sha256(*buf, *len, d);
    if (memcmp(d, y->puzzle_sha256, 32)) {
        free(*buf);
        *buf = NULL;
        cli_error("epoch %llu: the %s puzzle's digest differs from the feed (another epoch's, or tampered): refused",
                  (unsigned long long)ep->index, via_seal ? "unsealed" : "published");
        return -1;
    }
    if (util_write_file_atomic(cache, *buf, *len, 1, 0600) != 0) { cli_error("%s: %s", cache, strerror(errno)); return -1; }
    if (via_seal && !sv->quiet)
        fprintf(stderr, "rxlock: epoch %llu: unsealed with epoch %llu's identity (the operator has not released it)\n",
                (unsigned long long)ep->index, (unsigned long long)y->sealed_by);
    return 1;
}

/* Solve one job and write OUTDIR/STEM.txt.  CLI_OK or an exit code. */
int bcn_solve_one(const solver *sv, const job *jb) {
    const tl_beacon_epoch *ep = &sv->f->epochs[jb->e];
    const tl_beacon_key *y = &ep->keys[jb->q];
    char stem[48], idp[PATH_MAX], jp[PATH_MAX], what[64];
    bcn_stem(&sv->f->beacon, ep->index, y->kind, stem);
    out_path(sv, idp, stem, ".txt", 0);
    out_path(sv, jp, stem, ".journal", 1);
    snprintf(what, sizeof what, "epoch %llu", (unsigned long long)ep->index);
    tl_puzzle *pz = NULL;
    char err[256], *rcp = malloc(TL_AGE_PQ_RECIPIENT_MAX);
    if (!rcp) return cli_error("out of memory");
    int rc = tl_puzzle_parse((const char *)jb->buf, jb->len, &pz, err, sizeof err);
    if (rc) { free(rcp); return cli_error("%s: puzzle refused: %s", what, err); }
    if ((rc = tl_puzzle_verify(pz, sv->f->beacon.signer)) != TL_OK) {
        rc = cli_error("%s: the puzzle is not signed by the feed's signer: refused (%s)", what, rxlock_strerror(rc));
        goto out;
    }
    if (cli_epoch_recipient(pz, rcp) != CLI_OK || strcmp(rcp, y->recipient)) {
        rc = cli_error("%s: the puzzle's recipient is not the feed's: refused", what);
        goto out;
    }
    tl_solve_opts so;
    memset(&so, 0, sizeof so);
    so.mode = sv->mode;
    so.journal = jp;
    so.stop = sv->stop;
    cli_progress ui;
    cli_progress_init(&ui, "solve", (uint64_t)pz->groups * pz->steps, cli_progress_when(sv->quiet, 0, 0), 0);
    ui.stop = sv->stop;
    so.progress = cli_progress_cb;
    so.progress_ctx = &ui;
    uint8_t *x = sodium_malloc(32);
    tl_solve_stats st;
    double t0 = util_now();
    rc = x ? tl_solve(pz, &so, x, &st) : TL_ENOMEM;
    cli_progress_end(&ui, rc == TL_OK);
    if (rc) {
        if (x) sodium_free(x);
        rc = *sv->stop ? cli_interrupted_rc() : cli_solve_error(what, jp, rc, &st, pz->work);
        goto out;
    }
    int pq = 0;
    uint8_t k2[32];
    rc = cli_write_identity(idp, x, pz, "", 0);
    sodium_free(x);
    if (rc == CLI_OK && bcn_have_identity(sv, stem, y->recipient, k2, &pq) != 1) rc = CLI_FAIL;   /* as written */
    sodium_memzero(k2, sizeof k2);
    if (rc == CLI_OK) {
        util_kill_point("beacon-solved");   /* test build: stopped before the journal is removed */
        util_pause_point("beacon-solved");  /* test build: a release comes while a worker solves */
        unlink(jp);
        if (!sv->quiet)
            fprintf(stderr, "rxlock: epoch %llu%s%s solved in %.1f s: %s\n", (unsigned long long)ep->index,
                    ep->nkeys > 1 ? " " : "", ep->nkeys > 1 ? tl_beacon_kind_name(y->kind) : "", util_now() - t0, idp);
    }
out:
    free(rcp);
    tl_puzzle_free(pz);
    return rc;
}

/* The beacon's own DIR: every identity OUTDIR holds (checked) for a listed
 * epoch that the feed does not list yet is copied into public/identities/
 * and the feed republished (needs its signer key).  Also what a solver
 * stopped before it published left: the next run finishes it. */
int bcn_publish_own(solver *sv) {
    bcn_dir b;
    size_t added = 0;
    if (bcn_open(&b, sv->src.own_dir) != CLI_OK) return CLI_FAIL;
    for (size_t e = 0; e < sv->f->n; e++) {
        tl_beacon_epoch *ep = &sv->f->epochs[e];
        for (unsigned q = 0; q < ep->nkeys; q++) {
            tl_beacon_key *y = &ep->keys[q];
            char stem[48], src[PATH_MAX], dst[PATH_MAX];
            uint8_t key[32];
            int pq = 0;
            if (y->identity[0]) continue;   /* listed: published */
            bcn_stem(&sv->f->beacon, ep->index, y->kind, stem);
            int h = bcn_have_identity(sv, stem, y->recipient, key, &pq);
            sodium_memzero(key, sizeof key);
            if (h <= 0) continue;   /* absent, or another's (said; the engine skips it) */
            out_path(sv, src, stem, ".txt", 0);
            bcn_file(&b, dst, "public/identities/%s.txt", stem);
            uint8_t *t = NULL;
            size_t l = 0;
            if (util_read_file(src, 65536, &t, &l) != 0) return cli_error("%s: %s", src, strerror(errno));
            int w = util_write_file_atomic(dst, t, l, 0, 0644);
            sodium_memzero(t, l);
            free(t);
            if (w != 0 && errno != EEXIST) return cli_error("%s: %s", dst, strerror(errno));
            if (w == 0) {   /* its time is when it was published, on the beacon's clock (the feed's identity_at) */
                struct timespec tm[2] = { { (time_t)tl_beacon_now(), 0 }, { (time_t)tl_beacon_now(), 0 } };
                (void)utimensat(AT_FDCWD, dst, tm, AT_SYMLINK_NOFOLLOW);
            }
            util_kill_point("beacon-identity");
            tl_beacon_path(&sv->f->beacon, "identities", ep->index, y->kind, ".txt", y->identity);
            added++;
        }
    }
    if (!added) return CLI_OK;
    uint8_t *sk = sodium_malloc(64);
    if (!sk) return cli_error("out of memory");
    char kp[PATH_MAX];
    bcn_file(&b, kp, "private/signer.key");
    int rc = CLI_OK;
    if (access(kp, R_OK) != 0) fprintf(stderr, "rxlock: %s: no signer key: identities copied, the feed is not updated\n", kp);
    else if ((rc = bcn_signer_load(&b, sk)) == CLI_OK) rc = bcn_feed_publish(&b, sk, tl_beacon_now(), NULL);
    sodium_free(sk);
    return rc;
}

int bcn_cmd_solve(int argc, char **argv) {
    static const struct option opts[] = {
        {"ids", required_argument, 0, 'i'}, {"signer-pin", required_argument, 0, 'p'},
        {"mode", required_argument, 0, 'm'}, {"parallel", required_argument, 0, 'P'},
        {"follow", no_argument, 0, 'F'}, {"poll", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'}, {"archive", no_argument, 0, 'A'},
        {"accept-signer", required_argument, 0, 'S'}, {0, 0, 0, 0}
    };
    static solver sv;
    static bcn_follow fw;
    const char *accepthex = NULL;
    uint8_t accept[32];
    memset(&sv, 0, sizeof sv);
    const char *ids = NULL, *pinhex = NULL;
    int c, mode_req = -1, follow = 0, orc, archive = 0;
    uint64_t par = 1;
    double poll = 300;
    uint8_t pin[32];
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
        switch (c) {
        case 'i': ids = optarg; break;
        case 'p': pinhex = optarg; break;
        case 'm': {
            tl_mode m;
            if (cli_parse_mode(optarg, &m)) return cli_usage_error("beacon solve", "--mode: want light or full");
            mode_req = (int)m;
            break;
        }
        case 'P':
            if (cli_parse_u64(optarg, 1, 64, &par)) return cli_usage_error("beacon solve", "--parallel: want 1..64");
            break;
        case 'F': follow = 1; break;
        case 'A': archive = 1; break;
        case 'o':
            if ((orc = cli_parse_seconds_opt("beacon solve", "--poll", optarg, 1, 86400, &poll))) return orc;
            break;
        case 'q': sv.quiet = 1; break;
        case 'S': accepthex = optarg; break;
        case ':': return cli_usage_error("beacon solve", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option("beacon solve", optopt, argv[optind - 1]);
        }
    }
    if (optind + 1 != argc) return cli_usage_error("beacon solve", "want one DIR or URL");
    if (!ids) return cli_usage_error("beacon solve", "missing --ids OUTDIR");
    if (strlen(ids) >= sizeof sv.ids) return cli_error("%s: path too long", ids);
    snprintf(sv.ids, sizeof sv.ids, "%s", ids);
    if (pinhex && cli_parse_pin(pinhex, pin)) return cli_usage_error("beacon solve", "--signer-pin: want 64 hex digits");
    if (accepthex && cli_parse_pin(accepthex, accept)) return cli_usage_error("beacon solve", "--accept-signer: want 64 hex digits");
    int rc = bcn_src_open(&sv.src, argv[optind]);
    if (rc) return rc;
    if ((rc = bcn_feed_load(&sv.src, pinhex ? pin : NULL, 0, &sv.f)) != CLI_OK) return rc;
    bcn_follow_start(&fw, sv.f, accepthex ? accept : NULL);   /* the first signer (or the pin) is kept */
    if ((rc = bcn_ids_dir(sv.ids, sizeof sv.ids, sv.f->beacon.signer, 1)) != CLI_OK) goto done;   /* by signer */
    char hid[PATH_MAX];
    snprintf(hid, sizeof hid, "%s/.rxlock-beacon", sv.ids);
    if ((mkdir(sv.ids, 0700) != 0 && errno != EEXIST) || (mkdir(hid, 0700) != 0 && errno != EEXIST)) {
        rc = cli_error("%s: %s", hid, strerror(errno));
        goto done;
    }
    sv.stop = cli_catch_signals();
    sv.mode = cli_mode_pick(sv.f->beacon.work, mode_req);
    sv.pin = pinhex ? pin : NULL;
    sv.trust = &fw;   /* --follow: the first signer kept, no rollback (feed_trust.c) */
    sv.ids_base = ids;
    size_t solved = 0, taken = 0, have = 0, waiting = 0, failed = 0;
    /* --archive: first the epochs that left the feed's window, page by page,
     * oldest first (one pass each; a sealed chain may cross into the feed) */
    size_t a_solved = 0, a_taken = 0, a_have = 0, a_failed = 0, a_pages = 0;
    for (uint64_t K = 0; archive && K < sv.f->archive_pages && !*sv.stop; K++) {
        static solver sp;
        tl_beacon_feed *pg = NULL;
        int r = bcn_archive_page(&sv.src, sv.f, K, &pg);
        if (r < 0) { a_failed++; continue; }   /* said; the other pages go on */
        if (!r) continue;
        sp = sv;
        sp.f = pg;
        size_t s1 = 0, t1 = 0, h1 = 0, w1 = 0, f1 = 0;
        int prc = bcn_solve_run(&sp, (size_t)par, 0, poll, &s1, &t1, &h1, &w1, &f1);
        tl_beacon_feed_free(sp.f);
        a_solved += s1; a_taken += t1; a_have += h1; a_failed += f1; a_pages++;
        if (prc != CLI_OK && !f1) { rc = prc; goto done; }
    }
    if (archive && !sv.quiet)
        fprintf(stderr, "rxlock: archive: %zu page%s, %zu epoch key%s solved, %zu solved in all (%zu taken from the "
                "published identities)%s\n", a_pages, a_pages == 1 ? "" : "s", a_solved, a_solved == 1 ? "" : "s",
                a_have, a_taken, a_failed ? "; some failed (above)" : "");
    rc = bcn_solve_run(&sv, (size_t)par, follow, poll, &solved, &taken, &have, &waiting, &failed);
    if (rc == CLI_OK && a_failed) rc = cli_error("%zu archived epoch key%s or page%s could not be solved or read (above)",
                                                a_failed, a_failed == 1 ? "" : "s", a_failed == 1 ? "" : "s");
    if ((rc == CLI_OK || failed) && !sv.quiet)
        fprintf(stderr, "rxlock: %zu epoch key%s solved %s, %zu solved in all (%zu taken from the feed's published "
                "identities), %zu waiting%s\n", solved, solved == 1 ? "" : "s", follow ? "in this run" : "now", have,
                taken, waiting, failed ? "; some failed (above)" : "");
done:
    tl_beacon_feed_free(sv.f);
    return rc;
}
