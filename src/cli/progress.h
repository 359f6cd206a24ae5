/* SPDX-License-Identifier: ISC */
/* src/cli/progress.h — one-line progress display (done/total, rate, ETA)
 * for long sequential work (solve, lock, calibrate, bench); prefix pbar_
 * (the CLI's own layer: cli_progress in cli_util.h drives it).
 *
 * Shown on stderr only when stderr is a TTY, or when forced (--progress);
 * silent on a pipe otherwise.  Redraws at most every 200 ms, so calling
 * pbar_update() once per hash is cheap for RandomX; for very fast
 * work (SHA3 chains) call it every few thousand steps.
 *
 *   pbar p;
 *   pbar_init(&p, "solve", total, done_before, PBAR_AUTO);
 *   for (...) { ...; pbar_update(&p, done); }
 *   pbar_done(&p);
 *
 * `done_before` is work finished in an earlier session (a resumed solve):
 * it counts toward done/total and the ETA but not toward the rate.
 */
#ifndef RXLOCK_CLI_PROGRESS_H
#define RXLOCK_CLI_PROGRESS_H
#include <stdint.h>
#include <stdio.h>
#include "util/util.h"   /* util_format_duration, util_format_rate */

enum pbar_when {
    PBAR_AUTO  = 0,  /* draw iff stderr is a TTY            */
    PBAR_FORCE = 1,  /* always draw (--progress)            */
    PBAR_NEVER = 2   /* never draw (--quiet, --json)        */
};

typedef struct {
    FILE    *fp;          /* stderr unless changed after init         */
    int      enabled;     /* 0: every call is a no-op                 */
    int      tty;         /* 1: redraw in place with \r, else newline */
    int      drawn;       /* something is on the current line         */
    char     label[32];
    char     unit[8];     /* rate unit, "H/s" by default              */
    uint64_t total;       /* 0 = unknown (no percentage, no ETA)      */
    uint64_t base;        /* done_before                              */
    uint64_t done;
    double   t_start;     /* util_now() seconds                       */
    double   t_last;      /* last draw                                */
    double   interval;    /* seconds between draws (0.2 on a TTY,
                             10 when forced onto a non-TTY)           */
    double   eta_extra;   /* seconds of later work added to the ETA
                             (e.g. hashing after a setup phase); 0    */
} pbar;

/* Would a progress line be drawn for this `when` setting? */
int  pbar_wanted(int when);
void pbar_init(pbar *p, const char *label, uint64_t total,
                        uint64_t done_before, int when);
/* Change the total (e.g. once it becomes known); 0 = unknown. */
void pbar_set_total(pbar *p, uint64_t total);
/* Record progress; draws if the redraw interval has passed. */
void pbar_update(pbar *p, uint64_t done);
/* Draw the final state and end the line (no-op if nothing was shown). */
void pbar_done(pbar *p);
/* Erase the line (before printing an error or a result on a TTY). */
void pbar_clear(pbar *p);
/* util_format_duration / util_format_rate: src/util/format.c (util/util.h). */
#endif
