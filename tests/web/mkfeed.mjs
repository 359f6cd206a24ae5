// SPDX-License-Identifier: ISC
// tests/web/mkfeed.mjs — a beacon public directory made by the test itself
// (docs/FORMAT.md, "Beacon feed"): six epochs of an hourly schedule around
// now (0 solved with its identities published, 1-3 released, 4-5
// scheduled), each with a classic and a post-quantum key from `rxlock
// keygen`, and feed.json signed with a fresh Ed25519 key (Node's crypto).
// Only the files the page reads are written (no puzzles, no sealed files).  Usage:
//   node mkfeed.mjs make PUBDIR KEYDIR NOW       writes PUBDIR, the pin to KEYDIR/pin
//   node mkfeed.mjs solve PUBDIR KEYDIR E        epoch E solved, its identities published, re-signed
//   node mkfeed.mjs tamper PUBDIR                changes a time in the signed body, not re-signed
// KEYDIR holds eE-classic.key / eE-classic.rcp and eE-pq.key / eE-pq.rcp
// for E = 0 ... 5, and the signer (signer.pem) once made.
import { readFileSync, writeFileSync, mkdirSync, copyFileSync, existsSync } from 'node:fs';
import { createHash, generateKeyPairSync, createPrivateKey, createPublicKey, sign } from 'node:crypto';

const [mode, pub, arg2, arg3] = process.argv.slice(2);
const canon = (x) => Array.isArray(x) ? '[' + x.map(canon).join(',') + ']'
  : x !== null && typeof x === 'object'
    ? '{' + Object.keys(x).sort().map((k) => JSON.stringify(k) + ':' + canon(x[k])).join(',') + '}'
    : JSON.stringify(x);
const feedPath = `${pub}/feed.json`;

function signer(keydir) {
  const pem = `${keydir}/signer.pem`;
  if (!existsSync(pem)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    writeFileSync(pem, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  const priv = createPrivateKey(readFileSync(pem));
  const raw = createPublicKey(priv).export({ type: 'spki', format: 'der' }).subarray(-32);
  return { priv, hex: Buffer.from(raw).toString('hex') };
}

function write(body, keydir) {
  const s = signer(keydir);
  const msg = Buffer.concat([Buffer.from('rxlock/beacon-feed/v1\0'), Buffer.from(canon(body))]);
  const sig = sign(null, msg, s.priv).toString('hex');
  // not canonical around the body, on purpose: readers must not need it
  writeFileSync(feedPath, JSON.stringify({ rxlock_beacon_feed: 1, feed: body, signature: sig }, null, 1) + '\n');
}

function publishIdentities(body, e, keydir) {
  mkdirSync(`${pub}/identities`, { recursive: true });
  const ep = body.epochs.find((x) => x.index === e);
  ep.state = 'solved';
  for (const k of ep.keys) {
    k.puzzle.path = `puzzles/${e}-${k.kind}.json`;
    k.identity = `identities/${e}-${k.kind}.txt`;
    copyFileSync(`${keydir}/e${e}-${k.kind}.key`, `${pub}/${k.identity}`);
  }
}

if (mode === 'make') {
  // G = 1, S = 22.8 M at a floor of 2000 H/s (faster than the page's own
  // row for randomx-v2, so nothing is recomputed): F = 11400 s, A = 14250 s
  // at 1600 H/s, every hour: seal_links 3.  Epochs 0 ... 5, released every
  // hour from 3 h 30 min ago: 0 solved, 1-3 released, 4-5 scheduled.
  const [keydir, now] = [arg2, Number(arg3)];
  const s = signer(keydir);
  writeFileSync(`${keydir}/pin`, s.hex + '\n');
  const every = 3600, F = 11400, A = 14250, k = 3, start = now - 12600;
  const release = (e) => start + e * every;
  const epochs = [0, 1, 2, 3, 4, 5].map((e) => ({
    index: e, state: e <= 3 ? 'released' : 'scheduled',
    release: release(e), encrypt_until: release(e), earliest_opening: release(e) + F, about_opening: release(e) + A,
    keys: ['classic', 'pq'].map((kind) => {
      const rcp = readFileSync(`${keydir}/e${e}-${kind}.rcp`, 'utf8').trim();
      const by = e >= 1 ? Math.max(0, e - k) : null;
      return { kind, recipient: rcp,
               puzzle: { path: e <= 3 ? `puzzles/${e}-${kind}.json` : null, sha256: createHash('sha256').update(rcp).digest('hex') },
               sealed: by === null ? null : { by, to: 'pq', path: `sealed/${e}-${kind}.age`,
                                              sha256: createHash('sha256').update(`${e}${kind}`).digest('hex'), opening: release(by) + 2 * A },
               identity: null };
    }),
  }));
  const body = {
    beacon: { signer: s.hex, work: 'randomx-v2', groups: 1, steps: 22800000, every, opens_after: F, start, ahead: 2,
              kinds: ['classic', 'pq'], floor: { rate_mhps: 2000000, row: 'test machine' },
              assumed_rate_mhps: 1600000, setup_ms: 0, floor_seconds: F, about_seconds: A, seal_links: k },
    updated: now, epochs,
  };
  mkdirSync(pub, { recursive: true });
  publishIdentities(body, 0, keydir);
  write(body, keydir);
} else if (mode === 'solve') {
  const body = JSON.parse(readFileSync(feedPath, 'utf8')).feed;
  publishIdentities(body, Number(arg3), arg2);
  write(body, arg2);
} else if (mode === 'tamper') {
  const f = JSON.parse(readFileSync(feedPath, 'utf8'));
  f.feed.beacon.floor.rate_mhps *= 2;              // "opens sooner": the lie a tamperer wants
  for (const e of f.feed.epochs) { e.earliest_opening -= f.feed.beacon.floor_seconds / 2; }
  f.feed.beacon.floor_seconds /= 2;
  f.feed.beacon.seal_links = Math.floor(f.feed.beacon.floor_seconds / f.feed.beacon.every);
  for (const e of f.feed.epochs) for (const k of e.keys) if (k.sealed) k.sealed.by = Math.max(0, e.index - f.feed.beacon.seal_links);
  writeFileSync(feedPath, JSON.stringify(f, null, 1) + '\n');
} else {
  console.error('usage: mkfeed.mjs make PUBDIR KEYDIR NOW | solve PUBDIR KEYDIR E | tamper PUBDIR');
  process.exit(2);
}
