/* SPDX-License-Identifier: ISC */
/* src/cli/cluster/assemble.c — `rxlock assemble DIR`: with the planner key,
 * check every group result of a plan and write the puzzle (the same file
 * `rxlock lock` writes); prints the epoch recipient.  The work is in
 * tl_plan_assemble (src/lock/cluster/assemble.c). */
#include "cli/cli.h"
#include "cli/cli_paths.h"
#include "cli/cli_util.h"
#include "rxlock/rxlock.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cmd_assemble_usage[] =
    "usage: rxlock assemble DIR --planner-key FILE [--sign-key FILE]\n"
    "                       [--keep-epoch-key FILE|-] [--force] [--json] -o, --output PUZZLE|-\n"
    "\n"
    "Check every group result of the plan in DIR (present, authenticated, this\n"
    "plan, right group and steps, nothing stray) and write the puzzle, the same\n"
    "file `rxlock lock` would have written.  Each bad or missing group is named;\n"
    "then nothing is written.  Prints the epoch recipient (age1..., or\n"
    "age1pq1... for a --pq plan).\n"
    "\n"
    "  --planner-key FILE     the key `rxlock plan` wrote (required)\n"
    "  --sign-key FILE        sign the puzzle header (key from `rxlock keygen-signer`)\n"
    "  --keep-epoch-key FILE  also write the epoch identity now\n"
    "  --force                overwrite existing output files\n"
    "  --json                 one JSON line on stdout instead of the recipient (docs/JSON.md)\n"
    "  -o, --output PUZZLE    output puzzle file ('-': standard output, the recipient\n"
    "                         then goes to standard error)\n"
    "exit: 0 ok, 1 failure (nothing written), 2 usage error\n";

static void on_report(const char *msg, void *ctx) {
    (void)ctx;
    fprintf(stderr, "rxlock: %s\n", msg);
}

int cmd_assemble(int argc, char **argv) {
    static const struct option opts[] = {
        {"planner-key", required_argument, 0, 'P'}, {"sign-key", required_argument, 0, 'k'},
        {"keep-epoch-key", required_argument, 0, 'K'}, {"force", no_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'}, {"json", no_argument, 0, 'j'}, {0, 0, 0, 0}
    };
    tl_assemble_opts ao = { .report = on_report };
    const char *out = NULL, *keep = NULL, *sign = NULL;
    int force = 0, json = 0, c;
    optind = 1; opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:", opts, NULL)) != -1) {
        switch (c) {
        case 'P': ao.planner_key = optarg; break;
        case 'k': sign = optarg; break;
        case 'K': keep = optarg; break;
        case 'f': force = 1; break;
        case 'j': json = 1; break;
        case 'o': out = optarg; break;
        case ':': return cli_usage_error(argv[0], "option '%s' needs a value", argv[optind - 1]);
        default: return cli_bad_option(argv[0], optopt, argv[optind - 1]);
        }
    }
    if (optind >= argc) return cli_usage_error(argv[0], "missing DIR");
    const char *dir = argv[optind++];
    if (optind < argc) return cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (!out) return cli_usage_error(argv[0], "missing -o PUZZLE");
    if (!ao.planner_key) return cli_usage_error(argv[0], "missing --planner-key FILE");
    if (json && cli_path_is_std(out)) return cli_usage_error(argv[0], "--json and -o - both write to stdout");
    const cli_path files[] = {
        { ao.planner_key, "--planner-key", CLI_PATH_IN }, { sign, "--sign-key", CLI_PATH_IN },
        { out, "-o", CLI_PATH_OUT }, { keep, "--keep-epoch-key", CLI_PATH_OUT }
    };
    if (cli_paths_check(files, sizeof files / sizeof files[0], force) || cli_plan_dir_check(dir)) return CLI_FAIL;
    uint8_t sk[64], spk[32], pk[32], x[32];
    if (sign) {
        int rc = tl_signer_load(sign, sk, spk);
        if (rc) return cli_error("%s: cannot load signing key: %s", sign, rc == TL_EIO ? strerror(errno) : rxlock_strerror(rc));
        ao.sign_sk = sk;
    }
    char *text = NULL, err[512];
    size_t len = 0;
    tl_puzzle *pz = NULL;   /* the assembled puzzle, parsed once */
    int rc = tl_plan_assemble(dir, &ao, &text, &len, &pz, pk, keep ? x : NULL, err, sizeof err);
    sodium_memzero(sk, sizeof sk);
    if (rc) {
        sodium_memzero(x, sizeof x);
        return cli_error("assemble failed: %s", err[0] ? err : rxlock_strerror(rc));
    }
    int ret = CLI_OK;
    if (cli_write_text(out, text, len, force, 0644) != CLI_OK) {
        ret = CLI_FAIL;
    } else if (keep) {
        ret = cli_write_identity(keep, x, pz, " (kept at assembly)", force);
    }
    static char rcp[TL_AGE_PQ_RECIPIENT_MAX];
    if (ret == CLI_OK) ret = cli_epoch_recipient(pz, rcp);
    json_t *ev = NULL;
    if (ret == CLI_OK && json) {
        static const char *const vn[] = { "none", "none", "sample", "full" };
        ev = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:b}", "event", "done", "command", "assemble",
                       "plan", dir, "output", out, "recipient", rcp, "epoch_key", pz->pq_epoch ? "post-quantum" : "classic",
                       "work", tl_work_name(pz->work), "groups", (int)pz->groups, "steps", (json_int_t)pz->steps,
                       "verification", vn[pz->verify_method <= TL_VERIFY_FULL ? pz->verify_method : 0],
                       "signed", pz->has_signer);
    }
    tl_puzzle_free(pz);
    sodium_memzero(x, sizeof x);
    free(text);
    if (ret) { json_decref(ev); return ret; }
    if (json) return cli_print_json(ev);
    fprintf(cli_path_is_std(out) ? stderr : stdout, "%s\n", rcp);
    return CLI_OK;
}
