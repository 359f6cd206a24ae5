/* SPDX-License-Identifier: ISC */
/* src/cli/lock/solve.c — `rxlock solve`: verify (and pin) a puzzle, solve it
 * sequentially with a crash-safe journal (re-running resumes), and write the
 * epoch identity as an age identity file. */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include "rxlock/age.h"
#include "rxlock/rxlock.h"
#include "cli/progress.h"
#include "util/util.h"
#include <getopt.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_solve_usage[] =
    "usage: rxlock solve PUZZLE [--mode full|light] [--journal FILE | --no-journal]\n"
    "                    [--checkpoint-every SECONDS] [--checkpoint-steps N]\n"
    "                    [--signer-pin HEX] [-q | --json | --progress] [--force]\n"
    "                    -o, --output IDENTITY|-\n"
    "\n"
    "Solve a puzzle sequentially (one core) and write its epoch identity\n"
    "(AGE-SECRET-KEY-1...) to IDENTITY ('-': standard output).  Progress is\n"
    "journalled; re-running the same command resumes where it stopped (also\n"
    "after a crash or Ctrl-C).  Every file is checked before the work; a puzzle\n"
    "refused before any work leaves no file behind.  The progress line (on a\n"
    "TTY) names the engine; a JIT fallback is one warning line.  A .rxlock file\n"
    "is opened with `rxlock unlock`.\n"
    "\n"
    "  --mode full|light        RandomX mode (default: full when its 2.3 GiB fit here,\n"
    "                           2.7-4.5x faster; else light, with one warning line)\n"
    "  --journal FILE           progress journal (default IDENTITY.journal; removed after success;\n"
    "                           with -o - give --journal or --no-journal)\n"
    "  --no-journal             do not journal (no resume)\n"
    "  --checkpoint-every SECS  journal entry at least this often (default 60; 90s, 5m, 1h30m;\n"
    "                           0: every batch)\n"
    "  --checkpoint-steps N     also a journal entry every N steps\n"
    "  --signer-pin HEX         refuse (before any work) unless signed by this Ed25519 key\n"
    "  -q, --quiet              no progress line, no summary\n"
    "  --json                   progress and result as JSON lines on stdout (a first\n"
    "                           {\"event\":\"start\"} line names the engine)\n"
    "  --progress               progress line on stderr even when it is not a TTY\n"
    "  --force                  overwrite an existing IDENTITY\n"
    "exit: 0 solved, 1 failure (bad puzzle, I/O), 2 usage error, 3 verification failed\n"
    "      (signature / pin, or a wrap that does not open: tampered), 128+N killed by\n"
    "      signal N (130: Ctrl-C)\n";

typedef struct {
    tl_solve_opts so;
    const char *out, *journal, *pinhex, *path;
    int json, force, nojournal, mode_given, progress, quiet;
    uint8_t pin[32];
} solve_args;

