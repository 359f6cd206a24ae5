/* SPDX-License-Identifier: ISC */
/* src/lock/gen/gen_state.c — the generation state directory of a resumable
 * `lock` (docs/FORMAT.md §Generation state, docs/SECURITY.md): a plan
 * directory kept on the generating host — plan.json, plan.secrets sealed
 * under planner.key, state.json (the segment size C), one append-only file
 * of sealed segment records per group, and a progress file — mode 0700 /
 * 0600, locked (flock) while a run uses it, removed after success.  `lock
 * FILE` keeps its own two files in it too (src/cli/lockfile_state.c):
 * input.json, written before the run (a fresh start keeps it), and the
 * finished container. */
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
#include <unistd.h>

struct tl_state {
    char dir[PATH_MAX];
    int  dfd;            /* the directory, flock'ed */
    int  pfd;            /* progress file */
    uint8_t D[32];
};

/* Files a state directory may hold (anything else: not ours, refused). */
static int known_name(const char *nm) {
    static const char *const names[] = { "plan.json", "plan.secrets", "planner.key", "state.json", "progress",
                                         "results", "puzzle.json", "input.json", "container.rxlock" };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) if (!strcmp(nm, names[k])) return 1;
    return strstr(nm, ".tmp-") != NULL;
}

static int seg_path(char *buf, size_t cap, const char *dir, uint32_t g) {
    int n = snprintf(buf, cap, "%s/results/group-%04u.segs", dir, g);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Remove the files of `sub` (NULL: the directory itself) we may have
 * written (check 2: all but the caller's input.json, which a fresh start
 * keeps); check 1: remove nothing, 0, or -1 when a file is not one of
 * ours. */
static int clear_dir(const char *dir, const char *sub, int check) {
    char path[PATH_MAX], f[PATH_MAX];
    if (snprintf(path, sizeof path, "%s%s%s", dir, sub ? "/" : "", sub ? sub : "") >= (int)sizeof path) return -1;
    DIR *d = opendir(path);
    if (!d) return errno == ENOENT ? 0 : -1;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d))) {
        const char *nm = de->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, "..")) continue;
        int ours = sub ? !strncmp(nm, "group-", 6) || strstr(nm, ".tmp-") != NULL : known_name(nm);
        if (check == 1) { if (!ours) { rc = -1; break; } continue; }
        if (!ours || (check == 2 && !sub && !strcmp(nm, "input.json"))) continue;
        if (!sub && !strcmp(nm, "results")) continue;
        if (snprintf(f, sizeof f, "%s/%s", path, nm) < (int)sizeof f) (void)unlink(f);
    }
    closedir(d);
    return rc;
}

static int write_state_json(const char *dir, uint64_t C) {
    char path[PATH_MAX], *txt = NULL;
    json_t *o = json_pack("{s:i, s:I}", "rxlock_state", 1, "checkpoint_steps", (json_int_t)C);
    if (o) txt = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!txt) return TL_ENOMEM;
    int rc = tl_plan_path(path, sizeof path, dir, "state.json", 0) != 0 ||
             util_write_file_atomic(path, txt, strlen(txt), 1, 0600) != 0 ? TL_EIO : TL_OK;
    free(txt);
    return rc;
}

static int read_state_json(const char *dir, uint64_t S, uint64_t *C) {
    char path[PATH_MAX];
    uint8_t *data = NULL;
    size_t len = 0;
    if (tl_plan_path(path, sizeof path, dir, "state.json", 0) != 0 || util_read_file(path, 4096, &data, &len) != 0)
        return TL_EIO;
    json_t *o = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, NULL);
    free(data);
    json_t *v = json_object_get(o, "rxlock_state"), *c = json_object_get(o, "checkpoint_steps");
    int rc = json_is_object(o) && json_object_size(o) == 2 && json_is_integer(v) && json_integer_value(v) == 1 &&
             json_is_integer(c) && json_integer_value(c) >= 1 && (uint64_t)json_integer_value(c) <= S
             ? TL_OK : TL_EFORMAT;
    if (rc == TL_OK) *C = (uint64_t)json_integer_value(c);
    json_decref(o);
    return rc;
}

static int same_params(const tl_puzzle *a, const tl_params *p) {
    return a->work == p->work && a->groups == p->groups && a->steps == p->steps && a->rate_milli_hps == p->rate_milli_hps &&
           !strcmp(a->rate_source, p->rate_source) && a->target_seconds == p->target_seconds &&
           a->test_only == tl_test_mode() && a->pq_epoch == (p->pq ? 1 : 0);   /* issue 21's epoch kind too */
}

