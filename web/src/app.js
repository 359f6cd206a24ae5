// SPDX-License-Identifier: ISC
// web/src/app.js — the beacon page's behaviour: loads feed.json (checked by
// feed.js), shows the signature status and every epoch with live
// countdowns, encrypts text or a file to the epoch chosen for a date, and
// decrypts once the epoch's identity is published.  All crypto runs here
// (typage); the page fetches only feed.json and identities/ of its own
// server (the Content-Security-Policy in index.html allows nothing else).
import * as age from 'age-encryption';
import { readFeed, chooseEpoch, FEED_MAX } from './feed.js';
import { fmtTime, fmtCountdown, nowSec } from './time.js';

const IDENTITY_MAX = 64 * 1024;           // bytes of an identity file
const INPUT_MAX = 256 * 1024 * 1024;      // bytes the page encrypts / decrypts at most
const $ = (id) => document.getElementById(id);
const st = { body: null, status: null, urls: {}, lastText: null, lastPin: null };

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v; else if (k === 'text') e.textContent = v; else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of kids) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function timeEl(sec) {
  return el('time', { datetime: new Date(sec * 1000).toISOString(), title: fmtTime(sec, true), text: fmtTime(sec) });
}

function countdownEl(sec) {
  return el('span', { class: 'countdown', 'data-at': String(sec), text: fmtCountdown(sec, nowSec()) });
}

function say(id, kind, ...parts) {
  const box = $(id);
  box.replaceChildren(...parts.map((p) => (typeof p === 'string' ? document.createTextNode(p) : p)));
  box.dataset.kind = kind;
  box.className = `result ${kind}`;
}

// ---- the feed --------------------------------------------------------------

