/* SPDX-License-Identifier: ISC */
/* src/cli/main.c — `rxlock` entry point: global flags, help, and dispatch
 * to one file per subcommand (src/cli/cmd_*.c); the error messages (with
 * --json, the error event before a failing exit: docs/JSON.md) and the
 * closest option name for a typo. */
#include "cli/cli.h"
#include "rxlock/rx.h"
#include "util/util.h"
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct command {
    const char *name;
    const char *summary;
    int (*run)(int, char **);
    const char *usage;
};

#define CLI_ENTRY(n, s) {#n, s, cmd_##n, cmd_##n##_usage},
static struct command commands[] = { CLI_COMMANDS(CLI_ENTRY) };
#undef CLI_ENTRY
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The last error message (for the --json error event). */
static char last_error[1024];

int cli_fail(int rc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rxlock: %s\n", last_error);
    return rc;
}

int cli_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rxlock: %s\n", last_error);
    return CLI_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rxlock %s: %s (see 'rxlock help %s')\n", cmd, last_error, cmd);
    return CLI_USAGE;
}

static const char *usage_of(const char *cmd);

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
 * long ones) away, else out = "". */
static void closest_option(const char *cmd, const char *given, char *out, size_t cap) {
    out[0] = 0;
    const char *u = usage_of(cmd);
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

/* Public names use dashes ("keygen-signer"); C identifiers use '_'. */
static int name_eq(const char *cname, const char *arg) {
    for (; *cname && *arg; cname++, arg++) {
        char c = *cname == '_' ? '-' : *cname;
        if (c != *arg) return 0;
    }
    return *cname == 0 && *arg == 0;
}

static void print_name(FILE *fp, const char *cname) {
    for (; *cname; cname++) fputc(*cname == '_' ? '-' : *cname, fp);
}

static const struct command *find(const char *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (name_eq(commands[i].name, name)) return &commands[i];
    return NULL;
}

static const char *usage_of(const char *cmd) {
    const struct command *c = find(cmd);
    return c ? c->usage : NULL;
}

/* --json given (before any "--") to a command whose usage offers it? */
static int wants_json(const struct command *c, int argc, char **argv) {
    if (!strstr(c->usage, "--json")) return 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--json")) return 1;
    }
    return 0;
}

/* docs/JSON.md: {"event":"error","command":...,"exit":N,"message":...}. */
static void json_error_event(const char *cmd, int rc) {
    json_t *o = json_pack("{s:s, s:s, s:i, s:s}", "event", "error", "command", cmd, "exit", rc, "message",
                          last_error[0] ? last_error : rc == CLI_VERIFY ? "verification failed" : "failed");
    char *t = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (t) { printf("%s\n", t); fflush(stdout); }
    free(t);
    json_decref(o);
}

static void usage(FILE *fp) {
    fprintf(fp,
        "rxlock %s — time-lock encryption over sequential RandomX v2 / v1 / SHA3-256 chains\n\n"
        "usage: rxlock [--version] [--help] COMMAND [ARGS]\n\ncommands:\n", RXLOCK_VERSION);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        fputs("  ", fp);
        print_name(fp, commands[i].name);
        fprintf(fp, "%*s%s\n", (int)(16 - strlen(commands[i].name)), "", commands[i].summary);
    }
    fprintf(fp, "\n'rxlock help COMMAND' shows a command's options.\n"
                "exit codes: 0 ok, 1 failure, 2 usage error, 3 verification failed,\n"
                "            128+N killed by signal N (130: Ctrl-C)\n");
}

int main(int argc, char **argv) {
    if (argc < 2) { usage(stderr); return CLI_USAGE; }
    const char *a = argv[1];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { usage(stdout); return CLI_OK; }
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) { printf("rxlock %s\n", RXLOCK_VERSION); return CLI_OK; }
    if (!strcmp(a, "help")) {
        if (argc < 3) { usage(stdout); return CLI_OK; }
        const struct command *c = find(argv[2]);
        if (!c) { fprintf(stderr, "rxlock: unknown command '%s' (see 'rxlock --help')\n", argv[2]); return CLI_USAGE; }
        fputs(c->usage, stdout);
        return CLI_OK;
    }
    if (a[0] == '-') { fprintf(stderr, "rxlock: unknown option '%s' (see 'rxlock --help')\n", a); return CLI_USAGE; }
    const struct command *c = find(a);
    if (!c) { fprintf(stderr, "rxlock: unknown command '%s' (see 'rxlock --help')\n", a); return CLI_USAGE; }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { fputs(c->usage, stdout); return CLI_OK; }
    }
    /* Every command may hold secrets (keys, identities, plaintext, chain
     * values): no core dumps, no ptrace by other processes; fail closed. */
    if (sodium_init() < 0) { fprintf(stderr, "rxlock: libsodium failed to initialise\n"); return CLI_FAIL; }
    /* the JITs' /proc/self/mem writer: opened while the process may still
     * open it (PR_SET_DUMPABLE 0 makes it root's); refused -> they flip */
    (void)rx_engine_writer_prepare();
    if (util_no_core_dumps() != 0) {
        fprintf(stderr, "rxlock: cannot disable core dumps (RLIMIT_CORE / PR_SET_DUMPABLE): refusing to run\n");
        return CLI_FAIL;
    }
    int rc = c->run(argc - 1, argv + 1);
    if (rc != CLI_OK && wants_json(c, argc, argv)) json_error_event(a, rc);
    return rc;
}
