/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/assemble.c — tl_plan_assemble: with the planner key, open
 * plan.secrets (bound to plan.json's digest), check every group's result
 * (present, authentic, right plan / group / steps, no stray files), then
 * finish the puzzle through tl_finish, the path tl_generate takes too.
 * Every secret is wiped. */
#include "cluster_internal.h"
#include "util/util.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void report(const tl_assemble_opts *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(const tl_assemble_opts *o, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->report) o->report(msg, o->report_ctx);
}

/* Files in results/ that are not this plan's: stray or duplicated results. */
static unsigned stray_results(const char *dir, uint32_t G, const tl_assemble_opts *o) {
    char path[PATH_MAX];
    unsigned bad = 0;
    if (snprintf(path, sizeof path, "%s/results", dir) >= (int)sizeof path) return 1;
    DIR *d = opendir(path);
    if (!d) return 0;            /* a missing directory shows up as missing groups */
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *nm = de->d_name;
        size_t l = strlen(nm);
        if (nm[0] == '.') continue;                         /* ".", ".." */
        if (l > 5 && !strcmp(nm + l - 5, ".ckpt")) continue;
        if (l > 5 && !strcmp(nm + l - 5, ".segs")) continue;       /* checked below */
        if (l > 7 && !strcmp(nm + l - 7, ".verify")) continue;
        if (strstr(nm, ".tmp-")) continue;                   /* a write cut short (kill -9) */
        unsigned g = 0;
        char want[32];
        int ok = sscanf(nm, "group-%u.result", &g) == 1 && g >= 1 && g <= G &&
                 snprintf(want, sizeof want, "group-%04u.result", g) > 0 && !strcmp(want, nm);
        if (!ok) {
            report(o, "results/%.200s: unexpected file (a result under another name, or another plan's group)", nm);
            bad++;
        }
    }
    closedir(d);
    return bad;
}

/* ---- the verification of a version-2 plan ---------------------- */
/* Every picked segment of every group: recorded by its group task, ending
 * in the group's result, recomputed by its verification task and equal.
 * Reports each problem; returns how many there were and counts the
 * matched segments in *checked. */
static unsigned check_verification(const char *dir, const tl_plan_info *pi, const uint8_t *sec, const uint8_t *e,
                                   const tl_assemble_opts *o, uint32_t *checked) {
    const uint32_t G = pi->pub.groups, ns = pi->nseg;
    unsigned bad = 0;
    *checked = 0;
    uint8_t *val = sodium_malloc(((size_t)ns + 1) * 32), *state = calloc((size_t)ns + 1, 1);
    long *pid = calloc((size_t)ns + 1, sizeof *pid), *vpid = calloc((size_t)ns + 1, sizeof *vpid);
    char (*host)[TL_HOST_MAX] = calloc((size_t)ns + 1, TL_HOST_MAX), (*vhost)[TL_HOST_MAX] = calloc((size_t)ns + 1, TL_HOST_MAX);
    if (!val || !state || !pid || !vpid || !host || !vhost) {
        report(o, "out of memory checking the verification");
        bad = 1;
        goto out;
    }
    for (uint32_t g = 1; g <= G; g++) {
        const uint8_t *rkey = sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY + 56;
        uint32_t t = TL_PLAN_TASK_OF(pi, g), v = TL_PLAN_VTASK_OF(pi, g);
        tl_plan_chain c = { .val = val, .pid = pid, .host = host };
        tl_plan_checks vr = { .state = state, .pid = vpid, .host = vhost };
        if (tl_plan_chain_read(dir, pi, g, rkey, 0, &c) != TL_OK) {
            report(o, "group %u: results/group-%04u.segs: %s", g, g, strerror(errno));
            bad++;
            continue;
        }
        if (c.have < ns) {
            report(o, "group %u: results/group-%04u.segs holds %u of its %u chain values: group task %u did not "
                   "record them (run it again: rxlock group DIR %u)", g, g, c.have, ns, t, t);
            bad++;
            continue;
        }
        if (sodium_memcmp(val + (size_t)ns * 32, e + (size_t)(g - 1) * 32, 32) != 0) {
            report(o, "group %u: its result differs from the last chain value group task %u recorded", g, t);
            bad++;
            continue;
        }
        if (tl_plan_checks_read(dir, pi, g, rkey, 0, &c, &vr) != TL_OK) {
            report(o, "group %u: results/group-%04u.verify: %s", g, g, strerror(errno));
            bad++;
            continue;
        }
        uint32_t missing = 0, picked = 0;
        for (uint32_t k = 1; k <= ns; k++) {
            if (!tl_plan_verify_pick(rkey, k, pi->verify_ppm)) continue;
            picked++;
            if (state[k] == TL_PLAN_MATCHED) { (*checked)++; continue; }
            if (state[k] == 0) { missing++; continue; }
            report(o, "group %u segment %u (steps %llu..%llu): MISMATCH: group task %u (host %s, pid %ld) recorded "
                   "one value, verification task %u (host %s, pid %ld) computed another.  One of those hosts "
                   "computed wrongly: remove results/group-%04u.*, run `rxlock group DIR %u` and `rxlock group "
                   "--verify DIR %u` (on other hosts), then assemble again", g, k,
                   (unsigned long long)tl_plan_seg_end(pi, k - 1), (unsigned long long)tl_plan_seg_end(pi, k), t, host[k], pid[k],
                   v, vhost[k], vpid[k], g, t, v);
            bad++;
        }
        if (missing) {
            report(o, "group %u: %u of its %u picked segments not verified yet: run verification task %u "
                   "(slurm-verify.sbatch, k8s-verify-job.yaml, or rxlock group --verify DIR %u)", g, missing, picked, v, v);
            bad++;
        }
    }
out:
    if (val) sodium_free(val);
    free(state); free(pid); free(vpid); free(host); free(vhost);
    return bad;
}

