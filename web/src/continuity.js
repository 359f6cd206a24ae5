// SPDX-License-Identifier: ISC
// web/src/continuity.js — signer continuity and no rollback, for a client
// that reads a beacon's feed more than once (the page, through its
// storage), the same rule as the C library's tl_beacon_continuity
// (src/lock/beacon/trust.c): the feed's signer must be the one seen first
// (or the pin, when none was seen) unless it is exactly the key the user
// accepted as a rotation; the schedule never changes; `updated` never
// goes back, no epoch at or below the highest released one seen is
// `scheduled` again, and the highest solved one stays solved (an accepted
// rotation starts its own history).  Pure: the caller keeps `seen`
// (app.js: localStorage).
import { verdict } from './rule.js';

// What a client remembers of the last good feed it read (the corpus's
// `previous`, tests/vectors/feed-corpus/README.md).
export function seenOf(body) {
  const bc = body.beacon;
  let releasedMax = -1, solvedMax = -1;
  for (const e of body.epochs) {
    if (e.state !== 'scheduled') releasedMax = e.index;
    if (e.state === 'solved') solvedMax = e.index;
  }
  return { signer: bc.signer, updated: body.updated, work: bc.work, groups: bc.groups, steps: bc.steps,
    every: bc.every, start: bc.start, released_max: releasedMax, solved_max: solvedMax };
}

// null when `body` may follow `prev` (null: nothing seen), else a verdict.
// pin, accept: 64 lower-case hex digits or null.
export function continuity(prev, pin, accept, body) {
  const bc = body.beacon;
  const want = prev ? prev.signer : pin;
  if (want && want !== bc.signer && accept !== bc.signer) {
    return verdict('signer_changed', 'beacon.signer', `the feed is signed by ${bc.signer}, not by ${want} ` +
      `(${prev ? 'the signer seen first' : 'the pin'}); a rotation is accepted only when named explicitly`);
  }
  if (!prev) return null;
  for (const f of ['work', 'groups', 'steps', 'every', 'start']) {
    if (prev[f] !== undefined && prev[f] !== bc[f]) {
      return verdict('schedule_changed', `beacon.${f}`, `the feed's schedule changed (beacon.${f}): a beacon's ` +
        'schedule never does; the last good feed is kept');
    }
  }
  if (prev.signer !== bc.signer) return null;   // an accepted rotation: its history starts here
  if (body.updated < prev.updated) {
    return verdict('rollback', 'updated', `the feed is older than the last one seen (updated ${body.updated} < ` +
      `${prev.updated}): a rollback; the last good feed is kept`);
  }
  for (const [k, e] of body.epochs.entries()) {
    const backFromReleased = prev.released_max >= 0 && e.index <= prev.released_max && e.state === 'scheduled';
    const backFromSolved = prev.solved_max >= 0 && e.index === prev.solved_max && e.state !== 'solved';
    if (backFromReleased || backFromSolved) {
      return verdict('rollback', `epochs[${k}].state`, `epoch ${e.index} went back to ${e.state} after it was seen ` +
        `${e.index === prev.solved_max ? 'solved' : 'released'}: a rollback; the last good feed is kept`);
    }
  }
  return null;
}
