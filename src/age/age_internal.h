/* SPDX-License-Identifier: ISC */
/* src/age/age_internal.h — pieces shared by the age v1 implementation
 * files: HKDF-SHA-256, buffered raw input, the (optionally armored) byte
 * source and sink, and header encode/parse.  Not part of any public API. */
#ifndef RXLOCK_AGE_INTERNAL_H
#define RXLOCK_AGE_INTERNAL_H
#include "rxlock/age.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* HKDF-SHA-256, RFC 5869 (hkdf.c).  0 or -1 (outlen > 255*32, libsodium). */
int tl_hkdf_sha256(uint8_t *out, size_t outlen,
                   const uint8_t *salt, size_t saltlen,
                   const uint8_t *ikm, size_t ikmlen,
                   const uint8_t *info, size_t infolen);
/* Its two halves: prk <- HMAC(salt, ikm); out <- T(1) ‖ T(2) ‖ ... */
int tl_hkdf_sha256_extract(uint8_t prk[32], const uint8_t *salt, size_t saltlen,
                           const uint8_t *ikm, size_t ikmlen);
int tl_hkdf_sha256_expand(uint8_t *out, size_t outlen, const uint8_t prk[32],
                          const uint8_t *info, size_t infolen);

#ifdef RXLOCK_TESTING
/* Test hook (test build only): when set, every read the age input and the
 * encrypt input do goes through it instead of read(2), so a test can
 * inject an I/O error in the middle of a file. */
extern ssize_t (*age_read_hook)(int fd, void *buf, size_t n);
#endif
/* read(2), or the test hook in the test build. */
ssize_t age_sys_read(int fd, void *buf, size_t n);

#define TL_AGE_CHUNK       65536u
#define TL_AGE_TAG         16u
#define TL_AGE_HEADER_MAX  (256u * 1024u)   /* whole header, bytes          */
#define TL_AGE_LINE_MAX    4096u            /* one header line              */
#define TL_AGE_ARMOR_COLS  64u
#define TL_AGE_ARMOR_BEGIN "-----BEGIN AGE ENCRYPTED FILE-----"
#define TL_AGE_ARMOR_END   "-----END AGE ENCRYPTED FILE-----"

/* Buffered reads from a file descriptor. */
typedef struct {
    int     fd;
    int     eof;
    int     err;        /* sticky: a failed read fails every later one   */
    size_t  pos, len;
    uint8_t buf[16384];
} age_raw;

/* The byte stream of an age file: raw bytes, or bytes decoded from armor. */
typedef struct {
    age_raw raw;
    int     armored;
    int     done;           /* armor: END line seen and trailer checked   */
    int     last_line;      /* armor: a short or padded line was read     */
    size_t  dpos, dlen;
    uint8_t dec[48];
} age_in;

/* Output: raw or armored, buffered. */
typedef struct {
    int     fd;
    int     armored;
    size_t  alen;            /* pending armor input bytes (< 48)          */
    uint8_t abuf[48];
    size_t  olen;
    uint8_t obuf[8192];
} age_out;

void    age_in_init(age_in *in, int fd);   /* detects armor        */
/* Read up to n bytes; fewer only at end of stream.  >= 0 or TL_AGE_E*. */
ssize_t age_in_read(age_in *in, uint8_t *buf, size_t n);
/* One header line without its LF into line[cap] (NUL-terminated). *len is
 * its length.  TL_AGE_ETRUNC at EOF before LF, TL_AGE_EHEADER if longer. */
int     age_in_line(age_in *in, char *line, size_t cap, size_t *len);

int     age_out_init(age_out *o, int fd, int armor);
int     age_out_write(age_out *o, const void *p, size_t n);
int     age_out_finish(age_out *o);        /* armor footer, flush  */
void    age_out_wipe(age_out *o);

/* Canonical unpadded base64 of exactly want bytes.  0 / -1. */
int     age_b64_decode(const char *s, size_t slen, uint8_t *out, size_t want);

/* Header: write version, one X25519 stanza per recipient and the MAC for
 * file_key.  Parse: read the header from in, find a stanza that one of the
 * identities opens, verify the MAC, output the file key. */
int     age_header_write(age_out *o, const uint8_t file_key[16],
                            const uint8_t (*pks)[32], size_t npk,
                            const uint8_t (*pqs)[TL_AGE_PQ_RECIPIENT_BYTES], size_t npq);
int     age_header_read(age_in *in, const uint8_t (*sks)[32], size_t nsk,
                           const uint8_t (*seeds)[32], size_t nseed, uint8_t file_key[16]);

/* Identity strings (age_keys.c): 32 secret bytes in upper-case Bech32
 * under hrp (lower case when encoding, upper case when decoding), for the
 * X25519 and the post-quantum identity alike.  decode: TL_AGE_EKEY unless
 * exactly 32 bytes under HRP. */
int age_secret32_encode(const char *hrp, const uint8_t key[32], char out[TL_AGE_IDENTITY_MAX]);
int age_secret32_decode(const char *HRP, const char *s, uint8_t key[32]);

/* Write an identity file for recipient string rec and identity string id
 * (age_keys.c; both key kinds). */
int age_identity_file_emit(const char *path, const char *rec, const char *id,
                              const char *comment, int force);

/* ---- the mlkem768x25519 stanza (age_pq.c) ----------------------- */
#define TL_AGE_PQ_STANZA    "mlkem768x25519"
#define TL_AGE_PQ_ENC_BYTES 1120u           /* ML-KEM ct (1088) ‖ X25519 share (32) */
#define TL_AGE_PQ_ENC_B64   1494u           /* its unpadded base64 length             */
/* Wrap file_key to one recipient: enc and the 32-byte body.  0 / TL_AGE_E*. */
int age_pq_wrap(const uint8_t rcp[TL_AGE_PQ_RECIPIENT_BYTES], const uint8_t file_key[16],
                   uint8_t enc[TL_AGE_PQ_ENC_BYTES], uint8_t body[32]);
/* Try each identity seed on a decoded stanza: 1 = opened (file_key set),
 * 0 = not for these identities, TL_AGE_EHEADER for an all-zero X25519
 * share, other TL_AGE_E* on failure. */
int age_pq_unwrap(const uint8_t enc[TL_AGE_PQ_ENC_BYTES], const uint8_t body[32],
                     const uint8_t (*seeds)[32], size_t nseed, uint8_t file_key[16]);
#endif
