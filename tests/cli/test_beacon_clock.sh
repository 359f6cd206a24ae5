#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_clock.sh — `beacon run` on the right clock: a
# forward jump of the wall clock (about 10,000 periods) is one log line
# saying how far and how many epochs passed ungenerated (not one line per
# epoch); the correction back is one line saying how far and that releases
# wait; then releases resume on time by the corrected clock (the service
# does not sleep until a release time computed from the jumped clock).
# The service's clock is a file the test rewrites
# (RXLOCK_TEST_CLOCK_SKEW=/FILE holding an offset from the real clock).
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
printf 'sha3-256 1000 slow test floor\n' > floor.txt
start=$(( $(date +%s) + 100000 ))
"$R" beacon init B --work sha3-256 --groups 1 --steps 5000 --floor-table floor.txt --every 10s --ahead 3 \
  --start "@$start" --workers 1 >/dev/null 2>&1
# setclock T: the service's clock reads T now (and runs on from there)
setclock() { echo $(( $1 - $(date +%s) )) > clock.new && mv clock.new clock; }
waitfor() { k=0; while [ $k -lt 150 ] && ! eval "$1"; do sleep 0.1; k=$((k + 1)); done; }
setclock $((start - 50)); : > run.log
RXLOCK_TEST_CLOCK_SKEW=$TMP/clock "$R" beacon run B --gen-rate 1e6 2>run.log & rp=$!
trap 'kill $rp 2>/dev/null; rm -rf "$TMP"' EXIT
waitfor "grep -q 'generated epoch 2' run.log"
check "three epochs generated ahead" test "$(ls B/private/puzzles | wc -l)" -eq 3
check "nothing released before the start" test "$(ls B/public/puzzles | wc -l)" -eq 0

# forward by 100,000 s: 10,000 periods
setclock $((start + 100000))
waitfor "grep -q 'generated epoch 10002' run.log"
check "one line for the forward jump, how far" grep -q 'the clock jumped forward by 1000[0-9][0-9] s' run.log
check "... and how many epochs passed ungenerated, in the same line" \
  grep -q 'jumped forward.*: 99[0-9][0-9] epochs (3\.\.[0-9]*) passed their release time ungenerated' run.log
check "no line per skipped epoch" test "$(grep -c 'skipped' run.log)" -le 1

# back to the right time (epoch 0's release + 5 s)
setclock $((start + 5))
waitfor "grep -q 'the clock went back' run.log"
check "one line for the correction: how far, releases wait" \
  grep -q 'the clock went back by 999[0-9][0-9] s .*releases wait until it reaches their release times again' run.log
waitfor "grep -q 'generated epoch 3' run.log"
check "it generates ahead of the corrected clock (epoch 3)" test -f B/private/puzzles/3.json
# epoch 3's release time by the corrected clock: released within seconds
setclock $((start + 30))
waitfor "test -f B/public/puzzles/3.json"
check "releases resume on time by the corrected clock" test -f B/public/puzzles/3.json
check "a few epochs made far ahead archived nothing" test ! -e B/public/archive
check "... and the feed lists epoch 3 released" python3 -c "
import json; f=json.load(open('B/public/feed.json'))['feed']
assert any(e['index']==3 and e['state']!='scheduled' for e in f['epochs'])"
check "one line per clock event" sh -c "test \$(grep -c 'the clock jumped forward by 1000[0-9][0-9] s' run.log) -eq 1 && test \$(grep -c 'the clock went back' run.log) -eq 1"
check "the feed's time kept: said once" test "$(grep -c 'the feed keeps its time' run.log)" -eq 1
kill -TERM $rp; wait $rp
summary
