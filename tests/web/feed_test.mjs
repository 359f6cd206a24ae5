// SPDX-License-Identifier: ISC
// tests/web/feed_test.mjs — web/src/feed.js under Node (bundled by
// tests/cli/test_web.sh): the strict parser refuses what canon() could not
// write, canon() sorts keys, the signature verifies through WebCrypto and
// through @noble/curves alike and fails on a changed byte, a wrong pin or
// a changed body, floor_seconds read with either rounding (not a mix), the
// epoch choice rule (web/src/rule.js) picks as the CLI does, and signer
// continuity / no rollback (web/src/continuity.js) hold the next feed.
// Prints one "PASS what" / "FAIL what" line per check.
import { generateKeyPairSync, sign } from 'node:crypto';
import { parseStrict, canon, readFeed, ed25519Verify, feedMessage, hexToBytes } from '../../web/src/feed.js';
import { choose, feedSane, floorOf, floorNote, CHOICE_MARGIN, CLOCK_TOLERANCE } from '../../web/src/rule.js';
import { seenOf, continuity } from '../../web/src/continuity.js';

let failed = 0;
const check = (ok, what) => { console.log(`${ok ? 'PASS' : 'FAIL'} ${what}`); if (!ok) failed++; };
const throws = (f) => { try { f(); return false; } catch { return true; } };

// the parser
check(canon(parseStrict(' {"b":1, "a":[true,false,null,"x y"], "c":{"z":-3,"y":0}} ')) ===
      '{"a":[true,false,null,"x y"],"b":1,"c":{"y":0,"z":-3}}', 'canon sorts keys, no whitespace');
for (const [bad, why] of [['{"a":1,"a":2}', 'duplicate key'], ['{"a":1.5}', 'fraction'], ['{"a":1e3}', 'exponent'],
  ['{"a":9007199254740992}', '2^53'], ['{"a":"\\u0041"}', 'escape'], ['{"a":"\u00e9"}', 'non-ASCII'],
  ['{"a":"\t"}', 'control character'], ['{"a":01}', 'leading zero'], ['{"a":1} x', 'trailing data'],
  ['{"a":-0}', 'minus zero'], ['[' .repeat(40) + ']'.repeat(40), 'depth'], ['{"a":1,}', 'trailing comma']]) {
  check(throws(() => parseStrict(bad)), `parser refuses ${why}`);
}
check(parseStrict('{"n":9007199254740991}').n === 9007199254740991, 'parser takes 2^53 - 1');

// a signed feed
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const pub = Buffer.from(publicKey.export({ type: 'spki', format: 'der' }).subarray(-32)).toString('hex');
const rc = 'age1' + 'q'.repeat(58);
// G·S = 300 at 1 H/s: F = A = 300 s, every 100 s: seal_links 3
const epoch = (i) => ({ index: i, state: 'scheduled', release: 1000 + 100 * i, encrypt_until: 1000 + 100 * i,
  earliest_opening: 1300 + 100 * i, about_opening: 1300 + 100 * i,
  keys: [{ kind: 'classic', recipient: rc, puzzle: { path: null, sha256: '0'.repeat(64) },
           sealed: i ? { by: Math.max(0, i - 3), to: 'classic', path: `sealed/${i}.age`, sha256: '1'.repeat(64), opening: null } : null,
           identity: null }] });
const body = { beacon: { signer: pub, work: 'randomx-v2', groups: 1, steps: 300, every: 100, opens_after: 300, start: 1000,
  ahead: 4, kinds: ['classic'], floor: { rate_mhps: 1000, row: 'test' }, assumed_rate_mhps: 0, setup_ms: 0,
  floor_seconds: 300, about_seconds: 300, seal_links: 3 }, updated: 2000, epochs: [0, 1, 2, 3].map(epoch) };
const sig = sign(null, feedMessage(body), privateKey).toString('hex');
const text = JSON.stringify({ rxlock_beacon_feed: 1, feed: body, signature: sig }, null, 2);
check((await readFeed(text, pub)).status === 'pinned', 'pinned: verifies (WebCrypto)');
check((await readFeed(text, null)).status === 'unpinned', 'no pin: verifies under its own signer, unpinned');
check((await readFeed(text, 'ab'.repeat(32))).status === 'bad', 'another pin: bad');
check((await readFeed(text.replace('"updated": 2000', '"updated": 2001'), pub)).status === 'bad', 'a changed body: bad');
const flip = sig.slice(0, 10) + (sig[10] === '0' ? '1' : '0') + sig.slice(11);
check((await readFeed(text.replace(sig, flip), pub)).status === 'bad', 'a changed signature: bad');
check(await readFeed(text.replace('"rxlock_beacon_feed": 1', '"rxlock_beacon_feed": 3'), pub).then(() => false, () => true), 'version 3 refused');
check(await readFeed(text.replace('"kinds": [', '"kinds": ["other",'), pub).then(() => false, () => true), 'unknown kind refused');
const refused = async (f) => readFeed(JSON.stringify({ rxlock_beacon_feed: 1, feed: f(structuredClone(body)), signature: sig }), pub)
  .then(() => false, () => true);
