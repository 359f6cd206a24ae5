/* SPDX-License-Identifier: ISC */
/* src/cli/cluster/plan.c — `rxlock plan`: draw a puzzle's secrets and write a
 * plan directory for generation on a cluster (job files, plan.json,
 * slurm.sbatch, k8s-job.yaml) plus the planner and worker keys; prints the
 * epoch recipient.  The plan is tl_plan_create's (src/lock/cluster/plan.c);
 * the job files are the CLI's (src/cli/plan_scripts.c). */
#include "cli/cli.h"
#include "cli/cluster/cluster_cli.h"
#include "cli/cli_paths.h"
#include "cli/lock_opts.h"
#include "cli/cli_util.h"
#include "cli/plan_scripts.h"
#include "rxlock/rxlock.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char cmd_plan_usage[] =
    "usage: rxlock plan [--work randomx-v2|randomx-v1|sha3-256] --groups G\n"
    "                   (--steps S | (--time DURATION | --until DATE) [--rate H/s | --calibration FILE])\n"
    "                   [--mode light|full] [--batch B] --planner-key FILE --worker-key FILE\n"
    "                   [--pq | --classic] [--verify[=full|sample:F] | --no-verify]\n"
    "                   [--checkpoint-steps C] [job file options] [--force] [--json] [--dry-run]\n"
    "                   -o, --output DIR\n"
    "       rxlock plan status DIR [--json]\n"
    "\n"
    "`plan status DIR` shows the tasks of the plan in DIR: done, running (with the\n"
    "age of the newest checkpoint), missing or failed (a result that does not\n"
    "authenticate, a verification mismatch), and what to run next; --worker-key\n"
    "FILE (default $RXLOCK_WORKER_KEY) authenticates the results and compares the\n"
    "verification records.\n"
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
    "  --json               one JSON line on stdout instead of the recipient (docs/JSON.md)\n"
    "Job file options (slurm.sbatch):\n"
    "  --slurm-time DURATION   #SBATCH --time (e.g. 36h, 2d); default: twice one group's\n"
    "                       work at --task-rate (else the plan's rate, /10 for light-mode\n"
    "                       tasks), + setup (full 10 min, light 1 min) + 10 min; none\n"
    "                       without a rate\n"
    "  --task-rate H/s      one group's hash rate on the nodes in the tasks' mode\n"
    "                       (e.g. `rxlock calibrate` there), for the default --slurm-time\n"
    "  --slurm-partition P, --slurm-account A   #SBATCH --partition / --account\n"
    "  --slurm-log-dir D    the tasks' log directory in #SBATCH --output, as the\n"
    "                       nodes see it (relative: to the job's working directory);\n"
    "                       default logs, the plan's logs/ when submitted from the\n"
    "                       plan directory (cd DIR && sbatch slurm.sbatch; slurm-submit.sh\n"
    "                       does so); no path of this host is written\n"
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
    "  --k8s-parallelism N  at most N pods at once (default: every task)\n"
    "  --k8s-deadline DURATION  activeDeadlineSeconds (e.g. 3d); --k8s-ttl DURATION\n"
    "                       ttlSecondsAfterFinished (the finished Job is removed then)\n"
    "  --k8s-priority-class NAME  priorityClassName\n"
    "  --image-pull-secret NAME   imagePullSecrets (repeatable)\n"
    "  --k8s-node-selector KEY=VALUE  nodeSelector (repeatable)\n"
    "  --k8s-toleration KEY[=VALUE]:EFFECT  tolerations (EFFECT NoSchedule,\n"
    "                       PreferNoSchedule or NoExecute; repeatable)\n"
    "exit: 0 ok, 1 failure, 2 usage error\n";

