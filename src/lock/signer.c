/* src/lock/signer.c — Ed25519 signer key files: "# ..." comment lines and
 * one line holding the 32-byte seed in hex (docs/FORMAT.md §Signer key). */
#include "tl_internal.h"
#include "util/util.h"
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tl_signer_keygen(uint8_t pk[32], uint8_t sk[64]) {
    if (sodium_init() < 0) return TL_ERANDOM;
    return crypto_sign_keypair(pk, sk) == 0 ? TL_OK : TL_ERANDOM;
}

int tl_signer_save(const char *path, const uint8_t sk[64], int force) {
    char pkhex[65], seedhex[65], text[256];
    util_hex_encode(pkhex, sk + 32, 32);
    util_hex_encode(seedhex, sk, 32);
    int n = snprintf(text, sizeof text,
                     "# rxlock Ed25519 signing key (keep secret)\n# public key: %s\n%s\n", pkhex, seedhex);
    int rc = TL_OK;
    if (n < 0 || (size_t)n >= sizeof text) rc = TL_EINVAL;
    else if (util_write_file_atomic(path, text, (size_t)n, force, 0600) != 0) rc = TL_EIO;
    sodium_memzero(text, sizeof text);
    sodium_memzero(seedhex, sizeof seedhex);
    return rc;
}

int tl_signer_load(const char *path, uint8_t sk[64], uint8_t pk[32]) {
    uint8_t *data = NULL;
    size_t len = 0;
    if (sodium_init() < 0) return TL_ERANDOM;
    if (util_read_file(path, 4096, &data, &len) != 0) return errno == EFBIG ? TL_ETOOBIG : TL_EIO;
    int rc = TL_EFORMAT;
    char *save = NULL;
    for (char *line = strtok_r((char *)data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t l = strlen(line);
        if (l && line[l - 1] == '\r') line[--l] = 0;
        if (!l || line[0] == '#') continue;
        uint8_t seed[32];
        size_t got = 0;
        if (l == 64 && util_hex_decode(line, seed, 32, &got) == 0 && got == 32 &&
            crypto_sign_seed_keypair(pk, sk, seed) == 0)
            rc = TL_OK;
        sodium_memzero(seed, sizeof seed);
        break;
    }
    sodium_memzero(data, len);
    free(data);
    return rc;
}
