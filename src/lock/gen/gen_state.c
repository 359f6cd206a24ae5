/* SPDX-License-Identifier: ISC */
/* src/lock/gen/gen_state.c — the generation state directory of a resumable
 * `lock` (docs/FORMAT.md §Generation state, docs/SECURITY.md): a plan
 * directory kept on the generating host — plan.json, plan.secrets sealed
 * under planner.key, state.json (the segment size C, under a MAC keyed by
 * the planner key), one append-only file of sealed segment records per
 * group, and a progress file — mode 0700 / 0600, locked (flock) while a
 * run uses it, removed after success (secrets first, every step
 * idempotent).  Every file is reached through the directory's handle and
 * opened as a regular file only (no symbolic link followed, no FIFO
 * opened).  The caller may keep its own files in it (tl_gen_opts.
 * state_files): a fresh start keeps them, the removal takes them last. */
#include "gen_internal.h"
#include "util/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct tl_state {
    char dir[PATH_MAX];   /* for messages */
    int  dfd;            /* the directory, flock'ed: every file through it */
    int  rfd;            /* results/ */
    int  pfd;            /* progress file */
    uint8_t D[32];
};

/* The library's files, secrets first: the order they are removed in. */
static const char *const LIB_FILES[] = { "planner.key", "plan.secrets", "progress", "state.json", "plan.json" };
#define N_LIB (sizeof LIB_FILES / sizeof LIB_FILES[0])

static int in_list(const char *nm, size_t len, const char *const *list, size_t n) {
    for (size_t k = 0; list && (n ? k < n : list[k] != NULL); k++)
        if (strlen(list[k]) == len && !strncmp(nm, list[k], len)) return 1;
    return 0;
}

/* A name of ours: one of the library's, one the caller keeps there
 * (tl_gen_opts.state_files), or a temp file of one of them
 * ("NAME.tmp-XXXXXX", what a killed atomic write leaves). */
static int known_name(const char *nm, const char *const *extra) {
    size_t l = strlen(nm);
    if (in_list(nm, l, LIB_FILES, N_LIB) || in_list(nm, l, extra, 0) || !strcmp(nm, "results")) return 1;
    return l > 11 && !strncmp(nm + l - 11, ".tmp-", 5) &&
           (in_list(nm, l - 11, LIB_FILES, N_LIB) || in_list(nm, l - 11, extra, 0));
}

static int seg_name(char *buf, size_t cap, uint32_t g) {
    int n = snprintf(buf, cap, "group-%04u.segs", g);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* results/'s entries: segment files and their temp files. */
static int result_name(const char *nm) {
    return !strncmp(nm, "group-", 6) && (strstr(nm, ".segs") != NULL);
}

/* Check (remove == 0: -1 when an entry of directory handle dfd is not
 * ours) or remove (every entry of ours; the temp files of known names).
 * results: the entries of results/. */
static int scan_dir(int dfd, const char *const *extra, int results, int remove) {
    int dd = dup(dfd);
    if (dd < 0) return -1;
    DIR *d = fdopendir(dd);
    if (!d) { close(dd); return -1; }
    rewinddir(d);
    int rc = 0;
    for (struct dirent *de; (de = readdir(d));) {
        const char *nm = de->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, "..")) continue;
        int ours = results ? result_name(nm) : known_name(nm, extra);
        if (!remove) { if (!ours) { rc = -1; break; } continue; }
        if (ours && (results || strstr(nm, ".tmp-"))) (void)unlinkat(dfd, nm, 0);
    }
    closedir(d);
    return rc;
}

/* results/ and every segment file in it (a symbolic link or other file in
 * its place is removed, never followed). */
static void remove_results(int dfd) {
    int rfd = util_open_dir_at(dfd, "results", 0);
    if (rfd >= 0) {
        (void)scan_dir(rfd, NULL, 1, 1);
        close(rfd);
        (void)unlinkat(dfd, "results", AT_REMOVEDIR);
    } else if (errno == ELOOP || errno == ENOTDIR) {
        (void)unlinkat(dfd, "results", 0);
    }
}

