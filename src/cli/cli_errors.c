/* SPDX-License-Identifier: ISC */
/* src/cli/cli_errors.c — the CLI's error messages: the one prefix, usage
 * errors with the closest option name, the --json error event's message,
 * and the messages for engine, age and output failures (declared in
 * cli_util.h). */
#include "cli/cli_util.h"
#include <stdarg.h>
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

int cli_age_payload_error(int e) {
    return e == TL_AGE_EPAYLOAD || e == TL_AGE_ETRUNC || e == TL_AGE_ETRAILING || e == TL_AGE_EIO;
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

/* The last error message (for the --json error event). */
static char last_error[1024];
static int held;   /* cli_error_hold: kept, not printed */

void cli_error_hold(int on) { held = on; }
const char *cli_last_error(void) { return last_error; }

/* "rxlock: MSG" on stderr (unless held), MSG kept for the --json error event; rc. */
static int vreport(int rc, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
static int vreport(int rc, const char *fmt, va_list ap) {
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    if (!held) fprintf(stderr, "rxlock: %s\n", last_error);
    return rc;
}

int cli_fail(int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rc = vreport(rc, fmt, ap);
    va_end(ap);
    return rc;
}

int cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int rc = vreport(CLI_FAIL, fmt, ap);
    va_end(ap);
    return rc;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rxlock %s: %s (see 'rxlock help %s')\n", cmd, last_error, cmd);
    return CLI_USAGE;
}

/* Levenshtein distance of a and b (both short: option names). */
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb) {
    size_t row[64];
    if (na >= 64 || nb >= 64) return (size_t)-1;
    for (size_t j = 0; j <= nb; j++) row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            diag = up;
            row[j] = best;
        }
    }
    return row[nb];
}

/* The option of cmd's usage text closest to `given` ("--name", without
 * "=VALUE"): written to out when at most 2 edits (a third of the name for
 * long ones) away, else out = "".  A subcommand ("beacon status") looks in
 * its command's usage, which lists every subcommand's options. */
static void closest_option(const char *cmd, const char *given, char *out, size_t cap) {
    out[0] = 0;
    const char *u = cli_command_usage(cmd);
    char top[32];
    size_t nt = strcspn(cmd, " ");
    if (!u && cmd[nt] && nt < sizeof top) {
        memcpy(top, cmd, nt);
        top[nt] = 0;
        u = cli_command_usage(top);
    }
    if (!u || strncmp(given, "--", 2) != 0) return;
    size_t ng = strcspn(given + 2, "="), best = (size_t)-1;
    size_t limit = ng / 3 > 2 ? ng / 3 : 2;
    for (const char *p = strstr(u, "--"); p; p = strstr(p + 2, "--")) {
        if (p > u && p[-1] != ' ' && p[-1] != '[' && p[-1] != '(' && p[-1] != '|' && p[-1] != '\n') continue;
        size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
        if (n < 2) continue;
        size_t d = edit_distance(given + 2, ng, p + 2, n);
        if (d > 0 && d <= limit && d < best && n + 3 <= cap) {
            best = d;
            memcpy(out, p, n + 2);
            out[n + 2] = 0;
        }
    }
}

int cli_bad_option(const char *cmd, int opt, const char *arg) {
    if (opt) return cli_usage_error(cmd, "unknown or incomplete option '-%c'", opt);
    char near[64];
    closest_option(cmd, arg ? arg : "", near, sizeof near);
    if (near[0]) return cli_usage_error(cmd, "unknown option '%s': did you mean '%s'?", arg, near);
    return cli_usage_error(cmd, "unknown or incomplete option '%s'", arg ? arg : "?");
}

/* docs/JSON.md: {"event":"error","command":...,"exit":N,"message":...}. */
void cli_json_error_event(const char *cmd, int rc) {
    json_t *o = json_pack("{s:s, s:s, s:i, s:s}", "event", "error", "command", cmd, "exit", rc, "message",
                          last_error[0] ? last_error : rc == CLI_VERIFY ? "verification failed" : "failed");
    char *t = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (t) { printf("%s\n", t); fflush(stdout); }
    free(t);
    json_decref(o);
}
