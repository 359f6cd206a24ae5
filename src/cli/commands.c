/* SPDX-License-Identifier: ISC */
/* src/cli/commands.c — the one home of the subcommand table and the usage
 * text (declared in cli.h): the commands in CLI_COMMANDS order with their
 * summaries, entry points and option texts, found by their public names
 * ("keygen-signer"); `rxlock --help`.  main.c dispatches through it and
 * the error messages (cli_errors.c) name a command's options from it. */
#include "cli/cli.h"
#include <stdio.h>
#include <string.h>


#define CLI_ENTRY(n, s) {#n, s, cmd_##n, cmd_##n##_usage},
static const cli_command commands[] = { CLI_COMMANDS(CLI_ENTRY) };
#undef CLI_ENTRY
#define NCOMMANDS (sizeof commands / sizeof commands[0])

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

const cli_command *cli_command_find(const char *name) {
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (name_eq(commands[i].name, name)) return &commands[i];
    return NULL;
}

const char *cli_command_usage(const char *cmd) {
    const cli_command *c = cli_command_find(cmd);
    return c ? c->usage : NULL;
}

void cli_usage(FILE *fp) {
    fprintf(fp,
        "rxlock %s — time-lock encryption over sequential RandomX v2 / v1 / SHA3-256 chains\n\n"
        "usage: rxlock [--version] [--help] [--jit-install mprotect|proc-mem] COMMAND [ARGS]\n\ncommands:\n",
        RXLOCK_VERSION);
    for (size_t i = 0; i < NCOMMANDS; i++) {
        fputs("  ", fp);
        print_name(fp, commands[i].name);
        fprintf(fp, "%*s%s\n", (int)(16 - strlen(commands[i].name)), "", commands[i].summary);
    }
    fprintf(fp, "\n--jit-install mprotect: the RandomX JIT installs each program by flipping its code pages\n"
                "writable and back (as RXLOCK_JIT_INSTALL=mprotect); proc-mem, the default where the\n"
                "system allows it, writes it through /proc/self/mem into pages that stay read+execute.\n"
                "\n'rxlock help COMMAND' shows a command's options.\n"
                "exit codes: 0 ok, 1 failure, 2 usage error, 3 verification failed,\n"
                "            128+N killed by signal N (130: Ctrl-C)\n");
}
