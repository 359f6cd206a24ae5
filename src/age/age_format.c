/* SPDX-License-Identifier: ISC */
/* src/age/age_format.c — the age v1 header: version line, X25519 recipient
 * stanzas (wrap/unwrap of the 16-byte file key), the mlkem768x25519
 * stanza's syntax (its cryptography is age_pq.c) and the header MAC. */
#include "age/age_internal.h"
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define VERSION_LINE "age-encryption.org/v1"
#define X25519_INFO  "age-encryption.org/v1/X25519"
#define B64_32       43   /* unpadded base64 length of 32 bytes */

static const uint8_t zero_nonce[12];

static int wrap_key(uint8_t key[32], const uint8_t shared[32],
                    const uint8_t share[32], const uint8_t pk[32]) {
    uint8_t salt[64];
    memcpy(salt, share, 32);
    memcpy(salt + 32, pk, 32);
    return tl_hkdf_sha256(key, 32, salt, 64, shared, 32,
                          (const uint8_t *)X25519_INFO, strlen(X25519_INFO));
}

static int mac_key(uint8_t key[32], const uint8_t file_key[16]) {
    return tl_hkdf_sha256(key, 32, NULL, 0, file_key, 16, (const uint8_t *)"header", 6);
}

/* Append to a bounded text buffer. */
typedef struct { char *p; size_t len, cap; } tbuf;
static int tput(tbuf *t, const char *s, size_t n) {
    if (t->len + n > t->cap) return -1;
    memcpy(t->p + t->len, s, n);
    t->len += n;
    return 0;
}

/* Bytes of header text for npk X25519 and npq mlkem768x25519 stanzas:
 * ~110 per X25519 stanza, ~1,560 per post-quantum one, the version and
 * MAC lines. */
#define X25519_STANZA_MAX 128
#define PQ_STANZA_MAX     (32 + TL_AGE_PQ_ENC_B64 + B64_32)
#define HEADER_FIXED_MAX  128

