// SPDX-License-Identifier: ISC
// web/src/app.js — the beacon page's behaviour: loads feed.json (checked by
// feed.js), shows the signature status and every epoch with live
// countdowns, encrypts text or a file to the epoch chosen for a date, and
// decrypts once the epoch's identity is published.  All crypto runs here
// (typage); the page fetches only feed.json and identities/ of its own
// server (the Content-Security-Policy in index.html allows nothing else).
import * as age from 'age-encryption';
import { FEED_MAX } from './feed.js';
import { judgeFeed } from './judge.js';
import { choose, feedSane, floorOf, floorOpening, floorNote, operatorOnly, feedStale } from './rule.js';
import { seenOf } from './continuity.js';
import { readNote, noteCheck, outerLayer } from './note.js';
import { encryptToBlob } from './encrypt_stream.js';
import { fmtTime, fmtCountdown, nowSec } from './time.js';

const IDENTITY_MAX = 64 * 1024;           // bytes of an identity file
const INPUT_MAX = 256 * 1024 * 1024;      // bytes the page encrypts / decrypts at most
const $ = (id) => document.getElementById(id);
// body / status: the feed in use; good: the last one that verified (kept
// when a later one fails); kept: the one shown is that kept one
const st = { body: null, status: null, good: null, kept: false, offered: null, urls: {}, lastText: null, lastPin: null };

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
  delete box.dataset.reason;
  delete box.dataset.field;
  box.className = `result ${kind}`;
}

// ---- the feed --------------------------------------------------------------

