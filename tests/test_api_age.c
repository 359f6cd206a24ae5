/* SPDX-License-Identifier: ISC */
/* tests/test_api_age.c — the library as a user links it: only the installed
 * headers (compiled with -Iinclude and nothing of src/), linked against
 * build/librxlock.so.  Make an epoch puzzle, encrypt a record to its age
 * recipient (the "age1..." string), solve the puzzle, decrypt the record
 * with the recovered identity; and the same through the .rxlock container.
 * The tiny harness tests/test.h is plain libc. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memfd_create */
#endif
#include "test.h"
#include <rxlock/age.h>
#include <rxlock/container.h>
#include <rxlock/error.h>
#include <rxlock/rxlock.h>
#include <rxlock/version.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char record[] = "meeting notes, to be read after the epoch\n";

static int memfd_with(const void *p, size_t n) {
    int fd = memfd_create("api", 0);
    if (fd < 0) return -1;
    if (n && write(fd, p, n) != (ssize_t)n) { close(fd); return -1; }
    lseek(fd, 0, SEEK_SET);
    return fd;
}

static size_t fd_size(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 ? (size_t)st.st_size : 0;
}

static char *json;
static size_t json_len;
static tl_puzzle *pz;
static char recipient[TL_AGE_RECIPIENT_MAX];

static void t_make_epoch(void) {
    tl_params p = { .work = TL_WORK_SHA3_256, .groups = 3, .steps = 5000 };
    strcpy(p.rate_source, "none");
    tl_gen_opts o = { .workers = 2 };
    uint8_t pk[32];
    int rc = tl_generate(&p, &o, &json, &json_len, NULL, pk, NULL);
    if (rc) fprintf(stderr, "  tl_generate: %s\n", rxlock_strerror(rc));
    CHECK(rc == TL_OK);
    if (rc) return;
    char err[128] = "";
    CHECK(tl_puzzle_parse(json, json_len, &pz, err, sizeof err) == TL_OK);
    CHECK(pz && memcmp(pz->epoch_pk, pk, 32) == 0);
    CHECK(age_recipient_encode(pk, recipient) == 0);
    CHECK(strncmp(recipient, "age1", 4) == 0);
}

static void t_encrypt_solve_decrypt(void) {
    if (!pz) { CHECK(0); return; }
    /* Anyone: the recipient string is all it takes to encrypt. */
    uint8_t rpk[32];
    CHECK(age_recipient_decode(recipient, rpk) == 0);
    CHECK(age_recipient_decode("age1notakey", rpk) == TL_AGE_EKEY);
    for (int armor = 0; armor <= 1; armor++) {
        int in = memfd_with(record, sizeof record - 1), enc = memfd_create("enc", 0);
        CHECK(age_encrypt_fd(in, enc, (const uint8_t (*)[32])rpk, 1, armor) == 0);
        close(in);
        /* After the work: solve, check the identity, decrypt. */
        uint8_t x[32], xpk[32];
        tl_solve_stats st;
        tl_solve_opts so = { .mode = TL_MODE_LIGHT };
        CHECK(tl_solve(pz, &so, x, &st) == TL_OK);
        CHECK(st.steps_computed == 3u * 5000u);
        CHECK(age_public_key(x, xpk) == 0 && memcmp(xpk, pz->epoch_pk, 32) == 0);
        char id[TL_AGE_IDENTITY_MAX];
        uint8_t x2[32];
        CHECK(age_identity_encode(x, id) == 0 && strncmp(id, "AGE-SECRET-KEY-1", 16) == 0);
        CHECK(age_identity_decode(id, x2) == 0 && memcmp(x, x2, 32) == 0);
        lseek(enc, 0, SEEK_SET);
        int out = memfd_create("out", 0);
        CHECK(age_decrypt_fd(enc, out, (const uint8_t (*)[32])x2, 1) == 0);
        char back[sizeof record] = {0};
        CHECK(fd_size(out) == sizeof record - 1);
        CHECK(pread(out, back, sizeof record - 1, 0) == (ssize_t)(sizeof record - 1));
        CHECK(memcmp(back, record, sizeof record - 1) == 0);
        /* A wrong identity opens nothing. */
        x2[5] ^= 1;   /* (the low 3 bits of byte 0 are clamped away) */
        lseek(enc, 0, SEEK_SET);
        int out2 = memfd_create("out2", 0);
        int rc = age_decrypt_fd(enc, out2, (const uint8_t (*)[32])x2, 1);
        CHECK(rc == TL_AGE_ENOMATCH && fd_size(out2) == 0);
        CHECK(strstr(rxlock_strerror(rc), "identity") != NULL);
        memset(x, 0, sizeof x); memset(x2, 0, sizeof x2); memset(id, 0, sizeof id);
        close(enc); close(out); close(out2);
    }
}

static void t_container(void) {
    if (!pz) { CHECK(0); return; }
    int in = memfd_with(record, sizeof record - 1), box = memfd_create("box", 0);
    char notice[TL_CONTAINER_NOTICE_MAX];
    CHECK(tl_container_notice(notice, sizeof notice, pz, "notes.txt.rxlock") == 0);
    CHECK(tl_container_write(box, in, pz, json, json_len, notice) == 0);
    CHECK(tl_container_write(box, in, pz, json, json_len, "no hash mark\n") == TL_AGE_EINVAL);
    close(in);
    lseek(box, 0, SEEK_SET);
    char *j2 = NULL, err[160] = "";
    size_t l2 = 0;
    off_t off = 0;
    CHECK(tl_container_parse(box, &j2, &l2, &off, err, sizeof err) == TL_OK);
    CHECK(j2 && l2 == json_len && memcmp(j2, json, l2) == 0);
    tl_puzzle *p2 = NULL;
    CHECK(j2 && tl_puzzle_parse(j2, l2, &p2, err, sizeof err) == TL_OK);
    uint8_t x[32];
    tl_solve_opts so = { .mode = TL_MODE_LIGHT };
    CHECK(p2 && tl_solve(p2, &so, x, NULL) == TL_OK);
    int out = memfd_create("out", 0);
    CHECK(tl_container_open_payload(box, off, x, out) == 0);
    char back[sizeof record] = {0};
    CHECK(pread(out, back, sizeof record - 1, 0) == (ssize_t)(sizeof record - 1));
    CHECK(memcmp(back, record, sizeof record - 1) == 0);
    memset(x, 0, sizeof x);
    /* Not a container: a format error with a reason, in the TL range. */
    int junk = memfd_with("hello\n", 6);
    char *j3 = NULL;
    int rc = tl_container_parse(junk, &j3, &l2, &off, err, sizeof err);
    CHECK(rc == TL_EFORMAT && j3 == NULL && err[0] != 0);
    close(junk); close(out); close(box);
    free(j2);
    tl_puzzle_free(p2);
}

int main(void) {
    CHECK(strcmp(rxlock_version(), RXLOCK_VERSION_STRING) == 0);
    CHECK(rxlock_version_number() == RXLOCK_VERSION_NUMBER && RXLOCK_VERSION_NUMBER >= 100);
    RUN(t_make_epoch);
    RUN(t_encrypt_solve_decrypt);
    RUN(t_container);
    tl_puzzle_free(pz);
    free(json);
    return test_summary();
}
