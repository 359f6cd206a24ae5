/* SPDX-License-Identifier: ISC */
/* src/cli/lock/unlock.c — `rxlock unlock FILE.rxlock`: read the container,
 * solve its puzzle sequentially (resumable through FILE.rxlock.journal),
 * then decrypt the age payload with the recovered epoch identity.  A run
 * stopped after it wrote OUT and before it removed the journal is finished
 * by the same command: the payload opened again from the journal's final
 * state and compared, streaming, with OUT. */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/container.h"
#include "cli/progress.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char cmd_unlock_usage[] =
    "usage: rxlock unlock FILE.rxlock|- [-o, --output OUT|-] [--mode light|full] [--force]\n"
    "                     [--journal PATH] [--save-identity FILE|-] [--signer-pin HEX]\n"
    "                     [-q, --quiet | --progress | --json]\n"
    "  Solve the time-lock puzzle inside FILE.rxlock (made by 'rxlock lock FILE')\n"
    "  and write the plaintext to OUT (default: FILE, i.e. the name without\n"
    "  .rxlock).  Progress is journalled to FILE.rxlock.journal; interrupt at\n"
    "  any time and run the same command again to resume.  Every file is checked\n"
    "  before the work: outputs must not exist (unless --force) nor name the same\n"
    "  file as another, and the payload's header and length are checked.  The\n"
    "  journal is removed only once everything was written; a puzzle refused\n"
    "  before any work leaves no file.  A run stopped after writing OUT, before\n"
    "  removing the journal, is finished by the same command (OUT compared with\n"
    "  the plaintext the journal's final state opens; nothing recomputed).\n"
    "  '-' as FILE reads standard input (then give -o OUT, or --journal PATH);\n"
    "  '-o -' writes the plaintext to standard output.\n"
    "  -o, --output OUT       plaintext output (never overwritten without --force)\n"
    "      --mode light|full  RandomX mode (default: full when its 2.3 GiB fit here,\n"
    "                         2.7-4.5x faster; else light, with one warning line)\n"
    "      --journal PATH     journal location (default FILE.rxlock.journal)\n"
    "      --save-identity F  also write the epoch identity (opens other files of\n"
    "                         the same epoch with 'age -d -i F')\n"
    "      --signer-pin HEX   refuse (before any work) unless the puzzle is signed\n"
    "                         by this Ed25519 public key (64 hex digits)\n"
    "      --force            replace an existing OUT / identity file\n"
    "  -q, --quiet            no progress line, no summary\n"
    "      --progress         progress line even when stderr is not a TTY\n"
    "      --json             progress and result as JSON lines on stdout\n"
    "  exit: 0 ok, 1 failure, 2 usage error, 3 verification failed (bad signature,\n"
    "        puzzle or payload does not match), 128+N killed by signal N (130: Ctrl-C)\n";

typedef struct {
    const char *in_path, *out, *journal, *save_id, *pinhex;
    tl_mode mode;
    int mode_req;   /* -1: the mode policy */
    int force, quiet, progress, json;
    uint8_t pin[32];
    char defout[PATH_MAX], defjournal[PATH_MAX];
} unlock_args;

