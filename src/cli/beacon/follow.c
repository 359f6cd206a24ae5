/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/follow.c — the solver's engine, for one pass and for
 * --follow: keeps up to --parallel epoch keys solving at once (a worker
 * process each), oldest first, and starts the next as soon as one ends;
 * takes an identity the feed already publishes once it has checked that
 * it opens the epoch's recipient (that check is the proof) instead of
 * solving it again; reports a bad file and skips it, solving the others
 * (with --follow, until the feed changes: then it is tried again).
 * With --follow it re-reads the feed whenever a solve ends and before
 * every sleep, never sleeps past a release time of the schedule, and
 * after a release time re-reads it with a short backoff (1 s, then a few)
 * until the epoch is out or the operator is presumed gone; it says when
 * one solver cannot keep up with the period (solve time against it). */
#include "cli/beacon/beacon_cli.h"
#include "cli/beacon/solver.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <errno.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* how long after a release time an epoch still not out is chased (then
 * the operator is presumed gone and the solver falls back to --poll) */
#define CHASE_SECONDS 300
/* a feed that could not be read is tried again this soon */
#define RETRY_SECONDS 5

typedef struct { pid_t pid; uint64_t index; int kind; double t0; } slot;
typedef struct { uint64_t index; int kind; } key_id;

typedef struct {
    solver *sv;
    slot *run;
    size_t par, nrun;
    key_id *bad;                  /* keys reported and skipped            */
    size_t nbad, capbad;
    size_t solved, taken, failed, have, waiting;
    double slowest;               /* the longest solve of this run, s     */
    int warned_keepup;
    int fatal;                    /* an error that ends the run            */
} engine;

static int listed_in(const key_id *v, size_t n, uint64_t E, int kind) {
    for (size_t k = 0; k < n; k++)
        if (v[k].index == E && v[k].kind == kind) return 1;
    return 0;
}

static int running(const engine *g, uint64_t E, int kind) {
    for (size_t k = 0; k < g->par; k++)
        if (g->run[k].pid > 0 && g->run[k].index == E && g->run[k].kind == kind) return 1;
    return 0;
}

static void mark_bad(engine *g, uint64_t E, int kind) {
    g->failed++;
    if (g->nbad == g->capbad) {
        size_t nc = g->capbad ? g->capbad * 2 : 16;
        key_id *nv = realloc(g->bad, nc * sizeof *nv);
        if (!nv) { g->fatal = 1; return; }
        g->bad = nv;
        g->capbad = nc;
    }
    g->bad[g->nbad].index = E;
    g->bad[g->nbad++].kind = kind;
}

/* The feed publishes this key's identity: fetch it, check that it opens
 * the epoch's recipient, keep it in OUTDIR.  1 taken, 0 not usable (said
 * why: the key is solved instead), -1 error. */
static int take_published(solver *sv, const tl_beacon_epoch *ep, const tl_beacon_key *y, const char *stem) {
    uint8_t *t = NULL, key[32];
    size_t l = 0;
    int pq = 0, ok = 0;
    char err[512], p[PATH_MAX], *rcp = malloc(TL_AGE_PQ_RECIPIENT_MAX);
    if (!rcp) return cli_error("out of memory");
    int r = bcn_fetch(&sv->src, y->identity, 65536, &t, &l, err, sizeof err);
    if (r == 0)
        ok = bcn_identity_parse(t, l, key, &pq) == 0 && pq == (y->kind == TL_BEACON_PQ) &&
             cli_identity_recipient(key, pq, rcp) == 0 && !strcmp(rcp, y->recipient);
    sodium_memzero(key, sizeof key);
    free(rcp);
    if (!ok) {
        if (t) { sodium_memzero(t, l); free(t); }
        if (!sv->quiet)
            fprintf(stderr, "rxlock: epoch %llu: the published %s %s: solving it instead\n",
                    (unsigned long long)ep->index, y->identity,
                    r == 1 ? "is not there" : r ? err : "does not open the epoch's recipient");
        return 0;
    }
    snprintf(p, sizeof p, "%s/%s.txt", sv->ids, stem);
    int w = util_write_file_atomic(p, t, l, 0, 0600);
    sodium_memzero(t, l);
    free(t);
    if (w != 0 && errno != EEXIST) return cli_error("%s: %s", p, strerror(errno));
    if (!sv->quiet)
        fprintf(stderr, "rxlock: epoch %llu: took the published identity (it opens the epoch's recipient): %s\n",
                (unsigned long long)ep->index, p);
    return 1;
}

