/* SPDX-License-Identifier: ISC */
/* src/lock/gen/plan_info.c — plan.json, the public record of a generation
 * (docs/FORMAT.md §Cluster plan, §Generation state): written by a plan and
 * by a resumable lock's state directory, strictly parsed (everything
 * bounded, the plan digest D recomputed and checked). */
#include "gen_internal.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- plan.json ---------------------------------------------------------- */
static json_t *hexval(const uint8_t *p, size_t n) {
    char buf[65];
    util_hex_encode(buf, p, n);
    return json_string(buf);
}

int tl_plan_info_json(const tl_plan_info *pi, char **out, size_t *len) {
    tl_puzzle pz = pi->pub;
    tl_wrap *dummy = calloc(pz.groups, sizeof *dummy);
    char *ptxt = NULL;
    size_t plen = 0;
    if (!dummy) return TL_ENOMEM;
    pz.wraps = dummy;
    pz.has_signer = pz.has_signature = 0;
    int rc = tl_puzzle_to_json(&pz, &ptxt, &plen);
    free(dummy);
    if (rc) return rc;
    json_t *p = json_loadb(ptxt, plen, 0, NULL), *o = json_object();
    free(ptxt);
    int bad = !p || !o;
    if (!bad) bad |= json_object_del(p, "wraps") != 0;
    int v2 = TL_PLAN_VERIFIES(pi);   /* version 2 = a plan with verification tasks */
    bad |= !o || json_object_set_new(o, "rxlock_plan", json_integer(v2 ? 2 : 1)) != 0;
    bad |= !o || !p || json_object_set(o, "puzzle", p) != 0;
    bad |= !o || json_object_set_new(o, "mode", json_string(pi->mode == TL_MODE_FULL ? "full" : "light")) != 0;
    bad |= !o || json_object_set_new(o, "batch", json_integer(pi->batch)) != 0;
    bad |= !o || json_object_set_new(o, "tasks", json_integer(pi->tasks)) != 0;
    bad |= !o || json_object_set_new(o, "worker_public_key", hexval(pi->worker_pk, 32)) != 0;
    bad |= !o || json_object_set_new(o, "planner_public_key", hexval(pi->planner_pk, 32)) != 0;
    if (v2)
        bad |= !o || json_object_set_new(o, "verify", json_pack("{s:s, s:I, s:I}", "method",
                                         pi->verify == TL_VERIFY_FULL ? "full" : "sample",
                                         "sample_ppm", (json_int_t)pi->verify_ppm,
                                         "checkpoint_steps", (json_int_t)pi->ckpt_steps)) != 0;
    char *s = bad ? NULL : json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    if (p) json_decref(p);
    if (o) json_decref(o);
    if (!s) return TL_ENOMEM;
    size_t n = strlen(s);
    char *r = malloc(n + 2);
    if (!r) { free(s); return TL_ENOMEM; }
    memcpy(r, s, n);
    r[n] = '\n';
    r[n + 1] = 0;
    free(s);
    *out = r;
    *len = n + 1;
    return TL_OK;
}

static int get_key(json_t *o, const char *k, uint8_t out[32]) {
    json_t *v = json_object_get(o, k);
    size_t got = 0;
    const char *s = json_is_string(v) ? json_string_value(v) : NULL;
    return s && strlen(s) == 64 && util_hex_decode(s, out, 32, &got) == 0 && got == 32 ? 0 : -1;
}

