/* SPDX-License-Identifier: ISC */
/* src/cli/cmd_plan.c — `rxlock plan`: draw a puzzle's secrets and write a
 * plan directory for generation on a cluster (job files, plan.json,
 * slurm.sbatch, k8s-job.yaml) plus the planner and worker keys; prints the
 * epoch recipient.  The work is in tl_plan_create (src/lock/cluster/plan.c). */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/lock_opts.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char cmd_plan_usage[] =
    "usage: rxlock plan [--work randomx-v2|randomx-v1|sha3-256] --groups G\n"
    "                   (--steps S | (--time DURATION | --until DATE) [--rate H/s | --calibration FILE])\n"
    "                   [--mode light|full] [--batch B] --planner-key FILE --worker-key FILE\n"
    "                   [--pq | --classic] [--verify[=full|sample:F] | --no-verify]\n"
    "                   [--checkpoint-steps C] [job file options] [--force] [--dry-run]\n"
    "                   -o, --output DIR\n"
    "\n"
    "Plan a puzzle for generation on a cluster: draws every secret now, as\n"
    "`rxlock lock` does, and writes DIR: plan.json (public), jobs/ (one sealed job\n"
    "file per group), plan.secrets, slurm.sbatch (array job) and k8s-job.yaml\n"
    "(Indexed Job).  Each task runs `rxlock group DIR INDEX`; then, where the\n"
    "planner key is, `rxlock assemble DIR` writes the puzzle.  Prints the epoch\n"
    "recipient (age1..., or age1pq1... with --pq), usable at once.  Before, it\n"
    "prints the generation estimate: every group a task at once, at this\n"
    "machine's rate (the saved calibration; else a lower bound at the floor's).\n"
    "\n"
    "  --work, --groups, --steps, --time, --until, --rate, --calibration, --floor,\n"
    "  --floor-table, --dry-run   as in `rxlock lock` (--time alone: against the floor)\n"
    "                       (--groups is required: it is the cluster's width)\n"
    "  --mode light|full    RandomX mode the tasks use (default full; a task on a node\n"
    "                       without 2.3 GiB free runs light, with a warning)\n"
    "  --batch B            groups per task (default 1): task t runs groups t*B+1 .. t*B+B,\n"
    "                       in parallel processes sharing one dataset\n"
    "  --planner-key FILE   written (0600): opens the results and the secrets; needed by\n"
    "                       assemble.  Keep it off the storage the workers share.\n"
    "  --worker-key FILE    written (0600): opens the job files; give it to the tasks\n"
    "                       (Kubernetes Secret / a file only your jobs read)\n"
    "                       Neither key may be inside DIR.\n"
    "  --pq                 post-quantum epoch key (ML-KEM-768 + X25519 age recipient)\n"
    "  --classic            X25519 epoch key (the default)\n"
    "  --verify[=full|sample:F]  verification tasks (default full): the group tasks record\n"
    "                       a sealed chain value every C steps, and a second array of as many\n"
    "                       tasks (slurm-verify.sbatch, k8s-verify-job.yaml; slurm-submit.sh\n"
    "                       submits both, the second after the first) recomputes every\n"
    "                       segment (full: about 1x the generation CPU again, in parallel)\n"
    "                       or a share F of them (sample:F, about F x); assemble refuses\n"
    "                       until each matched and names the group, segment and hosts\n"
    "                       that differ.  The puzzle records what was checked.\n"
    "  --no-verify          no verification tasks (the puzzle says UNVERIFIED)\n"
    "  --checkpoint-steps C the verification unit (default: about 1/1024 of a group)\n"
    "  --force              replace an existing plan in DIR and existing key files\n"
    "  -o, --output DIR     the plan directory (created; the workers' shared storage)\n"
    "Job file options (slurm.sbatch):\n"
    "  --slurm-time DURATION   #SBATCH --time (e.g. 36h, 2d); default: twice one group's\n"
    "                       work at --task-rate (else the plan's rate, /10 for light-mode\n"
    "                       tasks), + setup (full 10 min, light 1 min) + 10 min; none\n"
    "                       without a rate\n"
    "  --task-rate H/s      one group's hash rate on the nodes in the tasks' mode\n"
    "                       (e.g. `rxlock calibrate` there), for the default --slurm-time\n"
    "  --slurm-partition P, --slurm-account A   #SBATCH --partition / --account\n"
    "  --sbatch --OPT[=VALUE]  one more #SBATCH line (repeatable, up to 32), e.g.\n"
    "                       --sbatch --qos=long\n"
    "  --node-worker-key PATH  the worker key's absolute path on the nodes (default\n"
    "                       $HOME/.rxlock/ and the --worker-key file's name)\n"
    "Job file options (k8s-job.yaml):\n"
    "  --image REF          the container image (default localhost/rxlock:VERSION,\n"
    "                       imagePullPolicy IfNotPresent)\n"
    "  --pvc CLAIM[:PATH]   the plan volume's claim (default rxlock-plan) and the plan\n"
    "                       directory inside it (default its root)\n"
    "  --namespace NS       metadata.namespace (default none: kubectl's current)\n"
    "  --k8s-user UID[:GID] the pod's user and fsGroup (default: the owner of DIR,\n"
    "                       65532 when that is root); runAsNonRoot\n"
    "exit: 0 ok, 1 failure, 2 usage error\n";

