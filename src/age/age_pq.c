/* SPDX-License-Identifier: ISC */
/* src/age/age_pq.c — age's hybrid post-quantum recipient "mlkem768x25519"
 * (C2SP age.md): the X-Wing KEM MLKEM768-X25519
 * (draft-connolly-cfrg-xwing-kem: seed expansion by SHAKE256, combiner
 * SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ "\.//^\")) under HPKE base mode
 * (RFC 9180: suite KEM 0x647a, HKDF-SHA256 0x0001, ChaCha20-Poly1305
 * 0x0003, info "age-encryption.org/mlkem768x25519"), the age1pq1 /
 * AGE-SECRET-KEY-PQ-1 key strings.  ML-KEM is src/pq; the stanza syntax
 * is age_format.c.  Derived secret keys live in sodium_malloc memory. */
#include "age/age_internal.h"
#include "age/bech32.h"
#include "rxlock/pq.h"
#include "rxlock/sha3.h"
#include <errno.h>
#include <sodium.h>
#include <string.h>

#define HRP_PQ_RECIPIENT "age1pq"
#define HRP_PQ_IDENTITY  "age-secret-key-pq-"
#define PQ_INFO          "age-encryption.org/mlkem768x25519"
#define EK_M             PQ_MLKEM768_EK_BYTES
#define CT_M             PQ_MLKEM768_CT_BYTES

static const uint8_t xwing_label[6] = { 0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c };  /* \.//^\ */
/* "HPKE" ‖ kem_id ‖ kdf_id ‖ aead_id */
static const uint8_t suite_id[10] = { 'H', 'P', 'K', 'E', 0x64, 0x7a, 0x00, 0x01, 0x00, 0x03 };

/* The decapsulation side of one identity. */
typedef struct {
    uint8_t expanded[96];                 /* SHAKE256(seed, 96) = d ‖ z ‖ sk_X */
    uint8_t dk[PQ_MLKEM768_DK_BYTES];
    uint8_t ek[EK_M];
    uint8_t pkx[32];
} xwing_key;

static int xwing_derive(const uint8_t seed[32], xwing_key *k) {
    sha3_shake256(k->expanded, sizeof k->expanded, seed, 32);
    pq_mlkem768_keygen(k->ek, k->dk, k->expanded);
    return crypto_scalarmult_base(k->pkx, k->expanded + 64) == 0 ? 0 : TL_AGE_ECRYPTO;
}

static void xwing_combine(uint8_t ss[32], const uint8_t ssm[32], const uint8_t ssx[32],
                          const uint8_t ctx[32], const uint8_t pkx[32]) {
    uint8_t buf[4 * 32 + sizeof xwing_label];
    memcpy(buf, ssm, 32);
    memcpy(buf + 32, ssx, 32);
    memcpy(buf + 64, ctx, 32);
    memcpy(buf + 96, pkx, 32);
    memcpy(buf + 128, xwing_label, sizeof xwing_label);
    sha3_256(ss, buf, sizeof buf);
    sodium_memzero(buf, sizeof buf);
}

/* RFC 9180 §4: LabeledExtract / LabeledExpand with this suite. */
static int labeled_extract(uint8_t prk[32], const uint8_t *salt, size_t saltlen,
                           const char *label, const uint8_t *ikm, size_t ikmlen) {
    uint8_t buf[7 + sizeof suite_id + 16 + 64];
    size_t ll = strlen(label), n = 0;
    if (ll > 16 || ikmlen > 64) return -1;
    memcpy(buf, "HPKE-v1", 7); n = 7;
    memcpy(buf + n, suite_id, sizeof suite_id); n += sizeof suite_id;
    memcpy(buf + n, label, ll); n += ll;
    if (ikmlen) memcpy(buf + n, ikm, ikmlen);
    n += ikmlen;
    int rc = tl_hkdf_sha256_extract(prk, salt, saltlen, buf, n);
    sodium_memzero(buf, sizeof buf);
    return rc;
}

