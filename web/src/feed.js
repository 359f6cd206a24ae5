// SPDX-License-Identifier: ISC
// web/src/feed.js — the beacon feed in the browser (docs/FORMAT.md, "Beacon
// feed"): a strict parser for feed.json, canon(), the Ed25519 signature
// check against a pin (WebCrypto, else @noble/curves), the shape checks of
// the signed body, and the epoch choice rule for "encrypt to a date".
// No DOM here: tests/web/feed_test.mjs runs it under Node.
import { ed25519 } from '@noble/curves/ed25519.js';

export const FEED_MAX = 8 * 1024 * 1024;          // bytes of feed.json read at most
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

const MAX_TIME = 2 ** 53 - 2 ** 42;
const MAX_PERIOD = 2 ** 40;
const MAX_EPOCHS = { 1: 1024, 2: 2048 };  // listed in one feed, by version
const PAGE_EPOCHS = 1024;                  // index range of one archive page (v2)
const RECIPIENT_MAX = 1983;
const WORKS = ['randomx-v2', 'randomx-v1', 'sha3-256'];
const isInt = (v, lo, hi) => Number.isSafeInteger(v) && v >= lo && v <= hi;
const isHex = (v, n) => typeof v === 'string' && v.length === n && /^[0-9a-f]*$/.test(v);
// "dir/NAME", NAME of [0-9A-Za-z.-] without ".." (relative to public/)
const isPath = (v, dir) => typeof v === 'string' && v.startsWith(dir + '/') &&
  /^[0-9A-Za-z.-]+$/.test(v.slice(dir.length + 1)) && !v.includes('..');

function need(ok, what) { if (!ok) throw new Error(`feed: ${what}`); }
function exactKeys(o, keys, what) {
  need(o !== null && typeof o === 'object' && !Array.isArray(o), `${what} is not an object`);
  const have = Object.keys(o);
  for (const k of have) need(keys.includes(k), `${what}: unknown key "${k}"`);
  for (const k of keys) need(have.includes(k), `${what}: missing key "${k}"`);
}

// The schedule arithmetic (docs/FORMAT.md, "Beacon feed"), to check the
// times the feed lists against its own schedule.
function schedule(bc) {
  const total = BigInt(bc.groups) * BigInt(bc.steps);
  const F = (total * 1000n + BigInt(bc.floor.rate_mhps) - 1n) / BigInt(bc.floor.rate_mhps);
  let A = F;
  if (bc.assumed_rate_mhps) {
    const ms = (total * 1000000n + BigInt(bc.assumed_rate_mhps) - 1n) / BigInt(bc.assumed_rate_mhps) + BigInt(bc.setup_ms);
    A = (ms + 999n) / 1000n;
  }
  const k = F / BigInt(bc.every);
  return { F: Number(F), A: Number(A), k: Number(k) };
}

