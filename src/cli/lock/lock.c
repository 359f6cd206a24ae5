/* SPDX-License-Identifier: ISC */
/* src/cli/lock/lock.c — `rxlock lock`: generate a time-lock puzzle in worker
 * processes and print its epoch recipient; with a positional FILE argument
 * hand over to the single-file mode (lockfile.c). */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "cli/lock/lock_cli.h"
#include "cli/lock_opts.h"
#include "cli/lock/state.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/calibrate.h"
#include <limits.h>
#include "cli/progress.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_lock_usage[] =
    "usage: rxlock lock [--work randomx-v2|randomx-v1|sha3-256]\n"
    "                   (--groups G --steps S | (--time DURATION | --until DATE) [--groups G])\n"
    "                   [--rate H/s | --calibration FILE] [--floor [--floor-table FILE]]\n"
    "                   [--mode light|full] [--workers N] [--sign-key FILE] [--keep-epoch-key FILE]\n"
    "                   [--retries N] [--worker-timeout SECONDS] [-q | --json | --progress]\n"
    "                   [--verify[=full|sample:F] | --no-verify] [--checkpoint-steps C]\n"
    "                   [--no-resume] [--force] [--dry-run] -o, --output PUZZLE|-\n"
    "       rxlock lock FILE|- [the size, rate, mode, workers, key and verification\n"
    "                   options above] [-o, --output OUT|-] [--no-resume] [--force]\n"
    "                   [--dry-run] [-q | --json | --progress]\n"
    "\n"
    "Generate a time-lock puzzle: G groups of S sequential hashes each, computed\n"
    "here in parallel worker processes, then solved by anyone only in sequence\n"
    "(G*S hashes).  Prints the epoch recipient (age1...): encrypt to it with\n"
    "`age -r` or `rxlock encrypt`; `rxlock solve` recovers the identity.\n"
    "Before the work it prints the generation estimate here (G*S over the\n"
    "workers at this machine's rate, wall and CPU time; past 10 minutes the\n"
    "cheaper ways); after it, the promise on stderr: published DATE, opens no\n"
    "sooner than T_min (DATE) on the fastest known hardware (the floor: its\n"
    "row and kind), about T (DATE), hashing + setup, at the assumed rate.\n"
    "With --pq the epoch key is post-quantum: the recipient is age1pq1...\n"
    "(mlkem768x25519; age >= 1.3, typage and rxlock open it, age 1.1 does not).\n"
    "\n"
    "  --work W             work function (default randomx-v2)\n"
    "  --groups G           groups (1..4096; with --time default = workers)\n"
    "  --steps S            steps per group (1..2^40; G*S <= 2^48)\n"
    "  --time DURATION      e.g. 90s, 30m, 1h30m, 7d, 2w, 1y (the unit is required).\n"
    "                       Alone: the time the fastest known hardware needs,\n"
    "                       G*S = DURATION x its rate\n"
    "                       (the floor, docs/SECURITY.md); \"about T\" then comes from\n"
    "                       the saved calibration (`rxlock calibrate`) or says none\n"
    "                       was measured.  With --rate / --calibration: wall-clock time\n"
    "                       for one solver at that rate, setup (dataset build) INCLUDED:\n"
    "                       G*S = (DURATION - setup) x rate\n"
    "  --until DATE         instead of --time: ISO 8601 with its zone, e.g.\n"
    "                       2027-01-01T12:00Z or 2027-01-01T13:00:00+01:00; the\n"
    "                       duration counts from now (generation time adds to it:\n"
    "                       the promise gives the real dates)\n"
    "  --rate H/s           assumed sequential solver rate, full mode for RandomX (recorded)\n"
    "  --calibration FILE   the rate (its typical rate: the best placement's mean) and\n"
    "                       setup time from `rxlock calibrate -o FILE`; work must match; a\n"
    "                       RandomX light-mode calibration is refused (full mode is 2.7-4.5x faster)\n"
    "  --floor              with --rate / --calibration: size against the floor anyway\n"
    "                       (G*S = DURATION x the fastest row's rate); the rate is recorded\n"
    "  --floor-table FILE   the floor table (lines WORK RATE [KIND] MACHINE [; CONDITIONS]);\n"
    "                       default: the built-in table (docs/SECURITY.md)\n"
    "  --dry-run            print the whole plan (sizes, promise, generation estimate,\n"
    "                       memory) on stdout and stop: nothing generated or written\n"
    "  --mode light|full    RandomX mode for generation (default: full when the 2.3 GiB\n"
    "                       fit here, else light with a warning)\n"
    "  --workers N          concurrent worker processes (default: usable CPUs)\n"
    "  --sign-key FILE      sign the puzzle header (key from `rxlock keygen-signer`)\n"
    "  --pq                 post-quantum epoch key (ML-KEM-768 + X25519 age recipient);\n"
    "                       default for `lock FILE`, not for puzzles\n"
    "  --classic            X25519 epoch key (default for puzzles)\n"
    "  --keep-epoch-key FILE  also write the epoch identity now ('-': standard output; for a service that encrypts\n"
    "                       during the epoch); otherwise it is wiped.  Written inside the state\n"
    "                       first and linked like the puzzle\n"
    "  --retries N          re-run a failed worker's group up to N times (default 1)\n"
    "  --worker-timeout S   a worker silent for S is killed (default 120 s; 90s, 5m)\n"
    "  --json               progress and result as JSON lines on stdout (a first\n"
    "                       {\"event\":\"start\"} line names the engine)\n"
    "  --progress           progress line on stderr even when it is not a TTY\n"
    CLI_VERIFY_HELP
    "  --no-resume          keep the generation state in memory only (an interruption\n"
    "                       loses the work done); by default it is kept, sealed, in\n"
    "                       PUZZLE.state/ (0700) and running the same command again\n"
    "                       resumes every group from its last checkpoint; removed after\n"
    "                       success.  It holds the epoch secret until then.  A full\n"
    "                       disk keeps it too: the error names the file; run the same\n"
    "                       command again once there is space\n"
    "  -q, --quiet          no progress line, no summary (the recipient is still printed)\n"
    "  --force              overwrite existing output files\n"
    "  -o, --output PUZZLE  output puzzle file (never overwritten without --force); '-': the\n"
    "                       puzzle to standard output and the recipient to standard error\n"
    "  Every file is checked before the work: no output may exist (unless --force)\n"
    "  or name the same file as another output or an input.\n"
    "\n"
    "Single-file mode: FILE -> FILE.rxlock (or -o OUT), one file holding a notice,\n"
    "the puzzle and FILE encrypted (age) to its epoch recipient; `rxlock unlock`\n"
    "opens it.  '-' reads standard input (not a terminal) and writes the\n"
    "container to standard output unless -o OUT is given (not to a terminal).\n"
    "Resume as above, in OUT.state/ (FILE.rxlock.state/ by default; 0700): the\n"
    "container is written there, then linked to OUT and the state removed; the\n"
    "same command run again after an interruption resumes (or just links a\n"
    "finished container).  The input's size and modification time are recorded\n"
    "(no hash of its content): a re-run whose FILE changed is refused, naming\n"
    "what changed (restore it, remove OUT.state/ to start over, or --force to\n"
    "lock it as it is now).  A finished container in the state is checked\n"
    "completely before it is linked, and written again if damaged.  With '-' as\n"
    "FILE or OUT the state stays in memory.\n"
    "  --no-resume          keep the generation state in memory only\n"
    "  -q, --quiet          no progress line, no summary\n"
    "  --json               progress and result as JSON lines on stdout (a last\n"
    "                       {\"event\":\"done\"} line names the container); not with\n"
    "                       the container on stdout\n"
    "  The container's epoch key is post-quantum unless --classic is given (only\n"
    "  rxlock opens a .rxlock file, so no interoperability is lost).\n"
    "exit: 0 ok, 1 failure (nothing written), 2 usage error, 128+N killed by signal N\n";

