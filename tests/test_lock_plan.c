/* SPDX-License-Identifier: ISC */
/* tests/test_lock_plan.c — generation on a cluster (src/lock/plan*.c,
 * group.c, assemble.c): the sealed job / result / checkpoint / secrets
 * records open only with the right key, plan, group and bytes; a whole
 * plan -> tasks -> assemble run gives exactly tl_generate's puzzle for the
 * same (test-mode) secrets; no secret (s_2..s_G, x) appears in clear in
 * any file of the plan directory; a missing group is reported by number. */
#include "test.h"
#include "lock/cluster/cluster_internal.h"
#include "rxlock/rxlock.h"
#include <dirent.h>
#include <sodium.h>
#include <sys/stat.h>
#include <unistd.h>

static uint8_t D[32], D2[32], wsk[32], wpk[32], psk[32], ppk[32], rkey[32];

static void setup(void) {
    randombytes_buf(D, 32);
    randombytes_buf(D2, 32);
    randombytes_buf(wsk, 32);
    randombytes_buf(psk, 32);
    randombytes_buf(rkey, 32);
    crypto_scalarmult_base(wpk, wsk);
    crypto_scalarmult_base(ppk, psk);
}

static void t_job(void) {
    tl_job j = { .work = TL_WORK_SHA3_256, .mode = TL_MODE_FULL, .groups = 9, .steps = 12345 }, back;
    randombytes_buf(j.seed, 32);
    randombytes_buf(j.rkey, 32);
    randombytes_buf(j.key, 32);
    memcpy(j.planner_pk, ppk, 32);
    uint8_t f[TL_JOB_SIZE], bad[TL_JOB_SIZE], osk[32];
    CHECK(tl_job_seal(f, D, 4, &j, wpk) == TL_OK);
    CHECK(memmem(f, sizeof f, j.seed, 32) == NULL);
    CHECK(tl_job_open(&back, f, D, 4, wsk) == TL_OK);
    CHECK_MEM(back.seed, j.seed, 32);
    CHECK_MEM(back.rkey, j.rkey, 32);
    CHECK(back.groups == 9 && back.steps == 12345 && back.work == TL_WORK_SHA3_256 && back.mode == TL_MODE_FULL);
    CHECK(tl_job_open(&back, f, D, 5, wsk) == TL_EFORMAT);      /* another group */
    CHECK(tl_job_open(&back, f, D2, 4, wsk) == TL_EFORMAT);     /* another plan */
    randombytes_buf(osk, 32);
    CHECK(tl_job_open(&back, f, D, 4, osk) == TL_EAUTH);        /* another key */
    CHECK(tl_job_open(&back, f, D, 4, psk) == TL_EAUTH);        /* the planner key does not open jobs */
    for (size_t off = 56; off < TL_JOB_SIZE; off += 23) {       /* eph key, nonce, ciphertext, tag */
        memcpy(bad, f, sizeof bad);
        bad[off] ^= 1;
        CHECK(tl_job_open(&back, bad, D, 4, wsk) != TL_OK);
    }
}

static void t_result(void) {
    uint8_t e[32], got[32], f[TL_RESULT_SIZE], bad[TL_RESULT_SIZE], other[32];
    const char *why = NULL;
    randombytes_buf(e, 32);
    randombytes_buf(other, 32);
    CHECK(tl_result_seal(f, D, 3, 1000, e, ppk, rkey) == TL_OK);
    CHECK(memmem(f, sizeof f, e, 32) == NULL);
    CHECK(tl_result_check(f, D, 3, 1000, rkey, NULL) == TL_OK);
    CHECK(tl_result_open(got, f, D, 3, 1000, rkey, psk, NULL) == TL_OK);
    CHECK_MEM(got, e, 32);
    CHECK(tl_result_check(f, D, 3, 1000, other, &why) == TL_EAUTH);       /* forged without r_g */
    CHECK(why && strstr(why, "not authentic"));
    CHECK(tl_result_check(f, D, 2, 1000, rkey, &why) == TL_EFORMAT && strstr(why, "another group"));
    CHECK(tl_result_check(f, D2, 3, 1000, rkey, &why) == TL_EFORMAT && strstr(why, "another plan"));
    CHECK(tl_result_check(f, D, 3, 1001, rkey, &why) == TL_EFORMAT && strstr(why, "steps"));
    CHECK(tl_result_open(got, f, D, 3, 1000, rkey, wsk, NULL) == TL_EAUTH); /* only the planner reads it */
    for (size_t off = 0; off < TL_RESULT_SIZE; off += 7) {
        memcpy(bad, f, sizeof bad);
        bad[off] ^= 0x80;
        CHECK(tl_result_open(got, bad, D, 3, 1000, rkey, psk, NULL) != TL_OK);
    }
}

