/* SPDX-License-Identifier: ISC */
/* tests/test_errors.c — the one error space (include/rxlock/error.h): every
 * code of every layer lies in its own range and has its own message; an
 * engine failure inside the time-lock layer keeps its RX_E* code; an I/O
 * error while reading an age file (armored or binary, in the header, the
 * payload, or after the END line) is reported as TL_AGE_EIO and nothing is
 * decrypted; worker trouble and the test mode arrive through the event
 * callback.  Test build only (uses the age read hook and the execmem fault
 * hook). */
#include "test.h"
#include "rxlock/age.h"
#include "rxlock/error.h"
#include "rxlock/rx.h"
#include "rxlock/rxlock.h"
#include "rxlock/sha3.h"
#include "age/age_internal.h"
#include "rx/execmem.h"
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the error space ------------------------------------------------------ */
#define C(x) { x, #x }
static const struct { int code; const char *name; } rx_codes[] = {
    C(RX_EINVAL), C(RX_ENOMEM), C(RX_EPROT), C(RX_ENOTSUP), C(RX_ESTATE), C(RX_EINTERNAL), C(RX_EJIT)
}, tl_codes[] = {
    C(TL_EINVAL), C(TL_ENOMEM), C(TL_EIO), C(TL_EFORMAT), C(TL_EVERSION), C(TL_ETOOBIG),
    C(TL_ESIG), C(TL_EPIN), C(TL_EAUTH), C(TL_ECOMMIT), C(TL_EJOURNAL), C(TL_EWORKER),
    C(TL_EINTR), C(TL_ERANDOM), C(TL_EWORK), C(TL_ENOTSUP)
}, age_codes[] = {
    C(TL_AGE_EIO), C(TL_AGE_EHEADER), C(TL_AGE_EVERSION), C(TL_AGE_ENOMATCH), C(TL_AGE_EMAC),
    C(TL_AGE_EPAYLOAD), C(TL_AGE_ETRUNC), C(TL_AGE_ETRAILING), C(TL_AGE_EARMOR),
    C(TL_AGE_EINVAL), C(TL_AGE_ESCRYPT), C(TL_AGE_ECRYPTO), C(TL_AGE_ENOMEM), C(TL_AGE_EKEY)
};
#undef C
#define N(a) (sizeof a / sizeof a[0])

static void t_ranges(void) {
    for (size_t i = 0; i < N(rx_codes); i++)
        CHECK(rx_codes[i].code <= RXLOCK_ERANGE_RX_FIRST && rx_codes[i].code >= RXLOCK_ERANGE_RX_LAST);
    for (size_t i = 0; i < N(tl_codes); i++)
        CHECK(tl_codes[i].code <= RXLOCK_ERANGE_TL_FIRST && tl_codes[i].code >= RXLOCK_ERANGE_TL_LAST);
    for (size_t i = 0; i < N(age_codes); i++)
        CHECK(age_codes[i].code <= RXLOCK_ERANGE_AGE_FIRST && age_codes[i].code >= RXLOCK_ERANGE_AGE_LAST);
    CHECK(RXLOCK_ERANGE_RX_LAST > RXLOCK_ERANGE_TL_FIRST);
    CHECK(RXLOCK_ERANGE_TL_LAST > RXLOCK_ERANGE_AGE_FIRST);
    CHECK(RX_OK == 0 && TL_OK == 0 && TL_AGE_OK == 0);
}

/* Every code: a message of its own, not the unknown-code text; the same
 * from rxlock_strerror, tl_strerror and the layer's own strerror. */
static void t_messages(void) {
    const char *msg[64];
    const char *name[64];
    size_t n = 0;
    for (size_t i = 0; i < N(rx_codes); i++) {
        name[n] = rx_codes[i].name; msg[n++] = rxlock_strerror(rx_codes[i].code);
        CHECK(strcmp(rxlock_strerror(rx_codes[i].code), rx_strerror(rx_codes[i].code)) == 0);
    }
    for (size_t i = 0; i < N(tl_codes); i++) {
        name[n] = tl_codes[i].name; msg[n++] = rxlock_strerror(tl_codes[i].code);
    }
    for (size_t i = 0; i < N(age_codes); i++) {
        name[n] = age_codes[i].name; msg[n++] = rxlock_strerror(age_codes[i].code);
        CHECK(strcmp(rxlock_strerror(age_codes[i].code), age_strerror(age_codes[i].code)) == 0);
    }
    for (size_t i = 0; i < n; i++) {
        if (!msg[i] || !*msg[i] || strstr(msg[i], "unknown")) {
            fprintf(stderr, "  %s: no message of its own (%s)\n", name[i], msg[i] ? msg[i] : "NULL");
            CHECK(0);
        }
        for (size_t j = i + 1; j < n; j++)
            if (msg[i] && msg[j] && strcmp(msg[i], msg[j]) == 0) {
                fprintf(stderr, "  %s and %s share the message \"%s\"\n", name[i], name[j], msg[i]);
                CHECK(0);
            }
    }
    /* Nothing else in the ranges has a name, and tl_strerror is the same. */
    size_t named = 0;
    for (int c = -1; c >= -300; c--) {
        if (!strstr(rxlock_strerror(c), "unknown")) named++;
        CHECK(tl_strerror(c) == rxlock_strerror(c));
    }
    CHECK(named == n);
    CHECK(strcmp(rxlock_strerror(0), "success") == 0);
    CHECK(strcmp(rxlock_strerror(-300), "unknown error") == 0);
    CHECK(strcmp(rxlock_strerror(-100), "unknown error") == 0);
    CHECK(strcmp(rxlock_strerror(7), "unknown error") == 0);
}