check(await refused((b) => { b.epochs[1].earliest_opening -= 1; return b; }), 'times off the schedule refused');
check(await refused((b) => { b.beacon.floor_seconds = 200; return b; }), 'floor_seconds off the rates refused');
check(await refused((b) => { b.epochs[2].keys[0].sealed.by = 1; return b; }), 'a sealed.by off the sealing rule refused');
check(await refused((b) => { b.epochs[1].state = 'solved'; return b; }), 'a state the paths disagree with refused');
check(await refused((b) => { b.extra = 1; return b; }), 'an unknown key refused');
check(await refused((b) => { delete b.updated; return b; }), 'a missing key refused');
check(await refused((b) => { b.epochs[0].keys[0].identity = '../x'; return b; }), 'a path outside identities/ refused');
check(await refused((b) => { b.epochs.reverse(); return b; }), 'indices not increasing refused');
// F rounded down (300 hashes at 0.999 H/s: 300.3 s -> 300); a feed of
// before rounded up (301) and is read as written, but not a mix of the two
const signed = (b) => JSON.stringify({ rxlock_beacon_feed: 1, feed: b, signature: sign(null, feedMessage(b), privateKey).toString('hex') });
const rounding = (F, mix) => {
  const b = structuredClone(body);
  b.beacon.floor.rate_mhps = 999;
  b.beacon.floor_seconds = b.beacon.about_seconds = F;
  b.epochs.forEach((e) => { e.earliest_opening = e.about_opening = e.release + (mix && e.index === 2 ? 601 - F : F); });
  return signed(b);
};
check((await readFeed(rounding(300, false), pub)).status === 'pinned', 'floor_seconds rounded down reads');
check((await readFeed(rounding(301, false), pub)).status === 'pinned', 'a legacy feed, rounded up throughout, reads');
check(await readFeed(rounding(300, true), pub).then(() => false, () => true), 'a feed mixing the two roundings is refused');
// the @noble/curves path gives the same answers
const msg = feedMessage(body);
const saved = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true });
check(await ed25519Verify(hexToBytes(pub, 32), hexToBytes(sig, 64), msg), 'noble: verifies');
check(!(await ed25519Verify(hexToBytes(pub, 32), hexToBytes(flip, 64), msg)), 'noble: a changed signature fails');
check((await readFeed(text, pub)).status === 'pinned', 'noble: pinned');
Object.defineProperty(globalThis, 'crypto', saved);

