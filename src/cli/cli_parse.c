/* SPDX-License-Identifier: ISC */
/* src/cli/cli_parse.c — parsing the CLI's option values: numbers,
 * durations, the mode and the mode policy's warning, a signer pin
 * (declared in cli_util.h). */
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

int cli_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    char *end;
    errno = 0;
    if (!*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int cli_parse_double(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

/* "90", "90s", "1.5h", "1h30m", "2d12h": NULL and *out, or why not.
 * need_unit: a bare number ("10") is refused (a time-lock's length: ten
 * seconds or ten days is not a guess to make for the user). */
static const char *duration(const char *s, double *out, int need_unit) {
    double total = 0;
    int parts = 0;
    if (!*s) return "empty";
    while (*s) {
        char *end;
        if (!((*s >= '0' && *s <= '9') || *s == '.')) return "want a number, then a unit (s, m, h, d, w, y)";
        errno = 0;
        double v = strtod(s, &end), mul;
        if (errno || end == s || !isfinite(v) || v < 0) return "not a number";
        switch (*end) {
        case 0:
            if (parts) return "a number after a unit needs its own unit";
            if (need_unit) return "a bare number: give its unit (10s, 10m, 10h, 10d, 10w or 10y)";
            mul = 1; break;
        case 's': mul = 1; break;
        case 'm': mul = 60; break;
        case 'h': mul = 3600; break;
        case 'd': mul = 86400; break;
        case 'w': mul = 7 * 86400.0; break;
        case 'y': mul = 365.25 * 86400; break;
        default: return "unknown unit (use s, m, h, d, w or y)";
        }
        total += v * mul;
        parts++;
        s = *end ? end + 1 : end;
    }
    if (!(total > 0) || !isfinite(total)) return "must be more than 0";
    *out = total;
    return NULL;
}

int cli_parse_duration(const char *s, double *out) { return duration(s, out, 0) ? -1 : 0; }

/* A duration option within lo..hi seconds; need_unit: as duration(). */
static int duration_opt(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out,
                        int need_unit) {
    double v;
    const char *why = duration(s, &v, need_unit);
    if (why) return cli_usage_error(cmd, "%s '%s': %s", opt, s, why);
    if (v < lo || v > hi) return cli_usage_error(cmd, "%s '%s': want %g..%g seconds", opt, s, lo, hi);
    *out = v;
    return CLI_OK;
}

int cli_parse_span_opt(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out) {
    return duration_opt(cmd, opt, s, lo, hi, out, 1);
}

int cli_parse_seconds_opt(const char *cmd, const char *opt, const char *s, double lo, double hi, double *out) {
    return duration_opt(cmd, opt, s, lo, hi, out, 0);
}

int cli_parse_mode(const char *s, tl_mode *out) {
    if (!strcmp(s, "light")) *out = TL_MODE_LIGHT;
    else if (!strcmp(s, "full")) *out = TL_MODE_FULL;
    else return -1;
    return 0;
}

void cli_mode_warn(const tl_mode_choice *mc) {
    if (!mc->low_memory) return;
    double gib = 1024.0 * 1024.0 * 1024.0;
    if (mc->avail_bytes == UINT64_MAX || mc->avail_bytes == 0)
        fprintf(stderr, "rxlock: warning: full mode needs %.1f GiB, not available here (%s): using light mode, "
                        "%s slower (recorded); --mode full forces it\n",
                (double)mc->need_bytes / gib, mc->why, TL_FULL_LIGHT_RANGE);
    else
        fprintf(stderr, "rxlock: warning: full mode needs %.1f GiB, %.1f GiB available here (%s): using light mode, "
                        "%s slower (recorded); --mode full forces it\n",
                (double)mc->need_bytes / gib, (double)mc->avail_bytes / gib, mc->why, TL_FULL_LIGHT_RANGE);
}

tl_mode cli_mode_pick(tl_work_type work, int requested) {
    tl_mode_choice mc;
    if (tl_mode_resolve(work, requested, &mc) != 0) return TL_MODE_LIGHT;
    cli_mode_warn(&mc);
    return mc.mode;
}

int cli_parse_pin(const char *hex, uint8_t pin[32]) {
    size_t n = 0;
    return strlen(hex) == 64 && util_hex_decode(hex, pin, 32, &n) == 0 && n == 32 ? 0 : -1;
}
