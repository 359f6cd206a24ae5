/* SPDX-License-Identifier: ISC */
/* include/rxlock/age.h — age v1 (C2SP age.md) in our own C on libsodium:
 * X25519 recipients/identities (Bech32), identity files, and streaming
 * encrypt/decrypt with optional ASCII armor.  An epoch's recipient is its
 * puzzle's epoch_pk; its identity is the x that tl_solve() returns.
 * Every function returns 0 on success or a negative TL_AGE_E* code
 * (-200 .. -299, include/rxlock/error.h), and wipes every secret it
 * touches. */
#ifndef RXLOCK_AGE_H
#define RXLOCK_AGE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

enum age_error {
    TL_AGE_OK        = 0,
    TL_AGE_EIO       = -201, /* read/write failed (errno kept)               */
    TL_AGE_EHEADER   = -202, /* malformed header                             */
    TL_AGE_EVERSION  = -203, /* not an age v1 file                           */
    TL_AGE_ENOMATCH  = -204, /* no stanza opens with the given identities    */
    TL_AGE_EMAC      = -205, /* header MAC mismatch (tampered header)        */
    TL_AGE_EPAYLOAD  = -206, /* a payload chunk failed authentication        */
    TL_AGE_ETRUNC    = -207, /* file ends early (truncated)                  */
    TL_AGE_ETRAILING = -208, /* data after the end of the payload            */
    TL_AGE_EARMOR    = -209, /* malformed or non-canonical ASCII armor       */
    TL_AGE_EINVAL    = -210, /* bad argument                                 */
    TL_AGE_ESCRYPT   = -211, /* passphrase (scrypt) files are not supported  */
    TL_AGE_ECRYPTO   = -212, /* libsodium / CSPRNG failure, low-order key    */
    TL_AGE_ENOMEM    = -213,
    TL_AGE_EKEY      = -214  /* malformed recipient or identity string       */
};
/* Documented alias, for age-only users: names a TL_AGE_E* code.  The error
 * space's one name is rxlock_strerror() (include/rxlock/error.h), which
 * gives the same text for TL_AGE_E* codes. */
const char *age_strerror(int rc);

#define TL_AGE_RECIPIENT_MAX 80  /* incl. NUL */
#define TL_AGE_IDENTITY_MAX 96   /* incl. NUL */

/* ---- keys ----------------------------------------------------------------- */
int age_recipient_encode(const uint8_t pk[32], char out[TL_AGE_RECIPIENT_MAX]);   /* "age1..." */
int age_identity_encode(const uint8_t sk[32], char out[TL_AGE_IDENTITY_MAX]);     /* "AGE-SECRET-KEY-1..." */
/* Recipients must be lowercase, identities uppercase (as age requires);
 * anything else is TL_AGE_EKEY. */
int age_recipient_decode(const char *s, uint8_t pk[32]);
int age_identity_decode(const char *s, uint8_t sk[32]);
/* "# created: <ISO-8601>\n# public key: age1...\n" (+ "# <comment>\n")
 * then the identity line; atomic, mode 0600, no-clobber unless force
 * (TL_AGE_EIO with errno EEXIST when the file exists). */
int age_identity_file_write(const char *path, const uint8_t sk[32], const char *comment, int force);
/* First non-empty, non-'#' line of a file of at most 64 KiB ("-" = stdin):
 * TL_AGE_EIO (errno kept) when unreadable, TL_AGE_EKEY when not an identity. */
int age_identity_file_read(const char *path, uint8_t sk[32]);
/* X25519(sk, basepoint): the recipient of identity sk. */
int age_public_key(const uint8_t sk[32], uint8_t pk[32]);

/* ---- age v1 files --------------------------------------------------------- */
#define TL_AGE_MAX_RECIPIENTS 64
#define TL_AGE_MAX_IDENTITIES 64

/* Encrypt everything readable from in_fd to out_fd as an age v1 file for
 * the npk X25519 recipients (1..TL_AGE_MAX_RECIPIENTS); armor != 0 writes
 * the PEM "AGE ENCRYPTED FILE" form.  Constant memory (~200 KiB). */
int age_encrypt_fd(int in_fd, int out_fd, const uint8_t (*pks)[32], size_t npk, int armor);
/* Decrypt an age v1 file (binary or armored, detected) from in_fd, reading
 * to EOF, and write the plaintext to out_fd.  Plaintext is written only
 * after its chunk authenticated; on failure some earlier chunks may already
 * have been written (callers writing files must discard the output). */
int age_decrypt_fd(int in_fd, int out_fd, const uint8_t (*sks)[32], size_t nsk);

/* Check what can be checked of an age v1 file on in_fd without a key,
 * reading to EOF: a well-formed header (binary or armored) with X25519
 * stanzas only, and a payload length that some plaintext gives.  A cut or
 * an appendix that leaves a plausible length is found only by decrypting.
 * 0, or the TL_AGE_E* code decrypting would give (TL_AGE_ETRUNC for a
 * length no age file has). */