static void t_ckpt_secrets(void) {
    uint8_t d[32], got[32], f[TL_CKPT_SIZE];
    uint64_t i = 0;
    randombytes_buf(d, 32);
    tl_ckpt_seal(f, D, 7, 777, d, rkey);
    CHECK(memmem(f, sizeof f, d, 32) == NULL);
    CHECK(tl_ckpt_open(&i, got, f, D, 7, rkey) == TL_OK && i == 777);
    CHECK_MEM(got, d, 32);
    CHECK(tl_ckpt_open(&i, got, f, D, 8, rkey) != TL_OK);
    CHECK(tl_ckpt_open(&i, got, f, D2, 7, rkey) != TL_OK);
    f[60] ^= 1;                                   /* the step count is authenticated */
    CHECK(tl_ckpt_open(&i, got, f, D, 7, rkey) == TL_EAUTH);

    const uint32_t G = 3;
    size_t ptlen = 32 + G * TL_SECRETS_ENTRY, len = tl_secrets_size(G);
    uint8_t pt[32 + 3 * TL_SECRETS_ENTRY], back[sizeof pt], *blob = malloc(len);
    randombytes_buf(pt, sizeof pt);
    CHECK(blob && tl_secrets_seal(blob, D, G, pt, psk) == TL_OK);
    CHECK(memmem(blob, len, pt, 32) == NULL);
    CHECK(tl_secrets_open(back, blob, len, D, G, psk) == TL_OK);
    CHECK_MEM(back, pt, ptlen);
    CHECK(tl_secrets_open(back, blob, len, D2, G, psk) != TL_OK);   /* bound to plan.json's digest */
    CHECK(tl_secrets_open(back, blob, len, D, G, wsk) == TL_EAUTH);
    CHECK(tl_secrets_open(back, blob, len - 1, D, G, psk) == TL_EFORMAT);
    free(blob);
}

/* Does any file under dir contain the 32 bytes v? */
static int dir_holds(const char *dir, const uint8_t v[32]) {
    DIR *d = opendir(dir);
    struct dirent *de;
    int found = 0;
    while (d && !found && (de = readdir(d))) {
        char p[4096];
        struct stat st;
        if (de->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) { found = dir_holds(p, v); continue; }
        FILE *fp = fopen(p, "rb");
        uint8_t *buf = malloc((size_t)st.st_size + 1);
        size_t n = fp && buf ? fread(buf, 1, (size_t)st.st_size, fp) : 0;
        char hex[65];
        for (int k = 0; k < 32; k++) snprintf(hex + 2 * k, 3, "%02x", v[k]);
        found = memmem(buf, n, v, 32) != NULL || memmem(buf, n, hex, 64) != NULL;
        if (fp) fclose(fp);
        free(buf);
    }
    if (d) closedir(d);
    return found;
}

static void on_report(const char *msg, void *ctx) {
    char *last = ctx;
    snprintf(last, 256, "%s", msg);
}

/* chain verification: the sealed segment record of a generation state. */
static void t_seg(void) {
    uint8_t d[32], got[32], f[TL_SEG_SIZE];
    char host[TL_HOST_MAX] = "node-17", h2[TL_HOST_MAX];
    int kind = 0;
    uint64_t i = 0;
    long pid = 0;
    randombytes_buf(d, 32);
    tl_seg_seal(f, D, 3, TL_SEG_CORRECTED, 4096, d, 4242, host, rkey);
    CHECK(memmem(f, sizeof f, d, 32) == NULL);
    CHECK(tl_seg_open(&kind, &i, got, &pid, h2, f, D, 3, rkey) == TL_OK);
    CHECK(kind == TL_SEG_CORRECTED && i == 4096 && pid == 4242 && !strcmp(h2, "node-17"));
    CHECK_MEM(got, d, 32);
    CHECK(tl_seg_open(&kind, &i, got, &pid, h2, f, D, 4, rkey) == TL_EFORMAT);    /* another group */
    CHECK(tl_seg_open(&kind, &i, got, &pid, h2, f, D2, 3, rkey) == TL_EFORMAT);   /* another plan */
    CHECK(tl_seg_open(&kind, &i, got, &pid, h2, f, D, 3, psk) == TL_EAUTH);      /* another key */
    for (size_t off = 52; off < TL_SEG_SIZE; off += 13) {   /* kind, step, pid, host, nonce, ct */
        uint8_t b[TL_SEG_SIZE];
        memcpy(b, f, sizeof b);
        b[off] ^= 4;
        CHECK(tl_seg_open(&kind, &i, got, &pid, h2, b, D, 3, rkey) != TL_OK);
    }
}