/* Remove the library's files, secrets first, results/ before plan.json
 * (a directory without plan.json is an unfinished state); with extra, the
 * caller's files after them in the order named, then temp files.  Every
 * step is idempotent: a removal cut short is finished by the next. */
static int remove_files(int dfd, const char *const *extra, int all) {
    int rc = 0;
    for (size_t k = 0; k < N_LIB; k++) {
        if (k == N_LIB - 1) remove_results(dfd);
        if (util_unlink_at(dfd, LIB_FILES[k]) != 0) rc = -1;
    }
    for (size_t k = 0; all && extra && extra[k]; k++)
        if (util_unlink_at(dfd, extra[k]) != 0) rc = -1;
    (void)scan_dir(dfd, extra, 0, 1);
    return rc;
}

/* state.json's MAC: BLAKE2b-256 keyed by the planner key over D and C. */
static void state_mac(uint8_t mac[32], const uint8_t psk[32], const uint8_t D[32], uint64_t C) {
    uint8_t c8[8];
    tl_put64(c8, C);
    tl_rec_kdf(mac, psk, "rxlock/state-json/v2", D, 32, c8, 8);
}

static int write_state_json(int dfd, const uint8_t psk[32], const uint8_t D[32], uint64_t C) {
    uint8_t mac[32];
    char hex[65], *txt = NULL;
    state_mac(mac, psk, D, C);
    util_hex_encode(hex, mac, 32);
    json_t *o = json_pack("{s:i, s:I, s:s}", "rxlock_state", 2, "checkpoint_steps", (json_int_t)C, "mac", hex);
    if (o) txt = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!txt) return TL_ENOMEM;
    int rc = util_write_at_atomic(dfd, "state.json", txt, strlen(txt), 1, 0600) != 0 ? TL_EIO : TL_OK;
    free(txt);
    return rc;
}

/* state.json, its MAC checked (a changed C would void every record). */
static int read_state_json(int dfd, const uint8_t psk[32], const uint8_t D[32], uint64_t S, uint64_t *C) {
    uint8_t *data = NULL, mac[32], want[32];
    size_t len = 0, got = 0;
    if (util_read_at(dfd, "state.json", 4096, &data, &len) != 0) return TL_EIO;
    json_t *o = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, NULL);
    free(data);
    json_t *v = json_object_get(o, "rxlock_state"), *c = json_object_get(o, "checkpoint_steps"),
           *m = json_object_get(o, "mac");
    int rc = json_is_object(o) && json_object_size(o) == 3 && json_is_integer(v) && json_integer_value(v) == 2 &&
             json_is_integer(c) && json_integer_value(c) >= 1 && (uint64_t)json_integer_value(c) <= S &&
             json_is_string(m) && json_string_length(m) == 64 &&
             util_hex_decode(json_string_value(m), mac, 32, &got) == 0 && got == 32
             ? TL_OK : TL_EFORMAT;
    if (rc == TL_OK) {
        state_mac(want, psk, D, (uint64_t)json_integer_value(c));
        if (sodium_memcmp(want, mac, 32) != 0) rc = TL_EAUTH;
        else *C = (uint64_t)json_integer_value(c);
    }
    json_decref(o);
    return rc;
}

static int same_params(const tl_puzzle *a, const tl_params *p) {
    return a->work == p->work && a->groups == p->groups && a->steps == p->steps && a->rate_milli_hps == p->rate_milli_hps &&
           !strcmp(a->rate_source, p->rate_source) && a->target_seconds == p->target_seconds &&
           a->test_only == tl_test_mode() && a->pq_epoch == (p->pq ? 1 : 0);   /* the epoch kind too */
}

/* errno of a failed open as words. */
static const char *open_why(int e) {
    return e == ELOOP ? "a symbolic link (refused)" : e == EINVAL ? "not a regular file (refused)" : strerror(e);
}

