/* SPDX-License-Identifier: ISC */
/* src/lock/measure/floor.c — the floor: the fastest known rates of one
 * dependent chain per work function, each row with its kind (measured
 * single chain, bound from published per-core throughput, demonstrated
 * hardware), built in (docs/SECURITY.md §The floor: sources and
 * arithmetic) or read from a user's table file (bounded, strict parser);
 * and the arithmetic: how long the fastest row needs for N hashes, and how
 * many hashes make it need T seconds.  Format of a table file
 * (docs/FORMAT.md §Floor table):
 *   # comment lines and blank lines are ignored
 *   WORK RATE [KIND] MACHINE [; CONDITIONS]
 * WORK randomx-v2 | randomx-v1 | sha3-256, RATE hashes/s (decimal, > 0,
 * <= 1e15), KIND measured | bound | hardware (default measured), MACHINE
 * and CONDITIONS printable ASCII.  At most TL_FLOOR_MAX_ROWS rows, lines
 * of at most 255 bytes, TL_FLOOR_MAX_BYTES. */
#include "rxlock/calibrate.h"
#include "measure_internal.h"
#include "util/util.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* docs/SECURITY.md §The floor lists these with their sources and the
 * arithmetic of the derived ones. */
static const tl_floor_row builtin[] = {
    { TL_WORK_RANDOMX_V2, 770.0,   "Apple M4 (P-core)", "~770 H/s short runs, 741.8 H/s over 2x12,000; secure JIT, full", TL_FLOOR_MEASURED },
    { TL_WORK_RANDOMX_V2, 676.95,  "AWS Graviton5 (Neoverse V3)", "30,000 hashes x2, pinned, secure JIT, full", TL_FLOOR_MEASURED },
    { TL_WORK_RANDOMX_V2, 617.3,   "x86 Genoa-class VM (Hetzner)", "12,000 hashes x2, full", TL_FLOOR_MEASURED },
    /* RandomX design_v2.md: 26,791.7 H/s v2, 27,186.1 H/s v1 at 285 W (PBO
     * max) over the 9950X's 16 cores (32 threads): per core, both threads */
    { TL_WORK_RANDOMX_V2, 26791.7 / 16, "AMD Ryzen 9 9950X (per core)", "26,791.7 H/s over 16 cores, 285 W; RandomX design_v2.md", TL_FLOOR_BOUND },
    { TL_WORK_RANDOMX_V1, 27186.1 / 16, "AMD Ryzen 9 9950X (per core)", "27,186.1 H/s over 16 cores, 285 W; RandomX design_v2.md", TL_FLOOR_BOUND },
    { TL_WORK_SHA3_256,   8.07e6,  "Apple M4", "ARMv8 SHA3 instructions, fused, 10 M steps x3", TL_FLOOR_MEASURED },
    { TL_WORK_SHA3_256,   6.81e6,  "AWS Graviton5", "ARMv8 SHA3 instructions, fused, 10 M steps x3", TL_FLOOR_MEASURED },
    { TL_WORK_SHA3_256,   4.06e6,  "x86 Genoa VM", "AVX-512VL fused wrapper", TL_FLOOR_MEASURED },
    /* Keccak team, 2012: the fast core, 21.3 Gbit/s at rate 1024 bits and
     * 500 MHz in 130 nm = 20.8 M permutations/s (24 cycles each) */
    { TL_WORK_SHA3_256,   21.3e9 / 1024, "Keccak fast core (130 nm ASIC, 500 MHz)", "24 cycles per permutation; keccak.team 2012", TL_FLOOR_HARDWARE },
};

static const char *const kind_names[] = { "measured single chain", "bound from per-core throughput",
                                          "demonstrated hardware" };
static const char *const kind_tokens[] = { "measured", "bound", "hardware" };

