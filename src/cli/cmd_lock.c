/* src/cli/cmd_lock.c — `rxlock lock`: generate a time-lock puzzle in worker
 * processes and print its epoch recipient; with a positional FILE argument
 * hand over to the single-file mode (cmd_lockfile.c). */
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "cli/lock_opts.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "util/progress.h"
#include "util/util.h"
#include <getopt.h>
#include <jansson.h>
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
    "                   [--retries N] [--worker-timeout SECONDS] [--json] [--progress]\n"
    "                   [--force] -o PUZZLE\n"
    "       rxlock lock FILE|- [the size, rate, mode, workers and key options above]\n"
    "                   [-o OUT] [--force] [-q | --progress]\n"
    "\n"
    "Generate a time-lock puzzle: G groups of S sequential hashes each, computed\n"
    "here in parallel worker processes, then solved by anyone only in sequence\n"
    "(G*S hashes).  Prints the epoch recipient (age1...): encrypt to it with\n"
    "`age -r` or `rxlock encrypt`; `rxlock solve` recovers the identity.\n"
    "With --pq the epoch key is post-quantum: the recipient is age1pq1...\n"
    "(mlkem768x25519; age >= 1.3, typage and rxlock open it, age 1.1 does not).\n"
    "\n"
    "  --work W             work function (default randomx-v2)\n"
    "  --groups G           groups (1..4096; with --time default = workers)\n"
    "  --steps S            steps per group (1..2^40; G*S <= 2^48)\n"
    "  --time DURATION      wall-clock target for one solver, e.g. 90s, 30m, 12h, 7d, 2w, 1y;\n"
    "                       G*S = DURATION x rate (needs --rate or --calibration)\n"
    "  --rate H/s           assumed sequential solver rate (recorded in the puzzle)\n"
    "  --calibration FILE   take the rate from `rxlock calibrate -o FILE` (work must match)\n"
    "  --mode light|full    RandomX mode for generation (default light; full = 2080 MiB, faster)\n"
    "  --workers N          concurrent worker processes (default: usable CPUs)\n"
    "  --sign-key FILE      sign the puzzle header (key from `rxlock keygen-signer`)\n"
    "  --pq                 post-quantum epoch key (ML-KEM-768 + X25519 age recipient);\n"
    "                       default for `lock FILE`, not for puzzles\n"
    "  --classic            X25519 epoch key (default for puzzles)\n"
    "  --keep-epoch-key FILE  also write the epoch identity now (for a service that encrypts\n"
    "                       during the epoch); otherwise it is wiped\n"
    "  --retries N          re-run a failed worker's group up to N times (default 1)\n"
    "  --worker-timeout S   a worker silent for S seconds is killed (default 120)\n"
    "  --json               progress and result as JSON lines on stdout (a first\n"
    "                       {\"event\":\"start\"} line names the engine)\n"
    "  --progress           progress line on stderr even when it is not a TTY\n"
    "  --force              overwrite existing output files\n"
    "  -o PUZZLE            output puzzle file (never overwritten without --force)\n"
    "\n"
    "Single-file mode: FILE -> FILE.rxlock (or -o OUT), one file holding a notice,\n"
    "the puzzle and FILE encrypted (age) to its epoch recipient; `rxlock unlock`\n"
    "opens it.  '-' reads standard input (not a terminal) and writes the\n"
    "container to standard output unless -o OUT is given (not to a terminal).\n"
    "  -q, --quiet          no progress line, no summary\n"
    "  The container's epoch key is post-quantum unless --classic is given (only\n"
    "  rxlock opens a .rxlock file, so no interoperability is lost).\n"
    "exit: 0 ok, 1 failure (nothing written), 2 usage error\n";

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

static const struct option lock_opts[] = {
    CLI_LOCK_LONG_OPTS, {"keep-epoch-key", required_argument, 0, 'K'},
    {"retries", required_argument, 0, 'R'}, {"worker-timeout", required_argument, 0, 'T'},
    {"json", no_argument, 0, 'j'}, {"force", no_argument, 0, 'f'},
    {"output", required_argument, 0, 'o'}, {0, 0, 0, 0}
};

/* A positional FILE argument ('-' = stdin) selects the single-file mode. */
static int has_file_arg(int argc, char **argv) {
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--")) return k + 1 < argc;
        if (argv[k][0] == '-' && argv[k][1]) continue;
        const char *prev = argv[k - 1];   /* skip option values */
        int takes = k > 1 && prev[0] == '-' && prev[1] == 'o' && !prev[2];
        for (const struct option *o = lock_opts; k > 1 && !takes && o->name; o++)
            if (prev[0] == '-' && prev[1] == '-' && !strcmp(prev + 2, o->name) && o->has_arg) takes = 1;
        if (!takes) return 1;
    }
    return 0;
}

