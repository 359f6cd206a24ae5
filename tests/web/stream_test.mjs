// SPDX-License-Identifier: ISC
// tests/web/stream_test.mjs — web/src/encrypt_stream.js under Node (bundled
// by tests/cli/test_web.sh): a file encrypted as a stream, binary and
// armored, opens with typage again to the same bytes; the armor's lines
// are 64 columns (the last one shorter) between the BEGIN / END lines;
// progress reaches the input's size; the armored text is returned only up
// to textMax.  Prints one "PASS what" / "FAIL what" line per check.
import * as age from 'age-encryption';
import { encryptToBlob } from '../../web/src/encrypt_stream.js';

let failed = 0;
const check = (ok, what) => { console.log(`${ok ? 'PASS' : 'FAIL'} ${what}`); if (!ok) failed++; };
const id = await age.generateIdentity();
const rcp = await age.identityToRecipient(id);
const open = async (ct) => { const d = new age.Decrypter(); d.addIdentity(id); return d.decrypt(ct, 'uint8array'); };
const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

for (const n of [0, 1, 47, 48, 49, 65536, 3 * 65536 + 1001]) {
  const data = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(data.subarray(i, i + 65536));
  let last = -1;
  const bin = await encryptToBlob(rcp, new Blob([data]), { onProgress: (done) => { last = done; } });
  check(same(await open(new Uint8Array(await bin.blob.arrayBuffer())), data) && bin.size === bin.blob.size,
    `binary, ${n} bytes: opens to the same bytes`);
  check(last === n, `binary, ${n} bytes: progress reaches the size (${last})`);
  const arm = await encryptToBlob(rcp, new Blob([data]), { armor: true, textMax: 4096 });
  const text = await arm.blob.text();
  const lines = text.split('\n');
  const body = lines.slice(1, -2);
  check(lines[0] === '-----BEGIN AGE ENCRYPTED FILE-----' && lines.at(-2) === '-----END AGE ENCRYPTED FILE-----' && lines.at(-1) === '',
    `armored, ${n} bytes: BEGIN and END lines, a final newline`);
  check(body.every((l, i) => (i < body.length - 1 ? l.length === 64 : l.length > 0 && l.length <= 64)),
    `armored, ${n} bytes: 64-column lines, the last shorter`);
  check(same(await open(age.armor.decode(text)), data), `armored, ${n} bytes: opens to the same bytes`);
  check(text.length <= 4096 ? arm.text === text : arm.text === null, `armored, ${n} bytes: the text returned only up to textMax`);
}
process.exit(failed ? 1 : 0);
