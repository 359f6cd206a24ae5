/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/beacon.c — `rxlock beacon`: shared epochs.  The usage text,
 * the dispatch to init / run / solve / status, and `beacon init DIR` (the
 * schedule: period, opening time, epochs ahead, the work options of
 * `lock`, epoch kinds, signer; what sealing covers).  run: run.c,
 * solve: solve.c, status: status.c. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/lock_opts.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_beacon_usage[] =
    "usage: rxlock beacon init DIR --every D --opens-after T [--ahead N] [--start WHEN]\n"
    "                   [--pq | --classic | --both] [--sign-key FILE] [the work, rate, mode,\n"
    "                   workers and verification options of `rxlock lock`] [--gen-rate H/s]\n"
    "                   [--cluster slurm|k8s]\n"
    "       rxlock beacon run DIR [--once] [--gen-rate H/s] [--plan-only] [--metrics FILE]\n"
    "       rxlock beacon run DIR --cluster slurm|k8s [--once] [--retries N] [--poll D]\n"
    "                   [--in-flight N] [--cmd-timeout D] [--metrics FILE] [--sbatch OPT]...\n"
    "                   [--image IMG] [--pvc CLAIM] [--namespace NS]\n"
    "       rxlock beacon solve DIR|URL --ids OUTDIR [--signer-pin HEX] [--mode light|full]\n"
    "                   [--parallel N] [--follow [--poll D] [--accept-signer HEX]] [--archive] [-q]\n"
    "       rxlock beacon status DIR|URL [--json] [--signer-pin HEX]\n"
    "\n"
    "Shared epochs: a beacon generates a time-lock epoch every period, ahead of time,\n"
    "for everyone, and keeps each puzzle private until its release time; anyone\n"
    "encrypts to an epoch for free (`rxlock encrypt --feed DIR|URL --open-after DATE`,\n"
    "or `age -r` with the feed's recipient) and anyone can solve released epochs.\n"
    "Each generated epoch is also published at once SEALED: its puzzle encrypted to\n"
    "an earlier epoch's recipient whose opening at the floor rate is no earlier than\n"
    "its release, so releases go on from a copy of public/ should the operator go.\n"
    "DIR/public/ is what a static server serves (feed.json, puzzles/, sealed/,\n"
    "identities/, the web page); DIR/private/ (0700) holds the signer key and the\n"
    "unreleased puzzles.  docs/FORMAT.md §Beacon feed fixes the files.\n"
    "\n"
    "init:\n"
    "  --every D            a new epoch every D (90s, 1h, 7d)\n"
    "  --opens-after T      each epoch's puzzle needs T from its release: as `lock --time`\n"
    "                       (hashing + setup at --rate / --calibration, or the fastest\n"
    "                       known CPU's hashing with --floor); or --groups G --steps S\n"
    "  --ahead N            epochs kept generated in advance (default 4, 1..1024)\n"
    "  --start WHEN         release of epoch 0: @UNIX, YYYY-MM-DD[THH:MM[:SS]Z] (UTC) or\n"
    "                       +DURATION (default: one period from now)\n"
    "  --pq | --classic | --both  epoch keys: post-quantum (age1pq1), X25519 (age1,\n"
    "                       default; age 1.1 reads it) or both per slot (twice the work)\n"
    "  --sign-key FILE      the feed's and the puzzles' signer (`rxlock keygen-signer`),\n"
    "                       copied into DIR/private/; default: a new one\n"
    "  --work, --groups, --steps, --rate, --calibration, --floor, --floor-table, --mode,\n"
    "  --workers, --verify, --no-verify, --checkpoint-steps: as `rxlock lock`; without\n"
    "                       --groups, groups that fill this machine's workers x SIMD lanes\n"
    "  --gen-rate H/s       this machine's generation throughput (all workers, lanes\n"
    "                       included) for the keep-up check (default: measured)\n"
    "  --cluster slurm|k8s  generation runs on a cluster: no keep-up check here\n"
    "  Refuses, before writing anything, a schedule `beacon run` would refuse.\n"
    "run: generate ahead (resumable, verified: a kill -9 loses at most a checkpoint),\n"
    "  seal each new epoch, release each puzzle at its time, keep public/feed.json\n"
    "  signed and current; one log line per event on stderr (a wall-clock change:\n"
    "  one line, how far and, forward, how many epochs passed ungenerated); sleeps\n"
    "  on the monotonic clock, releases by the wall clock as it reads now;\n"
    "  SIGTERM stops cleanly.\n"
    "  Refuses a schedule this machine cannot keep up with (generation throughput\n"
    "  measured as generation runs: all workers, SIMD lanes, the median of windows),\n"
    "  naming the flags that fix it.\n"
    "  --once               one pass (generate what is due, release, publish), then exit\n"
    "  --gen-rate H/s       this machine's generation throughput, all workers (default:\n"
    "                       the median pace of the last 16 epoch keys generated here,\n"
    "                       kept in DIR/private/gen-pace, once there are 3; else\n"
    "                       measured for 0.6 s, 3 s more when the verdict is close)\n"
    "  --plan-only          one pass that generates nothing here: writes a cluster plan\n"
    "                       (`rxlock plan`) per missing epoch in DIR/plans/STEM (keys in\n"
    "                       DIR/private/plans/) and logs the `rxlock assemble` command that\n"
    "                       puts its puzzle in DIR/private/puzzles/; then seals, releases and\n"
    "                       publishes what is there (run it again after each assembly)\n"
    "  --metrics FILE       write Prometheus text (node_exporter's textfile collector)\n"
    "                       after each step, atomically\n"
    "  --cluster slurm|k8s  make every epoch on a cluster: plan, submit (sbatch; kubectl\n"
    "                       apply), follow, assemble with the keys in private/, seal,\n"
    "                       publish; a kill -9 is resumed without submitting twice\n"
    "  --retries N          submissions again after tasks went missing or a plan failed\n"
    "                       (default 3), then the epoch is given up and reported; a\n"
    "                       refused submission is tried again at every poll, not counted\n"
    "  --poll D             look at the cluster every D (default 30s)\n"
    "  --in-flight N        epoch keys on the cluster at once (default: 1, then as\n"
    "                       many as the measured pace needs, up to the window)\n"
    "  --cmd-timeout D      a scheduler command's limit (default 2m)\n"
    "  --sbatch OPT         an #SBATCH line for the job files (repeatable)\n"
    "  --image IMG, --pvc CLAIM, --namespace NS  Kubernetes: as `rxlock plan`\n"
    "                       (DIR/plans is the claim's root)\n"
    "solve: solve the feed's released epochs oldest first (journalled, resumable),\n"
    "  unsealing epochs the operator has not released with their sealing epoch's\n"
    "  identity; writes OUTDIR/STEM.txt (docs/FORMAT.md); on the beacon's own DIR it\n"
    "  also publishes public/identities/ and the feed.  An identity the feed already\n"
    "  publishes is taken once it opens the epoch's recipient (never solved again);\n"
    "  a bad file is reported and skipped, the others solved (exit 1 after).\n"
    "  --parallel N         up to N solves at once, the next started as one ends (default 1)\n"
    "  --follow             keep going: read the feed again when a solve ends and at each\n"
    "                       release time (or --poll D, default 5m); after a release time\n"
    "                       the feed does not have out yet, again 1 s later, then every few\n"
    "                       seconds for 5 minutes; says when it cannot keep up with the\n"
    "                       period; SIGINT / SIGTERM ends it (exit 0)\n"
    "  --archive            first the epochs of the feed's archive pages, oldest first\n"
    "  --accept-signer HEX  --follow keeps the first signer (or the pin) and refuses\n"
    "                       another, and any feed older than the last (kept instead);\n"
    "                       this accepts a rotation to the key HEX\n"
    "status: the schedule and each epoch's state, dates and countdowns; --json: the\n"
    "  checked feed as one JSON line.  On the beacon's own DIR also the service's\n"
    "  record (the epoch being made, its ETA against its release, the keep-up margin,\n"
    "  cluster jobs, failures, the last error; --json: a second line).\n"
    "  --signer-pin HEX     refuse a feed not signed by this Ed25519 key (64 hex)\n"
    "URLs (http, https; TLS verified) need a build with libcurl (not the static one).\n"
    "exit: 0 ok, 1 failure, 2 usage error, 3 feed signature / pin refused\n";

