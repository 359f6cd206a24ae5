#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_faults.sh — a beacon killed (kill -9) at every
# publish step (the test build's RXLOCK_TEST_KILL_AT: after a puzzle is
# generated, after a sealed file, after a release, after the feed, after a
# solver's identity: written, before its journal is removed; published,
# before the feed), at random moments of its generation and on a full
# disk (a file size limit): the next run finishes, nothing is lost, the feed verifies and lists only what
# verifies (a solver opens every listed epoch through both paths), no
# puzzle is public before its release time, no temp file is left.  Also
# refused: a malformed feed, an identity that does not match its
# recipient, a second `beacon run` on the same DIR.  A sealed file on a
# full disk: said once, the epoch unlisted until it is sealed, sealed at
# the next run.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
printf 'sha3-256 1000 slow test floor\n' > floor.txt
export RXLOCK_TEST_FLOOR_TABLE="$PWD/floor.txt"   # the clients' floor: the beacons' slow test row
now=$(date +%s); start=$((now + 1000))
at() { off=$1; shift; RXLOCK_TEST_CLOCK_SKEW=$((start - 1000 + off - $(date +%s))) "$R" "$@"; }
mk() { "$R" beacon init "$1" --work sha3-256 --groups 2 --steps "${2:-10000}" --floor-table floor.txt --every 10s \
         --ahead 4 --start "@$start" --workers 2 --checkpoint-steps "${3:-1000}" >"$1.pin" 2>/dev/null; }
# sound DIR LABEL: the feed verifies, no temp file, nothing public early
# (the clock: before the start), and a solver at the start opens every
# listed epoch from a copy of public/ (epoch 0 released there)
sound() {
  bd=$1; bl=$2
  expect_rc 0 "$bl: the feed verifies" "$R" beacon status "$bd" --signer-pin "$(cat "$bd.pin")"
  check "$bl: no temp file" sh -c "! find '$bd' -name '*.tmp-*' | grep -q ."
}
solves_all() {
  bd=$1; bl=$2
  rm -rf "S-$bd" "I-$bd"; cp -r "$bd/public" "S-$bd"
  expect_rc 0 "$bl: a solver opens the listed epochs" at 1000 beacon solve "S-$bd" --ids "I-$bd" --signer-pin "$(cat "$bd.pin")" -q
  listed=$(python3 -c "import json; print(len(json.load(open('$bd/public/feed.json'))['feed']['epochs']))")
  check "$bl: every listed epoch solved ($listed)" test "$(ls "I-$bd" | grep -c '\.txt$')" -eq "$listed"
}

for k in beacon-generated beacon-sealed beacon-feed; do
  mk "$k"
  RXLOCK_TEST_KILL_AT=$k "$R" beacon run "$k" --once --gen-rate 1e6 >/dev/null 2>&1
  check "$k: the kill point was reached" test $? -eq 137
  expect_rc 0 "$k: the next run finishes" "$R" beacon run "$k" --once --gen-rate 1e6
  check "$k: nothing public before the release" test "$(ls "$k/public/puzzles" | wc -l)" -eq 0
  check "$k: 4 epochs generated" test "$(ls "$k/private/puzzles" | wc -l)" -eq 4
  check "$k: no generation state left (one whose puzzle was written is removed)" test -z "$(ls -A "$k/private/state")"
  sound "$k" "$k"
  expect_rc 0 "$k: release" at 1000 beacon run "$k" --once --gen-rate 1e6
  solves_all "$k" "$k"
done
# a kill right after a release, and after a solver published an identity
mk rel
expect_rc 0 "rel: generate" "$R" beacon run rel --once --gen-rate 1e6
RXLOCK_TEST_KILL_AT=beacon-released RXLOCK_TEST_CLOCK_SKEW=$((start - $(date +%s))) "$R" beacon run rel --once --gen-rate 1e6 >/dev/null 2>&1
check "rel: killed after the release" test $? -eq 137
check "rel: the puzzle is public" test -f rel/public/puzzles/0.json
expect_rc 0 "rel: the next run lists it" at 1000 beacon run rel --once --gen-rate 1e6
check "rel: released in the feed" grep -q '"path":"puzzles/0.json"' rel/public/feed.json
sound rel rel
RXLOCK_TEST_KILL_AT=beacon-identity RXLOCK_TEST_CLOCK_SKEW=$((start - $(date +%s))) "$R" beacon solve rel --ids RI -q >/dev/null 2>&1
check "rel: solver killed after an identity" test $? -eq 137
expect_rc 0 "rel: the solver run again finishes" at 1000 beacon solve rel --ids RI -q
check "rel: identity 0 in the feed" grep -q '"identity":"identities/0.txt"' rel/public/feed.json
sound rel "rel after the solver"
# a solver killed after it wrote an identity, before it removed the journal
# and published: the same command removes the journal, publishes the
# identity and the feed
mk sol
expect_rc 0 "sol: generate" "$R" beacon run sol --once --gen-rate 1e6
expect_rc 0 "sol: release epoch 0" at 1000 beacon run sol --once --gen-rate 1e6
RXLOCK_TEST_KILL_AT=beacon-solved RXLOCK_TEST_CLOCK_SKEW=$((start - $(date +%s))) "$R" beacon solve sol --ids SI -q >/dev/null 2>&1
check "sol: solver killed after an identity, before its journal was removed" test $? -eq 137
check "  the identity written, the journal kept, nothing published yet" sh -c \
  'test -s SI/0.txt && test -f SI/.rxlock-beacon/0.journal && test ! -e sol/public/identities/0.txt'
