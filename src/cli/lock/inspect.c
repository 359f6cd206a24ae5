/* SPDX-License-Identifier: ISC */
/* src/cli/lock/inspect.c — `rxlock inspect`: a puzzle's parameters, work,
 * assumed rate, signer, the promise, and the estimated solve time on this
 * machine, in seconds by default (the saved calibration, else a short
 * light-mode probe scaled by the measured full/light range; --measure
 * measures the solver's mode); human-readable or --json. */
#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_puzzle.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/calibrate.h"
#include "cli/progress.h"
#include "util/util.h"
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cmd_inspect_usage[] =
    "usage: rxlock inspect PUZZLE|FILE.rxlock [-q | --json [--pretty] | --progress]\n"
    "                     [--mode light|full] [--measure | --no-estimate] [--floor-table FILE]\n"
    "\n"
    "Show a puzzle: work function, groups x steps, the assumed solver rate and\n"
    "its source, signer, epoch recipient, the promise (no sooner than T_min on\n"
    "the fastest known hardware, the floor; about T, hashing + setup, at the\n"
    "assumed rate; with dates from its creation), and the time a solver would\n"
    "need on this machine, in seconds: from the saved calibration (`rxlock\n"
    "calibrate`), else for RandomX full mode a ~1 s light-mode probe scaled by\n"
    "the measured full/light range (" TL_FULL_LIGHT_RANGE "), labelled as such; --measure\n"
    "measures the mode `unlock`/`solve` would pick here (full mode builds the\n"
    "2 GiB dataset first: about a minute).  A .rxlock file's puzzle is shown:\n"
    "its real parameters (the file's notice text is not authenticated).\n"
    "  -q, --quiet      no progress line for the estimate (the report, which is the\n"
    "                   result, is still printed; warnings and errors go to stderr)\n"
    "  --json           one JSON line on stdout (docs/JSON.md); --pretty indents it\n"
    "  --mode M         RandomX mode for the estimate (default: full when its 2.3 GiB fit\n"
    "                   here, else light with a warning; full builds the dataset first)\n"
    "  --floor-table F  the floor table (default: the built-in one, docs/SECURITY.md)\n"
    "  --measure        measure this machine in the solver's mode (not the saved\n"
    "                   calibration or the light-mode probe)\n"
    "  --no-estimate    no estimate for this machine\n"
    "  --progress       progress line for the estimate even when stderr is not a TTY\n"
    "exit: 0 ok, 1 malformed / unreadable puzzle, 2 usage error\n";

/* The puzzle's fields as text, and the quick estimate on this machine. */
typedef struct {
    const char *path, *sig;
    char idhex[33], keyhex[65], signer[65], hdr[65], rcp[TL_AGE_PQ_RECIPIENT_MAX], created[32], eng[64];
    uint64_t total;
    double assumed, here;
    int json, pretty, estimate, est_rc, progress, quiet;
    int container;           /* the puzzle of a .rxlock file */
    tl_mode mode;
    int mode_req;                  /* -1 = the mode policy */
    const char *floor_table;
    tl_floor_table ft;
    double est_setup;
    tl_engine_info engine;   /* of the estimate */
    int measure;             /* --measure */
    int est_kind;            /* EST_SAVED, EST_PROBE (scaled), EST_MEASURED */
    double here_lo;          /* EST_PROBE: the slower end of the range */
    char est_cpu[128];
} view;
enum { EST_MEASURED = 0, EST_SAVED = 1, EST_PROBE = 2 };

static int parse_args(int argc, char **argv, view *v) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"pretty", no_argument, 0, 'p'}, {"mode", required_argument, 0, 'm'},
        {"no-estimate", no_argument, 0, 'n'}, {"progress", no_argument, 0, 'P'}, {"quiet", no_argument, 0, 'q'},
        {"floor-table", required_argument, 0, 'F'}, {"measure", no_argument, 0, 'M'}, {0, 0, 0, 0}
    };
    int c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":q", opts, NULL)) != -1) {
        switch (c) {
        case 'j': v->json = 1; break;
        case 'p': v->json = v->pretty = 1; break;
        case 'n': v->estimate = 0; break;
        case 'M': v->measure = 1; break;
        case 'P': v->progress = 1; break;
        case 'q': v->quiet = 1; break;
        case 'm':
            if (cli_parse_mode(optarg, &v->mode)) return cli_usage_error(argv[0], "--mode: want light or full");
            v->mode_req = (int)v->mode;
            break;
        case 'F': v->floor_table = optarg; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (v->measure && !v->estimate) return cli_usage_error(argv[0], "give --measure or --no-estimate, not both");
    if (optind >= argc) return cli_usage_error(argv[0], "missing PUZZLE");
    if (optind + 1 < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind + 1]);
    v->path = argv[optind];
    return CLI_OK;
}

