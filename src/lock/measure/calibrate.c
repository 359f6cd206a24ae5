/* SPDX-License-Identifier: ISC */
/* src/lock/measure/calibrate.c — the calibration measuring loop (real chain code,
 * windows for the spread, progress through tl_progress_fn) and the
 * calibration file's JSON form (include/rxlock/calibrate.h). */
#include "rxlock/calibrate.h"
#include "measure_internal.h"
#include "util/util.h"
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

void tl_cpu_model(char *out, size_t cap) {
    if (!cap) return;
    snprintf(out, cap, "unknown");
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (!fp) return;
    char line[1024];
    int best = 0;
    while (fgets(line, sizeof line, fp)) {
        char *c = strchr(line, ':');
        if (!c) continue;
        int pri = !strncmp(line, "model name", 10) ? 3 : !strncmp(line, "Model", 5) ? 2
                : !strncmp(line, "CPU part", 8) ? 1 : 0;
        if (pri <= best) continue;
        c++;
        while (*c == ' ' || *c == '\t') c++;
        size_t k = 0;
        for (; *c && *c != '\n' && k + 1 < cap; c++)
            out[k++] = (*c >= 0x20 && *c <= 0x7e && *c != '"' && *c != '\\') ? *c : '?';
        while (k && out[k - 1] == ' ') k--;
        out[k] = 0;
        if (!k) snprintf(out, cap, "unknown");
        best = pri;
        if (pri == 3) break;
    }
    fclose(fp);
}

/* The 1-minute load average, -1 when unknown. */
static double load1(void) {
    double l[1];
    return getloadavg(l, 1) == 1 ? l[0] : -1;
}

#ifdef RXLOCK_TESTING
/* Test build only: RXLOCK_TEST_CAL_SLOW_WINDOW=k stretches window k (from
 * 0) to twice its time, as a busy machine would: the spread warning's test. */
static int slow_window(unsigned k) {
    const char *s = getenv("RXLOCK_TEST_CAL_SLOW_WINDOW");
    return s && *s && (unsigned)atoi(s) == k;
}
#else
static int slow_window(unsigned k) { (void)k; return 0; }
#endif

static int is_randomx(tl_work_type t) { return t == TL_WORK_RANDOMX_V1 || t == TL_WORK_RANDOMX_V2; }