static int parse_args(int argc, char **argv, solve_args *a) {
    static const struct option opts[] = {
        {"mode", required_argument, 0, 'm'}, {"journal", required_argument, 0, 'J'},
        {"no-journal", no_argument, 0, 'N'}, {"checkpoint-every", required_argument, 0, 'c'},
        {"checkpoint-steps", required_argument, 0, 'C'}, {"signer-pin", required_argument, 0, 'p'},
        {"json", no_argument, 0, 'j'}, {"force", no_argument, 0, 'f'},
        {"progress", no_argument, 0, 'P'}, {"output", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0}
    };
    int c, rc;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            a->mode_given = 1;
            if (cli_parse_mode(optarg, &a->so.mode)) return cli_usage_error(argv[0], "--mode: want full or light");
            break;
        case 'J': a->journal = optarg; break;
        case 'N': a->nojournal = 1; break;
        case 'c':
            if (cli_parse_double(optarg, 0, 0, &a->so.checkpoint_seconds) == 0) {   /* "0": every batch */
                a->so.checkpoint_seconds = 1e-9;
                break;
            }
            if ((rc = cli_parse_seconds_opt(argv[0], "--checkpoint-every", optarg, 1e-9, 1e9, &a->so.checkpoint_seconds)))
                return rc;
            break;
        case 'C':
            if (cli_parse_u64(optarg, 1, UINT64_MAX, &a->so.checkpoint_steps))
                return cli_usage_error(argv[0], "--checkpoint-steps: want N >= 1");
            break;
        case 'p': a->pinhex = optarg; break;
        case 'j': a->json = 1; break;
        case 'f': a->force = 1; break;
        case 'P': a->progress = 1; break;
        case 'o': a->out = optarg; break;
        case 'q': a->quiet = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error(argv[0], "missing PUZZLE");
    if (optind + 1 < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind + 1]);
    if (!a->out) return cli_usage_error(argv[0], "missing -o IDENTITY");
    if (a->journal && a->nojournal) return cli_usage_error(argv[0], "--journal and --no-journal conflict");
    if (cli_path_is_std(a->out) && !a->journal && !a->nojournal)
        return cli_usage_error(argv[0], "-o -: give --journal FILE or --no-journal");
    if (cli_path_is_std(a->out) && a->json)
        return cli_usage_error(argv[0], "--json and -o - both write to standard output");
    if (a->pinhex && cli_parse_pin(a->pinhex, a->pin))
        return cli_usage_error(argv[0], "--signer-pin: want 64 hex digits (an Ed25519 public key)");
    a->path = argv[optind];
    return CLI_OK;
}

static int report_failure(const solve_args *a, const tl_puzzle *pz, int rc, const tl_solve_stats *st) {
    if (rc == TL_EAUTH)
        return cli_fail(CLI_VERIFY, "%s: group %u of %u: wrap failed to authenticate: the puzzle was tampered with or corrupted",
                         a->path, st->failed_group, pz->groups);
    if (rc == TL_EINTR) {
        cli_error("interrupted; %s", a->so.journal ? "progress saved: re-run the same command to resume"
                                                   : "no journal, progress lost");
        return cli_interrupted_rc();
    }
    return cli_solve_error(a->path, a->so.journal, rc, st, pz->work);
}

static int report_success(const solve_args *a, const tl_solve_stats *st, double secs) {
    if (a->json)
        return cli_print_json(json_pack("{s:s, s:s, s:s, s:s?, s:b, s:I, s:i, s:I, s:I, s:f, s:s*, s:s*, s:f, s:f, s:o}",
                                        "event", "done", "command", "solve", "input", a->path,
                                        "output", cli_path_is_std(a->out) ? NULL : a->out, "container", 0,
                                        "steps_computed", (json_int_t)st->steps_computed,
                                        "resumed_group", (int)st->resumed_group,
                                        "resumed_step", (json_int_t)st->resumed_step,
                                        "checkpoints", (json_int_t)st->checkpoints, "seconds", secs,
                                        "engine", st->engine.engine, "mode", st->engine.mode,
                                        "setup_seconds", st->setup_seconds, "hash_seconds", st->hash_seconds,
                                        "dataset_huge_pages",
                                        st->huge_share >= 0 ? json_real(st->huge_share) : json_null()));
    if (a->quiet) return CLI_OK;
    char eng[64];
    cli_engine_text(&st->engine, eng, sizeof eng);
    fprintf(stderr, "rxlock: solved %s: wrote %s (%llu hashes this run in %.1f s, %s%s)\n", a->path, a->out,
            (unsigned long long)st->steps_computed, secs, eng, st->resumed_group ? ", resumed" : "");
    return CLI_OK;
}

/* An earlier run wrote OUT and was stopped before it removed its journal
 * (which holds the chain values, the secret's precursor): when OUT is an
 * identity of this puzzle's epoch key, that run is finished here (the
 * journal removed): 1.  0 = not that case (the usual checks go on). */
