/* SPDX-License-Identifier: ISC */
/* src/cli/keys/keys_cli.h — what the keys room's commands (keygen,
 * keygen-signer, encrypt, decrypt) share beyond the shared CLI: the
 * `--feed` modes of encrypt and decrypt (feed_client.c), which encrypt.c and
 * decrypt.c hand over to. */
#ifndef RXLOCK_CLI_KEYS_H
#define RXLOCK_CLI_KEYS_H
/* `rxlock encrypt --feed` / `rxlock decrypt --feed` (feed_client.c). */
int cmd_encrypt_feed(int argc, char **argv);
int cmd_decrypt_feed(int argc, char **argv);
#endif
