/* SPDX-License-Identifier: ISC */
/* src/cli/keys/feed_client.c — clients of beacons: `rxlock encrypt --feed
 * SRC [--feed SRC2 ...] --open-after WHEN FILE` picks, per feed, the
 * earliest epoch that opens no sooner than WHEN and is still open for
 * encryption (the choice rule), encrypts FILE to it (nested, one layer per
 * beacon: the same as `age -r A | age -r B`) and writes OUT.beacon naming
 * feed and epoch of every layer; `rxlock decrypt --feed ... FILE` reads
 * OUT.beacon, fetches every layer's published identity (or takes it from
 * `beacon solve`'s --ids OUTDIR), or says when each is expected
 * (docs/FORMAT.md §Files encrypted to a beacon). */
#include "cli/feed.h"
#include "cli/keys/keys_cli.h"
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_FEEDS 8

typedef struct {
    char feed[1024];
    uint8_t signer[32];
    uint64_t epoch;
    int kind;
    char recipient[TL_AGE_PQ_RECIPIENT_MAX];
    int64_t earliest;
} layer;

static int write_ref(const char *path, const layer *L, size_t n, int force) {
    json_t *arr = json_array();
    for (size_t k = 0; arr && k < n; k++) {
        char hex[65];
        util_hex_encode(hex, L[k].signer, 32);
        json_t *o = json_pack("{s:s, s:s, s:I, s:s, s:s, s:I}", "feed", L[k].feed, "signer", hex,
                              "epoch", (json_int_t)L[k].epoch, "kind", tl_beacon_kind_name(L[k].kind),
                              "recipient", L[k].recipient, "earliest_opening", (json_int_t)L[k].earliest);
        if (!o || json_array_append_new(arr, o)) { json_decref(arr); arr = NULL; }
    }
    json_t *top = arr ? json_pack("{s:i, s:o}", "rxlock_beacon_ref", 1, "layers", arr) : NULL;
    char *t = top ? json_dumps(top, JSON_INDENT(1) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(top);
    if (!t) return cli_error("out of memory");
    size_t l = strlen(t);
    t[l] = '\n';   /* json_dumps leaves room for the NUL: replace it, write l + 1 */
    int rc = util_write_file_atomic(path, t, l + 1, force, 0644) == 0 ? CLI_OK : cli_output_error(path);
    free(t);
    return rc;
}

static int read_ref(const char *path, layer *L, size_t *n) {
    uint8_t *buf = NULL;
    size_t len = 0;
    if (util_read_file(path, 1u << 16, &buf, &len) != 0)
        return cli_error("%s: %s (the file beside the encrypted one that names its beacon epochs)", path, strerror(errno));
    json_error_t je;
    json_t *o = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &je);
    free(buf);
    json_t *arr = json_object_get(o, "layers");
    int rc = CLI_OK;
    if (!o || json_integer_value(json_object_get(o, "rxlock_beacon_ref")) != 1 || !json_is_array(arr) ||
        json_array_size(arr) < 1 || json_array_size(arr) > MAX_FEEDS)
        rc = cli_error("%s: not an rxlock beacon reference", path);
    *n = rc ? 0 : json_array_size(arr);
    for (size_t k = 0; rc == CLI_OK && k < *n; k++) {
        json_t *e = json_array_get(arr, k);
        const char *feed = json_string_value(json_object_get(e, "feed")), *hex = json_string_value(json_object_get(e, "signer"));
        const char *kind = json_string_value(json_object_get(e, "kind")), *rcp = json_string_value(json_object_get(e, "recipient"));
        json_t *ep = json_object_get(e, "epoch"), *eo = json_object_get(e, "earliest_opening");
        size_t got = 0;
        if (!feed || strlen(feed) >= sizeof L[k].feed || !hex || strlen(hex) != 64 ||
            util_hex_decode(hex, L[k].signer, 32, &got) != 0 || got != 32 || !kind || !rcp ||
            strlen(rcp) >= sizeof L[k].recipient || !json_is_integer(ep) || json_integer_value(ep) < 0 ||
            !json_is_integer(eo)) { rc = cli_error("%s: layer %zu is malformed", path, k + 1); break; }
        snprintf(L[k].feed, sizeof L[k].feed, "%s", feed);
        snprintf(L[k].recipient, sizeof L[k].recipient, "%s", rcp);
        L[k].epoch = (uint64_t)json_integer_value(ep);
        L[k].earliest = (int64_t)json_integer_value(eo);
        L[k].kind = !strcmp(kind, "pq") ? TL_BEACON_PQ : !strcmp(kind, "classic") ? TL_BEACON_CLASSIC : 0;
        if (!L[k].kind) rc = cli_error("%s: layer %zu: unknown kind", path, k + 1);
    }
    json_decref(o);
    return rc;
}

