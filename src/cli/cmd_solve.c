/* src/cli/cmd_solve.c — `rxlock solve`: verify (and pin) a puzzle, solve it
 * sequentially with a crash-safe journal (re-running resumes), and write the
 * epoch identity as an age identity file. */
#include "cli/cli.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "util/progress.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_solve_usage[] =
    "usage: rxlock solve PUZZLE [--mode full|light] [--journal FILE | --no-journal]\n"
    "                    [--checkpoint-every SECONDS] [--checkpoint-steps N]\n"
    "                    [--signer-pin HEX] [--json] [--force] -o IDENTITY\n"
    "\n"
    "Solve a puzzle sequentially (one core) and write its epoch identity\n"
    "(AGE-SECRET-KEY-1...) to IDENTITY.  Progress is journalled; re-running the\n"
    "same command resumes where it stopped (also after a crash or Ctrl-C).\n"
    "\n"
    "  --mode full|light        RandomX mode (default full: 2080 MiB, ~10x faster than light;\n"
    "                           falls back to light when memory is short)\n"
    "  --journal FILE           progress journal (default IDENTITY.journal; removed after success)\n"
    "  --no-journal             do not journal (no resume)\n"
    "  --checkpoint-every SECS  journal entry at least this often (default 60)\n"
    "  --checkpoint-steps N     also a journal entry every N steps\n"
    "  --signer-pin HEX         refuse (before any work) unless signed by this Ed25519 key\n"
    "  --json                   progress and result as JSON lines on stdout\n"
    "  --force                  overwrite an existing IDENTITY\n"
    "exit: 0 solved, 1 failure (bad puzzle, tampered wrap, I/O, interrupted),\n"
    "      2 usage error, 3 signature / pin check failed\n";

static volatile int solve_stop;
static void on_signal(int sig) { (void)sig; solve_stop = 1; }

typedef struct { int json; util_progress bar; } solve_ui;

static int on_progress(const tl_progress *p, void *ctx) {
    solve_ui *ui = ctx;
    if (ui->json) {
        printf("{\"event\":\"progress\",\"hashes_done\":%llu,\"hashes_total\":%llu,\"rate\":%.1f,"
               "\"eta_seconds\":%.1f,\"group\":%u,\"step\":%llu}\n",
               (unsigned long long)p->hashes_done, (unsigned long long)p->hashes_total, p->rate,
               p->eta_seconds, p->group, (unsigned long long)p->step);
        fflush(stdout);
    } else {
        util_progress_update(&ui->bar, p->hashes_done);
    }
    return 0;
}