function pinFromFragment() {
  const m = /(?:^#|&)pin=([0-9a-fA-F]{64})(?:&|$)/.exec(location.hash);
  return m ? m[1].toLowerCase() : '';
}

async function fetchBounded(path, max) {
  let resp;
  try {
    resp = await fetch(path, { cache: 'no-store', credentials: 'same-origin', redirect: 'error' });
  } catch (e) {
    throw new Error(`${path} is unreachable (${e.message}); is the beacon's server up?`);
  }
  if (!resp.ok) throw new Error(`${path}: the server answered HTTP ${resp.status}`);
  const len = Number(resp.headers.get('content-length') || 0);
  if (len > max) throw new Error(`${path} is larger than ${max} bytes`);
  const buf = new Uint8Array(await resp.arrayBuffer());
  if (buf.length > max) throw new Error(`${path} is larger than ${max} bytes`);
  return buf;
}

function banner(status, text) {
  const b = $('feed-banner');
  b.dataset.status = status;
  b.className = `banner ${status}`;
  b.textContent = text;
}

// quiet: the periodic refresh; it changes nothing unless feed.json did,
// and keeps what is shown when the server is briefly unreachable.
async function loadFeed(quiet = false) {
  const pin = $('pin').value.trim().toLowerCase();
  if (pin && !/^[0-9a-f]{64}$/.test(pin)) {
    if (quiet) return;
    $('pin').setAttribute('aria-invalid', 'true');
    banner('error', 'The pin must be 64 hex digits (the beacon signer\'s public key).');
    return;
  }
  $('pin').removeAttribute('aria-invalid');
  if (!quiet) banner('loading', 'Loading the beacon\'s feed…');
  let feed, text;
  try {
    const bytes = await fetchBounded('feed.json', FEED_MAX);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    if (quiet) return;
    st.body = null; st.status = 'error'; st.lastText = null;
    banner('error', `The beacon's feed cannot be used: ${e.message}`);
    render();
    return;
  }
  if (quiet && text === st.lastText && pin === st.lastPin) { updateEncryptChoice(); return; }
  st.lastText = text; st.lastPin = pin;
  try {
    feed = await readFeed(text, pin || null);
  } catch (e) {
    st.body = null; st.status = 'error';
    banner('error', `The beacon's feed cannot be used: ${e.message}`);
    render();
    return;
  }
  st.body = feed.body; st.status = feed.status;
  const short = feed.signer.slice(0, 16) + '…';
  if (feed.status === 'pinned') {
    banner('pinned', `✔ Feed signature verified against the pin (signer ${short}).`);
  } else if (feed.status === 'unpinned') {
    banner('unpinned', `⚠ Warning: not pinned. The feed is signed by the key it names (${short}), ` +
      'but nothing ties that key to the beacon you mean: whoever controls this server could have made it. ' +
      'Get the beacon\'s pin from someone you trust and enter it above (or open the page with #pin=…).');
  } else {
    banner('bad', '✖ Warning: the feed\'s signature does NOT verify' + (pin ? ' against the pin' : '') +
      '. It may have been tampered with: do not encrypt to it. Encryption is disabled.');
  }
  render();
}

// ---- the epochs ------------------------------------------------------------

const STATE_TEXT = { scheduled: 'scheduled', released: 'released', solved: 'solved' };
const STATE_HELP = { scheduled: 'generated; its puzzle is published at its release time',
  released: 'its puzzle is public: being solved', solved: 'its identity is published' };
const KIND_TEXT = { classic: 'classic', pq: 'post-quantum' };

function render() {
  const b = st.body;
  const rows = $('epoch-rows');
  rows.replaceChildren();
  if (!b) {
    rows.append(el('tr', {}, el('td', { colspan: '7', text: 'No epochs: the feed could not be read.' })));
    $('beacon-about').textContent = '';
    updateEncryptChoice();
    fillDecryptEpochs();
    return;
  }
  const bc = b.beacon;
  $('beacon-about').replaceChildren(`One epoch every ${fmtDuration(bc.every)}, ${bc.work}, ` +
    `kinds: ${bc.kinds.map((k) => KIND_TEXT[k]).join(' and ')}; feed updated `, timeEl(b.updated), '.');
  const epochs = [...b.epochs].sort((x, y) => x.index - y.index);
  if (!epochs.length) rows.append(el('tr', {}, el('td', { colspan: '7', text: 'This beacon has no epochs yet.' })));
  for (const e of epochs) {
    const recips = el('ul', { class: 'keys' });
    const ids = el('ul', { class: 'keys' });
    for (const k of e.keys) {
      recips.append(el('li', {}, el('span', { class: 'kind', text: KIND_TEXT[k.kind] + ': ' }),
        el('code', { class: 'recipient', title: k.recipient, text: k.recipient })));
      if (e.state === 'solved' && k.identity) {
        ids.append(el('li', {}, el('a', { href: k.identity, download: true, text: `${KIND_TEXT[k.kind]} identity` })));
      }
    }
    if (!ids.childElementCount) {
      ids.append(el('li', { class: 'hint' }, 'expected about ', timeEl(e.about_opening)));
    }
    rows.append(el('tr', { 'data-epoch': String(e.index), 'data-state': e.state },
      el('th', { scope: 'row', 'data-label': 'Epoch', text: String(e.index) }),
      el('td', { 'data-label': 'State' }, el('span', { class: `state ${e.state}`, title: STATE_HELP[e.state], text: STATE_TEXT[e.state] })),
      el('td', { 'data-label': 'Released' }, timeEl(e.release)),
      el('td', { 'data-label': 'Earliest opening' }, timeEl(e.earliest_opening), el('br'), countdownEl(e.earliest_opening)),
      el('td', { 'data-label': 'About' }, timeEl(e.about_opening), el('br'), countdownEl(e.about_opening), sealedNote(e)),
      el('td', { 'data-label': 'Recipients' }, recips),
      el('td', { 'data-label': 'Identity' }, ids)));
  }
  for (const kind of ['classic', 'pq']) {
    const r = $(`enc-kind-${kind}`);
    r.disabled = !bc.kinds.includes(kind);
    if (r.disabled && r.checked) $(`enc-kind-${bc.kinds[0]}`).checked = true;
  }
  updateEncryptChoice();
  fillDecryptEpochs();
}

// The sealed release: when the epoch opens should the operator publish
// nothing more (its puzzle is sealed to an earlier epoch's key).
function sealedNote(e) {
  const ops = e.keys.map((k) => k.sealed && k.sealed.opening).filter((t) => t !== null && t !== undefined);
  if (!ops.length) return null;
  return el('div', { class: 'hint sealed', title: 'The puzzle is sealed to an earlier epoch: it opens even if the beacon stops' },
    'without the operator: about ', timeEl(Math.max(...ops)));
}

function fmtDuration(s) {
  for (const [n, u] of [[86400, 'day'], [3600, 'hour'], [60, 'minute']]) {
    if (s % n === 0) return s === n ? `${u}` : `${s / n} ${u}s`;
  }
  return `${s} seconds`;
}

function tick() {
  const now = nowSec();
  for (const c of document.querySelectorAll('.countdown')) c.textContent = fmtCountdown(Number(c.dataset.at), now);
}

// ---- encrypt ---------------------------------------------------------------

function requestedMoment() {
  const v = $('enc-when').value;
  if (!v) return null;
  const t = new Date(v).getTime();     // datetime-local: the browser's local time
  return Number.isFinite(t) ? Math.floor(t / 1000) : null;
}

function currentChoice() {
  const when = requestedMoment();
  const kind = document.querySelector('input[name="kind"]:checked').value;
  if (!st.body || when === null) return { when, kind, pick: null };
  return { when, kind, pick: chooseEpoch(st.body, when, kind, nowSec()) };
}

// Replace a live region's content only when its text changes (a screen
// reader announces every change).
function setLive(box, ...parts) {
  const next = document.createElement('span');
  next.append(...parts);
  if (box.textContent !== next.textContent) box.replaceChildren(...next.childNodes);
}

function updateEncryptChoice() {
  const say1 = (...parts) => setLive($('enc-choice'), ...parts);
  const go = $('enc-go');
  go.disabled = !st.body || st.status === 'bad' || st.status === 'pin-mismatch';
  if (!st.body) { say1('Encryption needs the beacon\'s feed.'); return; }
  if (go.disabled) { say1('Encryption is disabled: the feed\'s signature does not verify.'); return; }
  const { when, kind, pick } = currentChoice();
  if (when === null) { say1('Pick the date and time the message may open.'); return; }
  if (!pick) {
    say1(`No ${KIND_TEXT[kind]} epoch of this beacon opens at or after that moment yet; ` +
      'pick an earlier date, or come back when later epochs are scheduled.');
    return;
  }
  const e = pick.epoch;
  say1(`Epoch ${e.index}: opens no earlier than `, timeEl(e.earliest_opening), ', about ', timeEl(e.about_opening), '.');
}

async function readInputFile(input) {
  const f = input.files && input.files[0];
  if (!f) return null;
  if (f.size > INPUT_MAX) throw new Error(`${f.name} is larger than ${INPUT_MAX / (1024 * 1024)} MiB`);
  return { name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) };
}

