/* src/cli/cmd_unlock.c — `rxlock unlock FILE.rxlock`: read the container,
 * solve its puzzle sequentially (resumable through FILE.rxlock.journal),
 * then decrypt the age payload with the recovered epoch identity. */
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/container.h"
#include "util/progress.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char cmd_unlock_usage[] =
    "usage: rxlock unlock FILE.rxlock [-o OUT] [--mode light|full] [--force]\n"
    "                     [--journal PATH] [--save-identity FILE] [--signer-pin HEX]\n"
    "                     [--quiet | --progress]\n"
    "  Solve the time-lock puzzle inside FILE.rxlock (made by 'rxlock lock FILE')\n"
    "  and write the plaintext to OUT (default: FILE, i.e. the name without\n"
    "  .rxlock).  Progress is journalled to FILE.rxlock.journal; interrupt at\n"
    "  any time and run the same command again to resume.  The journal is\n"
    "  removed after success; a puzzle refused before any work leaves no file.\n"
    "  -o, --output OUT       plaintext output (never overwritten without --force)\n"
    "      --mode light|full  RandomX mode (full: 2080 MiB, faster; default light)\n"
    "      --journal PATH     journal location (default FILE.rxlock.journal)\n"
    "      --save-identity F  also write the epoch identity (opens other files of\n"
    "                         the same epoch with 'age -d -i F')\n"
    "      --signer-pin HEX   refuse (before any work) unless the puzzle is signed\n"
    "                         by this Ed25519 public key (64 hex digits)\n"
    "      --force            replace an existing OUT / identity file\n"
    "  -q, --quiet            no progress line, no summary\n"
    "      --progress         progress line even when stderr is not a TTY\n"
    "  exit: 0 ok, 1 failure, 2 usage error, 3 verification failed (bad signature,\n"
    "        puzzle or payload does not match)\n";

typedef struct {
    const char *in_path, *out, *journal, *save_id, *pinhex;
    tl_mode mode;
    int force, quiet, progress;
    uint8_t pin[32];
    char defout[PATH_MAX], defjournal[PATH_MAX];
} unlock_args;

static int parse_args(int argc, char **argv, unlock_args *a) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"mode", required_argument, 0, 'm'},
        {"journal", required_argument, 0, 'j'}, {"save-identity", required_argument, 0, 'I'},
        {"signer-pin", required_argument, 0, 'p'}, {"force", no_argument, 0, 'f'},
        {"quiet", no_argument, 0, 'q'}, {"progress", no_argument, 0, 'P'}, {0, 0, 0, 0}
    };
    int c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->out = optarg; break;
        case 'm': if (cli_parse_mode(optarg, &a->mode)) return cli_usage_error(argv[0], "--mode: want light or full"); break;
        case 'j': a->journal = optarg; break;
        case 'I': a->save_id = optarg; break;
        case 'p': a->pinhex = optarg; break;
        case 'f': a->force = 1; break;
        case 'q': a->quiet = 1; break;
        case 'P': a->progress = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (argc - optind != 1) return cli_usage_error(argv[0], argc - optind ? "give exactly one FILE.rxlock" : "missing FILE.rxlock");
    if (a->pinhex && cli_parse_pin(a->pinhex, a->pin))
        return cli_usage_error(argv[0], "--signer-pin: want 64 hex digits (an Ed25519 public key)");
    a->in_path = argv[optind];
    size_t il = strlen(a->in_path);
    if (!a->out) {
        if (il <= 7 || strcmp(a->in_path + il - 7, ".rxlock") != 0)
            return cli_usage_error(argv[0], "%s does not end in .rxlock: give -o OUT", a->in_path);
        if (il - 7 >= sizeof a->defout) return cli_error("%s: name too long", a->in_path);
        memcpy(a->defout, a->in_path, il - 7);
        a->defout[il - 7] = 0;
        a->out = a->defout;
    }
    if (!a->journal) {
        if (snprintf(a->defjournal, sizeof a->defjournal, "%s.journal", a->in_path) >= (int)sizeof a->defjournal)
            return cli_error("%s: name too long", a->in_path);
        a->journal = a->defjournal;
    }
    return CLI_OK;
}