#define OPT_EVERY   0x200
#define OPT_OPENS   0x201
#define OPT_AHEAD   0x202
#define OPT_START   0x203
#define OPT_BOTH    0x204
#define OPT_GENRATE 0x205
#define OPT_CLUSTER 0x206

/* DIR's directories.  One that is there already (an init stopped before
 * beacon.json) is kept when it is a directory of ours, not a link, and a
 * private one is closed to others.  CLI_OK or CLI_FAIL (message). */
static int mkdirs(const char *dir) {
    static const struct { const char *rel; mode_t mode; } dirs[] = {
        { "", 0755 }, { "/private", 0700 }, { "/private/puzzles", 0700 }, { "/private/state", 0700 },
        { "/public", 0755 }, { "/public/puzzles", 0755 }, { "/public/sealed", 0755 }, { "/public/identities", 0755 }
    };
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        char p[PATH_MAX];
        struct stat st;
        snprintf(p, sizeof p, "%s%s", dir, dirs[k].rel);
        if (mkdir(p, dirs[k].mode) == 0) continue;
        if (errno != EEXIST) return cli_error("%s: %s", p, strerror(errno));
        if (k == 0) continue;
        if (lstat(p, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
            ((dirs[k].mode & 077) == 0 && (st.st_mode & 077) != 0))
            return cli_error("%s: exists and is not a directory an earlier `beacon init` of this DIR made (a link, "
                             "another owner, or open to others): give a new DIR", p);
    }
    return CLI_OK;
}