// The #pin of the page's address: { pin } (lower case), { pin: '' } when
// there is none, { bad } when a pin is there but is not 64 hex digits (it
// is refused visibly, never dropped).
function pinFromFragment() {
  const m = /(?:^#|&)pin=([^&]*)/.exec(location.hash);
  if (!m) return { pin: '' };
  const v = decodeURIComponent(m[1]).trim();
  return /^[0-9a-fA-F]{64}$/.test(v) ? { pin: v.toLowerCase() } : { bad: v };
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

function banner(status, text, ...extra) {
  const b = $('feed-banner');
  b.dataset.status = status;
  delete b.dataset.reason;
  delete b.dataset.field;
  b.className = `banner ${status}`;
  b.replaceChildren(text, ...extra);
}

// What this browser remembers of the beacon (web/src/continuity.js): the
// signer, the newest `updated` and the epochs' states, and the last good
// feed's text; per feed URL, in localStorage (none: nothing remembered).
const SEEN_KEY = () => `rxlock-beacon-seen:${new URL('feed.json', location.href).href}`;
const SEEN_TEXT_MAX = 2 * 1024 * 1024;
function loadSeen() {
  try {
    const v = JSON.parse(localStorage.getItem(SEEN_KEY()) || 'null');
    return v && typeof v.signer === 'string' && Number.isSafeInteger(v.updated) ? v : null;
  } catch { return null; }
}
function saveSeen(seen, text) {
  try { localStorage.setItem(SEEN_KEY(), JSON.stringify({ ...seen, text: text.length <= SEEN_TEXT_MAX ? text : null })); } catch { /* no storage */ }
}

// A feed that cannot be used (v: the verdict, web/src/judge.js): the one
// that had verified (this session's, else the last good one this browser
// kept) stays shown and usable, and the banner says both.  The banner's
// data-reason / data-field are the verdict's (the corpus's keywords).
async function refuse(status, v, text, ...extra) {
  if (!st.good) {
    const seen = loadSeen();
    if (seen && seen.text) {
      const j = await judgeFeed(seen.text, { pin: seen.signer });
      if (j.ok) st.good = { body: j.body, status: 'kept', signer: j.signer };
    }
  }
  if (st.good) {
    st.body = st.good.body; st.status = st.good.status; st.kept = true;
    banner(status, text, ...extra, el('br'), el('span', { class: 'kept' }, 'Still showing the feed that had verified ' +
      `(signer ${st.good.signer.slice(0, 16)}…, updated `, timeEl(st.good.body.updated), ').'));
  } else {
    st.body = null; st.status = status; st.kept = false;
    banner(status, text, ...extra);
  }
  $('feed-banner').dataset.reason = v.reason;
  $('feed-banner').dataset.field = v.field;
  render();
}

// quiet: the periodic refresh; it changes nothing unless feed.json did,
// and keeps what is shown when the server is briefly unreachable.
// acceptSigner: the user accepted a new signer (a key rotation).
async function loadFeed(quiet = false, acceptSigner = false) {
  const pin = $('pin').value.trim().toLowerCase();
  if (pin && !/^[0-9a-f]{64}$/.test(pin)) {
    if (quiet) return;
    $('pin').setAttribute('aria-invalid', 'true');
    await refuse('error', { reason: 'pin', field: 'pin' }, `✖ The pin must be 64 hex digits (the beacon signer's ` +
      `public key); this one has ${pin.length} character(s)${/^[0-9a-f]*$/.test(pin) ? '' : ', not all hex digits'}. ` +
      'Nothing was checked against it.');
    return;
  }
  $('pin').removeAttribute('aria-invalid');
  if (!quiet) banner('loading', 'Loading the beacon\'s feed…');
  let text;
  try {
    const bytes = await fetchBounded('feed.json', FEED_MAX);
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    if (quiet) return;
    st.lastText = null;
    await refuse('error', { reason: 'fetch', field: '' }, `The beacon's feed cannot be used: ${e.message}.`);
    return;
  }
  if (quiet && text === st.lastText && pin === st.lastPin) { updateEncryptChoice(); return; }
  st.lastText = text; st.lastPin = pin;
  // the checks in the corpus's order: parse, signature, continuity against
  // what this browser saw before (and the pin)
  const seen = loadSeen();
  let j = await judgeFeed(text, { pin: pin || null, accept: acceptSigner ? st.offered : null, previous: seen });
  if (j.ok && pin && j.signer !== pin) {   // a pin typed here outranks what the browser saw
    j = { ok: false, reason: 'signer_changed', field: 'beacon.signer',
      message: `the feed is signed by ${j.signer}, not by ${pin} (the pin)` };
  }
  if (!j.ok) {
    if (j.reason === 'format') {
      await refuse('error', j, `The beacon's feed cannot be used: ${j.message}.`);
    } else if (j.reason === 'signature') {
      await refuse('bad', j, '✖ Warning: the feed\'s signature does NOT verify. It may have been tampered with: ' +
        'do not encrypt to it. Encryption is disabled.');
    } else {
      let accept = null;
      if (j.reason === 'signer_changed' && !pin) {
        st.offered = /^the feed is signed by ([0-9a-f]{64})/.exec(j.message)[1];
        accept = el('button', { type: 'button', id: 'accept-signer', class: 'inline', text: `Accept the new signer ${st.offered.slice(0, 16)}…` });
        accept.addEventListener('click', () => { st.good = null; loadFeed(false, true); });
      }
      await refuse('refused', j, `✖ The feed is refused (${j.field}): ${j.message}.`, ...(accept ? [' ', accept] : []));
    }
    return;
  }
  saveSeen(seenOf(j.body), text);
  const status = j.pinned ? 'pinned' : 'unpinned';
  st.body = j.body; st.status = status; st.kept = false;
  st.good = { body: j.body, status, signer: j.signer };
  const short = j.signer.slice(0, 16) + '…';
  const floor = floorNote(j.body.beacon);
  const floorEl = floor ? [el('br'), el('span', { class: 'floor-note', text: `Note: ${floor}.` })] : [];
  const insane = feedSane(j.body, nowSec());
  if (insane) {
    banner(insane.reason === 'clock_behind' ? 'clock' : 'refused', `✖ The feed verifies (signer ${short}), but ` +
      `${insane.reason === 'clock_behind' ? '' : `its ${insane.field} is refused: `}${insane.message}. Nothing is encrypted to it.`, ...floorEl);
    $('feed-banner').dataset.reason = insane.reason;
    $('feed-banner').dataset.field = insane.field;
  } else if (status === 'pinned') {
    banner('pinned', `✔ Feed signature verified against the pin (signer ${short}).`, ...floorEl);
  } else {
    banner('unpinned', `⚠ Warning: not pinned. The feed is signed by the key it names (${short}), ` +
      'but nothing ties that key to the beacon you mean: whoever controls this server could have made it. ' +
      'Get the beacon\'s pin from someone you trust and enter it above (or open the page with #pin=…).' +
      (seen && seen.signer === j.signer ? ' This browser has seen this signer here before.' : ''), ...floorEl);
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
    rows.append(el('tr', {}, el('td', { colspan: '7', text: st.status === 'refused' || st.status === 'bad'
      ? 'No epochs: the feed is refused (see above).' : 'No epochs: the feed could not be read.' })));
    $('beacon-about').textContent = '';
    updateEncryptChoice();
    fillDecryptEpochs();
    return;
  }
  const bc = b.beacon;
  const floor = floorOf(bc);
  const earliest = (e) => floorOpening(bc, floor, e);
  $('beacon-about').replaceChildren(`One epoch every ${fmtDuration(bc.every)}, ${bc.work}, ` +
    `kinds: ${bc.kinds.map((k) => KIND_TEXT[k]).join(' and ')}; feed updated `, timeEl(b.updated),
    `. Earliest openings at the floor of ${(floor.mhps / 1000).toLocaleString('en-US', { maximumFractionDigits: 3 })} H/s ` +
    `(${floor.recomputed ? `this client's row, faster than the feed's ${bc.floor.row}` : `the feed's row, ${bc.floor.row}`}).`);
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
      el('td', { 'data-label': 'Earliest opening' }, timeEl(earliest(e)), el('br'), countdownEl(earliest(e)),
        earliest(e) !== e.earliest_opening ? el('div', { class: 'hint recomputed', title: 'at this client\'s floor, which is faster than the feed\'s' },
          'the feed says ', timeEl(e.earliest_opening)) : null),
      el('td', { 'data-label': 'About' }, timeEl(e.about_opening), el('br'), countdownEl(e.about_opening),
        floor.recomputed ? el('div', { class: 'hint', text: '(the feed\'s estimate, from its own rates)' }) : null, sealedNote(e)),
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
  return { when, kind, pick: choose(st.body, when, kind, nowSec()) };
}

// Replace a live region's content only when its text changes (a screen
// reader announces every change).
function setLive(box, ...parts) {
  const next = document.createElement('span');
  next.append(...parts);
  if (box.textContent !== next.textContent) box.replaceChildren(...next.childNodes);
}

// What the page says of a chosen epoch beyond its times: the floor
// recomputed, and a dead beacon's operator-only epoch.
function choiceNotes(pick) {
  const notes = [];
  const floor = floorNote(st.body.beacon);
  if (floor) notes.push(` Note: ${floor}.`);
  if (operatorOnly(pick.epoch) && feedStale(st.body, nowSec())) {
    notes.push(' Warning: this beacon\'s feed has not been updated since ', timeEl(st.body.updated),
      ' and this epoch is operator-only: only the operator can release it; if the beacon is gone, it never opens.');
  }
  return notes;
}

// ", about T": the feed's estimate, left out when the client recomputed the
// earliest opening (the feed's rates are then the ones it does not believe)
function aboutParts(pick) {
  return floorOf(st.body.beacon).recomputed ? [] : [', about ', timeEl(pick.epoch.about_opening)];
}

// The choice said in words, and in data-* for tests (the corpus's terms:
// data-epoch / data-earliest / data-recomputed, or data-reason / data-field).
function updateEncryptChoice() {
  const box = $('enc-choice');
  for (const k of ['epoch', 'earliest', 'recomputed', 'reason', 'field']) delete box.dataset[k];
  const say1 = (...parts) => setLive(box, ...parts);
  const go = $('enc-go');
  go.disabled = !st.body;
  if (!st.body) {
    say1(st.status === 'bad' ? 'Encryption is disabled: the feed\'s signature does not verify.'
      : st.status === 'refused' ? 'Encryption is disabled: the feed is refused (see above).'
        : 'Encryption needs the beacon\'s feed.');
    return;
  }
  const { when, kind, pick } = currentChoice();
  const insane = feedSane(st.body, nowSec());
  go.disabled = !!insane;   // this clock or the feed's numbers refused: nothing to encrypt to
  if (when === null) {
    if (insane) Object.assign(box.dataset, { reason: insane.reason, field: insane.field });
    say1(insane ? `Encryption is refused: ${insane.message}.` : 'Pick the date and time the message may open.');
    return;
  }
  if (!pick.ok) {
    Object.assign(box.dataset, { reason: pick.reason, field: pick.field });
    if (pick.reason === 'no_epoch') {
      say1(`No ${KIND_TEXT[kind]} epoch of this beacon opens at or after that moment yet (at this client's floor, ` +
        `among epochs still scheduled): ${pick.message}. Pick an earlier date, or come back when later epochs are scheduled.`);
    } else {
      say1(`Encryption is refused: ${pick.message}.`);
    }
    return;
  }
  const e = pick.epoch;
  Object.assign(box.dataset, { epoch: String(e.index), earliest: String(pick.earliest),
    recomputed: String(floorOf(st.body.beacon).recomputed) });
  say1(`Epoch ${e.index}: opens no earlier than `, timeEl(pick.earliest), ...aboutParts(pick), '.', ...choiceNotes(pick));
}

function inputFile(input) {
  const f = input.files && input.files[0];
  if (!f) return null;
  if (f.size > INPUT_MAX) throw new Error(`${f.name} is larger than ${INPUT_MAX / (1024 * 1024)} MiB`);
  return f;
}

async function readInputFile(input) {
  const f = inputFile(input);
  return f ? { name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) } : null;
}

function offerDownload(slot, data, name, type) {
  if (st.urls[slot]) URL.revokeObjectURL(st.urls[slot]);
  st.urls[slot] = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type }));
  return el('a', { href: st.urls[slot], download: name, id: `${slot}-download`, class: 'download', text: `Download ${name}` });
}

