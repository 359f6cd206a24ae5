/* SPDX-License-Identifier: ISC */
/* src/cli/progress.c — the one-line progress display (see progress.h). */
#include "cli/progress.h"
#include "util/util.h"
#include <math.h>
#include <string.h>
#include <unistd.h>

int pbar_wanted(int when) {
    if (when == PBAR_FORCE) return 1;
    if (when == PBAR_NEVER) return 0;
    return isatty(STDERR_FILENO) == 1;
}

void pbar_init(pbar *p, const char *label, uint64_t total,
                        uint64_t done_before, int when) {
    memset(p, 0, sizeof *p);
    p->fp = stderr;
    p->enabled = pbar_wanted(when);
    p->tty = isatty(STDERR_FILENO) == 1;
    p->interval = p->tty ? 0.2 : 10.0;
    snprintf(p->label, sizeof p->label, "%s", label ? label : "");
    snprintf(p->unit, sizeof p->unit, "H/s");
    p->total = total;
    p->base = done_before;
    p->done = done_before;
    p->t_start = util_now();
    p->t_last = p->t_start;
}

void pbar_set_total(pbar *p, uint64_t total) { p->total = total; }

static void draw(pbar *p, double now, int final) {
    double el = now - p->t_start;
    double rate = el > 0 ? (double)(p->done - p->base) / el : 0.0;
    char rs[32], es[32], ts[32], line[200];
    int n;
    util_format_rate(rs, sizeof rs, rate);
    util_format_duration(ts, sizeof ts, el);
    if (p->total) {
        double pct = 100.0 * (double)p->done / (double)p->total;
        if (final || p->done >= p->total) snprintf(es, sizeof es, "done");
        else if (rate > 0) util_format_duration(es, sizeof es, (double)(p->total - p->done) / rate + p->eta_extra);
        else snprintf(es, sizeof es, "?");
        /* resumed: the time shown is this run's, not since the first start */
        n = snprintf(line, sizeof line, "%s: %llu/%llu (%.1f%%)  %s %s  %s %s  ETA %s",
                     p->label, (unsigned long long)p->done, (unsigned long long)p->total,
                     pct > 100 ? 100.0 : pct, rs, p->unit, p->base ? "this run" : "elapsed", ts, es);
    } else {
        n = snprintf(line, sizeof line, "%s: %llu  %s %s  elapsed %s", p->label,
                     (unsigned long long)p->done, rs, p->unit, ts);
    }
    if (n < 0) return;
    if (p->tty) fprintf(p->fp, "\r%s\033[K", line);
    else fprintf(p->fp, "%s\n", line);
    fflush(p->fp);
    p->drawn = p->tty;
    p->t_last = now;
}

void pbar_update(pbar *p, uint64_t done) {
    if (!p->enabled) return;
    p->done = done;
    double now = util_now();
    if (now - p->t_last >= p->interval) draw(p, now, 0);
}

void pbar_done(pbar *p) {
    if (!p->enabled) return;
    draw(p, util_now(), 1);
    if (p->tty) fputc('\n', p->fp);
    fflush(p->fp);
    p->drawn = 0;
}

void pbar_clear(pbar *p) {
    if (!p->enabled || !p->drawn) return;
    fputs("\r\033[K", p->fp);
    fflush(p->fp);
    p->drawn = 0;
}