enum { OPT_STIME = 0x200, OPT_SPART, OPT_SACCT, OPT_SBATCH, OPT_TRATE, OPT_NODEWK, OPT_IMAGE, OPT_PVC,
       OPT_NS, OPT_KUSER };

/* "UID[:GID]", each 1..2^31-1 */
static int parse_ids(const char *s, uint32_t *uid, uint32_t *gid) {
    char buf[32];
    uint64_t u, g = 0;
    if (strlen(s) >= sizeof buf) return -1;
    strcpy(buf, s);
    char *colon = strchr(buf, ':');
    if (colon) *colon = 0;
    if (cli_parse_u64(buf, 1, 0x7fffffff, &u) || (colon && cli_parse_u64(colon + 1, 1, 0x7fffffff, &g))) return -1;
    *uid = (uint32_t)u;
    *gid = (uint32_t)g;
    return 0;
}

int cmd_plan(int argc, char **argv) {
    static const struct option opts[] = {
        {"work", required_argument, 0, 'w'}, {"groups", required_argument, 0, 'g'},
        {"steps", required_argument, 0, 's'}, {"time", required_argument, 0, 't'},
        {"rate", required_argument, 0, 'r'}, {"calibration", required_argument, 0, 'c'},
        {"pq", no_argument, 0, CLI_OPT_PQ}, {"classic", no_argument, 0, CLI_OPT_CLASSIC},
        {"mode", required_argument, 0, 'm'}, {"batch", required_argument, 0, 'B'},
        {"planner-key", required_argument, 0, 'P'}, {"worker-key", required_argument, 0, 'W'},
        {"force", no_argument, 0, 'f'}, {"output", required_argument, 0, 'o'},
        {"slurm-time", required_argument, 0, OPT_STIME}, {"slurm-partition", required_argument, 0, OPT_SPART},
        {"slurm-account", required_argument, 0, OPT_SACCT}, {"sbatch", required_argument, 0, OPT_SBATCH},
        {"task-rate", required_argument, 0, OPT_TRATE}, {"node-worker-key", required_argument, 0, OPT_NODEWK},
        {"image", required_argument, 0, OPT_IMAGE}, {"pvc", required_argument, 0, OPT_PVC},
        {"namespace", required_argument, 0, OPT_NS}, {"k8s-user", required_argument, 0, OPT_KUSER},
        {"verify", optional_argument, 0, CLI_OPT_VERIFY}, {"no-verify", no_argument, 0, CLI_OPT_NO_VERIFY},
        {"checkpoint-steps", required_argument, 0, CLI_OPT_CKPT},
        {"until", required_argument, 0, CLI_OPT_UNTIL}, {"dry-run", no_argument, 0, CLI_OPT_DRY_RUN},
        {"floor", no_argument, 0, CLI_OPT_FLOOR}, {"floor-table", required_argument, 0, CLI_OPT_FLOOR_TABLE},
        {0, 0, 0, 0}
    };
    const char *extra[TL_PLAN_SBATCH_EXTRA_MAX];
    char pvc[256];
    double d;
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
        case OPT_STIME:
            if (cli_parse_duration(optarg, &d) || d < 60 || d > 3650.0 * 86400)
                return cli_usage_error(argv[0], "--slurm-time: want 1m .. 3650d, e.g. 36h, 2d");
            po.slurm_time = (uint64_t)ceil(d);
            break;
        case OPT_TRATE:
            if (cli_parse_double(optarg, 1e-3, 1e15, &d)) return cli_usage_error(argv[0], "--task-rate: want a positive number of hashes/s");
            po.task_rate_mhps = (uint64_t)llround(d * 1000.0);
            break;
        case OPT_SPART: po.slurm_partition = optarg; break;
        case OPT_SACCT: po.slurm_account = optarg; break;
        case OPT_SBATCH:
            if (po.n_sbatch_extra >= TL_PLAN_SBATCH_EXTRA_MAX)
                return cli_usage_error(argv[0], "--sbatch: at most %u lines", TL_PLAN_SBATCH_EXTRA_MAX);
            extra[po.n_sbatch_extra++] = optarg;
            po.sbatch_extra = extra;
            break;
        case OPT_NODEWK: po.node_worker_key = optarg; break;
        case OPT_IMAGE: po.image = optarg; break;
        case OPT_PVC: {
            if (strlen(optarg) >= sizeof pvc) return cli_usage_error(argv[0], "--pvc: too long");
            strcpy(pvc, optarg);
            char *colon = strchr(pvc, ':');
            if (colon) { *colon = 0; po.pvc_subpath = optarg + (colon - pvc) + 1; }
            po.pvc = pvc;
            break;
        }
        case OPT_NS: po.k8s_namespace = optarg; break;
        case OPT_KUSER:
            if (parse_ids(optarg, &po.k8s_uid, &po.k8s_gid)) return cli_usage_error(argv[0], "--k8s-user: want UID or UID:GID (non-zero)");
            break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!out && !lo.dry_run) return cli_usage_error(argv[0], "missing -o DIR");
    if (!lo.groups) return cli_usage_error(argv[0], "missing --groups G (the number of parallel tasks' groups)");
    if ((!po.planner_key || !po.worker_key) && !lo.dry_run) return cli_usage_error(argv[0], "missing --planner-key FILE or --worker-key FILE");
    if (batch > lo.groups) return cli_usage_error(argv[0], "--batch: want at most --groups");
    /* issue 19: the tasks run full mode unless --mode light (the cluster
     * nodes, not this machine, must hold the dataset; `group` falls back
     * to light with a warning on a node where it does not fit) */
    if (lo.mode_req < 0) lo.mode_req = TL_MODE_FULL;
    if ((orc = cli_lock_resolve(&lo, argv[0])) != 0) return orc;
    cli_lock_pq_default(&lo, 0);         /* issue 21: --pq for a post-quantum epoch */
    if (!lo.go.workers) lo.go.workers = lo.p.groups;   /* the estimate: every group a task at once */
    if (lo.dry_run) return cli_lock_dry_run(&lo, "plan: every group a task on its own node");
    const cli_path files[] = {
        { lo.calib, "--calibration", CLI_PATH_IN }, { po.planner_key, "--planner-key", CLI_PATH_OUT },
        { po.worker_key, "--worker-key", CLI_PATH_OUT }
    };
    if (cli_paths_check(files, sizeof files / sizeof files[0], po.force)) return CLI_FAIL;
    po.batch = (uint32_t)batch;
    po.mode = lo.go.mode;
    po.verify = lo.go.verify;            /* issue 20: DEFAULT = full on a cluster */
    po.verify_fraction = lo.go.verify_fraction;
    po.checkpoint_steps = lo.go.checkpoint_steps;
    uint8_t pk[32];
    char err[512];
    int rc = tl_plan_create(&lo.p, &po, out, pk, err, sizeof err);
    if (rc) return cli_error("plan failed: %s", err[0] ? err : rxlock_strerror(rc));
    cli_lock_estimate(&lo, stderr);      /* before the cluster's work */
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
    uint64_t tl = tl_plan_time_limit(&lo.p, &po);
    const char *wkbase = strrchr(po.worker_key, '/') ? strrchr(po.worker_key, '/') + 1 : po.worker_key;
    char tlim[128] = "none (no rate: give --slurm-time or --task-rate)";
    if (tl) snprintf(tlim, sizeof tlim, "%llu-%02u:%02u:%02u%s", (unsigned long long)(tl / 86400),
                     (unsigned)(tl / 3600 % 24), (unsigned)(tl / 60 % 60), (unsigned)(tl % 60),
                     po.slurm_time ? "" : " (2 x the work at the plan's rate + setup; --slurm-time, --task-rate)");
    int ver = po.verify != TL_VERIFY_NONE;
    char vline[160] = "none (--no-verify: the puzzle will say UNVERIFIED)";
    if (ver) snprintf(vline, sizeof vline, "%s: a second array of %u task%s recomputes %s",
                      po.verify == TL_VERIFY_SAMPLE ? "sampled" : "full", tasks, tasks == 1 ? "" : "s",
                      po.verify == TL_VERIFY_SAMPLE ? "a share of the chain segments" : "every chain segment (2x the CPU)");
    fprintf(stderr,
            "rxlock: planned %u groups x %llu %s steps in %s (%u task%s of %u group%s)\n"
            "  verification: %s\n"
            "  Slurm:      %s %s/%s\n"
            "              time limit %s\n"
            "              the worker key at %s%s on the nodes first\n"
            "  Kubernetes: see the steps at the top of %s/k8s-job.yaml%s\n"
            "  then:       rxlock assemble %s --planner-key %s -o puzzle.json\n",
            lo.p.groups, (unsigned long long)lo.p.steps, tl_work_name(lo.p.work), out, tasks, tasks == 1 ? "" : "s",
            po.batch, po.batch == 1 ? "" : "s", vline, ver ? "sh" : "sbatch", out,
            ver ? "slurm-submit.sh" : "slurm.sbatch", tlim,
            po.node_worker_key ? po.node_worker_key : "~/.rxlock/", po.node_worker_key ? "" : wkbase,
            out, ver ? " (then k8s-verify-job.yaml)" : "", out, po.planner_key);
    return CLI_OK;
}
