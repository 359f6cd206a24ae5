// SPDX-License-Identifier: ISC
// web/src/feed.js — the beacon feed in the browser (docs/FORMAT.md, "Beacon
// feed"): a strict parser for feed.json, canon(), the Ed25519 signature
// check against a pin (WebCrypto, else @noble/curves), the shape checks of
// the signed body, and the epoch choice rule for "encrypt to a date".
// No DOM here: tests/web/feed_test.mjs runs it under Node.
import { ed25519 } from '@noble/curves/ed25519.js';

export const FEED_MAX = 4 * 1024 * 1024;          // bytes of feed.json read at most
export const FEED_CONTEXT = 'rxlock/beacon-feed/v1';
const DEPTH_MAX = 16;

// A JSON parser that accepts only what canon() can write back: objects
// without duplicate keys, arrays, integers |n| < 2^53 (no fraction, no
// exponent, no leading zero), strings of printable ASCII without '"' or
// '\' (so no escape is ever read), true, false, null.  Whitespace between
// tokens is allowed (the file around the body need not be canonical).
export function parseStrict(text) {
  if (typeof text !== 'string') throw new Error('feed is not text');
  if (text.length > FEED_MAX) throw new Error(`feed is larger than ${FEED_MAX} bytes`);
  let i = 0;
  const fail = (why) => { throw new Error(`feed.json: ${why} at offset ${i}`); };
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i])) i++; };
  const value = (depth) => {
    if (depth > DEPTH_MAX) fail('nested too deeply');
    ws();
    const c = text[i];
    if (c === '{') {
      i++; const o = Object.create(null); ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) {
        ws(); if (text[i] !== '"') fail('expected a key');
        const k = str();
        if (Object.prototype.hasOwnProperty.call(o, k)) fail(`duplicate key "${k}"`);
        ws(); if (text[i] !== ':') fail('expected ":"'); i++;
        o[k] = value(depth + 1); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return o; }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++; const a = []; ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) {
        a.push(value(depth + 1)); ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return a; }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return str();
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(lit, i)) { i += lit.length; return v; }
    }
    const m = /^-?(0|[1-9][0-9]*)/.exec(text.slice(i, i + 24));
    if (!m) fail('unexpected character');
    if ('.eE'.includes(text[i + m[0].length] ?? '')) fail('only integers are allowed');
    const n = Number(m[0]);
    if (!Number.isSafeInteger(n) || m[0] === '-0') fail('integer out of range');
    i += m[0].length;
    return n;
  };
  const str = () => {
    const end = text.indexOf('"', i + 1);
    if (end < 0) fail('unterminated string');
    const s = text.slice(i + 1, end);
    if (!/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(s)) fail('string outside printable ASCII (or with an escape)');
    i = end + 1;
    return s;
  };
  const v = value(0); ws();
  if (i !== text.length) fail('trailing data');
  return v;
}

// canon(x): sorted keys (byte order: the strings are ASCII), no whitespace.
export function canon(x) {
  if (Array.isArray(x)) return '[' + x.map(canon).join(',') + ']';
  if (x !== null && typeof x === 'object') {
    return '{' + Object.keys(x).sort().map((k) => JSON.stringify(k) + ':' + canon(x[k])).join(',') + '}';
  }
  return JSON.stringify(x);
}

export function hexToBytes(hex, len) {
  if (typeof hex !== 'string' || hex.length !== 2 * len || !/^[0-9a-f]*$/.test(hex)) return null;
  const out = new Uint8Array(len);
  for (let k = 0; k < len; k++) out[k] = parseInt(hex.substr(2 * k, 2), 16);
  return out;
}

export function feedMessage(body) {
  return new TextEncoder().encode(FEED_CONTEXT + '\0' + canon(body));
}

// Ed25519: WebCrypto where the browser has it (a secure context with
// Ed25519), else @noble/curves (RFC 8032 strict, as libsodium).
export async function ed25519Verify(pub, sig, msg) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  let key = null;
  if (subtle) {
    try { key = await subtle.importKey('raw', pub, { name: 'Ed25519' }, false, ['verify']); } catch { key = null; }
  }
  if (key) return await subtle.verify({ name: 'Ed25519' }, key, sig, msg);
  try { return ed25519.verify(sig, msg, pub, { zip215: false }); } catch { return false; }
}

const isInt = (v) => Number.isSafeInteger(v);
const isHex = (v, n) => typeof v === 'string' && v.length === n && /^[0-9a-f]*$/.test(v);
const isPath = (v) => typeof v === 'string' && /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(v) &&
  !v.split('/').some((p) => p === '.' || p === '..');