/* This process's CPU seconds (user + system, all threads). */
static double cpu_seconds(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* The setup a solver on this machine pays when it has the machine to itself:
 * the smaller of the wall time and the CPU time spread over the threads that
 * built it (the dataset is built on every usable CPU, the rest runs on one).
 * Other work on a busy machine stretches the wall time but not the CPU time,
 * and a setup counted too long would make the puzzle open sooner than it
 * says. */
static double quiet_setup(double wall, double cpu, tl_work_type type, tl_mode mode) {
    if (cpu < 0) return wall;
    unsigned threads = is_randomx(type) && mode == TL_MODE_FULL ? util_cpus_usable() : 1;
    double est = cpu / (threads ? threads : 1);
    return est < wall ? est : wall;
}


/* Full-mode RandomX: how many placements of the cache + dataset in RAM to
 * measure.  On some machines (a VM here: 4-16%) the rate
 * depends on where the 2 GiB land, stable within a process; a solver gets
 * whichever placement its process gets, so sizing from one placement can
 * promise too long a time.  w[0] is built; w[1..] become copies in new
 * allocations held at once (a freed dataset's pages would be handed out
 * again), each only while two more would fit (tl_mode_resolve's checks):
 * the machine keeps a dataset's worth free.  Returns the count made (1 for
 * light mode and sha3); a copy that cannot be made ends the list. */
static unsigned place_count(tl_work_type type, tl_mode mode, unsigned want, tl_work **w) {
    if (!is_randomx(type) || mode != TL_MODE_FULL) return 1;
    if (want == 0) want = TL_CALIBRATE_ALLOCATIONS;
    if (want > TL_CALIBRATE_MAX_ALLOCATIONS) want = TL_CALIBRATE_MAX_ALLOCATIONS;
    unsigned a = 1;
    for (; a < want; a++) {
        if (!tl_full_fits(2)) break;   /* this copy, and room for one more after it */
        if (tl_work_clone(&w[a], w[0]) != TL_OK) { w[a] = NULL; break; }
    }
    return a;
}

static void iso_now(char *out, size_t cap) {
    time_t t = time(NULL);
    struct tm tm;
    if (t == (time_t)-1 || !gmtime_r(&t, &tm) || !strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, cap, "1970-01-01T00:00:00Z");
}

int tl_calibrate(tl_work_type type, tl_mode mode, double seconds,
                 const tl_calibrate_opts *o, tl_calibration *out) {
    if (!out || !tl_work_name(type) ||
        (mode != TL_MODE_DEFAULT && mode != TL_MODE_LIGHT && mode != TL_MODE_FULL) || !(seconds >= TL_CALIBRATE_MIN_SECONDS && seconds <= TL_CALIBRATE_MAX_SECONDS))
        return TL_EINVAL;
    mode = tl_mode_effective(type, mode);   /* zero: the mode policy */
    memset(out, 0, sizeof *out);
    out->work = type;
    out->mode = type == TL_WORK_SHA3_256 ? TL_MODE_LIGHT : mode;
    tl_cpu_model(out->cpu, sizeof out->cpu);
    iso_now(out->created, sizeof out->created);
    const volatile int *stop = o ? o->stop : NULL;
    tl_progress_fn cb = o ? o->progress : NULL;
    void *ctx = o ? o->progress_ctx : NULL;
    double pint = o && o->progress_interval > 0 ? o->progress_interval : 0.5;

    /* The key is public and fixed; RandomX speed does not depend on it. */
    uint8_t key[32], d[32];
    memcpy(key, "rxlock/calibrate/v1 key.........", 32);
    memset(d, 0, sizeof d);
    out->load_average = load1();
    double t_setup = util_now(), c_setup = cpu_seconds();
    tl_work *w[TL_CALIBRATE_MAX_ALLOCATIONS] = { NULL };
    int rc;
    if (cb && out->mode == TL_MODE_FULL && is_randomx(type)) {   /* the dataset build shows */
        tl_progress sp = { .eta_seconds = -1 };
        rc = tl_work_new_progress(&w[0], type, key, out->mode, cb, ctx, &sp, seconds);
    } else {
        rc = tl_work_new(&w[0], type, key, out->mode);
    }
    if (rc) return rc;
    double setup_wall = util_now() - t_setup, setup_cpu = cpu_seconds();
    out->setup_seconds = quiet_setup(setup_wall, c_setup < 0 || setup_cpu < 0 ? -1 : setup_cpu - c_setup,
                                     type, out->mode);
    out->huge_share = tl_work_huge_share(w[0]);
    (void)tl_work_engine(w[0], &out->engine);
    unsigned A = place_count(type, out->mode, o ? o->allocations : 0, w);
    out->allocations = A;

    unsigned windows = (unsigned)seconds;
    if (windows < 3) windows = 3;
    if (windows > 10) windows = 10;
    if (A > 1) windows = A * ((windows + A - 1) / A < 2 ? 2 : (windows + A - 1) / A);
    double win = seconds / windows;
    uint64_t n = 0, batch = 1;
    double lo = INFINITY, hi = 0, shift = 0;
    double a_lo[TL_CALIBRATE_MAX_ALLOCATIONS], a_hi[TL_CALIBRATE_MAX_ALLOCATIONS] = { 0 };
    double a_sec[TL_CALIBRATE_MAX_ALLOCATIONS] = { 0 };
    uint64_t a_n[TL_CALIBRATE_MAX_ALLOCATIONS] = { 0 };
    for (unsigned a = 0; a < A; a++) a_lo[a] = INFINITY;
    double t0 = util_now(), t = t0, t_prog = t0;
    tl_progress p = { .eta_seconds = -1, .engine = &out->engine };
    if (rc == 0 && cb && cb(&p, ctx)) rc = TL_EINTR;   /* once before any work: the engine */
    for (unsigned k = 0; k < windows && rc == 0; k++) {
        unsigned a = k % A;   /* round robin: a load change touches every placement alike */
        double ws = t, wend = t0 + shift + win * (k + 1);
        uint64_t wn = 0;
        do {
            if (stop && *stop) { rc = TL_EINTR; break; }
            double b0 = t;
            rc = tl_work_steps(w[a], 1, n, batch, d);
            if (rc) break;
            n += batch; wn += batch;
            t = util_now();
            /* keep each batch near 1/32 of a window: cheap timing, fine edges */
            if (t - b0 < win / 64 && batch < (1u << 24)) batch *= 2;
            else if (t - b0 > win / 16 && batch > 1) batch /= 2;
            if (cb && t - t_prog >= pint) {
                t_prog = t;
                p.hashes_done = n;
                p.rate = (double)n / (t - t0);
                p.hashes_total = (uint64_t)(p.rate * seconds) + 1;   /* an estimate */
                if (p.hashes_total < n) p.hashes_total = n;
                p.eta_seconds = t0 + seconds > t ? t0 + seconds - t : 0;
                if (cb(&p, ctx)) { rc = TL_EINTR; break; }
            }
        } while (t < wend);
        if (rc) break;
        if (slow_window(k)) {   /* test build: the window took twice as long */
            double t1 = t, until = t + (t - ws);
            while ((t = util_now()) < until) {}
            shift += t - t1;    /* the later windows keep their length */
        }
        double r = (double)wn / (t - ws);
        if (r < lo) lo = r;
        if (r > hi) hi = r;
        if (r < a_lo[a]) a_lo[a] = r;
        if (r > a_hi[a]) a_hi[a] = r;
        a_n[a] += wn;
        a_sec[a] += t - ws;
    }
    for (unsigned a = 0; a < TL_CALIBRATE_MAX_ALLOCATIONS; a++) tl_work_free(w[a]);
    memset(d, 0, sizeof d);
    if (rc) return rc;
    out->hashes = n;
    out->seconds = t - t0;
    out->rate = (double)n / out->seconds;
    out->rate_min = lo < out->rate ? lo : out->rate;
    out->rate_max = hi > out->rate ? hi : out->rate;
    out->windows = windows;
    /* the windows' spread inside one placement: noise, the largest of them */
    for (unsigned a = 0; a < A; a++) {
        out->allocation_rates[a] = a_sec[a] > 0 ? (double)a_n[a] / a_sec[a] : 0;
        double sp = a_hi[a] > 0 ? (a_hi[a] - a_lo[a]) / a_hi[a] : 0;
        if (sp > out->window_spread) out->window_spread = sp;
    }
    double l = load1();
    if (l > out->load_average) out->load_average = l;
    return TL_OK;
}

/* The typical rate, not the fastest window: with the floor as the "no
 * sooner than" bound, "about T" is the expected time (docs/SECURITY.md
 * §Calibration).  Several placements: the best one's mean (a solver may
 * get that placement); else the mean over the whole run. */
double tl_calibration_sizing_rate(const tl_calibration *c) {
    if (!c) return 0;
    double best = 0;
    for (unsigned a = 0; c->allocations > 1 && a < c->allocations && a < TL_CALIBRATE_MAX_ALLOCATIONS; a++)
        if (c->allocation_rates[a] > best) best = c->allocation_rates[a];
    return best > 0 ? best : c->rate;
}

const char *tl_calibration_sizing_statistic(const tl_calibration *c) {
    return c && c->allocations > 1 ? "the best placement's mean" : "the mean over the run";
}

double tl_calibration_spread(const tl_calibration *c) {
    if (!c) return 0;
    if (c->allocations > 1) return c->window_spread;
    return c->rate_max > 0 ? (c->rate_max - c->rate_min) / c->rate_max : 0;
}

int tl_calibration_placement_range(const tl_calibration *c, double *lo, double *hi) {
    if (!c || !lo || !hi || c->allocations < 2) return 0;
    *lo = INFINITY;
    *hi = 0;
    for (unsigned a = 0; a < c->allocations && a < TL_CALIBRATE_MAX_ALLOCATIONS; a++) {
        if (c->allocation_rates[a] < *lo) *lo = c->allocation_rates[a];
        if (c->allocation_rates[a] > *hi) *hi = c->allocation_rates[a];
    }
    return 1;
}

double tl_calibration_placement_spread(const tl_calibration *c) {
    double lo, hi;
    return tl_calibration_placement_range(c, &lo, &hi) && hi > 0 ? (hi - lo) / hi : 0;
}

static const char *mode_name(tl_mode m) { return m == TL_MODE_FULL ? "full" : "light"; }

int tl_calibration_to_json(const tl_calibration *c, char **json, size_t *len) {
    if (!c || !json || !tl_work_name(c->work)) return TL_EINVAL;
    json_t *o = json_pack("{s:i, s:s}", "rxlock_calibration", TL_CALIBRATION_VERSION,
                          "work", tl_work_name(c->work));
    if (o && is_randomx(c->work) &&   /* what applies to RandomX only */
        (json_object_set_new(o, "mode", json_string(mode_name(c->mode))) ||
         json_object_set_new(o, "engine", json_string(c->engine.engine ? c->engine.engine : "interpreter")) ||
         json_object_set_new(o, "aes", json_string(c->engine.aes ? c->engine.aes : "software")) ||
         (c->engine.install &&   /* version 6 */
          json_object_set_new(o, "jit_install", json_string(c->engine.install))))) {
        json_decref(o);
        o = NULL;
    }
    if (o) {
        json_t *t = json_pack("{s:f, s:f, s:f, s:f, s:s, s:s}", "rate", c->rate, "rate_min", c->rate_min,
                              "rate_max", c->rate_max, "seconds", c->seconds, "cpu", c->cpu,
                              "created", c->created);
        if (!t || json_object_update(o, t)) { json_decref(o); o = NULL; }
        json_decref(t);
    }
    if (o) {   /* version 3 */
        json_t *t = json_pack("{s:f, s:i, s:f}", "setup_seconds", c->setup_seconds, "windows", (int)c->windows,
                              "load_average", c->load_average);
        if (!t || json_object_update(o, t)) { json_decref(o); o = NULL; }
        json_decref(t);
    }
    if (o && is_randomx(c->work) && c->mode == TL_MODE_FULL && c->huge_share >= 0 &&   /* version 4 */
        json_object_set_new(o, "dataset_huge_pages", json_real(c->huge_share))) {
        json_decref(o);
        o = NULL;
    }
    if (o && is_randomx(c->work) && c->mode == TL_MODE_FULL && c->allocations >= 1 &&   /* version 5 */
        c->allocations <= TL_CALIBRATE_MAX_ALLOCATIONS) {
        json_t *r = json_array();
        for (unsigned a = 0; r && a < c->allocations; a++)
            if (json_array_append_new(r, json_real(c->allocations > 1 ? c->allocation_rates[a] : c->rate))) {
                json_decref(r);
                r = NULL;
            }
        double ws = c->allocations > 1 ? c->window_spread : tl_calibration_spread(c);
        if (!r || json_object_set_new(o, "allocations", json_integer(c->allocations)) ||
            json_object_set_new(o, "allocation_rates", r) ||
            json_object_set_new(o, "window_spread", json_real(ws))) {
            json_decref(o);
            o = NULL;
        }
    }
    if (!o) return TL_ENOMEM;
    char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(o);
    if (!s) return TL_ENOMEM;
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) { free(s); return TL_ENOMEM; }
    t[n] = '\n'; t[n + 1] = 0;
    *json = t;
    if (len) *len = n + 1;
    return TL_OK;
}