const ARMOR_SHOWN_MAX = 64 * 1024;   // characters of armored text also shown to copy

async function doEncrypt(ev) {
  ev.preventDefault();
  $('enc-armored-field').hidden = true;
  $('enc-armored').value = '';
  const bar = $('enc-progress');
  const go = $('enc-go');
  try {
    const { when, pick } = currentChoice();
    if (!st.body) throw new Error('the beacon\'s feed is not loaded');
    if (when === null) throw new Error('pick the date and time the message may open');
    if (!pick.ok) throw new Error(pick.reason === 'no_epoch' ? `no epoch of this beacon opens at or after that moment: ${pick.message}` : pick.message);
    let input, base;
    if ($('enc-what-file').checked) {
      input = inputFile($('enc-file'));
      if (!input) throw new Error('choose a file to encrypt');
      base = input.name;
    } else {
      const text = $('enc-text').value;
      if (!text) throw new Error('type a message to encrypt');
      input = new Blob([new TextEncoder().encode(text)]); base = 'message.txt';
    }
    const armored = $('enc-armor').checked;
    const name = `${base}.epoch-${pick.epoch.index}.age`;
    go.disabled = true;
    bar.value = 0; bar.max = Math.max(1, input.size); bar.hidden = false;
    say('enc-result', 'busy', `Encrypting ${base} (${input.size} bytes)…`);
    const out = await encryptToBlob(pick.key.recipient, input, { armor: armored, textMax: ARMOR_SHOWN_MAX,
      onProgress: (done) => { bar.value = done; } });
    // the note `rxlock decrypt --feed` reads beside the file (docs/FORMAT.md,
    // "Files encrypted to a beacon")
    const note = JSON.stringify({ rxlock_beacon_ref: 1, layers: [{
      feed: new URL('.', location.href).href.replace(/\/$/, ''), signer: st.body.beacon.signer, epoch: pick.epoch.index,
      kind: pick.key.kind, recipient: pick.key.recipient, earliest_opening: pick.epoch.earliest_opening }] }, null, 1) + '\n';
    say('enc-result', 'ok', `Encrypted to epoch ${pick.epoch.index} (${KIND_TEXT[pick.key.kind]}); it opens no earlier than `,
      timeEl(pick.earliest), ...aboutParts(pick), '. ',
      offerDownload('enc', out.blob, name), ` (${out.size} bytes) `,
      offerDownload('enc-note', note, `${name}.beacon`, 'application/json'),
      el('span', { class: 'hint', text: ' (keep it beside the file: rxlock decrypt --feed and this page read it)' }));
    if (out.text !== null) { $('enc-armored').value = out.text; $('enc-armored-field').hidden = false; }
  } catch (err) {
    say('enc-result', 'error', `Cannot encrypt: ${err.message}.`);
  } finally {
    bar.hidden = true;
    updateEncryptChoice();
  }
}