int age_check_fd(int in_fd);
/* ---- post-quantum hybrid recipients: mlkem768x25519 -----------
 * The age spec's hybrid recipient (C2SP age.md): HPKE base mode (RFC 9180)
 * with the X-Wing KEM MLKEM768-X25519, HKDF-SHA256 and ChaCha20-Poly1305.
 * An identity is a 32-byte seed ("AGE-SECRET-KEY-PQ-1...", fits
 * TL_AGE_IDENTITY_MAX); SHAKE256(seed, 96) gives the ML-KEM-768 seed d ‖ z
 * and the X25519 scalar.  A recipient is ek (1,184 bytes) ‖ X25519 public
 * (32), "age1pq1..." in Bech32 without the 90-character limit.  A file is
 * for post-quantum recipients only or classic ones only (as age does). */
#define TL_AGE_PQ_RECIPIENT_BYTES 1216
#define TL_AGE_PQ_RECIPIENT_MAX   1984   /* "age1pq1..." is 1,959 characters; incl. NUL */

/* The recipient of identity seed. */
int age_pq_public_key(const uint8_t seed[32], uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES]);
int age_pq_recipient_encode(const uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES],
                               char out[TL_AGE_PQ_RECIPIENT_MAX]);
/* Lowercase "age1pq1..." of exactly 1,216 bytes whose ML-KEM part passes the
 * FIPS 203 modulus check, else TL_AGE_EKEY. */
int age_pq_recipient_decode(const char *s, uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES]);
int age_pq_identity_encode(const uint8_t seed[32], char out[TL_AGE_IDENTITY_MAX]);
int age_pq_identity_decode(const char *s, uint8_t seed[32]);
/* Identity file as age_identity_file_write, for a post-quantum seed. */
int age_pq_identity_file_write(const char *path, const uint8_t seed[32], const char *comment, int force);
/* age_identity_file_read for either kind: *pq = 1 when the identity is
 * post-quantum (key = its seed), 0 when X25519 (key = its scalar). */
int age_identity_file_read_any(const char *path, uint8_t key[32], int *pq);
/* Encrypt to 1..TL_AGE_MAX_RECIPIENTS post-quantum recipients. */
int age_pq_encrypt_fd(int in_fd, int out_fd, const uint8_t (*rcps)[TL_AGE_PQ_RECIPIENT_BYTES],
                         size_t n, int armor);
/* Decrypt with X25519 identities sks and post-quantum identity seeds (either
 * list may be empty, not both; NULL when empty). */
int age_decrypt_fd_any(int in_fd, int out_fd, const uint8_t (*sks)[32], size_t nsk,
                          const uint8_t (*seeds)[32], size_t nseed);

/* The names from before the age layer took its own prefix: the same
 * functions under their old tl_age_ names, kept for one release
 * (aliases defined beside each function; new code uses age_*). */
int tl_age_check_fd(int in_fd);
int tl_age_decrypt_fd(int in_fd, int out_fd, const uint8_t (*sks)[32], size_t nsk);
int tl_age_decrypt_fd_any(int in_fd, int out_fd, const uint8_t (*sks)[32], size_t nsk,
                          const uint8_t (*seeds)[32], size_t nseed);
int tl_age_encrypt_fd(int in_fd, int out_fd, const uint8_t (*pks)[32], size_t npk, int armor);
int tl_age_identity_decode(const char *s, uint8_t sk[32]);
int tl_age_identity_encode(const uint8_t sk[32], char out[TL_AGE_IDENTITY_MAX]);
int tl_age_identity_file_read(const char *path, uint8_t sk[32]);
int tl_age_identity_file_read_any(const char *path, uint8_t key[32], int *pq);
int tl_age_identity_file_write(const char *path, const uint8_t sk[32], const char *comment, int force);
int tl_age_pq_encrypt_fd(int in_fd, int out_fd, const uint8_t (*rcps)[TL_AGE_PQ_RECIPIENT_BYTES],
                         size_t n, int armor);
int tl_age_pq_identity_decode(const char *s, uint8_t seed[32]);
int tl_age_pq_identity_encode(const uint8_t seed[32], char out[TL_AGE_IDENTITY_MAX]);
int tl_age_pq_identity_file_write(const char *path, const uint8_t seed[32], const char *comment, int force);
int tl_age_pq_public_key(const uint8_t seed[32], uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES]);
int tl_age_pq_recipient_decode(const char *s, uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES]);
int tl_age_pq_recipient_encode(const uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES],
                               char out[TL_AGE_PQ_RECIPIENT_MAX]);
int tl_age_public_key(const uint8_t sk[32], uint8_t pk[32]);
int tl_age_recipient_decode(const char *s, uint8_t pk[32]);
int tl_age_recipient_encode(const uint8_t pk[32], char out[TL_AGE_RECIPIENT_MAX]);
const char *tl_age_strerror(int rc);
#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