// the choice rule (web/src/rule.js, as the C library's): state scheduled,
// release at least CHOICE_MARGIN after now and updated, earliest opening at
// the client's floor >= when; the clock and the feed's floor checked
const early = structuredClone(body);
early.updated = 900;
const noRow = floorOf(early.beacon, 0);        // a client without a row for the work: the feed's floor
const pick = (when, now, b = early, fl = noRow) => { const p = choose(b, when, 'classic', now, fl); return p.ok ? p.epoch.index : p.reason; };
check(pick(1250, 899) === 0, 'choice: the first epoch opening after the moment');
check(pick(1300, 899) === 0, 'choice: an opening equal to the moment counts');
check(pick(1301, 899) === 1, 'choice: the next one after');
check(pick(1250, 1000) === 1, 'choice: an epoch whose release has come is skipped');
check(pick(1250, 1000 - CHOICE_MARGIN + 1) === 1, 'choice: an epoch releasing within the margin is skipped');
check(pick(1250, 1000 - CHOICE_MARGIN) === 0, 'choice: one releasing just after the margin is taken');
check(pick(1601, 899) === 'no_epoch', 'choice: none opens that late');
check(!choose(early, 1250, 'pq', 899, noRow).ok, 'choice: no key of that kind');
check(pick(1250, 900 - CLOCK_TOLERANCE - 1) === 'clock_behind', 'choice: a clock behind updated by more than the tolerance refuses');
check(pick(1250, 900 - CLOCK_TOLERANCE) === 0, 'choice: within the tolerance it chooses');
const fromUpdated = structuredClone(early); fromUpdated.updated = 1000;
check(pick(1250, 899, fromUpdated) === 1, 'choice: release must also follow the feed\'s updated');
// the built-in floor row for randomx-v2 is far faster than the feed's 1 H/s:
// 300 hashes take 0 s there, so the opening is the release itself
check(floorOf(early.beacon).recomputed && floorOf(early.beacon).seconds === 0, 'floor: the client\'s row is faster: recomputed');
check(pick(1250, 899, early, floorOf(early.beacon)) === 3, 'choice: at the client\'s floor a later epoch holds the date');
check(/this client's floor is/.test(floorNote(early.beacon) || ''), 'floor: the note says both floors');
const released = structuredClone(early); released.epochs[1].state = 'released';
released.epochs[1].keys[0].puzzle.path = 'puzzles/1.json';
const rs = choose(released, 1250, 'classic', 899, noRow);
check(!rs.ok && rs.reason === 'field' && rs.field === 'epochs[1].state', 'sane: a puzzle published before its release time refused, naming the field');
const zero = structuredClone(early); zero.updated = 0;
check(choose(zero, 1250, 'classic', 899, noRow).field === 'updated', 'sane: updated 0 refused');

// a version-2 feed whose "about" is observed (400 s, above the 300 s
// floor): sealed.opening is derived with it, as tl_beacon_feed_derive
const v2 = structuredClone(body);
v2.updated = 1050;
v2.about = { seconds: 400, from: 'observed', samples: 3 };
v2.archive = { pages: 0, per_page: 1024 };
v2.epochs.forEach((e) => {
  e.about_opening = e.release + 400;
  e.keys.forEach((k) => { k.identity_at = null; if (k.sealed) k.sealed.opening = 1000 + 2 * 400; });
});
v2.epochs[0].state = 'released';
v2.epochs[0].keys[0].puzzle.path = 'puzzles/0.json';
const v2sig = sign(null, feedMessage(v2), privateKey).toString('hex');
const v2read = await readFeed(JSON.stringify({ rxlock_beacon_feed: 2, feed: v2, signature: v2sig }), pub).catch((e) => e);
check(v2read.status === 'pinned', `v2: an observed "about" reads (${v2read.message || v2read.status})`);
check(feedSane(v2, 1050) === null, 'sane: sealed.opening derived with the observed "about"');
const v2bad = structuredClone(v2); v2bad.epochs[2].keys[0].sealed.opening = 1000 + 2 * 300;
check(feedSane(v2bad, 1050)?.field === 'epochs[2].keys[0].sealed.opening', 'sane: one derived with the schedule\'s "about" instead is refused');

// what the page remembers (continuity.js's seenOf) and the rule it holds
// the next feed to, as the C library's tl_beacon_seen_of / _continuity
const later = structuredClone(early);
later.epochs[0].state = 'solved'; later.epochs[1].state = 'released';
const seen = seenOf(later);
check(seen.released_max === 1 && seen.solved_max === 0 && seen.signer === pub && seen.updated === 900,
  `seenOf: the highest released and solved epochs (${seen.released_max}, ${seen.solved_max})`);
check(continuity(seen, null, null, later) === null, 'continuity: the same feed again is fine');
const verdictOf = (b, pin = null, accept = null) => { const v = continuity(seen, pin, accept, b); return v ? `${v.reason} ${v.field}` : 'ok'; };
const back = structuredClone(later); back.epochs[1].state = 'scheduled';
check(verdictOf(back) === 'rollback epochs[1].state', 'continuity: an epoch back from released is a rollback');
const unsolved = structuredClone(later); unsolved.epochs[0].state = 'released';
check(verdictOf(unsolved) === 'rollback epochs[0].state', 'continuity: the last solved epoch back to released is a rollback');
const older = structuredClone(later); older.updated = 899;
check(verdictOf(older) === 'rollback updated', 'continuity: an older updated is a rollback');
const moved = structuredClone(later); moved.beacon.start = 999;
check(verdictOf(moved) === 'schedule_changed beacon.start', 'continuity: a moved start is a changed schedule');
const other = structuredClone(later); other.beacon.signer = 'ab'.repeat(32);
check(verdictOf(other) === 'signer_changed beacon.signer', 'continuity: another signer is refused');
check(verdictOf(other, null, 'ab'.repeat(32)) === 'ok', 'continuity: unless the user named that rotation');
const otherOlder = structuredClone(other); otherOlder.updated = 1; otherOlder.epochs[1].state = 'scheduled';
check(verdictOf(otherOlder, null, 'ab'.repeat(32)) === 'ok', 'continuity: an accepted rotation starts its own history');
check(continuity(null, 'cd'.repeat(32), null, later).reason === 'signer_changed', 'continuity: nothing seen, the pin decides');
process.exit(failed ? 1 : 0);
