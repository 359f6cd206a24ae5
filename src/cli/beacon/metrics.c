/* SPDX-License-Identifier: ISC */
/* src/cli/beacon/metrics.c — the service's instruments for its operator:
 * DIR/private/service.json (the epoch being made, its progress, ETA and
 * release, the keep-up margin, the cluster's jobs, the last error; what
 * `beacon status DIR` shows), and with `beacon run --metrics FILE` the
 * same as Prometheus' text exposition format for node_exporter's textfile
 * collector (epochs generated ahead, seconds until the next release, the
 * margin, failures), each replaced atomically (a temporary file renamed
 * over it: the collector never reads half a file).  docs/FORMAT.md
 * §Service record. */
#include "cli/beacon/beacon_cli.h"
#include "cli/cli.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SV_MAX 8192

/* Epochs from the first still open whose every key is generated and not
 * yet released, counted until the first gap. */
static unsigned epochs_ahead(const bcn_dir *b, int64_t now) {
    const tl_beacon_sched *s = &b->cfg.s;
    int before = 0, kinds[2];
    unsigned nk = bcn_kinds(s->kinds, kinds), n = 0;
    uint64_t E = tl_beacon_epoch_at(s, now, &before);
    if (!before) E++;
    for (; n < TL_BEACON_MAX_AHEAD; E++, n++) {
        for (unsigned q = 0; q < nk; q++) {
            char stem[48], p[PATH_MAX];
            bcn_stem(s, E, kinds[q], stem);
            bcn_file(b, p, "private/puzzles/%s.json", stem);
            if (access(p, F_OK) != 0) return n;
        }
    }
    return n;
}

/* A Prometheus label value: backslash, quote and newline escaped. */
static void label(char *out, size_t cap, const char *in) {
    size_t n = 0;
    for (; *in && n + 3 < cap; in++) {
        if (*in == '\\' || *in == '"') { out[n++] = '\\'; out[n++] = *in; }
        else if (*in == '\n') { out[n++] = '\\'; out[n++] = 'n'; }
        else out[n++] = *in;
    }
    out[n] = 0;
}

static void metric(char *buf, size_t *n, const char *name, const char *type, const char *help, const char *lab, double v) {
    if (*n >= SV_MAX) return;
    *n += (size_t)snprintf(buf + *n, SV_MAX - *n, "# HELP %s %s\n# TYPE %s %s\n%s{%s} %.17g\n", name, help, name, type,
                           name, lab, v);
}

static void write_metrics(const bcn_dir *b, const bcn_service *sv, int64_t now, unsigned ahead) {
    static int said;
    char *buf = malloc(SV_MAX), dir[PATH_MAX], lab[PATH_MAX + 64];
    if (!buf) return;
    label(dir, sizeof dir, b->dir);
    snprintf(lab, sizeof lab, "beacon=\"%s\",mode=\"%s\"", dir, sv->mode);
    size_t n = 0;
    metric(buf, &n, "rxlock_beacon_epochs_ahead", "gauge", "Epochs generated and not yet released, from the next release on.", lab, ahead);
    metric(buf, &n, "rxlock_beacon_epochs_ahead_target", "gauge", "Epochs the schedule keeps generated ahead (--ahead).", lab, b->cfg.s.ahead);
    metric(buf, &n, "rxlock_beacon_next_release_seconds", "gauge", "Seconds until the next release time.", lab,
           sv->next_release > now ? (double)(sv->next_release - now) : 0);
    metric(buf, &n, "rxlock_beacon_keepup_margin", "gauge", "The period over one period's generation time (>= 1 keeps up; 0 unknown).", lab, sv->margin);
    metric(buf, &n, "rxlock_beacon_generation_progress_ratio", "gauge", "Share of the epoch being made that is done (0 when none is).", lab,
           sv->epoch >= 0 && sv->total > 0 ? sv->done / sv->total : 0);
    metric(buf, &n, "rxlock_beacon_generation_release_slack_seconds", "gauge",
           "Release time of the epoch being made minus its expected completion (negative: late; 0 when unknown).", lab,
           sv->epoch >= 0 && sv->eta >= 0 ? (double)(sv->release - now) - sv->eta : 0);
    metric(buf, &n, "rxlock_beacon_failures_total", "counter", "Failed generations, submissions and assemblies, and epochs skipped.", lab, (double)sv->failures);
    metric(buf, &n, "rxlock_beacon_resubmissions_total", "counter", "Cluster submissions made again after tasks were lost.", lab, (double)sv->resubmissions);
    metric(buf, &n, "rxlock_beacon_last_error_timestamp_seconds", "gauge", "Unix time of the last error (0 none).", lab, (double)sv->last_error_at);
    metric(buf, &n, "rxlock_beacon_updated_timestamp_seconds", "gauge", "Unix time this file was written.", lab, (double)now);
    if (n >= SV_MAX) n = SV_MAX - 1;
    if (util_write_file_atomic(sv->metrics, buf, n, 1, 0644) != 0 && !said) {
        said = 1;
        bcn_log("warning: --metrics %s: %s (said once)", sv->metrics, strerror(errno));
    }
    free(buf);
}

