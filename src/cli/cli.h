/* SPDX-License-Identifier: ISC */
/* src/cli/cli.h — the subcommand table's declarations and shared CLI
 * conventions.  Exit codes: 0 success, 1 failure (bad data, failed check,
 * I/O error), 2 usage error (unknown command/flag, missing argument),
 * 3 verification failure (bad signature, pin mismatch, wrong key). */
#ifndef RXLOCK_CLI_H
#define RXLOCK_CLI_H
#include <stdarg.h>
#include <stdio.h>

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2, CLI_VERIFY = 3 };

/* Every subcommand: int cmd_NAME(int argc, char **argv) where argv[0] is
 * the subcommand's name, and a usage text cmd_NAME_usage (shown by
 * `rxlock help NAME` and `rxlock NAME --help`). */
#define CLI_COMMANDS(X) \
    X(hash,          "compute a RandomX v1/v2 hash (vectors, debugging)") \
    X(lock,          "generate a time-lock puzzle (or lock a file)") \
    X(solve,         "solve a puzzle sequentially (resumable) and write the identity") \
    X(unlock,        "solve a .rxlock file and write its plaintext") \
    X(inspect,       "show a puzzle's parameters and estimated solve time") \
    X(verify,        "check a puzzle's structure and signature without solving") \
    X(keygen_signer, "create an Ed25519 signing key for puzzles") \
    X(keygen,        "create an age identity (X25519, or post-quantum with --pq)") \
    X(encrypt,       "encrypt to an age recipient (age v1 format)") \
    X(decrypt,       "decrypt an age file with an identity") \
    X(calibrate,     "measure this machine's sequential hash rate") \
    X(plan,          "plan a puzzle's generation on a cluster (Slurm / Kubernetes)") \
    X(group,         "compute one task of a plan (what each cluster task runs)") \
    X(assemble,      "check a plan's group results and write its puzzle") \
    X(beacon,        "shared epochs: run a beacon, solve its feed, show its status")

#define CLI_DECLARE(name, summary) \
    int cmd_##name(int argc, char **argv); \
    extern const char cmd_##name##_usage[];
CLI_COMMANDS(CLI_DECLARE)
#undef CLI_DECLARE

/* The command table (commands.c): one entry per CLI_COMMANDS line. */
typedef struct {
    const char *name;             /* C name ("keygen_signer") */
    const char *summary;
    int (*run)(int, char **);
    const char *usage;
} cli_command;
/* The command named `name` (its public name with dashes, "keygen-signer"),
 * NULL when none. */
const cli_command *cli_command_find(const char *name);
/* `rxlock --help`: the commands with their summaries, the global flags and
 * the exit codes, on fp. */
void cli_usage(FILE *fp);

/* "rxlock: <msg>" on stderr; returns CLI_FAIL.  The message is kept for
 * the --json error event (docs/JSON.md), as cli_fail's and cli_usage_error's. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While held (on = 1), cli_error and cli_fail keep their message without
 * printing it (a service trying again what it has said once); the last
 * message kept. */
void cli_error_hold(int on);
const char *cli_last_error(void);
/* The same with another exit code (CLI_VERIFY); returns rc. */
int cli_fail(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "rxlock CMD: <msg> (see 'rxlock help CMD')" on stderr; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The usage text of command `cmd` (dashes or underscores), NULL when none
 * (commands.c's table). */
const char *cli_command_usage(const char *cmd);
/* With --json: {"event":"error","command":...,"exit":rc,"message": the last
 * error message} on stdout before a failing exit (docs/JSON.md). */
void cli_json_error_event(const char *cmd, int rc);
/* Common getopt error handling: call on '?' / ':' returns of getopt_long. */
int cli_bad_option(const char *cmd, int optopt_char, const char *arg);
#endif