/* ---- RX codes pass through the time-lock layer ----------------------------- */
static int fail_all(int site) { (void)site; return 1; }

static void t_rx_code_propagates(void) {
    if (test_quick()) return;   /* a 256 MiB cache build: full runs only */
    if (!(rx_flags_default() & RX_FLAG_JIT) || !(rx_flags_default() & RX_FLAG_SECURE)) {
        fprintf(stderr, "  (no secure JIT here: propagation not exercised)\n");
        return;
    }
    uint8_t key[32] = {1}, d[32] = {2};
    tl_work *w = NULL;
    CHECK(tl_work_new(&w, TL_WORK_RANDOMX_V2, key, TL_MODE_LIGHT) == TL_OK);
    if (!w) return;
    rx_execmem_fault_hook = fail_all;   /* every page-permission change fails */
    int rc = tl_work_step(w, 1, 0, d, d);
    int rc2 = tl_work_steps(w, 1, 0, 3, d);
    rx_execmem_fault_hook = NULL;
    CHECK(rc == RX_EPROT);              /* not TL_EWORK */
    CHECK(rc2 == RX_EPROT);
    CHECK(strcmp(tl_strerror(rc), rx_strerror(RX_EPROT)) == 0);
    tl_work_free(w);
}

/* ---- read errors in age files ------------------------------------------------ */
static uint8_t *src_buf;
static size_t src_len, src_pos, fail_at;
static int fail_once;     /* 1: fail one read at fail_at, then go on serving */

static ssize_t hook_read(int fd, void *buf, size_t n) {
    (void)fd;
    if (src_pos >= fail_at && fail_at != (size_t)-1) {
        if (fail_once) fail_at = (size_t)-1;
        errno = EIO;
        return -1;
    }
    size_t lim = fail_at != (size_t)-1 && fail_at < src_len ? fail_at : src_len;
    size_t take = lim - src_pos;
    if (take > n) take = n;
    if (take > 7) take = 7;            /* short reads, to cross every boundary */
    memcpy(buf, src_buf + src_pos, take);
    src_pos += take;
    return (ssize_t)take;
}

