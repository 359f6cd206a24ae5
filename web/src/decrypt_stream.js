// SPDX-License-Identifier: ISC
// web/src/decrypt_stream.js — decrypts an age file with the given
// identities as a stream (typage), into a Blob for download: a binary
// file is read from its Blob chunk by chunk, so that the ciphertext is
// never held whole beside the plaintext; an armored one (Uint8Array, the
// caller decoded its armor) is read from those bytes.  The plaintext is
// offered only once the whole file has decrypted and authenticated (a
// damaged or cut file throws, and none of it is returned).
// onProgress(done, total) is called with the input bytes consumed, and the
// tab stays responsive (the loop yields to the event loop every YIELD_MS).
// The text is returned too when the plaintext is UTF-8 of at most textMax
// bytes.
import * as age from 'age-encryption';

const YIELD_MS = 25;
const CHUNK = 64 * 1024;

// bytes as a stream of views into them (no copy)
function bytesStream(bytes) {
  let off = 0;
  return new ReadableStream({
    pull(ctl) {
      if (off >= bytes.length) { ctl.close(); return; }
      ctl.enqueue(bytes.subarray(off, off + CHUNK));
      off += CHUNK;
    },
  });
}

export async function decryptToBlob(identities, input, { onProgress = null, textMax = 0 } = {}) {
  const total = input instanceof Blob ? input.size : input.length;
  let done = 0;
  const counted = (input instanceof Blob ? input.stream() : bytesStream(input)).pipeThrough(new TransformStream({
    transform(chunk, ctl) { done += chunk.length; if (onProgress) onProgress(done, total); ctl.enqueue(chunk); },
  }));
  const d = new age.Decrypter();
  for (const id of identities) d.addIdentity(id);
  // the header (recipients, MAC) is read here: "no identity matched" throws now
  const reader = (await d.decrypt(counted)).getReader();
  const parts = [];
  let size = 0, lastYield = Date.now();
  for (;;) {
    if (Date.now() - lastYield >= YIELD_MS) { await new Promise((r) => setTimeout(r, 0)); lastYield = Date.now(); }
    const { done: end, value } = await reader.read();
    if (end) break;
    parts.push(value);
    size += value.length;
  }
  if (onProgress) onProgress(total, total);
  const blob = new Blob(parts, { type: 'application/octet-stream' });
  let text = null;
  if (size <= textMax) {
    try { text = new TextDecoder('utf-8', { fatal: true }).decode(await blob.arrayBuffer()); } catch { text = null; }
  }
  return { blob, size, text };
}