function offerDownload(slot, bytes, name, type) {
  if (st.urls[slot]) URL.revokeObjectURL(st.urls[slot]);
  st.urls[slot] = URL.createObjectURL(new Blob([bytes], { type }));
  return el('a', { href: st.urls[slot], download: name, id: `${slot}-download`, class: 'download', text: `Download ${name}` });
}

async function doEncrypt(ev) {
  ev.preventDefault();
  $('enc-armored-field').hidden = true;
  try {
    const { when, pick } = currentChoice();
    if (!st.body) throw new Error('the beacon\'s feed is not loaded');
    if (when === null) throw new Error('pick the date and time the message may open');
    if (!pick) throw new Error('no epoch of this beacon opens at or after that moment');
    let data, base;
    if ($('enc-what-file').checked) {
      const f = await readInputFile($('enc-file'));
      if (!f) throw new Error('choose a file to encrypt');
      data = f.bytes; base = f.name;
    } else {
      const text = $('enc-text').value;
      if (!text) throw new Error('type a message to encrypt');
      data = new TextEncoder().encode(text); base = 'message.txt';
    }
    const e = new age.Encrypter();
    e.addRecipient(pick.key.recipient);
    const ct = await e.encrypt(data);
    const armored = $('enc-armor').checked;
    const name = `${base}.epoch-${pick.epoch.index}.age`;
    const out = armored ? age.armor.encode(ct) : ct;
    // the note `rxlock decrypt --feed` reads beside the file (docs/FORMAT.md,
    // "Files encrypted to a beacon")
    const note = JSON.stringify({ rxlock_beacon_ref: 1, layers: [{
      feed: new URL('.', location.href).href.replace(/\/$/, ''), signer: st.body.beacon.signer, epoch: pick.epoch.index,
      kind: pick.key.kind, recipient: pick.key.recipient, earliest_opening: pick.epoch.earliest_opening }] }, null, 1) + '\n';
    say('enc-result', 'ok', `Encrypted to epoch ${pick.epoch.index} (${KIND_TEXT[pick.key.kind]}); it opens no earlier than `,
      timeEl(pick.epoch.earliest_opening), ', about ', timeEl(pick.epoch.about_opening), '. ',
      offerDownload('enc', out, name, armored ? 'text/plain' : 'application/octet-stream'), ' ',
      offerDownload('enc-note', note, `${name}.beacon`, 'application/json'),
      el('span', { class: 'hint', text: ' (keep it beside the file: rxlock decrypt --feed reads it)' }));
    if (armored) { $('enc-armored').value = out; $('enc-armored-field').hidden = false; }
  } catch (err) {
    say('enc-result', 'error', `Cannot encrypt: ${err.message}.`);
  }
}

