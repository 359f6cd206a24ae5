// SPDX-License-Identifier: ISC
// web/src/app.js — the beacon page's behaviour: loads feed.json (judged by
// judge.js: format, signature, continuity), shows the signature status and
// every epoch with live countdowns, encrypts text or a file to the epoch
// chosen for a date (rule.js, encrypt_stream.js), and wires the Decrypt
// part (decrypt.js) to the page.  All crypto runs here
// (typage); the page fetches only feed.json and identities/ of its own
// server (the Content-Security-Policy in index.html allows nothing else).
import { FEED_MAX } from './feed.js';
import { judgeFeed } from './judge.js';
import { choose, feedSane, floorOf, floorOpening, floorNote, operatorOnly, feedStale } from './rule.js';
import { seenOf } from './continuity.js';
import { encryptToBlob } from './encrypt_stream.js';
import { fmtCountdown, nowSec } from './time.js';
import { $, st, el, timeEl, countdownEl, say, setLive, offerDownload, fetchBounded, inputFile, STATE_TEXT, KIND_TEXT } from './page.js';
import { fillDecryptEpochs, doDecrypt, showOldEpoch } from './decrypt.js';

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
  const insane = feedSane(j.body, nowSec());
  // what the browser remembers: only a feed whose numbers it accepts (a
  // false `updated` must not become the mark later feeds are held to)
  if (!insane) saveSeen(seenOf(j.body), text);
  const status = j.pinned ? 'pinned' : 'unpinned';
  st.body = j.body; st.status = status; st.kept = false;
  st.good = { body: j.body, status, signer: j.signer };
  const short = j.signer.slice(0, 16) + '…';
  const floor = floorNote(j.body.beacon);
  const floorEl = floor ? [el('br'), el('span', { class: 'floor-note', text: `Note: ${floor}.` })] : [];
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

const STATE_HELP = { scheduled: 'generated; its puzzle is published at its release time',
  released: 'its puzzle is public: being solved', solved: 'its identity is published' };

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
  $('dec-epoch').addEventListener('change', showOldEpoch);
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
