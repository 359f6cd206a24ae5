/* src/cli/cmd_unlock.c — `rxlock unlock FILE.rxlock`: read the container,
 * solve its puzzle sequentially (resumable through FILE.rxlock.journal),
 * then decrypt the age payload with the recovered epoch identity. */
#include "cli/cli.h"
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
#include <unistd.h>

const char cmd_unlock_usage[] =
    "usage: rxlock unlock FILE.rxlock [-o OUT] [--mode light|full] [--force]\n"
    "                     [--journal PATH] [--save-identity FILE] [--quiet]\n"
    "  Solve the time-lock puzzle inside FILE.rxlock (made by 'rxlock lock FILE')\n"
    "  and write the plaintext to OUT (default: FILE, i.e. the name without\n"
    "  .rxlock).  Progress is journalled to FILE.rxlock.journal; interrupt at\n"
    "  any time and run the same command again to resume.  The journal is\n"
    "  removed after success.\n"
    "  -o, --output OUT       plaintext output (never overwritten without --force)\n"
    "      --mode light|full  RandomX mode (full: 2080 MiB, faster; default light)\n"
    "      --journal PATH     journal location (default FILE.rxlock.journal)\n"
    "      --save-identity F  also write the epoch identity (opens other files of\n"
    "                         the same epoch with 'age -d -i F')\n"
    "      --force            replace an existing OUT / identity file\n"
    "  -q, --quiet            no progress line\n"
    "  exit: 0 ok, 1 failure, 2 usage error, 3 verification failed (bad signature,\n"
    "        puzzle or payload does not match)\n";

static volatile int ul_stop;
static void ul_on_signal(int sig) { (void)sig; ul_stop = 1; }

static int ul_progress(const tl_progress *p, void *ctx) {
    util_progress_update(ctx, p->hashes_done);
    return 0;
}

static int ul_verify_code(int rc) {
    return (rc == TL_ESIG || rc == TL_EPIN || rc == TL_EAUTH || rc == TL_ECOMMIT) ? CLI_VERIFY : CLI_FAIL;
}

int cmd_unlock(int argc, char **argv) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"mode", required_argument, 0, 'm'},
        {"journal", required_argument, 0, 'j'}, {"save-identity", required_argument, 0, 'I'},
        {"force", no_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'}, {0, 0, 0, 0}
    };
    const char *out = NULL, *journal = NULL, *save_id = NULL;
    tl_mode mode = TL_MODE_LIGHT;
    int force = 0, quiet = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'm':
            if (!strcmp(optarg, "light")) mode = TL_MODE_LIGHT;
            else if (!strcmp(optarg, "full")) mode = TL_MODE_FULL;
            else return cli_usage_error(argv[0], "--mode: want light or full");
            break;
        case 'j': journal = optarg; break;
        case 'I': save_id = optarg; break;
        case 'f': force = 1; break;
        case 'q': quiet = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (argc - optind != 1) return cli_usage_error(argv[0], argc - optind ? "give exactly one FILE.rxlock" : "missing FILE.rxlock");
    const char *in_path = argv[optind];
    char defout[PATH_MAX], defjournal[PATH_MAX];
    size_t il = strlen(in_path);
    if (!out) {
        if (il <= 7 || strcmp(in_path + il - 7, ".rxlock") != 0)
            return cli_usage_error(argv[0], "%s does not end in .rxlock: give -o OUT", in_path);
        if (il - 7 >= sizeof defout) return cli_error("%s: name too long", in_path);
        memcpy(defout, in_path, il - 7);
        defout[il - 7] = 0;
        out = defout;
    }
    if (!journal) {
        if (snprintf(defjournal, sizeof defjournal, "%s.journal", in_path) >= (int)sizeof defjournal)
            return cli_error("%s: name too long", in_path);
        journal = defjournal;
    }
    if (sodium_init() < 0) return cli_error("libsodium failed to initialise");
    int fd = open(in_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cli_error("%s: %s", in_path, strerror(errno));
    char *json = NULL, err[256] = "";
    size_t len = 0;
    off_t off = 0;
    tl_puzzle *pz = NULL;
    uint8_t *x = NULL;
    int ret = CLI_FAIL, rc;
    util_atomic a;
    int a_open = 0;
    if (tl_container_parse(fd, &json, &len, &off, err, sizeof err) != 0) {
        ret = cli_error("%s: %s", in_path, err);
        goto out;
    }
    if ((rc = tl_puzzle_parse(json, len, &pz, err, sizeof err)) != 0) {
        ret = cli_error("%s: bad puzzle: %s", in_path, err[0] ? err : tl_strerror(rc));
        goto out;
    }
    if ((rc = tl_puzzle_verify(pz, NULL)) != 0) {
        ret = cli_error("%s: puzzle verification failed: %s", in_path, tl_strerror(rc));
        ret = ul_verify_code(rc);
        goto out;
    }
    /* Refuse an existing output before the long solve. */
    if (util_atomic_open(&a, out, force, 0600) != 0) {
        ret = cli_error("%s: %s%s", out, strerror(errno), errno == EEXIST ? " (use --force to replace it)" : "");
        goto out;
    }
    a_open = 1;
    x = sodium_malloc(32);
    if (!x) { ret = cli_error("out of memory"); goto out; }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ul_on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    util_progress bar;
    util_progress_init(&bar, "unlock", (uint64_t)pz->groups * pz->steps, 0,
                       quiet ? UTIL_PROGRESS_NEVER : UTIL_PROGRESS_AUTO);
    tl_solve_opts so = { .mode = mode, .journal = journal, .progress = ul_progress,
                         .progress_ctx = &bar, .stop = &ul_stop };
    tl_solve_stats st;
    rc = tl_solve(pz, &so, x, &st);
    if (rc) {
        util_progress_clear(&bar);
        if (rc == TL_EINTR)
            ret = cli_error("interrupted; progress is saved in %s: run the same command again to resume", journal);
        else {
            ret = cli_error("%s: solving failed: %s", in_path, tl_strerror(rc));
            ret = ul_verify_code(rc);
        }
        goto out;
    }
    util_progress_done(&bar);
    rc = tl_container_open_payload(fd, off, x, a.fd);
    if (rc) {
        ret = cli_error("%s: payload: %s", in_path, tl_age_strerror(rc));
        if (rc == TL_AGE_ENOMATCH) ret = CLI_VERIFY;
        goto out;
    }
    a_open = 0;
    if (util_atomic_commit(&a) != 0) {
        ret = cli_error("%s: %s%s", out, strerror(errno), errno == EEXIST ? " (use --force to replace it)" : "");
        goto out;
    }
    ret = CLI_OK;
    if (save_id) {
        char comment[96], idhex[33];
        util_hex_encode(idhex, pz->id, 16);
        snprintf(comment, sizeof comment, "rxlock epoch identity for puzzle %s", idhex);
        if (tl_age_identity_file_write(save_id, x, comment, force) != 0)
            ret = cli_error("%s: cannot write the identity: %s", save_id, strerror(errno));
    }
    if (unlink(journal) != 0 && errno != ENOENT)
        fprintf(stderr, "rxlock: warning: cannot remove %s: %s\n", journal, strerror(errno));
    if (!quiet)
        fprintf(stderr, "rxlock: wrote %s (%llu hashes computed%s)\n", out,
                (unsigned long long)st.steps_computed, st.resumed_group ? ", resumed from the journal" : "");
out:
    if (a_open) util_atomic_abort(&a);
    if (x) sodium_free(x);
    tl_puzzle_free(pz);
    free(json);
    close(fd);
    return ret;
}
