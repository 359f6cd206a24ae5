// SPDX-License-Identifier: ISC
// web/src/decrypt.js — the page's Decrypt part: which epoch a file is for
// (chosen by hand, its .beacon note checked against the feed, or its name),
// an epoch the feed no longer lists read from its archive page
// (web/src/archive.js), the published identity checked against the
// epoch's recipient, and what
// the page says before the epoch is solved (when it is expected at this
// client's floor, or that an operator-only epoch was never released); the
// file itself is decrypted as a stream (web/src/decrypt_stream.js).
import * as age from 'age-encryption';
import { floorOf, floorOpening, operatorOnly } from './rule.js';
import { readNote, noteCheck, outerLayer } from './note.js';
import { archivedEpoch, identitiesPath } from './archive.js';
import { nowSec } from './time.js';
import { decryptToBlob } from './decrypt_stream.js';
import { timeEl, say, el, offerDownload, fetchBounded, inputFile, st, $, STATE_TEXT } from './page.js';

const IDENTITY_MAX = 64 * 1024;           // bytes of an identity file
const TEXT_SHOWN_MAX = 1024 * 1024;       // a UTF-8 plaintext up to this is shown as text too

export function fillDecryptEpochs() {
  const sel = $('dec-epoch');
  const keep = sel.value;
  sel.replaceChildren(el('option', { value: '', text: 'From the .beacon note or the file name' }));
  for (const e of (st.body ? [...st.body.epochs].sort((x, y) => x.index - y.index) : [])) {
    sel.append(el('option', { value: String(e.index), text: `Epoch ${e.index} (${STATE_TEXT[e.state]})` }));
  }
  // an epoch the feed no longer lists, by number, when it has archive pages
  if (st.body && st.body.archive && st.body.archive.pages > 0) {
    sel.append(el('option', { value: 'archived', text: 'An older epoch (from the archive)…' }));
  }
  sel.value = [...sel.options].some((o) => o.value === keep) ? keep : '';
  showOldEpoch();
}

// The older epoch's number field, shown only while "An older epoch" is chosen.
export function showOldEpoch() {
  $('dec-epoch-old-field').hidden = $('dec-epoch').value !== 'archived';
}

// The identity file at path (the key's published one by default) for
// epoch e's key; null when missing and the server has none.
async function identityFor(e, key, path = key.identity, missing = false) {
  const bytes = await fetchBounded(path, IDENTITY_MAX, missing);
  if (bytes === null) return null;
  const text = new TextDecoder().decode(bytes);
  const id = text.split('\n').map((l) => l.trim()).find((l) => l.startsWith('AGE-SECRET-KEY-'));
  if (!id) throw new Error(`${path} holds no age identity`);
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
  const sealed = e.keys.map((k) => k.sealed && k.sealed.opening).filter((t) => Number.isSafeInteger(t));
  if (e.state === 'scheduled' && sealed.length && now - e.release > 2 * st.body.beacon.every) {
    // late: the operator did not release it; its sealed release still opens it
    const at = Math.max(...sealed);
    const head = [`Epoch ${e.index} was not released on time (its release was `, timeEl(e.release), '); '];
    if (at > now) {
      return [...head, 'without its operator it opens through its sealed release, about ', timeEl(at),
        ' (no earlier than ', timeEl(earliest), ').'];
    }
    return [...head, 'its sealed release has let anyone solve it since about ', timeEl(at),
      ': it opens once someone does (rxlock beacon solve) and its identity is published.'];
  }
  return [`Epoch ${e.index} is not solved yet: its identity is expected about `, timeEl(Math.max(e.about_opening, earliest)),
    ' (no earlier than ', timeEl(earliest), '). Come back then.'];
}

// Which epoch a file is for: the epoch chosen by hand, else the .beacon
// note's (its layer checked against the feed by the caller, once the
// epoch is found), else the file name's ".epoch-N"; { epoch: index or
// null, from, layer }.
async function fileEpoch(f) {
  const chosen = $('dec-epoch').value;
  if (chosen === 'archived') {
    const n = $('dec-epoch-old').value.trim();
    if (!/^[0-9]{1,15}$/.test(n)) throw new Error('type the older epoch\'s number (0, 1, 2, …)');
    return { epoch: Number(n), from: 'chosen' };
  }
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
    return { epoch: layer.epoch, from: 'note', layer, name: nf.name };
  }
  const m = /\.epoch-(\d+)\.age$/.exec(f.name);
  if (m) return { epoch: Number(m[1]), from: 'name' };
  return { epoch: null, from: null };
}