/* Read the container's puzzle and check it: CLI_OK or an exit code. */
static int load_puzzle(const unlock_args *a, int fd, tl_puzzle **pz, off_t *off) {
    char *json = NULL, err[256] = "";
    size_t len = 0;
    int rc;
    if (tl_container_parse(fd, &json, &len, off, err, sizeof err) != 0) return cli_error("%s: %s", a->in_path, err);
    rc = tl_puzzle_parse(json, len, pz, err, sizeof err);
    free(json);
    if (rc) return cli_error("%s: bad puzzle: %s", a->in_path, err[0] ? err : tl_strerror(rc));
    return cli_check_puzzle(a->in_path, *pz, a->pinhex ? a->pin : NULL);
}

/* Solve, then decrypt the payload into the atomic output. */
static int solve_and_open(const unlock_args *a, int fd, off_t off, const tl_puzzle *pz, util_atomic *out,
                          uint8_t *x, tl_solve_stats *st) {
    cli_progress ui;
    cli_progress_init(&ui, "unlock", (uint64_t)pz->groups * pz->steps, cli_progress_when(a->quiet, 0, a->progress), 0);
    tl_solve_opts so = { .mode = a->mode, .journal = a->journal, .progress = cli_progress_cb,
                         .progress_ctx = &ui, .stop = cli_catch_signals() };
    ui.stop = so.stop;
    int rc = tl_solve(pz, &so, x, st);
    cli_progress_end(&ui, rc == TL_OK);
    if (rc == TL_EINTR)
        return cli_error("interrupted; progress is saved in %s: run the same command again to resume", a->journal);
    if (rc) {
        cli_work_error(a->in_path, rc, pz->work);
        return (rc == TL_EAUTH || rc == TL_ECOMMIT) ? CLI_VERIFY : CLI_FAIL;
    }
    rc = tl_container_open_payload(fd, off, x, out->fd);
    if (rc) {
        cli_error("%s: payload: %s", a->in_path, tl_age_strerror(rc));
        return rc == TL_AGE_ENOMATCH ? CLI_VERIFY : CLI_FAIL;
    }
    return CLI_OK;
}

int cmd_unlock(int argc, char **argv) {
    unlock_args a = { .mode = TL_MODE_LIGHT };
    int ret = parse_args(argc, argv, &a);
    if (ret) return ret;
    if (sodium_init() < 0) return cli_error("libsodium failed to initialise");
    int fd = open(a.in_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cli_error("%s: %s", a.in_path, strerror(errno));
    tl_puzzle *pz = NULL;
    uint8_t *x = NULL;
    off_t off = 0;
    util_atomic out;
    int out_open = 0;
    tl_solve_stats st;
    if ((ret = load_puzzle(&a, fd, &pz, &off))) goto done;
    /* Refuse an existing output before the long solve. */
    if (util_atomic_open(&out, a.out, a.force, 0600) != 0) { ret = cli_output_error(a.out); goto done; }
    out_open = 1;
    if (!(x = sodium_malloc(32))) { ret = cli_error("out of memory"); goto done; }
    if ((ret = solve_and_open(&a, fd, off, pz, &out, x, &st))) goto done;
    out_open = 0;
    if (util_atomic_commit(&out) != 0) { ret = cli_output_error(a.out); goto done; }
    if (a.save_id) ret = cli_write_identity(a.save_id, x, pz, "", a.force);
    if (unlink(a.journal) != 0 && errno != ENOENT)
        fprintf(stderr, "rxlock: warning: cannot remove %s: %s\n", a.journal, strerror(errno));
    char eng[64];
    cli_engine_text(&st.engine, eng, sizeof eng);
    if (!a.quiet)
        fprintf(stderr, "rxlock: wrote %s (%llu hashes computed, %s%s)\n", a.out, (unsigned long long)st.steps_computed,
                eng, st.resumed_group ? ", resumed from the journal" : "");
done:
    if (out_open) util_atomic_abort(&out);
    if (x) sodium_free(x);
    tl_puzzle_free(pz);
    close(fd);
    return ret;
}
