/* SPDX-License-Identifier: ISC */
/* src/cli/cli_util.c — the CLI's shared helpers (see cli_util.h). */
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

static volatile int cli_stop;
static volatile sig_atomic_t cli_stop_sig;
static void on_stop_signal(int sig) { cli_stop_sig = sig; cli_stop = 1; }

int cli_interrupted_rc(void) { return cli_stop_sig ? 128 + cli_stop_sig : CLI_FAIL; }

const volatile int *cli_catch_signals(void) {
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) (void)sigaction(sigs[i], &sa, NULL);
    return &cli_stop;
}

int cli_progress_when(int quiet, int json, int forced) {
    if (quiet || json) return PBAR_NEVER;
    return forced ? PBAR_FORCE : PBAR_AUTO;
}

void cli_progress_init(cli_progress *cp, const char *label, uint64_t total, int when, int json) {
    memset(cp, 0, sizeof *cp);
    cp->json = json;
    snprintf(cp->base_label, sizeof cp->base_label, "%s", label);
    cp->when = json ? PBAR_NEVER : when;
    pbar_init(&cp->bar, label, total, 0, cp->when);
}

/* "dataset: 1040/2080 (50.0%)  86.7 MiB/s  elapsed 12.0s  ETA
 * 2m12s" while the dataset builds; its ETA includes the hashing after it
 * at the puzzle's assumed rate.  Ended (drawn final) at the first call
 * after the setup. */
static void setup_progress(cli_progress *cp, const tl_progress *p) {
    const uint64_t mib = 2080;
    if (cp->setup_state == 0) {
        pbar_init(&cp->setup_bar, "dataset", mib, 0, cp->when);
        snprintf(cp->setup_bar.unit, sizeof cp->setup_bar.unit, "MiB/s");
        cp->setup_state = 1;
    }
    double own = p->setup_fraction > 0 ? p->setup_seconds / p->setup_fraction - p->setup_seconds : -1;
    cp->setup_bar.eta_extra = p->eta_seconds >= 0 && own >= 0 && p->eta_seconds > own ? p->eta_seconds - own : 0;
    pbar_update(&cp->setup_bar, (uint64_t)(p->setup_fraction * (double)mib + 0.5));
}

void cli_engine_text(const tl_engine_info *e, char *buf, size_t cap) {
    if (!e->engine) snprintf(buf, cap, "%s", tl_work_name(e->work) ? tl_work_name(e->work) : "?");
    else snprintf(buf, cap, "%s, %s AES, %s mode", e->engine, e->aes, e->mode);
}

int cli_print_json(json_t *o) {
    char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
    json_decref(o);
    if (!s) return cli_error("out of memory");
    int ok = printf("%s\n", s) >= 0 && fflush(stdout) == 0;
    free(s);
    return ok ? CLI_OK : cli_error("stdout: %s", strerror(errno));
}

int cli_age_payload_error(int e) {
    return e == TL_AGE_EPAYLOAD || e == TL_AGE_ETRUNC || e == TL_AGE_ETRAILING || e == TL_AGE_EIO;
}

/* The first call: the engine is known, no work done yet. */
static void progress_start(cli_progress *cp, const tl_progress *p) {
    cp->started = 1;
    if (p->engine) cp->engine = *p->engine;
    const tl_engine_info *e = &cp->engine;
    if (e->fallback) cli_warn_fallback(e->fallback);
    if (cp->json) {
        /* RandomX-only keys are left out for SHA3 (s*: omitted when NULL) */
        (void)cli_print_json(json_pack("{s:s, s:s, s:s*, s:s*, s:s*, s:s*}", "event", "start",
                                       "work", tl_work_name(e->work), "engine", e->engine, "aes", e->aes,
                                       "mode", e->mode, "fallback", e->fallback));
        return;
    }
    if (p->hashes_done && p->group && p->hashes_total && cp->when != PBAR_NEVER)
        fprintf(stderr, "rxlock: resuming from the journal at group %u of %u, step %llu (%.1f%% done)\n", p->group,
                p->groups_total, (unsigned long long)p->step, 100.0 * (double)p->hashes_done / (double)p->hashes_total);
    /* the bar's rate counts from here: setup (cache, dataset) excluded */
    if (e->engine) snprintf(cp->bar.label, sizeof cp->bar.label, "%s (%s)", cp->base_label, e->engine);
    cp->bar.t_start = cp->bar.t_last = util_now();
    cp->bar.base = cp->bar.done = p->hashes_done;
}