/* Encrypt in_fd to one recipient into out_fd. */
static int encrypt_layer(int in, int out, const layer *l, int armor) {
    int e;
    if (l->kind == TL_BEACON_PQ) {
        uint8_t *r = malloc(TL_AGE_PQ_RECIPIENT_BYTES);
        e = !r || age_pq_recipient_decode(l->recipient, r) ? TL_AGE_EKEY
                                                               : age_pq_encrypt_fd(in, out, (const uint8_t (*)[TL_AGE_PQ_RECIPIENT_BYTES])r, 1, armor);
        free(r);
    } else {
        uint8_t pk[32];
        e = age_recipient_decode(l->recipient, pk) ? TL_AGE_EKEY : age_encrypt_fd(in, out, (const uint8_t (*)[32])pk, 1, armor);
    }
    return e ? cli_error("encrypt: %s", age_strerror(e)) : CLI_OK;
}

int cmd_encrypt_feed(int argc, char **argv) {
    static const struct option opts[] = {
        {"feed", required_argument, 0, 'F'}, {"signer-pin", required_argument, 0, 'p'},
        {"open-after", required_argument, 0, 'A'}, {"pq", no_argument, 0, 'Q'}, {"armor", no_argument, 0, 'a'},
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
        {"floor-table", required_argument, 0, 'T'}, {0, 0, 0, 0}
    };
    const char *feeds[MAX_FEEDS], *pins[MAX_FEEDS], *out = NULL, *when_s = NULL, *in_path = NULL, *table = NULL;
    size_t nf = 0, np = 0;
    int pq = 0, armor = 0, force = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":ao:", opts, NULL)) != -1) {
        switch (c) {
        case 'F': if (nf == MAX_FEEDS) return cli_usage_error("encrypt", "at most %d --feed", MAX_FEEDS); feeds[nf++] = optarg; break;
        case 'p': if (np == MAX_FEEDS) return cli_usage_error("encrypt", "at most %d --signer-pin", MAX_FEEDS); pins[np++] = optarg; break;
        case 'A': when_s = optarg; break;
        case 'Q': pq = 1; break;
        case 'a': armor = 1; break;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'T': table = optarg; break;
        case ':': return cli_usage_error("encrypt", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option("encrypt", optopt, argv[optind - 1]);
        }
    }
    if (optind + 1 != argc) return cli_usage_error("encrypt", "--feed: want one FILE");
    in_path = argv[optind];
    if (!when_s) return cli_usage_error("encrypt", "--feed needs --open-after DATE|DURATION");
    if (np && np != nf) return cli_usage_error("encrypt", "give one --signer-pin per --feed (in the same order), or none");
    int64_t now = tl_beacon_now(), when;
    if (bcn_parse_when(when_s, now, &when) != 0)
        return cli_usage_error("encrypt", "--open-after '%s': want a duration (30d), YYYY-MM-DD[THH:MM[:SS]Z] or @UNIX", when_s);
    char defout[PATH_MAX], ref[PATH_MAX];
    if (!out) {
        if (cli_path_is_std(in_path)) return cli_usage_error("encrypt", "--feed with standard input needs -o OUT");
        if (strlen(in_path) + 5 > sizeof defout) return cli_error("%s: path too long", in_path);
        memcpy(defout, in_path, strlen(in_path));
        memcpy(defout + strlen(in_path), ".age", 5);
        out = defout;
    }
    if (cli_path_is_std(out)) return cli_usage_error("encrypt", "--feed writes OUT and OUT.beacon: give -o OUT (not '-')");
    if (strlen(out) + 8 > sizeof ref) return cli_error("%s: path too long", out);
    memcpy(ref, out, strlen(out));
    memcpy(ref + strlen(out), ".beacon", 8);
    const cli_path files[] = { { in_path, "FILE", CLI_PATH_IN }, { out, "-o", CLI_PATH_OUT }, { ref, "OUT.beacon", CLI_PATH_OUT } };
    if (cli_paths_check(files, 3, force)) return CLI_FAIL;
    static layer L[MAX_FEEDS];
    for (size_t k = 0; k < nf; k++) {
        bcn_src src;
        uint8_t pin[32];
        if (np && cli_parse_pin(pins[k], pin)) return cli_usage_error("encrypt", "--signer-pin: want 64 hex digits");
        int rc = bcn_src_open(&src, feeds[k]);
        tl_beacon_feed *f = NULL;
        if (rc || (rc = bcn_feed_load(&src, np ? pin : NULL, 0, &f)) != CLI_OK) return rc;
        int kind = pq ? TL_BEACON_PQ : f->beacon.kinds & TL_BEACON_CLASSIC ? TL_BEACON_CLASSIC : TL_BEACON_PQ;
        size_t idx;
        if (!(f->beacon.kinds & (unsigned)kind)) { tl_beacon_feed_free(f); return cli_error("%s: the beacon has no post-quantum keys", feeds[k]); }
        /* the checked rule at this client's own floor (trust.c): only a
         * scheduled epoch releasing after this clock and the feed's, its
         * opening recomputed, every signed number checked */
        tl_beacon_floor fl;
        tl_beacon_verdict v;
        if ((rc = bcn_client_floor(feeds[k], &f->beacon, table, 1, &fl)) != CLI_OK ||
            tl_beacon_choose_checked(f, &fl, when, now, kind, &idx, &v) != TL_OK) {
            if (rc == CLI_OK) rc = bcn_refused(feeds[k], &v);
            tl_beacon_feed_free(f);
            return rc;
        }
        const tl_beacon_epoch *e = &f->epochs[idx];
        snprintf(L[k].feed, sizeof L[k].feed, "%s", feeds[k]);
        memcpy(L[k].signer, f->beacon.signer, 32);
        L[k].epoch = e->index;
        L[k].kind = kind;
        L[k].earliest = e->earliest_opening;
        for (unsigned q = 0; q < e->nkeys; q++)
            if (e->keys[q].kind == kind) snprintf(L[k].recipient, sizeof L[k].recipient, "%s", e->keys[q].recipient);
        char eo[48], ao[48];
        int64_t mine = tl_beacon_floor_opening(&f->beacon, &fl, e->index);
        bcn_time(eo, sizeof eo, mine);
        bcn_time(ao, sizeof ao, bcn_about(f, e, mine));
        fprintf(stderr, "rxlock: %s: epoch %llu, recipient %.64s%s; opens no sooner than %s (this client's floor), "
                "about %s\n", feeds[k], (unsigned long long)e->index, L[k].recipient,
                strlen(L[k].recipient) > 64 ? "..." : "", eo, ao);
        int sealed = 0;
        for (unsigned q = 0; q < e->nkeys; q++) sealed |= e->keys[q].kind == kind && e->keys[q].has_sealed;
        if (!sealed && now - f->updated > 2 * (int64_t)f->beacon.every) {
            char up[48];
            bcn_time(up, sizeof up, f->updated);
            fprintf(stderr, "rxlock: %s: warning: epoch %llu is operator-only and the feed was last written %s: only "
                    "the beacon's operator can release it\n", feeds[k], (unsigned long long)e->index, up);
        }
        tl_beacon_feed_free(f);
    }
    cli_io io;
    int rc = cli_io_open(&io, in_path, NULL, 0, 0644);   /* input only; stdout is not used */
    if (rc) return rc;
    int in = io.in_fd;
    util_atomic a;
    if (util_atomic_open(&a, out, force, 0644) != 0) { cli_io_finish(&io, 0); return cli_output_error(out); }
    for (size_t k = 0; k < nf && rc == CLI_OK; k++) {
        int last = k + 1 == nf;
        int o = last ? a.fd : memfd_create("rxlock-layer", MFD_CLOEXEC);
        if (o < 0) { rc = cli_error("memfd: %s", strerror(errno)); break; }
        rc = encrypt_layer(in, o, &L[k], last && armor);
        if (in != io.in_fd) close(in);
        if (!last) {
            if (lseek(o, 0, SEEK_SET) != 0) rc = cli_error("memfd: %s", strerror(errno));
            in = o;
        }
    }
    if (rc == CLI_OK && util_atomic_commit(&a) != 0) rc = cli_output_error(out);
    else if (rc) util_atomic_abort(&a);
    io.out_fd = -1;
    cli_io_finish(&io, 0);
    if (rc == CLI_OK) rc = write_ref(ref, L, nf, force);
    if (rc == CLI_OK)
        fprintf(stderr, "rxlock: wrote %s and %s (open: rxlock decrypt --feed %s %s)\n", out, ref, nf ? L[nf - 1].feed : "", out);
    return rc;
}