/* Collect the workers that ended.  block: wait for one.  The number reaped. */
static size_t reap(engine *g, int block) {
    size_t n = 0;
    for (;;) {
        int ws = 0;
        pid_t p = waitpid(-1, &ws, block && !n ? 0 : WNOHANG);
        if (p <= 0) break;
        for (size_t k = 0; k < g->par; k++) {
            slot *s = &g->run[k];
            if (s->pid != p) continue;
            double d = util_now() - s->t0;
            s->pid = 0;
            g->nrun--;
            n++;
            if (WIFEXITED(ws) && WEXITSTATUS(ws) == 0) {
                g->solved++;
                if (d > g->slowest) g->slowest = d;
            } else if (!*g->sv->stop) {
                fprintf(stderr, "rxlock: epoch %llu: not solved (above); the other epochs go on\n",
                        (unsigned long long)s->index);
                mark_bad(g, s->index, s->kind);
            }
        }
    }
    return n;
}

/* Start a worker for a job.  CLI_OK or CLI_FAIL (fork failed). */
static int start(engine *g, job *jb) {
    const tl_beacon_epoch *ep = &g->sv->f->epochs[jb->e];
    if (g->par == 1) {   /* one at a time: in this process (a kill reaches the solve itself) */
        double t0 = util_now();
        int rc = bcn_solve_one(g->sv, jb);
        if (rc == CLI_OK) {
            g->solved++;
            if (util_now() - t0 > g->slowest) g->slowest = util_now() - t0;
        } else if (!*g->sv->stop) {
            fprintf(stderr, "rxlock: epoch %llu: not solved (above); the other epochs go on\n", (unsigned long long)ep->index);
            mark_bad(g, ep->index, ep->keys[jb->q].kind);
        }
        return CLI_OK;
    }
    for (size_t k = 0; k < g->par; k++) {
        slot *s = &g->run[k];
        if (s->pid > 0) continue;
        fflush(NULL);
        pid_t p = fork();
        if (p < 0) return cli_error("fork: %s", strerror(errno));
        if (p == 0) _exit(bcn_solve_one(g->sv, jb));
        s->pid = p;
        s->index = ep->index;
        s->kind = ep->keys[jb->q].kind;
        s->t0 = util_now();
        g->nrun++;
        return CLI_OK;
    }
    return CLI_FAIL;
}

/* One scan of the feed, oldest first: count what is there, take published
 * identities, start workers while a slot is free.  *notes: why the others
 * wait.  The number of workers started. */
static size_t fill(engine *g, FILE *notes) {
    solver *sv = g->sv;
    size_t started = 0, have = 0, waiting = 0;
    for (size_t e = 0; e < sv->f->n && !g->fatal && !*sv->stop; e++) {
        const tl_beacon_epoch *ep = &sv->f->epochs[e];
        for (unsigned q = 0; q < ep->nkeys && !g->fatal; q++) {
            const tl_beacon_key *y = &ep->keys[q];
            char stem[48], why[256] = "";
            uint8_t key[32];
            int pq;
            if (running(g, ep->index, y->kind)) continue;
            if (listed_in(g->bad, g->nbad, ep->index, y->kind)) continue;
            bcn_stem(&sv->f->beacon, ep->index, y->kind, stem);
            int h = bcn_have_identity(sv, stem, y->recipient, key, &pq);
            sodium_memzero(key, sizeof key);
            if (h < 0) { mark_bad(g, ep->index, y->kind); continue; }
            if (!h && y->identity[0]) {
                int t = take_published(sv, ep, y, stem);
                if (t < 0) { g->fatal = 1; break; }
                if (t) g->taken++;
                h = t;
            }
            if (h) {   /* solved: a journal still there is one a stopped run did not remove */
                char jp[PATH_MAX];
                snprintf(jp, sizeof jp, "%s/.rxlock-beacon/%s.journal", sv->ids, stem);
                if (unlink(jp) != 0 && errno != ENOENT) { cli_error("%s: %s", jp, strerror(errno)); g->fatal = 1; break; }
                have++;
                continue;
            }
            if (g->nrun == g->par) { waiting++; continue; }
            job jb = { e, q, NULL, 0 };
            int r = bcn_get_puzzle(sv, e, q, &jb.buf, &jb.len, why, sizeof why);
            if (r < 0) { mark_bad(g, ep->index, y->kind); continue; }
            if (!r) {
                waiting++;
                if (notes) fprintf(notes, "rxlock: epoch %llu: %s\n", (unsigned long long)ep->index, why);
                continue;
            }
            int s = start(g, &jb);
            free(jb.buf);
            if (s != CLI_OK) { g->fatal = 1; break; }
            started++;
        }
    }
    if (!*sv->stop) {   /* a scan cut short by a stop keeps the last whole one's counts */
        g->have = have;
        g->waiting = waiting;
    }
    return started;
}