static int finished_before(const solve_args *a) {
    struct stat so, sj;
    if (a->force || cli_path_is_std(a->out) || !a->journal || lstat(a->out, &so) != 0 || !S_ISREG(so.st_mode) ||
        lstat(a->journal, &sj) != 0 || !S_ISREG(sj.st_mode))
        return 0;
    tl_puzzle *pz = NULL;
    int same = tl_puzzle_load(a->path, &pz, NULL, 0) == TL_OK && tl_puzzle_verify(pz, a->pinhex ? a->pin : NULL) == TL_OK &&
               cli_identity_file_is_epoch(a->out, pz);
    tl_puzzle_free(pz);
    if (!same) return 0;
    if (unlink(a->journal) != 0) return 0;
    fprintf(stderr, "rxlock: %s already holds this puzzle's identity (an earlier run wrote it and stopped before it "
            "removed %s): removed the journal; nothing else to do\n", a->out, a->journal);
    return 1;
}

int cmd_solve(int argc, char **argv) {
    solve_args a = { .so = { .mode = TL_MODE_FULL } };
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    char jpath[PATH_MAX];
    if (!a.nojournal && !a.journal) {
        if (snprintf(jpath, sizeof jpath, "%s.journal", a.out) >= (int)sizeof jpath)
            return cli_error("%s: path too long", a.out);
        a.journal = jpath;
    }
    if (a.journal == jpath && finished_before(&a)) return CLI_OK;   /* the default journal only: a given one is kept */
    const cli_path files[] = {
        { a.path, "PUZZLE", CLI_PATH_IN }, { a.out, "-o", CLI_PATH_OUT },
        { a.nojournal ? NULL : a.journal, "--journal", CLI_PATH_STATE }
    };
    if ((rc = cli_paths_check(files, sizeof files / sizeof files[0], a.force))) return rc;
    tl_puzzle *pz = NULL;
    if (cli_puzzle_load(a.path, 0, &pz, NULL)) return CLI_FAIL;
    if ((rc = cli_check_puzzle(a.path, pz, a.pinhex ? a.pin : NULL))) { tl_puzzle_free(pz); return rc; }
    if (pz->test_only)
        fprintf(stderr, "rxlock: WARNING: %s is a TEST-ONLY puzzle (deterministic secrets); it protects nothing\n", a.path);
    /* the one mode policy (full when it fits, else light + warning) */
    a.so.mode = cli_mode_pick(pz->work, a.mode_given ? (int)a.so.mode : -1);
    a.so.journal = a.nojournal ? NULL : a.journal;
    cli_progress ui;
    cli_progress_init(&ui, "solve", (uint64_t)pz->groups * pz->steps, cli_progress_when(a.quiet, a.json, a.progress),
                      a.json);
    a.so.stop = ui.stop = cli_catch_signals();
    a.so.progress = cli_progress_cb;
    a.so.progress_ctx = &ui;
    uint8_t *x = sodium_malloc(32);   /* the epoch secret: locked, wiped */
    if (!x) { tl_puzzle_free(pz); return cli_error("out of memory"); }
    tl_solve_stats st;
    double t0 = util_now();
    rc = tl_solve(pz, &a.so, x, &st);
    if (rc == TL_ENOMEM && a.so.mode == TL_MODE_FULL && !a.mode_given) {
        cli_progress_end(&ui, 0);
        fprintf(stderr, "rxlock: warning: full mode could not allocate its memory: solving in light mode, %s slower\n",
                TL_FULL_LIGHT_RANGE);
        a.so.mode = TL_MODE_LIGHT;
        rc = tl_solve(pz, &a.so, x, &st);
    }
    double secs = util_now() - t0;
    cli_progress_end(&ui, rc == TL_OK);
    if (rc == TL_OK) rc = cli_write_identity(a.out, x, pz, "", a.force);
    else rc = report_failure(&a, pz, rc, &st);
    sodium_free(x);
    if (rc == CLI_OK) {
        if (a.journal == jpath) (void)unlink(jpath);
        rc = report_success(&a, &st, secs);
    }
    tl_puzzle_free(pz);
    return rc;
}
