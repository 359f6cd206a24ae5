/* SPDX-License-Identifier: ISC */
/* bench/bench_host.c — host facts recorded in every bench JSON line, the
 * load average and the median (see bench_host.h); the CPU model is the
 * library's tl_cpu_model, the one the calibration file records. */
#include "bench_host.h"
#include "rxlock/calibrate.h"
#include "util/util.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static void bench_trim(char *s) {
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
}

/* Space-separated subset of the CPU flags that matter here. */
static void bench_cpu_flags(char *out, size_t cap) {
    static const char *const want[] = {
        "aes", "avx", "avx2", "avx512f", "avx512vl", "bmi2", "sse4_1", "ssse3",
        "sha_ni", "vaes", "pclmulqdq",                       /* x86 */
        "asimd", "sha3", "sha512", "pmull", "sve", "sve2",   /* arm64 */
    };
    out[0] = 0;
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (!fp) return;
    static char line[1 << 14];
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, "flags", 5) && strncmp(line, "Features", 8)) continue;
        char *c = strchr(line, ':');
        if (!c) break;
        bench_trim(c);
        size_t used = 0;
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            size_t wl = strlen(want[w]);
            for (char *p = c + 1; (p = strstr(p, want[w])) != NULL; p += wl) {
                if (p[-1] == ' ' && (p[wl] == ' ' || p[wl] == 0)) {
                    int k = snprintf(out + used, cap - used, "%s%s", used ? " " : "", want[w]);
                    if (k > 0 && (size_t)k < cap - used) used += (size_t)k;
                    break;
                }
            }
        }
        break;
    }
    fclose(fp);
}

/* The bracketed choice in /sys/kernel/mm/transparent_hugepage/enabled. */
static void bench_thp(char *out, size_t cap) {
    snprintf(out, cap, "unknown");
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!fp) return;
    char line[256];
    if (fgets(line, sizeof line, fp)) {
        char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b) { *b = 0; snprintf(out, cap, "%s", a + 1); }
    }
    fclose(fp);
}

json_t *bench_host_json(void) {
    char model[256], flags[512], thp[64], kernel[512];
    struct utsname u;
    tl_cpu_model(model, sizeof model);
    bench_cpu_flags(flags, sizeof flags);
    bench_thp(thp, sizeof thp);
    if (uname(&u) == 0) snprintf(kernel, sizeof kernel, "%s %s %s", u.sysname, u.release, u.machine);
    else snprintf(kernel, sizeof kernel, "unknown");
    return json_pack("{s:s, s:s, s:s, s:s, s:I}", "cpu", model, "cpu_flags", flags,
                     "thp", thp, "kernel", kernel, "cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN));
}

double bench_loadavg(void) {
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) { if (fscanf(f, "%lf", &l) != 1) l = -1; fclose(f); }
    return l;
}

double bench_median(double *v, size_t n) { return util_median(v, n); }