expect_rc 0 "  the solver run again finishes" at 1000 beacon solve sol --ids SI -q
check "  no journal left" sh -c '! ls SI/.rxlock-beacon | grep -q journal'
check "  identity 0 published and in the feed" grep -q '"identity":"identities/0.txt"' sol/public/feed.json
sound sol "sol after the solver"

# kill -9 at random moments of a longer generation: 8 kills, then finish
mk long 1500000 50000
n=0
while [ $n -lt 8 ]; do
  "$R" beacon run long --once --gen-rate 1e6 >/dev/null 2>"log-long-$n" &
  pid=$!
  ms=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 1200 + 150 ))
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  n=$((n + 1))
done
expect_rc 0 "long: the run after 8 kills finishes" "$R" beacon run long --once --gen-rate 1e6
cat "$TMP/.err" > log-long-final
check "long: 4 epochs" test "$(ls long/private/puzzles | wc -l)" -eq 4
check "long: no generation state left" test "$(ls long/private/state | wc -l)" -eq 0
check "long: at least one resume" sh -c "cat log-long-* | grep -q 'resumed'"
sound long long
expect_rc 0 "long: release" at 1000 beacon run long --once --gen-rate 1e6
solves_all long long

# a full disk (here a file size limit: every write past 1 KiB fails with EFBIG)
mk full
(trap '' XFSZ; ulimit -f 2; exec "$R" beacon run full --once --gen-rate 1e6) >/dev/null 2>full.err
check "full: the run fails" test $? -ne 0
check "full: with a clear error" grep -qi 'file too large\|cannot\|failed' full.err
check "full: nothing public" test "$(ls full/public/puzzles full/public/sealed | grep -c json)" -eq 0
expect_rc 0 "full: with space again the run finishes" "$R" beacon run full --once --gen-rate 1e6
sound full full
expect_rc 0 "full: release" at 1000 beacon run full --once --gen-rate 1e6
solves_all full full

# refusals
cp -r rel/public BAD
printf '{"feed":{},"rxlock_beacon_feed":1,"signature":"00"}\n' > BAD/feed.json
expect_rc 1 "a malformed feed" "$R" beacon status BAD
check "... says why" grep -q 'refused: feed: missing' "$TMP/.err"
printf 'not json' > BAD/feed.json
expect_rc 1 "not JSON" "$R" beacon status BAD
cp rel/public/identities/0.txt keep0.txt
cp "I-beacon-feed/1.txt" rel/public/identities/0.txt      # another beacon's identity under epoch 0's name
echo x > x.txt
# every listed epoch of rel is solved (sealed paths): encrypt to one generated later, still scheduled
expect_rc 0 "run rel later (generates epochs still scheduled)" at 1040 beacon run rel --once --gen-rate 1e6
expect_rc 0 "encrypt to a scheduled epoch of rel" at 1040 encrypt --feed rel --open-after 1s -o x.age x.txt
e=$(python3 -c "import json; print(json.load(open('x.age.beacon'))['layers'][0]['epoch'])")
cp "I-beacon-feed/1.txt" "rel/public/identities/$e.txt"
expect_rc 0 "republish" at 1000 beacon run rel --once --gen-rate 1e6
expect_rc 1 "an identity that does not match its recipient" at 1000 decrypt --feed rel -o x.out x.age
check "... refused" grep -q 'does not match its recipient' "$TMP/.err"
check "... nothing written" test ! -e x.out
"$R" beacon run long --gen-rate 1e6 >/dev/null 2>&1 &
pid=$!
sleep 0.5
expect_rc 1 "a second beacon run on the same DIR" "$R" beacon run long --once --gen-rate 1e6
check "... says so" grep -q 'another `beacon run` serves this DIR' "$TMP/.err"
kill -TERM $pid; wait $pid
check "SIGTERM stops the service cleanly (exit 0)" test $? -eq 0
# a full disk at a sealed file (the test build's ENOSPC at public/sealed): said once, the epoch not
# offered until it is sealed, the service goes on; --once exits 1; with space again it is sealed and listed
mk sealfull
RXLOCK_TEST_STATE_ENOSPC=public/sealed at 0 beacon run sealfull --once --gen-rate 1e6 >/dev/null 2>sealfull.log
check "sealed file on a full disk: --once exits 1" test $? -eq 1
check "... said once, with the way out" sh -c "test \$(grep -c 'No space left on device: epoch 1 is not offered until it is sealed' sealfull.log) -eq 1"
check "... every epoch generated all the same" test "$(ls sealfull/private/puzzles | wc -l)" -eq 4
check "... none sealed, none listed but epoch 0" python3 -c "
import json,os; f=json.load(open('sealfull/public/feed.json'))['feed']
assert [e['index'] for e in f['epochs']]==[0], f['epochs']; assert not [x for x in os.listdir('sealfull/public/sealed') if x.endswith('.age')]"
at 0 beacon run sealfull --once --gen-rate 1e6 >/dev/null 2>sealfull2.log
check "with space again: sealed and listed" sh -c "test -f sealfull/public/sealed/3.age && python3 -c \"
import json; f=json.load(open('sealfull/public/feed.json'))['feed']; assert len(f['epochs'])==4\""
summary
