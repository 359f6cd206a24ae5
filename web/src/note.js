// SPDX-License-Identifier: ISC
// web/src/note.js — the `.beacon` note beside a file encrypted to a beacon
// (docs/FORMAT.md, "Files encrypted to a beacon"): read it (any JSON of at
// most 64 KiB with the documented keys), find the layer of the beacon the
// page serves, and check it against the feed as `rxlock decrypt --feed`
// does: the same signer, and for the note's epoch the same recipient and
// earliest opening.  No DOM here.
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

// The layer of the beacon whose feed body is `body`: the outermost one
// signed by its signer (the page opens that layer only).  Returns
// { layer, epoch (the feed's entry or null), outer (is it the outermost) }
// or throws naming what differs.
export function noteLayer(note, body) {
  const signer = body.beacon.signer;
  const mine = note.layers.map((l, i) => [l, i]).filter(([l]) => l.signer === signer);
  if (!mine.length) {
    throw new Error(`the note names another beacon (signer ${note.layers.map((l) => l.signer.slice(0, 16) + '…').join(', ')}), ` +
      `not this one (${signer.slice(0, 16)}…)`);
  }
  const [layer, i] = mine[mine.length - 1];
  const epoch = body.epochs.find((e) => e.index === layer.epoch) || null;
  if (epoch) {
    const key = epoch.keys.find((k) => k.kind === layer.kind);
    if (!key) throw new Error(`the note names a ${layer.kind} key of epoch ${layer.epoch}, which this beacon does not have`);
    if (key.recipient !== layer.recipient) throw new Error(`the note's recipient for epoch ${layer.epoch} is not the feed's`);
    if (epoch.earliest_opening !== layer.earliest_opening) {
      throw new Error(`the note says epoch ${layer.epoch} opens no earlier than ${layer.earliest_opening}, ` +
        `the feed says ${epoch.earliest_opening}: they disagree`);
    }
  }
  return { layer, epoch, outer: i === note.layers.length - 1 };
}