/* Is epoch E out (its puzzles released, or solved here)?  Not listed: no. */
static int is_out(const solver *sv, uint64_t E) {
    long k = tl_beacon_find(sv->f, E);
    return k >= 0 && sv->f->epochs[k].state >= TL_BEACON_RELEASED;
}

/* When to read the feed again: the next release time of the schedule, or
 * poll seconds from now; while the latest release is not out yet, a short
 * backoff after it (1 s, then a quarter of the time since the release),
 * for CHASE_SECONDS.  *chasing: the epoch chased (or UINT64_MAX). */
static int64_t next_look(const solver *sv, int64_t now, int64_t last_read, double poll, uint64_t *chasing) {
    const tl_beacon_sched *s = &sv->f->beacon;
    int before = 0;
    uint64_t L = tl_beacon_epoch_at(s, now, &before);
    int64_t at = now + (int64_t)poll;
    int64_t nr = before ? s->start : tl_beacon_release(s, L + 1);
    if (nr < at) at = nr;
    *chasing = UINT64_MAX;
    if (!before && !is_out(sv, L)) {
        int64_t since = now - tl_beacon_release(s, L);
        if (since < CHASE_SECONDS) {
            int64_t step = since / 4 > 1 ? since / 4 : 1;
            if (last_read + step < at) at = last_read + step;
            *chasing = L;
        }
    }
    return at > now ? at : now + 1;
}

/* Sleep until the clock reaches `at`, a worker ends or a stop: 0.2 s
 * slices on the beacon's clock (a clock change is seen within one). */
static void wait_until(engine *g, int64_t at) {
    struct timespec ts = { 0, 200 * 1000 * 1000 };
    while (!*g->sv->stop && tl_beacon_now() < at) {
        if (g->nrun && reap(g, 0)) return;
        nanosleep(&ts, NULL);
    }
}

static void say_keepup(engine *g) {
    const solver *sv = g->sv;
    const tl_beacon_sched *s = &sv->f->beacon;
    int kinds[2];
    unsigned nk = bcn_kinds(s->kinds, kinds);
    double per_epoch = g->slowest * nk / (double)g->par;   /* seconds of this solver per epoch */
    if (g->warned_keepup || !(per_epoch > (double)s->every)) return;
    unsigned need = (unsigned)((g->slowest * nk) / (double)s->every) + 1;
    fprintf(stderr, "rxlock: warning: this solver cannot keep up: an epoch key took %.1f s to solve here, an epoch "
            "(%u key%s) is released every %llu s and %zu solve%s at once: released epochs queue up (%zu waiting); "
            "it would keep up with --parallel %u (each solve uses one core)\n", g->slowest, nk, nk > 1 ? "s" : "",
            (unsigned long long)s->every, g->par, g->par == 1 ? "" : "s", g->waiting, need);
    g->warned_keepup = 1;
}

/* Read the feed again: 1 read, 0 not (the last good one is kept). */
static int reload(solver *sv) {
    tl_beacon_feed *nf = NULL;
    int lr = bcn_feed_load(&sv->src, sv->pin, 1, &nf);
    /* signer continuity and no rollback (feed_trust.c): a refused feed is
     * never used, so no identity of another signer is ever written */
    if (lr == CLI_OK && sv->trust && (lr = bcn_follow_next(sv->trust, sv->src.base, nf)) != CLI_OK) tl_beacon_feed_free(nf);
    if (lr == CLI_OK && sv->ids_base && memcmp(nf->beacon.signer, sv->f->beacon.signer, 32)) {   /* an accepted rotation */
        snprintf(sv->ids, sizeof sv->ids, "%s", sv->ids_base);
        if (bcn_ids_dir(sv->ids, sizeof sv->ids, nf->beacon.signer, 1) != CLI_OK) { tl_beacon_feed_free(nf); lr = CLI_FAIL; }
    }
    if (lr == CLI_OK) {
        tl_beacon_feed_free(sv->f);
        sv->f = nf;
        return 1;
    }
    if (!sv->quiet)
        fprintf(stderr, "rxlock: the feed could not be read or was refused (above): solving from the last good one; "
                "trying again within %d s\n", RETRY_SECONDS);
    return 0;
}

