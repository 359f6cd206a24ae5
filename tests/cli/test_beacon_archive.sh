#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_archive.sh — a feed that forgets nothing: a beacon
# with a 1 s period past 2,000 epochs moves its oldest 1,024 to a signed
# archive page (public/archive/0.json) that the feed (version 2) counts;
# a file encrypted to epoch 0 still opens with `decrypt --feed` through it;
# the page is never rewritten; a tampered page is refused; `init` refuses a
# schedule it cannot serve for 100 years; a version-1 feed
# (tests/vectors/beacon-feed-v1.json) still opens; `beacon solve --archive`
# goes through the pages too, taking what is published.  The clock moves
# with RXLOCK_TEST_CLOCK_SKEW; epochs 1024 .. 2100 are copies of a
# generated one and 4 .. 1023 were never generated (a service that was
# down): the archive is what is tested, not 2,000 generations.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
command -v python3 >/dev/null || { echo "no python3: skipped"; summary; exit 0; }
printf 'sha3-256 50 test floor\n' > floor.txt     # 50 hashes: 1 s at the floor, each epoch sealed to the one before
export RXLOCK_TEST_FLOOR_TABLE="$PWD/floor.txt"   # the clients' floor: the beacon's test row
start=1800000000
at() { t=$1; shift; RXLOCK_TEST_CLOCK_SKEW="@$t" "$R" "$@"; }
at $((start - 100)) beacon init B --work sha3-256 --groups 1 --steps 50 --floor-table floor.txt --every 1s --ahead 4 \
  --start "@$start" --workers 1 >B.pin 2>/dev/null
pin=$(cat B.pin)
expect_rc 0 "run before the start" at $((start - 100)) beacon run B --once --gen-rate 1e6
echo "archived $$" > msg.txt
expect_rc 0 "encrypt to epoch 0" at $((start - 100)) encrypt --feed B --signer-pin "$pin" --open-after "@$((start + 1))" -o msg.age msg.txt
check "epoch 0 chosen" grep -q '"epoch": 0' msg.age.beacon
expect_rc 0 "release epochs 0 and 1" at $((start + 1)) beacon run B --once --gen-rate 1e6
expect_rc 0 "solve and publish them (2 and 3 through their seals)" at $((start + 1)) beacon solve B --ids IDS -q
check "identities 0..3 published (and 4, 5 generated ahead)" sh -c 'test -s B/public/identities/0.txt && test -s B/public/identities/3.txt'
# epochs 1024 .. 2100, released: copies of epoch 3's files
python3 - <<'EOF'
import shutil
for e in range(1024, 2101):
    shutil.copyfile('B/private/puzzles/3.json', 'B/public/puzzles/%d.json' % e)
    shutil.copyfile('B/public/sealed/3.age', 'B/public/sealed/%d.age' % e)
EOF
expect_rc 0 "run past 2,000 epochs" at $((start + 2101)) beacon run B --once --gen-rate 1e6
check "says what it archived" grep -q 'archived epochs 0..1023 (6 listed) in archive/0.json' "$TMP/.err"
check "archive page 0 written" test -s B/public/archive/0.json
check "... and 1024..2047 in archive/1.json" grep -q 'archived epochs 1024..2047 .* in archive/1.json' "$TMP/.err"
check "the feed (v2) counts two pages and lists epoch 0 no more" python3 -c "
import json; d=json.load(open('B/public/feed.json')); f=d['feed']
assert d['rxlock_beacon_feed']==2 and f['archive']=={'pages':2,'per_page':1024}, f['archive']
ix=[e['index'] for e in f['epochs']]
assert ix[0]==2048 and 2100 in ix and len(ix)<=1024, (ix[0], len(ix))"
check "the page lists epoch 0 with its identity and when it was published" python3 -c "
import json; p=json.load(open('B/public/archive/0.json'))
assert p['rxlock_beacon_archive']==1 and p['page']['page']==0
e=p['page']['epochs'][0]; k=e['keys'][0]
assert e['index']==0 and k['identity']=='identities/0.txt' and k['identity_at']>0"
expect_rc 0 "decrypt --feed opens epoch 0's file through the archive" at $((start + 2101)) decrypt --feed B -o out.txt msg.age
check "... to the original" cmp -s out.txt msg.txt
cp B/public/archive/0.json page0.json
expect_rc 0 "run again" at $((start + 2102)) beacon run B --once --gen-rate 1e6
check "the page is never rewritten" cmp -s page0.json B/public/archive/0.json
# --archive: a solver of a copy goes through the pages, taking what they
# publish (the copies' identities are seeded: same puzzle, same identity)
mkdir -p IDA && python3 -c "
import shutil
for e in range(1024, 2101): shutil.copyfile('IDS/3.txt', 'IDA/%d.txt' % e)"
expect_rc 0 "solve --archive" at $((start + 2102)) beacon solve B/public --archive --ids IDA --signer-pin "$pin"
check "... through both pages, solving nothing published" grep -q 'archive: 2 pages, 0 epoch keys solved, 1030 solved in all (6 taken' "$TMP/.err"
check "... epoch 0's identity taken from the page" cmp -s IDA/0.txt B/public/identities/0.txt
# a copy of public/ whose page was altered: refused
cp -r B/public PUB
sed 's/"index":5,/"index":6,/' page0.json > PUB/archive/0.json
expect_rc 1 "a tampered archive page is refused" at $((start + 2102)) decrypt --feed PUB -o out2.txt msg.age
check "... saying why" grep -q 'archive/0.json: refused' "$TMP/.err"
check "... and writes nothing" test ! -e out2.txt

# init: a schedule that cannot be served for 100 years
printf 'sha3-256 0.001 glacial floor\n' > glacial.txt    # 256 x 2^40 hashes at 0.001 H/s: past 2^53 s
expect_rc 1 "init refuses a schedule that opens past the largest time" "$R" beacon init X --work sha3-256 --groups 256 \
  --steps 1099511627776 --floor-table glacial.txt --every 1s
check "... saying why" grep -q 'cannot be served for 100 years' "$TMP/.err"
check "... and writes nothing" test ! -e X

# a version-1 feed still opens
mkdir V1 && cp "$OLDPWD/tests/vectors/beacon-feed-v1.json" V1/feed.json
expect_rc 0 "a version-1 feed opens" "$R" beacon status V1 --signer-pin 4c82b396b93e2af82729e592e128a589ca026567e73dc2980a300d002d37c59d
check "... and lists its solved epoch" grep -q '^epoch 1  solved' "$TMP/.out"
summary