static void t_plan_roundtrip(void) {
    if (getenv("RXLOCK_TEST_NO_WORKERS")) {   /* tools/test-aarch64-rx.sh: qemu-user */
        fprintf(stderr, "SKIP t_plan_roundtrip: RXLOCK_TEST_NO_WORKERS (worker processes too slow under emulation)\n");
        return;
    }
    char tmpl[] = "/tmp/rxlock-plan-XXXXXX";
    char *base = mkdtemp(tmpl);
    CHECK(base != NULL);
    if (!base) return;
    char dir[256], pkey[256], wkey[256], err[512], last[256] = "";
    snprintf(dir, sizeof dir, "%s/plan", base);
    snprintf(pkey, sizeof pkey, "%s/planner.key", base);
    snprintf(wkey, sizeof wkey, "%s/worker.key", base);
    setenv("RXLOCK_TEST_INSECURE", "1", 1);
    setenv("RXLOCK_TEST_SEED", "5566778899aabbccddeeff0011223344", 1);
    tl_params p = { .work = TL_WORK_SHA3_256, .groups = 5, .steps = 3000, .rate_source = "none" };
    tl_plan_opts po = { .planner_key = pkey, .worker_key = wkey, .batch = 2 };
    uint8_t pk[32], pk2[32], pk3[32], x[32];
    static tl_plan_summary sum;
    CHECK(tl_plan_create(&p, &po, dir, &sum, err, sizeof err) == TL_OK);
    memcpy(pk, sum.epoch_pk, 32);
    CHECK(sum.groups == p.groups && sum.tasks == (p.groups + sum.batch - 1) / sum.batch && strlen(sum.id) == 12);
    CHECK(strncmp(sum.recipient, "age1", 4) == 0 && sum.dir[0] == '/' && sum.worker_key[0] == '/');
    /* Assemble before any task ran: every group reported missing. */
    tl_assemble_opts ao = { .planner_key = pkey, .report = on_report, .report_ctx = last };
    char *json = NULL, *ref = NULL;
    size_t len = 0, rlen = 0;
    CHECK(tl_plan_assemble(dir, &ao, &json, &len, NULL, pk2, NULL, err, sizeof err) == TL_EAUTH && json == NULL);
    CHECK(strstr(last, "group 5: result missing") != NULL);
    tl_task_opts to = { .worker_key = wkey, .mode = TL_MODE_DEFAULT };
    tl_task_stats st;
    for (uint32_t t = 3; t-- > 0;) {
        CHECK(tl_plan_task(dir, t, &to, &st, err, sizeof err) == TL_OK);
        CHECK(st.first == 2 * t + 1 && st.last == (t == 2 ? 5 : 2 * t + 2) && st.computed == st.last - st.first + 1);
    }
    CHECK(tl_plan_task(dir, 1, &to, &st, err, sizeof err) == TL_OK && st.computed == 0 && st.present == 2);
    CHECK(tl_plan_task(dir, 3, &to, &st, err, sizeof err) == TL_EINVAL);
    /* chain verification: a plan verifies by default: assemble refuses until the
     * verification tasks ran; task v checks the groups of task v + 1. */
    CHECK(tl_plan_assemble(dir, &ao, &json, &len, NULL, pk2, NULL, err, sizeof err) == TL_EAUTH && json == NULL);
    CHECK(strstr(last, "not verified yet") != NULL);
    tl_task_opts vo = to;
    vo.verify = 1;
    for (uint32_t t = 0; t < 3; t++) {
        CHECK(tl_plan_task(dir, t, &vo, &st, err, sizeof err) == TL_OK);
        CHECK(st.first == 2 * ((t + 1) % 3) + 1 && st.computed == st.last - st.first + 1);
    }
    CHECK(tl_plan_assemble(dir, &ao, &json, &len, NULL, pk2, x, err, sizeof err) == TL_OK);
    CHECK_MEM(pk2, pk, 32);
    /* the same bytes as lock with full verification (the same C: auto) */
    tl_gen_opts go = { .workers = 1, .verify = TL_VERIFY_FULL };
    CHECK(tl_generate(&p, &go, &ref, &rlen, NULL, pk3, NULL) == TL_OK);
    CHECK(json && ref && len == rlen && memcmp(json, ref, len) == 0);
    /* No secret in clear anywhere in the plan directory. */
    uint8_t s[32];
    CHECK(dir_holds(dir, x) == 0);
    for (uint32_t g = 1; g <= 5; g++) {
        tl_random(s, 32, "seed", g);
        CHECK(dir_holds(dir, s) == (g == 1));     /* s_1 is public (plan.json) */
    }
    tl_puzzle *pz = NULL;
    uint8_t x2[32];
    CHECK(json && tl_puzzle_parse(json, len, &pz, NULL, 0) == TL_OK);
    tl_solve_opts so = {0};
    CHECK(pz && tl_solve(pz, &so, x2, NULL) == TL_OK);
    CHECK_MEM(x2, x, 32);
    tl_puzzle_free(pz);
    free(json);
    free(ref);
    unsetenv("RXLOCK_TEST_INSECURE");
    unsetenv("RXLOCK_TEST_SEED");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    CHECK(system(cmd) == 0);
}

