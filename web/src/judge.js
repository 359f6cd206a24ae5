// SPDX-License-Identifier: ISC
// web/src/judge.js — one feed text judged in the order every client uses
// (tests/vectors/feed-corpus/README.md, "The order of the checks"; the
// first failure is the answer): the strict parse and the signature under
// the feed's own signer (`format`, `signature`), then signer continuity
// and no rollback against what the client remembers and its pin
// (continuity.js), then the note or the choice (note.js, rule.js).  The
// page (app.js) and the corpus runners (tests/web/) call these and
// nothing else.
import { readFeed } from './feed.js';
import { verdict, choose, floorOf } from './rule.js';
import { continuity } from './continuity.js';
import { noteCheck } from './note.js';

// text -> { ok: true, body, signer } or a verdict.  ctx: { pin, accept,
// previous } (64 lower-case hex digits or null; `previous` as seenOf()).
export async function judgeFeed(text, { pin = null, accept = null, previous = null } = {}) {
  let feed;
  try {
    feed = await readFeed(text, null);
  } catch (e) {
    return verdict('format', '', e.message);
  }
  if (feed.status !== 'unpinned') {
    return verdict('signature', '', 'the feed\'s signature does not verify under the key it names: it was changed after signing');
  }
  const cont = continuity(previous, pin, accept, feed.body);
  if (cont) return cont;
  return { ok: true, body: feed.body, signer: feed.signer, pinned: !!pin && pin === feed.signer };
}

// A corpus case (tests/vectors/feed-corpus/README.md) -> the answer in the
// corpus's terms: { result: 'epoch', epoch, earliest_opening, recomputed },
// { result: 'ok' } or { result: 'refuse', reason, field }.
export async function judgeCase(text, c) {
  const refuse = (v) => ({ result: 'refuse', reason: v.reason, field: v.field });
  const j = await judgeFeed(text, { pin: c.pin, accept: c.accept_signer, previous: c.previous });
  if (!j.ok) return refuse(j);
  if (c.op === 'note') {
    const v = noteCheck(j.body, c.note);
    return v ? refuse(v) : { result: 'ok' };
  }
  const fl = floorOf(j.body.beacon, c.client_floor_mhps);
  const pick = choose(j.body, c.open_after, c.kind, c.now, fl);
  if (!pick.ok) return refuse(pick);
  return { result: 'epoch', epoch: pick.epoch.index, earliest_opening: pick.earliest, recomputed: fl.recomputed };
}

// Does an answer match a case's `expect`?  (Messages are free text.)
export function sameAnswer(got, want) {
  if (got.result !== want.result) return false;
  if (want.result === 'epoch') {
    return got.epoch === want.epoch && got.earliest_opening === want.earliest_opening && got.recomputed === want.recomputed;
  }
  if (want.result === 'refuse') return got.reason === want.reason && got.field === want.field;
  return true;
}
