# SPDX-License-Identifier: ISC
# tests/cli/test_web.sh — the beacon's web page (make web) in a real browser:
# Debian's chromium driven by puppeteer-core (npm, test only, installed into
# the git-ignored build/npm like the other npm oracles) against a beacon
# public directory served by python3 -m http.server on 127.0.0.1.  The feed
# is made here (tests/web/mkfeed.mjs: Ed25519-signed, three epochs, keys from
# rxlock keygen).  Checks: feed.js and rule.js under Node (strict parser,
# canon, both signature paths, both roundings of F, the checked choice
# rule), encrypt_stream.js and decrypt_stream.js under Node; the feed conformance corpus
# (tests/vectors/feed-corpus/) in Node, in Chromium and through the page
# itself; the page lists the epochs; a message and a file encrypted in the
# page open with rxlock decrypt and Debian's age, a 50 MB armored file too
# (with progress, the tab painting meanwhile, no textarea); a file encrypted
# by rxlock opens in the page once the epoch's identity is published, and
# before that the page says when, naming the epoch of its .beacon note; a
# tampered feed shows the warning (pinned and not), a pin that is not the
# signer is refused naming both keys, a bad #pin is refused visibly, a
# failed check keeps the feed that verified (tampered, rolled back, after a
# reload), an unpinned one warns, a missing feed is an error; a beacon past
# 2,000 epochs: a file of an epoch that left the feed opens through the
# signed archive page (or its identity published after the page), a
# tampered page or a wrong identity refused; labels, Tab
# order, a phone-sized viewport; no request but GETs under the beacon's
# URL.  Screenshots go to $BUILD/web-test/ (and the top of the page, after
# an encryption, to $RXLOCK_WEB_SCREENSHOT when set: docs/web-page.png is
# made so).  Skipped with one line when Node >= 20 or the npm registry is
# missing; without chromium, python3 or puppeteer-core only the Node part
# runs.
. tests/cli/lib.sh
. tests/cli/npm_oracle.sh
R=$RXLOCK
SRC=$PWD
B=$(dirname "$RXLOCK")
BR=${B#"$PWD"/}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
# Node and make web first: the page's modules and the corpus run under Node
# even where no browser is installed
if ! command -v node >/dev/null 2>&1 || [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 20 ]; then
  echo "SKIP: Node >= 20 not installed; the web page tests not run"; summary; exit
fi
if ! make -s BUILD="$BR" web >"$TMP/make-web.log" 2>&1; then
  echo "SKIP: make web failed (no npm registry?): $(tail -n 1 "$TMP/make-web.log"); the web page tests not run"; summary; exit
fi
WEB=$B/web
NODE_MODS=$SRC/$BR/web-npm/node_modules
SHOTS=$SRC/$BR/web-test
mkdir -p "$SHOTS"

cd "$TMP" || exit 1
# The page's modules under Node, bundled with their npm packages the way
# make web does: feed.js and rule.js (feed_test), encrypt_stream.js and
# decrypt_stream.js (stream_test)
NODE_PATHS=$NODE_MODS:$SRC/$BR/web-gen        # the npm packages and the generated floor rows (make web)
run_lines() {   # PREFIX FILE: each PASS / FAIL line of FILE is a check
  while IFS= read -r line; do
    case $line in PASS\ *) ok;; FAIL\ *) fail "$1: ${line#FAIL }";; esac
  done < "$2"
  grep -q '^PASS' "$2" || { fail "$1 printed nothing"; tail -n 20 "$2" >&2; }
}
for t in feed_test stream_test; do
  check "$t bundle" sh -c "NODE_PATH='$NODE_PATHS' '$NODE_MODS/.bin/esbuild' '$SRC/tests/web/$t.mjs' \
    --bundle --platform=node --format=esm --log-level=warning --outfile=$t.mjs"
  node $t.mjs > $t.out 2>&1
  run_lines "$t" $t.out
done