// ---- decrypt ---------------------------------------------------------------

function fillDecryptEpochs() {
  const sel = $('dec-epoch');
  const keep = sel.value;
  sel.replaceChildren(el('option', { value: '', text: 'From the .beacon note or the file name' }));
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

// An unsolved epoch: when it is expected, or that it was never released.
function notYet(e) {
  const now = nowSec();
  if (e.state === 'scheduled' && operatorOnly(e) && now - e.release > 2 * st.body.beacon.every) {
    return [`Epoch ${e.index} was never released (its release was `, timeEl(e.release),
      '); it is operator-only: it opens only if its operator returns.'];
  }
  const earliest = floorOpening(st.body.beacon, floorOf(st.body.beacon), e);
  return [`Epoch ${e.index} is not solved yet: its identity is expected about `, timeEl(e.about_opening),
    ' (no earlier than ', timeEl(earliest), '). Come back then.'];
}

// Which epoch a file is for: the epoch chosen by hand, else the .beacon
// note's (checked against the feed), else the file name's ".epoch-N";
// { epoch: index or null, from }.
async function fileEpoch(f) {
  const chosen = $('dec-epoch').value;
  if (chosen) return { epoch: Number(chosen), from: 'chosen' };
  const nf = $('dec-note').files && $('dec-note').files[0];
  if (nf) {
    if (nf.size > 64 * 1024) throw new Error(`${nf.name} is larger than 64 KiB: not a .beacon note`);
    let note;
    try {
      note = readNote(await nf.text());
    } catch (e) {
      throw new Error(`${nf.name}: ${e.message}`);
    }
    // the outermost layer opens first; it must be this beacon's, and agree
    // with its feed (signer, and the epoch's recipient and earliest opening)
    const layer = outerLayer(note);
    if (layer.signer !== st.body.beacon.signer && note.layers.some((l) => l.signer === st.body.beacon.signer)) {
      throw new Error(`${nf.name}: the file was encrypted again to another beacon (signer ${layer.signer.slice(0, 16)}…) ` +
        'after this one: open that layer at its beacon first (rxlock decrypt --feed, one per layer)');
    }
    const v = noteCheck(st.body, layer);
    if (v) {
      const err = new Error(`${nf.name} does not match this beacon's feed (${v.field}): ${v.message}`);
      err.verdict = v;
      throw err;
    }
    return { epoch: layer.epoch, from: 'note' };
  }
  const m = /\.epoch-(\d+)\.age$/.exec(f.name);
  if (m) return { epoch: Number(m[1]), from: 'name' };
  return { epoch: null, from: null };
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
    const which = await fileEpoch(f);
    const chosen = which.epoch;
    if (chosen !== null && !epochs.some((e) => e.index === chosen)) {
      throw new Error(`epoch ${chosen} (from the ${which.from === 'note' ? '.beacon note' : which.from === 'name' ? 'file name' : 'choice'}) ` +
        'is not in this beacon\'s feed (it lists only its most recent epochs)');
    }
    let tryEpochs = chosen !== null ? epochs.filter((e) => e.index === chosen) : epochs;
    const unsolved = tryEpochs.filter((e) => e.state !== 'solved');
    tryEpochs = tryEpochs.filter((e) => e.state === 'solved');
    if (!tryEpochs.length) {
      if (chosen !== null) { say('dec-result', 'wait', ...notYet(unsolved[0])); return; }
      say('dec-result', 'wait', 'No epoch of this beacon is solved yet, and nothing says which epoch ' +
        `${f.name} is for: give its .beacon note (or choose its epoch) to learn when it opens.`);
      return;
    }
    const d = new age.Decrypter();
    for (const e of tryEpochs) for (const k of e.keys) if (k.identity) d.addIdentity(await identityFor(e, k));
    let pt;
    try {
      pt = await d.decrypt(ct, 'uint8array');
    } catch (e) {
      if (/no identity matched/i.test(e.message)) {
        if (chosen === null && unsolved.length) {
          say('dec-result', 'wait', `${f.name} does not open with any solved epoch's identity, and nothing says which ` +
            'epoch it is for: give its .beacon note (or choose its epoch) to learn when it opens.');
          return;
        }
        throw new Error(`${f.name} was not encrypted to ${chosen !== null ? `epoch ${chosen}` : 'any solved epoch'} of this beacon`);
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
    if (err.verdict) { $('dec-result').dataset.reason = err.verdict.reason; $('dec-result').dataset.field = err.verdict.field; }
  }
}

// ---- wiring ----------------------------------------------------------------

function init() {
  const frag = pinFromFragment();
  const off = -new Date().getTimezoneOffset();
  const hh = String(Math.floor(Math.abs(off) / 60)).padStart(2, '0');
  const mm = String(Math.abs(off) % 60).padStart(2, '0');
  $('enc-tz').textContent = `(your local time, UTC${off < 0 ? '−' : '+'}${hh}:${mm})`;
  $('pin-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadFeed(); });
  window.addEventListener('hashchange', () => { const p = pinFromFragment(); if (p.pin || p.bad !== undefined) usePin(p); });
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
  usePin(frag);
}

// The page's #pin: a good one is used; a bad one is shown in the pin field
// and refused in the banner (nothing is loaded unpinned in its place).
function usePin(p) {
  if (p.bad === undefined) { $('pin').value = p.pin; loadFeed(); return; }
  $('pin').value = p.bad.slice(0, 200);
  $('pin').setAttribute('aria-invalid', 'true');
  banner('error', `✖ The pin in this page's address (#pin=…) is not 64 hex digits: it has ${p.bad.length} ` +
    `character(s)${/^[0-9a-fA-F]*$/.test(p.bad) ? '' : ', not all of them hex digits'}. The feed is not checked against ` +
    'a pin that cannot be right: correct it above (the beacon signer\'s public key) and press "Check the feed".');
  render();
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init); else init();