/* 1 when text holds the identity of recipient (key, *pq set). */
static int opens(const uint8_t *t, size_t tl, const char *recipient, uint8_t key[32], int *pq) {
    char *rcp = malloc(TL_AGE_PQ_RECIPIENT_MAX);
    int ok = rcp && bcn_identity_parse(t, tl, key, pq) == 0 && cli_identity_recipient(key, *pq, rcp) == 0 &&
             !strcmp(rcp, recipient);
    free(rcp);
    if (!ok) sodium_memzero(key, 32);
    return ok;
}

/* Layer l's identity: each --ids OUTDIR (OUTDIR/SIGNER16/STEM.txt, then the
 * older OUTDIR/STEM.txt), else the feed's published file.  1 got, 0 not
 * yet (said when), or an exit code negated. */
static int layer_identity(const layer *l, const char *src_arg, const char *const *ids, size_t nids, const char *table,
                          uint8_t key[32], int *pq) {
    bcn_src src;
    tl_beacon_feed *f = NULL;
    int rc = bcn_src_open(&src, src_arg);
    if (rc || (rc = bcn_feed_load(&src, l->signer, 1, &f)) != CLI_OK) return -rc;
    int archived = bcn_feed_archived(&src, &f, l->epoch);   /* it left the feed's window */
    if (archived < 0) { tl_beacon_feed_free(f); return -CLI_FAIL; }
    tl_beacon_verdict v;   /* the note against the feed (or its archive page) */
    if (tl_beacon_note_check(f, l->signer, l->epoch, l->kind, l->recipient, l->earliest, &v) != TL_OK) {
        tl_beacon_feed_free(f);
        return -cli_error("%s: %s: refused", src_arg, v.msg);
    }
    long k = tl_beacon_find(f, l->epoch);
    const tl_beacon_key *y = NULL;
    for (unsigned q = 0; k >= 0 && q < f->epochs[k].nkeys; q++)
        if (f->epochs[k].keys[q].kind == l->kind) y = &f->epochs[k].keys[q];
    if (!y) {
        tl_beacon_feed_free(f);
        return -cli_error("%s: the feed does not list epoch %llu with this file's recipient", src_arg, (unsigned long long)l->epoch);
    }
    uint8_t *t = NULL;
    size_t tl = 0;
    char err[512], stem[48], p[PATH_MAX];
    int got = 0;
    bcn_stem(&f->beacon, l->epoch, l->kind, stem);
    for (size_t d = 0; d < nids && !got; d++) {
        /* the folder bcn_ids_dir gives this signer; OUTDIR/STEM.txt of another
         * signer's folder is read but never set aside */
        char dir[PATH_MAX - 64];
        snprintf(dir, sizeof dir, "%s", ids[d]);
        int r = bcn_ids_dir(dir, sizeof dir, l->signer, 0), other = strcmp(dir, ids[d]) != 0;
        int mine = r == 0 || other;   /* a folder of this signer's (or of before): set aside there */
        for (int pass = 0; pass < 1 + other && !got; pass++) {
            if (pass == 0) snprintf(p, sizeof p, "%s/%s.txt", dir, stem);
            else snprintf(p, sizeof p, "%s/%s.txt", ids[d], stem);
            if (util_read_file(p, 65536, &t, &tl) != 0) continue;
            got = opens(t, tl, l->recipient, key, pq);
            sodium_memzero(t, tl);
            free(t);
            t = NULL;
            if (!got && pass == 0 && mine && bcn_set_aside(p) != 0) { tl_beacon_feed_free(f); return -CLI_FAIL; }
        }
    }
    char idp[TL_BEACON_PATH_MAX];   /* listed, or (archived before it was solved) where it would be */
    if (!y->identity[0] && tl_beacon_path(&f->beacon, "identities", l->epoch, l->kind, ".txt", idp) != TL_OK) idp[0] = 0;
    if (!got && (y->identity[0] || (k >= 0 && archived && idp[0]))) {
        int r = bcn_fetch(&src, y->identity[0] ? y->identity : idp, 65536, &t, &tl, err, sizeof err);
        if (r < 0) { tl_beacon_feed_free(f); return -cli_error("%s", err); }
        if (r == 0) {
            got = opens(t, tl, l->recipient, key, pq);
            sodium_memzero(t, tl);
            free(t);
            if (!got) {
                tl_beacon_feed_free(f);
                return -cli_error("%s: epoch %llu's published identity does not match its recipient: refused", src_arg,
                                  (unsigned long long)l->epoch);
            }
        }
    }
    if (!got) {
        const tl_beacon_epoch *e = &f->epochs[k];
        int64_t now = tl_beacon_now();
        tl_beacon_floor fl;
        if (bcn_client_floor(src_arg, &f->beacon, table, 0, &fl) != CLI_OK) { tl_beacon_feed_free(f); return -CLI_FAIL; }
        int64_t mine = tl_beacon_floor_opening(&f->beacon, &fl, e->index);
        if (e->state == TL_BEACON_SCHEDULED && !y->has_sealed && now > e->release + 2 * (int64_t)f->beacon.every) {
            fprintf(stderr, "rxlock: %s: epoch %llu was never released; it opens only if its operator returns\n", src_arg,
                    (unsigned long long)l->epoch);
        } else {
            char eo[48], ao[48];
            bcn_time(eo, sizeof eo, mine);
            bcn_time(ao, sizeof ao, bcn_about(f, e, mine));
            fprintf(stderr, "rxlock: %s: epoch %llu is not solved yet (%s): expected about %s, no sooner than %s\n",
                    src_arg, (unsigned long long)l->epoch, e->state == TL_BEACON_SCHEDULED ? "not released" : "released",
                    ao, eo);
        }
        tl_beacon_feed_free(f);
        return 0;
    }
    tl_beacon_feed_free(f);
    return 1;
}

