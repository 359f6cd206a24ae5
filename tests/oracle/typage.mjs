// SPDX-License-Identifier: ISC
// tests/oracle/typage.mjs — typage (npm age-encryption 0.3.1) as an
// independent age implementation for interop tests (test only; the package
// lives in $NPM_DIR, never in the repository).  Usage:
//   node typage.mjs keygen ID_FILE        hybrid identity to ID_FILE, recipient on stdout
//   node typage.mjs encrypt RECIPIENT IN OUT
//   node typage.mjs decrypt ID_FILE IN OUT   (first AGE-SECRET-KEY line of ID_FILE;
//                                           armored input is recognised)
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const age = await import(pathToFileURL(`${process.env.NPM_DIR}/node_modules/age-encryption/dist/index.js`).href);
const [mode, a, b, c] = process.argv.slice(2);
const identityIn = (f) => readFileSync(f, 'utf8').split('\n').find((l) => l.startsWith('AGE-SECRET-KEY-'));

if (mode === 'keygen') {
  const id = await age.generateHybridIdentity();
  writeFileSync(a, id + '\n', { mode: 0o600 });
  console.log(await age.identityToRecipient(id));
} else if (mode === 'encrypt') {
  const e = new age.Encrypter();
  e.addRecipient(a);
  writeFileSync(c, await e.encrypt(new Uint8Array(readFileSync(b))));
} else if (mode === 'decrypt') {
  const d = new age.Decrypter();
  d.addIdentity(identityIn(a));
  let file = new Uint8Array(readFileSync(b));
  const text = Buffer.from(file).toString('latin1');
  if (text.startsWith('-----BEGIN AGE ENCRYPTED FILE-----')) file = age.armor.decode(text);
  writeFileSync(c, await d.decrypt(file, 'uint8array'));
} else {
  console.error('usage: typage.mjs keygen ID | encrypt RCP IN OUT | decrypt ID IN OUT');
  process.exit(2);
}