void bcn_service_write(const bcn_dir *b, const bcn_service *sv) {
    static int said;
    int64_t now = tl_beacon_now();
    unsigned ahead = epochs_ahead(b, now);
    json_t *o = json_pack("{s:i,s:s,s:I,s:I,s:i,s:i,s:f,s:I,s:I}", "rxlock_service", 1, "mode", sv->mode,
                          "updated", (json_int_t)now, "pid", (json_int_t)getpid(), "epochs_ahead", (int)ahead,
                          "ahead", (int)b->cfg.s.ahead, "margin", sv->margin, "next_release", (json_int_t)sv->next_release,
                          "failures", (json_int_t)sv->failures);
    if (!o) return;
    json_object_set_new(o, "resubmissions", json_integer((json_int_t)sv->resubmissions));
    if (sv->epoch >= 0) {
        json_t *e = json_pack("{s:I,s:s,s:f,s:f,s:s,s:I}", "epoch", (json_int_t)sv->epoch, "stem", sv->stem, "done",
                              sv->done, "total", sv->total, "unit", sv->unit ? sv->unit : "", "release",
                              (json_int_t)sv->release);
        if (e) {
            json_object_set_new(e, "started", sv->started > 0 ? json_integer((json_int_t)sv->started) : json_null());
            json_object_set_new(e, "eta_seconds", sv->eta >= 0 ? json_real(sv->eta) : json_null());
            json_object_set_new(e, "jobs", json_string(sv->jobs));
            json_object_set_new(o, "making", e);
        }
    } else
        json_object_set_new(o, "making", json_null());
    json_object_set_new(o, "last_error", sv->last_error[0] ? json_string(sv->last_error) : json_null());
    json_object_set_new(o, "last_error_at", json_integer((json_int_t)sv->last_error_at));
    char *text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(o);
    if (text) {
        char p[PATH_MAX];
        size_t len = strlen(text);
        text[len] = '\n';   /* json_dumps' NUL replaced: written with its length */
        bcn_file(b, p, "private/service.json");
        if (util_write_file_atomic(p, text, len + 1, 1, 0600) != 0 && !said) {
            said = 1;
            bcn_log("warning: %s: %s (said once)", p, strerror(errno));
        }
        free(text);
    }
    if (sv->metrics) write_metrics(b, sv, now, ahead);
}

/* Is a `beacon run` serving dir (holding private/run.lock)?  1 yes, 0 no. */
static int serving(const char *dir) {
    char p[PATH_MAX];
    if ((size_t)snprintf(p, sizeof p, "%s/private/run.lock", dir) >= sizeof p) return 0;
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return 0;
    int held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}