static void describe(const tl_puzzle *pz, view *v) {
    int vrc = tl_puzzle_verify(pz, NULL);
    v->sig = !pz->has_signer ? "none" : vrc == TL_OK ? "valid" : "INVALID";
    util_hex_encode(v->idhex, pz->id, 16);
    util_hex_encode(v->keyhex, pz->key, 32);
    util_hex_encode(v->hdr, pz->header_digest, 32);
    if (pz->has_signer) util_hex_encode(v->signer, pz->signer, 32); else strcpy(v->signer, "");
    if ((pz->pq_epoch ? age_pq_recipient_encode(pz->pq_recipient, v->rcp)
                      : age_recipient_encode(pz->epoch_pk, v->rcp)) != 0) strcpy(v->rcp, "?");
    time_t t = (time_t)pz->created;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(v->created, sizeof v->created, "%Y-%m-%dT%H:%M:%SZ", &tm)) strcpy(v->created, "?");
    v->total = (uint64_t)pz->groups * pz->steps;
    v->assumed = (double)pz->rate_milli_hps / 1000.0;
    v->est_rc = -1;
    if (!v->estimate) return;
    static tl_calibration cal;   /* its engine strings outlive this call */
    v->mode = cli_mode_pick(pz->work, v->mode_req);   /* the mode a solver here would run */
    int rx = pz->work != TL_WORK_SHA3_256;
    if (!v->measure && cli_calib_load_saved(pz->work, &cal, NULL, 0) && (!rx || cal.mode == v->mode)) {
        v->est_kind = EST_SAVED;   /* seconds: nothing measured now */
        v->est_rc = 0;
    } else {
        /* RandomX full mode unmeasured: a light-mode probe (no 2 GiB
         * dataset), scaled by the measured full/light range */
        v->est_kind = !v->measure && rx && v->mode == TL_MODE_FULL ? EST_PROBE : EST_MEASURED;
        cli_progress ui;   /* a transient line: erased before the report */
        cli_progress_init(&ui, "estimate", 0, cli_progress_when(v->quiet, 0, v->progress), 0);
        tl_calibrate_opts co = { .progress = cli_progress_cb, .progress_ctx = &ui, .stop = cli_catch_signals(),
                                 .allocations = 1 };
        ui.stop = co.stop;
        v->est_rc = tl_calibrate(pz->work, v->est_kind == EST_PROBE ? TL_MODE_LIGHT : v->mode, 1.0, &co, &cal);
        cli_progress_end(&ui, v->est_rc == 0 && !ui.bar.tty);   /* a TTY line is erased */
    }
    if (v->est_rc) return;
    snprintf(v->est_cpu, sizeof v->est_cpu, "%s", cal.cpu);
    v->here = tl_calibration_sizing_rate(&cal);
    v->est_setup = cal.setup_seconds;
    if (v->est_kind == EST_PROBE) {
        v->here_lo = v->here * TL_FULL_LIGHT_RATIO_MIN;
        v->here *= TL_FULL_LIGHT_RATIO;
        v->est_setup = 0;   /* the dataset build is not measured */
    }
    v->engine = cal.engine;
    if (cal.engine.fallback) cli_warn_fallback(cal.engine.fallback);
    cli_engine_text(&cal.engine, v->eng, sizeof v->eng);
}

/* what verification the generator did (version >= 2). */
static const char *verify_name(const tl_puzzle *pz) {
    static const char *const n[] = { "not recorded", "none", "sample", "full" };
    return pz->verify_method >= 0 && pz->verify_method <= TL_VERIFY_FULL ? n[pz->verify_method] : "?";
}

