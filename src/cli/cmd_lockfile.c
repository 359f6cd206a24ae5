/* src/cli/cmd_lockfile.c — `rxlock lock FILE`: single-file time-lock.
 * Generates a puzzle, then writes FILE.rxlock = notice + puzzle + FILE
 * encrypted (age v1) to the puzzle's epoch recipient.  cmd_lock() calls
 * this when given a positional FILE argument. */
#include "cli/cli.h"
#include "cli/lock_opts.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/container.h"
#include "util/progress.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

int cmd_lock_file(int argc, char **argv) {
    static const struct option opts[] = {
        CLI_LOCK_LONG_OPTS, {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0}
    };
    cli_lock_opts lo;
    cli_lock_opts_init(&lo);
    const char *out = NULL, *in_path = NULL;
    int force = 0, quiet = 0, c, orc;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        if ((orc = cli_lock_opt(&lo, c, optarg, argv[0])) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (argc - optind != 1) return cli_usage_error(argv[0], argc - optind ? "give exactly one FILE" : "missing FILE");
    in_path = argv[optind];
    if ((orc = cli_lock_resolve(&lo, argv[0])) != 0) return orc;
    tl_params p = lo.p;
    tl_gen_opts go = lo.go;

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
    if (lo.sign_key) {
        int rc = tl_signer_load(lo.sign_key, sk, spk);
        if (rc) {
            util_atomic_abort(&a);
            if (in_fd > 0) close(in_fd);
            return cli_error("%s: cannot load signing key: %s", lo.sign_key, rc == TL_EIO ? strerror(errno) : tl_strerror(rc));
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
