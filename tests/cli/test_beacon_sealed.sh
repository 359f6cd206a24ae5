#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_sealed.sh — the sealed release: a beacon that
# outlives its operator.  A beacon generates 7 epochs ahead, releases the
# first, and its operator is killed (kill -9) and DIR/private deleted; a
# solver given a copy of public/ alone opens every generated epoch in
# order (epoch 0 released, each later one unsealed with its sealing
# epoch's identity), and a file encrypted to the last epoch opens with
# `rxlock decrypt` and with Debian's `age -d`.  Tampered sealed files (bit
# flip, another epoch's puzzle inside, encrypted to the wrong key) are
# refused with a clear error and never solved.  Time is the test build's
# RXLOCK_TEST_CLOCK_SKEW (no sleeping for release times).
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
printf 'sha3-256 1000 slow test floor\n' > floor.txt     # 2 x 10000 hashes = 20 s at the floor
export RXLOCK_TEST_FLOOR_TABLE="$PWD/floor.txt"   # the clients' floor: the beacons' slow test row
now=$(date +%s); start=$((now + 1000))                  # epoch 0's release is 1000 s from now
init() { d=$1; shift; "$R" beacon init "$d" --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt \
           --every 10s --ahead 7 --start "@$start" --workers 2 "$@" >"$d.pin" 2>"$d.init"; }
# skew: the test clock's offset that puts it at epoch 0's release (now)
skew() { echo $((start - $(date +%s))); }
at_start() { RXLOCK_TEST_CLOCK_SKEW=$(skew) "$R" "$@"; }

check "init" init B
check "init states the sealing" grep -q 'sealed to epoch max(0, E - 2).*only epoch 0 is operator-only' B.init
pin=$(cat B.pin)
# generate ahead, before epoch 0's release: nothing public but sealed files
expect_rc 0 "run --once before the start" "$R" beacon run B --once --gen-rate 1e6
check "7 epochs generated" test "$(ls B/private/puzzles | wc -l)" -eq 7
check "no puzzle public before its release" test "$(ls B/public/puzzles | wc -l)" -eq 0
check "epochs 1..6 sealed at once" test "$(ls B/public/sealed | wc -l)" -eq 6
# a file for the last epoch: opens no sooner than start + 60 + 20
echo "sealed message $$" > msg.txt
expect_rc 0 "encrypt to the last epoch" "$R" encrypt --feed B --signer-pin "$pin" --open-after "@$((start + 75))" -o msg.age msg.txt
check "the last epoch was chosen" grep -q '"epoch": 6' msg.age.beacon
rcp6=$(sed -n 's/.*"recipient": "\(age1[a-z0-9]*\)".*/\1/p' msg.age.beacon)
check "Debian age encrypts to the same epoch" sh -c "age -r '$rcp6' -o msg2.age msg.txt"

# the operator runs, releases epoch 0, generates epoch 7 (7 ahead of epoch
# 1), seals and publishes it, and is killed while it waits for epoch 1's
# release.  The kill waits for that feed (8 epochs listed), not for a
# time: killed between epoch 7's private puzzle and the feed that lists it,
# epoch 7 is generated but never offered, and no solver can open it
# (test_beacon_faults.sh covers a kill at each of those points).  The
# wait's bound only keeps a broken run from hanging the test.
RXLOCK_TEST_CLOCK_SKEW=$(skew) "$R" beacon run B --gen-rate 1e6 2>run.log &
op=$!
n=0; while [ $n -lt 600 ] && ! grep -q 'published feed.json (8 epochs)' run.log; do sleep 0.1; n=$((n + 1)); done
kill -9 $op 2>/dev/null; wait $op 2>/dev/null
check "the operator published epoch 7 sealed" grep -q 'published feed.json (8 epochs)' run.log
check "the operator released epoch 0" test -f B/public/puzzles/0.json
check "only epoch 0 was released" test "$(ls B/public/puzzles | wc -l)" -eq 1
gen=$(ls B/private/puzzles | wc -l)      # 8: epoch 0 and the 7 ahead of epoch 1
check "8 epochs generated ($gen)" test "$gen" -eq 8
order_want=$(seq 0 $((gen - 1)) | tr '\n' ' ')
cp -r B/public PUB
cp -r B B-tamper          # a second copy, with its key, for the tamper cases below
rm -rf B/private
check "private is gone" test ! -e B/private

