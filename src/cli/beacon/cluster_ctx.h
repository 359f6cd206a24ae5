/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/cluster_ctx.h — what the cluster service's two files
 * share: the service's state (cl_ctx), the one way it says a trouble
 * (cl_error: once an hour for the same words, with the way out), and one
 * epoch key's step on the cluster (cluster_epoch.c) that the service's loop
 * (cluster_run.c) drives. */
#ifndef RXLOCK_CLI_BEACON_CLUSTER_CTX_H
#define RXLOCK_CLI_BEACON_CLUSTER_CTX_H
#include "cli/beacon/beacon_cli.h"
#include <stdint.h>

/* The same trouble at every poll is said once an hour: the last few
 * messages said are remembered with their time. */
#define CL_SAID 8
typedef struct {
    char    msg[1024];
    int64_t at;
} cl_said;

typedef struct {
    bcn_dir b;
    uint8_t *sk;
    const volatile int *stop;
    int k8s;
    const char *ns;               /* k8s namespace or NULL                  */
    unsigned retries;
    double poll, cmd_timeout;
    cli_plan_jobs jobs;
    double last_epoch_seconds;    /* the cluster's last epoch key, first submission to done
                                     (kept in DIR/private/cluster/pace) */
    unsigned in_flight;           /* epoch keys on the cluster at once       */
    int in_flight_given;          /* --in-flight N: kept; else chosen from the pace */
    int64_t warned;               /* the last epoch warned about as late (-1 none) */
    bcn_service sv;
    bcn_releaser rel;             /* releases on the clock (releaser.c), as `beacon run` */
    cl_said said[CL_SAID];
} cl_ctx;

/* Log a trouble with its way out, unless the same words were said within
 * the hour; 1 when said now (a new event: the caller may count it). */
int cl_error(cl_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Advance epoch E's key of a kind by one step: 1 when it needs the cluster
 * (in flight), 0 when done or given up, -1 on a failure that stops the
 * service. */
int cl_step(cl_ctx *c, uint64_t E, int kind);
/* An epoch key done with: its jobs cancelled (cancel), its keys and record
 * removed (its plan stays for the logs). */
void cl_forget(cl_ctx *c, uint64_t E, int kind, int cancel);
#endif
