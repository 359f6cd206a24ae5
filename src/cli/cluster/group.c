/* SPDX-License-Identifier: ISC */
/* src/cli/cluster/group.c — `rxlock group DIR [INDEX]`: what each Slurm array
 * task / Kubernetes Indexed Job pod runs.  The index defaults to
 * SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX; the worker key to
 * RXLOCK_WORKER_KEY.  The work is in tl_plan_task (src/lock/cluster/group.c). */
#include "cli/cli.h"
#include "cli/lock_opts.h"
#include "rxlock/rxlock.h"
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_group_usage[] =
    "usage: rxlock group [--verify] DIR [INDEX] [--worker-key FILE] [--mode light|full]\n"
    "                    [--checkpoint-every SECONDS] [-q | --json]\n"
    "\n"
    "Compute task INDEX of the plan in DIR (0-based: groups INDEX*B+1 .. INDEX*B+B\n"
    "for the plan's batch B) and write each group's sealed result to\n"
    "DIR/results/.  Idempotent: a group whose valid result exists is skipped.\n"
    "Checkpoints (sealed) let a preempted or killed task resume; re-run it.\n"
    "\n"
    "With --verify (a plan made with verification, what slurm-verify.sbatch and\n"
    "k8s-verify-job.yaml run once the group tasks are done): verification task\n"
    "INDEX recomputes the picked chain segments of the groups of task\n"
    "(INDEX + 1) mod TASKS from the sealed values they recorded and records what\n"
    "it got; a segment that differs fails the task (exit 1) and `rxlock assemble`\n"
    "names it with both hosts.  Idempotent: recorded segments are not redone.\n"
    "\n"
    "  INDEX                  default: $SLURM_ARRAY_TASK_ID, else $JOB_COMPLETION_INDEX\n"
    "  --verify               run verification task INDEX (see above)\n"
    "  --worker-key FILE      the plan's worker key (default: $RXLOCK_WORKER_KEY)\n"
    "  --mode light|full      RandomX mode (default: the plan's; light, with a warning,\n"
    "                         when a full-mode plan's 2.3 GiB do not fit on this node)\n"
    "  --checkpoint-every S   sealed checkpoint at least every S (default 60 s; 90s, 5m)\n"
    "  -q, --quiet            no progress line, no summary\n"
    "  --json                 progress and result as JSON lines on stdout\n"
    "exit: 0 done (or already done), 1 failure, 2 usage error, 128+N stopped by signal N\n"
    "      (130 SIGINT, 143 SIGTERM; a re-run resumes)\n";

int cmd_group(int argc, char **argv) {
    static const struct option opts[] = {
        {"worker-key", required_argument, 0, 'W'}, {"mode", required_argument, 0, 'm'},
        {"checkpoint-every", required_argument, 0, 'C'}, {"quiet", no_argument, 0, 'q'},
        {"json", no_argument, 0, 'j'}, {"verify", no_argument, 0, 'V'}, {0, 0, 0, 0}
    };
    tl_task_opts to = { .mode = TL_MODE_DEFAULT };
    uint64_t v;
    int c, quiet = 0, json = 0;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
        switch (c) {
        case 'q': quiet = 1; break;
        case 'j': json = 1; break;
        case 'V': to.verify = 1; break;
        case 'W': to.worker_key = optarg; break;
        case 'm': {
            tl_mode m;
            if (cli_parse_mode(optarg, &m)) return cli_usage_error(argv[0], "--mode: want light or full");
            to.mode = (int)m;
            break;
        }
        case 'C': {
            int rc = cli_parse_seconds_opt(argv[0], "--checkpoint-every", optarg, 1, 1u << 30, &to.checkpoint_seconds);
            if (rc) return rc;
            break;
        }
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error(argv[0], "missing DIR");
    const char *dir = argv[optind++];
    const char *idx = optind < argc ? argv[optind++] : NULL, *src = "INDEX";
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!idx && (idx = getenv("SLURM_ARRAY_TASK_ID"))) src = "SLURM_ARRAY_TASK_ID";
    else if (!idx && (idx = getenv("JOB_COMPLETION_INDEX"))) src = "JOB_COMPLETION_INDEX";
    if (!idx) return cli_usage_error(argv[0], "missing INDEX (and neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set)");
    if (cli_parse_u64(idx, 0, TL_MAX_GROUPS - 1, &v)) return cli_usage_error(argv[0], "%s: want a task index 0..%u", src, TL_MAX_GROUPS - 1);
    if (!to.worker_key) to.worker_key = getenv("RXLOCK_WORKER_KEY");
    if (!to.worker_key || !*to.worker_key) return cli_usage_error(argv[0], "missing --worker-key FILE (or RXLOCK_WORKER_KEY)");
    if (to.mode == TL_MODE_DEFAULT) {   /* the plan's mode, unless full does not fit on this node */
        tl_mode_choice mc;
        if (tl_mode_resolve(TL_WORK_RANDOMX_V2, -1, &mc) == 0 && mc.low_memory) {
            cli_mode_warn(&mc);
            to.mode = TL_MODE_LIGHT;
        }
    }
    cli_progress ui;
    cli_progress_init(&ui, to.verify ? "verify" : "group", 0, cli_progress_when(quiet, json, 0), json);
    to.stop = ui.stop = cli_catch_signals();
    to.progress = cli_progress_cb;
    to.progress_ctx = &ui;
    tl_task_stats st;
    char err[512];
    int rc = tl_plan_task(dir, (uint32_t)v, &to, &st, err, sizeof err);
    cli_progress_end(&ui, 0);
    if (rc) {
        cli_error("task %llu: %s", (unsigned long long)v, err[0] ? err : rxlock_strerror(rc));
        return rc == TL_EINTR ? cli_interrupted_rc() : CLI_FAIL;
    }
    if (json && to.verify)
        return cli_print_json(json_pack("{s:s, s:s, s:s, s:I, s:b, s:i, s:i, s:i, s:i}", "event", "done",
                                        "command", "group", "plan", dir, "task", (json_int_t)v, "verify", 1,
                                        "first", (int)st.first, "last", (int)st.last, "computed", (int)st.computed,
                                        "already_done", (int)st.present));
    if (json)
        return cli_print_json(json_pack("{s:s, s:s, s:s, s:I, s:b, s:i, s:i, s:i, s:i, s:i}", "event", "done",
                                        "command", "group", "plan", dir, "task", (json_int_t)v, "verify", 0,
                                        "first", (int)st.first, "last", (int)st.last, "computed", (int)st.computed,
                                        "resumed", (int)st.resumed, "already_done", (int)st.present));
    if (quiet) return CLI_OK;
    if (to.verify) {
        printf("rxlock group --verify: task %llu (groups %u..%u): every picked segment matched\n",
               (unsigned long long)v, st.first, st.last);
        return CLI_OK;
    }
    printf("rxlock group: task %llu (groups %u..%u): %u computed%s, %u already done\n", (unsigned long long)v,
           st.first, st.last, st.computed, st.resumed ? " (resumed from a checkpoint)" : "", st.present);
    return CLI_OK;
}