static int parse_plan(json_t *o, tl_plan_info *pi, char *err, size_t errlen) {
    static const char *const keys[] = { "rxlock_plan", "puzzle", "mode", "batch", "tasks",
                                        "worker_public_key", "planner_public_key", "verify" };
    const char *key;
    json_t *val;
    if (!json_is_object(o)) { tl_set_err(err, errlen, "not a JSON object"); return TL_EFORMAT; }
    json_t *ver = json_object_get(o, "rxlock_plan");
    if (!json_is_integer(ver)) { tl_set_err(err, errlen, "not an rxlock plan (no \"rxlock_plan\" version)"); return TL_EFORMAT; }
    if (json_integer_value(ver) != 1 && json_integer_value(ver) != 2) {
        tl_set_err(err, errlen, "unsupported plan version %lld", (long long)json_integer_value(ver));
        return TL_EVERSION;
    }
    /* version 2 adds "verify" */
    size_t nkeys = json_integer_value(ver) == 2 ? 8 : 7;
    json_object_foreach(o, key, val) {
        size_t k = 0;
        while (k < nkeys && strcmp(key, keys[k])) k++;
        if (k == nkeys) { tl_set_err(err, errlen, "unknown field \"%.40s\"", key); return TL_EFORMAT; }
    }
    if (json_object_size(o) != nkeys) { tl_set_err(err, errlen, "missing fields"); return TL_EFORMAT; }
    json_t *p = json_object_get(o, "puzzle");
    if (!json_is_object(p) || json_object_get(p, "wraps") || json_object_get(p, "signer") ||
        json_object_get(p, "signature")) {
        tl_set_err(err, errlen, "field \"puzzle\": want the unsigned puzzle header fields, no wraps");
        return TL_EFORMAT;
    }
    json_t *g = json_object_get(p, "groups");
    if (!json_is_integer(g) || json_integer_value(g) < 1 || json_integer_value(g) > TL_MAX_GROUPS) {
        tl_set_err(err, errlen, "field \"puzzle\".\"groups\": want 1..%u", TL_MAX_GROUPS);
        return TL_EFORMAT;
    }
    uint32_t G = (uint32_t)json_integer_value(g);
    /* Validate the header fields with the puzzle parser: add G zero wraps. */
    json_t *cp = json_deep_copy(p), *w = json_array();
    int bad = !cp || !w;
    char zn[49], zc[97];
    memset(zn, '0', 48); zn[48] = 0;
    memset(zc, '0', 96); zc[96] = 0;
    for (uint32_t k = 0; !bad && k < G; k++)
        bad |= json_array_append_new(w, json_pack("{s:s,s:s}", "nonce", zn, "ct", zc)) != 0;
    if (!bad) { bad |= json_object_set_new(cp, "wraps", w) != 0; w = NULL; }
    char *txt = bad ? NULL : json_dumps(cp, JSON_COMPACT);
    if (cp) json_decref(cp);
    if (w) json_decref(w);
    if (!txt) return TL_ENOMEM;
    tl_puzzle *pz = NULL;
    char e2[200];
    int rc = tl_puzzle_parse(txt, strlen(txt), &pz, e2, sizeof e2);
    free(txt);
    if (rc) { tl_set_err(err, errlen, "field \"puzzle\": %s", e2); return rc == TL_ETOOBIG ? TL_EFORMAT : rc; }
    pi->pub = *pz;
    pi->pub.wraps = NULL;
    memcpy(pi->D, pz->header_digest, 32);
    tl_puzzle_free(pz);
    json_t *m = json_object_get(o, "mode");
    const char *ms = json_is_string(m) ? json_string_value(m) : "";
    if (!strcmp(ms, "light")) pi->mode = TL_MODE_LIGHT;
    else if (!strcmp(ms, "full")) pi->mode = TL_MODE_FULL;
    else { tl_set_err(err, errlen, "field \"mode\": want light or full"); return TL_EFORMAT; }
    json_t *b = json_object_get(o, "batch"), *t = json_object_get(o, "tasks");
    if (!json_is_integer(b) || json_integer_value(b) < 1 || json_integer_value(b) > G) {
        tl_set_err(err, errlen, "field \"batch\": want 1..%u", G);
        return TL_EFORMAT;
    }
    pi->batch = (uint32_t)json_integer_value(b);
    pi->tasks = (G + pi->batch - 1) / pi->batch;
    if (!json_is_integer(t) || json_integer_value(t) != pi->tasks) {
        tl_set_err(err, errlen, "field \"tasks\": want %u (groups / batch, rounded up)", pi->tasks);
        return TL_EFORMAT;
    }
    if (get_key(o, "worker_public_key", pi->worker_pk) || get_key(o, "planner_public_key", pi->planner_pk)) {
        tl_set_err(err, errlen, "public keys: want 64 hex digits");
        return TL_EFORMAT;
    }
    pi->verify = TL_VERIFY_NONE;
    json_t *v = json_object_get(o, "verify");
    if (v) {
        json_t *vm = json_object_get(v, "method"), *vp = json_object_get(v, "sample_ppm"),
               *vc = json_object_get(v, "checkpoint_steps");
        const char *vms = json_is_string(vm) ? json_string_value(vm) : "";
        const uint64_t S = pi->pub.steps;
        int full = !strcmp(vms, "full");
        if (!json_is_object(v) || json_object_size(v) != 3 || (!full && strcmp(vms, "sample")) ||
            !json_is_integer(vp) || json_integer_value(vp) < 1 || json_integer_value(vp) > 1000000 ||
            (full && json_integer_value(vp) != 1000000) || !json_is_integer(vc) || json_integer_value(vc) < 1 ||
            (uint64_t)json_integer_value(vc) > S ||
            (S + (uint64_t)json_integer_value(vc) - 1) / (uint64_t)json_integer_value(vc) * G > TL_MAX_SEGMENTS) {
            tl_set_err(err, errlen, "field \"verify\": want {\"method\": \"full\" | \"sample\", \"sample_ppm\": "
                       "1..1000000 (full: 1000000), \"checkpoint_steps\": 1..steps, at most %u segments in all}",
                       TL_MAX_SEGMENTS);
            return TL_EFORMAT;
        }
        pi->verify = full ? TL_VERIFY_FULL : TL_VERIFY_SAMPLE;
        pi->verify_ppm = (uint32_t)json_integer_value(vp);
        pi->ckpt_steps = (uint64_t)json_integer_value(vc);
        pi->nseg = (uint32_t)((S + pi->ckpt_steps - 1) / pi->ckpt_steps);
    }
    return TL_OK;
}

