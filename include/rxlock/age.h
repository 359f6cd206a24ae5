/* include/rxlock/age.h — age v1 (C2SP age.md) in our own C on libsodium:
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

/* ---- age v1 files (age_format.c, age_stream.c, age_armor.c) ------------- */
enum tl_age_error {
    TL_AGE_OK        = 0,
    TL_AGE_EIO       = -1,   /* read/write failed (errno kept)               */
    TL_AGE_EHEADER   = -2,   /* malformed header                             */
    TL_AGE_EVERSION  = -3,   /* not an age v1 file                           */
    TL_AGE_ENOMATCH  = -4,   /* no stanza opens with the given identities    */
    TL_AGE_EMAC      = -5,   /* header MAC mismatch (tampered header)        */
    TL_AGE_EPAYLOAD  = -6,   /* a payload chunk failed authentication        */
    TL_AGE_ETRUNC    = -7,   /* file ends early (truncated)                  */
    TL_AGE_ETRAILING = -8,   /* data after the end of the payload            */
    TL_AGE_EARMOR    = -9,   /* malformed or non-canonical ASCII armor       */
    TL_AGE_EINVAL    = -10,  /* bad argument                                 */
    TL_AGE_ESCRYPT   = -11,  /* passphrase (scrypt) files are not supported  */
    TL_AGE_ECRYPTO   = -12,  /* libsodium / CSPRNG failure, low-order key    */
    TL_AGE_ENOMEM    = -13
};
const char *tl_age_strerror(int rc);

#define TL_AGE_MAX_RECIPIENTS 64
#define TL_AGE_MAX_IDENTITIES 64

/* Encrypt everything readable from in_fd to out_fd as an age v1 file for
 * the npk X25519 recipients (1..TL_AGE_MAX_RECIPIENTS); armor != 0 writes
 * the PEM "AGE ENCRYPTED FILE" form.  Constant memory (~200 KiB). */
int tl_age_encrypt_fd(int in_fd, int out_fd, const uint8_t (*pks)[32], size_t npk, int armor);
/* Decrypt an age v1 file (binary or armored, detected) from in_fd, reading
 * to EOF, and write the plaintext to out_fd.  Plaintext is written only
 * after its chunk authenticated; on failure some earlier chunks may already
 * have been written (callers writing files must discard the output). */
int tl_age_decrypt_fd(int in_fd, int out_fd, const uint8_t (*sks)[32], size_t nsk);
#endif
