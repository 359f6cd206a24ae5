/* SPDX-License-Identifier: ISC */
/* src/lock/core/signer.c — key files ("# ..." comment lines, "# public key:",
 * one line holding a 32-byte secret in hex; docs/FORMAT.md §Signer key),
 * used for the Ed25519 signer key and the cluster plan's X25519 keys, and
 * signing a puzzle header. */
#include "core_internal.h"
#include "util/util.h"
#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tl_signer_keygen(uint8_t pk[32], uint8_t sk[64]) {
    if (sodium_init() < 0) return TL_ERANDOM;
    return crypto_sign_keypair(pk, sk) == 0 ? TL_OK : TL_ERANDOM;
}

int tl_keyfile_save_at(int dfd, const char *path, const char *title, const uint8_t pub[32],
                    const uint8_t secret[32], int force) {
    char pubhex[65], sechex[65], text[512];
    util_hex_encode(pubhex, pub, 32);
    util_hex_encode(sechex, secret, 32);
    int n = snprintf(text, sizeof text, "# %s\n# public key: %s\n%s\n", title, pubhex, sechex);
    int rc = TL_OK;
    if (n < 0 || (size_t)n >= sizeof text) rc = TL_EINVAL;
    else if (util_write_at_atomic(dfd, path, text, (size_t)n, force, 0600) != 0) rc = TL_EIO;
    sodium_memzero(text, sizeof text);
    sodium_memzero(sechex, sizeof sechex);
    return rc;
}

int tl_keyfile_save(const char *path, const char *title, const uint8_t pub[32],
                    const uint8_t secret[32], int force) {
    return tl_keyfile_save_at(AT_FDCWD, path, title, pub, secret, force);
}

/* The secret of a key file's text (data, len: wiped and freed). */
static int keyfile_parse(uint8_t *data, size_t len, uint8_t secret[32]) {
    int rc = TL_EFORMAT;
    char *save = NULL;
    for (char *line = strtok_r((char *)data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t l = strlen(line), got = 0;
        if (l && line[l - 1] == '\r') line[--l] = 0;
        if (!l || line[0] == '#') continue;
        if (l == 64 && util_hex_decode(line, secret, 32, &got) == 0 && got == 32) rc = TL_OK;
        break;
    }
    if (rc) sodium_memzero(secret, 32);
    sodium_memzero(data, len);
    free(data);
    return rc;
}

int tl_keyfile_load(const char *path, uint8_t secret[32]) {
    uint8_t *data = NULL;
    size_t len = 0;
    if (sodium_init() < 0) return TL_ERANDOM;
    if (util_read_file(path, 4096, &data, &len) != 0) return errno == EFBIG ? TL_ETOOBIG : TL_EIO;
    return keyfile_parse(data, len, secret);
}

int tl_keyfile_load_at(int dfd, const char *name, uint8_t secret[32]) {
    uint8_t *data = NULL;
    size_t len = 0;
    if (sodium_init() < 0) return TL_ERANDOM;
    if (util_read_at(dfd, name, 4096, &data, &len) != 0) return errno == EFBIG ? TL_ETOOBIG : TL_EIO;
    return keyfile_parse(data, len, secret);
}

int tl_signer_save(const char *path, const uint8_t sk[64], int force) {
    return tl_keyfile_save(path, "rxlock Ed25519 signing key (keep secret)", sk + 32, sk, force);
}

int tl_signer_load(const char *path, uint8_t sk[64], uint8_t pk[32]) {
    uint8_t seed[32];
    int rc = tl_keyfile_load(path, seed);
    if (rc == TL_OK && crypto_sign_seed_keypair(pk, sk, seed) != 0) rc = TL_EFORMAT;
    sodium_memzero(seed, sizeof seed);
    return rc;
}

int tl_puzzle_sign(tl_puzzle *pz, const uint8_t sign_sk[64]) {
    uint8_t hdr[TL_SIGNED_MAX];
    size_t hlen;
    int rc = tl_signed_message(pz, hdr, sizeof hdr, &hlen);
    if (rc) return rc;
    if (crypto_sign_detached(pz->signature, NULL, hdr, hlen, sign_sk) != 0) return TL_ESIG;
    pz->has_signature = 1;
    return tl_puzzle_verify(pz, NULL);
}
