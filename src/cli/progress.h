/* SPDX-License-Identifier: ISC */
/* src/cli/progress.h — one-line progress display (done/total, rate, ETA)
 * for long sequential work (solve, lock, calibrate, bench).
 *
 * Shown on stderr only when stderr is a TTY, or when forced (--progress);
 * silent on a pipe otherwise.  Redraws at most every 200 ms, so calling
 * util_progress_update() once per hash is cheap for RandomX; for very fast
 * work (SHA3 chains) call it every few thousand steps.
 *
 *   util_progress p;
 *   util_progress_init(&p, "solve", total, done_before, UTIL_PROGRESS_AUTO);
 *   for (...) { ...; util_progress_update(&p, done); }
 *   util_progress_done(&p);
 *
 * `done_before` is work finished in an earlier session (a resumed solve):
 * it counts toward done/total and the ETA but not toward the rate.
 */
#ifndef RXLOCK_CLI_PROGRESS_H
#define RXLOCK_CLI_PROGRESS_H
#include <stdint.h>
#include <stdio.h>
#include "util/util.h"   /* util_format_duration, util_format_rate */

enum util_progress_when {
    UTIL_PROGRESS_AUTO  = 0,  /* draw iff stderr is a TTY            */
    UTIL_PROGRESS_FORCE = 1,  /* always draw (--progress)            */
    UTIL_PROGRESS_NEVER = 2   /* never draw (--quiet, --json)        */
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
} util_progress;

/* Would a progress line be drawn for this `when` setting? */
int  util_progress_wanted(int when);
void util_progress_init(util_progress *p, const char *label, uint64_t total,
                        uint64_t done_before, int when);
/* Change the total (e.g. once it becomes known); 0 = unknown. */
void util_progress_set_total(util_progress *p, uint64_t total);
/* Record progress; draws if the redraw interval has passed. */
void util_progress_update(util_progress *p, uint64_t done);
/* Draw the final state and end the line (no-op if nothing was shown). */
void util_progress_done(util_progress *p);
/* Erase the line (before printing an error or a result on a TTY). */
void util_progress_clear(util_progress *p);
/* util_format_duration / util_format_rate: src/util/format.c (util/util.h). */
#endif
