// SPDX-License-Identifier: ISC
// web/src/note.js — the `.beacon` note beside a file encrypted to a beacon
// (docs/FORMAT.md, "Files encrypted to a beacon"): read it (any JSON of at
// most 64 KiB with the documented keys), pick the layer of the beacon the
// page serves, and check a layer against the feed as `rxlock decrypt
// --feed` does (tl_beacon_note_check): the same signer, and for the note's
// epoch, when the feed lists it, a key of its kind with its recipient and
// the signed earliest_opening.  No DOM here.
import { verdict } from './rule.js';

export const NOTE_MAX = 64 * 1024;

const isInt = (v) => Number.isSafeInteger(v) && v >= 0;

// text -> { layers: [...] }; throws naming the problem
export function readNote(text) {
  if (typeof text !== 'string' || text.length > NOTE_MAX) throw new Error(`the note is larger than ${NOTE_MAX} bytes`);
  let n;
  try { n = JSON.parse(text); } catch { throw new Error('the note is not JSON'); }
  if (!n || typeof n !== 'object' || n.rxlock_beacon_ref !== 1) throw new Error('not an rxlock .beacon note (rxlock_beacon_ref 1)');
  if (!Array.isArray(n.layers) || n.layers.length < 1 || n.layers.length > 16) throw new Error('the note\'s "layers" is not a list of 1 to 16');
  for (const [i, l] of n.layers.entries()) {
    const at = `the note's layer ${i + 1}`;
    if (!l || typeof l !== 'object') throw new Error(`${at} is not an object`);
    if (typeof l.signer !== 'string' || !/^[0-9a-f]{64}$/.test(l.signer)) throw new Error(`${at}: signer is not 64 hex digits`);
    if (!isInt(l.epoch)) throw new Error(`${at}: epoch is not an index`);
    if (l.kind !== 'classic' && l.kind !== 'pq') throw new Error(`${at}: kind is not classic or pq`);
    if (typeof l.recipient !== 'string' || !l.recipient.startsWith('age1')) throw new Error(`${at}: recipient is not an age recipient`);
    if (!isInt(l.earliest_opening)) throw new Error(`${at}: earliest_opening is not a time`);
  }
  return n;
}

// null when the layer agrees with the feed, else a note_mismatch verdict
// naming "signer", "kind", "recipient" or "earliest_opening".
export function noteCheck(body, layer) {
  const signer = body.beacon.signer;
  if (layer.signer !== signer) {
    return verdict('note_mismatch', 'signer', `the note names the beacon signed by ${layer.signer}; this feed is ` +
      `signed by ${signer}`);
  }
  const epoch = body.epochs.find((e) => e.index === layer.epoch);
  if (!epoch) return null;
  const key = epoch.keys.find((k) => k.kind === layer.kind);
  if (!key) return verdict('note_mismatch', 'kind', `the note names a ${layer.kind} key of epoch ${layer.epoch}, which this beacon does not have`);
  if (key.recipient !== layer.recipient) {
    return verdict('note_mismatch', 'recipient', `the note's recipient for epoch ${layer.epoch} is not the feed's`);
  }
  if (epoch.earliest_opening !== layer.earliest_opening) {
    return verdict('note_mismatch', 'earliest_opening', `the note says epoch ${layer.epoch} opens no earlier than ` +
      `${layer.earliest_opening}, the feed says ${epoch.earliest_opening}`);
  }
  return null;
}

// The layer the page opens: the outermost one (the page serves one beacon;
// a file encrypted again to another beacon opens there first).
export function outerLayer(note) {
  return note.layers[note.layers.length - 1];
}
