/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/gen_pace.c — the local service's generation throughput as
 * it generated: each epoch key's hashes (G x S, plus the verified share)
 * over its wall time from start to puzzle written (the cache or dataset
 * build, the workers' start and the verification included), kept in
 * DIR/private/gen-pace with the CPU model and workers it ran on, the last
 * BCN_GEN_PACE_KEEP of them.  The keep-up check at the next start uses
 * their median instead of a few seconds' measurement (a saved calibration,
 * measured on the real work), and the running service updates its margin
 * from it.  Epochs resumed from a checkpoint, or shorter than a second
 * (start-up dominates), are not recorded.  One line per epoch key:
 *   rate=HASHES_PER_S at=UNIX workers=W cpu=MODEL */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "rxlock/calibrate.h"
#include "util/util.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BCN_GEN_PACE_KEEP 16
#define BCN_GEN_PACE_MIN 3        /* records before the median is used        */

typedef struct { double rate; long long at; unsigned workers; char cpu[128]; } pace_line;

static size_t pace_read(const bcn_dir *b, pace_line *v, size_t cap) {
    char p[PATH_MAX];
    uint8_t *buf = NULL;
    size_t len = 0, n = 0;
    bcn_file(b, p, "private/gen-pace");
    if (util_read_file(p, 64 * 1024, &buf, &len) != 0) return 0;
    char *save = NULL;
    for (char *ln = strtok_r((char *)buf, "\n", &save); ln && n < cap; ln = strtok_r(NULL, "\n", &save)) {
        pace_line x;
        memset(&x, 0, sizeof x);
        int used = 0;
        if (sscanf(ln, "rate=%lf at=%lld workers=%u cpu=%n", &x.rate, &x.at, &x.workers, &used) != 3 || !used ||
            !(x.rate > 0) || x.rate > 1e15)
            continue;   /* a damaged line is left out, never trusted */
        snprintf(x.cpu, sizeof x.cpu, "%s", ln + used);
        v[n++] = x;
    }
    free(buf);
    return n;
}

void bcn_gen_pace_add(const bcn_dir *b, double hashes, double seconds, unsigned workers) {
    if (!(seconds >= 1.0) || !(hashes > 0)) return;
    pace_line v[BCN_GEN_PACE_KEEP];
    size_t n = pace_read(b, v, BCN_GEN_PACE_KEEP);
    if (n == BCN_GEN_PACE_KEEP) { memmove(v, v + 1, (n - 1) * sizeof v[0]); n--; }
    v[n].rate = hashes / seconds;
    v[n].at = (long long)tl_beacon_now();
    v[n].workers = workers;
    tl_cpu_model(v[n].cpu, sizeof v[n].cpu);
    n++;
    char text[BCN_GEN_PACE_KEEP * 200], p[PATH_MAX];
    size_t w = 0;
    for (size_t i = 0; i < n && w < sizeof text; i++)
        w += (size_t)snprintf(text + w, sizeof text - w, "rate=%.0f at=%lld workers=%u cpu=%s\n", v[i].rate, v[i].at,
                              v[i].workers, v[i].cpu);
    if (w >= sizeof text) return;
    bcn_file(b, p, "private/gen-pace");
    if (util_write_file_atomic(p, text, w, 1, 0600) != 0)
        bcn_log("warning: %s: could not keep the generation pace (%s): the next start measures again", p,
                strerror(errno));
}

int bcn_gen_pace_median(const bcn_dir *b, unsigned workers, double *median, double *lo, double *hi, unsigned *count) {
    pace_line v[BCN_GEN_PACE_KEEP];
    size_t n = pace_read(b, v, BCN_GEN_PACE_KEEP);
    char cpu[128];
    tl_cpu_model(cpu, sizeof cpu);
    double r[BCN_GEN_PACE_KEEP];
    unsigned m = 0;
    for (size_t i = 0; i < n; i++)   /* this machine's, with the workers it runs now */
        if (v[i].workers == workers && !strcmp(v[i].cpu, cpu)) r[m++] = v[i].rate;
    if (m < BCN_GEN_PACE_MIN) return 0;
    *median = util_median(r, m);
    *lo = r[0];
    *hi = r[m - 1];
    *count = m;
    return 1;
}