int cli_progress_cb(const tl_progress *p, void *ctx) {
    cli_progress *cp = ctx;
    if (p->setup) {
        if (!cp->json) setup_progress(cp, p);
        return cp->stop && *cp->stop;
    }
    if (cp->setup_state == 1) {
        pbar_done(&cp->setup_bar);
        cp->setup_state = 2;
    }
    if (!cp->started && p->engine) {
        progress_start(cp, p);
        if (cp->json) return cp->stop && *cp->stop;   /* the start line says it all */
    }
    if (cp->json) {
        printf("{\"event\":\"progress\",\"hashes_done\":%llu,\"hashes_total\":%llu,\"rate\":%.1f,"
               "\"eta_seconds\":%.1f,\"groups_done\":%u,\"groups_total\":%u,\"group\":%u,\"step\":%llu}\n",
               (unsigned long long)p->hashes_done, (unsigned long long)p->hashes_total, p->rate,
               p->eta_seconds, p->groups_done, p->groups_total, p->group, (unsigned long long)p->step);
        fflush(stdout);
    } else {
        if (p->hashes_total && p->hashes_total != cp->bar.total) pbar_set_total(&cp->bar, p->hashes_total);
        pbar_update(&cp->bar, p->hashes_done);
    }
    return cp->stop && *cp->stop;
}

void cli_progress_end(cli_progress *cp, int ok) {
    if (cp->setup_state == 1) pbar_clear(&cp->setup_bar);
    if (ok && cp->bar.total) cp->bar.done = cp->bar.total;   /* the last frame says 100% */
    if (ok) pbar_done(&cp->bar);
    else pbar_clear(&cp->bar);
}

int cli_write_identity(const char *path, const uint8_t x[32], const tl_puzzle *pz, const char *how, int force) {
    char comment[128], idhex[33];
    util_hex_encode(idhex, pz->id, 16);
    snprintf(comment, sizeof comment, "rxlock %sepoch identity for puzzle %s%s", pz->pq_epoch ? "post-quantum " : "",
             idhex, how);
    if (!strcmp(path, "-")) {   /* standard output */
        char *line = sodium_malloc(TL_AGE_IDENTITY_MAX);
        char rcp[TL_AGE_PQ_RECIPIENT_MAX];
        int ok = line && (pz->pq_epoch ? tl_age_pq_identity_encode(x, line) : tl_age_identity_encode(x, line)) == 0 &&
                 cli_epoch_recipient(pz, rcp) == CLI_OK;
        ok = ok && printf("# %s\n# public key: %s\n%s\n", comment, rcp, line) > 0 && fflush(stdout) == 0;
        if (line) sodium_free(line);
        return ok ? CLI_OK : cli_error("stdout: cannot write the identity");
    }
    if ((pz->pq_epoch ? tl_age_pq_identity_file_write(path, x, comment, force)
                      : tl_age_identity_file_write(path, x, comment, force)) != 0)
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
    int rc = pz->pq_epoch ? tl_age_pq_recipient_encode(pz->pq_recipient, out)
                          : tl_age_recipient_encode(pz->epoch_pk, out);
    return rc ? cli_error("cannot encode the epoch recipient") : CLI_OK;
}

int cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    errno = 0;
    if (!*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_parse_double(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

/* "90", "90s", "1.5h", "1h30m", "2d12h": NULL and *out, or why not. */
static const char *duration(const char *s, double *out) {
    double total = 0;
    int parts = 0;
    if (!*s) return "empty";
    while (*s) {
        char *end;
        if (!((*s >= '0' && *s <= '9') || *s == '.')) return "want a number, then a unit (s, m, h, d, w, y)";
        errno = 0;
        double v = strtod(s, &end), mul;
        if (errno || end == s || !isfinite(v) || v < 0) return "not a number";
        switch (*end) {
        case 0:
            if (parts) return "a number after a unit needs its own unit";
            mul = 1; break;
        case 's': mul = 1; break;
        case 'm': mul = 60; break;
        case 'h': mul = 3600; break;
        case 'd': mul = 86400; break;
        case 'w': mul = 7 * 86400.0; break;
        case 'y': mul = 365.25 * 86400; break;
        default: return "unknown unit (use s, m, h, d, w or y)";
        }
        total += v * mul;
        parts++;
        s = *end ? end + 1 : end;
    }
    if (!(total > 0) || !isfinite(total)) return "must be more than 0";
    *out = total;
    return NULL;
}

int cli_parse_duration(const char *s, double *out) { return duration(s, out) ? -1 : 0; }

int cli_parse_seconds_opt(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out) {
    double v;
    const char *why = duration(s, &v);
    if (why) return cli_usage_error(cmd, "%s '%s': %s", opt, s, why);
    if (v < lo || v > hi) return cli_usage_error(cmd, "%s '%s': want %g..%g seconds", opt, s, lo, hi);
    *out = v;
    return CLI_OK;
}

const char *cli_duration_error(const char *s) {
    double v;
    const char *why = duration(s, &v);
    return why ? why : "invalid";
}

int cli_parse_mode(const char *s, tl_mode *out) {
    if (!strcmp(s, "light")) *out = TL_MODE_LIGHT;
    else if (!strcmp(s, "full")) *out = TL_MODE_FULL;
    else return -1;
    return 0;
}

void cli_mode_warn(const tl_mode_choice *mc) {
    if (!mc->low_memory) return;
    double gib = 1024.0 * 1024.0 * 1024.0;
    if (mc->avail_bytes == UINT64_MAX || mc->avail_bytes == 0)
        fprintf(stderr, "rxlock: warning: full mode needs %.1f GiB, not available here (%s): using light mode, "
                        "%s slower (recorded); --mode full forces it\n",
                (double)mc->need_bytes / gib, mc->why, TL_FULL_LIGHT_RANGE);
    else
        fprintf(stderr, "rxlock: warning: full mode needs %.1f GiB, %.1f GiB available here (%s): using light mode, "
                        "%s slower (recorded); --mode full forces it\n",
                (double)mc->need_bytes / gib, (double)mc->avail_bytes / gib, mc->why, TL_FULL_LIGHT_RANGE);
}

tl_mode cli_mode_pick(tl_work_type work, int requested) {
    tl_mode_choice mc;
    if (tl_mode_resolve(work, requested, &mc) != 0) return TL_MODE_LIGHT;
    cli_mode_warn(&mc);
    return mc.mode;
}

int cli_parse_pin(const char *hex, uint8_t pin[32]) {
    size_t n = 0;
    return strlen(hex) == 64 && util_hex_decode(hex, pin, 32, &n) == 0 && n == 32 ? 0 : -1;
}

int cli_check_puzzle(const char *path, const tl_puzzle *pz, const uint8_t *pin) {
    int rc = tl_puzzle_verify(pz, pin);
    if (rc == TL_OK) return CLI_OK;
    if (rc == TL_EPIN) return cli_fail(CLI_VERIFY, "%s: not signed by the pinned key", path);
    if (rc == TL_ESIG) return cli_fail(CLI_VERIFY, "%s: bad signature", path);
    return cli_error("%s: %s", path, rxlock_strerror(rc));
}

void cli_warn_fallback(const char *why) {
    fprintf(stderr, "rxlock: warning: the RandomX JIT is unavailable (%s); running the interpreter, "
                    "several times slower\n", why);
}

int cli_jit_error(const char *what, const char *why) {
    return cli_error("%s: the RandomX JIT cannot start: %s (RXLOCK_ENGINE=jit requires it; "
                     "unset RXLOCK_ENGINE to allow the interpreter)", what, why ? why : "unknown reason");
}

int cli_work_error(const char *what, int rc, tl_work_type work) {
    /* whatever code carries it: a required engine that cannot start is why */
    const char *why = rc != TL_EINTR ? tl_engine_check(work) : NULL;
    if (why) return cli_jit_error(what, why);
    return cli_error("%s: %s", what, rxlock_strerror(rc));
}

int cli_output_error(const char *path) {
    int e = errno;
    if (e == EEXIST) return cli_error("%s: already exists (use --force to replace it)", path);
    return cli_error("%s: %s", path, strerror(e));
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
