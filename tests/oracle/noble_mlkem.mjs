// SPDX-License-Identifier: ISC
// tests/oracle/noble_mlkem.mjs — @noble/post-quantum's ML-KEM-768 as a test
// oracle for src/pq (test only; the package lives in $NPM_DIR, never in the
// repository).  Usage:
//   node noble_mlkem.mjs gen N OUT.tsv   N random cases: seed, m, random ct and
//                                        noble's ek, dk, ct, ss, K(random ct)
//   node noble_mlkem.mjs check IN.tsv    rows "dk ct ss" made by rxlock:
//                                        noble must decapsulate ct to ss
// Prints "N passed, N failed" for check.
import { readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const dir = process.env.NPM_DIR;
const { ml_kem768 } = await import(pathToFileURL(`${dir}/node_modules/@noble/post-quantum/ml-kem.js`).href);
const hex = (b) => Buffer.from(b).toString('hex');
const unhex = (s) => new Uint8Array(Buffer.from(s, 'hex'));
const [mode, arg1, arg2] = process.argv.slice(2);

if (mode === 'gen') {
  const n = Number(arg1);
  const rows = ['# @noble/post-quantum ml_kem768 (test oracle)', 'seed\tm\trct\tek\tdk\tct\tss\tss_rej'];
  for (let i = 0; i < n; i++) {
    const seed = randomBytes(64), m = randomBytes(32), rct = randomBytes(1088);
    const { publicKey, secretKey } = ml_kem768.keygen(seed);
    const { cipherText, sharedSecret } = ml_kem768.encapsulate(publicKey, m);
    const rej = ml_kem768.decapsulate(rct, secretKey);
    rows.push([seed, m, rct, publicKey, secretKey, cipherText, sharedSecret, rej].map(hex).join('\t'));
  }
  writeFileSync(arg2, rows.join('\n') + '\n');
} else if (mode === 'check') {
  let pass = 0, fail = 0;
  for (const line of readFileSync(arg1, 'utf8').split('\n')) {
    if (!line || line.startsWith('#') || line.startsWith('dk\t')) continue;
    const [dk, ct, ss] = line.split('\t');
    const got = hex(ml_kem768.decapsulate(unhex(ct), unhex(dk)));
    if (got === ss) pass++; else { fail++; console.error(`noble decapsulated ${got}, rxlock encapsulated ${ss}`); }
  }
  console.log(`${pass} passed, ${fail} failed`);
  process.exit(fail ? 1 : 0);
} else {
  console.error('usage: noble_mlkem.mjs gen N OUT | check IN');
  process.exit(2);
}
