/* SPDX-License-Identifier: ISC */
/* src/age/age_stream.c — age v1 payload: 16-byte nonce, HKDF payload key,
 * ChaCha20-Poly1305 STREAM in 64 KiB chunks (11-byte big-endian counter +
 * last-chunk flag).  Encrypt/decrypt file descriptors in constant memory. */
#include "age/age_internal.h"
#include <errno.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"

static void chunk_nonce(uint8_t n[12], uint64_t counter, int last) {
    memset(n, 0, 12);
    for (int i = 0; i < 8; i++) n[10 - i] = (uint8_t)(counter >> (8 * i));
    n[11] = last ? 1 : 0;
}

static int payload_key(uint8_t key[32], const uint8_t file_key[16], const uint8_t nonce[16]) {
    return tl_hkdf_sha256(key, 32, nonce, 16, file_key, 16, (const uint8_t *)"payload", 7);
}

/* Read until n bytes or EOF. */
static ssize_t read_full(int fd, uint8_t *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = age_sys_read(fd, p + got, n - got);
        if (k < 0) { if (errno == EINTR) continue; return -1; }
        if (k == 0) break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* Recipients of one kind only: classic X25519 (pks) or post-quantum (pqs). */
static int encrypt_fd(int in_fd, int out_fd, const uint8_t (*pks)[32], size_t npk,
                      const uint8_t (*pqs)[TL_AGE_PQ_RECIPIENT_BYTES], size_t npq, int armor) {
    uint8_t file_key[16], nonce[16], key[32], cn[12];
    uint8_t *pt = NULL, *ct = NULL;
    age_out o;
    int rc;
    if ((npk ? 1 : 0) + (npq ? 1 : 0) != 1 || npk > TL_AGE_MAX_RECIPIENTS || npq > TL_AGE_MAX_RECIPIENTS)
        return TL_AGE_EINVAL;
    if (sodium_init() < 0) return TL_AGE_ECRYPTO;
    pt = malloc(TL_AGE_CHUNK + 1);
    ct = malloc(TL_AGE_CHUNK + TL_AGE_TAG);
    if (!pt || !ct) { free(pt); free(ct); return TL_AGE_ENOMEM; }
    randombytes_buf(file_key, sizeof file_key);
    randombytes_buf(nonce, sizeof nonce);
    if ((rc = age_out_init(&o, out_fd, armor)) != 0) goto out;
    if ((rc = age_header_write(&o, file_key, pks, npk, pqs, npq)) != 0) goto out;
    if ((rc = age_out_write(&o, nonce, sizeof nonce)) != 0) goto out;
    if (payload_key(key, file_key, nonce) != 0) { rc = TL_AGE_ECRYPTO; goto out; }
    /* Read one byte past the chunk to know whether this chunk is the last. */
    size_t have = 0;
    for (uint64_t counter = 0;; counter++) {
        ssize_t k = read_full(in_fd, pt + have, TL_AGE_CHUNK + 1 - have);
        if (k < 0) { rc = TL_AGE_EIO; goto out; }
        size_t total = have + (size_t)k;
        int last = total <= TL_AGE_CHUNK;
        size_t n = last ? total : TL_AGE_CHUNK;
        chunk_nonce(cn, counter, last);
        crypto_aead_chacha20poly1305_ietf_encrypt(ct, NULL, pt, n, NULL, 0, NULL, cn, key);
        if ((rc = age_out_write(&o, ct, n + TL_AGE_TAG)) != 0) goto out;
        if (last) break;
        pt[0] = pt[TL_AGE_CHUNK];
        have = 1;
    }
    rc = age_out_finish(&o);
out:
    sodium_memzero(file_key, sizeof file_key);
    sodium_memzero(key, sizeof key);
    sodium_memzero(pt, TL_AGE_CHUNK + 1);
    sodium_memzero(ct, TL_AGE_CHUNK + TL_AGE_TAG);
    free(pt); free(ct);
    age_out_wipe(&o);
    return rc;
}

int age_encrypt_fd(int in_fd, int out_fd, const uint8_t (*pks)[32], size_t npk, int armor) {
    if (npk < 1) return TL_AGE_EINVAL;
    return encrypt_fd(in_fd, out_fd, pks, npk, NULL, 0, armor);
}

/* post-quantum (mlkem768x25519) recipients. */
int age_pq_encrypt_fd(int in_fd, int out_fd, const uint8_t (*rcps)[TL_AGE_PQ_RECIPIENT_BYTES],
                         size_t n, int armor) {
    if (n < 1) return TL_AGE_EINVAL;
    return encrypt_fd(in_fd, out_fd, NULL, 0, rcps, n, armor);
}

/* Read n bytes or to the end of the age stream. */
static ssize_t in_full(age_in *in, uint8_t *p, size_t n) {
    return age_in_read(in, p, n);
}

int age_decrypt_fd(int in_fd, int out_fd, const uint8_t (*sks)[32], size_t nsk) {
    if (nsk < 1) return TL_AGE_EINVAL;
    return age_decrypt_fd_any(in_fd, out_fd, sks, nsk, NULL, 0);
}

int age_decrypt_fd_any(int in_fd, int out_fd, const uint8_t (*sks)[32], size_t nsk,
                          const uint8_t (*seeds)[32], size_t nseed) {
    uint8_t file_key[16], nonce[16], key[32], cn[12];
    uint8_t *ct = NULL, *pt = NULL;
    age_in *in = NULL;
    int rc;
    if (nsk + nseed < 1 || nsk > TL_AGE_MAX_IDENTITIES || nseed > TL_AGE_MAX_IDENTITIES ||
        (nsk && !sks) || (nseed && !seeds)) return TL_AGE_EINVAL;
    if (sodium_init() < 0) return TL_AGE_ECRYPTO;
    in = malloc(sizeof *in);
    ct = malloc(TL_AGE_CHUNK + TL_AGE_TAG + 1);
    pt = malloc(TL_AGE_CHUNK);
    if (!in || !ct || !pt) { rc = TL_AGE_ENOMEM; goto out; }
    age_in_init(in, in_fd);
    if ((rc = age_header_read(in, sks, nsk, seeds, nseed, file_key)) != 0) goto out;
    ssize_t k = in_full(in, nonce, sizeof nonce);
    if (k < 0) { rc = (int)k; goto out; }
    if ((size_t)k != sizeof nonce) { rc = TL_AGE_ETRUNC; goto out; }
    if (payload_key(key, file_key, nonce) != 0) { rc = TL_AGE_ECRYPTO; goto out; }
    size_t have = 0;
    const size_t full = TL_AGE_CHUNK + TL_AGE_TAG;
    for (uint64_t counter = 0;; counter++) {
        k = in_full(in, ct + have, full + 1 - have);
        if (k < 0) { rc = (int)k; goto out; }
        size_t total = have + (size_t)k;
        int last = total <= full;
        size_t n = last ? total : full;
        if (n < TL_AGE_TAG) { rc = TL_AGE_ETRUNC; goto out; }
        if (last && n == TL_AGE_TAG && counter > 0) { rc = TL_AGE_EPAYLOAD; goto out; }
        chunk_nonce(cn, counter, last);
        if (crypto_aead_chacha20poly1305_ietf_decrypt(pt, NULL, NULL, ct, n, NULL, 0, cn, key) != 0) {
            rc = TL_AGE_EPAYLOAD;
            if (!last) {
                /* A full chunk that opens as the final one: the rest is junk. */
                chunk_nonce(cn, counter, 1);
                if (crypto_aead_chacha20poly1305_ietf_decrypt(pt, NULL, NULL, ct, n, NULL, 0, cn, key) == 0)
                    rc = TL_AGE_ETRAILING;
            } else if (n == full) {
                /* Could be a stream cut at a chunk boundary: a non-final chunk. */
                chunk_nonce(cn, counter, 0);
                if (crypto_aead_chacha20poly1305_ietf_decrypt(pt, NULL, NULL, ct, n, NULL, 0, cn, key) == 0)
                    rc = TL_AGE_ETRUNC;
            }
            goto out;
        }
        if (util_write_all(out_fd, pt, n - TL_AGE_TAG) != 0) { rc = TL_AGE_EIO; goto out; }
        if (last) break;
        ct[0] = ct[full];
        have = 1;
    }
    rc = 0;
out:
    /* A failed read explains whatever went wrong after it. */
    if (rc && in && in->raw.err) rc = in->raw.err;
    sodium_memzero(file_key, sizeof file_key);
    sodium_memzero(key, sizeof key);
    if (pt) sodium_memzero(pt, TL_AGE_CHUNK);
    if (in) sodium_memzero(in, sizeof *in);
    free(in); free(ct); free(pt);
    return rc;
}
extern __typeof__(age_decrypt_fd) tl_age_decrypt_fd __attribute__((alias("age_decrypt_fd")));   /* old name, one release */
extern __typeof__(age_decrypt_fd_any) tl_age_decrypt_fd_any __attribute__((alias("age_decrypt_fd_any")));   /* old name, one release */
extern __typeof__(age_encrypt_fd) tl_age_encrypt_fd __attribute__((alias("age_encrypt_fd")));   /* old name, one release */
extern __typeof__(age_pq_encrypt_fd) tl_age_pq_encrypt_fd __attribute__((alias("age_pq_encrypt_fd")));   /* old name, one release */