// The body, as strictly as rxlock's own reader: exact keys, types and
// bounds, keys one per kind in beacon.kinds' order, states that agree with
// the published paths, strictly increasing indices, times and sealing
// epochs that agree with the schedule.  Throws with the first problem.
export function checkBody(b, version = 1) {
  exactKeys(b, version >= 2 ? ['beacon', 'updated', 'epochs', 'about', 'archive'] : ['beacon', 'updated', 'epochs'], 'body');
  const bc = b.beacon;
  exactKeys(bc, ['signer', 'work', 'groups', 'steps', 'every', 'opens_after', 'start', 'ahead', 'kinds', 'floor',
    'assumed_rate_mhps', 'setup_ms', 'floor_seconds', 'about_seconds', 'seal_links'], 'beacon');
  exactKeys(bc.floor, ['rate_mhps', 'row'], 'beacon.floor');
  need(isHex(bc.signer, 64), 'beacon.signer is not 64 hex digits');
  need(WORKS.includes(bc.work), 'beacon.work is unknown');
  need(isInt(bc.groups, 1, 4096) && isInt(bc.steps, 1, 2 ** 40) && bc.groups * bc.steps <= 2 ** 48, 'beacon.groups / steps out of range');
  need(isInt(bc.every, 1, MAX_PERIOD) && isInt(bc.opens_after, 0, MAX_PERIOD), 'beacon.every / opens_after out of range');
  need(isInt(bc.start, 0, MAX_TIME - 1) && isInt(bc.ahead, 1, 1024), 'beacon.start / ahead out of range');
  need(isInt(bc.floor.rate_mhps, 1, 2 ** 53 - 1) && typeof bc.floor.row === 'string', 'beacon.floor out of range');
  need(isInt(bc.assumed_rate_mhps, 0, 2 ** 53 - 1) && isInt(bc.setup_ms, 0, 2 ** 40 - 1), 'beacon rates out of range');
  const kinds = bc.kinds;
  need(Array.isArray(kinds) && ['classic', 'pq', 'classic,pq'].includes(kinds.join()), 'beacon.kinds is not ["classic"], ["pq"] or ["classic","pq"]');
  const sch = schedule(bc);
  need(bc.floor_seconds === sch.F && bc.about_seconds === sch.A && bc.seal_links === sch.k,
       'floor_seconds / about_seconds / seal_links disagree with the schedule');
  need(isInt(b.updated, 0, MAX_TIME), '"updated" out of range');
  // v2: "about" (the schedule's, or observed from identity publication
  // times, never below the floor) and the archive pages' count
  let A = sch.A;
  if (version >= 2) {
    exactKeys(b.about, ['seconds', 'from', 'samples'], 'about');
    exactKeys(b.archive, ['pages', 'per_page'], 'archive');
    need(isInt(b.archive.pages, 0, 2 ** 53 - 1) && b.archive.per_page === PAGE_EPOCHS, 'archive out of range');
    need(isInt(b.about.seconds, 0, MAX_PERIOD) && isInt(b.about.samples, 0, 16), 'about out of range');
    if (b.about.from === 'observed') {
      need(!bc.assumed_rate_mhps && b.about.samples >= 1 && b.about.seconds >= sch.F, 'about: observed needs samples, no rate, at least the floor');
      A = b.about.seconds;
    } else {
      need(b.about.from === (bc.assumed_rate_mhps ? 'rate' : 'floor') && b.about.samples === 0 && b.about.seconds === sch.A,
           'about disagrees with the schedule');
    }
  }
  const maxIndex = version >= 2 ? Math.floor((MAX_TIME - bc.start) / bc.every) : 4000000;
  need(Array.isArray(b.epochs) && b.epochs.length <= MAX_EPOCHS[version], `"epochs" is not a list of at most ${MAX_EPOCHS[version]}`);
  let prev = -1;
  for (const e of b.epochs) {
    exactKeys(e, ['index', 'state', 'release', 'encrypt_until', 'earliest_opening', 'about_opening', 'keys'], 'epoch');
    need(isInt(e.index, 0, maxIndex) && e.index > prev, 'epoch indices are not strictly increasing');
    prev = e.index;
    const at = `epoch ${e.index}`;
    const release = bc.start + e.index * bc.every;
    need(e.release === release && e.encrypt_until === release && e.earliest_opening === release + sch.F &&
         e.about_opening === release + A, `${at}: its times disagree with the schedule`);
    need(['scheduled', 'released', 'solved'].includes(e.state), `${at}: unknown state`);
    need(Array.isArray(e.keys) && e.keys.length === kinds.length, `${at}: want ${kinds.length} key(s)`);
    let released = 0, solved = 0;
    e.keys.forEach((k, q) => {
      exactKeys(k, version >= 2 ? ['kind', 'recipient', 'puzzle', 'sealed', 'identity', 'identity_at']
        : ['kind', 'recipient', 'puzzle', 'sealed', 'identity'], `${at}: key`);
      need(version < 2 || k.identity_at === null || (isInt(k.identity_at, 1, MAX_TIME) && k.identity !== null), `${at}: identity_at`);
      need(k.kind === kinds[q], `${at}: keys not one per kind in order`);
      const re = k.kind === 'pq' ? /^age1pq1[02-9ac-hj-np-z]+$/ : /^age1[02-9ac-hj-np-z]{58}$/;
      need(typeof k.recipient === 'string' && k.recipient.length <= RECIPIENT_MAX && re.test(k.recipient),
           `${at}: not a ${k.kind} age recipient`);
      exactKeys(k.puzzle, ['path', 'sha256'], `${at}: puzzle`);
      need(k.puzzle.path === null || isPath(k.puzzle.path, 'puzzles'), `${at}: puzzle.path: want puzzles/NAME`);
      need(isHex(k.puzzle.sha256, 64), `${at}: puzzle.sha256 is not 64 hex digits`);
      need(k.identity === null || isPath(k.identity, 'identities'), `${at}: identity: want identities/NAME`);
      const seal = e.index >= 1 && sch.k >= 1 ? Math.max(0, e.index - sch.k) : null;
      // null: operator-only (or its sealing epoch was never generated)
      if (k.sealed !== null) {
        exactKeys(k.sealed, ['by', 'to', 'path', 'sha256', 'opening'], `${at}: sealed`);
        need(k.sealed.by === seal, `${at}: sealed.by breaks the sealing rule`);
        need(k.sealed.to === (kinds.includes('pq') ? 'pq' : 'classic'), `${at}: sealed.to`);
        need(isPath(k.sealed.path, 'sealed') && isHex(k.sealed.sha256, 64), `${at}: sealed.path / sha256`);
        need(k.sealed.opening === null || isInt(k.sealed.opening, 0, MAX_TIME), `${at}: sealed.opening`);
      }
      released += k.puzzle.path !== null;
      solved += k.identity !== null;
    });
    const state = solved === kinds.length ? 'solved' : released === kinds.length ? 'released' : 'scheduled';
    need(state === e.state, `${at}: state disagrees with its keys`);
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
  const version = top.rxlock_beacon_feed;
  if (version !== 1 && version !== 2) throw new Error('not an rxlock beacon feed (version 1 or 2)');
  for (const k of Object.keys(top)) {
    if (!['rxlock_beacon_feed', 'feed', 'signature'].includes(k)) throw new Error(`feed.json: unknown key "${k}"`);
  }
  const body = checkBody(top.feed, version);
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

// An archive page (feed version 2; docs/FORMAT.md, "Archive pages"):
// archive/K.json, K = floor(E / 1024) for an epoch E the feed no longer
// lists while K < body.archive.pages.  Checked against the feed that led
// to it: page number K, the feed's schedule (identical), the signature by
// the feed's signer over "rxlock/beacon-archive/v1" NUL canon(page body),
// and every epoch as in a version-2 feed, within the page's range.
// Returns the page body (its epochs) or throws.
export const ARCHIVE_CONTEXT = 'rxlock/beacon-archive/v1';
export function archivePath(index) { return `archive/${Math.floor(index / PAGE_EPOCHS)}.json`; }
export async function readArchivePage(text, feedBody, K) {
  const top = parseStrict(text);
  need(top && typeof top === 'object' && !Array.isArray(top), 'archive page is not an object');
  exactKeys(top, ['page', 'rxlock_beacon_archive', 'signature'], 'archive page');
  need(top.rxlock_beacon_archive === 1, 'not an rxlock archive page (version 1)');
  const p = top.page;
  exactKeys(p, ['about', 'beacon', 'epochs', 'page'], 'archive page body');
  need(p.page === K, `archive page ${p.page} where page ${K} was asked for`);
  need(canon(p.beacon) === canon(feedBody.beacon), "the archive page's schedule is not the feed's");
  checkBody({ beacon: p.beacon, updated: 0, epochs: p.epochs, about: p.about, archive: { pages: 0, per_page: PAGE_EPOCHS } }, 2);
  for (const e of p.epochs) need(Math.floor(e.index / PAGE_EPOCHS) === K, `epoch ${e.index} is outside page ${K}`);
  const sig = hexToBytes(top.signature, 64);
  need(sig, 'archive page: signature is not 128 hex digits');
  const msg = new TextEncoder().encode(ARCHIVE_CONTEXT + '\0' + canon(p));
  need(await ed25519Verify(hexToBytes(feedBody.beacon.signer, 32), sig, msg), "the archive page's signature does not verify with the feed's signer");
  return p;
}
