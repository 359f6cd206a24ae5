/* SPDX-License-Identifier: ISC */
/* src/lock/measure/notice.c — the plain-text notice of a .rxlock container
 * (docs/FORMAT.md, "Single-file container"): how to open it (rxlock unlock,
 * then the manual path with exact commands and which age reads the
 * identity), the work, the assumed rate and the promise against the floor
 * with its UTC dates (promise.c, floor.c). */
#include "rxlock/container.h"
#include "measure_internal.h"
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static void human_duration(char *b, size_t cap, double s) {
    if (s < 120) snprintf(b, cap, "%.0f seconds", s);
    else if (s < 7200) snprintf(b, cap, "%.1f minutes", s / 60);
    else if (s < 2 * 86400) snprintf(b, cap, "%.1f hours", s / 3600);
    else if (s < 2 * 365.25 * 86400) snprintf(b, cap, "%.1f days", s / 86400);
    else snprintf(b, cap, "%.1f years", s / (365.25 * 86400));
}

/* Only printable ASCII in the notice (names may hold anything). */
static void sanitize(char *dst, size_t cap, const char *src) {
    size_t n = 0;
    for (; *src && n + 1 < cap && n < 120; src++)
        dst[n++] = (*src >= 0x20 && *src <= 0x7e) ? *src : '?';
    dst[n] = 0;
}

/* The promise (tl_promise_text_at, built-in floor table; published now,
 * when the container is written) and the mode to open it with, as "# "
 * lines wrapped at 72 columns. */
static void promise_lines(char *out, size_t cap, const tl_puzzle *pz) {
    char t[700];
    tl_floor_table ft;
    tl_floor_builtin(&ft);
    tl_promise_text_at(t, sizeof t, pz, &ft, pz->created ? (int64_t)time(NULL) : 0);
    size_t n = 0, len = strlen(t), i = 0;
    if (len + 1 < sizeof t) { t[len++] = '.'; t[len] = 0; }
    if (t[0] == 'p') t[0] = 'P';   /* "Published DATE: opens ..." */
    out[0] = 0;
    const char *lead = t[0] == 'P' ? "# " : "# It ";
    while (i < len && n + 80 < cap) {
        size_t w = len - i, room = 72 - strlen(lead);
        if (w > room) { w = room; while (w > 0 && t[i + w] != ' ') w--; if (!w) w = room; }
        n += (size_t)snprintf(out + n, cap - n, "%s%.*s\n", lead, (int)w, t + i);
        i += w;
        while (i < len && t[i] == ' ') i++;
        lead = "# ";
    }
    if (pz->work != TL_WORK_SHA3_256 && n + 240 < cap)
        snprintf(out + n, cap - n,
                 "# The command above runs RandomX in full mode when 2.3 GiB of memory\n"
                 "# is free (fastest), else in light mode, %s slower, with a\n"
                 "# warning; --mode full|light forces either.\n", TL_FULL_LIGHT_RANGE);
    n = strlen(out);
    if (n + 3 < cap) snprintf(out + n, cap - n, "#\n");
}

int tl_container_notice(char *buf, size_t cap, const tl_puzzle *pz, const char *name) {
    char nm[128], dur[64], rate[160], promise[1400];
    if (!buf || !pz || !name) return TL_EINVAL;
    const char *slash = strrchr(name, '/');
    sanitize(nm, sizeof nm, slash ? slash + 1 : name);
    double total = (double)pz->groups * (double)pz->steps;
    if (pz->rate_milli_hps) {
        double r = (double)pz->rate_milli_hps / 1000.0;
        human_duration(dur, sizeof dur, total / r);
        snprintf(rate, sizeof rate, "about %s at the assumed rate of %.1f hashes/s (%s)",
                 dur, r, pz->rate_source);
    } else {
        snprintf(rate, sizeof rate, "no solver rate was assumed when it was made");
    }
    promise_lines(promise, sizeof promise, pz);
    char made[32] = "unknown";
    time_t t = (time_t)pz->created;
    struct tm tmv;
    if (gmtime_r(&t, &tmv)) strftime(made, sizeof made, "%Y-%m-%d %H:%M:%S UTC", &tmv);
    int n = snprintf(buf, cap,
        "#\n"
        "# This file is time-locked: its content is encrypted, and the key can be\n"
        "# recovered by anyone, but only by computing a long chain of hashes one\n"
        "# after the other.  No password is needed; only time.\n"
        "#\n"
        "# To open it, install rxlock and run:\n"
        "#\n"
        "#     rxlock unlock %s\n"
        "#\n"
        "# It writes the content beside this file (the name without .rxlock).\n"
        "#\n"
        "%s"
        "# Work: %u group(s) x %" PRIu64 " sequential %s hashes = %.0f hashes,\n"
        "# %s.\n"
        "# The work cannot be spread over several cores.  It can be interrupted\n"
        "# and resumed: progress is kept in a journal file beside this one.\n"
        "# Made %s%s.\n"
        "#\n"
        "# Layout (docs/FORMAT.md, \"Single-file container\"): these notice lines,\n"
        "# a \"puzzle <bytes>\" line, the rxlock puzzle (JSON), then an age v1 file\n"
        "# encrypted to the puzzle's epoch key.  By hand: the first command also\n"
        "# saves the identity, then the age file is cut out and opened with age:\n"
        "#\n"
        "#     rxlock unlock %s --save-identity key.txt\n"
        "#     off=$(grep -abo -m1 '^age-encryption.org/v1$' %s | cut -d: -f1)\n"
        "#     tail -c +$((off + 1)) %s > payload.age\n"
        "#     age -d -i key.txt -o content payload.age\n"
        "#\n"
        "%s"
        "#\n"
        "# These notice lines are not authenticated (anyone can change them):\n"
        "# before spending the time, check the real parameters with\n"
        "#     rxlock inspect %s\n"
        "# (and rxlock verify %s --signer-pin KEY for a signed file).\n"
        "#\n",
        nm, promise, pz->groups, pz->steps, tl_work_name(pz->work) ? tl_work_name(pz->work) : "?",
        total, rate, made, pz->has_signature ? "; the puzzle is signed" : "", nm, nm, nm,
        pz->pq_epoch ? "# The identity is post-quantum (AGE-SECRET-KEY-PQ-1...): age >= 1.3,\n"
                       "# typage or `rxlock decrypt -i key.txt payload.age` read it; Debian's\n"
                       "# age 1.1 cannot.\n"
                     : "# The identity is classic X25519: any age, typage or\n"
                       "# `rxlock decrypt -i key.txt payload.age` reads it.\n",
        nm, nm);
    return (n < 0 || (size_t)n >= cap) ? TL_ETOOBIG : 0;
}