static int report_json(const tl_puzzle *pz, const view *v) {
    json_t *o = json_object();
    json_object_set_new(o, "event", json_string("done"));
    json_object_set_new(o, "command", json_string("inspect"));
    json_object_set_new(o, "input", json_string(v->path));
    json_object_set_new(o, "version", json_integer(pz->version));
    json_object_set_new(o, "work", json_string(tl_work_name(pz->work)));
    json_object_set_new(o, "groups", json_integer(pz->groups));
    json_object_set_new(o, "steps", json_integer((json_int_t)pz->steps));
    json_object_set_new(o, "total_hashes", json_integer((json_int_t)v->total));
    json_object_set_new(o, "puzzle_id", json_string(v->idhex));
    json_object_set_new(o, "key", json_string(v->keyhex));
    json_object_set_new(o, "recipient", json_string(v->rcp));
    json_object_set_new(o, "epoch_key", json_string(pz->pq_epoch ? "post-quantum" : "classic"));
    json_object_set_new(o, "header_digest", json_string(v->hdr));
    json_object_set_new(o, "created", json_string(v->created));
    json_object_set_new(o, "assumed_rate", json_real(v->assumed));
    json_object_set_new(o, "rate_source", json_string(pz->rate_source));
    json_object_set_new(o, "assumed_seconds", v->assumed > 0 ? json_real((double)v->total / v->assumed) : json_null());
    json_object_set_new(o, "target_seconds", json_integer((json_int_t)pz->target_seconds));
    json_object_set_new(o, "signer", pz->has_signer ? json_string(v->signer) : json_null());
    json_object_set_new(o, "signature", json_string(v->sig));
    json_object_set_new(o, "test_only", json_boolean(pz->test_only));
    {   /* the promise */
        static const char *const rm[] = { "none", "light", "full" };
        tl_promise p;
        tl_promise_of(pz, &v->ft, &p);
        json_object_set_new(o, "rate_mode", pz->version >= 2 ? json_string(rm[pz->rate_mode]) : json_null());
        json_object_set_new(o, "setup_seconds", json_real(p.setup_seconds));
        json_object_set_new(o, "promise_seconds", p.here_seconds >= 0 ? json_real(p.here_seconds) : json_null());
        json_object_set_new(o, "floor_machine", p.floor ? json_string(p.floor->machine) : json_null());
        json_object_set_new(o, "floor_rate", p.floor ? json_real(p.floor->rate) : json_null());
        json_object_set_new(o, "floor_kind", p.floor ? json_string(tl_floor_kind_name(p.floor->kind)) : json_null());
        json_object_set_new(o, "floor_seconds", p.floor ? json_real(p.floor_seconds) : json_null());
        json_object_set_new(o, "floor_table", json_string(v->ft.origin));
    }
    json_object_set_new(o, "signature_covers_wraps", json_boolean(pz->has_signer && tl_puzzle_signs_wraps(pz)));
    json_object_set_new(o, "container", json_boolean(v->container));
    json_object_set_new(o, "verification", pz->verify_method ? json_string(verify_name(pz)) : json_null());
    json_object_set_new(o, "verified", json_boolean(pz->verify_method == TL_VERIFY_FULL));
    json_object_set_new(o, "segments", json_integer(pz->verify_segments));
    json_object_set_new(o, "segments_checked", json_integer(pz->verify_checked));
    if (v->est_rc == 0) {
        if (v->engine.engine) {   /* RandomX only */
            json_object_set_new(o, "estimate_mode", json_string(v->engine.mode));
            json_object_set_new(o, "estimate_engine", json_string(v->engine.engine));
            json_object_set_new(o, "estimate_aes", json_string(v->engine.aes));
        }
        static const char *const ek[] = { "measured", "saved calibration", "light-mode probe, scaled" };
        json_object_set_new(o, "estimate_source", json_string(ek[v->est_kind]));
        if (v->est_kind == EST_PROBE) {   /* the range's slow end */
            json_object_set_new(o, "estimate_rate_min", json_real(v->here_lo));
            json_object_set_new(o, "estimate_seconds_max", json_real((double)v->total / v->here_lo));
        }
        json_object_set_new(o, "estimate_rate", json_real(v->here));
        json_object_set_new(o, "estimate_setup_seconds", json_real(v->est_setup));
        json_object_set_new(o, "estimate_seconds", json_real((double)v->total / v->here + v->est_setup));
    }
    if (!v->pretty) return cli_print_json(o);      /* one line, as every --json */
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(o);
    if (!s) return cli_error("out of memory");
    printf("%s\n", s);
    free(s);
    return CLI_OK;
}