static int labeled_expand(uint8_t *out, size_t outlen, const uint8_t prk[32],
                          const char *label, const uint8_t *info, size_t infolen) {
    uint8_t buf[2 + 7 + sizeof suite_id + 16 + 80];
    size_t ll = strlen(label), n = 0;
    if (ll > 16 || infolen > 80 || outlen > 255) return -1;
    buf[0] = 0; buf[1] = (uint8_t)outlen; n = 2;
    memcpy(buf + n, "HPKE-v1", 7); n += 7;
    memcpy(buf + n, suite_id, sizeof suite_id); n += sizeof suite_id;
    memcpy(buf + n, label, ll); n += ll;
    memcpy(buf + n, info, infolen); n += infolen;
    int rc = tl_hkdf_sha256_expand(out, outlen, prk, buf, n);
    sodium_memzero(buf, sizeof buf);
    return rc;
}

/* RFC 9180 §5.1 KeySchedule, base mode (no PSK), for our info. */
static int hpke_schedule(const uint8_t ss[32], uint8_t key[32], uint8_t nonce[12]) {
    uint8_t ctx[65], secret[32];
    int rc = -1;
    ctx[0] = 0;                                              /* mode_base */
    if (labeled_extract(ctx + 1, NULL, 0, "psk_id_hash", NULL, 0) == 0 &&
        labeled_extract(ctx + 33, NULL, 0, "info_hash", (const uint8_t *)PQ_INFO, strlen(PQ_INFO)) == 0 &&
        labeled_extract(secret, ss, 32, "secret", NULL, 0) == 0 &&
        labeled_expand(key, 32, secret, "key", ctx, sizeof ctx) == 0 &&
        labeled_expand(nonce, 12, secret, "base_nonce", ctx, sizeof ctx) == 0) rc = 0;
    sodium_memzero(secret, sizeof secret);
    return rc;
}

int age_pq_wrap(const uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES], const uint8_t file_key[16],
                   uint8_t enc[TL_AGE_PQ_ENC_BYTES], uint8_t body[32]) {
    struct { uint8_t eseed[64], ssm[32], ssx[32], ss[32], key[32], nonce[12]; } *w = sodium_malloc(sizeof *w);
    const uint8_t *pkx = rcp + EK_M;
    int rc = TL_AGE_ECRYPTO;
    if (!w) return TL_AGE_ENOMEM;
    randombytes_buf(w->eseed, sizeof w->eseed);
    if (pq_mlkem768_encaps_derand(enc, w->ssm, rcp, w->eseed) != 0) { rc = TL_AGE_EKEY; goto out; }
    if (crypto_scalarmult_base(enc + CT_M, w->eseed + 32) != 0) goto out;
    if (crypto_scalarmult(w->ssx, w->eseed + 32, pkx) != 0) { rc = TL_AGE_EKEY; goto out; }  /* low-order pk_X */
    xwing_combine(w->ss, w->ssm, w->ssx, enc + CT_M, pkx);
    if (hpke_schedule(w->ss, w->key, w->nonce) != 0 ||
        crypto_aead_chacha20poly1305_ietf_encrypt(body, NULL, file_key, 16, NULL, 0, NULL,
                                                  w->nonce, w->key) != 0) goto out;
    rc = 0;
out:
    sodium_free(w);
    return rc;
}

int age_pq_unwrap(const uint8_t enc[TL_AGE_PQ_ENC_BYTES], const uint8_t body[32],
                     const uint8_t (*seeds)[32], size_t nseed, uint8_t file_key[16]) {
    struct { xwing_key k; uint8_t ssm[32], ssx[32], ss[32], key[32], nonce[12]; } *w = sodium_malloc(sizeof *w);
    const uint8_t *ctx = enc + CT_M;
    int rc = 0;
    if (!w) return TL_AGE_ENOMEM;
    for (size_t i = 0; i < nseed && rc == 0; i++) {
        if (xwing_derive(seeds[i], &w->k) != 0) { rc = TL_AGE_ECRYPTO; break; }
        /* An all-zero X25519 share (low-order ct_X) is a malformed stanza. */
        if (crypto_scalarmult(w->ssx, w->k.expanded + 64, ctx) != 0) { rc = TL_AGE_EHEADER; break; }
        if (pq_mlkem768_decaps(w->ssm, enc, w->k.dk) != 0) { rc = TL_AGE_ECRYPTO; break; }
        xwing_combine(w->ss, w->ssm, w->ssx, ctx, w->k.pkx);
        if (hpke_schedule(w->ss, w->key, w->nonce) != 0) { rc = TL_AGE_ECRYPTO; break; }
        if (crypto_aead_chacha20poly1305_ietf_decrypt(file_key, NULL, NULL, body, 32, NULL, 0,
                                                      w->nonce, w->key) == 0) rc = 1;
    }
    sodium_free(w);
    return rc;
}