int cmd_decrypt_feed(int argc, char **argv) {
    static const struct option opts[] = {
        {"feed", required_argument, 0, 'F'}, {"ids", required_argument, 0, 'I'},
        {"output", required_argument, 0, 'o'}, {"force", no_argument, 0, 'f'},
        {"floor-table", required_argument, 0, 'T'}, {0, 0, 0, 0}
    };
    const char *feeds[MAX_FEEDS], *out = NULL, *ids[MAX_FEEDS], *table = NULL;
    size_t nf = 0, n = 0, nids = 0;
    int force = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        switch (c) {
        case 'F': if (nf == MAX_FEEDS) return cli_usage_error("decrypt", "at most %d --feed", MAX_FEEDS); feeds[nf++] = optarg; break;
        case 'I': if (nids == MAX_FEEDS) return cli_usage_error("decrypt", "at most %d --ids", MAX_FEEDS); ids[nids++] = optarg; break;
        case 'T': table = optarg; break;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case ':': return cli_usage_error("decrypt", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option("decrypt", optopt, argv[optind - 1]);
        }
    }
    if (optind + 1 != argc || cli_path_is_std(argv[optind])) return cli_usage_error("decrypt", "--feed: want one FILE (not standard input)");
    const char *in_path = argv[optind];
    char ref[PATH_MAX];
    if (strlen(in_path) + 8 > sizeof ref) return cli_error("%s: path too long", in_path);
    memcpy(ref, in_path, strlen(in_path));
    memcpy(ref + strlen(in_path), ".beacon", 8);
    static layer L[MAX_FEEDS];
    int rc = read_ref(ref, L, &n);
    if (rc) return rc;
    if (nf != n) {
        fprintf(stderr, "rxlock decrypt: %s names %zu layer%s:", ref, n, n == 1 ? "" : "s");
        for (size_t k = 0; k < n; k++) fprintf(stderr, " --feed %s", L[k].feed);
        fputc('\n', stderr);
        return cli_usage_error("decrypt", "give one --feed per layer, in that order");
    }
    const cli_path files[] = { { in_path, "FILE", CLI_PATH_IN }, { out, "-o", CLI_PATH_OUT } };
    if (cli_paths_check(files, 2, force)) return CLI_FAIL;
    uint8_t (*keys)[32] = sodium_malloc(MAX_FEEDS * 32);
    int pqs[MAX_FEEDS], missing = 0;
    if (!keys) return cli_error("out of memory");
    for (size_t k = 0; k < n && rc == CLI_OK; k++) {   /* every identity first: decrypt needs them all */
        int r = layer_identity(&L[k], feeds[k], ids, nids, table, keys[k], &pqs[k]);
        if (r < 0) rc = -r;
        else if (r == 0) missing++;
    }
    if (rc == CLI_OK && missing) rc = cli_error("%s: %d of %zu identit%s not published yet; nothing decrypted", in_path,
                                                missing, n, n == 1 ? "y is" : "ies are");
    cli_io io;
    if (rc == CLI_OK && (rc = cli_io_open(&io, in_path, out, force, 0600)) == CLI_OK) {
        int in = io.in_fd;
        for (size_t k = n; k-- > 0 && rc == CLI_OK;) {
            int o = k == 0 ? io.out_fd : memfd_create("rxlock-layer", MFD_CLOEXEC);
            if (o < 0) { rc = cli_error("memfd: %s", strerror(errno)); break; }
            int e = pqs[k] ? age_decrypt_fd_any(in, o, NULL, 0, (const uint8_t (*)[32])keys[k], 1)
                           : age_decrypt_fd_any(in, o, (const uint8_t (*)[32])keys[k], 1, NULL, 0);
            if (e) rc = cli_error("decrypt (layer %zu, %s epoch %llu): %s", k + 1, L[k].feed, (unsigned long long)L[k].epoch,
                                  age_strerror(e));
            if (in != io.in_fd) close(in);
            if (k && lseek(o, 0, SEEK_SET) != 0) rc = cli_error("memfd: %s", strerror(errno));
            in = o;
        }
        int fin = cli_io_finish(&io, rc == CLI_OK);
        if (rc == CLI_OK) rc = fin;
    }
    sodium_free(keys);
    return rc;
}