static int fmt_err(char *err, size_t errlen, int rc, const char *msg) {
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return rc;
}

static int get_num(json_t *o, const char *k, double *v) {
    json_t *x = json_object_get(o, k);
    if (!x || !json_is_number(x)) return -1;
    *v = json_number_value(x);
    return isfinite(*v) ? 0 : -1;
}

static int printable(const char *s, size_t max) {
    size_t n = strlen(s);
    if (n == 0 || n >= max) return 0;
    for (; *s; s++) if (*s < 0x20 || *s > 0x7e) return 0;
    return 1;
}

/* v if it is one of a / b (returning that static string), else NULL. */
static const char *one_of(const char *v, const char *a, const char *b) {
    return !v ? NULL : !strcmp(v, a) ? a : !strcmp(v, b) ? b : NULL;
}

int tl_calibration_parse(const char *json, size_t len, tl_calibration *out, char *err, size_t errlen) {
    static const char *const common[] = { "rxlock_calibration", "work", "rate", "rate_min", "rate_max",
                                          "seconds", "cpu", "created" };
    static const char *const v3[] = { "setup_seconds", "windows", "load_average" };
    if (!json || !out) return TL_EINVAL;
    if (len > TL_CALIBRATION_MAX_BYTES) return fmt_err(err, errlen, TL_ETOOBIG, "calibration file too large");
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *o = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!o) return fmt_err(err, errlen, TL_EFORMAT, "calibration file is not valid JSON");
    int rc = TL_EFORMAT;
    const char *why = "not a calibration object";
    if (!json_is_object(o)) goto out;
    json_t *ver = json_object_get(o, "rxlock_calibration");
    if (!ver || !json_is_integer(ver)) { why = "missing \"rxlock_calibration\": 2"; goto out; }
    json_int_t version = json_integer_value(ver);
    if (version < 1 || version > TL_CALIBRATION_VERSION) {
        rc = TL_EVERSION; why = "unsupported calibration version"; goto out;
    }
    const char *work = json_string_value(json_object_get(o, "work"));
    if (!work || tl_work_parse(work, &out->work) != 0) { why = "bad \"work\""; goto out; }
    /* version 1: mode for every work; version 2: mode, engine, aes for RandomX only */
    int rx = is_randomx(out->work), want_mode = version == 1 || rx, want_engine = version != 1 && rx;
    const char *k;
    json_t *val;
    json_object_foreach(o, k, val) {
        int known = (want_mode && !strcmp(k, "mode")) ||
                    (want_engine && (!strcmp(k, "engine") || !strcmp(k, "aes")));
        for (size_t i = 0; i < sizeof common / sizeof common[0]; i++) if (!strcmp(k, common[i])) known = 1;
        for (size_t i = 0; version >= 3 && i < sizeof v3 / sizeof v3[0]; i++) if (!strcmp(k, v3[i])) known = 1;
        if (version >= 4 && rx && !strcmp(k, "dataset_huge_pages")) known = 1;
        if (version >= 6 && rx && !strcmp(k, "jit_install")) known = 1;
        if (version >= 5 && rx && (!strcmp(k, "allocations") || !strcmp(k, "allocation_rates") ||
                                   !strcmp(k, "window_spread"))) known = 1;
        if (!known) { why = "unknown key in calibration file"; goto out; }
    }
    out->engine.work = out->work;
    if (rx) out->engine.version = out->work == TL_WORK_RANDOMX_V2 ? 2 : 1;
    if (want_mode) {
        const char *mode = one_of(json_string_value(json_object_get(o, "mode")), "light", "full");
        if (!mode) { why = "bad \"mode\""; goto out; }
        if (rx) {
            out->mode = !strcmp(mode, "full") ? TL_MODE_FULL : TL_MODE_LIGHT;
            out->engine.mode = mode;
        }
    }
    if (want_engine) {
        out->engine.engine = one_of(json_string_value(json_object_get(o, "engine")), "jit", "interpreter");
        out->engine.aes = one_of(json_string_value(json_object_get(o, "aes")), "hardware", "software");
        if (!out->engine.engine) { why = "bad \"engine\" (jit, interpreter)"; goto out; }
        if (!out->engine.aes) { why = "bad \"aes\" (hardware, software)"; goto out; }
        json_t *inst = json_object_get(o, "jit_install");   /* version 6: with the JIT only */
        if (inst) {
            out->engine.install = one_of(json_string_value(inst), "proc-mem", "mprotect");
            if (!out->engine.install) { why = "bad \"jit_install\" (proc-mem, mprotect)"; goto out; }
            if (strcmp(out->engine.engine, "jit")) { why = "\"jit_install\" without \"engine\": \"jit\""; goto out; }
        }
    }
    const char *cpu = json_string_value(json_object_get(o, "cpu"));
    const char *created = json_string_value(json_object_get(o, "created"));
    if (get_num(o, "rate", &out->rate) || get_num(o, "rate_min", &out->rate_min) ||
        get_num(o, "rate_max", &out->rate_max) || get_num(o, "seconds", &out->seconds)) {
        why = "missing or non-numeric rate/rate_min/rate_max/seconds"; goto out;
    }
    if (!(out->rate_min > 0 && out->rate_min <= out->rate && out->rate <= out->rate_max &&
          out->rate_max < 1e12 && out->seconds > 0 && out->seconds <= TL_CALIBRATE_MAX_SECONDS * 10)) {
        why = "rates out of range (need 0 < rate_min <= rate <= rate_max)"; goto out;
    }
    out->load_average = -1;
    out->huge_share = -1;
    if (json_object_get(o, "dataset_huge_pages")) {   /* version 4, RandomX (checked above) */
        if (get_num(o, "dataset_huge_pages", &out->huge_share) || !(out->huge_share >= 0 && out->huge_share <= 1)) {
            why = "bad dataset_huge_pages (need 0..1)"; goto out;
        }
    }
    if (json_object_get(o, "allocations") || json_object_get(o, "allocation_rates") ||
        json_object_get(o, "window_spread")) {   /* version 5, RandomX (checked above): all three */
        double an;
        json_t *ar = json_object_get(o, "allocation_rates");
        if (out->mode != TL_MODE_FULL || get_num(o, "allocations", &an) || an != floor(an) || an < 1 ||
            an > TL_CALIBRATE_MAX_ALLOCATIONS || !json_is_array(ar) || json_array_size(ar) != (size_t)an ||
            get_num(o, "window_spread", &out->window_spread) ||
            !(out->window_spread >= 0 && out->window_spread <= 1)) {
            why = "bad allocations / allocation_rates / window_spread (full mode, 1..8 placements)"; goto out;
        }
        out->allocations = (unsigned)an;
        for (unsigned a = 0; a < out->allocations; a++) {
            json_t *x = json_array_get(ar, a);
            double r = json_is_number(x) ? json_number_value(x) : -1;
            if (!(r > 0 && r <= out->rate_max * 1.000001)) { why = "bad allocation_rates (each 0 < r <= rate_max)"; goto out; }
            out->allocation_rates[a] = r;
        }
    }
    if (version >= 3) {
        double wn;
        if (get_num(o, "setup_seconds", &out->setup_seconds) || get_num(o, "windows", &wn) ||
            get_num(o, "load_average", &out->load_average) || !(out->setup_seconds >= 0) ||
            out->setup_seconds > TL_CALIBRATE_MAX_SECONDS || !(wn >= 0 && wn <= 1000) ||
            !(out->load_average >= -1 && out->load_average < 1e6)) {
            why = "bad setup_seconds / windows / load_average"; goto out;
        }
        out->windows = (unsigned)wn;
    }
    if (!cpu || !printable(cpu, sizeof out->cpu)) { why = "bad \"cpu\""; goto out; }
    if (!created || !printable(created, sizeof out->created) || strlen(created) != 20 ||
        created[4] != '-' || created[10] != 'T' || created[19] != 'Z') { why = "bad \"created\" (ISO-8601 UTC)"; goto out; }
    snprintf(out->cpu, sizeof out->cpu, "%s", cpu);
    snprintf(out->created, sizeof out->created, "%s", created);
    rc = TL_OK;
out:
    json_decref(o);
    if (rc) { memset(out, 0, sizeof *out); return fmt_err(err, errlen, rc, why); }
    return TL_OK;
}

int tl_calibration_load(const char *path, tl_calibration *out, char *err, size_t errlen) {
    uint8_t *data;
    size_t len;
    if (!path || !out) return TL_EINVAL;
    if (util_read_file(path, TL_CALIBRATION_MAX_BYTES, &data, &len) != 0) {
        if (errno == EFBIG) return fmt_err(err, errlen, TL_ETOOBIG, "calibration file too large");
        if (err && errlen) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return TL_EIO;
    }
    int rc = tl_calibration_parse((const char *)data, len, out, err, errlen);
    free(data);
    return rc;
}