/* Resume: load and check everything a previous run wrote. */
static int resume(tl_state *st, const tl_params *p, tl_plan_info *pi, uint8_t *sec, uint64_t *C,
                  char *err, size_t errlen) {
    const uint32_t G = p->groups;
    uint8_t *psk = sec + 32 + (size_t)G * TL_SECRETS_ENTRY, ppk[32], *blob = NULL;
    size_t blen = 0;
    char shown[PATH_MAX + 16];
    snprintf(shown, sizeof shown, "%s/plan.json", st->dir);
    int rc = tl_plan_info_load_at(st->dfd, "plan.json", shown, pi, err, errlen);
    if (rc) {
        size_t n = err ? strlen(err) : 0;
        if (err && n + 1 < errlen)
            snprintf(err + n, errlen - n, ": the generation state does not open; remove %s/ to start over", st->dir);
        return rc;
    }
    if (!same_params(&pi->pub, p)) {
        tl_set_err(err, errlen, "%s: holds the state of another lock (%s, %u x %llu steps, %s epoch key): run "
                   "the same command to resume it, or remove the directory", st->dir, tl_work_name(pi->pub.work),
                   pi->pub.groups, (unsigned long long)pi->pub.steps, pi->pub.pq_epoch ? "post-quantum" : "classic");
        return TL_EINVAL;
    }
    if ((rc = tl_plan_key_load_at(st->dfd, "planner.key", psk, ppk)) != 0 || sodium_memcmp(ppk, pi->planner_pk, 32) != 0) {
        tl_set_err(err, errlen, "%s/planner.key: %s: the state cannot be resumed; remove %s/ to start over", st->dir,
                   rc == TL_EIO ? open_why(errno) : "missing or not this state's key", st->dir);
        return TL_EFORMAT;
    }
    if (util_read_at(st->dfd, "plan.secrets", tl_secrets_size(TL_MAX_GROUPS), &blob, &blen) != 0) {
        tl_set_err(err, errlen, "%s/plan.secrets: %s: the state cannot be resumed; remove %s/ to start over", st->dir,
                   open_why(errno), st->dir);
        return TL_EIO;
    }
    rc = tl_secrets_open(sec, blob, blen, pi->D, G, psk);
    sodium_memzero(blob, blen);
    free(blob);
    if (rc == TL_OK && (tl_epoch_check(&pi->pub, sec) != TL_OK ||   /* classic or post-quantum */
                        sodium_memcmp(sec + 32 + 24, pi->pub.seed, 32) != 0))
        rc = TL_EFORMAT;
    if (rc == TL_OK && (rc = read_state_json(st->dfd, psk, pi->D, p->steps, C)) != TL_OK)
        tl_set_err(err, errlen, "%s/state.json: %s: remove %s/ to start over", st->dir,
                   rc == TL_EIO ? open_why(errno) : "modified or damaged (its MAC does not match)", st->dir);
    else if (rc)
        tl_set_err(err, errlen, "%s/plan.secrets: does not open (modified or damaged): %s: remove %s/ to start over",
                   st->dir, tl_strerror(rc), st->dir);
    memcpy(st->D, pi->D, 32);
    return rc;
}

/* A new state: draw, then write key, secrets, state.json and plan.json
 * last (a directory without plan.json is an unfinished state). */
static int create(tl_state *st, const tl_params *p, uint64_t C, tl_plan_info *pi, uint8_t *sec,
                  char *err, size_t errlen) {
    char title[120], *txt = NULL;
    const char *what = "planner.key";
    const uint32_t G = p->groups;
    size_t blen = tl_secrets_size(G), tlen = 0;
    uint8_t *blob = malloc(blen), *psk = sec + 32 + (size_t)G * TL_SECRETS_ENTRY;
    if (!blob) return TL_ENOMEM;
    int rc = tl_draw(pi, sec, p);
    pi->mode = TL_MODE_LIGHT;
    pi->batch = 1;
    pi->tasks = G;
    memcpy(st->D, pi->D, 32);
    snprintf(title, sizeof title, "rxlock generation state key (X25519): opens plan.secrets beside it");
    if (rc == TL_OK && tl_plan_key_save_at(st->dfd, "planner.key", psk, title, 1) != 0) rc = TL_EIO;
    if (rc == TL_OK) rc = tl_secrets_seal(blob, pi->D, G, sec, psk);
    if (rc == TL_OK && (what = "plan.secrets", util_write_at_atomic(st->dfd, what, blob, blen, 1, 0600) != 0))
        rc = TL_EIO;
    if (rc == TL_OK && (what = "state.json", 1)) rc = write_state_json(st->dfd, psk, pi->D, C);
    if (rc == TL_OK && (what = "results", (st->rfd = util_open_dir_at(st->dfd, what, 1)) < 0)) rc = TL_EIO;
    if (rc == TL_OK) rc = tl_plan_info_json(pi, &txt, &tlen);
    if (rc == TL_OK && (what = "plan.json", util_write_at_atomic(st->dfd, what, txt, tlen, 1, 0600) != 0))
        rc = TL_EIO;
    if (rc == TL_EIO) tl_set_err(err, errlen, "%s/%s: cannot write the generation state: %s", st->dir, what, open_why(errno));
    free(txt);
    free(blob);
    return rc;
}