int cmd_solve(int argc, char **argv) {
    static const struct option opts[] = {
        {"mode", required_argument, 0, 'm'}, {"journal", required_argument, 0, 'J'},
        {"no-journal", no_argument, 0, 'N'}, {"checkpoint-every", required_argument, 0, 'c'},
        {"checkpoint-steps", required_argument, 0, 'C'}, {"signer-pin", required_argument, 0, 'p'},
        {"json", no_argument, 0, 'j'}, {"force", no_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'}, {0, 0, 0, 0}
    };
    tl_solve_opts so = { .mode = TL_MODE_FULL };
    const char *out = NULL, *journal = NULL, *pinhex = NULL;
    int json = 0, force = 0, nojournal = 0, mode_given = 0, c;
    char *end;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            mode_given = 1;
            if (!strcmp(optarg, "light")) so.mode = TL_MODE_LIGHT;
            else if (!strcmp(optarg, "full")) so.mode = TL_MODE_FULL;
            else return cli_usage_error(argv[0], "--mode: want full or light");
            break;
        case 'J': journal = optarg; break;
        case 'N': nojournal = 1; break;
        case 'c':
            errno = 0; so.checkpoint_seconds = strtod(optarg, &end);
            if (errno || *end || !(so.checkpoint_seconds >= 0) || so.checkpoint_seconds > 1e9)
                return cli_usage_error(argv[0], "--checkpoint-every: want seconds >= 0");
            if (so.checkpoint_seconds == 0) so.checkpoint_seconds = 1e-9;   /* every batch */
            break;
        case 'C':
            errno = 0;
            if (!*optarg || *optarg == '-') return cli_usage_error(argv[0], "--checkpoint-steps: want N >= 1");
            so.checkpoint_steps = strtoull(optarg, &end, 10);
            if (errno || *end || so.checkpoint_steps < 1) return cli_usage_error(argv[0], "--checkpoint-steps: want N >= 1");
            break;
        case 'p': pinhex = optarg; break;
        case 'j': json = 1; break;
        case 'f': force = 1; break;
        case 'o': out = optarg; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error(argv[0], "missing PUZZLE");
    if (optind + 1 < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind + 1]);
    if (!out) return cli_usage_error(argv[0], "missing -o IDENTITY");
    if (journal && nojournal) return cli_usage_error(argv[0], "--journal and --no-journal conflict");
    const char *path = argv[optind];
    uint8_t pin[32];
    size_t pinlen = 0;
    if (pinhex && (strlen(pinhex) != 64 || util_hex_decode(pinhex, pin, 32, &pinlen) != 0 || pinlen != 32))
        return cli_usage_error(argv[0], "--signer-pin: want 64 hex digits (an Ed25519 public key)");
    struct stat st;
    if (!force && lstat(out, &st) == 0) return cli_error("%s: already exists (use --force to overwrite)", out);

    char err[300];
    tl_puzzle *pz = NULL;
    int rc = tl_puzzle_load(path, &pz, err, sizeof err);
    if (rc) return cli_error("%s", err);
    rc = tl_puzzle_verify(pz, pinhex ? pin : NULL);
    if (rc) {
        tl_puzzle_free(pz);
        if (rc == TL_EPIN) return fprintf(stderr, "rxlock: %s: refused: not signed by the pinned key\n", path), CLI_VERIFY;
        if (rc == TL_ESIG) return fprintf(stderr, "rxlock: %s: refused: bad signature\n", path), CLI_VERIFY;
        return cli_error("%s: %s", path, tl_strerror(rc));
    }
    if (pz->test_only)
        fprintf(stderr, "rxlock: WARNING: %s is a TEST-ONLY puzzle (deterministic secrets); it protects nothing\n", path);
    if (pz->work == TL_WORK_SHA3_256) so.mode = TL_MODE_LIGHT;

    char jpath[PATH_MAX];
    if (!nojournal) {
        if (!journal) {
            if (snprintf(jpath, sizeof jpath, "%s.journal", out) >= (int)sizeof jpath) {
                tl_puzzle_free(pz);
                return cli_error("%s: path too long", out);
            }
            journal = jpath;
        }
        so.journal = journal;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    so.stop = &solve_stop;
    solve_ui ui = { .json = json };
    uint64_t total = (uint64_t)pz->groups * pz->steps;
    util_progress_init(&ui.bar, "solve", total, 0, json ? UTIL_PROGRESS_NEVER : UTIL_PROGRESS_AUTO);
    so.progress = on_progress;
    so.progress_ctx = &ui;
    uint8_t x[32];
    tl_solve_stats stats;
    double t0 = util_now();
    rc = tl_solve(pz, &so, x, &stats);
    if (rc == TL_ENOMEM && so.mode == TL_MODE_FULL && !mode_given) {
        fprintf(stderr, "rxlock: not enough memory for full mode; solving in light mode\n");
        so.mode = TL_MODE_LIGHT;
        rc = tl_solve(pz, &so, x, &stats);
    }
    double secs = util_now() - t0;
    util_progress_clear(&ui.bar);
    if (rc) {
        sodium_memzero(x, sizeof x);
        int ret = CLI_FAIL;
        if (rc == TL_EAUTH)
            cli_error("%s: group %u of %u: wrap failed to authenticate: the puzzle was tampered with or corrupted",
                      path, stats.failed_group, pz->groups);
        else if (rc == TL_EINTR)
            cli_error("interrupted; %s", so.journal ? "progress saved: re-run the same command to resume"
                                                    : "no journal, progress lost");
        else if (rc == TL_EJOURNAL)
            cli_error("%s: journal belongs to another puzzle, is corrupt, or is in use; remove it or pass --journal", journal);
        else if (rc == TL_EFORMAT && so.journal)
            cli_error("%s: not an rxlock journal", journal);
        else
            cli_error("%s: solve failed: %s", path, tl_strerror(rc));
        tl_puzzle_free(pz);
        return ret;
    }
    char comment[128], idhex[33];
    util_hex_encode(idhex, pz->id, 16);
    snprintf(comment, sizeof comment, "rxlock epoch identity for puzzle %s", idhex);
    int ret = CLI_OK;
    if (tl_age_identity_file_write(out, x, comment, force) != 0)
        ret = cli_error("%s: cannot write the identity: %s", out, strerror(errno));
    sodium_memzero(x, sizeof x);
    if (ret == CLI_OK && so.journal && journal == jpath) (void)unlink(jpath);
    if (ret == CLI_OK) {
        if (json)
            printf("{\"event\":\"solved\",\"identity\":\"%s\",\"steps_computed\":%llu,\"resumed_group\":%u,"
                   "\"resumed_step\":%llu,\"checkpoints\":%llu,\"seconds\":%.3f}\n", out,
                   (unsigned long long)stats.steps_computed, stats.resumed_group,
                   (unsigned long long)stats.resumed_step, (unsigned long long)stats.checkpoints, secs);
        else
            fprintf(stderr, "rxlock: solved %s: wrote %s (%llu hashes this run in %.1f s%s)\n", path, out,
                    (unsigned long long)stats.steps_computed, secs, stats.resumed_group ? ", resumed" : "");
    }
    tl_puzzle_free(pz);
    return ret;
}
