/* src/cli/cmd_lock.c — `rxlock lock`: generate a time-lock puzzle in worker
 * processes and print its epoch recipient; with a positional FILE argument
 * hand over to the single-file mode (cmd_lockfile.c). */
#include "cli/cli.h"
#include "cli/lock_opts.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "util/progress.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int cmd_lock_file(int argc, char **argv);

const char cmd_lock_usage[] =
    "usage: rxlock lock [--work randomx-v2|randomx-v1|sha3-256]\n"
    "                   (--groups G --steps S | --time DURATION [--groups G])\n"
    "                   [--rate H/s | --calibration FILE] [--mode light|full]\n"
    "                   [--workers N] [--sign-key FILE] [--keep-epoch-key FILE]\n"
    "                   [--retries N] [--worker-timeout SECONDS] [--json] [--force] -o PUZZLE\n"
    "       rxlock lock FILE ...        single-file mode (FILE -> FILE.rxlock)\n"
    "\n"
    "Generate a time-lock puzzle: G groups of S sequential hashes each, computed\n"
    "here in parallel worker processes, then solved by anyone only in sequence\n"
    "(G*S hashes).  Prints the epoch recipient (age1...): encrypt to it with\n"
    "`age -r` or `rxlock encrypt`; `rxlock solve` recovers the identity.\n"
    "\n"
    "  --work W             work function (default randomx-v2)\n"
    "  --groups G           groups (1..4096; with --time default = workers)\n"
    "  --steps S            steps per group (1..2^40; G*S <= 2^48)\n"
    "  --time DURATION      wall-clock target for one solver, e.g. 90s, 30m, 12h, 7d, 2w, 1y;\n"
    "                       G*S = DURATION x rate (needs --rate or --calibration)\n"
    "  --rate H/s           assumed sequential solver rate (recorded in the puzzle)\n"
    "  --calibration FILE   take the rate from `rxlock calibrate -o FILE` (work must match)\n"
    "  --mode light|full    RandomX mode for generation (default light; full = 2080 MiB, faster)\n"
    "  --workers N          concurrent worker processes (default: online cores)\n"
    "  --sign-key FILE      sign the puzzle header (key from `rxlock keygen-signer`)\n"
    "  --keep-epoch-key FILE  also write the epoch identity now (for a service that encrypts\n"
    "                       during the epoch); otherwise it is wiped\n"
    "  --retries N          re-run a failed worker's group up to N times (default 1)\n"
    "  --worker-timeout S   a worker silent for S seconds is killed (default 120)\n"
    "  --json               progress and result as JSON lines on stdout\n"
    "  --force              overwrite existing output files\n"
    "  -o PUZZLE            output puzzle file (never overwritten without --force)\n"
    "exit: 0 ok, 1 failure (nothing written), 2 usage error\n";

static volatile int lock_stop;
static void on_signal(int sig) { (void)sig; lock_stop = 1; }

typedef struct { int json; util_progress bar; } lock_ui;

static int on_progress(const tl_progress *p, void *ctx) {
    lock_ui *ui = ctx;
    if (ui->json) {
        printf("{\"event\":\"progress\",\"hashes_done\":%llu,\"hashes_total\":%llu,\"rate\":%.1f,"
               "\"eta_seconds\":%.1f,\"groups_done\":%u,\"groups_total\":%u}\n",
               (unsigned long long)p->hashes_done, (unsigned long long)p->hashes_total,
               p->rate, p->eta_seconds, p->groups_done, p->groups_total);
        fflush(stdout);
    } else {
        util_progress_update(&ui->bar, p->hashes_done);
    }
    return lock_stop;
}

