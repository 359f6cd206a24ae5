/* SPDX-License-Identifier: ISC */
/* src/cli/cluster/plan_status.c — `rxlock plan status DIR`: per task of a plan,
 * done / running (with the age of its newest checkpoint) / missing /
 * failed, group and verification tasks alike, and what to run next; text
 * or --json lines (docs/JSON.md).  The reading is tl_plan_status_read's
 * (src/lock/cluster/status.c). */
#include "cli/cli.h"
#include "cli/cluster/cluster_cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_name[] = { "missing", "running", "done", "failed", "recorded" };

/* The one next step, in the order the plan goes. */
static void next_step(const tl_plan_status *st, const char *dir, char *buf, size_t cap) {
    const tl_task_status *first[5][2] = {{0}};
    for (uint32_t k = 0; k < st->n; k++) {
        const tl_task_status *t = &st->task[k];
        if (!first[t->state][t->verify]) first[t->state][t->verify] = t;
    }
    const tl_task_status *t;
    if ((t = first[TL_TASK_FAILED][0]))
        snprintf(buf, cap, "group %u's result does not authenticate: remove %s/results/group-%04u.result and run "
                 "`rxlock group %s %u` again", t->bad_group, dir, t->bad_group, dir, t->task);
    else if ((t = first[TL_TASK_MISSING][0]) || (t = first[TL_TASK_RUNNING][0]))
        snprintf(buf, cap, "finish the group tasks: `rxlock group %s %u` (task %u is %s), or submit the array again "
                 "(%s%s%s; finished tasks return at once)", dir, t->task, t->task, state_name[t->state],
                 st->verifies ? "sh " : "cd ", dir, st->verifies ? "/slurm-submit.sh" : " && sbatch slurm.sbatch");
    else if ((t = first[TL_TASK_FAILED][1]))
        snprintf(buf, cap, "group %u segment %u differs: remove %s/results/group-%04u.*, run `rxlock group %s %u` and "
                 "`rxlock group --verify %s %u` on other hosts", t->bad_group, t->bad_segment, dir, t->bad_group, dir,
                 (t->task + 1) % st->tasks, dir, t->task);
    else if ((t = first[TL_TASK_MISSING][1]) || (t = first[TL_TASK_RUNNING][1]))
        snprintf(buf, cap, "run the verification tasks: `rxlock group --verify %s %u` (task %u is %s), or `cd %s && "
                 "sbatch slurm-verify.sbatch`", dir, t->task, t->task, state_name[t->state], dir);
    else if (first[TL_TASK_RECORDED][1])
        snprintf(buf, cap, "every verification task recorded its segments: give --worker-key to compare them, or "
                 "`rxlock assemble %s --planner-key PLANNER.key -o puzzle.json` (it checks them)", dir);
    else
        snprintf(buf, cap, "every task is done: `rxlock assemble %s --planner-key PLANNER.key -o puzzle.json`", dir);
}

static void age_text(double s, char *buf, size_t cap) {
    if (s < 0) snprintf(buf, cap, "no checkpoint");
    else if (s < 120) snprintf(buf, cap, "checkpoint %.0f s ago", s);
    else if (s < 7200) snprintf(buf, cap, "checkpoint %.0f min ago", s / 60);
    else snprintf(buf, cap, "checkpoint %.1f h ago", s / 3600);
}

