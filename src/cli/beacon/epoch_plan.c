/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/epoch_plan.c — an epoch as a generation job: its puzzle's
 * parameters from beacon.json (bcn_epoch_params, what `beacon run`
 * generates here) and its cluster plan (bcn_plan_epoch: `rxlock plan` for
 * epoch E's key of a kind in DIR/plans/STEM, the planner and worker keys
 * in DIR/private/plans/, and, for `beacon run --cluster`, the job files
 * (src/cli/plan_scripts.c) the cluster's tools submit).  Used by
 * `beacon run --plan-only` and `beacon run --cluster`. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void bcn_epoch_params(const tl_beacon_config *c, int kind, tl_params *p) {
    const tl_beacon_sched *s = &c->s;
    memset(p, 0, sizeof *p);
    p->work = s->work;
    p->groups = s->groups;
    p->steps = s->steps;
    p->rate_milli_hps = s->assumed_mhps;
    snprintf(p->rate_source, sizeof p->rate_source, "%s", c->rate_source);
    p->target_seconds = s->opens_after;
    p->rate_mode = s->work != TL_WORK_SHA3_256 && s->assumed_mhps ? TL_RATE_MODE_FULL : TL_RATE_MODE_NONE;
    p->setup_ms = s->setup_ms;
    p->pq = kind == TL_BEACON_PQ;
}

/* The failure's words: into why when given (the caller logs them), else
 * said on stderr. */
static int plan_fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int plan_fail(char *why, size_t cap, const char *fmt, ...) {
    char msg[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!why) return cli_error("%s", msg);
    snprintf(why, cap, "%s", msg);
    return CLI_FAIL;
}

int bcn_plan_epoch(const bcn_dir *b, uint64_t E, int kind, cli_plan_jobs *jobs, int *made, char *why, size_t cap) {
    const tl_beacon_config *c = &b->cfg;
    char stem[48], dir[PATH_MAX], pk_path[PATH_MAX], wk_path[PATH_MAX], kdir[PATH_MAX], pj[PATH_MAX], err[256];
    bcn_stem(&c->s, E, kind, stem);
    bcn_file(b, dir, "plans/%s", stem);
    bcn_file(b, pk_path, "private/plans/%s.planner.key", stem);
    bcn_file(b, wk_path, "private/plans/%s.worker.key", stem);
    bcn_file(b, pj, "plans/%s/plan.json", stem);
    if (made) *made = 0;
    if (access(pj, F_OK) == 0) return CLI_OK;   /* planned before: waiting for its assembly (plan.json is written last) */
    bcn_file(b, kdir, "plans");
    if (mkdir(kdir, 0755) != 0 && errno != EEXIST) return plan_fail(why, cap, "%s: %s", kdir, strerror(errno));
    bcn_file(b, kdir, "private/plans");
    if (mkdir(kdir, 0700) != 0 && errno != EEXIST) return plan_fail(why, cap, "%s: %s", kdir, strerror(errno));
    tl_params p;
    bcn_epoch_params(c, kind, &p);
    tl_plan_opts po;
    memset(&po, 0, sizeof po);
    po.planner_key = pk_path;
    po.worker_key = wk_path;
    po.mode = (tl_mode)c->mode;   /* auto: the plan default (full: the nodes hold the dataset) */
    po.force = 1;   /* keys of a plan that was never completed */
    po.verify = c->verify;
    po.verify_fraction = c->verify == TL_VERIFY_SAMPLE ? c->verify_permille / 1000.0 : 0;
    po.checkpoint_steps = c->checkpoint_steps;
    if (jobs) {
        jobs->time_limit = cli_plan_jobs_time_limit(jobs, &p, po.mode);
        po.job_files = cli_plan_jobs_write;
        po.job_files_ctx = jobs;
    }
    static tl_plan_summary ps;
    int rc = tl_plan_create(&p, &po, dir, &ps, err, sizeof err);
    if (rc) {
        if (jobs && jobs->wrote) cli_plan_jobs_remove(dir);
        return plan_fail(why, cap, "planning epoch %llu: %s", (unsigned long long)E, err[0] ? err : rxlock_strerror(rc));
    }
    if (made) *made = 1;
    char out[PATH_MAX], sk[PATH_MAX];
    bcn_file(b, out, "private/puzzles/%s.json", stem);
    bcn_file(b, sk, "private/signer.key");
    if (jobs)
        bcn_log("planned epoch %llu%s%s: %s (%u tasks%s)", (unsigned long long)E, c->s.kinds == 3 ? " " : "",
                c->s.kinds == 3 ? tl_beacon_kind_name(kind) : "", dir, ps.tasks,
                ps.verify != TL_VERIFY_NONE ? " and as many verification tasks" : "");
    else
        bcn_log("planned epoch %llu%s%s: %s (run its %u tasks: rxlock group DIR TASK --worker-key %s); then "
                "rxlock assemble %s --planner-key %s --sign-key %s -o %s", (unsigned long long)E,
                c->s.kinds == 3 ? " " : "", c->s.kinds == 3 ? tl_beacon_kind_name(kind) : "", dir, ps.tasks, wk_path,
                dir, pk_path, sk, out);
    return CLI_OK;
}
