/* src/lock/age.h — age v1 (C2SP age.md) in our own C on libsodium:
 * X25519 recipients/identities (Bech32), identity files, HKDF-SHA-256, and
 * streaming encrypt/decrypt with optional ASCII armor.  All functions return
 * 0 on success and -1 (or a negative TL_AGE_E* code) on failure, and wipe
 * every secret they touch. */
#ifndef RXLOCK_LOCK_AGE_H
#define RXLOCK_LOCK_AGE_H
#include <stddef.h>
#include <stdint.h>

#define TL_AGE_RECIPIENT_MAX 80  /* incl. NUL */
#define TL_AGE_IDENTITY_MAX 96   /* incl. NUL */

/* ---- keys (age_keys.c) ------------------------------------------------ */
int tl_age_recipient_encode(const uint8_t pk[32], char out[TL_AGE_RECIPIENT_MAX]);   /* "age1..." */
int tl_age_identity_encode(const uint8_t sk[32], char out[TL_AGE_IDENTITY_MAX]);     /* "AGE-SECRET-KEY-1..." */
/* Recipients must be lowercase, identities uppercase (as age requires). */
int tl_age_recipient_decode(const char *s, uint8_t pk[32]);
int tl_age_identity_decode(const char *s, uint8_t sk[32]);
/* "# created: <ISO-8601>\n# public key: age1...\n" (+ "# <comment>\n")
 * then the identity line; atomic, mode 0600, no-clobber unless force. */
int tl_age_identity_file_write(const char *path, const uint8_t sk[32], const char *comment, int force);
/* First non-empty, non-'#' line of a file of at most 64 KiB ("-" = stdin). */
int tl_age_identity_file_read(const char *path, uint8_t sk[32]);
/* X25519(sk, basepoint). */
int tl_age_public_key(const uint8_t sk[32], uint8_t pk[32]);

/* ---- HKDF-SHA-256, RFC 5869 (hkdf.c) ------------------------------------ */
int tl_hkdf_sha256(uint8_t *out, size_t outlen,
                   const uint8_t *salt, size_t saltlen,
                   const uint8_t *ikm, size_t ikmlen,
                   const uint8_t *info, size_t infolen);
#endif