int tl_plan_assemble(const char *dir, const tl_assemble_opts *o, char **json, size_t *json_len,
                     tl_puzzle **puzzle, uint8_t pk[32], uint8_t *keep_sk, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (puzzle) *puzzle = NULL;
    if (!dir || !o || !o->planner_key || !json || !pk) return TL_EINVAL;
    *json = NULL;
    if (sodium_init() < 0) return TL_ERANDOM;
    tl_plan_info *pi = calloc(1, sizeof *pi);
    if (!pi) return TL_ENOMEM;
    uint8_t psk[32], ppk[32];
    uint8_t *blob = NULL, *sec = NULL, *e = NULL;
    size_t blen = 0;
    char path[PATH_MAX];
    int rc = tl_plan_info_load(dir, pi, err, errlen);
    if (rc) goto out;
    const uint32_t G = pi->pub.groups;
    const uint64_t S = pi->pub.steps;
    if ((rc = tl_plan_key_load_for(o->planner_key, "planner", pi->planner_pk, psk, ppk, err, errlen))) goto out;
    size_t ptlen = 32 + (size_t)G * TL_SECRETS_ENTRY;
    sec = sodium_malloc(ptlen);
    e = sodium_malloc((size_t)G * 32);
    if (!sec || !e) { rc = TL_ENOMEM; goto out; }
    if (tl_plan_path(path, sizeof path, dir, "plan.secrets", 0) != 0 ||
        util_read_at(AT_FDCWD, path, tl_secrets_size(TL_MAX_GROUPS), &blob, &blen) != 0) {
        tl_set_err(err, errlen, "%s: %s", path, strerror(errno));
        rc = TL_EIO;
        goto out;
    }
    if ((rc = tl_plan_secrets_open(sec, blob, blen, pi, psk))) {
        tl_set_err(err, errlen, "%s: does not open with this planner key for this plan.json "
                             "(plan.json, its verification included, or plan.secrets was modified)", path);
        goto out;
    }
    if (tl_epoch_check(&pi->pub, sec) != TL_OK ||
        sodium_memcmp(sec + 32 + 24, pi->pub.seed, 32) != 0) {
        tl_set_err(err, errlen, "%s: secrets do not match plan.json", path);
        rc = TL_EFORMAT;
        goto out;
    }

    /* Every group's result: present, authentic, this plan, this group. */
    unsigned bad = stray_results(dir, G, o);
    for (uint32_t g = 1; g <= G; g++) {
        const uint8_t *ent = sec + 32 + (size_t)(g - 1) * TL_SECRETS_ENTRY;
        uint8_t *rbuf = NULL;
        size_t rlen = 0;
        const char *why = NULL;
        if (tl_plan_path(path, sizeof path, dir, "result", g) != 0) { rc = TL_EINVAL; goto out; }
        if (util_read_at(AT_FDCWD, path, TL_RESULT_SIZE + 1, &rbuf, &rlen) != 0) {
            if (errno == ENOENT) report(o, "group %u: result missing (results/group-%04u.result)", g, g);
            else report(o, "group %u: results/group-%04u.result: %s", g, g,
                        errno == EFBIG ? "not a result file (too large)" : strerror(errno));
            bad++;
            continue;
        }
        if (rlen != TL_RESULT_SIZE) why = "not a result file (wrong size)";
        else if (tl_result_open(e + (size_t)(g - 1) * 32, rbuf, pi->D, g, S, ent + 56, psk, &why) == TL_OK) why = NULL;
        else if (!why) why = "does not open";
        sodium_memzero(rbuf, rlen);
        free(rbuf);
        if (why) {
            report(o, "group %u: results/group-%04u.result %s", g, g, why);
            bad++;
        }
    }
    if (bad) {
        tl_set_err(err, errlen, "%u problem%s with the group results; no puzzle written", bad, bad == 1 ? "" : "s");
        rc = TL_EAUTH;
        goto out;
    }
    /* a plan with verification tasks: every picked segment matched */
    pi->pub.verify_method = TL_VERIFY_NONE;
    pi->pub.verify_segments = pi->pub.verify_checked = 0;
    if (TL_PLAN_VERIFIES(pi)) {
        uint32_t checked = 0, segs = pi->nseg * G;
        if ((bad = check_verification(dir, pi, sec, e, o, &checked)) != 0) {
            tl_set_err(err, errlen, "%u problem%s with the chains' verification; no puzzle written", bad,
                       bad == 1 ? "" : "s");
            rc = TL_EAUTH;
            goto out;
        }
        pi->pub.verify_method = checked == 0 ? TL_VERIFY_NONE : checked == segs ? TL_VERIFY_FULL : TL_VERIFY_SAMPLE;
        pi->pub.verify_segments = checked ? segs : 0;
        pi->pub.verify_checked = checked;
        report(o, "verification: %u of %u chain segments recomputed by another task and matched (%s)", checked,
               segs, pi->verify == TL_VERIFY_FULL ? "every segment" : "a sample");
    }

    /* The puzzle, through the one finishing path tl_generate uses too. */
    rc = tl_finish(&pi->pub, sec, e, o->sign_sk, json, json_len, puzzle, pk, keep_sk);
out:
    sodium_memzero(psk, sizeof psk);
    if (sec) sodium_free(sec);
    if (e) sodium_free(e);
    if (blob) { sodium_memzero(blob, blen); free(blob); }
    if (pi) { sodium_memzero(pi, sizeof *pi); free(pi); }
    return rc;
}