// ---- decrypt ---------------------------------------------------------------

function fillDecryptEpochs() {
  const sel = $('dec-epoch');
  const keep = sel.value;
  sel.replaceChildren(el('option', { value: '', text: 'From the file name, else every solved epoch' }));
  for (const e of (st.body ? [...st.body.epochs].sort((x, y) => x.index - y.index) : [])) {
    sel.append(el('option', { value: String(e.index), text: `Epoch ${e.index} (${STATE_TEXT[e.state]})` }));
  }
  sel.value = [...sel.options].some((o) => o.value === keep) ? keep : '';
}

async function identityFor(e, key) {
  const bytes = await fetchBounded(key.identity, IDENTITY_MAX);
  const text = new TextDecoder().decode(bytes);
  const id = text.split('\n').map((l) => l.trim()).find((l) => l.startsWith('AGE-SECRET-KEY-'));
  if (!id) throw new Error(`${key.identity} holds no age identity`);
  // The published identity must be the epoch's: its recipient is the feed's.
  if ((await age.identityToRecipient(id)) !== key.recipient) {
    throw new Error(`the identity published for epoch ${e.index} does not match its recipient`);
  }
  return id;
}

function notYet(e) {
  return [`Epoch ${e.index} is not solved yet: its identity is expected about `, timeEl(e.about_opening),
    ' (no earlier than ', timeEl(e.earliest_opening), '). Come back then.'];
}

