// SPDX-License-Identifier: ISC
// tests/web/feed_test.mjs — web/src/feed.js under Node (bundled by
// tests/cli/test_web.sh): the strict parser refuses what canon() could not
// write, canon() sorts keys, the signature verifies through WebCrypto and
// through @noble/curves alike and fails on a changed byte, a wrong pin or
// a changed body, and the epoch choice rule picks as the CLI does.
// Prints one "PASS what" / "FAIL what" line per check.
import { generateKeyPairSync, sign } from 'node:crypto';
import { parseStrict, canon, readFeed, chooseEpoch, ed25519Verify, feedMessage, hexToBytes } from '../../web/src/feed.js';

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
// the @noble/curves path gives the same answers
const msg = feedMessage(body);
const saved = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true });
check(await ed25519Verify(hexToBytes(pub, 32), hexToBytes(sig, 64), msg), 'noble: verifies');
check(!(await ed25519Verify(hexToBytes(pub, 32), hexToBytes(flip, 64), msg)), 'noble: a changed signature fails');
check((await readFeed(text, pub)).status === 'pinned', 'noble: pinned');
Object.defineProperty(globalThis, 'crypto', saved);

// the epoch choice rule: earliest earliest_opening >= when, now < encrypt_until
const pick = (when, now) => { const p = chooseEpoch(body, when, 'classic', now); return p ? p.epoch.index : null; };
check(pick(1250, 999) === 0, 'choice: the first epoch opening after the moment');
check(pick(1300, 999) === 0, 'choice: earliest_opening equal to the moment counts');
check(pick(1301, 999) === 1, 'choice: the next one after');
check(pick(1250, 1000) === 1, 'choice: an epoch whose encrypt_until has come is skipped');
check(pick(1601, 999) === null, 'choice: none opens that late');
check(chooseEpoch(body, 1250, 'pq', 1000) === null, 'choice: no key of that kind');
process.exit(failed ? 1 : 0);
