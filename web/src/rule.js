// SPDX-License-Identifier: ISC
// web/src/rule.js — what the page checks itself before it believes a
// signed feed about time (docs/SECURITY.md, "What a beacon client
// checks"), the same rule as the C library's src/lock/beacon/trust.c: the
// client's own floor (the faster of its built-in row for the work and the
// feed's, exact integer arithmetic, openings rounded to the earlier whole
// second), the sane ranges of the signed numbers (`updated`, published
// puzzles against releases, the window against `ahead`, sealed.opening
// derived again), and the checked choice rule (state `scheduled` only, release at
// least CHOICE_MARGIN after both this clock and `updated`).  Every refusal
// is a verdict { reason, field, message } whose reason keyword and field
// are the C library's (the conformance corpus, tests/vectors/feed-corpus/,
// fixes both).  No DOM, no storage: tests/web/ runs it under Node and in
// Chromium.
import { FLOOR_ROWS } from 'rxlock-floor-rows';   // generated from src/lock/measure/floor.c (make web)

export { FLOOR_ROWS };
export const CHOICE_MARGIN = 5;                 // s: release after now and updated by this
export const CLOCK_TOLERANCE = 300;             // s: this machine's clock behind `updated`
export const FUTURE_MAX = 366 * 86400;          // s: `updated` further ahead is a false field

export const verdict = (reason, field, message) => ({ ok: false, reason, field, message });

// "50m", "2h05m", "7d00h": how far apart two clocks are (as the C client)
export function fmtSpan(s) {
  s = Math.abs(s);
  const p2 = (n) => String(n).padStart(2, '0');
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h${p2(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86400)}d${p2(Math.floor((s % 86400) / 3600))}h`;
}
const date = (t) => new Date(t * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

// ---- the client's floor -----------------------------------------------------

// The client's row for a work in milli-hashes/s (rounded up: the faster);
// 0 when the table has none.  rows: FLOOR_ROWS, or a test's.
export const tableMhps = (work, rows = FLOOR_ROWS) => (rows[work] ? rows[work].rate_mhps : 0);

// The floor the client holds the feed to: the faster of the feed's signed
// row and the client's; seconds = floor(G·S·1000 / mhps), the whole seconds
// the floor machine surely needs (never a second late).
export function floorOf(bc, clientMhps = tableMhps(bc.work)) {
  const feedMhps = bc.floor.rate_mhps;
  const recomputed = clientMhps > feedMhps;
  const mhps = Math.max(1, recomputed ? clientMhps : feedMhps);
  const seconds = Number((BigInt(bc.groups) * BigInt(bc.steps) * 1000n) / BigInt(mhps));
  return { feedMhps, clientMhps, mhps, seconds, recomputed };
}

// release(E) + the floor's seconds: the client's own earliest opening of E.
export const floorOpening = (bc, fl, e) => bc.start + e.index * bc.every + fl.seconds;

// The feed's floor against the client's, said plainly (null when the
// client's row is not faster).
export function floorNote(bc, fl = floorOf(bc), rows = FLOOR_ROWS) {
  if (!fl.recomputed) return null;
  const hs = (m) => `${(m / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 })} H/s`;
  const own = rows[bc.work] ? ` (${rows[bc.work].row})` : '';
  return `the feed assumes ${hs(fl.feedMhps)} (${bc.floor.row}); this client's floor is ${hs(fl.clientMhps)}${own}: ` +
    'earliest opening recomputed';
}

// ---- the schedule (docs/FORMAT.md, "Schedule arithmetic") ------------------

// "about": a version-2 feed's (the schedule's, or observed from identity
// publication times), else the schedule's; feed.js checked either
const aboutSeconds = (body) => (body.about ? body.about.seconds : body.beacon.about_seconds);
const sealLinks = (bc) => bc.seal_links;
// seal(E): the sealing epoch, or null (operator-only)
export function seal(bc, E) {
  const k = sealLinks(bc);
  if (E === 0 || k === 0) return null;
  return E > k ? E - k : 0;
}

// Epoch E's availability through sealed paths alone (the feed's
// sealed.opening derivation): its time, or null when the chain ends at an
// unreleased operator-only epoch.
function available(body, byIndex, E) {
  const bc = body.beacon;
  const A = aboutSeconds(body);
  let hops = 0;
  for (;;) {
    const e = byIndex.get(E);
    const released = e ? e.state !== 'scheduled'
      : bc.start + E * bc.every <= body.updated && (body.epochs.length === 0 || E < body.epochs[0].index);
    if (released) return bc.start + E * bc.every + hops * A;
    const j = seal(bc, E);
    if (j === null) return null;
    E = j;
    hops++;
  }
}