async function doDecrypt(ev) {
  ev.preventDefault();
  $('dec-text-field').hidden = true;
  try {
    if (!st.body) throw new Error('the beacon\'s feed is not loaded');
    const f = await readInputFile($('dec-file'));
    if (!f) throw new Error('choose the encrypted file');
    let ct = f.bytes;
    const head = new TextDecoder('latin1').decode(ct.subarray(0, 64)).trimStart();
    if (head.startsWith('-----BEGIN AGE ENCRYPTED FILE-----')) {
      try { ct = age.armor.decode(new TextDecoder('latin1').decode(ct)); } catch (e) {
        throw new Error(`${f.name} is a damaged armored age file (${e.message})`);
      }
    } else if (!head.startsWith('age-encryption.org/v1\n')) {
      throw new Error(`${f.name} is not an age file; pick the .age file you were given`);
    }
    const epochs = st.body.epochs;
    let chosen = $('dec-epoch').value;
    if (!chosen) {
      const m = /\.epoch-(\d+)\.age$/.exec(f.name);
      if (m && epochs.some((e) => String(e.index) === m[1])) chosen = m[1];
    }
    let tryEpochs = chosen ? epochs.filter((e) => String(e.index) === chosen) : epochs;
    const unsolved = tryEpochs.filter((e) => e.state !== 'solved');
    tryEpochs = tryEpochs.filter((e) => e.state === 'solved');
    if (!tryEpochs.length) {
      if (chosen) { say('dec-result', 'wait', ...notYet(unsolved[0])); return; }
      const next = [...epochs].sort((x, y) => x.about_opening - y.about_opening)[0];
      if (next) { say('dec-result', 'wait', 'No epoch of this beacon is solved yet. ', ...notYet(next)); return; }
      throw new Error('this beacon has no epochs');
    }
    const d = new age.Decrypter();
    for (const e of tryEpochs) for (const k of e.keys) if (k.identity) d.addIdentity(await identityFor(e, k));
    let pt;
    try {
      pt = await d.decrypt(ct, 'uint8array');
    } catch (e) {
      if (/no identity matched/i.test(e.message)) {
        const pending = unsolved.sort((x, y) => x.about_opening - y.about_opening)[0];
        if (pending && !chosen) {
          say('dec-result', 'wait', `${f.name} does not open with any solved epoch's identity. If it was encrypted ` +
            'to a later epoch, it opens once that epoch is solved; the next is expected about ', timeEl(pending.about_opening), '.');
          return;
        }
        throw new Error(`${f.name} was not encrypted to ${chosen ? `epoch ${chosen}` : 'any solved epoch'} of this beacon`);
      }
      throw new Error(`${f.name} is damaged or not an age file (${e.message})`);
    }
    const outName = f.name.replace(/(\.epoch-\d+)?\.age$/, '') || 'decrypted';
    say('dec-result', 'ok', `Decrypted ${f.name} (${pt.length} bytes). `,
      offerDownload('dec', pt, outName === f.name ? `${f.name}.out` : outName, 'application/octet-stream'));
    let text = null;
    try { text = pt.length <= 1024 * 1024 ? new TextDecoder('utf-8', { fatal: true }).decode(pt) : null; } catch { text = null; }
    if (text !== null) { $('dec-text').value = text; $('dec-text-field').hidden = false; }
  } catch (err) {
    say('dec-result', 'error', `Cannot decrypt: ${err.message}.`);
  }
}

// ---- wiring ----------------------------------------------------------------

function init() {
  $('pin').value = pinFromFragment();
  const off = -new Date().getTimezoneOffset();
  const hh = String(Math.floor(Math.abs(off) / 60)).padStart(2, '0');
  const mm = String(Math.abs(off) % 60).padStart(2, '0');
  $('enc-tz').textContent = `(your local time, UTC${off < 0 ? '−' : '+'}${hh}:${mm})`;
  $('pin-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadFeed(); });
  window.addEventListener('hashchange', () => { const p = pinFromFragment(); if (p) { $('pin').value = p; loadFeed(); } });
  for (const id of ['enc-when', 'enc-kind-classic', 'enc-kind-pq']) {
    $(id).addEventListener('input', updateEncryptChoice);
    $(id).addEventListener('change', updateEncryptChoice);
  }
  const what = () => {
    const file = $('enc-what-file').checked;
    $('enc-file-field').hidden = !file;
    $('enc-text-field').hidden = file;
  };
  $('enc-what-text').addEventListener('change', what);
  $('enc-what-file').addEventListener('change', what);
  $('enc-form').addEventListener('submit', doEncrypt);
  $('dec-form').addEventListener('submit', doDecrypt);
  setInterval(tick, 1000);
  // the feed changes as epochs are released and solved
  setInterval(() => { if (document.visibilityState === 'visible') loadFeed(true); }, 60000);
  loadFeed();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