/* Resume: load and check everything a previous run wrote. */
static int resume(tl_state *st, const tl_params *p, tl_plan_info *pi, uint8_t *sec, uint64_t *C,
                  char *err, size_t errlen) {
    char path[PATH_MAX];
    const uint32_t G = p->groups;
    uint8_t *psk = sec + 32 + (size_t)G * TL_SECRETS_ENTRY, ppk[32], *blob = NULL;
    size_t blen = 0;
    int rc = tl_plan_info_load(st->dir, pi, err, errlen);
    if (rc) return rc;
    if (!same_params(&pi->pub, p)) {
        tl_set_err(err, errlen, "%s: holds the state of another lock (%s, %u x %llu steps, %s epoch key): run "
                   "the same command to resume it, or remove the directory", st->dir, tl_work_name(pi->pub.work),
                   pi->pub.groups, (unsigned long long)pi->pub.steps, pi->pub.pq_epoch ? "post-quantum" : "classic");
        return TL_EINVAL;
    }
    if (tl_plan_path(path, sizeof path, st->dir, "planner.key", 0) != 0 || tl_plan_key_load(path, psk, ppk) != 0 ||
        sodium_memcmp(ppk, pi->planner_pk, 32) != 0) {
        tl_set_err(err, errlen, "%s: missing or not this state's key", path);
        return TL_EFORMAT;
    }
    if (tl_plan_path(path, sizeof path, st->dir, "plan.secrets", 0) != 0 ||
        util_read_file(path, tl_secrets_size(TL_MAX_GROUPS), &blob, &blen) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return TL_EIO;
    }
    rc = tl_secrets_open(sec, blob, blen, pi->D, G, psk);
    sodium_memzero(blob, blen);
    free(blob);
    if (rc == TL_OK && (tl_epoch_check(&pi->pub, sec) != TL_OK ||   /* classic or post-quantum (issue 21) */
                        sodium_memcmp(sec + 32 + 24, pi->pub.seed, 32) != 0))
        rc = TL_EFORMAT;
    if (rc == TL_OK) rc = read_state_json(st->dir, p->steps, C);
    if (rc) tl_set_err(err, errlen, "%s: the state does not open (modified or damaged): %s", st->dir, tl_strerror(rc));
    memcpy(st->D, pi->D, 32);
    return rc;
}

/* A new state: draw, then write key, secrets, state.json and plan.json
 * last (a directory without plan.json is an unfinished state). */
static int create(tl_state *st, const tl_params *p, uint64_t C, tl_plan_info *pi, uint8_t *sec,
                  char *err, size_t errlen) {
    char path[PATH_MAX], title[120], *txt = NULL;
    const uint32_t G = p->groups;
    size_t blen = tl_secrets_size(G), tlen = 0;
    uint8_t *blob = malloc(blen);
    if (!blob) return TL_ENOMEM;
    int rc = tl_draw(pi, sec, p);
    pi->mode = TL_MODE_LIGHT;
    pi->batch = 1;
    pi->tasks = G;
    memcpy(st->D, pi->D, 32);
    snprintf(title, sizeof title, "rxlock generation state key (X25519): opens plan.secrets beside it");
    if (rc == TL_OK && (tl_plan_path(path, sizeof path, st->dir, "planner.key", 0) != 0 ||
                        tl_plan_key_save(path, sec + 32 + (size_t)G * TL_SECRETS_ENTRY, title, 1) != 0))
        rc = TL_EIO;
    if (rc == TL_OK) rc = tl_secrets_seal(blob, pi->D, G, sec, sec + 32 + (size_t)G * TL_SECRETS_ENTRY);
    if (rc == TL_OK && (tl_plan_path(path, sizeof path, st->dir, "plan.secrets", 0) != 0 ||
                        util_write_file_atomic(path, blob, blen, 1, 0600) != 0))
        rc = TL_EIO;
    if (rc == TL_OK) rc = write_state_json(st->dir, C);
    if (rc == TL_OK && (tl_plan_path(path, sizeof path, st->dir, "results", 0) != 0 ||
                        (mkdir(path, 0700) != 0 && errno != EEXIST)))
        rc = TL_EIO;
    if (rc == TL_OK) rc = tl_plan_info_json(pi, &txt, &tlen);
    if (rc == TL_OK && (tl_plan_path(path, sizeof path, st->dir, "plan.json", 0) != 0 ||
                        util_write_file_atomic(path, txt, tlen, 1, 0600) != 0))
        rc = TL_EIO;
    if (rc == TL_EIO) tl_set_err(err, errlen, "%s: cannot write the generation state: %s", st->dir, strerror(errno));
    free(txt);
    free(blob);
    return rc;
}

