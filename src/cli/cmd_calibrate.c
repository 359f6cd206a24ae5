/* src/cli/cmd_calibrate.c — `rxlock calibrate`: measure this machine's
 * sequential chain rate with the real chain code and write a calibration
 * file for `rxlock lock --calibration FILE`. */
#include "cli/cli.h"
#include "lock/calibrate.h"
#include "util/progress.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_calibrate_usage[] =
    "usage: rxlock calibrate [--work randomx-v2|randomx-v1|sha3-256] [--mode light|full]\n"
    "                        [--seconds S] [-o FILE] [--force] [--json] [--progress]\n"
    "  Measures this machine's sequential hash rate with the real chain code\n"
    "  (one dependent chain, as a solver runs it) and writes a calibration file\n"
    "  that `rxlock lock --calibration FILE` uses to choose work counts.\n"
    "  --work W       work function (default randomx-v2)\n"
    "  --mode M       RandomX light (256 MiB, default) or full (2080 MiB dataset,\n"
    "                 built first, not timed); ignored by sha3-256\n"
    "  --seconds S    timed measurement length, 0.05..86400 (default 10)\n"
    "  -o, --output FILE  where to write (default ./rxlock-calibration.json);\n"
    "                 '-' writes the file's JSON to stdout; never overwrites an\n"
    "                 existing file without --force\n"
    "  --force        overwrite an existing output file\n"
    "  --json         machine output on stdout (the calibration object plus\n"
    "                 hashes, windows, setup_seconds, file)\n"
    "  --progress     show the progress line even when stderr is not a TTY\n"
    "  The rate is this machine's.  A faster machine solves sooner: a puzzle\n"
    "  sized from this rate opens earlier for anyone with faster hardware.\n";

static volatile sig_atomic_t got_signal;
static void on_signal(int sig) { (void)sig; got_signal = 1; }

