/* src/cli/cmd_lockfile.c — `rxlock lock FILE`: single-file time-lock
 * (FILE -> FILE.rxlock).  cmd_lock() calls this when given a positional
 * FILE argument.  (not implemented yet) */
#include "cli/cli.h"

int cmd_lock_file(int argc, char **argv);
int cmd_lock_file(int argc, char **argv) {
    (void)argc; (void)argv;
    return cli_error("lock FILE: not implemented yet");
}
