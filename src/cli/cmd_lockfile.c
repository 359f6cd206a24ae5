/* src/cli/cmd_lockfile.c — `rxlock lock FILE`: single-file time-lock.
 * Generates a puzzle, then writes FILE.rxlock = notice + puzzle + FILE
 * encrypted (age v1) to the puzzle's epoch recipient.  cmd_lock() calls
 * this when given a positional FILE argument. */
#include "cli/cli.h"
#include "rxlock.h"
#include "lock/age.h"
#include "lock/calibrate.h"
#include "lock/container.h"
#include "util/progress.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cmd_lock_file(int argc, char **argv);

static volatile int lf_stop;
static void lf_on_signal(int sig) { (void)sig; lf_stop = 1; }

static int lf_progress(const tl_progress *p, void *ctx) {
    util_progress_update(ctx, p->hashes_done);
    return lf_stop;
}

static int lf_duration(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end), mul = 1;
    if (errno || end == s || !(v > 0) || !isfinite(v)) return -1;
    if (*end) {
        if (end[1]) return -1;
        switch (*end) {
        case 's': mul = 1; break;
        case 'm': mul = 60; break;
        case 'h': mul = 3600; break;
        case 'd': mul = 86400; break;
        case 'w': mul = 7 * 86400.0; break;
        case 'y': mul = 365.25 * 86400; break;
        default: return -1;
        }
    }
    *out = v * mul;
    return 0;
}