// What sealed.opening should be for epoch e (null for none).
function sealedOpening(body, byIndex, e) {
  const A = aboutSeconds(body);
  const j = seal(body.beacon, e.index);
  if (j === null) return null;
  const at = available(body, byIndex, j);
  return at === null ? null : at + 2 * A;
}

// ---- sane ranges --------------------------------------------------------------

// null when the feed's signed numbers are sane for a client whose clock
// reads `now`, else a verdict naming the field.
export function feedSane(body, now) {
  const bc = body.beacon;
  if (body.updated <= 0) return verdict('field', 'updated', 'the feed\'s "updated" is 0: no beacon wrote it');
  if (body.updated > now + FUTURE_MAX) {
    return verdict('field', 'updated', `the feed's "updated" (${date(body.updated)}) is more than a year ahead of ` +
      'this machine\'s clock: a false field');
  }
  if (body.updated > now + CLOCK_TOLERANCE) {
    return verdict('clock_behind', 'updated', `this machine's clock is ${fmtSpan(body.updated - now)} behind the ` +
      `beacon's (the feed was written ${date(body.updated)}): set the clock right, then try again`);
  }
  // the generated window: a beacon generates the `ahead` epochs from the
  // first one not yet released (n0; epoch 0 before the start)
  const n0 = body.updated < bc.start ? 0 : Math.floor((body.updated - bc.start) / bc.every) + 1;
  const horizon = bc.start + (n0 + bc.ahead - 1) * bc.every;
  for (const [k, e] of body.epochs.entries()) {
    // a beacon publishes a puzzle at its release, never before; a solve
    // alone may come early (a sealed path, a floor beaten)
    if (e.keys.some((x) => x.puzzle.path !== null) && e.release > body.updated) {
      return verdict('field', `epochs[${k}].state`, `epoch ${e.index}'s puzzle is published before its release time ` +
        `(${date(e.release)}; the feed was written ${date(body.updated)})`);
    }
    if (e.release > horizon) {
      return verdict('field', 'ahead', `epoch ${e.index} lies beyond the ${bc.ahead} epochs generated ahead when the ` +
        'feed was written');
    }
  }
  const byIndex = new Map(body.epochs.map((e) => [e.index, e]));
  for (const [k, e] of body.epochs.entries()) {
    const want = sealedOpening(body, byIndex, e);
    for (const [q, key] of e.keys.entries()) {
      const have = key.sealed === null ? undefined : key.sealed.opening;
      const should = key.sealed === null ? undefined : want;
      if (have !== should) {
        return verdict('field', `epochs[${k}].keys[${q}].sealed.opening`, `epoch ${e.index}: sealed.opening ` +
          'disagrees with the schedule and the released epochs');
      }
    }
  }
  return null;
}

// ---- the choice rule ----------------------------------------------------------

// THE choice rule, checked: feedSane, then the earliest listed epoch in
// state `scheduled`, with a key of `kind`, whose release is at least
// CHOICE_MARGIN after both now and `updated`, and whose earliest opening at
// the client's floor fl is at or after t.  -> { ok: true, epoch, key,
// earliest } or a verdict (no_epoch when none can hold t).
export function choose(body, t, kind, now, fl = floorOf(body.beacon)) {
  const bad = feedSane(body, now);
  if (bad) return bad;
  const bc = body.beacon;
  const after = Math.max(now, body.updated) + CHOICE_MARGIN;
  let last = null;
  for (const e of body.epochs) {
    if (e.state !== 'scheduled' || e.release < after) continue;
    const key = e.keys.find((x) => x.kind === kind);
    if (!key) continue;
    const op = floorOpening(bc, fl, e);
    last = op;
    if (op >= t) return { ok: true, epoch: e, key, earliest: op };
  }
  if (last === null) {
    return verdict('no_epoch', '', `no epoch of the feed is still scheduled to release after ${date(after)} ` +
      '(the beacon may have stopped; only its operator can release what it lists)');
  }
  return verdict('no_epoch', '', `no scheduled epoch opens at or after ${date(t)} at this client's floor: the ` +
    `latest listed opens no sooner than ${date(last)}`);
}

// ---- what the page says of an epoch -----------------------------------------

// An operator-only epoch: no sealed release (only the operator can publish
// its puzzle).
export const operatorOnly = (e) => e.keys.every((k) => k.sealed === null);

// A beacon that looks dead: its feed was last written more than two
// periods before now (it rewrites the feed at every release).
export const feedStale = (body, now) => now - body.updated > 2 * body.beacon.every;
