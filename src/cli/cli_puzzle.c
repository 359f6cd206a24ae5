/* SPDX-License-Identifier: ISC */
/* src/cli/cli_puzzle.c — puzzle loading for the CLI (see cli_puzzle.h). */
#include "cli/cli_puzzle.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/container.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

cli_file_kind cli_file_kind_fd(int fd) {
    char buf[64];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return CLI_KIND_OTHER;
    buf[n] = 0;
    size_t ml = strlen(TL_CONTAINER_MAGIC);
    if ((size_t)n > ml && !memcmp(buf, TL_CONTAINER_MAGIC, ml) && buf[ml] == '\n') return CLI_KIND_CONTAINER;
    if (!strncmp(buf, "age-encryption.org/", 19) || !strncmp(buf, "-----BEGIN AGE ENCRYPTED FILE", 29))
        return CLI_KIND_AGE;
    const char *p = buf;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    if (*p == '{' && strstr(buf, "\"rxlock_puzzle\"")) return CLI_KIND_PUZZLE;
    return CLI_KIND_OTHER;
}

const char *cli_kind_hint(cli_file_kind k) {
    switch (k) {
    case CLI_KIND_PUZZLE: return "a puzzle (JSON): solve it with 'rxlock solve PUZZLE -o IDENTITY'";
    case CLI_KIND_CONTAINER: return "a time-locked file (.rxlock): open it with 'rxlock unlock FILE.rxlock'";
    case CLI_KIND_AGE: return "an age file: open it with 'rxlock decrypt -i IDENTITY FILE'";
    default: return NULL;
    }
}

int cli_solve_error(const char *puzzle_path, const char *journal, int rc, const tl_solve_stats *st,
                    tl_work_type work) {
    if (!st->journal_failed || !journal) return cli_work_error(puzzle_path, rc, work);
    int e = st->journal_errno;
    if (rc == TL_EJOURNAL && e == EBUSY)
        return cli_error("%s: in use by another rxlock solving this puzzle now: wait for it or stop it "
                         "(do not remove the journal)", journal);
    if (rc == TL_EJOURNAL)
        return cli_error("%s: the journal belongs to another puzzle or is damaged: pass --journal OTHER to start "
                         "afresh (or move it away once you are sure it is not needed)", journal);
    if (rc == TL_EVERSION) return cli_error("%s: a journal of an unsupported version (another rxlock wrote it)", journal);
    if (rc == TL_EFORMAT) return cli_error("%s: not an rxlock journal", journal);
    if (rc == TL_EIO && e) return cli_error("%s: journal: %s", journal, strerror(e));
    return cli_error("%s: journal: %s", journal, tl_strerror(rc));
}

static int load_container(const char *path, int fd, tl_puzzle **pz) {
    char *json = NULL, err[256] = "";
    size_t len = 0;
    off_t off;
    if (tl_container_parse(fd, &json, &len, &off, err, sizeof err) != 0) return cli_error("%s: %s", path, err);
    int rc = tl_puzzle_parse(json, len, pz, err, sizeof err);
    free(json);
    if (rc) return cli_error("%s: bad puzzle: %s", path, err[0] ? err : tl_strerror(rc));
    return CLI_OK;
}

int cli_puzzle_load(const char *path, int allow_container, tl_puzzle **pz, int *was_container) {
    char err[300];
    *pz = NULL;
    if (was_container) *was_container = 0;
    if (strcmp(path, "-") != 0) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return cli_error("%s: %s", path, strerror(errno));
        cli_file_kind k = cli_file_kind_fd(fd);
        int rc = -1;
        if (k == CLI_KIND_CONTAINER && allow_container) {
            rc = load_container(path, fd, pz);
            if (rc == CLI_OK && was_container) *was_container = 1;
        } else if (k == CLI_KIND_CONTAINER || k == CLI_KIND_AGE) {
            rc = cli_error("%s is %s", path, cli_kind_hint(k));
        }
        close(fd);
        if (rc >= 0) return rc;
    }
    if (tl_puzzle_load(path, pz, err, sizeof err)) return cli_error("%s", err);
    return CLI_OK;
}
