#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_trust.sh — what the CLI's beacon clients check
# themselves (docs/SECURITY.md §What a beacon client checks): with an
# honest pinned feed and this machine's clock an hour behind, `encrypt
# --feed` refuses and never picks a released or solved epoch; a feed
# re-signed with a floor slower than the client's never yields an epoch
# opening, at the client's floor, before the requested date; `beacon solve
# --follow` refuses a signer switch and a rollback, keeps the last good
# feed and writes no identity of another signer; two beacons' identities
# share one --ids folder by signer; a wrong identity is set aside.  The
# first two use the
# conformance corpus's signed feeds (tests/vectors/feed-corpus/).
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
V=${RXLOCK_VECTORS:-$PWD/tests/vectors}/feed-corpus
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
A=$(python3 -c "import json; print(json.load(open('$V/index.json'))['test_signer_a'])")
upd=$(python3 -c "import json; print(json.load(open('$V/honest/feed.json'))['feed']['updated'])")
echo "secret $$" > msg.txt
cp -r "$V/honest-pinned" H; cp -r "$V/slower-floor-1h" S1; cp -r "$V/slower-floor-300d" S3

# ---- an honest pinned feed, this machine's clock an hour behind
expect_rc 1 "clock 1h behind: encrypt --feed refuses" env RXLOCK_TEST_CLOCK_SKEW=@$((upd - 3600)) \
  "$R" encrypt --feed H --signer-pin "$A" --open-after 5m -o m1.age msg.txt
check "... saying the clock is behind" grep -q "this machine's clock is 1h00m behind the beacon's" "$TMP/.err"
check "... writing nothing" test ! -e m1.age -a ! -e m1.age.beacon
expect_rc 1 "clock 50m behind: refused" env RXLOCK_TEST_CLOCK_SKEW=@$((upd - 3000)) \
  "$R" encrypt --feed H --signer-pin "$A" --open-after 5m -o m2.age msg.txt
check "... 50m" grep -q "clock is 50m behind" "$TMP/.err"
expect_rc 0 "clock right: encrypt --feed" env RXLOCK_TEST_CLOCK_SKEW=@$((upd + 10)) \
  "$R" encrypt --feed H --signer-pin "$A" --open-after 5m -o m3.age msg.txt