typedef struct {
    cli_lock_opts lo;
    const char *out, *keep;
    int json, force;
} lock_args;

static int parse_args(int argc, char **argv, lock_args *a) {
    uint64_t v;
    int c, orc;
    cli_lock_opts_init(&a->lo);
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", lock_opts, NULL)) != -1) {
        if ((orc = cli_lock_opt(&a->lo, c, optarg, argv[0])) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case 'K': a->keep = optarg; break;
        case 'R': if (cli_parse_u64(optarg, 0, 100, &v)) return cli_usage_error(argv[0], "--retries: want 0..100"); a->lo.go.retries = (unsigned)v; break;
        case 'T': if (cli_parse_u64(optarg, 1, 1u << 30, &v)) return cli_usage_error(argv[0], "--worker-timeout: want seconds >= 1"); a->lo.go.worker_timeout = (unsigned)v; break;
        case 'j': a->json = 1; break;
        case 'f': a->force = 1; break;
        case 'o': a->out = optarg; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!a->out) return cli_usage_error(argv[0], "missing -o PUZZLE");
    if ((orc = cli_lock_resolve(&a->lo, argv[0])) != 0) return orc;
    cli_lock_pq_default(&a->lo, 0);      /* epochs: classic unless --pq (age 1.1 opens them) */
    if (!a->force && out_exists(a->out)) return cli_error("%s: already exists (use --force to overwrite)", a->out);
    if (a->keep && !a->force && out_exists(a->keep)) return cli_error("%s: already exists (use --force to overwrite)", a->keep);
    return CLI_OK;
}

static int write_outputs(const lock_args *a, const char *text, size_t len, const uint8_t *x) {
    if (util_write_file_atomic(a->out, text, len, a->force, 0644) != 0) return cli_output_error(a->out);
    if (!a->keep) return CLI_OK;
    tl_puzzle *pz = NULL;
    if (tl_puzzle_parse(text, len, &pz, NULL, 0) != 0) return cli_error("generated puzzle does not parse");
    int rc = cli_write_identity(a->keep, x, pz, " (kept at generation)", a->force);
    tl_puzzle_free(pz);
    return rc;
}

static int report(const lock_args *a, const char *rcp, double secs, double cpu) {
    const tl_params *p = &a->lo.p;
    const tl_engine_info *e = &a->lo.engine;
    double total = (double)p->groups * (double)p->steps;
    if (a->json)
        return cli_print_json(json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:f, s:f, s:s*}", "event", "done",
                                        "puzzle", a->out, "recipient", rcp, "groups", (int)p->groups,
                                        "steps", (json_int_t)p->steps, "seconds", secs,
                                        "rate", secs > 0 ? total / secs : 0.0, "worker_cpu_seconds", cpu,
                                        "rate_per_worker_cpu_second", cpu > 0 ? total / cpu : 0.0,
                                        "engine", e->engine));
    printf("%s\n", rcp);
    if (isatty(2)) {
        char eng[64];
        cli_engine_text(e, eng, sizeof eng);
        fprintf(stderr, "rxlock: wrote %s (%u x %llu %s hashes in %.1f s, %.1f H/s total; %s)\n", a->out, p->groups,
                (unsigned long long)p->steps, tl_work_name(p->work), secs, secs > 0 ? total / secs : 0, eng);
    }
    return fflush(stdout) == 0 ? CLI_OK : cli_error("stdout: write failed");
}

int cmd_lock(int argc, char **argv) {
    if (has_file_arg(argc, argv)) return cmd_lock_file(argc, argv);
    lock_args a = {0};
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    uint8_t pk[32], x[32];
    char *text = NULL;
    size_t len = 0;
    double t0 = util_now(), c0 = child_cpu();
    rc = cli_lock_generate(&a.lo, "lock", cli_progress_when(0, a.json, a.lo.progress), a.json,
                           &text, &len, pk, a.keep ? x : NULL);
    double secs = util_now() - t0, cpu = child_cpu() - c0;
    if (rc == CLI_OK) rc = write_outputs(&a, text, len, x);
    sodium_memzero(x, sizeof x);
    static char rcp[TL_AGE_PQ_RECIPIENT_MAX];
    tl_puzzle *pz = NULL;
    if (rc == CLI_OK) {
        if (tl_puzzle_parse(text, len, &pz, NULL, 0) != 0) rc = cli_error("generated puzzle does not parse");
        else rc = cli_epoch_recipient(pz, rcp);
        tl_puzzle_free(pz);
    }
    free(text);
    if (rc) return rc;
    return report(&a, rcp, secs, cpu);
}
