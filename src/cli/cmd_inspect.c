/* src/cli/cmd_inspect.c — `rxlock inspect`: a puzzle's parameters, work,
 * assumed rate, signer, and the estimated solve time on this machine from a
 * quick calibration; human-readable or --json. */
#include "cli/cli.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "rxlock/calibrate.h"
#include "util/progress.h"
#include "util/util.h"
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char cmd_inspect_usage[] =
    "usage: rxlock inspect PUZZLE [--json] [--mode light|full] [--no-estimate] [--progress]\n"
    "\n"
    "Show a puzzle: work function, groups x steps, the assumed solver rate and\n"
    "its source, signer, epoch recipient, and the time a solver would need on\n"
    "this machine (from a ~1 s calibration in the given mode, default light).\n"
    "  --json           one JSON object on stdout\n"
    "  --mode M         RandomX mode for the estimate (full builds the 2080 MiB dataset first)\n"
    "  --no-estimate    skip the calibration\n"
    "  --progress       progress line for the estimate even when stderr is not a TTY\n"
    "exit: 0 ok, 1 malformed / unreadable puzzle, 2 usage error\n";

/* The puzzle's fields as text, and the quick estimate on this machine. */
typedef struct {
    const char *path, *sig;
    char idhex[33], keyhex[65], signer[65], hdr[65], rcp[TL_AGE_PQ_RECIPIENT_MAX], created[32], eng[64];
    uint64_t total;
    double assumed, here;
    int json, estimate, est_rc, progress;
    tl_mode mode;
    tl_engine_info engine;   /* of the estimate */
} view;

static int parse_args(int argc, char **argv, view *v) {
    static const struct option opts[] = {
        {"json", no_argument, 0, 'j'}, {"mode", required_argument, 0, 'm'},
        {"no-estimate", no_argument, 0, 'n'}, {"progress", no_argument, 0, 'P'}, {0, 0, 0, 0}
    };
    int c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
        switch (c) {
        case 'j': v->json = 1; break;
        case 'n': v->estimate = 0; break;
        case 'P': v->progress = 1; break;
        case 'm':
            if (cli_parse_mode(optarg, &v->mode)) return cli_usage_error(argv[0], "--mode: want light or full");
            break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
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
    if ((pz->pq_epoch ? tl_age_pq_recipient_encode(pz->pq_recipient, v->rcp)
                      : tl_age_recipient_encode(pz->epoch_pk, v->rcp)) != 0) strcpy(v->rcp, "?");
    time_t t = (time_t)pz->created;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(v->created, sizeof v->created, "%Y-%m-%dT%H:%M:%SZ", &tm)) strcpy(v->created, "?");
    v->total = (uint64_t)pz->groups * pz->steps;
    v->assumed = (double)pz->rate_mhps / 1000.0;
    v->est_rc = -1;
    if (!v->estimate) return;
    tl_calibration cal;
    cli_progress ui;   /* a transient line: erased before the report */
    cli_progress_init(&ui, "estimate", 0, cli_progress_when(0, 0, v->progress), 0);
    tl_calibrate_opts co = { .progress = cli_progress_cb, .progress_ctx = &ui, .stop = cli_catch_signals() };
    ui.stop = co.stop;
    v->est_rc = tl_calibrate(pz->work, pz->work == TL_WORK_SHA3_256 ? TL_MODE_LIGHT : v->mode, 1.0, &co, &cal);
    cli_progress_end(&ui, v->est_rc == 0 && !ui.bar.tty);   /* a TTY line is erased */
    if (v->est_rc) return;
    v->here = cal.rate;
    v->engine = cal.engine;
    if (cal.engine.fallback) cli_warn_fallback(cal.engine.fallback);
    cli_engine_text(&cal.engine, v->eng, sizeof v->eng);
}

