/* SPDX-License-Identifier: ISC */
/* src/cli/lock/generate.c — running what lock_opts.c parsed (declared in
 * lock_cli.h): tl_generate with the progress display and the stop signals,
 * and the promise printed after a lock.  The generation estimate and
 * --dry-run before any work are the shared CLI's (lock_estimate.c), since
 * `plan` prints them too. */
#include "cli/lock/lock_cli.h"
#include "cli/lock_opts.h"
#include "cli/cli.h"
#include "cli/cli_calib.h"
#include "cli/cli_util.h"
#include "rxlock/calibrate.h"
#include "util/util.h"
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void cli_lock_promise(const cli_lock_opts *o, const tl_puzzle *pz, const char *open_cmd) {
    char t[640];
    /* published now: the dates count from the moment the lock exists */
    tl_promise_text_at(t, sizeof t, pz, &o->ft, pz->created ? (int64_t)time(NULL) : 0);
    fprintf(stderr, "rxlock: promise: %s", t);
    if (o->cpu[0]) fprintf(stderr, "; measured on %s%s", o->cpu, o->rate_saved ? " (the saved calibration)" : "");
    else if (!(o->rate > 0)) fprintf(stderr, "; no rate was measured here (`rxlock calibrate` saves one)");
    if (o->duration > 0)
        fprintf(stderr, " [--%s %s]", o->until ? "until" : "time",
                o->floor ? "is the fastest known hardware's hashing" : "includes setup");
    fprintf(stderr, "\n");
    double ps = o->cpu[0] ? tl_calibration_placement_spread(&o->cal) : 0;
    if (ps > 0.10)   /* sized with the fastest placement; a solver may get a slower one */
        fprintf(stderr, "rxlock: note: the calibration's %u placements of the dataset differed by %.0f%%: "
                        "a solve on that machine can take up to about %.0f%% longer than \"about\" says\n",
                o->cal.allocations, ps * 100, ps / (1 - ps) * 100);
    if (open_cmd && pz->work != TL_WORK_SHA3_256)
        fprintf(stderr, "rxlock: open with: %s (full mode when 2.3 GiB of memory is free; light mode is %s slower)\n",
                open_cmd, TL_FULL_LIGHT_RANGE);
    else if (open_cmd)
        fprintf(stderr, "rxlock: open with: %s\n", open_cmd);
}

int cli_lock_generate(cli_lock_opts *o, const char *label, int when, int json,
                      char **text, size_t *len, tl_puzzle **pz, uint8_t pk[32], uint8_t *keep_sk) {
    uint8_t sk[64], spk[32];
    if (o->sign_key) {
        int rc = tl_signer_load(o->sign_key, sk, spk);
        if (rc) return cli_error("%s: cannot load signing key: %s", o->sign_key, rc == TL_EIO ? strerror(errno) : rxlock_strerror(rc));
        o->p.sign_sk = sk;
    }
    cli_progress ui;
    cli_progress_init(&ui, label, (uint64_t)o->p.groups * o->p.steps, when, json);
    o->go.stop = ui.stop = cli_catch_signals();
    o->go.progress = cli_progress_cb;
    o->go.progress_ctx = &ui;
    o->go.stats = &o->stats;
    int rc = tl_generate(&o->p, &o->go, text, len, pz, pk, keep_sk);
    o->engine = ui.engine;
    sodium_memzero(sk, sizeof sk);
    o->p.sign_sk = NULL;
    cli_progress_end(&ui, rc == TL_OK);
    if (rc == TL_OK) return CLI_OK;
    if (keep_sk) sodium_memzero(keep_sk, 32);
    if (rc == TL_ENOMEM && o->go.mode == TL_MODE_FULL)
        fprintf(stderr, "rxlock: not enough memory for full mode; try --mode light\n");
    if (o->go.state_dir && o->stats.steps_total && o->state_write[0] && rc == TL_EIO) {
        /* a state write failed mid-generation (the event named the file):
         * what was sealed before stays, the same command resumes */
        cli_error("lock failed: %s; no puzzle written; the generation state is kept in %s/: run the same command "
                  "again to resume once there is space (or the cause is fixed)", o->state_write, o->go.state_dir);
        return CLI_FAIL;
    }
    if (o->go.state_dir && o->stats.steps_total && (*o->go.stop || rc == TL_EINTR || rc == TL_EWORKER)) {
        /* the sealed state stays; the same command resumes it */
        int intr = *o->go.stop || rc == TL_EINTR;
        if (!intr) (void)cli_work_error("lock stopped", rc, o->p.work);
        cli_error("lock %s: no puzzle written; the generation state is kept in %s: run the same command "
                  "to resume", intr ? "interrupted" : "failed", o->go.state_dir);
        return intr ? cli_interrupted_rc() : CLI_FAIL;
    }
    if (o->state_refused) {   /* the event above named the file and the way out */
        cli_error("lock failed: nothing written (the generation state above)");
        return CLI_FAIL;
    }
    if (*o->go.stop || rc == TL_EINTR) {
        cli_error("lock failed: interrupted; nothing written");
        return cli_interrupted_rc();
    }
    return cli_work_error("lock failed (nothing written)", rc, o->p.work);
}