/* CPU seconds used by finished children (the worker processes). */
static double child_cpu(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static int out_exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

int cmd_lock(int argc, char **argv) {
    static const struct option opts[] = {
        CLI_LOCK_LONG_OPTS, {"keep-epoch-key", required_argument, 0, 'K'},
        {"retries", required_argument, 0, 'R'}, {"worker-timeout", required_argument, 0, 'T'},
        {"json", no_argument, 0, 'j'}, {"force", no_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'}, {0, 0, 0, 0}
    };
    /* Single-file mode: a positional FILE argument. */
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--")) { if (k + 1 < argc) return cmd_lock_file(argc, argv); break; }
        if (argv[k][0] != '-') {
            /* skip option values */
            const char *prev = argv[k - 1];
            int takes = 0;
            if (prev[0] == '-' && prev[1] == 'o' && !prev[2]) takes = 1;
            for (const struct option *o = opts; !takes && o->name; o++)
                if (prev[0] == '-' && prev[1] == '-' && !strcmp(prev + 2, o->name) && o->has_arg) takes = 1;
            if (!takes || k == 1) return cmd_lock_file(argc, argv);
        }
    }
    cli_lock_opts lo;
    cli_lock_opts_init(&lo);
    const char *out = NULL, *keep = NULL;
    uint64_t v;
    int json = 0, force = 0, c, orc;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        if ((orc = cli_lock_opt(&lo, c, optarg, argv[0])) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case 'K': keep = optarg; break;
        case 'R': if (cli_parse_u64(optarg, 0, 100, &v)) return cli_usage_error(argv[0], "--retries: want 0..100"); lo.go.retries = (unsigned)v; break;
        case 'T': if (cli_parse_u64(optarg, 1, 1u << 30, &v)) return cli_usage_error(argv[0], "--worker-timeout: want seconds >= 1"); lo.go.worker_timeout = (unsigned)v; break;
        case 'j': json = 1; break;
        case 'f': force = 1; break;
        case 'o': out = optarg; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(argv[0], "missing -o PUZZLE");
    if ((orc = cli_lock_resolve(&lo, argv[0])) != 0) return orc;
    tl_params p = lo.p;
    tl_gen_opts go = lo.go;
    if (!force && out_exists(out)) return cli_error("%s: already exists (use --force to overwrite)", out);
    if (keep && !force && out_exists(keep)) return cli_error("%s: already exists (use --force to overwrite)", keep);

    uint8_t sk[64], spk[32], pk[32], x[32];
    if (lo.sign_key) {
        int rc = tl_signer_load(lo.sign_key, sk, spk);
        if (rc) return cli_error("%s: cannot load signing key: %s", lo.sign_key, rc == TL_EIO ? strerror(errno) : tl_strerror(rc));
        p.sign_sk = sk;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    lock_ui ui = { .json = json };
    util_progress_init(&ui.bar, "lock", (uint64_t)p.groups * p.steps, 0, json ? UTIL_PROGRESS_NEVER : UTIL_PROGRESS_AUTO);
    go.progress = on_progress;
    go.progress_ctx = &ui;
    go.stop = &lock_stop;
    char *text = NULL;
    size_t len = 0;
    double t0 = util_now(), c0 = child_cpu();
    int rc = tl_generate(&p, &go, &text, &len, pk, keep ? x : NULL);
    double secs = util_now() - t0, cpu = child_cpu() - c0;
    sodium_memzero(sk, sizeof sk);
    if (rc == TL_ENOMEM && go.mode == TL_MODE_FULL)
        fprintf(stderr, "rxlock: not enough memory for full mode; try --mode light\n");
    if (rc) {
        util_progress_clear(&ui.bar);
        sodium_memzero(x, sizeof x);
        return cli_error("lock failed: %s; no puzzle written", lock_stop ? "interrupted" : tl_strerror(rc));
    }
    util_progress_done(&ui.bar);
    int ret = CLI_OK;
    if (util_write_file_atomic(out, text, len, force, 0644) != 0) {
        ret = cli_error("%s: %s", out, strerror(errno));
    } else if (keep) {
        char comment[96], idhex[33];
        tl_puzzle *pz = NULL;
        if (tl_puzzle_parse(text, len, &pz, NULL, 0) == 0) util_hex_encode(idhex, pz->id, 16);
        else strcpy(idhex, "?");
        tl_puzzle_free(pz);
        snprintf(comment, sizeof comment, "rxlock epoch identity for puzzle %s (kept at generation)", idhex);
        if (tl_age_identity_file_write(keep, x, comment, force) != 0)
            ret = cli_error("%s: cannot write the epoch identity: %s", keep, strerror(errno));
    }
    sodium_memzero(x, sizeof x);
    free(text);
    if (ret) return ret;
    char rcp[TL_AGE_RECIPIENT_MAX];
    if (tl_age_recipient_encode(pk, rcp) != 0) return cli_error("cannot encode the recipient");
    double total = (double)p.groups * (double)p.steps;
    if (json)
        printf("{\"event\":\"done\",\"puzzle\":\"%s\",\"recipient\":\"%s\",\"groups\":%u,\"steps\":%llu,"
               "\"seconds\":%.3f,\"rate\":%.1f,\"worker_cpu_seconds\":%.3f,\"rate_per_worker_cpu_second\":%.1f}\n",
               out, rcp, p.groups, (unsigned long long)p.steps, secs, secs > 0 ? total / secs : 0, cpu,
               cpu > 0 ? total / cpu : 0);
    else {
        printf("%s\n", rcp);
        if (isatty(2))
            fprintf(stderr, "rxlock: wrote %s (%u x %llu %s hashes in %.1f s, %.1f H/s total)\n", out, p.groups,
                    (unsigned long long)p.steps, tl_work_name(p.work), secs, secs > 0 ? total / secs : 0);
    }
    return CLI_OK;
}