/* An init stopped before beacon.json may have saved DIR/private/signer.key
 * (never published: nothing signed with it is out).  1 and sk / pk when it
 * is there and usable (the same key as --sign-key, when given), 0 when it
 * is not there, or -1 after a message. */
static int stopped_init_signer(const char *path, int given, uint8_t *sk, uint8_t pk[32]) {
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT) return 0;
    uint8_t *had = sodium_malloc(64), hpk[32];
    int rc = had && tl_signer_load(path, had, hpk) == TL_OK ? 1 : -1;
    if (rc == 1 && given && memcmp(hpk, pk, 32) != 0) rc = -2;
    if (rc == 1 && !given) { memcpy(sk, had, 64); memcpy(pk, hpk, 32); }
    if (had) sodium_free(had);
    if (rc == -2) cli_error("%s: holds another key than --sign-key (left by an init that was stopped): give a new "
                            "DIR, or remove this one", path);
    else if (rc < 0) cli_error("%s: not a usable signer key (left by an init that was stopped?): give a new DIR, or "
                               "remove this one", path);
    return rc < 0 ? -1 : 1;
}

static int beacon_init(int argc, char **argv) {
    static const struct option opts[] = {
        CLI_LOCK_LONG_OPTS, {"every", required_argument, 0, OPT_EVERY}, {"opens-after", required_argument, 0, OPT_OPENS},
        {"ahead", required_argument, 0, OPT_AHEAD}, {"start", required_argument, 0, OPT_START},
        {"both", no_argument, 0, OPT_BOTH}, {"gen-rate", required_argument, 0, OPT_GENRATE},
        {"cluster", required_argument, 0, OPT_CLUSTER}, {0, 0, 0, 0}
    };
    double gen_rate = 0;
    const char *cluster = NULL;
    cli_lock_opts lo;
    cli_lock_opts_init(&lo);
    double every = 0;
    uint64_t ahead = 4;
    const char *start_s = NULL;
    int both = 0, c, orc;
    int64_t now = tl_beacon_now();
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        if (c == OPT_OPENS) c = 't';
        if ((orc = cli_lock_opt(&lo, c, optarg, "beacon init")) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case OPT_EVERY:
            if ((orc = cli_parse_span_opt("beacon init", "--every", optarg, 1, (double)TL_BEACON_MAX_PERIOD, &every))) return orc;
            break;
        case OPT_AHEAD:
            if (cli_parse_u64(optarg, 1, TL_BEACON_MAX_AHEAD, &ahead)) return cli_usage_error("beacon init", "--ahead: want 1..%u", TL_BEACON_MAX_AHEAD);
            break;
        case OPT_START: start_s = optarg; break;
        case OPT_BOTH: both = 1; break;
        case OPT_GENRATE:
            if (cli_parse_double(optarg, 1e-3, 1e15, &gen_rate)) return cli_usage_error("beacon init", "--gen-rate: want hashes/s");
            break;
        case OPT_CLUSTER:
            if (strcmp(optarg, "slurm") && strcmp(optarg, "k8s")) return cli_usage_error("beacon init", "--cluster: want slurm or k8s");
            cluster = optarg;
            break;
        case ':': return cli_usage_error("beacon init", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option("beacon init", optopt, argv[optind - 1]);
        }
    }
    if (optind + 1 != argc) return cli_usage_error("beacon init", "want one DIR");
    const char *dir = argv[optind];
    if (!(every >= 1)) return cli_usage_error("beacon init", "missing --every D");
    if (both && lo.pq >= 0) return cli_usage_error("beacon init", "give one of --pq, --classic, --both");
    if (every != floor(every)) return cli_usage_error("beacon init", "--every: want whole seconds");
    int groups_given = lo.groups != 0;
    if ((orc = cli_lock_resolve(&lo, "beacon init")) != 0) return orc;
    if (!groups_given && !cluster) {   /* groups that fill this machine's workers x SIMD lanes */
        uint64_t fill = bcn_fill_groups(lo.p.work, lo.go.workers), total = lo.p.groups * lo.p.steps;
        if (fill > lo.p.groups && total >= fill) {
            lo.p.groups = (uint32_t)fill;
            lo.p.steps = (total + fill - 1) / fill;
        }
    }
    tl_beacon_config cfg;
    memset(&cfg, 0, sizeof cfg);
    tl_beacon_sched *s = &cfg.s;
    const tl_floor_row *row = tl_floor_fastest(&lo.ft, lo.p.work);
    if (!row) return cli_error("the %s has no fastest known CPU for %s: give --floor-table FILE", lo.ft.origin, tl_work_name(lo.p.work));
    s->work = lo.p.work;
    s->groups = lo.p.groups;
    s->steps = lo.p.steps;
    s->every = (uint64_t)every;
    s->opens_after = lo.duration > 0 ? (uint64_t)llround(lo.duration) : 0;
    s->ahead = (uint32_t)ahead;
    s->kinds = both ? (TL_BEACON_CLASSIC | TL_BEACON_PQ) : lo.pq == 1 ? TL_BEACON_PQ : TL_BEACON_CLASSIC;
    s->floor_mhps = tl_beacon_table_mhps(&lo.ft, lo.p.work);   /* the row in mH/s, rounded up, as every client reads it */
    snprintf(s->floor_row, sizeof s->floor_row, "%s", row->machine);
    for (char *q = s->floor_row; *q; q++)
        if (*q == '"' || *q == '\\') *q = '\'';
    s->assumed_mhps = lo.p.rate_milli_hps;
    s->setup_ms = lo.p.setup_ms;
    if (!start_s) s->start = now + (int64_t)s->every;
    else if (bcn_parse_when(start_s, now, &s->start) != 0)
        return cli_usage_error("beacon init", "--start '%s': want @UNIX, YYYY-MM-DD[THH:MM[:SS]Z] or +DURATION", start_s);
    cfg.mode = lo.mode_req < 0 ? TL_MODE_DEFAULT : lo.mode_req;
    snprintf(cfg.rate_source, sizeof cfg.rate_source, "%s", lo.p.rate_source);
    cfg.workers = lo.go.workers;
    cfg.verify = lo.go.verify == TL_VERIFY_DEFAULT ? TL_VERIFY_SAMPLE : lo.go.verify;
    cfg.verify_permille = cfg.verify == TL_VERIFY_SAMPLE
                              ? (uint32_t)llround((lo.go.verify_fraction > 0 ? lo.go.verify_fraction : 0.25) * 1000) : 0;
    if (cfg.verify == TL_VERIFY_SAMPLE && cfg.verify_permille < 1) cfg.verify_permille = 1;
    cfg.checkpoint_steps = lo.go.checkpoint_steps;
    /* the signer: the given key, or a new one */
    uint8_t *sk = sodium_malloc(64);
    if (!sk) return cli_error("out of memory");
    int rc = lo.sign_key ? tl_signer_load(lo.sign_key, sk, s->signer) : tl_signer_keygen(s->signer, sk);
    if (rc) { sodium_free(sk); return cli_error("%s: cannot load the signing key: %s", lo.sign_key ? lo.sign_key : "new key", rxlock_strerror(rc)); }
    char err[256], p[PATH_MAX];
    if (tl_beacon_sched_check(s, err, sizeof err) != TL_OK) { sodium_free(sk); return cli_error("schedule: %s", err); }
    bcn_keepup ku;
    if (cluster)   /* the cluster's throughput is measured by `beacon run --cluster` from the epochs it makes */
        fprintf(stderr, "rxlock: keep-up: not checked here: generation runs on a cluster (`beacon run %s --cluster %s`)\n",
                dir, cluster);
    else {         /* refuse now what `beacon run` would refuse, before anything is written */
        if ((rc = bcn_keepup_check(&cfg, cli_mode_pick(s->work, cfg.mode), gen_rate, NULL, 1, NULL, &ku)) != CLI_OK) {
            sodium_free(sk);
            return rc;
        }
    }
    char *text = NULL;
    size_t len = 0;
    snprintf(p, sizeof p, "%s/beacon.json", dir);
    struct stat st;
    if (stat(p, &st) == 0) { sodium_free(sk); return cli_error("%s: exists: DIR already holds a beacon", p); }
    rc = mkdirs(dir);
    if (rc == CLI_OK) {   /* the signer key saved, or kept from an init that was stopped before beacon.json */
        snprintf(p, sizeof p, "%s/private/signer.key", dir);
        int had = stopped_init_signer(p, lo.sign_key != NULL, sk, s->signer);
        if (had < 0) rc = CLI_FAIL;
        else if (had == 1) fprintf(stderr, "rxlock: %s: kept from an init of %s that was stopped\n", p, dir);
        else if (tl_signer_save(p, sk, 0) != TL_OK) rc = cli_error("%s: %s", p, strerror(errno));
    }
    sodium_free(sk);
    if (rc == CLI_OK && tl_beacon_config_write(&cfg, &text, &len) != TL_OK) rc = cli_error("cannot write beacon.json");
    snprintf(p, sizeof p, "%s/beacon.json", dir);
    if (rc == CLI_OK && util_write_file_atomic(p, text, len, 0, 0644) != 0) rc = cli_error("%s: %s", p, strerror(errno));
    free(text);
    if (rc) return rc;
    char hex[65], when[48], fs[32], as[32], ev[32];
    util_hex_encode(hex, s->signer, 32);
    bcn_time(when, sizeof when, s->start);
    util_format_duration(fs, sizeof fs, (double)tl_beacon_floor_seconds(s));
    util_format_duration(as, sizeof as, (double)tl_beacon_about_seconds(s));
    util_format_duration(ev, sizeof ev, (double)s->every);
    printf("%s\n", hex);
    fprintf(stderr, "rxlock: beacon %s: an epoch every %s from %s, %u x %llu %s hashes each (%s keys), %u ahead\n",
            dir, ev, when, s->groups, (unsigned long long)s->steps, tl_work_name(s->work),
            both ? "classic + post-quantum" : s->kinds == TL_BEACON_PQ ? "post-quantum" : "classic", s->ahead);
    fprintf(stderr, "rxlock: each opens no sooner than %s after its release on the fastest known CPU (%s), about %s\n",
            fs, s->floor_row, as);
    bcn_say_sealing(s, cluster ? NULL : &ku);
    fprintf(stderr, "rxlock: signer (pin it: --signer-pin): %s\nrxlock: next: rxlock beacon run %s\n", hex, dir);
    return CLI_OK;
}

int cmd_beacon(int argc, char **argv) {
    if (argc < 2) return cli_usage_error("beacon", "want init, run, solve or status");
    const char *sub = argv[1];
    if (!strcmp(sub, "init")) return beacon_init(argc - 1, argv + 1);
    if (!strcmp(sub, "run")) return bcn_cmd_run(argc - 1, argv + 1);
    if (!strcmp(sub, "solve")) return bcn_cmd_solve(argc - 1, argv + 1);
    if (!strcmp(sub, "status")) return bcn_cmd_status(argc - 1, argv + 1);
    return cli_usage_error("beacon", "unknown subcommand '%s' (init, run, solve, status)", sub);
}
