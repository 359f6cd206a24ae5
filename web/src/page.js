// SPDX-License-Identifier: ISC
// web/src/page.js — what the page's parts share: the page's state (the
// feed in use and the last one that verified), the DOM helpers (elements,
// times, result boxes, live regions, downloads), bounded fetches of the
// beacon's own files and the input files' bound.
import { fmtTime, fmtCountdown, nowSec } from './time.js';

export const INPUT_MAX = 256 * 1024 * 1024;      // bytes the page encrypts / decrypts at most
export const $ = (id) => document.getElementById(id);
// body / status: the feed in use; good: the last one that verified (kept
// when a later one fails); kept: the one shown is that kept one
export const st = { body: null, status: null, good: null, kept: false, offered: null, urls: {}, lastText: null, lastPin: null };
export const STATE_TEXT = { scheduled: 'scheduled', released: 'released', solved: 'solved' };
export const KIND_TEXT = { classic: 'classic', pq: 'post-quantum' };

export function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of kids) if (c !== null && c !== undefined) e.append(c);
  return e;
}

export function timeEl(sec) {
  return el('time', { datetime: new Date(sec * 1000).toISOString(), title: fmtTime(sec, true), text: fmtTime(sec) });
}

export function countdownEl(sec) {
  return el('span', { class: 'countdown', 'data-at': String(sec), text: fmtCountdown(sec, nowSec()) });
}

export function say(id, kind, ...parts) {
  const box = $(id);
  box.replaceChildren(...parts.map((p) => (typeof p === 'string' ? document.createTextNode(p) : p)));
  box.dataset.kind = kind;
  delete box.dataset.reason;
  delete box.dataset.field;
  box.className = `result ${kind}`;
}

// path's bytes (at most max); with missing, null when the server has no
// such file (HTTP 404)
export async function fetchBounded(path, max, missing = false) {
  let resp;
  try {
    resp = await fetch(path, { cache: 'no-store', credentials: 'same-origin', redirect: 'error' });
  } catch (e) {
    throw new Error(`${path} is unreachable (${e.message}); is the beacon's server up?`);
  }
  if (missing && resp.status === 404) return null;
  if (!resp.ok) throw new Error(`${path}: the server answered HTTP ${resp.status}`);
  const len = Number(resp.headers.get('content-length') || 0);
  if (len > max) throw new Error(`${path} is larger than ${max} bytes`);
  const buf = new Uint8Array(await resp.arrayBuffer());
  if (buf.length > max) throw new Error(`${path} is larger than ${max} bytes`);
  return buf;
}

// Replace a live region's content only when its text changes (a screen
// reader announces every change).
export function setLive(box, ...parts) {
  const next = document.createElement('span');
  next.append(...parts);
  if (box.textContent !== next.textContent) box.replaceChildren(...next.childNodes);
}

export function offerDownload(slot, data, name, type) {
  if (st.urls[slot]) URL.revokeObjectURL(st.urls[slot]);
  st.urls[slot] = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type }));
  return el('a', { href: st.urls[slot], download: name, id: `${slot}-download`, class: 'download', text: `Download ${name}` });
}

export function inputFile(input) {
  const f = input.files && input.files[0];
  if (!f) return null;
  if (f.size > INPUT_MAX) throw new Error(`${f.name} is larger than ${INPUT_MAX / (1024 * 1024)} MiB`);
  return f;
}
