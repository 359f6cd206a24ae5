/* SPDX-License-Identifier: ISC */
/* src/cli/cli_io.c — the CLI's files and streams: outputs written
 * atomically without clobbering, the identity file, a command's
 * input/output pair, one JSON line, a puzzle's checks and recipient
 * (declared in cli_util.h). */
#include "cli/cli_util.h"
#include "cli/cli.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cli_print_json(json_t *o) {
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(o);
    if (!s) return cli_error("out of memory");
    int ok = printf("%s\n", s) >= 0 && fflush(stdout) == 0;
    free(s);
    return ok ? CLI_OK : cli_error("stdout: %s", strerror(errno));
}

int cli_write_identity(const char *path, const uint8_t x[32], const tl_puzzle *pz, const char *how, int force) {
    char comment[128], idhex[33];
    util_hex_encode(idhex, pz->id, 16);
    snprintf(comment, sizeof comment, "rxlock %sepoch identity for puzzle %s%s", pz->pq_epoch ? "post-quantum " : "",
             idhex, how);
    if (!strcmp(path, "-")) {   /* standard output */
        char *line = sodium_malloc(TL_AGE_IDENTITY_MAX);
        char rcp[TL_AGE_PQ_RECIPIENT_MAX];
        int ok = line && (pz->pq_epoch ? age_pq_identity_encode(x, line) : age_identity_encode(x, line)) == 0 &&
                 cli_epoch_recipient(pz, rcp) == CLI_OK;
        ok = ok && printf("# %s\n# public key: %s\n%s\n", comment, rcp, line) > 0 && fflush(stdout) == 0;
        if (line) sodium_free(line);
        return ok ? CLI_OK : cli_error("stdout: cannot write the identity");
    }
    if ((pz->pq_epoch ? age_pq_identity_file_write(path, x, comment, force)
                      : age_identity_file_write(path, x, comment, force)) != 0)
        return cli_error("%s: cannot write the identity: %s", path,
                         errno == EEXIST ? "already exists (use --force to replace it)" : strerror(errno));
    return CLI_OK;
}

int cli_write_text(const char *path, const void *text, size_t len, int force, mode_t mode) {
    if (!path || !strcmp(path, "-")) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) return cli_error("stdout: %s", strerror(errno));
        return CLI_OK;
    }
    return util_write_file_atomic(path, text, len, force, mode) == 0 ? CLI_OK : cli_output_error(path);
}

int cli_epoch_recipient(const tl_puzzle *pz, char out[TL_AGE_PQ_RECIPIENT_MAX]) {
    int rc = pz->pq_epoch ? age_pq_recipient_encode(pz->pq_recipient, out)
                          : age_recipient_encode(pz->epoch_pk, out);
    return rc ? cli_error("cannot encode the epoch recipient") : CLI_OK;
}

int cli_identity_recipient(const uint8_t key[32], int pq, char out[TL_AGE_PQ_RECIPIENT_MAX]) {
    if (pq) {
        uint8_t *r = malloc(TL_AGE_PQ_RECIPIENT_BYTES);
        int rc = r && age_pq_public_key(key, r) == 0 && age_pq_recipient_encode(r, out) == 0 ? 0 : -1;
        free(r);
        return rc;
    }
    uint8_t pk[32];
    return age_public_key(key, pk) == 0 && age_recipient_encode(pk, out) == 0 ? 0 : -1;
}

int cli_identity_file_is_epoch(const char *path, const tl_puzzle *pz) {
    uint8_t *key = sodium_malloc(32);
    char *have = malloc(TL_AGE_PQ_RECIPIENT_MAX), *want = malloc(TL_AGE_PQ_RECIPIENT_MAX);
    int pq = 0, same = key && have && want && age_identity_file_read_any(path, key, &pq) == 0 &&
                       cli_identity_recipient(key, pq, have) == 0 && cli_epoch_recipient(pz, want) == CLI_OK &&
                       strcmp(have, want) == 0;
    if (key) sodium_free(key);
    free(have);
    free(want);
    return same;
}

int cli_check_puzzle(const char *path, const tl_puzzle *pz, const uint8_t *pin) {
    int rc = tl_puzzle_verify(pz, pin);
    if (rc == TL_OK) return CLI_OK;
    if (rc == TL_EPIN) return cli_fail(CLI_VERIFY, "%s: not signed by the pinned key", path);
    if (rc == TL_ESIG) return cli_fail(CLI_VERIFY, "%s: bad signature", path);
    return cli_error("%s: %s", path, rxlock_strerror(rc));
}

int cli_io_open(cli_io *io, const char *in_path, const char *out_path, int force, mode_t mode) {
    memset(io, 0, sizeof *io);
    io->out_fd = 1;
    io->out_path = out_path && strcmp(out_path, "-") != 0 ? out_path : NULL;
    if (strcmp(in_path, "-") != 0) {
        struct stat st;
        if ((io->in_fd = open(in_path, O_RDONLY | O_CLOEXEC)) < 0) return cli_error("%s: %s", in_path, strerror(errno));
        if (fstat(io->in_fd, &st) != 0 || S_ISDIR(st.st_mode)) {
            close(io->in_fd);
            return cli_error("%s: is a directory", in_path);
        }
    }
    if (!io->out_path) return CLI_OK;
    int rc = cli_io_open_out(io, out_path, force, mode);
    if (rc && io->in_fd > 0) close(io->in_fd);
    return rc;
}

int cli_io_open_out(cli_io *io, const char *out_path, int force, mode_t mode) {
    io->out_fd = 1;
    io->out_path = out_path && strcmp(out_path, "-") != 0 ? out_path : NULL;
    if (!io->out_path) return CLI_OK;
    if (util_atomic_open(&io->out, io->out_path, force, mode) != 0) return cli_output_error(io->out_path);
    io->out_fd = io->out.fd;
    return CLI_OK;
}

int cli_io_finish(cli_io *io, int ok) {
    if (io->in_fd > 0) close(io->in_fd);
    io->in_fd = -1;
    if (!io->out_path) return CLI_OK;
    if (!ok) { util_atomic_abort(&io->out); return CLI_OK; }
    return util_atomic_commit(&io->out) == 0 ? CLI_OK : cli_output_error(io->out_path);
}
