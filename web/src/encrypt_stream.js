// SPDX-License-Identifier: ISC
// web/src/encrypt_stream.js — encrypts a Blob (a file or a message) to one
// age recipient as a stream (typage), into a Blob for download, without
// ever holding the whole output as one string: the ASCII armor (age's
// armor: "-----BEGIN AGE ENCRYPTED FILE-----", base64 lines of 64
// columns, "-----END AGE ENCRYPTED FILE-----") is written 48 bytes of
// ciphertext per line as the chunks come; onProgress(done, total) is
// called with the input bytes consumed, and the page stays responsive
// (every chunk is an await).  The armored text is returned too when it is
// at most textMax characters (a short message to paste into a mail).
import * as age from 'age-encryption';

const BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----\n';
const END = '-----END AGE ENCRYPTED FILE-----\n';

// 48·n bytes -> n base64 lines of 64 columns, each ended by "\n"
function armorLines(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 48) {
    let bin = '';
    const line = bytes.subarray(i, Math.min(i + 48, bytes.length));
    for (let k = 0; k < line.length; k++) bin += String.fromCharCode(line[k]);
    out += btoa(bin) + '\n';
  }
  return out;
}

export async function encryptToBlob(recipient, input, { armor = false, onProgress = null, textMax = 0 } = {}) {
  const total = input.size;
  let done = 0;
  const counted = input.stream().pipeThrough(new TransformStream({
    transform(chunk, ctl) { done += chunk.length; if (onProgress) onProgress(done, total); ctl.enqueue(chunk); },
  }));
  const e = new age.Encrypter();
  e.addRecipient(recipient);
  const reader = (await e.encrypt(counted)).getReader();
  const parts = [];
  let size = 0, text = armor ? BEGIN : null;
  let carry = new Uint8Array(0);
  const push = (p) => {
    parts.push(p); size += p.length;
    if (text !== null) text = size <= textMax ? text + p : null;
  };
  if (armor) { parts.push(BEGIN); size += BEGIN.length; }
  for (;;) {
    const { done: end, value } = await reader.read();
    if (end) break;
    if (!armor) { parts.push(value); size += value.length; continue; }
    let buf = value;
    if (carry.length) { buf = new Uint8Array(carry.length + value.length); buf.set(carry); buf.set(value, carry.length); }
    const whole = buf.length - (buf.length % 48);
    if (whole) push(armorLines(buf.subarray(0, whole)));
    carry = buf.slice(whole);
  }
  if (armor) {
    if (carry.length) push(armorLines(carry));
    push(END);
  }
  if (onProgress) onProgress(total, total);
  const blob = new Blob(parts, { type: armor ? 'text/plain' : 'application/octet-stream' });
  return { blob, size, text };
}
