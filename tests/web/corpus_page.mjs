// SPDX-License-Identifier: ISC
// tests/web/corpus_page.mjs — the feed conformance corpus run inside
// Chromium against the page's own code (web/src/judge.js), bundled by
// tests/cli/test_web.sh into corpus_run.js for runner.html, which is served
// beside a copy of the corpus (corpus/).  Leaves window.corpusResults:
// [{ name, ok, got, want }], and window.corpusEd25519: which Ed25519 the
// signatures were checked with ('webcrypto' or 'noble').
import { judgeCase, sameAnswer } from '../../web/src/judge.js';

(async () => {
  try {
    await crypto.subtle.importKey('raw', new Uint8Array(32).fill(1), { name: 'Ed25519' }, false, ['verify']);
    window.corpusEd25519 = 'webcrypto';
  } catch { window.corpusEd25519 = 'noble'; }
  const get = async (p) => { const r = await fetch(p, { cache: 'no-store' }); if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`); return r.text(); };
  const out = [];
  try {
    const index = JSON.parse(await get('corpus/index.json'));
    for (const name of index.cases) {
      const c = JSON.parse(await get(`corpus/${name}/case.json`));
      const text = await get(`corpus/${name}/${c.feed}`);
      let got;
      try { got = await judgeCase(text, c); } catch (e) { got = { result: `threw ${e.message}` }; }
      out.push({ name, ok: sameAnswer(got, c.expect), got, want: c.expect });
    }
  } catch (e) {
    out.push({ name: 'runner', ok: false, got: { result: `threw ${e.message}` }, want: {} });
  }
  window.corpusResults = out;
})();