const char *tl_floor_kind_name(tl_floor_kind k) {
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

void tl_floor_builtin(tl_floor_table *t) {
    if (!t) return;
    memset(t, 0, sizeof *t);
    for (size_t k = 0; k < sizeof builtin / sizeof builtin[0]; k++) t->rows[t->n++] = builtin[k];
    snprintf(t->origin, sizeof t->origin, "built-in table");
}

static int printable_copy(char *dst, size_t cap, const char *s, size_t n) {
    while (n && (*s == ' ' || *s == '\t')) { s++; n--; }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t')) n--;
    if (n >= cap) return -1;
    for (size_t k = 0; k < n; k++) {
        if (s[k] < 0x20 || s[k] > 0x7e) return -1;
        dst[k] = s[k];
    }
    dst[n] = 0;
    return 0;
}

/* One data line (NUL-terminated, no LF): 0, or -1 with err set. */
static int parse_row(const char *line, tl_floor_row *r, char *err, size_t errlen, unsigned lineno) {
    char work[16];
    size_t k = strcspn(line, " \t");
    if (k == 0 || k >= sizeof work) { tl_set_err(err, errlen, "line %u: want WORK RATE MACHINE", lineno); return -1; }
    memcpy(work, line, k);
    work[k] = 0;
    if (tl_work_parse(work, &r->work) != 0) { tl_set_err(err, errlen, "line %u: unknown work '%s'", lineno, work); return -1; }
    const char *p = line + k;
    while (*p == ' ' || *p == '\t') p++;
    size_t rl = strcspn(p, " \t");
    char num[32];
    if (rl == 0 || rl >= sizeof num) { tl_set_err(err, errlen, "line %u: want a rate after the work", lineno); return -1; }
    memcpy(num, p, rl);
    num[rl] = 0;
    for (size_t i = 0; i < rl; i++)
        if (!((num[i] >= '0' && num[i] <= '9') || num[i] == '.' || num[i] == 'e' || num[i] == 'E' || num[i] == '+')) {
            tl_set_err(err, errlen, "line %u: bad rate '%s'", lineno, num);
            return -1;
        }
    char *end;
    errno = 0;
    r->rate = strtod(num, &end);
    if (errno || *end || !isfinite(r->rate) || !(r->rate > 0) || r->rate > 1e15) {
        tl_set_err(err, errlen, "line %u: bad rate '%s' (want 0 < rate <= 1e15 hashes/s)", lineno, num);
        return -1;
    }
    p += rl;
    while (*p == ' ' || *p == '\t') p++;
    r->kind = TL_FLOOR_MEASURED;   /* the optional KIND word */
    for (unsigned ki = 0; ki < sizeof kind_tokens / sizeof kind_tokens[0]; ki++) {
        size_t kl = strlen(kind_tokens[ki]);
        if (!strncmp(p, kind_tokens[ki], kl) && (p[kl] == ' ' || p[kl] == '\t')) {
            r->kind = (tl_floor_kind)ki;
            p += kl;
            break;
        }
    }
    const char *semi = strchr(p, ';');
    size_t ml = semi ? (size_t)(semi - p) : strlen(p);
    if (printable_copy(r->machine, sizeof r->machine, p, ml) != 0 || !r->machine[0]) {
        tl_set_err(err, errlen, "line %u: want a machine name (printable, < %zu chars)", lineno, sizeof r->machine);
        return -1;
    }
    r->conditions[0] = 0;
    if (semi && printable_copy(r->conditions, sizeof r->conditions, semi + 1, strlen(semi + 1)) != 0) {
        tl_set_err(err, errlen, "line %u: conditions not printable or longer than %zu chars", lineno, sizeof r->conditions - 1);
        return -1;
    }
    return 0;
}

int tl_floor_parse(const char *text, size_t len, tl_floor_table *t, char *err, size_t errlen) {
    if (!text || !t) return TL_EINVAL;
    memset(t, 0, sizeof *t);
    if (len > TL_FLOOR_MAX_BYTES) { tl_set_err(err, errlen, "floor table larger than %u bytes", TL_FLOOR_MAX_BYTES); return TL_ETOOBIG; }
    char line[256];
    unsigned lineno = 0;
    size_t pos = 0;
    while (pos < len) {
        size_t e = pos;
        while (e < len && text[e] != '\n') e++;
        lineno++;
        size_t n = e - pos;
        if (n && text[pos + n - 1] == '\r') n--;
        if (n >= sizeof line) { tl_set_err(err, errlen, "line %u: longer than %zu bytes", lineno, sizeof line - 1); goto bad; }
        memcpy(line, text + pos, n);
        line[n] = 0;
        pos = e + 1;
        if (memchr(line, 0, n)) { tl_set_err(err, errlen, "line %u: NUL byte", lineno); goto bad; }
        const char *s = line;
        while (*s == ' ' || *s == '\t') s++;
        if (!*s || *s == '#') continue;
        if (t->n >= TL_FLOOR_MAX_ROWS) { tl_set_err(err, errlen, "more than %u rows", TL_FLOOR_MAX_ROWS); goto bad; }
        if (parse_row(s, &t->rows[t->n], err, errlen, lineno) != 0) goto bad;
        t->n++;
    }
    if (!t->n) { tl_set_err(err, errlen, "no rows"); goto bad; }
    snprintf(t->origin, sizeof t->origin, "table file");
    return TL_OK;
bad:
    memset(t, 0, sizeof *t);
    return TL_EFORMAT;
}

int tl_floor_load(const char *path, tl_floor_table *t, char *err, size_t errlen) {
    uint8_t *data;
    size_t len;
    if (!path || !t) return TL_EINVAL;
    if (util_read_file(path, TL_FLOOR_MAX_BYTES, &data, &len) != 0) {
        if (errno == EFBIG) { tl_set_err(err, errlen, "%s: floor table larger than %u bytes", path, TL_FLOOR_MAX_BYTES); return TL_ETOOBIG; }
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return TL_EIO;
    }
    char e2[200] = "";
    int rc = tl_floor_parse((const char *)data, len, t, e2, sizeof e2);
    free(data);
    if (rc) { tl_set_err(err, errlen, "%s: %s", path, e2); return rc; }
    const char *b = strrchr(path, '/');
    char nm[48];
    const char *base = b ? b + 1 : path;
    if (printable_copy(nm, sizeof nm, base, strnlen(base, sizeof nm - 1)) != 0) snprintf(nm, sizeof nm, "?");
    snprintf(t->origin, sizeof t->origin, "table %s", nm);
    return TL_OK;
}

const tl_floor_row *tl_floor_fastest(const tl_floor_table *t, tl_work_type work) {
    const tl_floor_row *best = NULL;
    for (unsigned k = 0; t && k < t->n && k < TL_FLOOR_MAX_ROWS; k++)
        if (t->rows[k].work == work && (!best || t->rows[k].rate > best->rate)) best = &t->rows[k];
    return best;
}

double tl_floor_seconds(const tl_floor_row *r, uint64_t total) {
    return r && r->rate > 0 ? (double)total / r->rate : -1;
}

int tl_floor_hashes(const tl_floor_row *r, double seconds, uint64_t *total) {
    if (!r || !total || !(r->rate > 0) || !(seconds > 0)) return TL_EINVAL;
    double h = ceil(seconds * r->rate);
    if (!(h <= (double)TL_MAX_TOTAL)) return TL_ETOOBIG;
    *total = h < 1 ? 1 : (uint64_t)h;
    return TL_OK;
}