static void report_text(const tl_puzzle *pz, const view *v) {
    char d1[32], d2[32], r1[32], r2[32];
    printf("puzzle:        %s (version %d)%s\n", v->path, pz->version, pz->test_only ? "  ** TEST-ONLY: deterministic secrets **" : "");
    printf("work:          %s, %u group%s x %llu steps = %llu sequential hashes\n", tl_work_name(pz->work),
           pz->groups, pz->groups == 1 ? "" : "s", (unsigned long long)pz->steps, (unsigned long long)v->total);
    printf("puzzle id:     %s\n", v->idhex);
    printf("recipient:     %s\n", v->rcp);
    /* what the epoch key kind means */
    if (pz->pq_epoch)
        printf("epoch key:     post-quantum (age mlkem768x25519: ML-KEM-768 + X25519); no quantum\n"
               "               computer opens the records without the work; age >= 1.3 and\n"
               "               typage read them, age 1.1 does not\n");
    else
        printf("epoch key:     classic (age X25519): any age opens the records, but a quantum\n"
               "               computer could recover the identity from the recipient without\n"
               "               the work (use --pq for a post-quantum epoch)\n");
    printf("created:       %s\n", v->created);
    if (v->assumed > 0) {
        util_format_rate(r1, sizeof r1, v->assumed);
        util_format_duration(d1, sizeof d1, (double)v->total / v->assumed);
        printf("assumed rate:  %sH/s (%s%s) -> %s of hashing for one solver\n", r1, pz->rate_source,
               pz->version < 2 ? "; mode not recorded" : pz->rate_mode == TL_RATE_MODE_FULL ? "; full-mode rate"
               : pz->rate_mode == TL_RATE_MODE_LIGHT ? "; LIGHT-mode rate: a full-mode solver is faster" : "", d1);
    } else {
        printf("assumed rate:  none recorded\n");
    }
    if (pz->target_seconds) {
        util_format_duration(d1, sizeof d1, (double)pz->target_seconds);
        printf("target:        %s\n", d1);
    }
    char pt[700];
    tl_promise_text_at(pt, sizeof pt, pz, &v->ft, pz->created);   /* dates from its creation */
    printf("promise:       %s [%s]\n", pt, v->ft.origin);
    printf("signer:        %s%s%s\n", pz->has_signer ? v->signer : "none (unsigned)", pz->has_signer ? "  signature " : "",
           pz->has_signer ? v->sig : "");
    if (pz->has_signer && !tl_puzzle_signs_wraps(pz))
        printf("               (version 1: the signature covers the header, not the wraps)\n");
    printf("header digest: %s\n", v->hdr);
    if (v->container)
        printf("container:     a .rxlock file; its notice text is not authenticated, these lines are\n");
    if (pz->verify_method == TL_VERIFY_FULL)
        printf("verification:  full: all %u chain segments recomputed by a second worker and matched\n",
               pz->verify_segments);
    else if (pz->verify_method == TL_VERIFY_SAMPLE)
        printf("verification:  sampled: %u of %u chain segments recomputed and matched; the others are "
               "UNVERIFIED\n", pz->verify_checked, pz->verify_segments);
    else
        printf("verification:  UNVERIFIED (%s): no chain was recomputed; a corrupted chain would make this "
               "puzzle unsolvable past that group\n", pz->verify_method ? "none" : "version 1: not recorded");
    if (v->est_rc == 0 && v->est_kind == EST_PROBE) {
        char r3[32], d3[32];
        util_format_rate(r2, sizeof r2, v->here_lo);
        util_format_rate(r3, sizeof r3, v->here);
        util_format_duration(d2, sizeof d2, (double)v->total / v->here);
        util_format_duration(d3, sizeof d3, (double)v->total / v->here_lo);
        printf("this machine:  about %s-%s to solve in full mode, %s-%sH/s: a ~1 s LIGHT-mode probe (%s) scaled by\n"
               "               the measured full/light range %s, dataset build not included; --measure\n"
               "               measures full mode here (builds the 2 GiB dataset)\n", d2, d3, r2, r3, v->eng,
               TL_FULL_LIGHT_RANGE);
    } else if (v->est_rc == 0) {
        util_format_rate(r2, sizeof r2, v->here);
        util_format_duration(d2, sizeof d2, (double)v->total / v->here + v->est_setup);
        util_format_duration(d1, sizeof d1, v->est_setup);
        printf("this machine:  %sH/s (%s, %s on %.60s, typical rate) -> about %s to solve (setup %s included)\n",
               r2, v->eng, v->est_kind == EST_SAVED ? "the saved calibration" : "measured now", v->est_cpu, d2, d1);
    } else if (v->estimate) {
        printf("this machine:  no estimate (%s)\n", rxlock_strerror(v->est_rc));
    }
}

int cmd_inspect(int argc, char **argv) {
    view v = { .estimate = 1, .mode = TL_MODE_LIGHT, .mode_req = -1 };
    int rc = parse_args(argc, argv, &v);
    if (rc) return rc;
    char err[300];
    if (!v.floor_table) tl_floor_builtin(&v.ft);
    else if (tl_floor_load(v.floor_table, &v.ft, err, sizeof err)) return cli_error("%s", err);
    tl_puzzle *pz = NULL;
    if (cli_puzzle_load(v.path, 1, &pz, &v.container)) return CLI_FAIL;
    describe(pz, &v);
    if (v.json) rc = report_json(pz, &v);
    else report_text(pz, &v);
    tl_puzzle_free(pz);
    return rc;
}