static int parse_args(int argc, char **argv, unlock_args *a) {
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'}, {"mode", required_argument, 0, 'm'},
        {"journal", required_argument, 0, 'j'}, {"save-identity", required_argument, 0, 'I'},
        {"signer-pin", required_argument, 0, 'p'}, {"force", no_argument, 0, 'f'},
        {"quiet", no_argument, 0, 'q'}, {"progress", no_argument, 0, 'P'},
        {"json", no_argument, 0, 'J'}, {0, 0, 0, 0}
    };
    int c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:q", opts, NULL)) != -1) {
        switch (c) {
        case 'o': a->out = optarg; break;
        case 'm': if (cli_parse_mode(optarg, &a->mode)) return cli_usage_error(argv[0], "--mode: want light or full");
                  a->mode_req = (int)a->mode; break;
        case 'j': a->journal = optarg; break;
        case 'I': a->save_id = optarg; break;
        case 'p': a->pinhex = optarg; break;
        case 'f': a->force = 1; break;
        case 'q': a->quiet = 1; break;
        case 'P': a->progress = 1; break;
        case 'J': a->json = 1; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (argc - optind != 1) return cli_usage_error(argv[0], argc - optind ? "give exactly one FILE.rxlock" : "missing FILE.rxlock");
    if (a->pinhex && cli_parse_pin(a->pinhex, a->pin))
        return cli_usage_error(argv[0], "--signer-pin: want 64 hex digits (an Ed25519 public key)");
    a->in_path = argv[optind];
    int from_stdin = !strcmp(a->in_path, "-");
    size_t il = strlen(a->in_path);
    if (!from_stdin) {                   /* a puzzle, an age or another file: say so first */
        int fd = open(a->in_path, O_RDONLY | O_CLOEXEC);
        cli_file_kind k = fd >= 0 ? cli_file_kind_fd(fd) : CLI_KIND_OTHER;
        struct stat sb;
        char looks[64] = "";
        char head[24] = "";   /* a container of another version or damaged: the parser says what */
        if (fd >= 0 && k == CLI_KIND_OTHER && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
            !(pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head && !memcmp(head, "rxlock time-locked file ", 24)))
            cli_file_looks(fd, looks, sizeof looks);
        if (fd >= 0) close(fd);
        if (k == CLI_KIND_PUZZLE || k == CLI_KIND_AGE) return cli_error("%s is %s", a->in_path, cli_kind_hint(k));
        if (looks[0])
            return cli_error("%s: %s, not a time-locked file: unlock opens what `rxlock lock FILE` wrote "
                             "(FILE.rxlock)", a->in_path, looks);
    }
    if (!a->out) {
        if (from_stdin) return cli_usage_error(argv[0], "reading standard input: give -o OUT");
        if (il <= 7 || strcmp(a->in_path + il - 7, ".rxlock") != 0)
            return cli_usage_error(argv[0], "%s does not end in .rxlock: give -o OUT", a->in_path);
        if (il - 7 >= sizeof a->defout) return cli_error("%s: name too long", a->in_path);
        memcpy(a->defout, a->in_path, il - 7);
        a->defout[il - 7] = 0;
        a->out = a->defout;
    }
    if (cli_path_is_std(a->out) && a->save_id && cli_path_is_std(a->save_id))
        return cli_usage_error(argv[0], "the plaintext and the identity cannot both go to standard output");
    if (cli_path_is_std(a->out) && a->json)
        return cli_usage_error(argv[0], "--json and -o - both write to standard output");
    if (!a->journal) {
        const char *base = from_stdin ? a->out : a->in_path;
        if (from_stdin && cli_path_is_std(a->out))
            return cli_usage_error(argv[0], "reading standard input and writing standard output: give --journal PATH");
        if (snprintf(a->defjournal, sizeof a->defjournal, "%s.journal", base) >= (int)sizeof a->defjournal)
            return cli_error("%s: name too long", base);
        a->journal = a->defjournal;
    }
    return CLI_OK;
}

/* Standard input copied into an anonymous file: the container is read
 * twice (the puzzle now, the payload after the solve). */
static int stdin_copy(void) {
    int fd = memfd_create("rxlock-unlock-input", MFD_CLOEXEC);
    if (fd < 0) return -1;
    char buf[65536];
    for (;;) {
        ssize_t k = read(0, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 || (k > 0 && util_write_all(fd, buf, (size_t)k) != 0)) { int e = errno; close(fd); errno = e; return -1; }
        if (k == 0) break;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) { close(fd); return -1; }
    return fd;
}

/* Read the container's puzzle, check it and check its payload's shape:
 * CLI_OK or an exit code. */
static int load_puzzle(const unlock_args *a, int fd, tl_puzzle **pz, off_t *off) {
    char *json = NULL, err[256] = "";
    size_t len = 0;
    int rc;
    cli_file_kind k = cli_file_kind_fd(fd);
    if (k != CLI_KIND_CONTAINER && k != CLI_KIND_OTHER)
        return cli_error("%s is not a time-locked file: it is %s", a->in_path, cli_kind_hint(k));
    if (tl_container_parse(fd, &json, &len, off, err, sizeof err) != 0) return cli_error("%s: %s", a->in_path, err);
    rc = tl_puzzle_parse(json, len, pz, err, sizeof err);
    free(json);
    if (rc) return cli_error("%s: bad puzzle: %s", a->in_path, err[0] ? err : rxlock_strerror(rc));
    if ((rc = cli_check_puzzle(a->in_path, *pz, a->pinhex ? a->pin : NULL))) return rc;
    /* the payload, as far as it can be checked without the key */
    if (lseek(fd, *off, SEEK_SET) != *off) return cli_error("%s: %s", a->in_path, strerror(errno));
    rc = age_check_fd(fd);
    if (rc) return cli_error("%s: the encrypted payload is unusable (%s): refusing before the work", a->in_path,
                             rc == TL_AGE_EIO ? strerror(errno) : age_strerror(rc));
    return CLI_OK;
}

