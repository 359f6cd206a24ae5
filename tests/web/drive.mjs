// SPDX-License-Identifier: ISC
// tests/web/drive.mjs — drives the beacon page in a real Chromium (Debian's
// chromium through puppeteer-core, test only) for tests/cli/test_web.sh.
// Prints one "PASS what" / "FAIL what" line per check.  Usage:
//   node drive.mjs STEP BASE_URL OUTDIR [ARGS]   ($PIN: the pin, $NOW: the feed's now)
// STEP: list     the epochs, labels, keyboard order, the choice rule, two
//                encryptions (binary classic, armored post-quantum) saved to
//                OUTDIR/dl, the "not solved yet" and "not an age file" errors,
//                screenshots OUTDIR/page.png (the top, after an encryption),
//                OUTDIR/desktop.png (the whole page) and OUTDIR/phone.png
//       big FILE a large FILE encrypted armored: progress, the page painting
//                frames meanwhile, no textarea, the download (OUTDIR/big.png)
//       beacon   a real beacon's feed ($FEED): its epochs listed, a message
//                encrypted to the epoch chosen for $WHEN ("INFO epoch E")
//       decrypt FILE EXPECT   FILE opens in the page, its text equals EXPECT's
//                (EXPECT "wait": the page says the epoch is not solved yet,
//                naming epoch $EPOCH when set, saying $SAYS too; "error:RE": the page refuses it
//                with a message matching RE); $NOTE: the .beacon note given
//                beside it; $CHOOSE_OLD: an older epoch chosen by number; $SHOT: a screenshot of the whole page after (of
//                the element $SHOT_OF when set)
//       banner STATUS [nopin] the signature banner says STATUS (refused: the pin is
//                not the feed's signer, and both keys are named; badpin: a
//                #pin that is not 64 hex digits is refused visibly)
//       keep     a failed "Check the feed" keeps the feed that verified: each
//                of $ALTS ("FILE:STATUS ...") served as $FEED in turn
//                (OUTDIR/kept.png); a reload shows the one kept in storage
// Every step also checks that the page made no request but GETs under
// BASE_URL (nothing leaves the browser).
import { mkdirSync, readdirSync, readFileSync, existsSync, copyFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const pup = (await import(pathToFileURL(`${process.env.NPM_DIR}/node_modules/puppeteer-core/lib/esm/puppeteer/puppeteer-core.js`).href)).default;
const [step, base, out, a1, a2] = process.argv.slice(2);
const pin = process.env.PIN || '';
const now = Number(process.env.NOW || Math.floor(Date.now() / 1000));
let failed = 0;
const check = (ok, what) => { console.log(`${ok ? 'PASS' : 'FAIL'} ${what}`); if (!ok) failed++; };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

mkdirSync(`${out}/dl`, { recursive: true });
const browser = await pup.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  // a fresh profile (the page's storage) per run, unless $PROFILE names one
  userDataDir: process.env.PROFILE || `${out}/profile-${step}-${process.pid}`,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--disable-gpu', '--disable-extensions'],
});
const requests = [];
try {
  const page = await browser.newPage();
  await page.emulateTimezone('UTC');
  // $CLOCK_SKEW: the page's clock that many seconds ahead of this machine's
  const skew = Number(process.env.CLOCK_SKEW || 0);
  if (skew) await page.evaluateOnNewDocument((s) => { const real = Date.now; Date.now = () => real() + s * 1000; }, skew);
  page.on('request', (r) => requests.push({ method: r.method(), url: r.url() }));
  const consoleErrors = [];
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  const cdp = await browser.target().createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: `${out}/dl`, eventsEnabled: true });
  const url = base + '/index.html' + (pin && a2 !== 'nopin' ? `#pin=${pin}` : '');
  await page.setViewport({ width: 1100, height: 900 });
  await page.goto(url, { waitUntil: 'load' });
  const status = async () => {
    await page.waitForFunction(() => {
      const s = document.getElementById('feed-banner').dataset.status;
      return s && s !== 'loading';
    }, { timeout: 15000 });
    return page.$eval('#feed-banner', (b) => ({ status: b.dataset.status, text: b.textContent }));
  };
  const text = (sel) => page.$eval(sel, (e) => e.textContent);
  const setWhen = (sec) => page.$eval('#enc-when', (e, v) => {
    e.value = v; e.dispatchEvent(new Event('input', { bubbles: true }));
  }, new Date(sec * 1000).toISOString().slice(0, 16));
  const result = async (id) => {
    await page.waitForFunction((i) => document.getElementById(i).dataset.kind, { timeout: 30000 }, id);
    return page.$eval(`#${id}`, (e) => ({ kind: e.dataset.kind, text: e.textContent }));
  };
  // $SHOT: a screenshot after the step's result: the whole page, or only
  // the element $SHOT_OF names (a long feed makes the whole page tall)
  const shot = async () => {
    if (!process.env.SHOT) return;
    const part = process.env.SHOT_OF ? await page.$(process.env.SHOT_OF) : null;
    await (part || page).screenshot({ path: process.env.SHOT, ...(part ? {} : { fullPage: true }) });
  };
  const clearResult = (id) => page.$eval(`#${id}`, (e) => { delete e.dataset.kind; e.textContent = ''; });
  const download = async (name) => {
    for (let i = 0; i < 100; i++) {
      if (existsSync(`${out}/dl/${name}`) && !readdirSync(`${out}/dl`).some((f) => f.endsWith('.crdownload'))) return true;
      await sleep(100);
    }
    return false;
  };

  if (step === 'list') {
    const s = await status();
    check(s.status === 'pinned', `pinned feed verifies (banner: ${s.status}: ${s.text.slice(0, 80)})`);
    const rows = await page.$$eval('#epoch-rows tr', (trs) => trs.map((t) => ({
      e: t.dataset.epoch, state: t.dataset.state, text: t.textContent,
      ids: [...t.querySelectorAll('a')].map((x) => x.getAttribute('href')),
      times: t.querySelectorAll('time').length, countdowns: t.querySelectorAll('.countdown').length })));
    check(rows.length === 6, `six epochs listed (${rows.length})`);
    check(rows.map((r) => r.state).join() === 'solved,released,released,released,scheduled,scheduled', `states in order (${rows.map((r) => r.state)})`);
    check(rows.every((r) => r.times >= 3 && r.countdowns === 2), 'each epoch shows its times and two countdowns');
    check(rows[0] && rows[0].ids.join() === 'identities/0-classic.txt,identities/0-pq.txt', 'the solved epoch links its identities');
    check(rows[1] && rows[1].ids.length === 0 && /expected about/.test(rows[1].text), 'an unsolved epoch says when its identity is expected');
    const feed = JSON.parse(readFileSync(process.env.FEED, 'utf8')).feed;
    check(rows.every((r, i) => feed.epochs[i].keys.every((k) => r.text.includes(k.recipient))), 'every recipient is shown');
    check(/in \d+ (h|min)/.test(rows[1].text) && /ago/.test(rows[0].text), 'countdowns read "in …" and "… ago"');

    // labels and keyboard
    const unlabelled = await page.$$eval('input, select, textarea', (els) =>
      els.filter((e) => !e.labels || e.labels.length === 0).map((e) => e.id || e.name));
    check(unlabelled.length === 0, `every control has a label (${unlabelled.join(' ') || 'all'})`);
    const seen = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      seen.push(await page.evaluate(() => document.activeElement.id || document.activeElement.tagName));
    }
    const want = ['pin', 'enc-when', 'enc-kind-classic', 'enc-what-text', 'enc-text', 'enc-armor', 'enc-go', 'dec-file', 'dec-note', 'dec-epoch', 'dec-go'];
    const missing = want.filter((w) => !seen.includes(w));
    check(missing.length === 0, `Tab reaches every control (missing: ${missing.join(' ') || 'none'})`);
    const order = want.map((w) => seen.indexOf(w));
    check(order.every((v, i) => i === 0 || v > order[i - 1]), 'Tab order follows the page');

    // the epoch choice rule (the same as rxlock encrypt --open-after)
    check((await text('#enc-choice')).startsWith('Pick'), 'no date yet: asks for one');
    // epochs 1-3 are released (encrypt_until passed): in 1 h gives 4, in 4 h gives 5
    await setWhen(now + 3600);
    check(/^Epoch 4:/.test(await text('#enc-choice')), `in 1 h: epoch 4 (${await text('#enc-choice')})`);
    await setWhen(now + 4 * 3600);
    check(/^Epoch 5:/.test(await text('#enc-choice')), 'in 4 h: epoch 5');
    await setWhen(now + 30 * 3600);
    check(/^No classic epoch/.test(await text('#enc-choice')), 'past the last epoch: says none opens that late');
    await page.click('#enc-go');
    let r = await result('enc-result');
    check(r.kind === 'error' && /no epoch/.test(r.text), `encrypting then is refused, said plainly (${r.text})`);

    // encrypt text, binary, classic -> OUTDIR/dl/message.txt.epoch-4.age
    await setWhen(now + 3600);
    await page.type('#enc-text', 'hello from the browser, to epoch 4\n');
    await clearResult('enc-result');
    await page.click('#enc-go');
    r = await result('enc-result');
    check(r.kind === 'ok' && /epoch 4 \(classic\)/.test(r.text), `encrypted to epoch 4 (${r.text.slice(0, 60)})`);
    await page.click('#enc-download');
    check(await download('message.txt.epoch-4.age'), 'the age file downloads, named by its epoch');
    // the picture for docs/: the epochs and a message just encrypted
    const bottom = await page.$eval('#enc-result', (e) => e.getBoundingClientRect().bottom + window.scrollY + 12);
    await page.screenshot({ path: `${out}/page.png`, clip: { x: 0, y: 0, width: 1100, height: Math.ceil(bottom) } });

    // armored, post-quantum, a file
    await page.click('#enc-kind-pq');
    await page.click('#enc-what-file');
    await page.click('#enc-armor');
    const up = await page.$('#enc-file');
    await up.uploadFile(a1);
    await clearResult('enc-result');
    await page.click('#enc-go');
    r = await result('enc-result');
    const fname = a1.split('/').pop();
    check(r.kind === 'ok' && /epoch 4 \(post-quantum\)/.test(r.text), `file encrypted, post-quantum (${r.text.slice(0, 60)})`);
    const armored = await page.$eval('#enc-armored', (e) => e.value);
    check(armored.startsWith('-----BEGIN AGE ENCRYPTED FILE-----'), 'armored text shown');
    await page.click('#enc-download');
    check(await download(`${fname}.epoch-4.age`), 'the armored file downloads');

    // decrypt before the identity is out, and a wrong file
    const dec = await page.$('#dec-file');
    await dec.uploadFile(`${out}/dl/message.txt.epoch-4.age`);
    await page.click('#dec-go');
    r = await result('dec-result');
    check(r.kind === 'wait' && /Epoch 4 is not solved yet/.test(r.text), `before solving: says when (${r.text.slice(0, 70)})`);
    await dec.uploadFile(a1);
    await clearResult('dec-result');
    await page.click('#dec-go');
    r = await result('dec-result');
    check(r.kind === 'error' && /not an age file/.test(r.text), `a wrong file is named as such (${r.text})`);

    await page.screenshot({ path: `${out}/desktop.png`, fullPage: true });
    await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });   // reloads the page
    await status();
    await page.evaluate(() => window.scrollTo(0, 0));
    await sleep(200);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    check(wide <= 390, `phone-sized viewport: no sideways scrolling (${wide} px)`);
    await page.screenshot({ path: `${out}/phone.png`, fullPage: false });
    check(consoleErrors.length === 0, `no script errors (${consoleErrors.join('; ')})`);
  } else if (step === 'big') {
    // a large file, armored (a1): built as a download without the textarea,
    // with progress, the page painting frames while it works
    const s = await status();
    check(s.status === 'pinned', 'pinned feed verifies');
    await setWhen(now + 3600);
    await page.click('#enc-what-file');
    await page.click('#enc-armor');
    await (await page.$('#enc-file')).uploadFile(a1);
    // every animation frame during the encryption records the progress bar:
    // a tab that froze would paint none
    await page.evaluate(() => {
      window.frames_seen = [];
      const bar = document.getElementById('enc-progress');
      const tickf = () => { if (!bar.hidden) window.frames_seen.push([bar.value, bar.max]); requestAnimationFrame(tickf); };
      requestAnimationFrame(tickf);
    });
    await page.click('#enc-go');
    let shot = false;
    for (let i = 0; i < 1200 && !shot; i++) {
      const mid = await page.evaluate(() => window.frames_seen.some(([v, m]) => v > 0 && v < m));
      if (mid) { await page.screenshot({ path: `${out}/big.png` }); shot = true; }
      else if (await page.$eval('#enc-result', (e) => e.dataset.kind !== 'busy')) break;
      await sleep(50);
    }
    await page.waitForFunction(() => ['ok', 'error'].includes(document.getElementById('enc-result').dataset.kind), { timeout: 180000 });
    const r = await page.$eval('#enc-result', (e) => ({ kind: e.dataset.kind, text: e.textContent }));
    const fname = a1.split('/').pop();
    check(r.kind === 'ok' && /epoch 4 \(classic\)/.test(r.text), `the large file is encrypted (${r.text.slice(0, 80)})`);
    const frames = await page.evaluate(() => window.frames_seen);
    const mid = frames.filter(([v, m]) => v > 0 && v < m).length;
    check(mid > 0, `the page kept painting while it encrypted, the progress bar moving (${frames.length} frames, ${mid} mid-way)`);
    check(await page.$eval('#enc-armored-field', (e) => e.hidden && !document.getElementById('enc-armored').value),
      'the armored text is not put into a textarea');
    check(await page.$eval('#enc-progress', (e) => e.hidden), 'the progress bar is gone when done');
    await page.click('#enc-download');
    check(await download(`${fname}.epoch-4.age`), 'the armored file downloads');
  } else if (step === 'beacon') {
    // a real beacon's feed (rxlock beacon run): every epoch listed, the
    // choice for $WHEN reported ("INFO epoch E") and a message encrypted to it
    const s = await status();
    check(s.status === 'pinned', `the beacon's feed verifies against its pin (${s.status}: ${s.text.slice(0, 80)})`);
    const feed = JSON.parse(readFileSync(process.env.FEED, 'utf8')).feed;
    const rows = await page.$$eval('#epoch-rows tr', (trs) => trs.map((t) => ({ e: t.dataset.epoch, state: t.dataset.state, text: t.textContent })));
    check(rows.length === feed.epochs.length && rows.every((r, i) => r.e === String(feed.epochs[i].index) && r.state === feed.epochs[i].state),
          `the page lists the beacon's ${feed.epochs.length} epochs (${rows.map((r) => r.e + ':' + r.state).join(' ')})`);
    check(rows.every((r, i) => r.text.includes(feed.epochs[i].keys[0].recipient)), 'with their recipients');
    await setWhen(Number(process.env.WHEN));
    const choice = await text('#enc-choice');
    const m = /^Epoch (\d+):/.exec(choice);
    check(m !== null, `an epoch is chosen for the date (${choice})`);
    if (m) console.log(`INFO epoch ${m[1]}`);
    await page.type('#enc-text', 'hello from the browser, to a real beacon\n');
    await page.click('#enc-go');
    const r = await result('enc-result');
    check(r.kind === 'ok', `encrypted (${r.text.slice(0, 60)})`);
    await page.click('#enc-download');
    check(m && await download(`message.txt.epoch-${m[1]}.age`), 'downloaded');
    await page.click('#enc-note-download');
    check(m && await download(`message.txt.epoch-${m[1]}.age.beacon`), 'its .beacon note downloaded');
  } else if (step === 'decrypt') {
    const s = await status();
    check(s.status === 'pinned', `pinned feed verifies (${s.status}: ${s.text.slice(0, 160)})`);
    const dec = await page.$('#dec-file');
    await dec.uploadFile(a1);
    if (process.env.NOTE) await (await page.$('#dec-note')).uploadFile(process.env.NOTE);
    if (process.env.CHOOSE_OLD) {
      // an older epoch by its number: the field shows only once it is chosen
      await page.select('#dec-epoch', 'archived');
      check(await page.$eval('#dec-epoch-old-field', (e) => !e.hidden), 'the older epoch\'s number field shows');
      await page.type('#dec-epoch-old', process.env.CHOOSE_OLD);
    }
    await page.click('#dec-go');
    const r = await result('dec-result');
    if (a2 === 'wait') {
      // $EPOCH: the epoch the message must name (the .beacon note's)
      const ep = process.env.EPOCH ? `Epoch ${process.env.EPOCH} ` : '';
      // ($WAIT_RE: what must follow, when not "is not solved yet ... expected about")
      check(r.kind === 'wait' && new RegExp(`${ep}${process.env.WAIT_RE || 'is not solved yet.*expected about'}`).test(r.text),
        `before its epoch is solved the page says when${ep ? `, naming ${ep.trim()}` : ''} (${r.text.slice(0, 90)})`);
      // $SAYS: and the message says this too
      if (process.env.SAYS) check(r.text.includes(process.env.SAYS), `... and says "${process.env.SAYS}"`);
      await shot();
    } else if (a2.startsWith('error:')) {
      // the page refuses, saying why (the text after "error:", a pattern)
      check(r.kind === 'error' && new RegExp(a2.slice(6)).test(r.text), `the page refuses ${a1.split('/').pop()} (${r.text.slice(0, 120)})`);
      await shot();
    } else if (a2 === 'unknown') {
      // no note, no epoch in the name: it names no epoch rather than a wrong one
      check(r.kind === 'wait' && /nothing says which epoch/.test(r.text) && !/Epoch \d+ is not solved/.test(r.text),
        `with no note and no epoch in its name the page asks for the note (${r.text.slice(0, 90)})`);
    } else {
      check(r.kind === 'ok', `${a1.split('/').pop()} opens in the page (${r.text.slice(0, 80)})`);
      const got = await page.$eval('#dec-text', (e) => e.value);
      check(got === readFileSync(a2, 'utf8'), 'the decrypted text is the original');
      await shot();
    }
  } else if (step === 'keep') {
    // a failed "Check the feed" keeps the feed that had verified: $ALTS is
    // "FILE:STATUS ...", each served in turn as $FEED and checked again
    const s = await status();
    check(s.status === 'pinned', 'the good feed verifies');
    const good = readFileSync(process.env.FEED);
    const rowsOf = () => page.$$eval('#epoch-rows tr[data-epoch]', (t) => t.length);
    const want = await rowsOf();
    try {
      for (const alt of (process.env.ALTS || '').split(' ').filter(Boolean)) {
        const [file, st] = alt.split(':');
        copyFileSync(file, process.env.FEED);
        await page.$eval('#feed-banner', (b) => { b.dataset.status = 'loading'; });
        await page.click('#pin-form button[type="submit"]');
        const got = await status();
        check(got.status === st, `${file.split('/').pop()}: the banner says ${st} (${got.status}: ${got.text.slice(0, 120)})`);
        check(/Still showing the feed that had verified/.test(got.text), `${file.split('/').pop()}: the verified feed is kept, and the banner says so`);
        check(await rowsOf() === want && want > 0, `${file.split('/').pop()}: its ${want} epochs stay listed`);
        check(await page.$eval('#enc-go', (b) => !b.disabled), `${file.split('/').pop()}: encryption to the kept feed stays possible`);
        if (st === 'refused') await page.screenshot({ path: `${out}/kept.png` });
      }
      // a reload serving the last alternative: the feed kept in the
      // browser's storage is shown (the page was closed in between)
      const page2 = await browser.newPage();
      await page2.goto(url, { waitUntil: 'load' });
      await page2.waitForFunction(() => !['loading', undefined].includes(document.getElementById('feed-banner').dataset.status), { timeout: 15000 });
      const t2 = await page2.$eval('#feed-banner', (b) => b.textContent);
      check(/Still showing the feed that had verified/.test(t2), `after a reload the feed kept in the browser's storage is shown (${t2.slice(0, 100)})`);
    } finally {
      writeFileSync(process.env.FEED, good);
    }
  } else if (step === 'banner') {
    const s = await status();
    const wantStatus = a1 === 'badpin' ? 'error' : a1;
    check(s.status === wantStatus, `banner: ${wantStatus} (got ${s.status}: ${s.text.slice(0, 90)})`);
    const visible = await page.$eval('#feed-banner', (b) => b.offsetHeight > 0 && getComputedStyle(b).visibility !== 'hidden');
    check(visible, 'the banner is visible');
    if (a1 === 'bad') check(await page.$eval('#enc-go', (b) => b.disabled), 'encryption is disabled under a bad signature');
    if (a1 === 'badpin') {
      // a #pin of the wrong length is refused visibly, not dropped
      check(/not 64 hex digits/.test(s.text), `a bad #pin is refused in the banner (${s.text.slice(0, 100)})`);
      check(await page.$eval('#pin', (e) => e.value === e.ownerDocument.defaultView.location.hash.slice(5) &&
        e.getAttribute('aria-invalid') === 'true'), 'the bad pin is shown in the pin field, marked invalid');
      check(!requests.some((r) => r.url.endsWith('/feed.json')), 'no feed is loaded unpinned in its place');
      await page.screenshot({ path: `${out}/badpin.png`, clip: { x: 0, y: 0, width: 1100, height: 420 } });
    }
    if (a1 === 'refused') {
      // a pin that is not the feed's signer: refused naming both keys
      check(await page.$eval('#enc-go', (b) => b.disabled), 'encryption is disabled under a refused feed');
      check(new RegExp(`signed by [0-9a-f]{64}, not by ${pin}`).test(s.text), 'the refusal names both keys');
    }
    if (a1 === 'unpinned') check(/not pinned/i.test(s.text), 'the warning says the feed is not pinned');
  } else {
    throw new Error(`unknown step ${step}`);
  }
} catch (e) {
  check(false, `${step}: ${e.stack || e}`);
} finally {
  await browser.close();
}
// data: URLs (Chromium's own date-picker icon) and the page's blob: downloads never leave the browser
const bad = requests.filter((r) => r.method !== 'GET' ||
  !(r.url.startsWith(base + '/') || r.url.startsWith(`blob:${base}/`) || r.url.startsWith('data:')));
check(requests.length > 0 && bad.length === 0, `only GETs under the beacon's URL (${requests.length} requests${bad.length ? '; not: ' + bad.map((r) => r.method + ' ' + r.url).join(', ') : ''})`);
process.exit(failed ? 1 : 0);