int cmd_plan_status(int argc, char **argv) {
    static const struct option opts[] = {
        {"worker-key", required_argument, 0, 'W'}, {"json", no_argument, 0, 'j'}, {0, 0, 0, 0}
    };
    const char *wk = getenv("RXLOCK_WORKER_KEY");
    int json = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'W': wk = optarg; break;
        case 'j': json = 1; break;
        case ':': return cli_usage_error("plan status", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option("plan status", optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error("plan status", "missing DIR");
    const char *dir = argv[optind++];
    if (optind < argc) return cli_usage_error("plan status", "unexpected argument '%s'", argv[optind]);
    if (wk && !*wk) wk = NULL;
    tl_plan_status st;
    char err[512];
    if (cli_plan_dir_check(dir)) return CLI_FAIL;
    int rc = tl_plan_status_read(dir, wk, &st, err, sizeof err);
    if (rc) return cli_error("%s: %s", dir, err[0] ? err : rxlock_strerror(rc));
    uint32_t count[2][5] = {{0}};
    for (uint32_t k = 0; k < st.n; k++) count[st.task[k].verify][st.task[k].state]++;
    char next[1024], age[48];
    next_step(&st, dir, next, sizeof next);
    int ret = CLI_OK;
    if (json) {
        for (uint32_t k = 0; k < st.n && ret == CLI_OK; k++) {
            const tl_task_status *t = &st.task[k];
            ret = cli_print_json(json_pack("{s:s, s:s, s:s, s:i, s:b, s:i, s:i, s:s, s:i, s:o, s:o, s:o}", "event", "task",
                                           "command", "plan status", "plan", dir, "task", (int)t->task, "verify", t->verify,
                                           "first", (int)t->first, "last", (int)t->last, "state", state_name[t->state],
                                           "groups_done", (int)t->groups_done,
                                           "checkpoint_age_seconds", t->checkpoint_age >= 0 ? json_real(t->checkpoint_age) : json_null(),
                                           "bad_group", t->bad_group ? json_integer(t->bad_group) : json_null(),
                                           "bad_segment", t->bad_segment ? json_integer(t->bad_segment) : json_null()));
        }
        int complete = count[0][TL_TASK_DONE] == st.tasks && (!st.verifies || count[1][TL_TASK_DONE] == st.tasks);
        if (ret == CLI_OK)
            ret = cli_print_json(json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:b, s:{s:i, s:i, s:i, s:i}, s:o, s:b, s:s}",
                                           "event", "done", "command", "plan status", "plan", dir,
                                           "groups", (int)st.groups, "tasks", (int)st.tasks, "verifies", st.verifies,
                                           "authenticated", st.authenticated, "group_tasks",
                                           "done", (int)count[0][TL_TASK_DONE], "running", (int)count[0][TL_TASK_RUNNING],
                                           "missing", (int)count[0][TL_TASK_MISSING], "failed", (int)count[0][TL_TASK_FAILED],
                                           "verify_tasks", !st.verifies ? json_null() :
                                           json_pack("{s:i, s:i, s:i, s:i, s:i}", "done", (int)count[1][TL_TASK_DONE],
                                                     "running", (int)count[1][TL_TASK_RUNNING],
                                                     "missing", (int)count[1][TL_TASK_MISSING],
                                                     "failed", (int)count[1][TL_TASK_FAILED],
                                                     "recorded", (int)count[1][TL_TASK_RECORDED]),
                                           "complete", complete, "next", next));
        tl_plan_status_free(&st);
        return ret;
    }
    printf("plan %s: %u groups in %u task%s of %u group%s%s; %s\n", dir, st.groups, st.tasks, st.tasks == 1 ? "" : "s",
           st.batch, st.batch == 1 ? "" : "s", st.verifies ? ", each checked by a verification task" : "",
           st.authenticated ? "results authenticated with the worker key"
                            : "results not authenticated (give --worker-key or RXLOCK_WORKER_KEY)");
    for (int v = 0; v <= st.verifies; v++) {
        printf("%s tasks: %u done, %u running, %u missing, %u failed%s\n", v ? "verification" : "group",
               count[v][TL_TASK_DONE], count[v][TL_TASK_RUNNING], count[v][TL_TASK_MISSING], count[v][TL_TASK_FAILED],
               v && count[1][TL_TASK_RECORDED] ? ", the rest recorded (not compared)" : "");
        for (uint32_t k = 0; k < st.n; k++) {
            const tl_task_status *t = &st.task[k];
            if (t->verify != v || t->state == TL_TASK_DONE) continue;
            age_text(t->checkpoint_age, age, sizeof age);
            printf("  %stask %u (groups %u..%u): %s", v ? "verification " : "", t->task, t->first, t->last,
                   state_name[t->state]);
            if (t->state == TL_TASK_RUNNING) printf(", %u of %u group%s done, %s", t->groups_done, t->last - t->first + 1,
                                                    t->last == t->first ? "" : "s", age);
            if (t->state == TL_TASK_FAILED && t->bad_segment) printf(": group %u segment %u differs", t->bad_group, t->bad_segment);
            else if (t->state == TL_TASK_FAILED) printf(": group %u's result does not authenticate", t->bad_group);
            printf("\n");
        }
    }
    printf("next: %s\n", next);
    tl_plan_status_free(&st);
    return CLI_OK;
}