/* Solve: CLI_OK with x, or an exit code after a message. */
static int solve(const unlock_args *a, const tl_puzzle *pz, uint8_t *x, tl_solve_stats *st) {
    cli_progress ui;
    cli_progress_init(&ui, "unlock", (uint64_t)pz->groups * pz->steps, cli_progress_when(a->quiet, a->json, a->progress),
                      a->json);
    tl_solve_opts so = { .mode = a->mode, .journal = a->journal, .progress = cli_progress_cb,
                         .progress_ctx = &ui, .stop = cli_catch_signals() };
    ui.stop = so.stop;
    int rc = tl_solve(pz, &so, x, st);
    if (rc == TL_ENOMEM && so.mode == TL_MODE_FULL && a->mode_req < 0) {   /* the trial passed, the build did not */
        cli_progress_end(&ui, 0);
        fprintf(stderr, "rxlock: warning: full mode could not allocate its memory: solving in light mode, %s slower\n",
                TL_FULL_LIGHT_RANGE);
        so.mode = TL_MODE_LIGHT;
        rc = tl_solve(pz, &so, x, st);
    }
    cli_progress_end(&ui, rc == TL_OK);
    if (rc == TL_EINTR) {
        cli_error("interrupted; progress is saved in %s: run the same command again to resume", a->journal);
        return cli_interrupted_rc();
    }
    if (rc) {
        cli_solve_error(a->in_path, a->journal, rc, st, pz->work);
        return (rc == TL_EAUTH || rc == TL_ECOMMIT) ? CLI_VERIFY : CLI_FAIL;
    }
    return CLI_OK;
}

/* Decrypt the payload into OUT (its temp file made only now) or stdout. */
static int deliver(const unlock_args *a, int fd, off_t off, const uint8_t *x) {
    cli_io io = { .in_fd = -1 };
    int rc = cli_io_open_out(&io, a->out, a->force, 0600);
    if (rc) return rc;
    off_t at0 = io.out_path ? -1 : lseek(io.out_fd, 0, SEEK_CUR);   /* stdout a regular file: see what was written */
    int e = tl_container_open_payload(fd, off, x, io.out_fd);
    int saved = errno;
    int wrote = !io.out_path && !(at0 >= 0 && lseek(io.out_fd, 0, SEEK_CUR) == at0);
    int fin = cli_io_finish(&io, e == 0);
    if (e) {
        if (e == TL_AGE_EIO) cli_error("%s: payload: %s: %s", a->in_path, age_strerror(e), strerror(saved));
        else cli_error("%s: payload: %s%s", a->in_path, age_strerror(e),
                       !wrote || !cli_age_payload_error(e) ? ""
                       : " (output written so far to stdout is not to be trusted)");
        return e == TL_AGE_ENOMATCH ? CLI_VERIFY : CLI_FAIL;
    }
    return fin;
}

/* OUT and the journal both there (no --force), two files: what a run
 * stopped between writing OUT and removing the journal leaves. */
static int stopped_before_journal(const unlock_args *a) {
    struct stat so, sj;
    return !a->force && !cli_path_is_std(a->out) && lstat(a->out, &so) == 0 && S_ISREG(so.st_mode) &&
           lstat(a->journal, &sj) == 0 && S_ISREG(sj.st_mode) && !(so.st_dev == sj.st_dev && so.st_ino == sj.st_ino);
}

/* The comparing side of output_matches: reads the plaintext from the pipe
 * to its end (the writer never blocks) and the file beside it, both
 * unbuffered (no plaintext in stdio's buffers). */
enum { CMP_CHUNK = 65536 };
typedef struct {
    FILE *pipe, *file;
    uint8_t *buf;   /* 2 x CMP_CHUNK, locked, wiped: plaintext and OUT's bytes */
    int same;       /* 1 so far, 0 they differ, -1 a read failed */
} cmp_job;

