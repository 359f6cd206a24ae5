/* SPDX-License-Identifier: ISC */
/* src/cli/lock/lockfile.c — `rxlock lock FILE`: single-file time-lock.
 * Generates a puzzle, then writes FILE.rxlock = notice + puzzle + FILE
 * encrypted (age v1) to the puzzle's epoch recipient.  cmd_lock() calls
 * this when given a positional FILE argument.  FILE '-' is standard input
 * (refused when it is a terminal: the generation runs first, so a prompt
 * would come minutes late); its container goes to standard output unless
 * -o OUT is given (refused when stdout is a terminal: binary payload).
 * -q: no progress, no summary; --json: progress and the result as JSON
 * lines on stdout (not with the container on stdout).  With a named FILE
 * and OUT the generation state is kept, sealed, in OUT.state/
 * (state.c, lockfile_state.c) and the container is written there
 * first, checked completely before a re-run links it, then linked to OUT;
 * --no-resume keeps it in memory. */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "cli/lock/lock_cli.h"
#include "cli/lock_opts.h"
#include "cli/lock/state.h"
#include "cli/lock/lockfile_state.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/container.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    cli_lock_opts lo;
    const char *out, *in_path;
    int force, quiet, json, to_stdout, no_resume;
    int finished;               /* 1: OUT.state holds the finished container, checked */
    int out_ours;               /* OUT is the state's container (linked by an earlier run) */
    cli_lock_state st;          /* st.dir[0] == 0: in memory */
    char defout[PATH_MAX];
} lockfile_args;