/* Take the state's lock.  A run killed a moment ago may still hold it
 * through a worker process it had just forked: the child inherits the
 * descriptor and closes it first thing (worker.c, tl_wipe.fd), but on a
 * loaded machine it may not run for a while, and then dies of
 * PR_SET_PDEATHSIG.  Wait up to 10 s for it before calling it another
 * run.  0 or -1. */
static int lock_state_dir(int dfd) {
    for (int tries = 0; tries < 200; tries++) {
        if (flock(dfd, LOCK_EX | LOCK_NB) == 0) return 0;
        if (errno != EWOULDBLOCK && errno != EINTR) return -1;
        struct timespec ts = { 0, 50 * 1000 * 1000 };
        (void)nanosleep(&ts, NULL);
    }
    return -1;
}

int tl_state_open(tl_state **out, const char *dir, const char *const *extra, const tl_params *p, uint64_t C_new,
                  tl_plan_info *pi, uint8_t *sec, uint64_t *C, int *resumed, char *err, size_t errlen) {
    *out = NULL;
    *resumed = 0;
    tl_state *st = calloc(1, sizeof *st);
    if (!st) return TL_ENOMEM;
    st->dfd = st->rfd = st->pfd = -1;
    struct stat sb;
    int rc = TL_OK;
    if (snprintf(st->dir, sizeof st->dir, "%s", dir) >= (int)sizeof st->dir) { free(st); return TL_EINVAL; }
    st->dfd = util_open_dir_at(AT_FDCWD, dir, 1);
    if (st->dfd < 0 && errno != ELOOP && errno != ENOTDIR) {
        tl_set_err(err, errlen, "%s: cannot create the generation state directory: %s", dir, strerror(errno));
        rc = TL_EIO;
    } else if (st->dfd < 0 || fstat(st->dfd, &sb) != 0 || sb.st_uid != geteuid()) {
        tl_set_err(err, errlen, "%s: not a directory of this user (a symbolic link or another file is refused): "
                   "remove it or give another output", dir);
        rc = TL_EIO;
    } else if (lock_state_dir(st->dfd) != 0) {
        tl_set_err(err, errlen, "%s: another rxlock run is using this generation state: wait for it to finish", dir);
        rc = TL_EIO;
    } else if ((sb.st_mode & 077) && fchmod(st->dfd, 0700) != 0) {
        tl_set_err(err, errlen, "%s: cannot make it private (0700): %s", dir, strerror(errno));
        rc = TL_EIO;
    }
    if (rc == TL_OK && fstatat(st->dfd, "plan.json", &sb, AT_SYMLINK_NOFOLLOW) == 0) {
        rc = resume(st, p, pi, sec, C, err, errlen);
        if (rc == TL_OK && (st->rfd = util_open_dir_at(st->dfd, "results", 1)) < 0) {
            tl_set_err(err, errlen, "%s/results: %s: remove %s/ to start over", dir, open_why(errno), dir);
            rc = TL_EIO;
        }
        if (rc == TL_OK) *resumed = 1;
    } else if (rc == TL_OK) {
        /* New, or a run stopped before plan.json: only our files may be
         * there; the caller's own are kept. */
        int rfd = util_open_dir_at(st->dfd, "results", 0);
        if (scan_dir(st->dfd, extra, 0, 0) != 0 || (rfd >= 0 && scan_dir(rfd, NULL, 1, 0) != 0)) {
            tl_set_err(err, errlen, "%s: holds files that are not an rxlock generation state: remove them or "
                       "give another output", dir);
            rc = TL_EINVAL;
        } else {
            (void)remove_files(st->dfd, extra, 0);
            *C = C_new;
            rc = create(st, p, C_new, pi, sec, err, errlen);
        }
        if (rfd >= 0) close(rfd);
    }
    if (rc == TL_OK && (st->pfd = util_open_reg_at(st->dfd, "progress", O_RDWR | O_CREAT, 0600)) < 0) {
        tl_set_err(err, errlen, "%s/progress: %s: remove %s/ to start over", dir, open_why(errno), dir);
        rc = TL_EIO;
    }
    if (rc) { tl_state_close(st); return rc; }
    *out = st;
    return TL_OK;
}

