/* SPDX-License-Identifier: ISC */
/* src/cli/cli_puzzle.c — puzzle loading for the CLI (see cli_puzzle.h). */
#include "cli/cli_puzzle.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/age.h"
#include "rxlock/container.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kind of the first n bytes of buf (buf[n] == 0). */
static cli_file_kind kind_of(const char *buf, size_t n) {
    size_t ml = strlen(TL_CONTAINER_MAGIC);
    if (n > ml && !memcmp(buf, TL_CONTAINER_MAGIC, ml) && buf[ml] == '\n') return CLI_KIND_CONTAINER;
    if (!strncmp(buf, "age-encryption.org/", 19) || !strncmp(buf, "-----BEGIN AGE ENCRYPTED FILE", 29))
        return CLI_KIND_AGE;
    const char *p = buf;
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    if (*p == '{' && strstr(buf, "\"rxlock_puzzle\"")) return CLI_KIND_PUZZLE;
    return CLI_KIND_OTHER;
}

cli_file_kind cli_file_kind_fd(int fd) {
    char buf[64];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return CLI_KIND_OTHER;
    buf[n] = 0;
    return kind_of(buf, (size_t)n);
}

const char *cli_kind_name(cli_file_kind k) {
    switch (k) {
    case CLI_KIND_PUZZLE: return "a puzzle";
    case CLI_KIND_CONTAINER: return "a time-locked file (.rxlock)";
    case CLI_KIND_AGE: return "an age file";
    default: return NULL;
    }
}

void cli_file_looks(int fd, char *buf, size_t cap) {
    unsigned char b[512];
    struct stat st;
    ssize_t n = pread(fd, b, sizeof b, 0);
    long long size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : -1;
    if (n <= 0) { snprintf(buf, cap, n == 0 ? "empty" : "unreadable"); return; }
    size_t i = 0;
    while (i < (size_t)n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t')) i++;
    int text = 1;
    for (size_t k = 0; k < (size_t)n; k++)   /* UTF-8 bytes count as text */
        if (b[k] == 0 || (b[k] < 0x20 && b[k] != '\n' && b[k] != '\r' && b[k] != '\t')) text = 0;
    const char *what = i < (size_t)n && (b[i] == '{' || b[i] == '[') ? "JSON of another kind" : text ? "text" : "binary data";
    if (size >= 0) snprintf(buf, cap, "%s (%lld bytes)", what, size);
    else snprintf(buf, cap, "%s", what);
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
    if (rc == TL_EAUTH)
        return cli_fail(CLI_VERIFY, "%s: group %u: wrap failed to authenticate: the puzzle was tampered with or "
                        "corrupted", puzzle_path, st->failed_group);
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
    return cli_error("%s: journal: %s", journal, rxlock_strerror(rc));
}

static int load_container(const char *path, int fd, tl_puzzle **pz) {
    char *json = NULL, err[256] = "";
    size_t len = 0;
    off_t off;
    if (tl_container_parse(fd, &json, &len, &off, err, sizeof err) != 0) return cli_error("%s: %s", path, err);
    int rc = tl_puzzle_parse(json, len, pz, err, sizeof err);
    free(json);
    if (rc) return cli_error("%s: bad puzzle: %s", path, err[0] ? err : rxlock_strerror(rc));
    return CLI_OK;
}

/* Standard input ("-"): at most what a container's notice and puzzle
 * take (a container's payload is not needed here), its kind by content. */
static int load_stdin(int allow_container, tl_puzzle **pz, int *was_container) {
    const size_t max = TL_CONTAINER_NOTICE_MAX + TL_MAX_PUZZLE_BYTES + 64;
    char *buf = malloc(max + 1), err[300];
    size_t n = 0;
    int rc = CLI_FAIL;
    if (!buf) return cli_error("out of memory");
    while (n < max) {
        ssize_t r = read(0, buf + n, max - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) { rc = cli_error("stdin: %s", strerror(errno)); goto out; }
        if (r == 0) break;
        n += (size_t)r;
    }
    buf[n] = 0;
    cli_file_kind k = kind_of(buf, n);
    if (k == CLI_KIND_CONTAINER && allow_container) {
        /* a memfd, so that the container reads like a file */
        int fd = memfd_create("rxlock-stdin", MFD_CLOEXEC);
        if (fd < 0 || util_write_all(fd, buf, n) != 0 || lseek(fd, 0, SEEK_SET) != 0) rc = cli_error("stdin: %s", strerror(errno));
        else rc = load_container("-", fd, pz);
        if (fd >= 0) close(fd);
        if (rc == CLI_OK && was_container) *was_container = 1;
    } else if (k == CLI_KIND_CONTAINER || k == CLI_KIND_AGE) {
        rc = cli_error("- (standard input) is %s", cli_kind_hint(k));
    } else if (tl_puzzle_parse(buf, n, pz, err, sizeof err) != 0) {
        rc = cli_error("-: %s", err);
    } else {
        rc = CLI_OK;
    }
out:
    free(buf);
    return rc;
}

int cli_puzzle_load(const char *path, int allow_container, tl_puzzle **pz, int *was_container) {
    char err[300];
    *pz = NULL;
    if (was_container) *was_container = 0;
    if (strcmp(path, "-") == 0) return load_stdin(allow_container, pz, was_container);
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
    char looks[64] = "";
    if (rc < 0 && k == CLI_KIND_OTHER) cli_file_looks(fd, looks, sizeof looks);
    close(fd);
    if (rc >= 0) return rc;
    if (k == CLI_KIND_OTHER)
        return cli_error("%s: %s, neither a puzzle (a JSON object from rxlock lock or assemble) nor a .rxlock file",
                         path, looks);
    if (tl_puzzle_load(path, pz, err, sizeof err)) return cli_error("%s", err);
    return CLI_OK;
}

int cli_container_payload_check(const char *path) {
    char *json = NULL, err[256] = "";
    size_t len = 0;
    off_t off = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cli_error("%s: %s", path, strerror(errno));
    int rc = tl_container_parse(fd, &json, &len, &off, err, sizeof err);
    free(json);
    if (rc == 0 && lseek(fd, off, SEEK_SET) != off) rc = TL_AGE_EIO;
    else if (rc == 0) rc = age_check_fd(fd);
    else rc = TL_AGE_EHEADER;
    int e = errno;
    close(fd);
    if (rc == 0) return CLI_OK;
    return cli_error("%s: the encrypted payload is unusable (%s)", path,
                     rc == TL_AGE_EIO ? strerror(e) : err[0] ? err : age_strerror(rc));
}