# The page's floor rows (make web generates them from floor.c's built-in
# table) are the C client's: beacon init without --floor-table writes the
# fastest built-in row of each work, rounded up, into beacon.json
for w in randomx-v2 randomx-v1 sha3-256; do
  check "the page's $w floor row is the built-in table's" sh -c "'$R' beacon init 'floor-$w' --work $w --groups 1 \
    --steps 1000 --every 1h --start +1d >/dev/null 2>&1 && node -e '
      const rows = require(\"$SRC/$BR/web-gen/floor_rows.json\");
      const b = JSON.parse(require(\"fs\").readFileSync(\"floor-$w/beacon.json\", \"utf8\"));
      process.exit(rows[\"$w\"].rate_mhps === b.floor.rate_mhps && rows[\"$w\"].row === b.floor.row ? 0 : 1)'"
done

# The feed conformance corpus (tests/vectors/feed-corpus/, the C runner is
# tests/test_feed_corpus.c): the page's own code (web/src/judge.js) under
# Node, then in Chromium twice: the same code in the browser, and every case
# through the page itself (tests/web/corpus_chromium.mjs).  The INFO lines
# (what each lie got) go to $BUILD/web-test/corpus.txt.
CORPUS=$SRC/tests/vectors/feed-corpus
mkdir corpus-www
check "corpus runner bundles" sh -c "NODE_PATH='$NODE_PATHS' '$NODE_MODS/.bin/esbuild' '$SRC/tests/web/corpus_node.mjs' \
  --bundle --platform=node --format=esm --log-level=warning --outfile=corpus_node.mjs &&
  NODE_PATH='$NODE_PATHS' '$NODE_MODS/.bin/esbuild' '$SRC/tests/web/corpus_page.mjs' \
  --bundle --format=iife --target=es2020 --log-level=warning --outfile=corpus-www/corpus_run.js"
node corpus_node.mjs "$CORPUS" > corpus_node.out 2>&1
run_lines "corpus in Node" corpus_node.out
grep -h '^INFO corpus:' corpus_node.out

# the browser: Debian's chromium, driven by puppeteer-core
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium not installed (apt-get install chromium); the browser tests not run"; summary; exit
fi
if ! command -v python3 >/dev/null 2>&1; then
  echo "SKIP: python3 not installed (the test's static server); the browser tests not run"; summary; exit
fi
if ! npm_oracle_ready "puppeteer-core@24.43.1" "node_modules/puppeteer-core/package.json"; then
  echo "SKIP: $NPM_SKIP; the browser tests not run"; summary; exit
fi
printf '<!doctype html>\n<meta charset="utf-8"><title>feed corpus</title><script src="corpus_run.js"></script>\n' > corpus-www/runner.html
cp -R "$CORPUS" corpus-www/corpus
mkdir corpus-www/page
cp "$WEB/index.html" "$WEB/app.js" "$WEB/style.css" corpus-www/page/
for c in $(node -e "console.log(require('$CORPUS/index.json').cases.join(' '))"); do
  mkdir "corpus-www/$c"
  for f in index.html app.js style.css; do ln -s "../page/$f" "corpus-www/$c/$f"; done
  cp "$CORPUS/$c/feed.json" "corpus-www/$c/feed.json"
done
printf 'age-encryption.org/v1\n-> X25519 AAAA\nAAAA\n--- AAAA\n' > corpus-fake.age

# a beacon public directory: the page, a signed feed, epoch 0's identities
mkdir keys pub
for e in 0 1 2 3 4 5; do
  "$R" keygen -o "keys/e$e-classic.key" > "keys/e$e-classic.rcp" 2>/dev/null
  "$R" keygen --pq -o "keys/e$e-pq.key" > "keys/e$e-pq.rcp" 2>/dev/null
done
NOW=$(date +%s)
check "the test feed" node "$SRC/tests/web/mkfeed.mjs" make pub keys "$NOW"
PIN=$(cat keys/pin)
cp "$WEB/index.html" "$WEB/app.js" "$WEB/style.css" pub/

# serve DIR: a static server for DIR on a free port of 127.0.0.1 (BASE);
# the previous one stops
SERVER=""
trap '[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$TMP"' EXIT
serve() {
  [ -n "$SERVER" ] && { kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; }
  python3 -u -m http.server --bind 127.0.0.1 --directory "$1" 0 > server.log 2>&1 &
  SERVER=$!
  PORT=""
  for _ in $(seq 50); do
    PORT=$(sed -n 's/.*port \([0-9][0-9]*\).*/\1/p' server.log | head -n 1)
    [ -n "$PORT" ] && break
    sleep 0.1
  done
  check "a static server for $1" test -n "$PORT"
  BASE="http://127.0.0.1:$PORT"
}
serve corpus-www
SHOTS_OF="clock-50m-behind slower-floor-1h other-signer-seen older-feed sealed-opening-lie note-other-opening" \
  NPM_DIR="$NPM_DIR" CHROMIUM="$CHROMIUM" node "$SRC/tests/web/corpus_chromium.mjs" "$BASE" "$CORPUS" "$TMP/out" \
  "$TMP/corpus-fake.age" > corpus_chromium.out 2> corpus_chromium.err
run_lines "corpus in Chromium" corpus_chromium.out
grep -h '^INFO' corpus_node.out corpus_chromium.out > "$SHOTS/corpus.txt"
grep -h '^INFO corpus:' corpus_chromium.out
cp out/lie-*.png "$SHOTS/" 2>/dev/null

serve pub
FEEDFILE=$TMP/pub/feed.json

# drive STEP [ARGS]: one browser session; each PASS / FAIL line is a check
drive() {
  NPM_DIR="$NPM_DIR" CHROMIUM="$CHROMIUM" PIN="$PIN" NOW="$NOW" FEED="$FEEDFILE" WHEN="$WHEN" \
    node "$SRC/tests/web/drive.mjs" "$1" "$BASE" "$TMP/out" "$2" "$3" > drive.out 2> drive.err
  while IFS= read -r line; do
    case $line in PASS\ *) ok;; FAIL\ *) fail "web $1: ${line#FAIL }";; esac
  done < drive.out
  grep -q '^PASS' drive.out || { fail "web $1: the browser run printed nothing"; tail -n 20 drive.err >&2; }
}

head -c 3000 /dev/urandom | base64 > upload.txt
drive list "$TMP/upload.txt"
D=out/dl
# what the page encrypted opens with rxlock and with Debian's age
printf 'hello from the browser, to epoch 4\n' > msg1
check "rxlock decrypt opens the page's message (epoch 4, classic)" \
  "$R" decrypt -i keys/e4-classic.key -o m1.rx "$D/message.txt.epoch-4.age"
check "  same text" cmp -s msg1 m1.rx
check "age -d opens the page's message" age -d -i keys/e4-classic.key -o m1.age "$D/message.txt.epoch-4.age"
check "  same text" cmp -s msg1 m1.age
check "the page's armored post-quantum file is armored" grep -q '^-----BEGIN AGE ENCRYPTED FILE-----' "$D/upload.txt.epoch-4.age"
check "rxlock decrypt opens it (epoch 4, post-quantum)" \
  "$R" decrypt -i keys/e4-pq.key -o up.rx "$D/upload.txt.epoch-4.age"
check "  same bytes" cmp -s upload.txt up.rx
check "the classic identity does not open the post-quantum file" \
  sh -c "! '$R' decrypt -i keys/e4-classic.key -o nope '$D/upload.txt.epoch-4.age' 2>/dev/null"

# 50 MB armored: a download built without the textarea, with progress
head -c 50000000 /dev/urandom > big.bin
drive big "$TMP/big.bin"
check "the page's armored 50 MB file is armored" sh -c "head -n 1 '$D/big.bin.epoch-4.age' | grep -q '^-----BEGIN AGE ENCRYPTED FILE-----\$' &&
  tail -n 1 '$D/big.bin.epoch-4.age' | grep -q '^-----END AGE ENCRYPTED FILE-----\$'"
check "rxlock decrypt opens it" "$R" decrypt -i keys/e4-classic.key -o big.rx "$D/big.bin.epoch-4.age"
check "  same bytes" cmp -s big.bin big.rx
rm -f big.bin big.rx "$D/big.bin.epoch-4.age"
cp out/big.png "$SHOTS/" 2>/dev/null

# a file encrypted by rxlock to epoch 3 (released) opens in the page once it is solved
printf 'sealed by the CLI for epoch 3\n' > cli.txt
check "rxlock encrypt to epoch 3's recipient" "$R" encrypt -r "$(cat keys/e3-classic.rcp)" -o from-cli.age cli.txt
cp pub/feed.json feed.before-solve
check "epoch 3 solved, identities published" node "$SRC/tests/web/mkfeed.mjs" solve pub keys 3
drive decrypt "$TMP/from-cli.age" "$TMP/cli.txt"
check "an armored post-quantum file opens too" "$R" encrypt -a -r "$(cat keys/e3-pq.rcp)" -o from-cli-pq.age cli.txt
drive decrypt "$TMP/from-cli-pq.age" "$TMP/cli.txt"

# the signature banner
drive banner unpinned nopin
cp pub/feed.json feed.good
check "tamper with the feed" node "$SRC/tests/web/mkfeed.mjs" tamper pub
drive banner bad
drive banner bad nopin
cp pub/feed.json feed.bad
cp feed.good pub/feed.json
# a failed check keeps the feed that verified: a tampered one, then an
# older one (epoch 3 back from solved: a rollback)
ALTS="$TMP/feed.bad:bad $TMP/feed.before-solve:refused" drive keep
PIN=0123456789abcdef drive banner badpin
OTHER=$(node -e "console.log('$PIN'.replace(/^./, (c) => c === '0' ? '1' : '0'))")
PIN=$OTHER drive banner refused
rm pub/feed.json
drive banner error

# A real beacon (rxlock beacon init / run / solve, the test build for its
# clock skew: no waiting for release times): beacon run publishes the page;
# the page lists its epochs, its choice for a date is the CLI's, what it
# encrypts opens with rxlock and age once the solver publishes the identity,
# and a file from `rxlock encrypt --feed` opens in the page then (and before
# that the page says when).
export RXLOCK_TEST_INSECURE=1
RT=$RXLOCK_TESTBIN
printf 'sha3-256 1000 slow test floor\n' > floor.txt          # 2 x 10000 hashes: 20 s at the floor
start=$(( $(date +%s) + 200 ))
check "beacon init" sh -c "'$RT' beacon init B --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt \
  --every 10s --ahead 3 --start @$start --workers 2 > B.pin 2> B.init"
check "beacon run --once" sh -c "'$RT' beacon run B --once 2> B.run"
for f in index.html app.js style.css; do
  check "beacon run published the page's $f" cmp -s "$WEB/$f" "B/public/$f"
done
check "no page, a note (RXLOCK_WEB_DIR without the page)" sh -c "RXLOCK_WEB_DIR='$TMP/nowhere' '$RT' beacon run B --once 2>&1 | grep -q 'web page is not built'"
PIN=$(cat B.pin)
FEEDFILE=$TMP/B/public/feed.json
WHEN=$(( ($(date +%s) + 60) / 60 * 60 ))       # the page's date input has minute steps
serve B/public
rm -rf out/dl
drive beacon
E=$(sed -n 's/^INFO epoch //p' drive.out)
check "the page chose an epoch" test -n "$E"
printf 'sealed by rxlock encrypt --feed\n' > feed.txt
check "rxlock encrypt --feed --open-after the same date" \
  sh -c "'$R' encrypt --feed B --signer-pin '$PIN' --open-after @$WHEN -o feed-msg.age feed.txt 2>/dev/null"
check "  the same epoch as the page ($E)" grep -q "\"epoch\": $E," feed-msg.age.beacon
drive decrypt "$TMP/feed-msg.age" unknown
NOTE=$TMP/feed-msg.age.beacon EPOCH=$E SHOT=$SHOTS/too-early.png drive decrypt "$TMP/feed-msg.age" wait
check "epoch $E released" sh -c "RXLOCK_TEST_CLOCK_SKEW=\$(( $start + 10 * ${E:-0} + 5 - \$(date +%s) )) '$RT' beacon run B --once 2>/dev/null"
check "beacon solve publishes the identities" \
  sh -c "RXLOCK_TEST_CLOCK_SKEW=\$(( $start + 10 * ${E:-0} + 6 - \$(date +%s) )) '$RT' beacon solve B --ids IDS 2> B.solve"
check "  epoch $E's identity is public" test -s "B/public/identities/$E.txt"
check "rxlock decrypt opens the page's message to the beacon" \
  "$R" decrypt -i "IDS/$E.txt" -o bm.rx "out/dl/message.txt.epoch-$E.age"
printf 'hello from the browser, to a real beacon\n' > bm.want
check "  same text" cmp -s bm.want bm.rx
check "age -d opens it too" age -d -i "IDS/$E.txt" -o bm.age "out/dl/message.txt.epoch-$E.age"
check "  same text" cmp -s bm.want bm.age
check "rxlock decrypt --feed opens the CLI's file" "$R" decrypt --feed B -o feed.rx feed-msg.age
check "rxlock decrypt --feed opens the page's file with the page's .beacon note" \
  "$R" decrypt --feed B -o bm.feed "out/dl/message.txt.epoch-$E.age"
check "  same text" cmp -s bm.want bm.feed
# the page's clock as the beacon's (its feed was written under the skew:
# a browser behind the feed's "updated" would refuse to judge its times).
# The test floor (1000 H/s) is far slower than this machine, so the solver
# may solve the next epochs through their sealed paths before their release
# times: a solve may come early, the feed stays good.
CLOCK_SKEW=$(( start + 10 * ${E:-0} + 6 - $(date +%s) )) drive decrypt "$TMP/feed-msg.age" "$TMP/feed.txt"
sed 's/"updated":\([0-9]*\)/"updated":1\1/' B/public/feed.json > tampered.json
check "tamper with the beacon's feed (its updated time)" sh -c "! cmp -s tampered.json B/public/feed.json"
cp tampered.json B/public/feed.json
drive banner bad

# A beacon past 2,000 epochs (a 1 s period; the clock moved with
# RXLOCK_TEST_CLOCK_SKEW, epochs 1024..2100 copies of a generated one, as in
# test_beacon_archive.sh): its epochs 0..5 left the feed for the signed
# archive/0.json.  The page, its clock the beacon's, opens a file of epoch
# 0 through that page (the .beacon note names epoch 0); for epoch 5, archived
# before its identity was published, it says when (naming epoch 5 and its
# page), then opens it from identities/5.txt once published (also with
# epoch 5 chosen by number instead of the note); a file there
# that is not the recipient's, a tampered archive page and a missing one
# are refused.
printf 'sha3-256 50 test floor\n' > arch-floor.txt     # 50 hashes: 1 s at the floor
ast=1800000000
at() { t=$1; shift; RXLOCK_TEST_FLOOR_TABLE="$TMP/arch-floor.txt" RXLOCK_TEST_CLOCK_SKEW="@$t" "$RT" "$@" 2>> arch.log; }
check "archive beacon: init" sh -c "RXLOCK_TEST_CLOCK_SKEW=@$((ast - 100)) '$RT' beacon init A --work sha3-256 --groups 1 \
  --steps 50 --floor-table arch-floor.txt --every 1s --ahead 4 --start @$ast --workers 1 > A.pin 2>/dev/null"
check "archive beacon: run before the start" at $((ast - 100)) beacon run A --once --gen-rate 1e6
printf 'archived, epoch 0\n' > arch0.txt
check "archive beacon: encrypt --feed to epoch 0" at $((ast - 100)) encrypt --feed A --signer-pin "$(cat A.pin)" \
  --open-after "@$((ast + 1))" -o arch0.age arch0.txt
check "  the note names epoch 0" grep -q '"epoch": 0,' arch0.age.beacon
check "archive beacon: release 0 and 1" at $((ast + 1)) beacon run A --once --gen-rate 1e6
check "archive beacon: solve 0..5 (2..5 through their seals)" at $((ast + 1)) beacon solve A --ids AIDS -q
# epoch 5's identity not yet published when its page is written
check "  epoch 5's identity set apart" mv A/public/identities/5.txt id5.txt
check "archive beacon: epochs 1024..2100 released (copies)" python3 -c "
import shutil
for e in range(1024, 2101):
    shutil.copyfile('A/private/puzzles/3.json', 'A/public/puzzles/%d.json' % e)
    shutil.copyfile('A/public/sealed/3.age', 'A/public/sealed/%d.age' % e)"
check "archive beacon: run past 2,000 epochs" at $((ast + 2101)) beacon run A --once --gen-rate 1e6
check "  archive/0.json lists epoch 0 solved, epoch 5 without its identity; the feed lists neither" python3 -c "
import json; p=json.load(open('A/public/archive/0.json'))['page']['epochs']
assert p[0]['index']==0 and p[0]['state']=='solved' and p[5]['index']==5 and p[5]['keys'][0]['identity'] is None, p[5]
f=json.load(open('A/public/feed.json'))['feed']; assert f['epochs'][0]['index']>5 and f['archive']['pages']==2"
# epoch 5: a file to its recipient, and the note encrypt --feed would have
# written for it (epoch 5's key as its archive page lists it)
printf 'archived, epoch 5\n' > arch5.txt
check "epoch 5's note and recipient" python3 -c "
import json
k=json.load(open('A/public/archive/0.json'))['page']['epochs'][5]
n=json.load(open('arch0.age.beacon'))
n['layers'][0].update(epoch=5, recipient=k['keys'][0]['recipient'], earliest_opening=k['earliest_opening'])
json.dump(n, open('arch5.age.beacon', 'w'), indent=1)
open('arch5.rcp', 'w').write(k['keys'][0]['recipient'])"
check "a file to epoch 5's recipient" "$RT" encrypt -r "$(cat arch5.rcp)" -o arch5.age arch5.txt
serve A/public
ASKEW=$(( ast + 2101 - $(date +%s) ))
PIN=$(cat A.pin) NOTE=$TMP/arch0.age.beacon CLOCK_SKEW=$ASKEW SHOT=$SHOTS/archive-open.png SHOT_OF='#decrypt' \
  drive decrypt "$TMP/arch0.age" "$TMP/arch0.txt"
# (its puzzle was never published: solved through its seal, as the page says)
PIN=$(cat A.pin) NOTE=$TMP/arch5.age.beacon CLOCK_SKEW=$ASKEW EPOCH=5 SAYS="from the beacon's archive/0.json" \
  WAIT_RE='was not released on time.*its sealed release has let anyone solve it' \
  SHOT=$SHOTS/archive-wait.png SHOT_OF='#decrypt' drive decrypt "$TMP/arch5.age" wait
mv id5.txt A/public/identities/5.txt
PIN=$(cat A.pin) NOTE=$TMP/arch5.age.beacon CLOCK_SKEW=$ASKEW drive decrypt "$TMP/arch5.age" "$TMP/arch5.txt"
PIN=$(cat A.pin) CLOCK_SKEW=$ASKEW CHOOSE_OLD=5 drive decrypt "$TMP/arch5.age" "$TMP/arch5.txt"   # chosen by number
check "rxlock decrypt --feed opens it too" at $((ast + 2101)) decrypt --feed A -o arch5.rx arch5.age
check "  same text" cmp -s arch5.txt arch5.rx
cp A/public/identities/4.txt A/public/identities/5.txt
PIN=$(cat A.pin) NOTE=$TMP/arch5.age.beacon CLOCK_SKEW=$ASKEW drive decrypt "$TMP/arch5.age" "error:does not match its recipient"
sed 's/"index":4,/"index":6,/' A/public/archive/0.json > page0.tampered
check "tamper with archive/0.json" sh -c "! cmp -s page0.tampered A/public/archive/0.json"
cp page0.tampered A/public/archive/0.json
PIN=$(cat A.pin) NOTE=$TMP/arch0.age.beacon CLOCK_SKEW=$ASKEW drive decrypt "$TMP/arch0.age" "error:archive/0.json is refused"
rm A/public/archive/0.json      # a page the feed counts but never written: it held no epoch
PIN=$(cat A.pin) NOTE=$TMP/arch0.age.beacon CLOCK_SKEW=$ASKEW drive decrypt "$TMP/arch0.age" "error:no such page"

# make install puts the page in PREFIX/share/rxlock/web, where the installed
# binary's beacon run finds it (only where the build is up to date: never rebuild)
if (cd "$SRC" && make -s -q BUILD="$BR" all 2>/dev/null); then
  check "make install (DESTDIR) with the page" sh -c "cd '$SRC' && make -s BUILD='$BR' DESTDIR='$TMP/inst' PREFIX=/usr install >/dev/null"
  for f in index.html app.js style.css; do check "installed share/rxlock/web/$f" cmp -s "$WEB/$f" "inst/usr/share/rxlock/web/$f"; done
  mkdir I
  check "the installed rxlock's beacon run publishes the installed page" sh -c "
    inst/usr/bin/rxlock beacon init I/C --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt --every 10s \
      --ahead 1 --start @$(( $(date +%s) + 600 )) >/dev/null 2>&1 &&
    inst/usr/bin/rxlock beacon run I/C --once 2>/dev/null && cmp -s '$WEB/app.js' I/C/public/app.js"
else
  echo "test_web: build not up to date, make install not checked" >&2
fi

cp out/page.png out/desktop.png out/phone.png out/kept.png out/badpin.png "$SHOTS/" 2>/dev/null
check "screenshots taken" test -s "$SHOTS/page.png" -a -s "$SHOTS/desktop.png" -a -s "$SHOTS/phone.png"
if [ -n "$RXLOCK_WEB_SCREENSHOT" ]; then
  case $RXLOCK_WEB_SCREENSHOT in /*) dst=$RXLOCK_WEB_SCREENSHOT;; *) dst=$SRC/$RXLOCK_WEB_SCREENSHOT;; esac
  cp out/page.png "$dst" && echo "screenshot: $dst"
fi
summary
