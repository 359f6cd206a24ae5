/* SPDX-License-Identifier: ISC */
/* src/cli/cli_progress_ui.c — the stop signals (Ctrl-C, SIGTERM) and the
 * progress display's library callback: what a long command shows while the
 * work runs and which engine ran it (declared in cli_util.h). */
#include "cli/cli_util.h"
#include "cli/cli.h"
#include "rxlock/age.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile int cli_stop;
static volatile sig_atomic_t cli_stop_sig;

static void on_stop_signal(int sig) { cli_stop_sig = sig; cli_stop = 1; }

int cli_interrupted_rc(void) { return cli_stop_sig ? 128 + cli_stop_sig : CLI_FAIL; }

const volatile int *cli_catch_signals(void) {
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) (void)sigaction(sigs[i], &sa, NULL);
    return &cli_stop;
}

int cli_progress_when(int quiet, int json, int forced) {
    if (quiet || json) return PBAR_NEVER;
    return forced ? PBAR_FORCE : PBAR_AUTO;
}

void cli_progress_init(cli_progress *cp, const char *label, uint64_t total, int when, int json) {
    memset(cp, 0, sizeof *cp);
    cp->json = json;
    snprintf(cp->base_label, sizeof cp->base_label, "%s", label);
    cp->when = json ? PBAR_NEVER : when;
    pbar_init(&cp->bar, label, total, 0, cp->when);
}

/* "dataset: 1040/2080 (50.0%)  86.7 MiB/s  elapsed 12.0s  ETA
 * 2m12s" while the dataset builds; its ETA includes the hashing after it
 * at the puzzle's assumed rate.  Ended (drawn final) at the first call
 * after the setup. */
static void setup_progress(cli_progress *cp, const tl_progress *p) {
    const uint64_t mib = 2080;
    if (cp->setup_state == 0) {
        pbar_init(&cp->setup_bar, "dataset", mib, 0, cp->when);
        snprintf(cp->setup_bar.unit, sizeof cp->setup_bar.unit, "MiB/s");
        cp->setup_state = 1;
    }
    double own = p->setup_fraction > 0 ? p->setup_seconds / p->setup_fraction - p->setup_seconds : -1;
    cp->setup_bar.eta_extra = p->eta_seconds >= 0 && own >= 0 && p->eta_seconds > own ? p->eta_seconds - own : 0;
    pbar_update(&cp->setup_bar, (uint64_t)(p->setup_fraction * (double)mib + 0.5));
}

void cli_engine_text(const tl_engine_info *e, char *buf, size_t cap) {
    if (!e->engine) snprintf(buf, cap, "%s", tl_work_name(e->work) ? tl_work_name(e->work) : "?");
    else snprintf(buf, cap, "%s%s%s%s, %s AES, %s mode", e->engine, e->install ? " (install: " : "",
                  e->install ? e->install : "", e->install ? ")" : "", e->aes, e->mode);
}

/* The first call: the engine is known, no work done yet. */
static void progress_start(cli_progress *cp, const tl_progress *p) {
    cp->started = 1;
    if (p->engine) cp->engine = *p->engine;
    const tl_engine_info *e = &cp->engine;
    if (e->fallback) cli_warn_fallback(e->fallback);
    if (cp->json) {
        /* RandomX-only keys are left out for SHA3 (s*: omitted when NULL) */
        (void)cli_print_json(json_pack("{s:s, s:s, s:s*, s:s*, s:s*, s:s*, s:s*}", "event", "start",
                                       "work", tl_work_name(e->work), "engine", e->engine, "aes", e->aes,
                                       "mode", e->mode, "fallback", e->fallback, "jit_install", e->install));
        return;
    }
    if (p->hashes_done && p->group && p->hashes_total && cp->when != PBAR_NEVER)
        fprintf(stderr, "rxlock: resuming from the journal at group %u of %u, step %llu (%.1f%% done)\n", p->group,
                p->groups_total, (unsigned long long)p->step, 100.0 * (double)p->hashes_done / (double)p->hashes_total);
    /* the bar's rate counts from here: setup (cache, dataset) excluded */
    if (e->engine) snprintf(cp->bar.label, sizeof cp->bar.label, "%s (%s)", cp->base_label, e->engine);
    cp->bar.t_start = cp->bar.t_last = util_now();
    cp->bar.base = cp->bar.done = p->hashes_done;
}

int cli_progress_cb(const tl_progress *p, void *ctx) {
    cli_progress *cp = ctx;
    if (p->setup) {
        if (!cp->json) setup_progress(cp, p);
        return cp->stop && *cp->stop;
    }
    if (cp->setup_state == 1) {
        pbar_done(&cp->setup_bar);
        cp->setup_state = 2;
    }
    if (!cp->started && p->engine) {
        progress_start(cp, p);
        if (cp->json) return cp->stop && *cp->stop;   /* the start line says it all */
    }
    if (cp->json) {
        printf("{\"event\":\"progress\",\"hashes_done\":%llu,\"hashes_total\":%llu,\"rate\":%.1f,"
               "\"eta_seconds\":%.1f,\"groups_done\":%u,\"groups_total\":%u,\"group\":%u,\"step\":%llu}\n",
               (unsigned long long)p->hashes_done, (unsigned long long)p->hashes_total, p->rate,
               p->eta_seconds, p->groups_done, p->groups_total, p->group, (unsigned long long)p->step);
        fflush(stdout);
    } else {
        if (p->hashes_total && p->hashes_total != cp->bar.total) pbar_set_total(&cp->bar, p->hashes_total);
        pbar_update(&cp->bar, p->hashes_done);
    }
    return cp->stop && *cp->stop;
}

void cli_progress_end(cli_progress *cp, int ok) {
    if (cp->setup_state == 1) pbar_clear(&cp->setup_bar);
    if (ok && cp->bar.total) cp->bar.done = cp->bar.total;   /* the last frame says 100% */
    if (ok) pbar_done(&cp->bar);
    else pbar_clear(&cp->bar);
}
