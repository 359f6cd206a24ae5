// SPDX-License-Identifier: ISC
// web/src/encrypt_stream.js — encrypts a Blob (a file or a message) to one
// age recipient as a stream (typage), into a Blob for download, without
// ever holding the whole output as one string: the ASCII armor (age's
// armor: "-----BEGIN AGE ENCRYPTED FILE-----", base64 lines of 64
// columns, "-----END AGE ENCRYPTED FILE-----") is written as the chunks
// come; onProgress(done, total) is called with the input bytes consumed,
// and the tab stays responsive (the loop yields to the event loop every
// YIELD_MS).  The armored text is returned too when it is at most textMax
// characters (a short message to paste into a mail).
import * as age from 'age-encryption';

const BEGIN = '-----BEGIN AGE ENCRYPTED FILE-----\n';
const END = '-----END AGE ENCRYPTED FILE-----\n';
const YIELD_MS = 25;

// bytes -> base64 lines of 64 columns, each ended by "\n" (48 bytes a
// line; only the last line of a file may be shorter)
function armorLines(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 8190) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 8190));
  const b64 = btoa(bin);
  const lines = [];
  for (let i = 0; i < b64.length; i += 64) lines.push(b64.slice(i, i + 64));
  return lines.join('\n') + '\n';
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
  let lastYield = Date.now();
  for (;;) {
    // the stream's awaits are microtasks, which never let the tab paint or
    // answer: give the event loop a turn at least every YIELD_MS
    if (Date.now() - lastYield >= YIELD_MS) { await new Promise((r) => setTimeout(r, 0)); lastYield = Date.now(); }
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