static int parse_args(int argc, char **argv, lockfile_args *a) {
    static const struct option opts[] = {
        CLI_LOCK_LONG_OPTS, {"output", required_argument, 0, 'o'},
        {"force", no_argument, 0, 'f'}, {"quiet", no_argument, 0, 'q'},
        {"json", no_argument, 0, 'j'}, {"no-resume", no_argument, 0, 'N'}, {0, 0, 0, 0}
    };
    int c, orc;
    cli_lock_opts_init(&a->lo);
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        if ((orc = cli_lock_opt(&a->lo, c, optarg, argv[0])) >= 0) {
            if (orc) return orc;
            continue;
        }
        switch (c) {
        case 'o': a->out = optarg; break;
        case 'f': a->force = 1; break;
        case 'q': a->quiet = 1; break;
        case 'j': a->json = 1; break;
        case 'N': a->no_resume = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (argc - optind != 1) return cli_usage_error(argv[0], argc - optind ? "give exactly one FILE" : "missing FILE");
    a->in_path = argv[optind];
    int from_stdin = !strcmp(a->in_path, "-");
    if (from_stdin && isatty(0))
        return cli_usage_error(argv[0], "refusing to read the file to lock from a terminal; redirect or pipe it");
    if (!a->out && !from_stdin) {
        if (snprintf(a->defout, sizeof a->defout, "%s.rxlock", a->in_path) >= (int)sizeof a->defout)
            return cli_error("%s: name too long", a->in_path);
        a->out = a->defout;
    }
    a->to_stdout = !a->out || !strcmp(a->out, "-");
    if (a->to_stdout && isatty(1))
        return cli_usage_error(argv[0], "refusing to write the container to a terminal; give -o OUT or redirect");
    if (a->to_stdout && a->json)
        return cli_usage_error(argv[0], "--json and the container on standard output both write to stdout; give -o OUT");
    cli_lock_pq_default(&a->lo, 1);      /* containers are post-quantum by default */
    int rc = cli_lock_resolve(&a->lo, argv[0]);
    if (rc || a->lo.dry_run || a->no_resume || from_stdin || a->to_stdout) return rc;   /* '-': nothing to resume from or into */
    if ((rc = cli_lock_state_init(&a->st, a->out, "container.rxlock", NULL)) || (rc = cli_lock_state_kind(&a->st)))
        return rc;
    cli_lock_state_tidy(&a->st);
    a->lo.go.state_dir = a->st.dir;
    a->lo.go.state_files = a->st.files;
    a->out_ours = cli_lock_state_out_is_fin(&a->st);
    return CLI_OK;
}

/* 1 when the container open on fd has exactly the length its age payload
 * (header from off, ending in its "--- MAC" line) needs for a plaintext
 * of `size` bytes: 16-byte nonce, 64 KiB chunks each with a 16-byte tag
 * (docs/AGE.md).  A cut a plausible length would hide is found here. */
static int payload_len_ok(int fd, off_t off, uint64_t size) {
    char buf[16384];
    struct stat st;
    ssize_t n = pread(fd, buf, sizeof buf - 1, off);
    if (n <= 0 || fstat(fd, &st) != 0) return 0;
    buf[n] = 0;
    const char *mac = NULL;
    for (ssize_t i = 0; i + 4 < n && !mac; i++)
        if (buf[i] == '\n' && !memcmp(buf + i + 1, "--- ", 4)) mac = buf + i + 1;
    const char *end = mac ? memchr(mac, '\n', (size_t)(buf + n - mac)) : NULL;
    if (!end) return 0;
    uint64_t chunks = size ? (size + 65535) / 65536 : 1;
    uint64_t want = (uint64_t)off + (uint64_t)(end + 1 - buf) + 16 + size + 16 * chunks;
    return (uint64_t)st.st_size == want;
}

/* The container a stopped run finished in OUT.state/, checked completely
 * (prelude, puzzle and its signature, this command's parameters, the age
 * payload's header and length): CLI_OK with its puzzle text and epoch key;
 * CLI_FAIL after a message; -1 when there is none or it does not check and
 * the state can make it again (it is then removed). */
static int finished_container(const lockfile_args *a, char **json, size_t *len, uint8_t pk[32]) {
    char err[256] = "";
    off_t off;
    tl_puzzle *pz = NULL;
    int fd = cli_lock_state_fin_open(&a->st);
    if (fd == -1) return -1;
    if (fd < 0) return CLI_FAIL;
    int e = tl_container_parse(fd, json, len, &off, err, sizeof err);
    if (e == TL_OK && tl_puzzle_parse(*json, *len, &pz, err, sizeof err) != 0) e = TL_EFORMAT;
    const tl_params *p = &a->lo.p;
    if (e == TL_OK && !(pz->work == p->work && pz->groups == p->groups && pz->steps == p->steps &&
                        pz->pq_epoch == (p->pq ? 1 : 0))) {
        int rc = cli_error("%s: holds the finished container of another lock (%s, %u x %llu steps, %s epoch key): run "
                           "the same command to finish it, or remove the directory", a->st.dir, tl_work_name(pz->work),
                           pz->groups, (unsigned long long)pz->steps, pz->pq_epoch ? "post-quantum" : "classic");
        tl_puzzle_free(pz);
        free(*json);
        *json = NULL;
        close(fd);
        return rc;
    }
    if (e == TL_OK && lseek(fd, off, SEEK_SET) != off) e = TL_EIO;
    if (e == TL_OK && (e = age_check_fd(fd)) != 0) snprintf(err, sizeof err, "its encrypted payload: %s", age_strerror(e));
    struct stat in;
    if (e == TL_OK && stat(a->in_path, &in) == 0 && !payload_len_ok(fd, off, (uint64_t)in.st_size)) {
        e = TL_EFORMAT;
        snprintf(err, sizeof err, "its encrypted payload is not the length of %s's", a->in_path);
    }
    close(fd);
    if (e == TL_OK) {
        memcpy(pk, pz->epoch_pk, 32);
        tl_puzzle_free(pz);
        return CLI_OK;
    }
    tl_puzzle_free(pz);
    free(*json);
    *json = NULL;
    if (!cli_lock_state_can_resume(&a->st))
        return cli_error("%s/container.rxlock: damaged (%s) and the state can no longer make it again: remove %s/ "
                         "to start over", a->st.dir, err[0] ? err : strerror(errno), a->st.dir);
    fprintf(stderr, "rxlock: %s/container.rxlock: damaged (%s): writing it again from the generation state\n",
            a->st.dir, err[0] ? err : strerror(errno));
    return cli_lock_state_fin_drop(&a->st) == CLI_OK ? -1 : CLI_FAIL;
}

/* Container to out_fd: the notice, the puzzle text (pz: its parse, checked
 * against pk) and the age payload. */
static int write_container(const lockfile_args *a, int out_fd, int in_fd, const char *json, size_t len,
                           const tl_puzzle *pz, const uint8_t pk[32], char rcp[TL_AGE_PQ_RECIPIENT_MAX]) {
    int ret = CLI_OK;
    if (memcmp(pz->epoch_pk, pk, 32) != 0) {
        ret = cli_error("generated puzzle does not match its epoch key");
    } else {
        const char *name = a->to_stdout ? "FILE.rxlock" : a->out;   /* for the notice */
        if (cli_epoch_recipient(pz, rcp) != CLI_OK) strcpy(rcp, "?");
        char notice[TL_CONTAINER_NOTICE_MAX];
        const int state = a->st.dir[0] != 0 && !a->to_stdout;   /* written inside OUT.state/ */
        int e = tl_container_notice(notice, sizeof notice, pz, name);
        if (e == 0 && state && util_test_enospc(a->st.fin)) e = TL_AGE_EIO;   /* test build: a full disk */
        else if (e == 0) e = tl_container_write(out_fd, in_fd, pz, json, len, notice);
        else e = TL_AGE_EINVAL;
        if (e == TL_AGE_EIO && state && (errno == ENOSPC || errno == EDQUOT))
            ret = cli_lock_state_write_error(&a->st, a->st.fin, errno);
        else if (e != 0)
            ret = cli_error("%s: %s%s%s", a->to_stdout ? "stdout" : a->out, age_strerror(e), e == TL_AGE_EIO ? ": " : "",
                            e == TL_AGE_EIO ? strerror(errno) : "");
    }
    return ret;
}

/* --json: the {"event":"done"} line, what the summary says. */
static int report_json(const lockfile_args *a, const char *rcp, const tl_puzzle *pz) {
    const tl_params *p = &a->lo.p;
    tl_promise pr;
    tl_promise_of(pz, &a->lo.ft, &pr);
    return cli_print_json(json_pack("{s:s, s:s, s:s?, s:b, s:s, s:s, s:s, s:i, s:I, s:s, s:s*, s:f, s:f, s:f, s:s?, s:f, "
                                    "s:I, s:I}",
                                    "event", "done", "command", "lock", "output", a->to_stdout ? NULL : a->out,
                                    "container", 1, "input", a->in_path,
                                    "recipient", rcp, "epoch_key", p->pq ? "post-quantum" : "classic",
                                    "groups", (int)p->groups, "steps", (json_int_t)p->steps,
                                    "work", tl_work_name(p->work), "engine", a->lo.engine.engine,
                                    "promise_seconds", pr.here_seconds, "promise_hash_seconds", pr.hash_seconds,
                                    "promise_setup_seconds", pr.setup_seconds,
                                    "floor_machine", pr.floor ? pr.floor->machine : NULL,
                                    "floor_seconds", pr.floor_seconds,
                                    "steps_resumed", (json_int_t)a->lo.stats.steps_resumed,
                                    "steps_lost", (json_int_t)a->lo.stats.steps_lost));
}

int cmd_lock_file(int argc, char **argv) {
    lockfile_args a = {0};
    int ret = parse_args(argc, argv, &a);
    if (ret) return ret;
    if (a.lo.dry_run) return cli_lock_dry_run(&a.lo, "lock FILE");
    const int state = a.st.dir[0] != 0;
    uint8_t pk[32];
    char *json = NULL;
    size_t len = 0;
    static char rcp[TL_AGE_PQ_RECIPIENT_MAX];
    if (state) {   /* a container an earlier run finished: checked completely first */
        int f = finished_container(&a, &json, &len, pk);
        if (f == CLI_FAIL) return f;
        a.finished = f == CLI_OK;
    }
    /* Check every file and open the input before the generation work; the
     * output's temp file is made only when writing starts. */
    const cli_path files[] = {
        { a.lo.sign_key, "--sign-key", CLI_PATH_IN }, { a.lo.calib, "--calibration", CLI_PATH_IN },
        { a.in_path, "FILE", CLI_PATH_IN }, { a.to_stdout ? NULL : a.out, "-o", CLI_PATH_OUT }
    };
    /* a run stopped after linking the container: OUT is this run's */
    if ((ret = cli_paths_check(files, sizeof files / sizeof files[0], a.force || a.out_ours))) { free(json); return ret; }
    cli_io io;
    if ((ret = cli_io_open(&io, a.in_path, NULL, a.force, 0644))) { free(json); return ret; }
    tl_puzzle *pz = NULL;    /* the puzzle, parsed once */
    int changed = 0;
    if (state && (ret = cli_lockfile_input(&a.st, io.in_fd, a.in_path, a.force, &changed))) {
        cli_io_finish(&io, 0);
        free(json);
        return ret;
    }
    if (a.finished && changed) {   /* --force: the finished container holds the old content */
        free(json);
        json = NULL;
        a.finished = 0;
        if (!cli_lock_state_can_resume(&a.st)) {
            cli_io_finish(&io, 0);
            return cli_error("%s: its container is finished and the state can no longer make it again: remove %s/ "
                             "to lock the file as it is now", a.st.dir, a.st.dir);
        }
        if ((ret = cli_lock_state_fin_drop(&a.st))) { cli_io_finish(&io, 0); return ret; }
    }
    if (a.finished) {        /* the container is written: link it */
        io.out_path = NULL;
        cli_io_finish(&io, 0);
        if (!a.quiet && !a.json) fprintf(stderr, "rxlock: %s: finished by an earlier run (kept in %s/)\n", a.out, a.st.dir);
        ret = cli_lock_state_commit(&a.st, a.force || a.out_ours);
        if (ret == CLI_OK && tl_puzzle_parse(json, len, &pz, NULL, 0) != 0) ret = cli_error("%s: the finished puzzle does not parse", a.out);
        if (ret == CLI_OK && cli_epoch_recipient(pz, rcp) != CLI_OK) strcpy(rcp, "?");
    } else {
        if (!a.quiet && !a.json) cli_lock_estimate(&a.lo, stderr);   /* before the work */
        ret = cli_lock_generate(&a.lo, "lock", cli_progress_when(a.quiet, a.json, a.lo.progress), a.json, &json, &len,
                                &pz, pk, NULL);
        /* with a state the container goes into it first (its temp file too) */
        if (ret == CLI_OK && state && (ret = cli_lockfile_input(&a.st, io.in_fd, a.in_path, a.force, &changed)) != CLI_OK)
            fprintf(stderr, "rxlock: the finished generation is kept in %s/\n", a.st.dir);
        char ctr[PATH_MAX + 32];
        snprintf(ctr, sizeof ctr, "%s/%s", a.st.dir, a.st.fin);
        if (ret == CLI_OK && !a.to_stdout) ret = cli_io_open_out(&io, state ? ctr : a.out, state || a.force, 0644);
        if (ret == CLI_OK) ret = write_container(&a, io.out_fd, io.in_fd, json, len, pz, pk, rcp);
        else io.out_path = NULL;
        int fin = cli_io_finish(&io, ret == CLI_OK);
        if (ret == CLI_OK) ret = fin;
        if (ret == CLI_OK && state) util_kill_point("lockfile-written");   /* test build */
        if (ret == CLI_OK && state) ret = cli_lock_state_commit(&a.st, a.force || a.out_ours);
    }
    if (ret == CLI_OK && a.json) ret = report_json(&a, rcp, pz);
    else if (ret == CLI_OK && !a.quiet) {
        const tl_params *p = &a.lo.p;
        char eng[64];
        if (a.finished) snprintf(eng, sizeof eng, "computed by an earlier run");
        else cli_engine_text(&a.lo.engine, eng, sizeof eng);
        /* the 1,959-character age1pq1 recipient is abbreviated; inspect shows it */
        fprintf(stderr, "rxlock: wrote %s (%u x %llu %s hashes = %.0f, %s; %sepoch recipient %.*s%s)\n",
                a.to_stdout ? "the container to standard output" : a.out, p->groups,
                (unsigned long long)p->steps, tl_work_name(p->work),
                (double)p->groups * (double)p->steps, eng, p->pq ? "post-quantum " : "",
                p->pq ? 24 : (int)strlen(rcp), rcp, p->pq ? "..." : "");
        char open_cmd[PATH_MAX + 32];   /* the promise and how to open it */
        snprintf(open_cmd, sizeof open_cmd, "rxlock unlock %s", a.to_stdout ? "FILE.rxlock" : a.out);
        cli_lock_promise(&a.lo, pz, open_cmd);
    }
    tl_puzzle_free(pz);
    free(json);
    return ret;
}