int bcn_service_print(const char *dir, int json) {
    char p[PATH_MAX];
    if ((size_t)snprintf(p, sizeof p, "%s/private/service.json", dir) >= sizeof p) return 1;
    uint8_t *buf = NULL;
    size_t len = 0;
    if (util_read_file(p, 1u << 16, &buf, &len) != 0) return 1;
    json_error_t je;
    json_t *o = json_loadb((const char *)buf, len, 0, &je);
    free(buf);
    if (!o || !json_is_object(o)) { json_decref(o); return 1; }
    int run = serving(dir);
    json_object_set_new(o, "running", json_boolean(run));
    if (json) {
        json_t *w = json_pack("{s:O}", "service", o);
        char *t = w ? json_dumps(w, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
        if (t) printf("%s\n", t);
        free(t);
        json_decref(w);
        json_decref(o);
        return 0;
    }
    int64_t now = tl_beacon_now(), upd = json_integer_value(json_object_get(o, "updated"));
    char when[48], ago[32];
    bcn_time(when, sizeof when, upd);
    util_format_duration(ago, sizeof ago, (double)(now > upd ? now - upd : 0));
    printf("service: %s generation, %s (pid %lld), record of %s (%s ago)\n", json_string_value(json_object_get(o, "mode")),
           run ? "running" : "NOT RUNNING", (long long)json_integer_value(json_object_get(o, "pid")), when, ago);
    printf("  epochs generated ahead: %lld of %lld\n", (long long)json_integer_value(json_object_get(o, "epochs_ahead")),
           (long long)json_integer_value(json_object_get(o, "ahead")));
    double m = json_number_value(json_object_get(o, "margin"));
    if (m > 0) printf("  keep-up margin: %.2fx (a period over a period's generation; >= 1 keeps up)\n", m);
    else printf("  keep-up margin: not measured yet\n");
    json_t *e = json_object_get(o, "making");
    if (json_is_object(e)) {
        int64_t rel = json_integer_value(json_object_get(e, "release"));
        double done = json_number_value(json_object_get(e, "done")), total = json_number_value(json_object_get(e, "total"));
        char rs[48], rin[32];
        bcn_time(rs, sizeof rs, rel);
        util_format_duration(rin, sizeof rin, (double)(rel > now ? rel - now : 0));
        printf("  making epoch %lld (%s): %.0f of %.0f %s (%.0f%%), release %s (in %s)\n",
               (long long)json_integer_value(json_object_get(e, "epoch")), json_string_value(json_object_get(e, "stem")),
               done, total, json_string_value(json_object_get(e, "unit")), total > 0 ? 100 * done / total : 0, rs, rin);
        json_t *eta = json_object_get(e, "eta_seconds");
        if (json_is_number(eta)) {
            char es[32];
            double left = json_number_value(eta) - (double)(now - upd);
            util_format_duration(es, sizeof es, left > 0 ? left : 0);
            printf("  ETA: %s, %s its release\n", es, (double)now + left <= (double)rel ? "before" : "AFTER");
        } else
            printf("  ETA: unknown (no epoch measured yet)\n");
        const char *jobs = json_string_value(json_object_get(e, "jobs"));
        if (jobs && jobs[0]) printf("  cluster jobs: %s\n", jobs);
    } else
        printf("  making: nothing (every epoch ahead is generated)\n");
    printf("  failures: %lld, resubmissions: %lld\n", (long long)json_integer_value(json_object_get(o, "failures")),
           (long long)json_integer_value(json_object_get(o, "resubmissions")));
    const char *le = json_string_value(json_object_get(o, "last_error"));
    if (le) {
        char at[48];
        bcn_time(at, sizeof at, json_integer_value(json_object_get(o, "last_error_at")));
        printf("  last error (%s): %s\n", at, le);
    }
    json_decref(o);
    return 0;
}
