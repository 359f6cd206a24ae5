/* SPDX-License-Identifier: ISC */
/* src/cli/measure/calibrate.c — `rxlock calibrate`: measure this machine's
 * sequential chain rate with the real chain code and write a calibration
 * file: for `rxlock lock --calibration FILE`, or without -o the saved
 * calibration (cli_calib.h) that lock / plan / inspect read. */
#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "rxlock/calibrate.h"
#include "cli/progress.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_calibrate_usage[] =
    "usage: rxlock calibrate [--work randomx-v2|randomx-v1|sha3-256] [--mode light|full]\n"
    "                        [--seconds S] [--allocations N] [-o FILE] [--force]\n"
    "                        [-q | --json | --progress]\n"
    "  Measures this machine's sequential hash rate with the real chain code\n"
    "  (one dependent chain, as a solver runs it) and writes a calibration file\n"
    "  (without -o: the saved calibration, which lock, plan and inspect read\n"
    "  for \"about T here\" and the generation estimate; with -o FILE: for\n"
    "  `rxlock lock --calibration FILE`, which sizes puzzles with it).\n"
    "  --work W       work function (default randomx-v2)\n"
    "  --mode M       RandomX full (2080 MiB dataset + 256 MiB cache) or light\n"
    "                 (256 MiB); default full when it fits here, else light with a\n"
    "                 warning: a light-mode file cannot size a RandomX puzzle\n"
    "                 (full mode is 2.7-4.5x faster); ignored by sha3-256\n"
    "  --seconds S    timed measurement length, 0.05..86400 s (default 10; 90s, 5m),\n"
    "                 in 3..10 windows; puzzles are sized with the TYPICAL rate (the\n"
    "                 best placement's mean, else the run's): \"about T\" is the\n"
    "                 expected time, the floor bounds \"no sooner than\"; a spread over\n"
    "                 10% or a load average above the usable CPUs is warned about\n"
    "  --allocations N  full-mode RandomX: measure N placements of the cache +\n"
    "                 dataset in RAM, 1..8 (default 2: about two datasets held\n"
    "                 at once; fewer where memory is short: each copy holds\n"
    "                 2.3 GiB more while it runs), the windows round robin over\n"
    "                 them: where the 2 GiB land can move the rate (by 4-16% on\n"
    "                 a VM), so the best placement's mean is taken\n"
    "  -o, --output FILE  where to write; default: the saved calibration,\n"
    "                 $XDG_STATE_HOME/rxlock/calibration-WORK.json (else\n"
    "                 ~/.local/state/rxlock/), replaced by each run; '-' writes\n"
    "                 the file's JSON to stdout; a FILE is never overwritten\n"
    "                 without --force\n"
    "  --force        overwrite an existing output file\n"
    "  --json         machine output on stdout (the calibration object plus\n"
    "                 hashes, file, fallback, sizing_rate, sizing_statistic,\n"
    "                 spread, placement_spread)\n"
    "  -q, --quiet    no progress line, no summary (warnings and errors still\n"
    "                 go to stderr)\n"
    "  --progress     show the progress line even when stderr is not a TTY\n"
    "  The file records the work, and for RandomX the mode, the engine that\n"
    "  ran (jit / interpreter) and the AES (hardware / software); a JIT that\n"
    "  could not start is one warning line.  It also records the setup time\n"
    "  (cache / dataset build, timed), which `lock --time` counts, and in\n"
    "  full mode the dataset's share on huge pages (under 90% is warned\n"
    "  about: a solver with huge pages hashes about 1.4x faster).\n"
    "  The rate is this machine's.  A faster machine solves sooner: a puzzle\n"
    "  sized from this rate opens earlier for anyone with faster hardware.\n";

typedef struct {
    const char *outpath;
    tl_work_type work;
    tl_mode mode;
    int mode_req;   /* -1: the mode policy */
    double seconds;
    unsigned allocations;   /* 0: TL_CALIBRATE_ALLOCATIONS */
    int force, json, progress, quiet, to_stdout;
    int saved;              /* no -o: the saved calibration (replaced) */
    char saved_path[4096];
} cal_args;