int age_header_write(age_out *o, const uint8_t file_key[16],
                        const uint8_t (*pks)[32], size_t npk,
                        const uint8_t (*pqs)[TL_AGE_PQ_RECIPIENT_BYTES], size_t npq) {
    uint8_t eph[32], share[32], shared[32], key[32], body[32], mac[32];
    char b64[TL_AGE_PQ_ENC_B64 + 1];
    int rc = TL_AGE_ECRYPTO;
    if (npk + npq < 1 || npk > TL_AGE_MAX_RECIPIENTS || npq > TL_AGE_MAX_RECIPIENTS ||
        (npk && !pks) || (npq && !pqs)) return TL_AGE_EINVAL;
    const size_t cap = HEADER_FIXED_MAX + npk * X25519_STANZA_MAX + npq * PQ_STANZA_MAX;
    char *text = malloc(cap);
    if (!text) return TL_AGE_ENOMEM;
    tbuf t = {text, 0, cap};
    if (tput(&t, VERSION_LINE "\n", strlen(VERSION_LINE) + 1)) goto out;
    for (size_t i = 0; i < npk; i++) {
        randombytes_buf(eph, sizeof eph);
        if (crypto_scalarmult_base(share, eph) != 0 ||
            crypto_scalarmult(shared, eph, pks[i]) != 0 ||   /* refuses low-order keys */
            wrap_key(key, shared, share, pks[i]) != 0 ||
            crypto_aead_chacha20poly1305_ietf_encrypt(body, NULL, file_key, 16, NULL, 0, NULL,
                                                      zero_nonce, key) != 0)
            goto out;
        if (tput(&t, "-> X25519 ", 10)) goto out;
        sodium_bin2base64(b64, sizeof b64, share, 32, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
        if (tput(&t, b64, B64_32) || tput(&t, "\n", 1)) goto out;
        sodium_bin2base64(b64, sizeof b64, body, 32, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
        if (tput(&t, b64, B64_32) || tput(&t, "\n", 1)) goto out;
    }
    /* one mlkem768x25519 stanza per post-quantum recipient. */
    for (size_t i = 0; i < npq; i++) {
        uint8_t enc[TL_AGE_PQ_ENC_BYTES];
        int r = age_pq_wrap(pqs[i], file_key, enc, body);
        if (r != 0) { rc = r; goto out; }
        if (tput(&t, "-> " TL_AGE_PQ_STANZA " ", 4 + strlen(TL_AGE_PQ_STANZA))) goto out;
        sodium_bin2base64(b64, sizeof b64, enc, sizeof enc, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
        if (tput(&t, b64, TL_AGE_PQ_ENC_B64) || tput(&t, "\n", 1)) goto out;
        sodium_bin2base64(b64, sizeof b64, body, 32, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
        if (tput(&t, b64, B64_32) || tput(&t, "\n", 1)) goto out;
    }
    if (tput(&t, "---", 3)) goto out;
    if (mac_key(key, file_key) != 0) goto out;
    {
        crypto_auth_hmacsha256_state st;
        if (crypto_auth_hmacsha256_init(&st, key, 32) != 0 ||
            crypto_auth_hmacsha256_update(&st, (const uint8_t *)text, t.len) != 0 ||
            crypto_auth_hmacsha256_final(&st, mac) != 0) { sodium_memzero(&st, sizeof st); goto out; }
        sodium_memzero(&st, sizeof st);
    }
    sodium_bin2base64(b64, sizeof b64, mac, 32, sodium_base64_VARIANT_ORIGINAL_NO_PADDING);
    if (tput(&t, " ", 1) || tput(&t, b64, B64_32) || tput(&t, "\n", 1)) goto out;
    rc = age_out_write(o, text, t.len);
out:
    free(text);
    sodium_memzero(eph, sizeof eph);
    sodium_memzero(shared, sizeof shared);
    sodium_memzero(key, sizeof key);
    sodium_memzero(body, sizeof body);
    return rc;
}

static int is_b64char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '/';
}

/* Split "-> a b c" arguments in place.  Each argument is 1*VCHAR, separated
 * by exactly one space. */
#define MAX_ARGS 16
static int split_args(char *s, char **argv, int *argc) {
    int n = 0;
    if (*s == 0) return -1;
    for (;;) {
        if (n == MAX_ARGS) return -1;
        argv[n++] = s;
        while (*s && *s != ' ') {
            if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e) return -1;
            s++;
        }
        if (s == argv[n - 1]) return -1;           /* empty argument */
        if (*s == 0) break;
        *s++ = 0;
        if (*s == 0) return -1;                    /* trailing space */
    }
    *argc = n;
    return 0;
}

/* Try to open an X25519 stanza with each identity.  1 = opened (file_key
 * set), 0 = not for us, < 0 = malformed stanza. */
static int x25519_open(char **argv, int argc, const char *body, size_t blen,
                       const uint8_t (*sks)[32], size_t nsk, uint8_t file_key[16]) {
    uint8_t share[32], ct[32], shared[32], pk[32], key[32];
    int rc = 0;
    if (argc != 2 || age_b64_decode(argv[1], strlen(argv[1]), share, 32) != 0)
        return TL_AGE_EHEADER;
    if (age_b64_decode(body, blen, ct, 32) != 0) return TL_AGE_EHEADER;
    for (size_t i = 0; sks && i < nsk && rc == 0; i++) {
        if (crypto_scalarmult(shared, sks[i], share) != 0) { rc = TL_AGE_ECRYPTO; break; }  /* all-zero secret */
        if (crypto_scalarmult_base(pk, sks[i]) != 0 || wrap_key(key, shared, share, pk) != 0) {
            rc = TL_AGE_ECRYPTO; break;
        }
        if (crypto_aead_chacha20poly1305_ietf_decrypt(file_key, NULL, NULL, ct, 32, NULL, 0,
                                                      zero_nonce, key) == 0)
            rc = 1;
    }
    sodium_memzero(shared, sizeof shared);
    sodium_memzero(key, sizeof key);
    return rc;
}

int age_header_read(age_in *in, const uint8_t (*sks)[32], size_t nsk,
                       const uint8_t (*seeds)[32], size_t nseed, uint8_t file_key[16]) {
    char *text = sodium_malloc(TL_AGE_HEADER_MAX);   /* header as read, for the MAC */
    char line[TL_AGE_LINE_MAX], body[TL_AGE_LINE_MAX];
    size_t tlen = 0, len = 0;
    int rc, found = 0, stanzas = 0, scrypt = 0;
    uint8_t key[32], mac[32], want[32];
    if (!text) return TL_AGE_ENOMEM;
#define TAKE(s, n) do { if (tlen + (n) + 1 > TL_AGE_HEADER_MAX) { rc = TL_AGE_EHEADER; goto out; } \
                        memcpy(text + tlen, (s), (n)); tlen += (n); } while (0)
    rc = age_in_line(in, line, sizeof line, &len);
    if (rc == TL_AGE_ETRUNC || rc == TL_AGE_EHEADER) { rc = TL_AGE_EVERSION; goto out; }
    if (rc) goto out;
    if (strcmp(line, VERSION_LINE) != 0) { rc = TL_AGE_EVERSION; goto out; }
    TAKE(line, len); TAKE("\n", 1);
    rc = age_in_line(in, line, sizeof line, &len);
    for (;;) {
        if (rc) goto out;
        if (strncmp(line, "---", 3) == 0) break;
        if (strncmp(line, "-> ", 3) != 0) { rc = TL_AGE_EHEADER; goto out; }
        TAKE(line, len); TAKE("\n", 1);
        char *argv[MAX_ARGS];
        int argc = 0;
        if (split_args(line + 3, argv, &argc) != 0) { rc = TL_AGE_EHEADER; goto out; }
        /* Body: full 64-column lines, then one shorter (maybe empty) line. */
        size_t blen = 0, bl = 0;
        for (;;) {
            rc = age_in_line(in, body, sizeof body, &bl);
            if (rc) goto out;
            if (bl > 64) { rc = TL_AGE_EHEADER; goto out; }
            for (size_t i = 0; i < bl; i++)
                if (!is_b64char(body[i])) { rc = TL_AGE_EHEADER; goto out; }
            TAKE(body, bl); TAKE("\n", 1);
            blen += bl;
            if (bl < 64) {
                /* The body of every stanza, known or not, must be canonical
                 * unpadded base64; only the short last line can break that. */
                uint8_t tmp[48];
                if (bl % 4 == 1 || (bl && age_b64_decode(body, bl, tmp, (bl * 3) / 4) != 0)) {
                    rc = TL_AGE_EHEADER; goto out;
                }
                break;
            }
        }
        stanzas++;
        if (strcmp(argv[0], "scrypt") == 0) scrypt = 1;
        if (strcmp(argv[0], "X25519") == 0) {
            if (blen != B64_32) { rc = TL_AGE_EHEADER; goto out; }   /* one short line */
            if (!found) {
                int r = x25519_open(argv, argc, body, bl, sks, nsk, file_key);
                if (r < 0) { rc = r; goto out; }
                if (r == 1) found = 1;
            } else {
                uint8_t tmp[32];   /* still validate the encoding */
                if (argc != 2 || age_b64_decode(argv[1], strlen(argv[1]), tmp, 32) != 0 ||
                    age_b64_decode(body, bl, tmp, 32) != 0) { rc = TL_AGE_EHEADER; goto out; }
            }
        }
        /* the hybrid post-quantum stanza, exactly two arguments
         * (the stanza name, canonical base64 of the 1,120-byte enc) and a
         * 32-byte body; anything else is a header failure, whether or not
         * a post-quantum identity was given. */
        if (strcmp(argv[0], TL_AGE_PQ_STANZA) == 0) {
            uint8_t enc[TL_AGE_PQ_ENC_BYTES], pbody[32];
            if (argc != 2 || blen != B64_32 ||
                age_b64_decode(argv[1], strlen(argv[1]), enc, sizeof enc) != 0 ||
                age_b64_decode(body, bl, pbody, 32) != 0) { rc = TL_AGE_EHEADER; goto out; }
            if (!found && nseed) {
                int r = age_pq_unwrap(enc, pbody, seeds, nseed, file_key);
                if (r < 0) { rc = r; goto out; }
                if (r == 1) found = 1;
            }
        }
        rc = age_in_line(in, line, sizeof line, &len);
    }
    /* MAC line: "--- " + 43 base64 characters. */
    if (stanzas == 0 || len != 4 + B64_32 || line[3] != ' ' ||
        age_b64_decode(line + 4, B64_32, want, 32) != 0) { rc = TL_AGE_EHEADER; goto out; }
    if (scrypt) { rc = stanzas == 1 ? TL_AGE_ESCRYPT : TL_AGE_EHEADER; goto out; }
    if (!found) { rc = TL_AGE_ENOMATCH; goto out; }
    TAKE("---", 3);
    {
        crypto_auth_hmacsha256_state st;
        int ok = mac_key(key, file_key) == 0 &&
                 crypto_auth_hmacsha256_init(&st, key, 32) == 0 &&
                 crypto_auth_hmacsha256_update(&st, (const uint8_t *)text, tlen) == 0 &&
                 crypto_auth_hmacsha256_final(&st, mac) == 0;
        sodium_memzero(&st, sizeof st);
        if (!ok) { rc = TL_AGE_ECRYPTO; goto out; }
    }
    rc = crypto_verify_32(mac, want) == 0 ? 0 : TL_AGE_EMAC;
#undef TAKE
out:
    if (rc) sodium_memzero(file_key, 16);
    sodium_memzero(key, sizeof key);
    sodium_free(text);
    return rc;
}