static int report_json(const tl_puzzle *pz, const view *v) {
    json_t *o = json_object();
    json_object_set_new(o, "puzzle", json_string(v->path));
    json_object_set_new(o, "version", json_integer(pz->version));
    json_object_set_new(o, "work", json_string(tl_work_name(pz->work)));
    json_object_set_new(o, "groups", json_integer(pz->groups));
    json_object_set_new(o, "steps", json_integer((json_int_t)pz->steps));
    json_object_set_new(o, "total_hashes", json_integer((json_int_t)v->total));
    json_object_set_new(o, "puzzle_id", json_string(v->idhex));
    json_object_set_new(o, "key", json_string(v->keyhex));
    json_object_set_new(o, "recipient", json_string(v->rcp));
    json_object_set_new(o, "epoch_key", json_string(pz->pq_epoch ? "post-quantum" : "classic"));   /* issue 21 */
    json_object_set_new(o, "header_digest", json_string(v->hdr));
    json_object_set_new(o, "created", json_string(v->created));
    json_object_set_new(o, "assumed_rate", json_real(v->assumed));
    json_object_set_new(o, "rate_source", json_string(pz->rate_source));
    json_object_set_new(o, "assumed_seconds", v->assumed > 0 ? json_real((double)v->total / v->assumed) : json_null());
    json_object_set_new(o, "target_seconds", json_integer((json_int_t)pz->target_seconds));
    json_object_set_new(o, "signer", pz->has_signer ? json_string(v->signer) : json_null());
    json_object_set_new(o, "signature", json_string(v->sig));
    json_object_set_new(o, "test_only", json_boolean(pz->test_only));
    if (v->est_rc == 0) {
        if (v->engine.engine) {   /* RandomX only */
            json_object_set_new(o, "estimate_mode", json_string(v->engine.mode));
            json_object_set_new(o, "estimate_engine", json_string(v->engine.engine));
            json_object_set_new(o, "estimate_aes", json_string(v->engine.aes));
        }
        json_object_set_new(o, "estimate_rate", json_real(v->here));
        json_object_set_new(o, "estimate_seconds", json_real((double)v->total / v->here));
    }
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s) return cli_error("out of memory");
    printf("%s\n", s);
    free(s);
    return CLI_OK;
}

static void report_text(const tl_puzzle *pz, const view *v) {
    char d1[32], d2[32], r1[32], r2[32];
    printf("puzzle:        %s (version %d)%s\n", v->path, pz->version, pz->test_only ? "  ** TEST-ONLY: deterministic secrets **" : "");
    printf("work:          %s, %u groups x %llu steps = %llu sequential hashes\n", tl_work_name(pz->work),
           pz->groups, (unsigned long long)pz->steps, (unsigned long long)v->total);
    printf("puzzle id:     %s\n", v->idhex);
    printf("recipient:     %s\n", v->rcp);
    /* issue 21: what the epoch key kind means */
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
        printf("assumed rate:  %sH/s (%s) -> %s for one solver\n", r1, pz->rate_source, d1);
    } else {
        printf("assumed rate:  none recorded\n");
    }
    if (pz->target_seconds) {
        util_format_duration(d1, sizeof d1, (double)pz->target_seconds);
        printf("target:        %s\n", d1);
    }
    printf("signer:        %s%s%s\n", pz->has_signer ? v->signer : "none (unsigned)", pz->has_signer ? "  signature " : "",
           pz->has_signer ? v->sig : "");
    printf("header digest: %s\n", v->hdr);
    if (v->est_rc == 0) {
        util_format_rate(r2, sizeof r2, v->here);
        util_format_duration(d2, sizeof d2, (double)v->total / v->here);
        printf("this machine:  %sH/s (%s, quick calibration) -> about %s to solve\n", r2, v->eng, d2);
    } else if (v->estimate) {
        printf("this machine:  no estimate (%s)\n", tl_strerror(v->est_rc));
    }
}

int cmd_inspect(int argc, char **argv) {
    view v = { .estimate = 1, .mode = TL_MODE_LIGHT };
    int rc = parse_args(argc, argv, &v);
    if (rc) return rc;
    char err[300];
    tl_puzzle *pz = NULL;
    if (tl_puzzle_load(v.path, &pz, err, sizeof err)) return cli_error("%s", err);
    describe(pz, &v);
    if (v.json) rc = report_json(pz, &v);
    else report_text(pz, &v);
    tl_puzzle_free(pz);
    return rc;
}