static int parse_args(int argc, char **argv, cal_args *a) {
    static const struct option lo[] = {
        {"work", required_argument, 0, 'w'}, {"mode", required_argument, 0, 'm'},
        {"seconds", required_argument, 0, 's'}, {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'f'}, {"json", no_argument, 0, 'j'},
        {"progress", no_argument, 0, 'p'}, {"quiet", no_argument, 0, 'q'},
        {"allocations", required_argument, 0, 'A'}, {0, 0, 0, 0}
    };
    const char *cmd = argv[0];
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":w:m:s:o:q", lo, NULL)) != -1) {
        switch (c) {
        case 'w':
            if (tl_work_parse(optarg, &a->work) != 0)
                return cli_usage_error(cmd, "unknown work '%s' (randomx-v2, randomx-v1, sha3-256)", optarg);
            break;
        case 'm':
            if (cli_parse_mode(optarg, &a->mode)) return cli_usage_error(cmd, "unknown mode '%s' (light, full)", optarg);
            a->mode_req = (int)a->mode;
            break;
        case 's':
            if ((c = cli_parse_seconds_opt(cmd, "--seconds", optarg, TL_CALIBRATE_MIN_SECONDS, TL_CALIBRATE_MAX_SECONDS,
                                           &a->seconds)))
                return c;
            break;
        case 'A': {
            uint64_t v;
            if (cli_parse_u64(optarg, 1, TL_CALIBRATE_MAX_ALLOCATIONS, &v))
                return cli_usage_error(cmd, "--allocations '%s': need a whole number 1..%d", optarg,
                                       TL_CALIBRATE_MAX_ALLOCATIONS);
            a->allocations = (unsigned)v;
            break;
        }
        case 'o': a->outpath = optarg; break;
        case 'f': a->force = 1; break;
        case 'j': a->json = 1; break;
        case 'p': a->progress = 1; break;
        case 'q': a->quiet = 1; break;
        default: return cli_bad_option(cmd, optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!a->outpath) {   /* the saved calibration: this machine's state, replaced by each run */
        if (cli_calib_path(a->work, a->saved_path, sizeof a->saved_path) != 0)
            return cli_usage_error(cmd, "neither XDG_STATE_HOME nor HOME is set: give -o FILE");
        a->outpath = a->saved_path;
        a->saved = 1;
        a->force = 1;
    }
    if (!*a->outpath) return cli_usage_error(cmd, "empty --output");
    a->to_stdout = !strcmp(a->outpath, "-");
    if (a->to_stdout && a->json) return cli_usage_error(cmd, "--json and -o - both write to stdout");
    return CLI_OK;
}

/* --json: the calibration object plus the run's details, one line. */
static int report_json(const cal_args *a, const tl_calibration *cal, const char *text) {
    json_t *o = json_pack("{s:s, s:s, s:s}", "event", "done", "command", "calibrate", "output", a->outpath);
    json_t *cj = json_loads(text, 0, NULL);
    if (o && (!cj || json_object_update(o, cj) != 0)) { json_decref(o); o = NULL; }
    json_decref(cj);
    json_t *more = json_pack("{s:I, s:s?, s:f, s:s, s:f, s:f, s:s}", "hashes", (json_int_t)cal->hashes,
                             "fallback", cal->engine.fallback,
                             "sizing_rate", tl_calibration_sizing_rate(cal),
                             "sizing_statistic", tl_calibration_sizing_statistic(cal),
                             "spread", tl_calibration_spread(cal),
                             "placement_spread", tl_calibration_placement_spread(cal),
                             "note", "this machine's sequential rate; a faster machine solves sooner");
    if (!o || !more || json_object_update(o, more) != 0) { json_decref(o); o = NULL; }
    json_decref(more);
    return cli_print_json(o);
}

static void report_text(const cal_args *a, const tl_calibration *cal) {
    FILE *hp = a->to_stdout ? stderr : stdout;
    char r[32], lo[32], hi[32], eng[64];
    util_format_rate(r, sizeof r, cal->rate);
    util_format_rate(lo, sizeof lo, cal->rate_min);
    util_format_rate(hi, sizeof hi, cal->rate_max);
    cli_engine_text(&cal->engine, eng, sizeof eng);
    if (cal->engine.engine) fprintf(hp, "%s, %s, on %s\n", tl_work_name(cal->work), eng, cal->cpu);
    else fprintf(hp, "%s on %s\n", tl_work_name(cal->work), cal->cpu);
    fprintf(hp, "rate: %s H/s  (spread %s – %s H/s over %u windows; %llu hashes in %.2f s)\n",
            r, lo, hi, cal->windows, (unsigned long long)cal->hashes, cal->seconds);
    char sz[32];
    util_format_rate(sz, sizeof sz, tl_calibration_sizing_rate(cal));
    fprintf(hp, "sizing rate: %s H/s (%s: \"about T\" is the expected time; the floor bounds \"no sooner "
                "than\"); setup %.2f s (timed, counted by lock --time)\n", sz,
            tl_calibration_sizing_statistic(cal), cal->setup_seconds);
    double plo, phi;
    if (tl_calibration_placement_range(cal, &plo, &phi)) {
        char a_lo[32], a_hi[32];
        util_format_rate(a_lo, sizeof a_lo, plo);
        util_format_rate(a_hi, sizeof a_hi, phi);
        fprintf(hp, "placements: %u copies of the cache + dataset in RAM, %s – %s H/s (%.0f%% apart); "
                    "windows inside one differ by up to %.0f%%\n", cal->allocations, a_lo, a_hi,
                tl_calibration_placement_spread(cal) * 100, tl_calibration_spread(cal) * 100);
    }
    if (cal->huge_share >= 0) {
        const char *thp = util_thp_mode();
        fprintf(hp, "pages: %.0f%% of the dataset on huge pages (THP %s)\n", cal->huge_share * 100,
                thp ? thp : "unknown");
    }
    if (!a->to_stdout) fprintf(hp, "wrote %s%s\n", a->outpath, a->saved ? " (the saved calibration: lock, plan and "
                                                                         "inspect read it)" : "");
    fprintf(hp, "note: this is THIS machine's sequential rate.  A faster machine solves sooner:\n"
                "      a puzzle sized from this rate opens earlier for anyone with faster hardware%s.\n",
            cal->work == TL_WORK_SHA3_256 ? " (SHA3 has fast dedicated hardware: prefer randomx-v2)" : "");
}

/* a noisy or loaded run, and a light-mode RandomX file, are
 * warned about with what to do (stderr, one line each). */
static void warn_trust(const tl_calibration *cal) {
    double sp = tl_calibration_spread(cal);
    unsigned cpus = util_cpus_usable();
    if (sp > 0.10)
        fprintf(stderr, "rxlock: warning: the windows differ by %.0f%% (over 10%%): the machine is busy or its clock "
                        "varies; stop other work and calibrate again, longer (--seconds 60)\n", sp * 100);
    double ps = tl_calibration_placement_spread(cal);
    if (ps > 0.10)
        fprintf(stderr, "rxlock: note: the rate depends on where the dataset lands in memory here: the %u placements "
                        "measured differ by %.0f%%; puzzles are sized with the best placement's mean, so a solve here can take "
                        "up to about %.0f%% longer than \"about T\"\n", cal->allocations, ps * 100,
                ps / (1 - ps) * 100);
    if (cal->load_average > (double)cpus)
        fprintf(stderr, "rxlock: warning: load average %.2f is above the %u usable CPU%s: other work competes with "
                        "the measurement; calibrate again on a quiet machine\n", cal->load_average, cpus, cpus == 1 ? "" : "s");
    /* A dataset on 4 KiB pages hashes 1.4-1.5x slower than on huge pages
     * (bench/RESULTS.md): a solver that gets them opens the puzzle sooner. */
    if (cal->huge_share >= 0 && cal->huge_share < 0.9) {
        const char *thp = util_thp_mode();
        if (thp && !strcmp(thp, "never"))
            fprintf(stderr, "rxlock: warning: huge pages are off here (THP never): %.0f%% of the dataset on huge pages; "
                            "a solver with them hashes about 1.4x faster and opens sooner than this rate says; "
                            "enable THP (madvise) and calibrate again, or keep in mind the floor\n",
                    cal->huge_share * 100);
        else
            fprintf(stderr, "rxlock: warning: only %.0f%% of the dataset got huge pages (memory fragmented?): a solver "
                            "that gets them hashes about 1.4x faster and opens sooner than this rate says; free memory "
                            "(as root: echo 1 > /proc/sys/vm/compact_memory) and calibrate again\n",
                    cal->huge_share * 100);
    }
    if (cal->work != TL_WORK_SHA3_256 && cal->mode == TL_MODE_LIGHT)
        fprintf(stderr, "rxlock: warning: a light-mode calibration cannot size a RandomX puzzle (full mode is "
                        "%s faster); calibrate with --mode full where 2.3 GiB are free\n", TL_FULL_LIGHT_RANGE);
}

int cmd_calibrate(int argc, char **argv) {
    cal_args a = { .outpath = NULL, .work = TL_WORK_RANDOMX_V2,
                   .mode = TL_MODE_LIGHT, .mode_req = -1, .seconds = 10 };
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    a.mode = cli_mode_pick(a.work, a.mode_req);   /* the one mode policy */
    /* Fail before measuring if the output exists (checked again at commit). */
    util_atomic at;
    const cli_path files[] = { { a.outpath, "-o", CLI_PATH_OUT } };
    if (a.saved && cli_calib_mkdir(a.outpath) != 0) return cli_output_error(a.outpath);
    if (cli_paths_check(files, 1, a.force)) return CLI_FAIL;
    if (!a.to_stdout && util_atomic_open(&at, a.outpath, a.force, 0644) != 0) return cli_output_error(a.outpath);
    if (a.work != TL_WORK_SHA3_256 && !a.json && !a.quiet)
        fprintf(stderr, "calibrate: building the RandomX %s (timed as setup)%s...\n",
                a.mode == TL_MODE_FULL ? "cache and 2080 MiB dataset" : "256 MiB cache",
                a.mode == TL_MODE_FULL && a.allocations != 1 ? ", then copies of it in new memory (placements)" : "");
    cli_progress ui;
    cli_progress_init(&ui, "calibrate", 0, cli_progress_when(a.quiet, a.json, a.progress), 0);
    tl_calibrate_opts co = { .progress = cli_progress_cb, .progress_ctx = &ui, .stop = cli_catch_signals(),
                             .allocations = a.allocations };
    tl_calibration cal;
    rc = tl_calibrate(a.work, a.mode, a.seconds, &co, &cal);
    char *text = NULL;
    size_t len = 0;
    if (rc == TL_OK) {
        pbar_set_total(&ui.bar, cal.hashes);
        pbar_update(&ui.bar, cal.hashes);
        rc = tl_calibration_to_json(&cal, &text, &len);
    }
    cli_progress_end(&ui, rc == TL_OK);
    if (rc) {
        if (!a.to_stdout) util_atomic_abort(&at);
        if (rc == TL_EINTR) {
            cli_error("calibration interrupted; nothing written");
            return cli_interrupted_rc();
        }
        return cli_work_error("calibration failed", rc, a.work);
    }
    if (a.to_stdout) {
        if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) rc = cli_error("stdout: %s", strerror(errno));
    } else if (util_write_all(at.fd, text, len) != 0 || util_atomic_commit(&at) != 0) {
        int e = errno;
        util_atomic_abort(&at);
        errno = e;
        rc = cli_output_error(a.outpath);
    }
    if (rc == CLI_OK) warn_trust(&cal);
    if (rc == CLI_OK && a.json) rc = report_json(&a, &cal, text);
    else if (rc == CLI_OK && !a.quiet) report_text(&a, &cal);
    free(text);
    return rc;
}
