// SPDX-License-Identifier: ISC
// tests/web/corpus_chromium.mjs — the feed conformance corpus in Chromium
// (Debian's chromium through puppeteer-core, test only), for
// tests/cli/test_web.sh, two ways:
//   module  runner.html runs web/src/judge.js over every case in the
//           browser's JS engine and WebCrypto (tests/web/corpus_page.mjs)
//   page    every case through the page itself, as a person would meet it:
//           BASE/NAME/ serves the page with the case's feed.json; the
//           page's clock is set to the case's `now`, its storage holds the
//           case's `previous` (?now= and ?prev=, read by a script the test
//           puts before the page's), #pin= its pin; a named rotation is accepted
//           with the page's button; then the date and kind are entered (a
//           `note` case: a file and its .beacon note given to Decrypt) and
//           the page's answer read from its data-* attributes
//           (data-epoch / data-earliest / data-recomputed, data-reason /
//           data-field) and compared with the case's `expect`.
// Prints PASS / FAIL per case and "INFO NAME: lie -> what the page said".
// Screenshots of the lies named in $SHOTS_OF go to OUTDIR/lie-NAME.png.
// Usage: node corpus_chromium.mjs BASE_URL CORPUS_DIR OUTDIR AGEFILE
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const pup = (await import(pathToFileURL(`${process.env.NPM_DIR}/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js`).href)).default;
const [base, dir, out, ageFile] = process.argv.slice(2);
const shotsOf = (process.env.SHOTS_OF || '').split(/\s+/).filter(Boolean);
let failed = 0;
const check = (ok, what) => { console.log(`${ok ? 'PASS' : 'FAIL'} ${what}`); if (!ok) failed++; };
const show = (a) => (a.result === 'epoch' ? `epoch ${a.epoch} opening ${a.earliest_opening}${a.recomputed ? ' (floor recomputed)' : ''}`
  : a.result === 'refuse' ? `refuse ${a.reason}${a.field ? ` (${a.field})` : ''}` : a.result);
const same = (got, want) => got.result === want.result && (want.result === 'epoch'
  ? got.epoch === want.epoch && got.earliest_opening === want.earliest_opening && got.recomputed === want.recomputed
  : want.result === 'refuse' ? got.reason === want.reason && got.field === want.field : true);
mkdirSync(out, { recursive: true });
const index = JSON.parse(readFileSync(`${dir}/index.json`, 'utf8'));