enum { OPT_JSON = 0x1ff, OPT_STIME = 0x200, OPT_SPART, OPT_SACCT, OPT_SBATCH, OPT_TRATE, OPT_NODEWK, OPT_IMAGE, OPT_PVC,
       OPT_NS, OPT_KUSER, OPT_KPAR, OPT_KDEAD, OPT_KTTL, OPT_KPRIO, OPT_KPULL, OPT_KNODE, OPT_KTOL, OPT_SLOG };

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
    if (argc >= 2 && !strcmp(argv[1], "status")) return cmd_plan_status(argc - 1, argv + 1);
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
        {"checkpoint-steps", required_argument, 0, CLI_OPT_CKPT}, {"json", no_argument, 0, OPT_JSON},
        {"k8s-parallelism", required_argument, 0, OPT_KPAR}, {"k8s-deadline", required_argument, 0, OPT_KDEAD},
        {"k8s-ttl", required_argument, 0, OPT_KTTL}, {"k8s-priority-class", required_argument, 0, OPT_KPRIO},
        {"image-pull-secret", required_argument, 0, OPT_KPULL}, {"k8s-node-selector", required_argument, 0, OPT_KNODE},
        {"k8s-toleration", required_argument, 0, OPT_KTOL}, {"slurm-log-dir", required_argument, 0, OPT_SLOG},
        {"until", required_argument, 0, CLI_OPT_UNTIL}, {"dry-run", no_argument, 0, CLI_OPT_DRY_RUN},
        {"floor", no_argument, 0, CLI_OPT_FLOOR}, {"floor-table", required_argument, 0, CLI_OPT_FLOOR_TABLE},
        {0, 0, 0, 0}
    };
    const char *extra[CLI_PLAN_SBATCH_EXTRA_MAX];
    const char *pulls[CLI_PLAN_K8S_LIST_MAX], *nodes[CLI_PLAN_K8S_LIST_MAX], *tols[CLI_PLAN_K8S_LIST_MAX];
    uint64_t u;
    char pvc[256];
    double d;
    cli_lock_opts lo;
    cli_lock_opts_init(&lo);
    tl_plan_opts po = {0};
    cli_plan_jobs jo = {0};
    const char *out = NULL;
    uint64_t batch = 1;
    int c, orc, json = 0;
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
        case OPT_JSON: json = 1; break;
        case OPT_STIME:
            if (cli_parse_duration(optarg, &d) || d < 60 || d > 3650.0 * 86400)
                return cli_usage_error(argv[0], "--slurm-time: want 1m .. 3650d, e.g. 36h, 2d");
            jo.slurm_time = (uint64_t)ceil(d);
            break;
        case OPT_TRATE:
            if (cli_parse_double(optarg, 1e-3, 1e15, &d)) return cli_usage_error(argv[0], "--task-rate: want a positive number of hashes/s");
            jo.task_rate_mhps = (uint64_t)llround(d * 1000.0);
            break;
        case OPT_SPART: jo.slurm_partition = optarg; break;
        case OPT_SACCT: jo.slurm_account = optarg; break;
        case OPT_SLOG: jo.slurm_log_dir = optarg; break;
        case OPT_SBATCH:
            if (jo.n_sbatch_extra >= CLI_PLAN_SBATCH_EXTRA_MAX)
                return cli_usage_error(argv[0], "--sbatch: at most %u lines", CLI_PLAN_SBATCH_EXTRA_MAX);
            extra[jo.n_sbatch_extra++] = optarg;
            jo.sbatch_extra = extra;
            break;
        case OPT_NODEWK: jo.node_worker_key = optarg; break;
        case OPT_IMAGE: jo.image = optarg; break;
        case OPT_PVC: {
            if (strlen(optarg) >= sizeof pvc) return cli_usage_error(argv[0], "--pvc: too long");
            strcpy(pvc, optarg);
            char *colon = strchr(pvc, ':');
            if (colon) { *colon = 0; jo.pvc_subpath = optarg + (colon - pvc) + 1; }
            jo.pvc = pvc;
            break;
        }
        case OPT_NS: jo.k8s_namespace = optarg; break;
        case OPT_KPAR:
            if (cli_parse_u64(optarg, 1, 1000000, &u)) return cli_usage_error(argv[0], "--k8s-parallelism: want 1..1000000 pods");
            jo.k8s_parallelism = (uint32_t)u;
            break;
        case OPT_KDEAD: case OPT_KTTL:
            if (cli_parse_duration(optarg, &d) || d < 1 || d > 3650.0 * 86400)
                return cli_usage_error(argv[0], "%s: want a duration with its unit, 1s .. 3650d (e.g. 36h, 2d)",
                                       c == OPT_KDEAD ? "--k8s-deadline" : "--k8s-ttl");
            *(c == OPT_KDEAD ? &jo.k8s_deadline : &jo.k8s_ttl) = (uint64_t)ceil(d);
            break;
        case OPT_KPRIO: jo.k8s_priority_class = optarg; break;
        case OPT_KPULL: case OPT_KNODE: case OPT_KTOL: {
            const char **list = c == OPT_KPULL ? pulls : c == OPT_KNODE ? nodes : tols;
            uint32_t *n = c == OPT_KPULL ? &jo.n_k8s_pull_secret : c == OPT_KNODE ? &jo.n_k8s_node_selector
                                                                                    : &jo.n_k8s_toleration;
            if (*n >= CLI_PLAN_K8S_LIST_MAX)
                return cli_usage_error(argv[0], "%s: at most %u", argv[optind - 1], CLI_PLAN_K8S_LIST_MAX);
            list[(*n)++] = optarg;
            break;
        }
        case OPT_KUSER:
            if (parse_ids(optarg, &jo.k8s_uid, &jo.k8s_gid)) return cli_usage_error(argv[0], "--k8s-user: want UID or UID:GID (non-zero)");
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
    /* the tasks run full mode unless --mode light (the cluster
     * nodes, not this machine, must hold the dataset; `group` falls back
     * to light with a warning on a node where it does not fit) */
    if (lo.mode_req < 0) lo.mode_req = TL_MODE_FULL;
    if ((orc = cli_lock_resolve(&lo, argv[0])) != 0) return orc;
    cli_lock_pq_default(&lo, 0);         /* --pq for a post-quantum epoch */
    if (!lo.go.workers) lo.go.workers = lo.p.groups;   /* the estimate: every group a task at once */
    if (lo.dry_run) return cli_lock_dry_run(&lo, "plan: every group a task on its own node");
    const cli_path files[] = {
        { lo.calib, "--calibration", CLI_PATH_IN }, { po.planner_key, "--planner-key", CLI_PATH_OUT },
        { po.worker_key, "--worker-key", CLI_PATH_OUT }
    };
    if (cli_paths_check(files, sizeof files / sizeof files[0], po.force)) {
        char pj[PATH_MAX];
        struct stat st;
        if (!po.force && snprintf(pj, sizeof pj, "%s/plan.json", out) < (int)sizeof pj && stat(pj, &st) != 0)
            fprintf(stderr, "rxlock: %s has no plan.json: if the key files are from a `plan -o %s` that was stopped "
                    "before it finished, run the same command with --force (nothing of it was handed out); if they "
                    "belong to another plan, give other key paths (replacing them loses that plan)\n", out, out);
        return CLI_FAIL;
    }
    po.batch = (uint32_t)batch;
    po.mode = lo.go.mode;
    po.verify = lo.go.verify;            /* DEFAULT = full on a cluster */
    po.verify_fraction = lo.go.verify_fraction;
    po.checkpoint_steps = lo.go.checkpoint_steps;
    jo.k8s_pull_secret = pulls;
    jo.k8s_node_selector = nodes;
    jo.k8s_toleration = tols;
    char err[512];
    if (cli_plan_jobs_check(&jo, err, sizeof err)) return cli_usage_error(argv[0], "%s", err);
    jo.time_limit = cli_plan_jobs_time_limit(&jo, &lo.p, po.mode);
    po.job_files = cli_plan_jobs_write;
    po.job_files_ctx = &jo;
    static tl_plan_summary sum;
    int rc = tl_plan_create(&lo.p, &po, out, &sum, err, sizeof err);
    if (rc) {
        if (jo.wrote) cli_plan_jobs_remove(out);
        return cli_error("plan failed: %s", err[0] ? err : rxlock_strerror(rc));
    }
    if (!json) cli_lock_estimate(&lo, stderr);   /* before the cluster's work */
    if (!json) printf("%s\n", sum.recipient);
    uint32_t tasks = sum.tasks;
    uint64_t tl = jo.time_limit;
    const char *wkbase = strrchr(po.worker_key, '/') ? strrchr(po.worker_key, '/') + 1 : po.worker_key;
    char tlim[128] = "none (no rate: give --slurm-time or --task-rate)";
    if (tl) snprintf(tlim, sizeof tlim, "%llu-%02u:%02u:%02u%s", (unsigned long long)(tl / 86400),
                     (unsigned)(tl / 3600 % 24), (unsigned)(tl / 60 % 60), (unsigned)(tl % 60),
                     jo.slurm_time ? " (--slurm-time)"
                     : jo.task_rate_mhps ? " (2 x the work at --task-rate + setup; --slurm-time sets it)"
                     : " (2 x the work at the plan's rate + setup; --slurm-time, --task-rate)");
    int ver = po.verify != TL_VERIFY_NONE;
    char vline[160] = "none (--no-verify: the puzzle will say UNVERIFIED)";
    if (ver) snprintf(vline, sizeof vline, "%s: a second array of %u task%s recomputes %s",
                      po.verify == TL_VERIFY_SAMPLE ? "sampled" : "full", tasks, tasks == 1 ? "" : "s",
                      po.verify == TL_VERIFY_SAMPLE ? "a share of the chain segments" : "every chain segment (2x the CPU)");
    fprintf(stderr,
            "rxlock: planned %u groups x %llu %s steps in %s (%u task%s of %u group%s)\n"
            "  verification: %s\n"
            "  Slurm:      %s%s%s\n"
            "              time limit %s\n"
            "              the worker key at %s%s on the nodes first\n"
            "  Kubernetes: see the steps at the top of %s/k8s-job.yaml%s\n"
            "  then:       rxlock assemble %s --planner-key %s -o puzzle.json\n",
            lo.p.groups, (unsigned long long)lo.p.steps, tl_work_name(lo.p.work), out, tasks, tasks == 1 ? "" : "s",
            po.batch, po.batch == 1 ? "" : "s", vline, ver ? "sh " : "cd ", out,
            ver ? "/slurm-submit.sh" : " && sbatch slurm.sbatch", tlim,
            jo.node_worker_key ? jo.node_worker_key : "~/.rxlock/", jo.node_worker_key ? "" : wkbase,
            out, ver ? "; then sh k8s-submit.sh there applies both Jobs" : "", out, po.planner_key);
    if (json) {
        static const char *const vn[] = { "full", "none", "sample", "full" };
        return cli_print_json(json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:i, s:i, s:s, s:I, s:o}",
                                        "event", "done", "command", "plan", "plan", out, "plan_id", sum.id,
                                        "recipient", sum.recipient, "epoch_key", lo.p.pq ? "post-quantum" : "classic",
                                        "work", tl_work_name(sum.work), "mode", sum.mode == TL_MODE_FULL ? "full" : "light",
                                        "groups", (int)sum.groups, "steps", (json_int_t)sum.steps,
                                        "batch", (int)sum.batch, "tasks", (int)sum.tasks,
                                        "verification", vn[sum.verify], "checkpoint_steps", (json_int_t)sum.ckpt_steps,
                                        "time_limit_seconds", tl ? json_integer((json_int_t)tl) : json_null()));
    }
    return CLI_OK;
}