/* CPU seconds used by finished children (the worker processes). */
static double child_cpu(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static const struct option lock_opts[] = {
    CLI_LOCK_LONG_OPTS, {"keep-epoch-key", required_argument, 0, 'K'},
    {"retries", required_argument, 0, 'R'}, {"worker-timeout", required_argument, 0, 'T'},
    {"json", no_argument, 0, 'j'}, {"force", no_argument, 0, 'f'},
    {"output", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
    {"no-resume", no_argument, 0, 'N'}, {0, 0, 0, 0}
};

/* A positional FILE argument ('-' = stdin) selects the single-file mode. */
static int has_file_arg(int argc, char **argv) {
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--")) return k + 1 < argc;
        if (argv[k][0] == '-' && argv[k][1]) continue;
        const char *prev = argv[k - 1];   /* skip option values */
        int takes = k > 1 && prev[0] == '-' && prev[1] == 'o' && !prev[2];
        for (const struct option *o = lock_opts; k > 1 && !takes && o->name; o++)
            if (prev[0] == '-' && prev[1] == '-' && !strcmp(prev + 2, o->name) && o->has_arg == required_argument)
                takes = 1;
        if (!takes) return 1;
    }
    return 0;
}

typedef struct {
    cli_lock_opts lo;
    const char *out, *keep;
    int json, force, quiet, no_resume;
    cli_lock_state st;          /* st.dir[0] == 0: in memory (--no-resume, -o -) */
    char *finished;             /* the puzzle a stopped run finished in the state, checked */
    size_t finished_len;
    int out_ours;               /* PUZZLE is the state's puzzle.json (linked by an earlier run) */
    int done_before;            /* the outputs are an earlier run's: commit only */
} lock_args;

/* The puzzle a stopped run finished in PUZZLE.state/, checked completely
 * (parse, signature, this command's parameters): into a->finished; a
 * damaged one is made again while the state can (else refused). */
static int finished_puzzle(lock_args *a) {
    int fd = cli_lock_state_fin_open(&a->st);
    if (fd == -1) return CLI_OK;
    if (fd < 0) return CLI_FAIL;
    uint8_t *data = NULL;
    size_t len = 0;
    char err[256] = "";
    tl_puzzle *pz = NULL;
    int e = util_read_fd(fd, TL_MAX_PUZZLE_BYTES, &data, &len) == 0 ? TL_OK : TL_EIO;
    if (e) snprintf(err, sizeof err, "%s", strerror(errno));
    close(fd);
    if (e == TL_OK && (e = tl_puzzle_parse((const char *)data, len, &pz, err, sizeof err)) == TL_OK &&
        !(pz->work == a->lo.p.work && pz->groups == a->lo.p.groups && pz->steps == a->lo.p.steps &&
          pz->pq_epoch == (a->lo.p.pq ? 1 : 0))) {
        int rc = cli_error("%s: holds the finished puzzle of another lock (%s, %u x %llu steps, %s epoch key): run "
                           "the same command to finish it, or remove the directory", a->st.dir, tl_work_name(pz->work),
                           pz->groups, (unsigned long long)pz->steps, pz->pq_epoch ? "post-quantum" : "classic");
        tl_puzzle_free(pz);
        free(data);
        return rc;
    }
    tl_puzzle_free(pz);
    if (e == TL_OK) { a->finished = (char *)data; a->finished_len = len; return CLI_OK; }
    free(data);
    if (!cli_lock_state_can_resume(&a->st))
        return cli_error("%s/puzzle.json: damaged (%s) and the state can no longer make it again: remove %s/ to "
                         "start over", a->st.dir, err[0] ? err : rxlock_strerror(e), a->st.dir);
    fprintf(stderr, "rxlock: %s/puzzle.json: damaged (%s): writing it again from the generation state\n", a->st.dir,
            err[0] ? err : rxlock_strerror(e));
    return cli_lock_state_fin_drop(&a->st);
}

static int parse_args(int argc, char **argv, lock_args *a) {
    uint64_t v;
    int c, orc;
    cli_lock_opts_init(&a->lo);
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", lock_opts, NULL)) != -1) {
        if ((orc = cli_lock_opt(&a->lo, c, optarg, argv[0])) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case 'K': a->keep = optarg; break;
        case 'R': if (cli_parse_u64(optarg, 0, 100, &v)) return cli_usage_error(argv[0], "--retries: want 0..100"); a->lo.go.retries = (unsigned)v; break;
        case 'T': {
            double t;
            if ((orc = cli_parse_seconds_opt(argv[0], "--worker-timeout", optarg, 1, 1u << 30, &t))) return orc;
            a->lo.go.worker_timeout = (unsigned)t + ((double)(unsigned)t < t);   /* whole seconds, up */
            break;
        }
        case 'j': a->json = 1; break;
        case 'f': a->force = 1; break;
        case 'o': a->out = optarg; break;
        case 'q': a->quiet = 1; break;
        case 'N': a->no_resume = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!a->out && !a->lo.dry_run) return cli_usage_error(argv[0], "missing -o PUZZLE");
    if (cli_path_is_std(a->out) && (a->json || (a->keep && cli_path_is_std(a->keep))))
        return cli_usage_error(argv[0], "-o - writes the puzzle to standard output: no --json, no --keep-epoch-key -");
    if ((orc = cli_lock_resolve(&a->lo, argv[0])) != 0) return orc;
    cli_lock_pq_default(&a->lo, 0);      /* epochs: classic unless --pq (age 1.1 opens them) */
    int keep_ours = 0;
    if (a->lo.dry_run) return CLI_OK;    /* nothing is checked for writing, nothing made */
    if (!a->no_resume && !cli_path_is_std(a->out)) {   /* -o -: nothing to resume into */
        /* --keep-epoch-key '-' is printed, not kept in the state */
        const char *keep = a->keep && !cli_path_is_std(a->keep) ? a->keep : NULL;
        if ((orc = cli_lock_state_init(&a->st, a->out, "puzzle.json", keep)) || (orc = cli_lock_state_kind(&a->st)))
            return orc;
        cli_lock_state_tidy(&a->st);
        if ((orc = finished_puzzle(a))) return orc;
        a->lo.go.state_dir = a->st.dir;
        a->lo.go.state_files = a->st.files;
        a->out_ours = cli_lock_state_out_is_fin(&a->st);
        struct stat sb;
        keep_ours = keep && a->finished && lstat(keep, &sb) == 0 &&
                    (cli_lock_state_linked(&a->st, "epoch.key", keep) || !cli_lock_state_can_resume(&a->st));
        a->done_before = a->finished != NULL;
    }
    /* A run stopped after linking its outputs: they are this run's. */
    const cli_path files[] = {
        { a->lo.sign_key, "--sign-key", CLI_PATH_IN }, { a->lo.calib, "--calibration", CLI_PATH_IN },
        { a->out, "-o", CLI_PATH_OUT }, { a->keep, "--keep-epoch-key", CLI_PATH_OUT }
    };
    return cli_paths_check(files, sizeof files / sizeof files[0], a->force || a->out_ours || keep_ours);
}

/* With a state directory the puzzle (and the kept epoch identity) are
 * written inside it first (their temp files too), then linked into place,
 * and only then is the state removed: a kill at any moment leaves the
 * state or the finished outputs, never a temp file beside them, and the
 * same command run again finishes the commit. */
static int write_outputs(const lock_args *a, const char *text, size_t len, const uint8_t *x) {
    int rc = CLI_OK;
    const int state = a->st.dir[0] != 0;
    if (a->keep && !a->done_before) {
        tl_puzzle *pz = NULL;
        char kpath[PATH_MAX + 16];
        snprintf(kpath, sizeof kpath, "%s/epoch.key", a->st.dir);
        if (tl_puzzle_parse(text, len, &pz, NULL, 0) != 0) return cli_error("generated puzzle does not parse");
        if (state && a->st.keep) rc = cli_write_identity(kpath, x, pz, " (kept at generation)", 1);
        else rc = cli_write_identity(a->keep, x, pz, " (kept at generation)", a->force);
        tl_puzzle_free(pz);
    }
    if (!state) return rc == CLI_OK ? cli_write_text(a->out, text, len, a->force, 0644) : rc;
    if (rc == CLI_OK && !a->done_before) rc = cli_lock_state_write(&a->st, "puzzle.json", text, len, 0644);
    if (rc == CLI_OK) util_kill_point("lock-written");   /* test build */
    if (rc == CLI_OK) rc = cli_lock_state_commit(&a->st, a->force || a->out_ours);
    return rc;
}

static int report(const lock_args *a, const char *rcp, double secs, double cpu, const tl_puzzle *pz) {
    const tl_params *p = &a->lo.p;
    const tl_engine_info *e = &a->lo.engine;
    double total = (double)p->groups * (double)p->steps;
    tl_promise pr;   /* what the puzzle promises */
    tl_promise_of(pz, &a->lo.ft, &pr);
    const tl_gen_stats *gs = &a->lo.stats;   /* resume, verification */
    static const char *const vm[] = { "none", "none", "sample", "full" };
    const char *vname = vm[gs->checked == 0 ? 1 : gs->checked == gs->segments ? 3 : 2];
    if (a->json)
        return cli_print_json(json_pack("{s:s, s:s, s:s?, s:b, s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:f, s:f, s:s*, "
                                        "s:f, s:f, s:f, s:s?, s:f, s:s, s:i, s:i, s:i, s:I, s:I, s:I}",
                                        "event", "done", "command", "lock",
                                        "output", cli_path_is_std(a->out) ? NULL : a->out, "container", 0,
                                        "recipient", rcp, "epoch_key", p->pq ? "post-quantum" : "classic",
                                        "work", tl_work_name(p->work), "groups", (int)p->groups,
                                        "steps", (json_int_t)p->steps, "seconds", secs,
                                        "rate", secs > 0 ? total / secs : 0.0, "worker_cpu_seconds", cpu,
                                        "rate_per_worker_cpu_second", cpu > 0 ? total / cpu : 0.0,
                                        "engine", e->engine, "promise_seconds", pr.here_seconds,
                                        "promise_hash_seconds", pr.hash_seconds, "promise_setup_seconds", pr.setup_seconds,
                                        "floor_machine", pr.floor ? pr.floor->machine : NULL,
                                        "floor_seconds", pr.floor_seconds, "verification", vname,
                                        "segments", (int)gs->segments, "segments_checked", (int)gs->checked,
                                        "segments_corrected", (int)gs->corrected,
                                        "verify_steps", (json_int_t)gs->verify_steps,
                                        "steps_resumed", (json_int_t)gs->steps_resumed,
                                        "steps_lost", (json_int_t)gs->steps_lost));
    if (cli_path_is_std(a->out)) fprintf(stderr, "%s\n", rcp);
    else printf("%s\n", rcp);
    if (gs->checked < gs->segments || gs->corrected)
        fprintf(stderr, "rxlock: verification: %s, %u of %u segments recomputed and matched%s\n",
                gs->checked ? vname : "none (the puzzle says unverified)", gs->checked, gs->segments,
                gs->corrected ? "; corrected chains, see above" : "");
    char open_cmd[PATH_MAX + 64];
    snprintf(open_cmd, sizeof open_cmd, "rxlock solve %s -o IDENTITY", a->out);
    if (!a->quiet) cli_lock_promise(&a->lo, pz, open_cmd);
    if (isatty(2) && !a->quiet) {
        char eng[64];
        if (a->done_before) snprintf(eng, sizeof eng, "computed by an earlier run");
        else cli_engine_text(e, eng, sizeof eng);
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
    if (a.lo.dry_run) return cli_lock_dry_run(&a.lo, "lock");
    if (!a.quiet && !a.json) cli_lock_estimate(&a.lo, stderr);   /* before the work */
    uint8_t pk[32], x[32];
    char *text = NULL;
    size_t len = 0;
    double t0 = util_now(), c0 = child_cpu();
    tl_puzzle *pz = NULL;   /* what was written (also for -o -), parsed once */
    if (a.done_before) {   /* finished by an earlier run: commit it */
        text = a.finished;
        len = a.finished_len;
        a.finished = NULL;
        if (a.keep && !a.st.keep) { free(text); return cli_error("--keep-epoch-key -: a finished run's epoch identity is not kept"); }
        if (!a.quiet && !a.json) fprintf(stderr, "rxlock: %s: finished by an earlier run (kept in %s/)\n", a.out, a.st.dir);
    } else
        rc = cli_lock_generate(&a.lo, "lock", cli_progress_when(a.quiet, a.json, a.lo.progress), a.json,
                               &text, &len, &pz, pk, a.keep ? x : NULL);
    double secs = util_now() - t0, cpu = child_cpu() - c0;
    if (rc == CLI_OK && !pz && tl_puzzle_parse(text, len, &pz, NULL, 0) != 0)   /* an earlier run's */
        rc = cli_error("the finished puzzle does not parse");
    if (rc == CLI_OK) rc = write_outputs(&a, text, len, x);
    sodium_memzero(x, sizeof x);
    free(text);
    if (rc) { tl_puzzle_free(pz); return rc; }
    static char rcp[TL_AGE_PQ_RECIPIENT_MAX];   /* age1... or age1pq1... */
    if (cli_epoch_recipient(pz, rcp) != CLI_OK) { tl_puzzle_free(pz); return CLI_FAIL; }
    rc = report(&a, rcp, secs, cpu, pz);
    tl_puzzle_free(pz);
    return rc;
}