int tl_plan_info_load_at(int dfd, const char *name, const char *shown, tl_plan_info *pi, char *err, size_t errlen) {
    uint8_t *data = NULL;
    size_t len = 0;
    if (err && errlen) err[0] = 0;
    memset(pi, 0, sizeof *pi);
    if (util_read_at(dfd, name, TL_PLAN_JSON_MAX, &data, &len) != 0) {
        tl_set_err(err, errlen, "%s: %s", shown, errno == EFBIG ? "larger than 1 MiB" :
                   errno == ELOOP ? "a symbolic link (refused)" : errno == EINVAL ? "not a regular file" : strerror(errno));
        return errno == EFBIG ? TL_ETOOBIG : TL_EIO;
    }
    json_error_t je;
    json_t *o = json_loadb((const char *)data, len, JSON_REJECT_DUPLICATES, &je);
    free(data);
    if (!o) { tl_set_err(err, errlen, "%s: not valid JSON (line %d: %.80s)", shown, je.line, je.text); return TL_EFORMAT; }
    char e2[256];
    int rc = parse_plan(o, pi, e2, sizeof e2);
    json_decref(o);
    if (rc) tl_set_err(err, errlen, "%s: %s", shown, e2);
    return rc;
}

int tl_plan_info_load(const char *dir, tl_plan_info *pi, char *err, size_t errlen) {
    char path[4096];
    if (tl_plan_path(path, sizeof path, dir, "plan.json", 0) != 0) {
        memset(pi, 0, sizeof *pi);
        tl_set_err(err, errlen, "%s: path too long", dir);
        return TL_EINVAL;
    }
    return tl_plan_info_load_at(AT_FDCWD, path, path, pi, err, errlen);
}
