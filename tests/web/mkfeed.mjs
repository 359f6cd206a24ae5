// SPDX-License-Identifier: ISC
// tests/web/mkfeed.mjs — a beacon public directory made by the test itself
// (docs/FORMAT.md, "Beacon feed"): three epochs around now (0 solved with
// its identities published, 1 released, 2 scheduled), each with a classic
// and a post-quantum key from `rxlock keygen`, and feed.json signed with a
// fresh Ed25519 key (Node's crypto).  Usage:
//   node mkfeed.mjs make PUBDIR KEYDIR NOW       writes PUBDIR, the pin to KEYDIR/pin
//   node mkfeed.mjs solve PUBDIR KEYDIR E        epoch E solved, its identities published, re-signed
//   node mkfeed.mjs tamper PUBDIR                changes a time in the signed body, not re-signed
// KEYDIR holds eE-classic.key / eE-classic.rcp and eE-pq.key / eE-pq.rcp
// for E = 0, 1, 2, and the signer (signer.pem) once made.
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
    k.identity = `identities/${e}-${k.kind}.txt`;
    copyFileSync(`${keydir}/e${e}-${k.kind}.key`, `${pub}/${k.identity}`);
  }
}

if (mode === 'make') {
  const [keydir, now] = [arg2, Number(arg3)];
  const s = signer(keydir);
  writeFileSync(`${keydir}/pin`, s.hex + '\n');
  const every = 3600;
  const epochs = [0, 1, 2].map((e) => {
    const release = now - 7200 + e * 6600;            // 0: 2 h ago, 1: 10 min ago, 2: in 1 h 40 min
    return {
      index: e, state: e === 0 ? 'released' : e === 1 ? 'released' : 'scheduled',
      release, encrypt_until: release + 4 * 3600, earliest_opening: release + 3 * 3600 + 600,
      about_opening: release + 4 * 3600,
      keys: ['classic', 'pq'].map((kind) => {
        const rcp = readFileSync(`${keydir}/e${e}-${kind}.rcp`, 'utf8').trim();
        const puzzle = e === 2 ? null : `puzzles/${e}-${kind}.json`;
        return { kind, recipient: rcp, identity: null,
                 puzzle: { path: puzzle, sha256: createHash('sha256').update(rcp).digest('hex') }, sealed: null };
      }),
    };
  });
  // epoch 0 already solved (a past epoch: its encrypt_until has passed)
  epochs[0].encrypt_until = now - 60; epochs[0].earliest_opening = now - 1800; epochs[0].about_opening = now - 600;
  const body = {
    beacon: { signer: s.hex, work: 'randomx-v2', every, opens_after: 3 * 3600 + 600, start: now - 7200,
              kinds: ['classic', 'pq'], floor: { rate: 1200, row: 'test' }, assumed_rate: 1200 },
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
  f.feed.epochs[1].earliest_opening -= 3600;       // opens "sooner": the lie a tamperer wants
  writeFileSync(feedPath, JSON.stringify(f, null, 1) + '\n');
} else {
  console.error('usage: mkfeed.mjs make PUBDIR KEYDIR NOW | solve PUBDIR KEYDIR E | tamper PUBDIR');
  process.exit(2);
}