export async function doDecrypt(ev) {
  ev.preventDefault();
  $('dec-text-field').hidden = true;
  try {
    if (!st.body) throw new Error('the beacon\'s feed is not loaded');
    const f = inputFile($('dec-file'));
    if (!f) throw new Error('choose the encrypted file');
    // a binary file is decrypted from the File as a stream (decrypt_stream.js);
    // an armored one (age's armor has no streaming reader) is decoded whole
    let ct = f;
    const head = new TextDecoder('latin1').decode(new Uint8Array(await f.slice(0, 64).arrayBuffer())).trimStart();
    if (head.startsWith('-----BEGIN AGE ENCRYPTED FILE-----')) {
      try { ct = age.armor.decode(new TextDecoder('latin1').decode(await f.arrayBuffer())); } catch (e) {
        throw new Error(`${f.name} is a damaged armored age file (${e.message})`);
      }
    } else if (!head.startsWith('age-encryption.org/v1\n')) {
      throw new Error(`${f.name} is not an age file; pick the .age file you were given`);
    }
    let epochs = st.body.epochs, listing = st.body, arch = null;
    const which = await fileEpoch(f);
    const chosen = which.epoch;
    if (chosen !== null && !epochs.some((e) => e.index === chosen)) {
      // not listed: from its archive page when the feed counts one for it
      arch = await archivedEpoch(st.body, chosen);
      const from = which.from === 'note' ? '.beacon note' : which.from === 'name' ? 'file name' : 'choice';
      if (!arch) {
        throw new Error(`epoch ${chosen} (from the ${from}) is not in this beacon's feed (it lists only its most ` +
          'recent epochs, and archives none that old)');
      }
      if (!arch.epoch) {
        throw new Error(`epoch ${chosen} (from the ${from}) is in neither this beacon's feed nor its ` +
          `${arch.path}${arch.missing ? ' (the beacon has no such page: it held no epoch)' : ''}`);
      }
      epochs = [arch.epoch];
      listing = arch.body;
    }
    if (which.layer) {
      // the layer agrees with the feed, or with the archive page it led to
      const v = noteCheck(listing, which.layer);
      if (v) {
        const err = new Error(`${which.name} does not match this beacon's feed${arch ? ` (${arch.path})` : ''} (${v.field}): ${v.message}`);
        err.verdict = v;
        throw err;
      }
    }
    let tryEpochs = chosen !== null ? epochs.filter((e) => e.index === chosen) : epochs;
    const unsolved = tryEpochs.filter((e) => e.state !== 'solved');
    tryEpochs = tryEpochs.filter((e) => e.state === 'solved');
    const ids = [];
    for (const e of tryEpochs) for (const k of e.keys) if (k.identity) ids.push(await identityFor(e, k));
    if (arch && !tryEpochs.length) {
      // solved after its page was written: its identity at the usual path
      for (const k of arch.epoch.keys) {
        const id = await identityFor(arch.epoch, k, k.identity || identitiesPath(st.body.beacon, chosen, k.kind), true);
        if (id) ids.push(id);
      }
    }
    if (!ids.length) {
      if (chosen !== null) {
        say('dec-result', 'wait', ...notYet(unsolved[0]), ...(arch ? [` (Epoch ${chosen} is from the beacon's ${arch.path}.)`] : []));
        return;
      }
      say('dec-result', 'wait', 'No epoch of this beacon is solved yet, and nothing says which epoch ' +
        `${f.name} is for: give its .beacon note (or choose its epoch) to learn when it opens.`);
      return;
    }
    let pt;
    try {
      pt = await decryptToBlob(ids, ct, { textMax: TEXT_SHOWN_MAX });
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
    say('dec-result', 'ok', `Decrypted ${f.name} (${pt.size} bytes${arch ? `; epoch ${chosen}, from the beacon's ${arch.path}` : ''}). `,
      offerDownload('dec', pt.blob, outName === f.name ? `${f.name}.out` : outName, 'application/octet-stream'));
    if (pt.text !== null) { $('dec-text').value = pt.text; $('dec-text-field').hidden = false; }
  } catch (err) {
    say('dec-result', 'error', `Cannot decrypt: ${err.message}.`);
    if (err.verdict) { $('dec-result').dataset.reason = err.verdict.reason; $('dec-result').dataset.field = err.verdict.field; }
  }
}
