// SPDX-License-Identifier: ISC
// tests/web/stream_test.mjs — web/src/encrypt_stream.js and
// decrypt_stream.js under Node (bundled by tests/cli/test_web.sh): a file
// encrypted as a stream, binary and armored, opens with typage again to
// the same bytes, and with decryptToBlob (from a Blob, and from the bytes
// of decoded armor); the armor's lines are 64 columns (the last one
// shorter) between the BEGIN / END lines; progress reaches the input's
// size; the armored text (and the decrypted one) is returned only up to
// textMax; decryptToBlob refuses another identity's file and a cut or
// flipped one, returning nothing.  Prints one "PASS what" / "FAIL what"
// line per check.
import * as age from 'age-encryption';
import { encryptToBlob } from '../../web/src/encrypt_stream.js';
import { decryptToBlob } from '../../web/src/decrypt_stream.js';

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
  let dlast = -1;
  const dec = await decryptToBlob([id], bin.blob, { onProgress: (done) => { dlast = done; } });
  check(dec.size === n && same(new Uint8Array(await dec.blob.arrayBuffer()), data), `decryptToBlob, ${n} bytes from a Blob: the same bytes`);
  check(dlast === bin.size, `decryptToBlob, ${n} bytes: progress reaches the file's size (${dlast})`);
  const adec = await decryptToBlob([id], age.armor.decode(text));
  check(adec.size === n && same(new Uint8Array(await adec.blob.arrayBuffer()), data), `decryptToBlob, ${n} bytes from decoded armor: the same bytes`);
}
// decryptToBlob: the text only for UTF-8 up to textMax; refusals
const msg = new TextEncoder().encode('a short message\n');
const small = (await encryptToBlob(rcp, new Blob([msg]))).blob;
check((await decryptToBlob([id], small, { textMax: 1024 })).text === 'a short message\n', 'decryptToBlob: a short UTF-8 text is returned');
check((await decryptToBlob([id], small, { textMax: 4 })).text === null, 'decryptToBlob: no text over textMax');
check((await decryptToBlob([id], (await encryptToBlob(rcp, new Blob([new Uint8Array([0xff, 0xfe])]))).blob, { textMax: 1024 })).text === null,
  'decryptToBlob: no text for bytes that are not UTF-8');
const refused = async (ids, blob) => { try { await decryptToBlob(ids, blob); return ''; } catch (e) { return e.message; } };
check(/no identity matched/i.test(await refused([await age.generateIdentity()], small)), 'decryptToBlob: another identity\'s file is refused (no identity matched)');
const big = new Uint8Array(3 * 65536 + 1001);
const bigCt = new Uint8Array(await (await encryptToBlob(rcp, new Blob([big]))).blob.arrayBuffer());
check((await refused([id], new Blob([bigCt.subarray(0, bigCt.length - 2000)]))) !== '', 'decryptToBlob: a cut file is refused');
const flipped = bigCt.slice();
flipped[flipped.length - 70000] ^= 1;
check((await refused([id], new Blob([flipped]))) !== '', 'decryptToBlob: a flipped byte in the payload is refused');
process.exit(failed ? 1 : 0);