int tl_state_open(tl_state **out, const char *dir, const tl_params *p, uint64_t C_new, tl_plan_info *pi,
                  uint8_t *sec, uint64_t *C, int *resumed, char *err, size_t errlen) {
    *out = NULL;
    *resumed = 0;
    tl_state *st = calloc(1, sizeof *st);
    if (!st) return TL_ENOMEM;
    st->dfd = st->pfd = -1;
    char path[PATH_MAX];
    struct stat sb;
    int rc = TL_OK;
    if (snprintf(st->dir, sizeof st->dir, "%s", dir) >= (int)sizeof st->dir) { free(st); return TL_EINVAL; }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        tl_set_err(err, errlen, "%s: cannot create the generation state directory: %s", dir, strerror(errno));
        free(st);
        return TL_EIO;
    }
    st->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (st->dfd < 0 || fstat(st->dfd, &sb) != 0 || sb.st_uid != geteuid()) {
        tl_set_err(err, errlen, "%s: not a directory of this user", dir);
        rc = TL_EIO;
    } else if (flock(st->dfd, LOCK_EX | LOCK_NB) != 0) {
        tl_set_err(err, errlen, "%s: another rxlock run is using this generation state", dir);
        rc = TL_EIO;
    } else if ((sb.st_mode & 077) && fchmod(st->dfd, 0700) != 0) {
        tl_set_err(err, errlen, "%s: cannot make it private (0700): %s", dir, strerror(errno));
        rc = TL_EIO;
    }
    if (rc == TL_OK && tl_plan_path(path, sizeof path, dir, "plan.json", 0) != 0) rc = TL_EINVAL;
    if (rc == TL_OK && lstat(path, &sb) == 0) {
        rc = resume(st, p, pi, sec, C, err, errlen);
        if (rc == TL_OK) *resumed = 1;
    } else if (rc == TL_OK) {
        /* New, or a run stopped before plan.json: only our files may be there. */
        if (clear_dir(dir, NULL, 1) != 0 || clear_dir(dir, "results", 1) != 0) {
            tl_set_err(err, errlen, "%s: holds files that are not an rxlock generation state", dir);
            rc = TL_EINVAL;
        } else {
            clear_dir(dir, "results", 0);
            clear_dir(dir, NULL, 2);
            *C = C_new;
            rc = create(st, p, C_new, pi, sec, err, errlen);
        }
    }
    if (rc == TL_OK && (tl_plan_path(path, sizeof path, dir, "progress", 0) != 0 ||
                        (st->pfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600)) < 0)) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        rc = TL_EIO;
    }
    if (rc) { tl_state_close(st); return rc; }
    *out = st;
    return TL_OK;
}

int tl_state_read(tl_state *st, uint32_t g, const uint8_t rkey[32], tl_seg_fn fn, void *ctx) {
    char path[PATH_MAX];
    if (seg_path(path, sizeof path, st->dir, g) != 0) return TL_EINVAL;
    return tl_seg_file_read(path, st->D, g, rkey, 1, fn, ctx);
}

int tl_state_append(tl_state *st, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                    const char host[TL_HOST_MAX], const uint8_t rkey[32]) {
    char path[PATH_MAX];
    if (seg_path(path, sizeof path, st->dir, g) != 0) return TL_EINVAL;
    return tl_seg_file_append(path, st->D, g, kind, i, d, pid, host, rkey);
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

int tl_generate_state_remove(const char *dir) {
    char path[PATH_MAX];
    if (!dir) return TL_EINVAL;
    clear_dir(dir, "results", 0);
    if (tl_plan_path(path, sizeof path, dir, "results", 0) == 0) (void)rmdir(path);
    clear_dir(dir, NULL, 0);
    int rc = rmdir(dir) == 0 ? TL_OK : TL_EIO;
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
    if (st->dfd >= 0) close(st->dfd);   /* releases the lock */
    sodium_memzero(st, sizeof *st);
    free(st);
}