int tl_state_read(tl_state *st, uint32_t g, const uint8_t rkey[32], tl_seg_fn fn, void *ctx) {
    char name[32];
    if (seg_name(name, sizeof name, g) != 0) return TL_EINVAL;
    return tl_seg_file_read(st->rfd, name, st->D, g, rkey, 1, fn, ctx);
}

int tl_state_append(tl_state *st, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                    const char host[TL_HOST_MAX], const uint8_t rkey[32], char *err, size_t errlen) {
    char name[32];
    if (seg_name(name, sizeof name, g) != 0) return TL_EINVAL;
    int rc = tl_seg_file_append(st->rfd, name, st->D, g, kind, i, d, pid, host, rkey);
    if (rc == TL_EIO)
        tl_set_err(err, errlen, "%s/results/%s: cannot write the generation state: %s",
                   st->dir, name, open_why(errno));
    return rc;
}

void tl_state_progress_save(tl_state *st, const uint64_t *reached, uint32_t G) {
    uint8_t b[8];
    for (uint32_t g = 0; g < G; g++) {
        tl_put64(b, reached[g]);
        if (pwrite(st->pfd, b, 8, (off_t)g * 8) != 8) return;
    }
}

int tl_state_progress_load(tl_state *st, uint64_t *reached, uint32_t G) {
    uint8_t b[8];
    for (uint32_t g = 0; g < G; g++) {
        if (pread(st->pfd, b, 8, (off_t)g * 8) != 8) return -1;
        reached[g] = tl_get64(b);
    }
    return 0;
}

int tl_generate_state_remove(const char *dir, const char *const *state_files) {
    if (!dir) return TL_EINVAL;
    struct stat sb;
    int dfd = util_open_dir_at(AT_FDCWD, dir, 0);
    if (dfd < 0) return errno == ENOENT ? TL_OK : TL_EIO;   /* gone: done */
    if (fstat(dfd, &sb) != 0 || sb.st_uid != geteuid()) { close(dfd); return TL_EIO; }
    if (flock(dfd, LOCK_EX | LOCK_NB) != 0) { close(dfd); return TL_EIO; }   /* another run uses it */
    int rc = remove_files(dfd, state_files, 1) == 0 ? TL_OK : TL_EIO;
    if (rc == TL_OK && unlinkat(AT_FDCWD, dir, AT_REMOVEDIR) != 0 && errno != ENOENT) rc = TL_EIO;
    close(dfd);
    if (rc == TL_OK) (void)util_fsync_dir(dir);
    return rc;
}

void tl_state_fds(const tl_state *st, int fd[2]) {
    fd[0] = st ? st->dfd : -1;
    fd[1] = st ? st->pfd : -1;
}

void tl_state_close(tl_state *st) {
    if (!st) return;
    if (st->pfd >= 0) close(st->pfd);
    if (st->rfd >= 0) close(st->rfd);
    if (st->dfd >= 0) close(st->dfd);   /* releases the lock */
    sodium_memzero(st, sizeof *st);
    free(st);
}