static void *cmp_run(void *arg) {
    cmp_job *c = arg;
    uint8_t *pt = c->buf, *file = c->buf + CMP_CHUNK;
    size_t n, m;
    while ((n = fread(pt, 1, CMP_CHUNK, c->pipe)) > 0) {
        if (c->same != 1) continue;
        m = fread(file, 1, n, c->file);
        if (m != n && ferror(c->file)) c->same = -1;
        else if (m != n || sodium_memcmp(pt, file, n) != 0) c->same = 0;
    }
    if (ferror(c->pipe)) c->same = -1;
    else if (c->same == 1 && fread(file, 1, 1, c->file) != 0) c->same = 0;   /* OUT goes on */
    else if (c->same == 1 && ferror(c->file)) c->same = -1;
    return NULL;
}

/* The payload at off of fd, opened with x, compared with the file at path
 * as it is decrypted (through a pipe, in bounded memory: no plaintext
 * stored).  1 the same bytes, 0 they differ, -1 cannot be compared (the
 * payload does not open, or a read failed). */
static int output_matches(int fd, off_t off, const uint8_t *x, const char *path) {
    int p[2] = { -1, -1 }, ffd = util_open_reg_at(AT_FDCWD, path, O_RDONLY, 0), e = -1;
    cmp_job c = { .buf = sodium_malloc(2 * CMP_CHUNK), .same = 1 };
    pthread_t t;
    if (ffd >= 0 && (c.file = fdopen(ffd, "rb"))) ffd = -1;
    if (c.file && c.buf && pipe2(p, O_CLOEXEC) == 0 && (c.pipe = fdopen(p[0], "rb"))) {
        p[0] = -1;
        setvbuf(c.file, NULL, _IONBF, 0);
        setvbuf(c.pipe, NULL, _IONBF, 0);
        if (pthread_create(&t, NULL, cmp_run, &c) == 0) {
            e = tl_container_open_payload(fd, off, x, p[1]);
            close(p[1]);   /* the end of the plaintext */
            p[1] = -1;
            pthread_join(t, NULL);
        }
    }
    for (int k = 0; k < 2; k++) if (p[k] >= 0) close(p[k]);
    if (ffd >= 0) close(ffd);
    if (c.pipe) fclose(c.pipe);
    if (c.file) fclose(c.file);
    if (c.buf) sodium_free(c.buf);
    return e ? -1 : c.same;
}

/* A run stopped after it wrote OUT and before it removed the journal:
 * x from the journal's final chain state (nothing computed), the payload
 * opened again and compared with OUT.  The same bytes: that run is
 * finished here (--save-identity written if it was not yet, the journal
 * removed), *ret its exit code, 1.  Else 0 with why: the refusal follows. */
static int finish_earlier(const unlock_args *a, int fd, off_t off, const tl_puzzle *pz, int *ret, const char **why) {
    uint8_t *x = sodium_malloc(32);
    int rc = x ? tl_solve_from_journal(pz, a->journal, x) : TL_ENOMEM;
    int m = rc == TL_OK ? output_matches(fd, off, x, a->out) : -1;
    int id_ok = m == 1 && (!a->save_id || cli_path_is_std(a->save_id) || access(a->save_id, F_OK) != 0 ||
                           cli_identity_file_is_epoch(a->save_id, pz));
    if (rc != TL_OK) *why = rc == TL_EJOURNAL ? "the journal does not hold a finished solve"
                                              : "the journal's final state does not open this file";
    else if (m != 1) *why = m == 0 ? "it differs from the plaintext" : "it could not be compared with the plaintext";
    else if (!id_ok) *why = "the --save-identity file is not this file's epoch identity";
    if (!id_ok) {
        if (x) sodium_free(x);
        return 0;
    }
    *ret = CLI_OK;
    if (a->save_id && (cli_path_is_std(a->save_id) || access(a->save_id, F_OK) != 0))
        *ret = cli_write_identity(a->save_id, x, pz, "", 0);   /* stopped before it was written */
    sodium_free(x);
    if (*ret != CLI_OK) return 1;
    if (unlink(a->journal) != 0 && errno != ENOENT)
        fprintf(stderr, "rxlock: warning: cannot remove %s: %s\n", a->journal, strerror(errno));
    else
        fprintf(stderr, "rxlock: %s already holds this file's plaintext (an earlier run wrote it and stopped before "
                "it removed %s): removed the journal; nothing else to do\n", a->out, a->journal);
    return 1;
}