# a solver with public/ alone opens every generated epoch, in order
expect_rc 0 "solve from public/ alone" at_start beacon solve PUB --ids IDS --signer-pin "$pin"
cp "$TMP/.err" solve.log
order=$(sed -n 's/^rxlock: epoch \([0-9]*\) solved.*/\1/p' solve.log | tr '\n' ' ')
check "every generated epoch solved in order ($order; want $order_want)" test "$order" = "$order_want"
check "every epoch but 0 came through the sealed path" test "$(grep -c 'unsealed with epoch' solve.log)" -eq $((gen - 1))
check "epoch 3 was unsealed with epoch 1" grep -q 'epoch 3: unsealed with epoch 1' solve.log
for e in 0 1 2 3 4 5 6; do check "identity $e" test -s "IDS/$e.txt"; done
expect_rc 0 "rxlock decrypt opens the file" "$R" decrypt --feed PUB --ids IDS -o out.txt msg.age
check "... to the original" cmp -s out.txt msg.txt
check "Debian age -d opens it" sh -c "age -d -i IDS/6.txt msg.age | cmp -s - msg.txt"
check "Debian age -d opens age's own file" sh -c "age -d -i IDS/6.txt msg2.age | cmp -s - msg.txt"
check "Debian age -d opens a sealed file" sh -c "age -d -i IDS/4.txt PUB/sealed/6.age | cmp -s - IDS/.rxlock-beacon/6.json"
expect_rc 0 "a second run has nothing to do" at_start beacon solve PUB --ids IDS --signer-pin "$pin"
check "... and says so" grep -q "0 epoch keys solved now, $gen solved in all" "$TMP/.err"

# tamper cases: each needs a validly signed feed, so the operator's copy
# (with its key) is altered and republished (the feed is rebuilt from files)
tamper_case() {   # LABEL MESSAGE: solve a fresh copy, expect refusal naming MESSAGE, epoch 3 never solved
  rm -rf T IDT; cp -r B-tamper/public T
  expect_rc 1 "$1: refused" at_start beacon solve T --ids IDT --signer-pin "$pin"
  check "$1: says why" grep -q "$2" "$TMP/.err"
  check "$1: epoch 3 not solved" test ! -e IDT/3.txt
}
cp B-tamper/public/sealed/3.age sealed3.orig
# 1. a flipped byte (the feed's digest no longer matches)
printf '\001' | dd of=B-tamper/public/sealed/3.age bs=1 seek=200 conv=notrunc 2>/dev/null
tamper_case "flipped sealed byte" "differs from the feed's digest"
# 2. the digest matches the feed, but inside is epoch 4's puzzle (sealed to epoch 1)
rcp1=$(sed -n 's/^# public key: //p' IDS/1.txt)
age -r "$rcp1" -o B-tamper/public/sealed/3.age IDS/.rxlock-beacon/4.json
RXLOCK_TEST_CLOCK_SKEW=$(skew) "$R" beacon run B-tamper --once --gen-rate 1e6 2>/dev/null
tamper_case "another epoch's puzzle" "digest differs from the feed"
# 3. encrypted to another key: does not decrypt
age -r "$(sed -n 's/^# public key: //p' IDS/5.txt)" -o B-tamper/public/sealed/3.age IDS/.rxlock-beacon/3.json
RXLOCK_TEST_CLOCK_SKEW=$(skew) "$R" beacon run B-tamper --once --gen-rate 1e6 2>/dev/null
tamper_case "wrong key" "does not decrypt with epoch 1's identity"
# 4. not an age file at all
echo "junk" > B-tamper/public/sealed/3.age
RXLOCK_TEST_CLOCK_SKEW=$(skew) "$R" beacon run B-tamper --once --gen-rate 1e6 2>/dev/null
tamper_case "junk" "does not decrypt"
summary