// The body's shape (what this page relies on; other keys are allowed and
// ignored, they are covered by the signature all the same).  Throws with
// the first problem.
export function checkBody(b) {
  const need = (ok, what) => { if (!ok) throw new Error(`feed: ${what}`); };
  need(b && typeof b === 'object' && !Array.isArray(b), 'body is not an object');
  const bc = b.beacon;
  need(bc && typeof bc === 'object', 'no "beacon" object');
  need(isHex(bc.signer, 64), 'beacon.signer is not 64 hex digits');
  need(isInt(bc.every) && bc.every > 0, 'beacon.every is not a positive integer');
  need(isInt(bc.start), 'beacon.start is not an integer');
  need(Array.isArray(bc.kinds) && bc.kinds.length > 0 && bc.kinds.every((k) => k === 'classic' || k === 'pq'),
       'beacon.kinds is not a list of "classic" / "pq"');
  need(isInt(b.updated), '"updated" is not an integer');
  need(Array.isArray(b.epochs), '"epochs" is not a list');
  for (const e of b.epochs) {
    need(e && typeof e === 'object' && isInt(e.index) && e.index >= 0, 'an epoch without an integer index');
    const at = `epoch ${e.index}`;
    need(['scheduled', 'released', 'solved'].includes(e.state), `${at}: unknown state`);
    for (const t of ['release', 'encrypt_until', 'earliest_opening', 'about_opening']) {
      need(isInt(e[t]), `${at}: "${t}" is not an integer`);
    }
    need(Array.isArray(e.keys) && e.keys.length > 0, `${at}: no keys`);
    for (const k of e.keys) {
      need(k && (k.kind === 'classic' || k.kind === 'pq'), `${at}: a key of unknown kind`);
      const pre = k.kind === 'pq' ? 'age1pq1' : 'age1';
      need(typeof k.recipient === 'string' && k.recipient.startsWith(pre) &&
           (k.kind === 'pq' || !k.recipient.startsWith('age1pq1')) && /^[a-z0-9]+$/.test(k.recipient),
           `${at}: ${k.kind} recipient is not ${pre}...`);
      need(k.identity === null || k.identity === undefined || isPath(k.identity), `${at}: bad identity path`);
      if (k.puzzle) need(k.puzzle.path === null || isPath(k.puzzle.path), `${at}: bad puzzle path`);
      if (k.sealed) need(isPath(k.sealed.path), `${at}: bad sealed path`);
    }
  }
  return b;
}

// feed.json text -> { body, signer, status, note }.  status: 'pinned' (the
// signature verifies under the pin), 'unpinned' (it verifies under the
// feed's own signer, no pin given), 'bad' (it does not verify), 'pin-mismatch'
// (the feed names another signer than the pin).  Throws on a malformed feed.
export async function readFeed(text, pinHex) {
  const top = parseStrict(text);
  if (!top || typeof top !== 'object' || Array.isArray(top)) throw new Error('feed.json is not an object');
  if (top.rxlock_beacon_feed !== 1) throw new Error('not an rxlock beacon feed (version 1)');
  for (const k of Object.keys(top)) {
    if (!['rxlock_beacon_feed', 'feed', 'signature'].includes(k)) throw new Error(`feed.json: unknown key "${k}"`);
  }
  const body = checkBody(top.feed);
  const sig = hexToBytes(top.signature, 64);
  if (!sig) throw new Error('feed.json: signature is not 128 hex digits');
  const signer = body.beacon.signer;
  const pin = pinHex ? pinHex.toLowerCase() : null;
  const key = hexToBytes(pin || signer, 32);
  if (!key) throw new Error('the pin is not 64 hex digits');
  const good = await ed25519Verify(key, sig, feedMessage(body));
  let status;
  if (!good) status = 'bad';
  else if (!pin) status = 'unpinned';
  else status = pin === signer ? 'pinned' : 'pin-mismatch';
  return { body, signer, status };
}

// The epoch choice rule (the same as `rxlock encrypt --feed --open-after`):
// the earliest epoch whose earliest_opening >= when and whose encrypt_until
// has not passed (now < encrypt_until), among those with a key of `kind`.
export function chooseEpoch(body, when, kind, now) {
  let best = null;
  for (const e of body.epochs) {
    if (e.earliest_opening < when || !(now < e.encrypt_until)) continue;
    const key = e.keys.find((k) => k.kind === kind);
    if (!key) continue;
    if (!best || e.earliest_opening < best.epoch.earliest_opening ||
        (e.earliest_opening === best.epoch.earliest_opening && e.index < best.epoch.index)) {
      best = { epoch: e, key };
    }
  }
  return best;
}