int cmd_unlock(int argc, char **argv) {
    unlock_args a = { .mode = TL_MODE_LIGHT, .mode_req = -1 };
    int ret = parse_args(argc, argv, &a);
    if (ret) return ret;
    if (sodium_init() < 0) return cli_error("libsodium failed to initialise");
    const cli_path files[] = {
        { a.in_path, "FILE", CLI_PATH_IN }, { a.out, "-o", CLI_PATH_OUT },
        { a.save_id, "--save-identity", CLI_PATH_OUT }, { a.journal, "--journal", CLI_PATH_STATE }
    };
    /* OUT and the journal both there: an earlier run may have finished
     * but for removing the journal; checked once the container is read */
    int stopped = stopped_before_journal(&a);
    if (!stopped && (ret = cli_paths_check(files, sizeof files / sizeof files[0], a.force))) return ret;
    int fd = !strcmp(a.in_path, "-") ? stdin_copy() : open(a.in_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cli_error("%s: %s", a.in_path, strerror(errno));
    tl_puzzle *pz = NULL;
    uint8_t *x = NULL;
    off_t off = 0;
    tl_solve_stats st;
    if ((ret = load_puzzle(&a, fd, &pz, &off))) goto done;
    if (stopped) {
        const char *why = "";
        if (finish_earlier(&a, fd, off, pz, &ret, &why)) goto done;
        if (!(ret = cli_paths_check(files, sizeof files / sizeof files[0], a.force))) ret = CLI_FAIL;
        fprintf(stderr, "rxlock: %s and the journal %s are both there, but %s is not what an earlier run wrote "
                "before it stopped (%s).  Move %s away and run the same command again (the journal keeps the "
                "work done), or give --force to replace it\n", a.out, a.journal, a.out, why, a.out);
        goto done;
    }
    a.mode = cli_mode_pick(pz->work, a.mode_req);   /* the one mode policy */
    if (!(x = sodium_malloc(32))) { ret = cli_error("out of memory"); goto done; }
    if ((ret = solve(&a, pz, x, &st))) goto done;
    ret = deliver(&a, fd, off, x);
    if (ret == CLI_OK && a.save_id) ret = cli_write_identity(a.save_id, x, pz, "", a.force);
    if (ret != CLI_OK) {
        /* the result was not fully delivered: the journal (which holds the
         * final chain state) makes the re-run immediate */
        fprintf(stderr, "rxlock: the solved state is kept in %s: fix the cause and run the same command again\n",
                a.journal);
        goto done;
    }
    util_kill_point("unlock-written");   /* test build: stopped before the journal is removed */
    if (unlink(a.journal) != 0 && errno != ENOENT)
        fprintf(stderr, "rxlock: warning: cannot remove %s: %s\n", a.journal, strerror(errno));
    char eng[64];
    cli_engine_text(&st.engine, eng, sizeof eng);
    if (a.json)
        ret = cli_print_json(json_pack("{s:s, s:s, s:s, s:s?, s:b, s:I, s:i, s:I, s:s*, s:s*, s:f, s:f, s:o}",
                                       "event", "done", "command", "unlock", "input", a.in_path,
                                       "output", cli_path_is_std(a.out) ? NULL : a.out, "container", 1,
                                       "steps_computed", (json_int_t)st.steps_computed,
                                       "resumed_group", (int)st.resumed_group,
                                       "resumed_step", (json_int_t)st.resumed_step, "engine", st.engine.engine,
                                       "mode", st.engine.mode, "setup_seconds", st.setup_seconds,
                                       "hash_seconds", st.hash_seconds,
                                       "dataset_huge_pages", st.huge_share >= 0 ? json_real(st.huge_share) : json_null()));
    else if (!a.quiet)
        fprintf(stderr, "rxlock: wrote %s (%llu hashes computed, %s%s)\n",
                cli_path_is_std(a.out) ? "the plaintext to standard output" : a.out,
                (unsigned long long)st.steps_computed, eng, st.resumed_group ? ", resumed from the journal" : "");
done:
    if (x) sodium_free(x);
    tl_puzzle_free(pz);
    close(fd);
    return ret;
}
