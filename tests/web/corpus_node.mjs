// SPDX-License-Identifier: ISC
// tests/web/corpus_node.mjs — the feed conformance corpus
// (tests/vectors/feed-corpus/, README.md there) against the page's own
// code (web/src/judge.js: feed.js, continuity.js, note.js, rule.js) under
// Node: bundled by tests/cli/test_web.sh as make web bundles the page.
// Prints "PASS case: answer" / "FAIL case: got …, want …" per case and an
// "INFO lie -> answer" line for each, then "corpus: N of M".  Usage:
//   node corpus_node.mjs CORPUS_DIR
import { readFileSync } from 'node:fs';
import { judgeCase, sameAnswer } from '../../web/src/judge.js';

const dir = process.argv[2];
const index = JSON.parse(readFileSync(`${dir}/index.json`, 'utf8'));
const show = (a) => (a.result === 'epoch' ? `epoch ${a.epoch} opening ${a.earliest_opening}${a.recomputed ? ' (floor recomputed)' : ''}`
  : a.result === 'refuse' ? `refuse ${a.reason}${a.field ? ` (${a.field})` : ''}` : a.result);
let pass = 0;
for (const name of index.cases) {
  const c = JSON.parse(readFileSync(`${dir}/${name}/case.json`, 'utf8'));
  const text = readFileSync(`${dir}/${name}/${c.feed}`, 'utf8');
  let got;
  try { got = await judgeCase(text, c); } catch (e) { got = { result: `threw ${e.message}` }; }
  const ok = sameAnswer(got, c.expect);
  pass += ok;
  console.log(ok ? `PASS corpus ${name}: ${show(got)}` : `FAIL corpus ${name}: got ${show(got)}, want ${show(c.expect)}`);
  console.log(`INFO ${name}: ${c.lie} -> ${show(got)} (the unchecked rule: ${c.unchecked_rule_chose})`);
}
console.log(`INFO corpus: ${pass} of ${index.cases.length} cases in Node`);
process.exit(pass === index.cases.length ? 0 : 1);