static int lf_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    errno = 0;
    if (!*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cmd_lock_file(int argc, char **argv) {
    static const struct option opts[] = {
        {"work", required_argument, 0, 'w'}, {"groups", required_argument, 0, 'g'},
        {"steps", required_argument, 0, 's'}, {"time", required_argument, 0, 't'},
        {"rate", required_argument, 0, 'r'}, {"calibration", required_argument, 0, 'c'},
        {"mode", required_argument, 0, 'm'}, {"workers", required_argument, 0, 'n'},
        {"sign-key", required_argument, 0, 'k'}, {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0}
    };
    tl_params p = { .work = TL_WORK_RANDOMX_V2 };
    strcpy(p.rate_source, "none");
    tl_gen_opts go = { .retries = 1 };
    const char *out = NULL, *calib = NULL, *sign_key = NULL, *in_path = NULL;
    uint64_t groups = 0, steps = 0, v;
    double duration = 0, rate = 0;
    int force = 0, quiet = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'w': if (tl_work_parse(optarg, &p.work)) return cli_usage_error(argv[0], "unknown work function '%s'", optarg); break;
        case 'g': if (lf_u64(optarg, 1, TL_MAX_GROUPS, &groups)) return cli_usage_error(argv[0], "--groups: want 1..%u", TL_MAX_GROUPS); break;
        case 's': if (lf_u64(optarg, 1, TL_MAX_STEPS, &steps)) return cli_usage_error(argv[0], "--steps: want 1..2^40"); break;
        case 't': if (lf_duration(optarg, &duration)) return cli_usage_error(argv[0], "--time: want e.g. 90s, 30m, 12h, 7d, 2w, 1y"); break;
        case 'r': {
            char *end; errno = 0; rate = strtod(optarg, &end);
            if (errno || *end || !(rate > 0) || rate > 1e15) return cli_usage_error(argv[0], "--rate: want a positive number of hashes/s");
            break;
        }
        case 'c': calib = optarg; break;
        case 'm':
            if (!strcmp(optarg, "light")) go.mode = TL_MODE_LIGHT;
            else if (!strcmp(optarg, "full")) go.mode = TL_MODE_FULL;
            else return cli_usage_error(argv[0], "--mode: want light or full");
            break;
        case 'n': if (lf_u64(optarg, 1, 1024, &v)) return cli_usage_error(argv[0], "--workers: want 1..1024"); go.workers = (unsigned)v; break;
        case 'k': sign_key = optarg; break;
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (argc - optind != 1) return cli_usage_error(argv[0], argc - optind ? "give exactly one FILE" : "missing FILE");
    in_path = argv[optind];
    if (rate > 0 && calib) return cli_usage_error(argv[0], "give --rate or --calibration, not both");
    if (duration > 0 && steps) return cli_usage_error(argv[0], "give --steps or --time, not both");
    if (!duration && (!groups || !steps)) return cli_usage_error(argv[0], "need --groups G --steps S, or --time DURATION");
    if (calib) {
        tl_calibration cal;
        char err[256];
        if (tl_calibration_load(calib, &cal, err, sizeof err)) return cli_error("%s", err);
        if (cal.work != p.work)
            return cli_error("%s: calibration is for %s, not %s", calib, tl_work_name(cal.work), tl_work_name(p.work));
        rate = cal.rate;
        snprintf(p.rate_source, sizeof p.rate_source, "calibration (%s)", cal.mode == TL_MODE_FULL ? "full" : "light");
    } else if (rate > 0) {
        strcpy(p.rate_source, "flag");
    }
    if (duration > 0) {
        if (!(rate > 0)) return cli_usage_error(argv[0], "--time needs --rate or --calibration");
        double total = ceil(duration * rate);
        if (total > (double)TL_MAX_TOTAL) return cli_error("--time x rate = %.3g hashes exceeds 2^48", total);
        if (!groups) groups = go.workers ? go.workers : (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
        if (groups < 1) groups = 1;
        if (groups > TL_MAX_GROUPS) groups = TL_MAX_GROUPS;
        if ((double)groups > total) groups = (uint64_t)total;
        steps = (uint64_t)ceil(total / (double)groups);
        if (steps > TL_MAX_STEPS) return cli_error("--time: too many steps per group; use more --groups");
        p.target_seconds = (uint64_t)llround(duration);
    }
    if (steps > TL_MAX_TOTAL / groups) return cli_error("groups x steps exceeds 2^48");
    p.groups = (uint32_t)groups;
    p.steps = steps;
    p.rate_mhps = (uint64_t)llround(rate * 1000.0);

    char defout[PATH_MAX];
    if (!out) {
        if (!strcmp(in_path, "-")) return cli_usage_error(argv[0], "reading stdin needs -o OUT");
        if (snprintf(defout, sizeof defout, "%s.rxlock", in_path) >= (int)sizeof defout)
            return cli_error("%s: name too long", in_path);
        out = defout;
    }
    int in_fd = 0;
    if (strcmp(in_path, "-") != 0) {
        struct stat st;
        if ((in_fd = open(in_path, O_RDONLY | O_CLOEXEC)) < 0) return cli_error("%s: %s", in_path, strerror(errno));
        if (fstat(in_fd, &st) != 0 || S_ISDIR(st.st_mode)) {
            close(in_fd);
            return cli_error("%s: is a directory", in_path);
        }
    }
    /* Refuse an existing output before spending the generation work. */
    util_atomic a;
    if (util_atomic_open(&a, out, force, 0644) != 0) {
        int e = errno;
        if (in_fd > 0) close(in_fd);
        return cli_error("%s: %s%s", out, strerror(e), e == EEXIST ? " (use --force to replace it)" : "");
    }
    uint8_t sk[64], spk[32], pk[32];
    if (sign_key) {
        int rc = tl_signer_load(sign_key, sk, spk);
        if (rc) {
            util_atomic_abort(&a);
            if (in_fd > 0) close(in_fd);
            return cli_error("%s: cannot load signing key: %s", sign_key, rc == TL_EIO ? strerror(errno) : tl_strerror(rc));
        }
        p.sign_sk = sk;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = lf_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    util_progress bar;
    util_progress_init(&bar, "lock", (uint64_t)p.groups * p.steps, 0, quiet ? UTIL_PROGRESS_NEVER : UTIL_PROGRESS_AUTO);
    go.progress = lf_progress;
    go.progress_ctx = &bar;
    go.stop = &lf_stop;
    char *json = NULL;
    size_t len = 0;
    int rc = tl_generate(&p, &go, &json, &len, pk, NULL);
    sodium_memzero(sk, sizeof sk);
    if (rc) {
        util_progress_clear(&bar);
        util_atomic_abort(&a);
        if (in_fd > 0) close(in_fd);
        return cli_error("lock failed: %s; nothing written", lf_stop ? "interrupted" : tl_strerror(rc));
    }
    util_progress_done(&bar);
    tl_puzzle *pz = NULL;
    char err[256] = "";
    int ret = CLI_OK;
    if (tl_puzzle_parse(json, len, &pz, err, sizeof err) != 0) {
        ret = cli_error("generated puzzle does not parse: %s", err);
    } else if (memcmp(pz->epoch_pk, pk, 32) != 0) {
        ret = cli_error("generated puzzle does not match its epoch key");
    } else {
        int e = tl_container_write(a.fd, in_fd, pz, json, len, out);
        if (e != 0) ret = cli_error("%s: %s%s%s", out, tl_age_strerror(e), e == TL_AGE_EIO ? ": " : "",
                                    e == TL_AGE_EIO ? strerror(errno) : "");
    }
    if (in_fd > 0) close(in_fd);
    if (ret == CLI_OK && util_atomic_commit(&a) != 0)
        ret = cli_error("%s: %s%s", out, strerror(errno), errno == EEXIST ? " (use --force to replace it)" : "");
    else if (ret != CLI_OK)
        util_atomic_abort(&a);
    if (ret == CLI_OK && !quiet) {
        char rcp[TL_AGE_RECIPIENT_MAX];
        double total = (double)p.groups * (double)p.steps;
        if (tl_age_recipient_encode(pk, rcp) == 0)
            fprintf(stderr, "rxlock: wrote %s (%u x %llu %s hashes = %.0f; epoch recipient %s)\n",
                    out, p.groups, (unsigned long long)p.steps, tl_work_name(p.work), total, rcp);
    }
    tl_puzzle_free(pz);
    free(json);
    return ret;
}
