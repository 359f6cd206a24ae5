/* SPDX-License-Identifier: ISC */
/* src/cli/cluster/cluster_cli.h — what the cluster room's commands (plan,
 * plan status, group, assemble) share beyond the shared CLI: `plan`'s
 * hand-over to `plan status`.  The job-file text is src/cli/plan_scripts.h's. */
#ifndef RXLOCK_CLI_CLUSTER_H
#define RXLOCK_CLI_CLUSTER_H
/* `rxlock plan status DIR` (plan_status.c; plan.c hands over). */
int cmd_plan_status(int argc, char **argv);
#endif