/* A task's time limit: derived from a rate, none without one. */
static void t_time_limit(void) {
    tl_params p = { .work = TL_WORK_SHA3_256, .groups = 2, .steps = 30000, .rate_milli_hps = 1000000,
                    .rate_source = "flag" };
    CHECK(tl_plan_time_limit(&p, TL_MODE_LIGHT, 0) == 660);          /* 2 x 30 s + 600 s */
    CHECK(tl_plan_time_limit(&p, TL_MODE_LIGHT, 100000) == 1200);    /* 2 x 300 s + 600 s */
    p.rate_milli_hps = 0;
    CHECK(tl_plan_time_limit(&p, TL_MODE_LIGHT, 0) == 0);            /* no rate: none */
    /* RandomX: light tasks at a full-mode rate run 10x slower; setup 60 / 600 s */
    p.work = TL_WORK_RANDOMX_V2; p.steps = 4838400; p.rate_milli_hps = 768000;
    CHECK(tl_plan_time_limit(&p, TL_MODE_LIGHT, 0) == 126660);       /* 2 x 63000 + 60 + 600 */
    snprintf(p.rate_source, sizeof p.rate_source, "calibration (light)");
    CHECK(tl_plan_time_limit(&p, TL_MODE_LIGHT, 0) == (2 * 6300 + 60 + 600 + 59) / 60 * 60);
    snprintf(p.rate_source, sizeof p.rate_source, "flag");
    CHECK(tl_plan_time_limit(&p, TL_MODE_FULL, 0) == (2 * 6300 + 600 + 600 + 59) / 60 * 60);
}

/* The caller's job files: called once before plan.json; a failure there
 * fails the plan and leaves nothing (the job-file settings themselves are
 * the CLI's: tests/cli/test_cluster.sh). */
static int files_calls;
static int files_fail(const tl_plan_summary *s, void *ctx, char *err, size_t errlen) {
    (void)ctx;
    files_calls++;
    char path[TL_PLAN_PATH_MAX + 16];
    struct stat st;
    snprintf(path, sizeof path, "%s/plan.json", s->dir);
    CHECK(stat(path, &st) != 0);                               /* not yet */
    snprintf(path, sizeof path, "%s/plan.secrets", s->dir);
    CHECK(stat(path, &st) == 0);
    snprintf(err, errlen, "no room for the job files");
    return TL_EIO;
}
static void t_job_files_hook(void) {
    char tmpl[] = "/tmp/rxlock-plan-XXXXXX";
    char *base = mkdtemp(tmpl);
    CHECK(base != NULL);
    if (!base) return;
    char dir[256], pkey[256], wkey[256], err[512];
    snprintf(dir, sizeof dir, "%s/plan", base);
    snprintf(pkey, sizeof pkey, "%s/planner.key", base);
    snprintf(wkey, sizeof wkey, "%s/worker.key", base);
    tl_params p = { .work = TL_WORK_SHA3_256, .groups = 2, .steps = 10, .rate_source = "none" };
    tl_plan_opts o = { .planner_key = pkey, .worker_key = wkey, .job_files = files_fail };
    static tl_plan_summary sum;
    struct stat st;
    err[0] = 0;
    CHECK(tl_plan_create(&p, &o, dir, &sum, err, sizeof err) == TL_EIO);
    CHECK(files_calls == 1 && strstr(err, "no room") != NULL);
    CHECK(stat(pkey, &st) != 0 && stat(wkey, &st) != 0 && stat(dir, &st) != 0);
    rmdir(base);
}

int main(void) {
    if (sodium_init() < 0) return 1;
    setup();
    RUN(t_job);
    RUN(t_result);
    RUN(t_ckpt_secrets);
    RUN(t_seg);
    RUN(t_plan_roundtrip);
    RUN(t_time_limit);
    RUN(t_job_files_hook);
    return test_summary();
}
