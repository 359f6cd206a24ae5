/* SPDX-License-Identifier: ISC */
/* src/cli/main.c — `rxlock` entry point: global flags, help, and dispatch
 * through the command table (commands.c) to the command rooms
 * (src/cli/ROOM/, docs/DESIGN.md §4); the error messages are
 * cli_errors.c's. */
#include "cli/cli.h"
#include "rxlock/rx.h"
#include "util/util.h"
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --json given (before any "--") to a command whose usage offers it? */
static int wants_json(const cli_command *c, int argc, char **argv) {
    if (!strstr(c->usage, "--json")) return 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--json")) return 1;
    }
    return 0;
}

/* --jit-install WHICH / --jit-install=WHICH before the command: the one
 * switch is the environment variable (worker processes inherit it).  The
 * number of arguments it took (0 none), or -1 after a usage message. */
static int jit_install_opt(int argc, char **argv) {
    const char *a = argv[1], *v;
    int used;
    if (!strncmp(a, "--jit-install=", 14)) { v = a + 14; used = 1; }
    else if (!strcmp(a, "--jit-install")) {
        if (argc < 3) { fprintf(stderr, "rxlock: --jit-install needs mprotect or proc-mem\n"); return -1; }
        v = argv[2]; used = 2;
    } else {
        return 0;
    }
    if (strcmp(v, "mprotect") && strcmp(v, "proc-mem")) {
        fprintf(stderr, "rxlock: --jit-install '%s': want mprotect or proc-mem (see 'rxlock --help')\n", v);
        return -1;
    }
    if (setenv("RXLOCK_JIT_INSTALL", v, 1) != 0) { perror("rxlock: setenv"); return -1; }
    return used;
}

int main(int argc, char **argv) {
    if (argc < 2) { cli_usage(stderr); return CLI_USAGE; }
    int g = jit_install_opt(argc, argv);
    if (g < 0) return CLI_USAGE;
    if (g > 0) {   /* the command's argv[0] is its name, as without the option */
        argc -= g;
        argv += g;
        if (argc < 2) { cli_usage(stderr); return CLI_USAGE; }
    }
    const char *a = argv[1];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { cli_usage(stdout); return CLI_OK; }
    if (!strcmp(a, "--version") || !strcmp(a, "-V")) { printf("rxlock %s\n", RXLOCK_VERSION); return CLI_OK; }
    if (!strcmp(a, "help")) {
        if (argc < 3) { cli_usage(stdout); return CLI_OK; }
        const cli_command *c = cli_command_find(argv[2]);
        if (!c) { fprintf(stderr, "rxlock: unknown command '%s' (see 'rxlock --help')\n", argv[2]); return CLI_USAGE; }
        fputs(c->usage, stdout);
        return CLI_OK;
    }
    if (a[0] == '-') { fprintf(stderr, "rxlock: unknown option '%s' (see 'rxlock --help')\n", a); return CLI_USAGE; }
    const cli_command *c = cli_command_find(a);
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
    if (rc != CLI_OK && wants_json(c, argc, argv)) cli_json_error_event(a, rc);
    return rc;
}