int cmd_calibrate(int argc, char **argv) {
    static const struct option lo[] = {
        {"work", required_argument, 0, 'w'}, {"mode", required_argument, 0, 'm'},
        {"seconds", required_argument, 0, 's'}, {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'f'}, {"json", no_argument, 0, 'j'},
        {"progress", no_argument, 0, 'p'}, {0, 0, 0, 0}
    };
    const char *cmd = argv[0], *outpath = "./rxlock-calibration.json";
    tl_work_type work = TL_WORK_RANDOMX_V2;
    tl_mode mode = TL_MODE_LIGHT;
    double seconds = 10;
    int force = 0, json = 0, progress = UTIL_PROGRESS_AUTO, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":w:m:s:o:", lo, NULL)) != -1) {
        switch (c) {
        case 'w':
            if (tl_work_parse(optarg, &work) != 0)
                return cli_usage_error(cmd, "unknown work '%s' (randomx-v2, randomx-v1, sha3-256)", optarg);
            break;
        case 'm':
            if (!strcmp(optarg, "light")) mode = TL_MODE_LIGHT;
            else if (!strcmp(optarg, "full")) mode = TL_MODE_FULL;
            else return cli_usage_error(cmd, "unknown mode '%s' (light, full)", optarg);
            break;
        case 's': {
            char *end;
            errno = 0;
            seconds = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(seconds >= TL_CALIBRATE_MIN_SECONDS && seconds <= TL_CALIBRATE_MAX_SECONDS))
                return cli_usage_error(cmd, "bad --seconds '%s' (0.05..86400)", optarg);
            break;
        }
        case 'o': outpath = optarg; break;
        case 'f': force = 1; break;
        case 'j': json = 1; break;
        case 'p': progress = UTIL_PROGRESS_FORCE; break;
        default: return cli_bad_option(cmd, optopt, argv[optind - 1]);
        }
    }
    if (optind < argc) return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (!*outpath) return cli_usage_error(cmd, "empty --output");
    int to_stdout = !strcmp(outpath, "-");
    if (to_stdout && json) return cli_usage_error(cmd, "--json and -o - both write to stdout");

    /* Fail before measuring if the output exists (checked again at commit). */
    util_atomic at;
    int have_at = 0;
    if (!to_stdout) {
        if (util_atomic_open(&at, outpath, force, 0644) != 0) {
            if (errno == EEXIST) return cli_error("%s exists (use --force to overwrite, or -o FILE)", outpath);
            return cli_error("%s: %s", outpath, strerror(errno));
        }
        have_at = 1;
    }
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    if (work != TL_WORK_SHA3_256 && !json)
        fprintf(stderr, "calibrate: building the RandomX %s (not timed)...\n",
                mode == TL_MODE_FULL ? "cache and 2080 MiB dataset" : "256 MiB cache");
    util_progress pr;
    util_progress_init(&pr, "calibrate", 0, 0, progress);
    tl_calibration cal;
    /* the loop polls got_signal and stops with TL_EINTR */
    int rc = tl_calibrate(work, mode, seconds, &pr, (const volatile int *)&got_signal, &cal);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc) {
        util_progress_clear(&pr);
        if (have_at) util_atomic_abort(&at);
        if (rc == TL_EINTR) return cli_error("calibration interrupted; nothing written");
        return cli_error("calibration failed: %s", tl_strerror(rc));
    }
    util_progress_done(&pr);

    char *text = NULL;
    size_t len = 0;
    if (tl_calibration_to_json(&cal, &text, &len) != 0) {
        if (have_at) util_atomic_abort(&at);
        return cli_error("out of memory");
    }
    if (to_stdout) {
        int ok = fwrite(text, 1, len, stdout) == len && fflush(stdout) == 0;
        free(text);
        if (!ok) return cli_error("stdout: %s", strerror(errno));
    } else {
        if (util_write_all(at.fd, text, len) != 0 || util_atomic_commit(&at) != 0) {
            int e = errno;
            util_atomic_abort(&at);
            free(text);
            if (e == EEXIST) return cli_error("%s exists (use --force to overwrite, or -o FILE)", outpath);
            return cli_error("%s: %s", outpath, strerror(e));
        }
        free(text);
    }

    const char *wn = tl_work_name(work);
    const char *mn = work == TL_WORK_SHA3_256 ? "-" : mode == TL_MODE_FULL ? "full" : "light";
    if (json) {
        json_t *o = json_pack("{s:i, s:s, s:s, s:f, s:f, s:f, s:f, s:s, s:s, s:I, s:i, s:f, s:s, s:s}",
                              "rxlock_calibration", TL_CALIBRATION_VERSION, "work", wn,
                              "mode", mode == TL_MODE_FULL ? "full" : "light",
                              "rate", cal.rate, "rate_min", cal.rate_min, "rate_max", cal.rate_max,
                              "seconds", cal.seconds, "cpu", cal.cpu, "created", cal.created,
                              "hashes", (json_int_t)cal.hashes, "windows", (int)cal.windows,
                              "setup_seconds", cal.setup_seconds, "file", outpath,
                              "note", "this machine's sequential rate; a faster machine solves sooner");
        char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)) : NULL;
        json_decref(o);
        if (!s) return cli_error("out of memory");
        printf("%s\n", s);
        free(s);
        return fflush(stdout) == 0 ? CLI_OK : cli_error("stdout: %s", strerror(errno));
    }
    FILE *hp = to_stdout ? stderr : stdout;
    char r[32], a[32], b[32];
    util_format_rate(r, sizeof r, cal.rate);
    util_format_rate(a, sizeof a, cal.rate_min);
    util_format_rate(b, sizeof b, cal.rate_max);
    fprintf(hp, "%s, mode %s, on %s\n", wn, mn, cal.cpu);
    fprintf(hp, "rate: %s H/s  (spread %s – %s H/s over %u windows; %llu hashes in %.2f s; setup %.2f s untimed)\n",
            r, a, b, cal.windows, (unsigned long long)cal.hashes, cal.seconds, cal.setup_seconds);
    if (!to_stdout) fprintf(hp, "wrote %s\n", outpath);
    fprintf(hp, "note: this is THIS machine's sequential rate.  A faster machine solves sooner:\n"
                "      a puzzle sized from this rate opens earlier for anyone with faster hardware%s.\n",
            work == TL_WORK_SHA3_256 ? " (SHA3 has fast dedicated hardware: prefer randomx-v2)" : "");
    return CLI_OK;
}
