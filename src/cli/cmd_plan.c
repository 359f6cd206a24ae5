/* src/cli/cmd_plan.c — `rxlock plan`: draw a puzzle's secrets and write a
 * plan directory for generation on a cluster (job files, plan.json,
 * slurm.sbatch, k8s-job.yaml) plus the planner and worker keys; prints the
 * epoch recipient.  The work is in tl_plan_create (src/lock/plan.c). */
#include "cli/cli.h"
#include "cli/lock_opts.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

const char cmd_plan_usage[] =
    "usage: rxlock plan [--work randomx-v2|randomx-v1|sha3-256] --groups G\n"
    "                   (--steps S | --time DURATION (--rate H/s | --calibration FILE))\n"
    "                   [--mode light|full] [--batch B] --planner-key FILE --worker-key FILE\n"
    "                   [--pq | --classic] [--force] -o DIR\n"
    "\n"
    "Plan a puzzle for generation on a cluster: draws every secret now, as\n"
    "`rxlock lock` does, and writes DIR: plan.json (public), jobs/ (one sealed job\n"
    "file per group), plan.secrets, slurm.sbatch (array job) and k8s-job.yaml\n"
    "(Indexed Job).  Each task runs `rxlock group DIR INDEX`; then, where the\n"
    "planner key is, `rxlock assemble DIR` writes the puzzle.  Prints the epoch\n"
    "recipient (age1..., or age1pq1... with --pq), usable at once.\n"
    "\n"
    "  --work, --groups, --steps, --time, --rate, --calibration   as in `rxlock lock`\n"
    "                       (--groups is required: it is the cluster's width)\n"
    "  --mode light|full    RandomX mode the tasks use (default light)\n"
    "  --batch B            groups per task (default 1): task t runs groups t*B+1 .. t*B+B,\n"
    "                       in parallel processes sharing one dataset\n"
    "  --planner-key FILE   written (0600): opens the results and the secrets; needed by\n"
    "                       assemble.  Keep it off the storage the workers share.\n"
    "  --worker-key FILE    written (0600): opens the job files; give it to the tasks\n"
    "                       (Kubernetes Secret / a file only your jobs read)\n"
    "                       Neither key may be inside DIR.\n"
    "  --pq                 post-quantum epoch key (ML-KEM-768 + X25519 age recipient)\n"
    "  --classic            X25519 epoch key (the default)\n"
    "  --force              replace an existing plan in DIR and existing key files\n"
    "  -o DIR               the plan directory (created; the workers' shared storage)\n"
    "exit: 0 ok, 1 failure, 2 usage error\n";

int cmd_plan(int argc, char **argv) {
    static const struct option opts[] = {
        {"work", required_argument, 0, 'w'}, {"groups", required_argument, 0, 'g'},
        {"steps", required_argument, 0, 's'}, {"time", required_argument, 0, 't'},
        {"rate", required_argument, 0, 'r'}, {"calibration", required_argument, 0, 'c'},
        {"pq", no_argument, 0, CLI_OPT_PQ}, {"classic", no_argument, 0, CLI_OPT_CLASSIC},
        {"mode", required_argument, 0, 'm'}, {"batch", required_argument, 0, 'B'},
        {"planner-key", required_argument, 0, 'P'}, {"worker-key", required_argument, 0, 'W'},
        {"force", no_argument, 0, 'f'}, {"output", required_argument, 0, 'o'}, {0, 0, 0, 0}
    };
    cli_lock_opts lo;
    cli_lock_opts_init(&lo);
    tl_plan_opts po = {0};
    const char *out = NULL;
    uint64_t batch = 1;
    int c, orc;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        if ((orc = cli_lock_opt(&lo, c, optarg, argv[0])) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case 'B': if (cli_parse_u64(optarg, 1, TL_MAX_GROUPS, &batch)) return cli_usage_error(argv[0], "--batch: want 1..%u", TL_MAX_GROUPS); break;
        case 'P': po.planner_key = optarg; break;
        case 'W': po.worker_key = optarg; break;
        case 'f': po.force = 1; break;
        case 'o': out = optarg; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(argv[0], "missing -o DIR");
    if (!lo.groups) return cli_usage_error(argv[0], "missing --groups G (the number of parallel tasks' groups)");
    if (!po.planner_key || !po.worker_key) return cli_usage_error(argv[0], "missing --planner-key FILE or --worker-key FILE");
    if (batch > lo.groups) return cli_usage_error(argv[0], "--batch: want at most --groups");
    if ((orc = cli_lock_resolve(&lo, argv[0])) != 0) return orc;
    cli_lock_pq_default(&lo, 0);         /* issue 21: --pq for a post-quantum epoch */
    po.batch = (uint32_t)batch;
    po.mode = lo.go.mode;
    uint8_t pk[32];
    char err[512];
    int rc = tl_plan_create(&lo.p, &po, out, pk, err, sizeof err);
    if (rc) return cli_error("plan failed: %s", err[0] ? err : tl_strerror(rc));
    static char rcp[TL_AGE_PQ_RECIPIENT_MAX];
    if (lo.p.pq) {                       /* issue 21: the age1pq1 commitment from plan.json */
        char path[4096];
        json_error_t je;
        snprintf(path, sizeof path, "%s/plan.json", out);
        json_t *o = json_load_file(path, 0, &je);
        json_t *r = o ? json_object_get(json_object_get(o, "puzzle"), "epoch_pq_recipient") : NULL;
        if (!json_is_string(r) || strlen(json_string_value(r)) >= sizeof rcp) rc = cli_error("%s: no epoch_pq_recipient", path);
        else strcpy(rcp, json_string_value(r));
        json_decref(o);
        if (rc) return rc;
    } else if (tl_age_recipient_encode(pk, rcp) != 0) return cli_error("cannot encode the recipient");
    printf("%s\n", rcp);
    uint32_t tasks = (lo.p.groups + po.batch - 1) / po.batch;
    fprintf(stderr,
            "rxlock: planned %u groups x %llu %s steps in %s (%u task%s of %u group%s)\n"
            "  Slurm:      sbatch %s/slurm.sbatch\n"
            "  Kubernetes: see the steps at the top of %s/k8s-job.yaml\n"
            "  then:       rxlock assemble %s --planner-key %s -o puzzle.json\n",
            lo.p.groups, (unsigned long long)lo.p.steps, tl_work_name(lo.p.work), out, tasks, tasks == 1 ? "" : "s",
            po.batch, po.batch == 1 ? "" : "s", out, out, out, po.planner_key);
    return CLI_OK;
}