const browser = await pup.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  userDataDir: `${out}/profile-corpus-${process.pid}`,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--disable-gpu', '--disable-extensions'],
});
const requests = [];
try {
  // ---- module: judge.js over the corpus in the browser -------------------
  {
    const page = await browser.newPage();
    page.on('request', (r) => requests.push({ method: r.method(), url: r.url() }));
    await page.goto(`${base}/runner.html`, { waitUntil: 'load' });
    await page.waitForFunction(() => window.corpusResults, { timeout: 30000 });
    const res = await page.evaluate(() => window.corpusResults);
    const ed = await page.evaluate(() => window.corpusEd25519);
    let pass = 0;
    for (const r of res) {
      pass += r.ok;
      check(r.ok, `chromium module ${r.name}: ${r.ok ? show(r.got) : `got ${show(r.got)}, want ${show(r.want)}`}`);
    }
    console.log(`INFO corpus: ${pass} of ${index.cases.length} cases in Chromium (judge.js, Ed25519 by ${ed})`);
    check(res.length === index.cases.length, `chromium module: every case ran (${res.length})`);
    await page.close();
  }

  // ---- page: every case through the page ----------------------------------
  // one tab for every case: the case's clock (?now=, whole seconds: the page
  // reads Date.now) and its `previous` in the page's storage (?prev=) are
  // set by a script that runs before the page's own
  const page = await browser.newPage();
  page.on('request', (r) => requests.push({ method: r.method(), url: r.url() }));
  let errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.emulateTimezone('UTC');
  await page.setViewport({ width: 1100, height: 900 });
  await page.evaluateOnNewDocument(() => {
    const q = new URLSearchParams(location.search);
    if (q.get('now')) {
      const skew = Number(q.get('now')) * 1000 - Date.now();
      const real = Date.now;
      Date.now = () => real() + skew;
    }
    if (q.get('prev')) localStorage.setItem(`rxlock-beacon-seen:${new URL('feed.json', location.href).href}`, atob(q.get('prev')));
  });
  let pass = 0;
  for (const name of index.cases) {
    const c = JSON.parse(readFileSync(`${dir}/${name}/case.json`, 'utf8'));
    errors = [];
    const prev = c.previous ? `&prev=${encodeURIComponent(Buffer.from(JSON.stringify(c.previous)).toString('base64'))}` : '';
    let got;
    try {
      await page.goto(`${base}/${name}/index.html?now=${c.now}${prev}${c.pin ? `#pin=${c.pin}` : ''}`, { waitUntil: 'load' });
      const settled = () => page.waitForFunction(() => {
        const s = document.getElementById('feed-banner').dataset.status;
        return s && s !== 'loading';
      }, { timeout: 15000 });
      await settled();
      if (c.accept_signer) {
        const label = await page.$eval('#accept-signer', (b) => b.textContent).catch(() => '');
        check(label.includes(c.accept_signer.slice(0, 16)), `page ${name}: the page offers to accept the new signer (${label})`);
        if (label.includes(c.accept_signer.slice(0, 16))) {
          await page.click('#accept-signer');
          await page.waitForFunction(() => !document.getElementById('accept-signer'), { timeout: 15000 });
          await settled();
        }
      }
      const ban = await page.$eval('#feed-banner', (b) => ({ status: b.dataset.status, reason: b.dataset.reason || '',
        field: b.dataset.field || '', text: b.textContent }));
      const hasBody = await page.$$eval('#epoch-rows tr[data-epoch]', (t) => t.length > 0);   // the feed is in use
      if (!hasBody) {
        got = { result: 'refuse', reason: ban.reason, field: ban.field };
      } else if (c.op === 'note') {
        const note = { rxlock_beacon_ref: 1, layers: [{ feed: base, ...c.note }] };
        const nf = `${out}/${name}.age.beacon`;
        writeFileSync(nf, JSON.stringify(note, null, 1) + '\n');
        await (await page.$('#dec-file')).uploadFile(ageFile);
        await (await page.$('#dec-note')).uploadFile(nf);
        await page.click('#dec-go');
        await page.waitForFunction(() => document.getElementById('dec-result').dataset.kind, { timeout: 15000 });
        const r = await page.$eval('#dec-result', (e) => ({ kind: e.dataset.kind, reason: e.dataset.reason || '',
          field: e.dataset.field || '', text: e.textContent }));
        got = r.reason ? { result: 'refuse', reason: r.reason, field: r.field }
          : r.kind === 'wait' && new RegExp(`Epoch ${c.note.epoch} `).test(r.text) ? { result: 'ok' } : { result: `page said: ${r.text}` };
        got.text = r.text;
      } else {
        await page.click(`#enc-kind-${c.kind}`);
        await page.$eval('#enc-when', (e, v) => { e.value = v; e.dispatchEvent(new Event('input', { bubbles: true })); },
          new Date(c.open_after * 1000).toISOString().slice(0, 19));
        const ch = await page.$eval('#enc-choice', (e) => ({ ...e.dataset, text: e.textContent }));
        got = ch.epoch !== undefined
          ? { result: 'epoch', epoch: Number(ch.epoch), earliest_opening: Number(ch.earliest), recomputed: ch.recomputed === 'true' }
          : { result: 'refuse', reason: ch.reason || '', field: ch.field || '' };
        got.text = ch.text;
      }
      got.banner = ban.text;
      if (shotsOf.includes(name)) await page.screenshot({ path: `${out}/lie-${name}.png`, fullPage: true });
    } catch (e) {
      got = { result: `the page run failed: ${e.message}` };
    }
    const ok = same(got, c.expect) && errors.length === 0;
    pass += ok;
    check(ok, `chromium page ${name}: ${ok ? show(got) : `got ${show(got)}, want ${show(c.expect)}${errors.length ? `; script errors: ${errors.join('; ')}` : ''}`}`);
    console.log(`INFO ${name}: ${c.lie} -> the page: [${(got.banner || '').replace(/\s+/g, ' ').slice(0, 220)}] ` +
      `${(got.text || '').replace(/\s+/g, ' ').slice(0, 260)}`);
  }
  console.log(`INFO corpus: ${pass} of ${index.cases.length} cases through the page in Chromium`);

  // a dead beacon's file: the page says its epoch was not released on time
  // and when its sealed release opens it (not "expected about <a past time>")
  if (index.cases.includes('dead-beacon')) {
    const c = JSON.parse(readFileSync(`${dir}/dead-beacon/case.json`, 'utf8'));
    const body = JSON.parse(readFileSync(`${dir}/dead-beacon/${c.feed}`, 'utf8')).feed;
    const e = body.epochs.find((x) => x.state === 'scheduled' && x.keys[0].sealed !== null && c.now - x.release > 2 * body.beacon.every);
    if (e) {
      const nf = `${out}/dead-beacon.age.beacon`;
      writeFileSync(nf, JSON.stringify({ rxlock_beacon_ref: 1, layers: [{ feed: base, signer: body.beacon.signer, epoch: e.index,
        kind: e.keys[0].kind, recipient: e.keys[0].recipient, earliest_opening: e.earliest_opening }] }) + '\n');
      await page.goto(`${base}/dead-beacon/index.html?now=${c.now}`, { waitUntil: 'load' });
      await page.waitForFunction(() => !['loading', undefined].includes(document.getElementById('feed-banner').dataset.status), { timeout: 15000 });
      await (await page.$('#dec-file')).uploadFile(ageFile);
      await (await page.$('#dec-note')).uploadFile(nf);
      await page.click('#dec-go');
      await page.waitForFunction(() => document.getElementById('dec-result').dataset.kind, { timeout: 15000 });
      const r = await page.$eval('#dec-result', (x) => x.textContent);
      check(new RegExp(`Epoch ${e.index} was not released on time.*sealed release`).test(r), `dead beacon: the page says the epoch was not released on time (${r.slice(0, 120)})`);
      console.log(`INFO dead-beacon, decrypting a file for epoch ${e.index}: ${r.replace(/\s+/g, ' ')}`);
    }
  }
} catch (e) {
  check(false, `corpus: ${e.stack || e}`);
} finally {
  await browser.close();
}
const bad = requests.filter((r) => r.method !== 'GET' || !(r.url.startsWith(base + '/') || r.url.startsWith('data:') || r.url.startsWith(`blob:${base}/`)));
check(requests.length > 0 && bad.length === 0, `corpus: only GETs under the test server (${requests.length} requests)`);
process.exit(failed ? 1 : 0);
