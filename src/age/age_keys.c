/* SPDX-License-Identifier: ISC */
/* src/age/age_keys.c — age X25519 recipients ("age1...") and identities
 * ("AGE-SECRET-KEY-1..."), and age identity files. */
#include "rxlock/age.h"
#include "age/age_internal.h"
#include "age/bech32.h"
#include "util/util.h"
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HRP_RECIPIENT "age"
#define HRP_IDENTITY  "age-secret-key-"
#define IDENTITY_FILE_MAX (64 * 1024)

int age_public_key(const uint8_t sk[32], uint8_t pk[32]) {
    if (!sk || !pk) return TL_AGE_EINVAL;
    if (sodium_init() < 0) return TL_AGE_ECRYPTO;
    return crypto_scalarmult_base(pk, sk) == 0 ? 0 : TL_AGE_ECRYPTO;
}

int age_recipient_encode(const uint8_t pk[32], char out[TL_AGE_RECIPIENT_MAX]) {
    if (!pk || !out) return TL_AGE_EINVAL;
    return tl_bech32_encode(out, TL_AGE_RECIPIENT_MAX, HRP_RECIPIENT, pk, 32) == 0 ? 0 : TL_AGE_EINVAL;
}

/* An identity string: 32 secret bytes in upper-case Bech32 under hrp (the
 * X25519 and the post-quantum identity alike). */
int age_secret32_encode(const char *hrp, const uint8_t key[32], char out[TL_AGE_IDENTITY_MAX]) {
    if (!key || !out) return TL_AGE_EINVAL;
    if (tl_bech32_encode(out, TL_AGE_IDENTITY_MAX, hrp, key, 32) != 0) return TL_AGE_EINVAL;
    for (char *p = out; *p; p++)
        if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 32);
    return 0;
}

/* Its inverse: exactly 32 bytes under HRP (upper case); TL_AGE_EKEY
 * otherwise.  The decoded buffer is wiped. */
int age_secret32_decode(const char *HRP, const char *s, uint8_t key[32]) {
    char hrp[TL_BECH32_MAX + 1];
    uint8_t buf[64];
    size_t n = 0;
    int rc = TL_AGE_EKEY;
    if (!key) return TL_AGE_EINVAL;
    if (!s || tl_bech32_decode(s, hrp, sizeof hrp, buf, sizeof buf, &n) != 0) goto out;
    if (strcmp(hrp, HRP) != 0 || n != 32) goto out;
    memcpy(key, buf, 32);
    rc = 0;
out:
    sodium_memzero(buf, sizeof buf);
    return rc;
}

int age_identity_encode(const uint8_t sk[32], char out[TL_AGE_IDENTITY_MAX]) {
    return age_secret32_encode(HRP_IDENTITY, sk, out);
}

int age_recipient_decode(const char *s, uint8_t pk[32]) {
    char hrp[TL_BECH32_MAX + 1];
    uint8_t buf[64];
    size_t n = 0;
    if (!pk) return TL_AGE_EINVAL;
    if (!s || tl_bech32_decode(s, hrp, sizeof hrp, buf, sizeof buf, &n) != 0) return TL_AGE_EKEY;
    if (strcmp(hrp, HRP_RECIPIENT) != 0 || n != 32) return TL_AGE_EKEY;
    memcpy(pk, buf, 32);
    return 0;
}

int age_identity_decode(const char *s, uint8_t sk[32]) {
    return age_secret32_decode("AGE-SECRET-KEY-", s, sk);
}

/* The identity file text for an encoded recipient rec and identity id. */
int age_identity_file_emit(const char *path, const char *rec, const char *id,
                              const char *comment, int force) {
    char when[32];
    time_t now = time(NULL);
    struct tm tmv;
    int rc = TL_AGE_EINVAL, n;
    if (comment && (strlen(comment) > 256 || strpbrk(comment, "\r\n"))) {
        errno = EINVAL;
        return TL_AGE_EINVAL;
    }
    if (now == (time_t)-1 || !gmtime_r(&now, &tmv) ||
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tmv) == 0) return TL_AGE_EIO;
    size_t cap = 64 + strlen(rec) + strlen(id) + (comment ? strlen(comment) : 0) + 8;
    char *text = sodium_malloc(cap);
    if (!text) return TL_AGE_ENOMEM;
    n = snprintf(text, cap, "# created: %s\n# public key: %s\n%s%s%s%s\n",
                 when, rec, comment ? "# " : "", comment ? comment : "", comment ? "\n" : "", id);
    if (n < 0 || (size_t)n >= cap) errno = EINVAL;
    else rc = util_write_file_atomic(path, text, (size_t)n, force, 0600) == 0 ? 0 : TL_AGE_EIO;
    int e = errno;
    sodium_free(text);          /* wipes */
    errno = e;
    return rc;
}