int bcn_solve_run(solver *sv, size_t par, int follow, double poll, size_t *solved, size_t *taken, size_t *have,
                  size_t *waiting, size_t *failed) {
    engine g;
    memset(&g, 0, sizeof g);
    g.sv = sv;
    g.par = par;
    if (!(g.run = calloc(par, sizeof *g.run))) return cli_error("out of memory");
    char *notes = NULL;
    size_t notes_len = 0, last_have = (size_t)-1, last_waiting = (size_t)-1;
    uint64_t last_chase = UINT64_MAX;
    int64_t last_read = tl_beacon_now();
    int rc = CLI_OK, feed_ok = 1;
    int64_t last_updated = sv->f->updated;
    for (;;) {
        size_t before_fill = g.solved + g.failed;
        free(notes);
        notes = NULL;
        FILE *nf = open_memstream(&notes, &notes_len);
        size_t started = fill(&g, nf);
        if (nf) fclose(nf);
        if (g.fatal || *sv->stop) break;
        if (follow && g.solved + g.failed != before_fill) {   /* solved here (one at a time): read the feed again */
            if (sv->src.own && bcn_publish_own(sv) != CLI_OK) { g.fatal = 1; break; }
            feed_ok = reload(sv);
            last_read = tl_beacon_now();
            continue;
        }
        if (!follow) {   /* one pass: wait for a worker, then fill again; done when none runs */
            if (!started && !g.nrun) break;
            reap(&g, 1);
            if (sv->src.own && bcn_publish_own(sv) != CLI_OK) { g.fatal = 1; break; }
            continue;
        }
        /* --follow: sleep until the next look (the feed was read after the
         * last event: a worker's end or the last look) */
        int64_t now = tl_beacon_now();
        uint64_t chasing;
        int64_t at = next_look(sv, now, last_read, poll, &chasing);
        if (!feed_ok && last_read + RETRY_SECONDS < at) at = last_read + RETRY_SECONDS > now ? last_read + RETRY_SECONDS : now + 1;
        if (g.solved) say_keepup(&g);
        int chase_changed = (chasing != UINT64_MAX) != (last_chase != UINT64_MAX);   /* not every epoch of a dead 1 s beacon */
        if (!sv->quiet && !g.nrun && (g.have != last_have || g.waiting != last_waiting || chase_changed)) {
            char when[64];
            bcn_time(when, sizeof when, at);
            if (notes && g.have == last_have) fputs(notes, stderr);
            if (chasing != UINT64_MAX && chase_changed)
                fprintf(stderr, "rxlock: epoch %llu: its release time has passed and the feed does not have it out "
                        "yet: reading it again within seconds\n", (unsigned long long)chasing);
            else if (chasing == UINT64_MAX && last_chase != UINT64_MAX && !is_out(sv, last_chase))
                fprintf(stderr, "rxlock: epoch %llu: still not out %d s after its release time: the operator may be "
                        "gone (its sealed copy, if any, opens later); reading the feed at the next release or poll\n",
                        (unsigned long long)last_chase, CHASE_SECONDS);
            fprintf(stderr, "rxlock: %zu epoch key%s solved in this run, %zu solved in all (%zu taken from the feed), "
                    "%zu waiting; looking again at %s\n", g.solved, g.solved == 1 ? "" : "s", g.have, g.taken, g.waiting,
                    when);
            last_have = g.have;
            last_waiting = g.waiting;
        }
        last_chase = chasing;
        size_t before = g.solved + g.failed;
        wait_until(&g, at);
        if (*sv->stop) break;
        if (sv->src.own && g.solved + g.failed != before && bcn_publish_own(sv) != CLI_OK) { g.fatal = 1; break; }
        /* the look is due, or a worker ended (a release may have come
         * during its solve): read the feed again before the next sleep */
        feed_ok = reload(sv);
        last_read = tl_beacon_now();
        if (feed_ok && sv->f->updated != last_updated) {   /* a new feed: the keys skipped are tried again */
            last_updated = sv->f->updated;
            g.nbad = 0;
        }
    }
    /* a stop reaches the workers too (sent on, when it came to this
     * process alone): they keep their journals; wait for them */
    if (*sv->stop)
        for (size_t k = 0; k < g.par; k++)
            if (g.run[k].pid > 0) (void)kill(g.run[k].pid, SIGTERM);
    while (g.nrun && reap(&g, 1)) {}
    if (!g.fatal && sv->src.own && bcn_publish_own(sv) != CLI_OK) g.fatal = 1;   /* also what a stopped run left */
    if (g.fatal) rc = CLI_FAIL;
    else if (*sv->stop) rc = follow ? CLI_OK : cli_interrupted_rc();
    else if (g.failed) rc = cli_error("%zu epoch key%s could not be solved (above); the others were", g.failed,
                                      g.failed == 1 ? "" : "s");
    if (rc == CLI_OK && !follow && !sv->quiet && notes) fputs(notes, stderr);
    free(notes);
    free(g.run);
    free(g.bad);
    *solved = g.solved;
    *taken = g.taken;
    *have = g.have;
    *waiting = g.waiting;
    *failed = g.failed;
    return rc;
}