static int memfd_with(const void *p, size_t n) {
    int fd = memfd_create("t", 0);
    if (fd < 0) return -1;
    if (n && write(fd, p, n) != (ssize_t)n) { close(fd); return -1; }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

/* Encrypt pt to pk (armored or not); the file's bytes in *out. */
static size_t make_file(const uint8_t *pt, size_t n, const uint8_t pk[32], int armor, uint8_t **out) {
    int in = memfd_with(pt, n), o = memfd_create("o", 0);
    size_t len = 0;
    *out = NULL;
    if (in >= 0 && o >= 0 && age_encrypt_fd(in, o, (const uint8_t (*)[32])pk, 1, armor) == 0) {
        struct stat st;
        fstat(o, &st);
        len = (size_t)st.st_size;
        *out = malloc(len);
        if (*out && pread(o, *out, len, 0) != (ssize_t)len) len = 0;
    }
    if (in >= 0) close(in);
    if (o >= 0) close(o);
    return len;
}

/* Decrypt the file through the hook, failing at byte `at`; the result code
 * and the number of plaintext bytes written. */
static int decrypt_failing(const uint8_t *file, size_t len, size_t at, int once,
                           const uint8_t sk[32], size_t *written) {
    int in = memfd_with(file, len), o = memfd_create("p", 0);
    src_buf = (uint8_t *)file; src_len = len; src_pos = 0; fail_at = at; fail_once = once;
    age_read_hook = hook_read;
    int rc = age_decrypt_fd(in, o, (const uint8_t (*)[32])sk, 1);
    age_read_hook = NULL;
    struct stat st;
    fstat(o, &st);
    *written = (size_t)st.st_size;
    close(in); close(o);
    return rc;
}

static void t_read_error(void) {
    uint8_t sk[32], pk[32], pt[1000];
    for (size_t i = 0; i < sizeof sk; i++) sk[i] = (uint8_t)(i * 7 + 1);
    for (size_t i = 0; i < sizeof pt; i++) pt[i] = (uint8_t)i;
    CHECK(age_public_key(sk, pk) == 0);
    for (int armor = 0; armor <= 1; armor++) {
        uint8_t *file = NULL;
        size_t len = make_file(pt, sizeof pt, pk, armor, &file), w = 0;
        CHECK(len > sizeof pt);
        if (!file) continue;
        /* Control: no error, the whole plaintext. */
        CHECK(decrypt_failing(file, len, (size_t)-1, 0, sk, &w) == 0 && w == sizeof pt);
        /* An error at every offset of the file, and right at its end (where
         * end of file was expected), is TL_AGE_EIO and decrypts nothing. */
        int bad = 0;
        for (size_t at = 0; at <= len; at++) {
            int rc = decrypt_failing(file, len, at, 0, sk, &w);
            if (rc != TL_AGE_EIO || w != 0) {
                if (bad++ < 5) fprintf(stderr, "  armor %d, error at %zu/%zu: %d (%s), %zu bytes out\n",
                                       armor, at, len, rc, rxlock_strerror(rc), w);
            }
        }
        CHECK(bad == 0);
        /* A single failed read, even one the source would recover from, is
         * never forgotten (it used to look like the end of the file). */
        bad = 0;
        for (size_t at = 0; at <= len; at += 13) {
            int rc = decrypt_failing(file, len, at, 1, sk, &w);
            if (rc != TL_AGE_EIO || w != 0) bad++;
        }
        CHECK(bad == 0);
        CHECK(strstr(rxlock_strerror(TL_AGE_EIO), "read") != NULL);
        free(file);
    }
}

/* ---- events instead of stderr ------------------------------------------------ */
static int ev_kinds[8];
static uint32_t ev_group;
static void on_event(const tl_event *ev, void *ctx) {
    (void)ctx;
    if (ev->kind >= 1 && ev->kind <= 4) ev_kinds[ev->kind]++;
    if (ev->kind == TL_EVENT_WORKER_RETRY && (ev_group == 0 || ev->group == 2)) ev_group = ev->group;
    CHECK(ev->message && strlen(ev->message) > 10 && !strchr(ev->message, '\n'));
}

static void t_events(void) {
    if (getenv("RXLOCK_TEST_NO_WORKERS")) {   /* tools/test-aarch64-rx.sh: qemu-user */
        fprintf(stderr, "SKIP t_events: RXLOCK_TEST_NO_WORKERS (worker processes too slow under emulation)\n");
        return;
    }
    setenv("RXLOCK_TEST_INSECURE", "1", 1);
    setenv("RXLOCK_TEST_SEED", "000102030405060708090a0b0c0d0e0f", 1);
    setenv("RXLOCK_TEST_WORKER_FAULT", "crash:2", 1);
    tl_params p = { .work = TL_WORK_SHA3_256, .groups = 3, .steps = 2000 };
    strcpy(p.rate_source, "none");
    tl_gen_opts o = { .workers = 2, .retries = 1, .event = on_event };
    char *json = NULL;
    size_t len = 0;
    uint8_t pk[32];
    /* The library prints nothing: catch stderr and look. */
    fflush(stderr);
    int saved = dup(2), cap = memfd_create("stderr", 0);
    if (cap >= 0) dup2(cap, 2);
    int rc = tl_generate(&p, &o, &json, &len, NULL, pk, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    struct stat st = {0};
    if (cap >= 0) { fstat(cap, &st); close(cap); }
    CHECK(cap >= 0 && st.st_size == 0);
    CHECK(rc == TL_OK);
    CHECK(ev_kinds[TL_EVENT_TEST_MODE] == 1);
    /* group 2 runs in a bundle with group 1 where SHA3 has SIMD lanes (3
     * groups on 2 workers: bundles of 2): the lost bundle re-runs both */
    int bundle = sha3_multi_lanes() >= 2 ? 2 : 1;
    CHECK(ev_kinds[TL_EVENT_WORKER_RETRY] == bundle && ev_group == 2);
    CHECK(ev_kinds[TL_EVENT_WORKER_FAILED] == 0);
    free(json);
    /* Without retries the failure is an event and TL_EWORKER. */
    memset(ev_kinds, 0, sizeof ev_kinds);
    setenv("RXLOCK_TEST_WORKER_FAULT", "crash:1:all", 1);
    o.retries = 0;
    CHECK(tl_generate(&p, &o, &json, &len, NULL, pk, NULL) == TL_EWORKER);
    CHECK(ev_kinds[TL_EVENT_WORKER_FAILED] == 1);
    unsetenv("RXLOCK_TEST_WORKER_FAULT");
    unsetenv("RXLOCK_TEST_INSECURE");
    unsetenv("RXLOCK_TEST_SEED");
}

int main(void) {
    RUN(t_ranges);
    RUN(t_messages);
    RUN(t_read_error);
    RUN(t_events);
    RUN(t_rx_code_propagates);
    return test_summary();
}