int age_identity_file_write(const char *path, const uint8_t sk[32], const char *comment, int force) {
    uint8_t pk[32];
    char rec[TL_AGE_RECIPIENT_MAX], id[TL_AGE_IDENTITY_MAX];
    int rc = TL_AGE_EINVAL;
    if (!path || !sk) {
        errno = EINVAL;
        return TL_AGE_EINVAL;
    }
    if (age_public_key(sk, pk) != 0 || age_recipient_encode(pk, rec) != 0 ||
        age_identity_encode(sk, id) != 0) goto out;
    rc = age_identity_file_emit(path, rec, id, comment, force);
out:;
    int e = errno;
    sodium_memzero(id, sizeof id);
    errno = e;
    return rc;
}

int age_identity_file_read_any(const char *path, uint8_t sk[32], int *pq) {
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = TL_AGE_EKEY;
    if (!path || !sk || !pq) { errno = EINVAL; return TL_AGE_EINVAL; }
    if (util_read_file(path, IDENTITY_FILE_MAX, &data, &len) != 0) return TL_AGE_EIO;
    char *p = (char *)data, *end = (char *)data + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        size_t ll = (size_t)(le - p);
        if (ll && p[ll - 1] == '\r') ll--;
        if (ll == 0 || p[0] == '#') { p = nl ? nl + 1 : end; continue; }
        if (ll >= TL_AGE_IDENTITY_MAX) { errno = EINVAL; break; }
        if (memchr(p, 0, ll)) { errno = EINVAL; break; }   /* "KEY\0...": refused, as age does */
        char line[TL_AGE_IDENTITY_MAX];
        memcpy(line, p, ll);
        line[ll] = 0;
        *pq = strncmp(line, "AGE-SECRET-KEY-PQ-1", 19) == 0;
        rc = *pq ? age_pq_identity_decode(line, sk) : age_identity_decode(line, sk);
        sodium_memzero(line, sizeof line);
        if (rc != 0) errno = EINVAL;
        break;
    }
    if (rc != 0 && errno == 0) errno = EINVAL;
    sodium_memzero(data, len);
    free(data);
    return rc;
}

int age_identity_file_read(const char *path, uint8_t sk[32]) {
    int pq = 0;
    int rc = age_identity_file_read_any(path, sk, &pq);
    if (rc == 0 && pq) {
        sodium_memzero(sk, 32);
        errno = EINVAL;
        rc = TL_AGE_EKEY;
    }
    return rc;
}
extern __typeof__(age_identity_decode) tl_age_identity_decode __attribute__((alias("age_identity_decode")));   /* old name, one release */
extern __typeof__(age_identity_encode) tl_age_identity_encode __attribute__((alias("age_identity_encode")));   /* old name, one release */
extern __typeof__(age_identity_file_read) tl_age_identity_file_read __attribute__((alias("age_identity_file_read")));   /* old name, one release */
extern __typeof__(age_identity_file_read_any) tl_age_identity_file_read_any __attribute__((alias("age_identity_file_read_any")));   /* old name, one release */
extern __typeof__(age_identity_file_write) tl_age_identity_file_write __attribute__((alias("age_identity_file_write")));   /* old name, one release */
extern __typeof__(age_public_key) tl_age_public_key __attribute__((alias("age_public_key")));   /* old name, one release */
extern __typeof__(age_recipient_decode) tl_age_recipient_decode __attribute__((alias("age_recipient_decode")));   /* old name, one release */
extern __typeof__(age_recipient_encode) tl_age_recipient_encode __attribute__((alias("age_recipient_encode")));   /* old name, one release */