/* ---- keys ------------------------------------------------------------------ */
int age_pq_public_key(const uint8_t seed[32], uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES]) {
    if (!seed || !rcp) return TL_AGE_EINVAL;
    if (sodium_init() < 0) return TL_AGE_ECRYPTO;
    xwing_key *k = sodium_malloc(sizeof *k);
    if (!k) return TL_AGE_ENOMEM;
    int rc = xwing_derive(seed, k);
    if (rc == 0) {
        memcpy(rcp, k->ek, EK_M);
        memcpy(rcp + EK_M, k->pkx, 32);
    }
    sodium_free(k);
    return rc;
}

int age_pq_recipient_encode(const uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES],
                               char out[TL_AGE_PQ_RECIPIENT_MAX]) {
    if (!rcp || !out) return TL_AGE_EINVAL;
    return tl_bech32_encode_long(out, TL_AGE_PQ_RECIPIENT_MAX, HRP_PQ_RECIPIENT, rcp,
                                 TL_AGE_PQ_RECIPIENT_BYTES) == 0 ? 0 : TL_AGE_EINVAL;
}

int age_pq_recipient_decode(const char *s, uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES]) {
    char hrp[16];
    size_t n = 0;
    if (!rcp) return TL_AGE_EINVAL;
    if (!s || strncmp(s, HRP_PQ_RECIPIENT "1", 7) != 0 ||
        tl_bech32_decode_long(s, hrp, sizeof hrp, rcp, TL_AGE_PQ_RECIPIENT_BYTES, &n) != 0 ||
        n != TL_AGE_PQ_RECIPIENT_BYTES || strcmp(hrp, HRP_PQ_RECIPIENT) != 0) return TL_AGE_EKEY;
    /* The ML-KEM part must pass the FIPS 203 §7.2 check now, not at encrypt time. */
    uint8_t ct[CT_M], ss[32], m[32] = { 0 };
    int rc = pq_mlkem768_encaps_derand(ct, ss, rcp, m) == 0 ? 0 : TL_AGE_EKEY;
    sodium_memzero(ss, sizeof ss);
    return rc;
}

int age_pq_identity_encode(const uint8_t seed[32], char out[TL_AGE_IDENTITY_MAX]) {
    return age_secret32_encode(HRP_PQ_IDENTITY, seed, out);
}

int age_pq_identity_decode(const char *s, uint8_t seed[32]) {
    return age_secret32_decode("AGE-SECRET-KEY-PQ-", s, seed);
}

int age_pq_identity_file_write(const char *path, const uint8_t seed[32], const char *comment, int force) {
    uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES];
    char rec[TL_AGE_PQ_RECIPIENT_MAX], id[TL_AGE_IDENTITY_MAX];
    int rc = TL_AGE_EINVAL;
    if (!path || !seed) { errno = EINVAL; return TL_AGE_EINVAL; }
    if ((rc = age_pq_public_key(seed, rcp)) != 0 || (rc = age_pq_recipient_encode(rcp, rec)) != 0 ||
        (rc = age_pq_identity_encode(seed, id)) != 0) goto out;
    rc = age_identity_file_emit(path, rec, id, comment, force);
out:;
    int e = errno;
    sodium_memzero(id, sizeof id);
    errno = e;
    return rc;
}
extern __typeof__(age_pq_identity_decode) tl_age_pq_identity_decode __attribute__((alias("age_pq_identity_decode")));   /* old name, one release */
extern __typeof__(age_pq_identity_encode) tl_age_pq_identity_encode __attribute__((alias("age_pq_identity_encode")));   /* old name, one release */
extern __typeof__(age_pq_identity_file_write) tl_age_pq_identity_file_write __attribute__((alias("age_pq_identity_file_write")));   /* old name, one release */
extern __typeof__(age_pq_public_key) tl_age_pq_public_key __attribute__((alias("age_pq_public_key")));   /* old name, one release */
extern __typeof__(age_pq_recipient_decode) tl_age_pq_recipient_decode __attribute__((alias("age_pq_recipient_decode")));   /* old name, one release */
extern __typeof__(age_pq_recipient_encode) tl_age_pq_recipient_encode __attribute__((alias("age_pq_recipient_encode")));   /* old name, one release */
