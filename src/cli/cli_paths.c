/* SPDX-License-Identifier: ISC */
/* src/cli/cli_paths.c — checks of a command's files before any work (see
 * cli_paths.h): outputs that exist, unwritable output directories, and two
 * names for one file; a plan directory without plan.json. */
#include "cli/cli_paths.h"
#include "cli/cli.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    int exists;            /* stat() (following links) succeeded          */
    dev_t dev;
    ino_t ino;
    char resolved[PATH_MAX];   /* realpath(parent) + "/" + base, or ""    */
} file_id;

int cli_path_is_std(const char *path) { return !path || !strcmp(path, "-"); }

/* The parent directory of path into dir (".", "/" or the prefix). */
static int parent_of(const char *path, char dir[PATH_MAX], const char **base) {
    size_t n = strlen(path);
    if (n >= PATH_MAX) return -1;
    const char *slash = strrchr(path, '/');
    if (!slash) { strcpy(dir, "."); *base = path; return 0; }
    if (slash == path) strcpy(dir, "/");
    else { memcpy(dir, path, (size_t)(slash - path)); dir[slash - path] = 0; }
    *base = slash + 1;
    return 0;
}

static void identify(const char *path, file_id *id) {
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) { id->exists = 1; id->dev = st.st_dev; id->ino = st.st_ino; }
    char dir[PATH_MAX], rdir[PATH_MAX];
    const char *base;
    if (parent_of(path, dir, &base) != 0 || !realpath(dir, rdir)) return;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        if (!realpath(path, id->resolved)) id->resolved[0] = 0;
        return;
    }
    if (snprintf(id->resolved, sizeof id->resolved, "%s/%s", strcmp(rdir, "/") ? rdir : "", base) >=
        (int)sizeof id->resolved)
        id->resolved[0] = 0;
}

static int same_file(const file_id *a, const file_id *b) {
    if (a->exists && b->exists) return a->dev == b->dev && a->ino == b->ino;
    return a->resolved[0] && !strcmp(a->resolved, b->resolved);
}

static int check_output(const cli_path *p, int force) {
    struct stat st;
    if (p->kind == CLI_PATH_OUT && lstat(p->path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return cli_error("%s (%s): is a directory", p->path, p->what);
        if (!force) return cli_error("%s: already exists (use --force to replace it)", p->path);
    }
    if (p->kind == CLI_PATH_STATE && stat(p->path, &st) == 0 && S_ISDIR(st.st_mode))
        return cli_error("%s (%s): is a directory", p->path, p->what);
    char dir[PATH_MAX];
    const char *base;
    if (parent_of(p->path, dir, &base) != 0) return cli_error("%s: %s", p->path, strerror(ENAMETOOLONG));
    if (!*base) return cli_error("%s (%s): names a directory, not a file", p->path, p->what);
    if (stat(dir, &st) != 0) return cli_error("%s (%s): directory %s: %s", p->path, p->what, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode)) return cli_error("%s (%s): %s is not a directory", p->path, p->what, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_error("%s (%s): cannot write in %s: %s", p->path, p->what, dir, strerror(errno));
    return CLI_OK;
}

int cli_paths_check(const cli_path *paths, size_t n, int force) {
    file_id *ids = calloc(n ? n : 1, sizeof *ids);
    if (!ids) return cli_error("out of memory");
    int rc = CLI_OK;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        if (cli_path_is_std(paths[i].path)) continue;
        if (!*paths[i].path) { rc = cli_error("%s: empty file name", paths[i].what); break; }
        identify(paths[i].path, &ids[i]);
        for (size_t k = 0; k < i && rc == CLI_OK; k++) {
            if (cli_path_is_std(paths[k].path)) continue;
            if (paths[i].kind == CLI_PATH_IN && paths[k].kind == CLI_PATH_IN) continue;
            if (same_file(&ids[i], &ids[k]))
                rc = cli_error("%s and %s name the same file (%s%s%s): refusing to overwrite it; give different files",
                               paths[k].what, paths[i].what, paths[k].path,
                               strcmp(paths[k].path, paths[i].path) ? ", " : "",
                               strcmp(paths[k].path, paths[i].path) ? paths[i].path : "");
        }
    }
    for (size_t i = 0; i < n && rc == CLI_OK; i++)
        if (!cli_path_is_std(paths[i].path) && paths[i].kind != CLI_PATH_IN) rc = check_output(&paths[i], force);
    free(ids);
    return rc;
}

int cli_plan_dir_check(const char *dir) {
    struct stat sb;
    char p[PATH_MAX];
    if (stat(dir, &sb) != 0) return cli_error("%s: %s: give the directory `rxlock plan -o DIR` wrote", dir, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return cli_error("%s: not a directory: give the plan directory `rxlock plan -o DIR` wrote", dir);
    if (snprintf(p, sizeof p, "%s/plan.json", dir) >= (int)sizeof p) return cli_error("%s: path too long", dir);
    if (lstat(p, &sb) != 0 && errno == ENOENT)
        return cli_error("%s: not a plan directory (no plan.json): give the directory `rxlock plan -o DIR` wrote", dir);
    return CLI_OK;   /* anything else: the reader says what is wrong */
}
