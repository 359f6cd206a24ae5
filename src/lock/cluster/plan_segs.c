/* SPDX-License-Identifier: ISC */
/* src/lock/cluster/plan_segs.c — a verified plan's per-group record files, read
 * the one way the group task, the verification task and assemble need
 * them (docs/FORMAT.md §Cluster plan, Verification): the chain values the
 * group task recorded (results/group-NNNN.segs) and the values the
 * verification task recomputed (results/group-NNNN.verify). */
#include "cluster_internal.h"
#include <fcntl.h>
#include <sodium.h>
#include <string.h>

uint64_t tl_plan_seg_end(const tl_plan_info *pi, uint32_t k) {
    return k >= pi->nseg ? pi->pub.steps : (uint64_t)k * pi->ckpt_steps;
}

typedef struct { const tl_plan_info *pi; tl_plan_chain *c; } chain_rd;

static int chain_fn(void *ctx, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                    const char host[TL_HOST_MAX]) {
    chain_rd *r = ctx;
    tl_plan_chain *c = r->c;
    (void)g;
    if (kind != TL_SEG_CHAIN || c->have >= r->pi->nseg || i != tl_plan_seg_end(r->pi, c->have + 1)) return -1;
    c->have++;
    memcpy(c->val + (size_t)c->have * 32, d, 32);
    if (c->pid) c->pid[c->have] = pid;
    if (c->host) memcpy(c->host[c->have], host, TL_HOST_MAX);
    return 0;
}

int tl_plan_chain_read(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t rkey[32], int cut,
                       tl_plan_chain *c) {
    char path[4096];
    chain_rd r = { .pi = pi, .c = c };
    c->have = 0;
    if (tl_plan_path(path, sizeof path, dir, "segs", g) != 0) return TL_EINVAL;
    return tl_seg_file_read(AT_FDCWD, path, pi->D, g, rkey, cut, chain_fn, &r);
}

typedef struct { const tl_plan_info *pi; const tl_plan_chain *c; tl_plan_checks *v; } ver_rd;

static int ver_fn(void *ctx, uint32_t g, int kind, uint64_t i, const uint8_t d[32], long pid,
                  const char host[TL_HOST_MAX]) {
    ver_rd *r = ctx;
    const tl_plan_info *pi = r->pi;
    tl_plan_checks *v = r->v;
    (void)g;
    uint32_t k = i == pi->pub.steps ? pi->nseg : (uint32_t)(i / pi->ckpt_steps);
    if (kind != TL_SEG_VERIFIED || i == 0 || k < 1 || k > pi->nseg || tl_plan_seg_end(pi, k) != i) return -1;
    int eq = k <= r->c->have && sodium_memcmp(d, r->c->val + (size_t)k * 32, 32) == 0;
    if (v->state[k] == TL_PLAN_DIFFERS) return 0;        /* a mismatch is never outvoted */
    v->state[k] = eq ? TL_PLAN_MATCHED : TL_PLAN_DIFFERS;
    if (!eq && v->bad++ == 0) v->first_bad = k;
    if (v->pid) v->pid[k] = pid;
    if (v->host) memcpy(v->host[k], host, TL_HOST_MAX);
    return 0;
}

int tl_plan_checks_read(const char *dir, const tl_plan_info *pi, uint32_t g, const uint8_t rkey[32], int cut,
                        const tl_plan_chain *c, tl_plan_checks *v) {
    char path[4096];
    ver_rd r = { .pi = pi, .c = c, .v = v };
    memset(v->state, 0, (size_t)pi->nseg + 1);
    v->bad = v->first_bad = 0;
    if (tl_plan_path(path, sizeof path, dir, "verify", g) != 0) return TL_EINVAL;
    return tl_seg_file_read(AT_FDCWD, path, pi->D, g, rkey, cut, ver_fn, &r);
}
