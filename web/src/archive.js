// SPDX-License-Identifier: ISC
// web/src/archive.js — the page's side of a feed's archive (docs/FORMAT.md,
// "Archive pages"), as `rxlock decrypt --feed` reads it
// (src/cli/feed_archive.c): an epoch the verified feed no longer lists,
// with floor(E / 1024) < archive.pages, is looked up in archive/K.json,
// fetched from the beacon's own place and refused unless readArchivePage
// accepts it against that feed (page number, the same schedule, the
// feed's signer).  An epoch solved after its page was written has its
// identity at its usual path (identitiesPath); whatever is read there is
// still checked against the epoch's recipient by the caller.
import { readArchivePage, archivePath, FEED_MAX } from './feed.js';
import { fetchBounded } from './page.js';

const PAGE_EPOCHS = 1024;

// E's archive page number when the feed says it has one, else null.
export function archivedPage(body, E) {
  if (!body.archive || body.epochs.some((e) => e.index === E)) return null;
  const K = Math.floor(E / PAGE_EPOCHS);
  return K < body.archive.pages ? K : null;
}

// Epoch E from its archive page: { epoch, page: K, path, body } (epoch
// null when the page, checked, does not list it, or when the server has no
// such page: missing), or null when E is not archived; throws when the
// page cannot be fetched or is refused.
export async function archivedEpoch(body, E) {
  const K = archivedPage(body, E);
  if (K === null) return null;
  const path = archivePath(E);
  const bytes = await fetchBounded(path, FEED_MAX, true);
  if (bytes === null) return { epoch: null, page: K, path, missing: true };   // a page never written held no epoch
  const text = new TextDecoder().decode(bytes);
  let page;
  try {
    page = await readArchivePage(text, body, K);
  } catch (e) {
    throw new Error(`${path} is refused: ${e.message.replace(/^feed: /, '')}`);
  }
  return { epoch: page.epochs.find((e) => e.index === E) || null, page: K, path, body: { beacon: body.beacon, epochs: page.epochs } };
}

// identities/STEM.txt: where a beacon publishes E's identity of `kind`
// (STEM is E, or E-KIND when the beacon has both kinds; tl_beacon_path).
export function identitiesPath(bc, E, kind) {
  return `identities/${bc.kinds.length > 1 ? `${E}-${kind}` : `${E}`}.txt`;
}