state=$(python3 -c "
import json; n=json.load(open('m3.age.beacon'))['layers'][0]; f=json.load(open('H/feed.json'))['feed']
print([e['state'] for e in f['epochs'] if e['index']==n['epoch']][0])")
check "... a scheduled epoch (not released, not solved): $state" test "$state" = scheduled

# ---- a feed re-signed with a floor slower than this client's
expect_rc 1 "slower floor, 300 days asked: no epoch can hold it" env RXLOCK_TEST_CLOCK_SKEW=@$((upd + 10)) \
  "$R" encrypt --feed S3 --signer-pin "$A" --open-after 300d -o s3.age msg.txt
check "... says the feed's floor is slower" grep -q "earliest openings recomputed" "$TMP/.err"
check "... writes nothing" test ! -e s3.age
t=$((upd + 3910))
expect_rc 0 "slower floor, 65 minutes asked" env RXLOCK_TEST_CLOCK_SKEW=@$((upd + 10)) \
  "$R" encrypt --feed S1 --signer-pin "$A" --open-after "@$t" -o s1.age msg.txt
check "... its 'about' is not the false floor's (year 2787)" grep -q 'this client.s floor), about 2026-' "$TMP/.err"
mine=$(python3 -c "
import json; n=json.load(open('s1.age.beacon'))['layers'][0]; f=json.load(open('S1/feed.json'))['feed']; b=f['beacon']
e=[e for e in f['epochs'] if e['index']==n['epoch']][0]
print(e['release'] + b['groups']*b['steps']*1000 // max(20800781250, b['floor']['rate_mhps']))")
check "... its opening at the client's floor ($mine) is not before the date ($t)" test "$mine" -ge "$t"

# ---- every corpus case a single read can answer, through encrypt --feed: the CLI's answer is the corpus's
n_ok=0; n_bad=0
for c in $(python3 -c "
import json; d='$V'
for n in json.load(open(d + '/index.json'))['cases']:
    c = json.load(open(d + '/' + n + '/case.json'))
    if c['op'] == 'choose' and c['previous'] is None and c['accept_signer'] is None: print(n)"); do
  set -- $(python3 -c "
import json; c=json.load(open('$V/$c/case.json')); x=c['expect']
print(c['now'], c['open_after'], c['pin'] or '-', x.get('epoch', -1))")
  cp -r "$V/$c" "C-$c"
  pa=; [ "$3" != - ] && pa="--signer-pin $3"
  RXLOCK_TEST_CLOCK_SKEW=@$1 "$R" encrypt --feed "C-$c" $pa --open-after "@$2" -o "C-$c.age" msg.txt >/dev/null 2>"C-$c.err"; rc=$?
  got=-1; [ $rc -eq 0 ] && got=$(python3 -c "import json; print(json.load(open('C-$c.age.beacon'))['layers'][0]['epoch'])")
  if [ "$got" = "$4" ] && { [ "$4" != -1 ] || [ $rc -ne 0 ]; }; then n_ok=$((n_ok + 1)); else n_bad=$((n_bad + 1)); echo "corpus $c: rc $rc epoch $got, want $4" >&2; fi
done
check "encrypt --feed answers every single-read corpus case as the corpus says ($n_ok)" test $n_bad -eq 0 -a $n_ok -ge 20

# ---- solve --follow: a signer switch and a rollback
printf 'sha3-256 1000 slow test floor\n' > floor.txt
export RXLOCK_TEST_FLOOR_TABLE="$PWD/floor.txt"
now=$(date +%s); start=$((now + 1000))
at() { off=$1; shift; RXLOCK_TEST_CLOCK_SKEW=$((start - 1000 + off - $(date +%s))) "$R" "$@"; }
for b in B1 B2; do
  "$R" beacon init $b --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt --every 10s --ahead 3 \
    --start "@$start" --workers 2 >$b.pin 2>/dev/null
  at 1000 beacon run $b --once --gen-rate 1e6 >/dev/null 2>&1
done
cp -r B1/public P
cp P/feed.json old.json
at 1020 beacon run B1 --once --gen-rate 1e6 >/dev/null 2>&1
at 1020 beacon run B2 --once --gen-rate 1e6 >/dev/null 2>&1
cp B1/public/feed.json P/feed.json; cp B1/public/puzzles/* P/puzzles/
RXLOCK_TEST_CLOCK_SKEW=$((start - 1000 + 1020 - $(date +%s))) "$R" beacon solve P --ids IDF --follow --poll 1 \
  >follow.out 2>follow.err & fp=$!
k=0; while [ $k -lt 300 ] && ! grep -q 'looking again at' follow.err 2>/dev/null; do sleep 0.1; k=$((k + 1)); done
check "follow: started" grep -q 'looking again at' follow.err
cp B2/public/feed.json P/feed.json                       # another signer, with released epochs
k=0; while [ $k -lt 300 ] && ! grep -q 'accept-signer' follow.err; do sleep 0.1; k=$((k + 1)); done
check "follow: another signer refused, naming --accept-signer" grep -q 'not by .*--accept-signer' follow.err
check "... naming both keys" sh -c "grep -q \"$(cat B1.pin)\" follow.err && grep -q \"$(cat B2.pin)\" follow.err"
cp old.json P/feed.json                                  # B1's own older feed
k=0; while [ $k -lt 300 ] && ! grep -q 'rollback' follow.err; do sleep 0.1; k=$((k + 1)); done
check "follow: an older feed refused (rollback)" grep -q 'rollback' follow.err
kill -TERM $fp; wait $fp
b2=$(python3 -c "
import json; print(' '.join(k['recipient'] for e in json.load(open('B2/public/feed.json'))['feed']['epochs'] for k in e['keys']))")
foreign=0
for f in IDF/*.txt; do [ -f "$f" ] || continue; r=$(sed -n 's/^# public key: //p' "$f"); case " $b2 " in *" $r "*) foreign=1;; esac; done
check "follow: no identity of the other signer written" test $foreign -eq 0
check "follow: B1's identities written" test -s IDF/2.txt

# ---- an accepted rotation (--accept-signer): the new signer's identities in their own folder
rm -rf P; cp -r B1/public P
RXLOCK_TEST_CLOCK_SKEW=$((start - 1000 + 1020 - $(date +%s))) "$R" beacon solve P --ids IDR --follow --poll 1 \
  --accept-signer "$(cat B2.pin)" >rot.out 2>rot.err & fp=$!
k=0; while [ $k -lt 300 ] && ! grep -q 'looking again at' rot.err 2>/dev/null; do sleep 0.1; k=$((k + 1)); done
cp -r B2/public P2 && mv P Pold && mv P2 P
s2=$(cut -c1-16 B2.pin)
k=0; while [ $k -lt 300 ] && ! ls "IDR/$s2" 2>/dev/null | grep -q 'txt$'; do sleep 0.1; k=$((k + 1)); done
kill -TERM $fp; wait $fp
check "rotation accepted: B2's identities in IDR/SIGNER16" sh -c "ls IDR/$s2 | grep -q 'txt\$'"
[ -d "IDR/$s2" ] || sed 's/^/    rot: /' rot.err >&2
b1=$(python3 -c "
import json; print(' '.join(k['recipient'] for e in json.load(open('B1/public/feed.json'))['feed']['epochs'] for k in e['keys']))")
bad=0
for f in IDR/*.txt; do [ -f "$f" ] || continue; r=$(sed -n 's/^# public key: //p' "$f"); case " $b1 " in *" $r "*) ;; *) bad=1;; esac; done
check "... IDR itself holds only B1's" test $bad -eq 0

# ---- identities by signer: two beacons, one --ids folder, nothing overwritten
expect_rc 0 "encrypt to B2" at 1020 encrypt --feed B2 --signer-pin "$(cat B2.pin)" --open-after 1s -o b2.age msg.txt
e2=$(python3 -c "import json; print(json.load(open('b2.age.beacon'))['layers'][0]['epoch'])")
expect_rc 0 "solve B1 into SHARED" at 1020 beacon solve B1 --ids SHARED -q
expect_rc 0 "solve B2 into SHARED" at 1020 beacon solve B2 --ids SHARED
check "... into SHARED/SIGNER16, said" grep -q "holds another beacon's identities.*SHARED/$s2" "$TMP/.err"
check "... SHARED/1.txt is still B1's" test "$(sed -n 's/^# public key: //p' SHARED/1.txt)" = \
  "$(python3 -c "import json; print([e for e in json.load(open('B1/public/feed.json'))['feed']['epochs'] if e['index']==1][0]['keys'][0]['recipient'])")"
check "... B2's epoch 1 beside it" test -s "SHARED/$s2/1.txt"
check "... B2's epoch $e2 solved (sealed path)" test -s "SHARED/$s2/$e2.txt"
cp SHARED/1.txt "SHARED/$s2/$e2.txt"                      # a wrong identity under the epoch's name
expect_rc 0 "solve B2 again: the wrong file set aside, the epoch solved" at 1020 beacon solve B2 --ids SHARED
check "... set aside, kept" test -s "SHARED/$s2/$e2.txt.set-aside"
check "... and said" grep -q 'does not open this epoch.s recipient: set aside' "$TMP/.err"
mkdir -p EMPTY
expect_rc 0 "decrypt with several --ids" at 1020 decrypt --feed B2 --ids EMPTY --ids SHARED -o b2.out b2.age
check "... to the original" cmp -s b2.out msg.txt

# ---- a dead beacon says so
"$R" beacon init B3 --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt --every 10s --ahead 3 \
  --start "@$start" --workers 2 >B3.pin 2>/dev/null
at 900 beacon run B3 --once --gen-rate 1e6 >/dev/null 2>&1
expect_rc 0 "encrypt to B3's operator-only epoch 0, its feed 90 s old" at 990 encrypt --feed B3 --open-after 1s -o b3.age msg.txt
check "... warns only the operator can release it" grep -q 'operator-only and the feed was last written' "$TMP/.err"
expect_rc 1 "decrypt long after: never released" at 2000 decrypt --feed B3 -o b3.out b3.age
check "... says so" grep -q 'epoch 0 was never released; it opens only if its operator returns' "$TMP/.err"

# ---- status: this client's floor, and the checks said
expect_rc 0 "status of a feed with a slower floor" env -u RXLOCK_TEST_FLOOR_TABLE RXLOCK_TEST_CLOCK_SKEW=@$((upd + 10)) \
  "$R" beacon status S1
check "... says the openings are recomputed" grep -q 'earliest openings recomputed' "$TMP/.err"
cp -r "$V/moved-start-later" M
expect_rc 0 "status of a feed with a moved start" env -u RXLOCK_TEST_FLOOR_TABLE RXLOCK_TEST_CLOCK_SKEW=@$((upd + 10)) \
  "$R" beacon status M
check "... warns clients refuse it" grep -q 'published before its release time.*clients refuse' "$TMP/.err"
summary
