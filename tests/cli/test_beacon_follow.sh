#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_follow.sh — `beacon solve --follow` reacts to the
# release: the release-second race (it reads the feed at the release
# second, before the operator republished it, and reads it again a second
# later instead of sleeping a period), the stale-feed sleep (a release
# that comes while it solves is seen when the solve ends, not at the next
# release of the feed it read before solving), never sleeping past a
# release time of the schedule; and recovery from a copy: identities the
# feed publishes are taken (checked against the recipient) and never
# solved again, a published identity of another key is refused and
# solved, one damaged file is reported and skipped while the others are
# solved (exit 1).  The follower's clock is a file the test moves
# (RXLOCK_TEST_CLOCK_SKEW=/FILE); a worker pauses with
# RXLOCK_TEST_PAUSE_AT while the operator releases; a feed that cannot be
# read at a release is tried again within seconds.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
printf 'sha3-256 1000 slow test floor\n' > floor.txt     # 1 x 5000 hashes = 5 s at the floor: every epoch operator-only
start=$(( $(date +%s) + 100000 ))
utc() { date -u -d "@$1" '+%Y-%m-%d %H:%M:%S UTC'; }
"$R" beacon init B --work sha3-256 --groups 1 --steps 5000 --floor-table floor.txt --every 10s --ahead 3 \
  --start "@$start" --workers 1 >B.pin 2>/dev/null
pin=$(cat B.pin)
expect_rc 0 "run before the start" env RXLOCK_TEST_CLOCK_SKEW="@$((start - 100))" "$R" beacon run B --once --gen-rate 1e6
waitfor() { k=0; while [ $k -lt 150 ] && ! eval "$1"; do sleep 0.1; k=$((k + 1)); done; }

# ---- the follower, its clock 100 s before epoch 0's release
setc() { echo "$1" > clock.new && mv clock.new clock; }   # the follower's clock, replaced at once
setc "@$((start - 100))"; : > follow.err
RXLOCK_TEST_CLOCK_SKEW=$TMP/clock RXLOCK_TEST_PAUSE_AT=beacon-solved:$TMP/go \
  "$R" beacon solve B --ids IDF --follow --poll 3000 --signer-pin "$pin" 2>follow.err & fp=$!
trap 'kill $fp 2>/dev/null; rm -rf "$TMP"' EXIT
waitfor "grep -q 'looking again at' follow.err"
check "before epoch 0: sleeps until its release, not the poll" grep -q "looking again at $(utc "$start")" follow.err

# ---- the release-second race: at the release second the feed does not have
# epoch 0 out yet (the operator republishes a moment later)
setc "@$start"
waitfor "grep -q 'epoch 0: its release time has passed' follow.err"
check "at the release: the feed has it not out yet, read again within seconds" \
  grep -q 'epoch 0: its release time has passed and the feed does not have it out yet' follow.err
check "... looking again one second later" grep -q "looking again at $(utc $((start + 1)))" follow.err
expect_rc 0 "the operator releases epoch 0" env RXLOCK_TEST_CLOCK_SKEW="@$start" "$R" beacon run B --once --gen-rate 1e6
setc "@$((start + 1))"
waitfor "test -e go.reached"
check "epoch 0 solved one second after its release (not a period later)" test -s IDF/0.txt

# ---- the stale-feed sleep: epoch 1 is released while the solver is busy
# (paused in its solve); its clock stays before epoch 1's release time
expect_rc 0 "the operator releases epoch 1 meanwhile" env RXLOCK_TEST_CLOCK_SKEW="@$((start + 10))" "$R" beacon run B --once --gen-rate 1e6
touch go
waitfor "test -s IDF/1.txt"
check "epoch 1 solved when the solve ended (the feed read again before sleeping)" test -s IDF/1.txt
check "... with the follower's clock still before its release" test "$(cat clock)" = "@$((start + 1))"
waitfor "grep -q \"looking again at $(utc $((start + 10)))\" follow.err"
check "then sleeps until the next release time of the schedule" grep -q "looking again at $(utc $((start + 10)))" follow.err
# a feed that cannot be read at a release: the last good one is kept and
# the feed tried again within seconds
expect_rc 0 "the operator releases epoch 2" env RXLOCK_TEST_CLOCK_SKEW="@$((start + 20))" "$R" beacon run B --once --gen-rate 1e6
mv B/public/feed.json feed.hidden
setc "@$((start + 20))"
waitfor "grep -q 'trying again within 5 s' follow.err"
check "a feed that cannot be read: the last good one kept, tried again soon" grep -q 'trying again within 5 s' follow.err
mv feed.hidden B/public/feed.json
setc "@$((start + 25))"
waitfor "test -s IDF/2.txt"
check "... and once it is back, epoch 2 is solved" test -s IDF/2.txt
kill -TERM $fp; wait $fp; frc=$?
check "SIGTERM ends the follower with exit 0" test $frc -eq 0
check "identities published on the beacon's own DIR" test -s B/public/identities/1.txt
# "about" from what happened: epochs 0 and 2's identities came 1 s and 5 s
# after their releases (epoch 1's before its release time: not counted)
expect_rc 0 "status" env RXLOCK_TEST_CLOCK_SKEW="@$((start + 25))" "$R" beacon status B --signer-pin "$pin"
check "about is observed, said as such, never below the floor" \
  grep -q 'about 5.0s (observed: the median release-to-identity time of its last 2 solved epochs)' "$TMP/.out"

# ---- recovery from a copy: what the feed publishes is taken, not solved
expect_rc 0 "the operator releases epochs 3 and 4" env RXLOCK_TEST_CLOCK_SKEW="@$((start + 40))" "$R" beacon run B --once --gen-rate 1e6
cp -r B/public PUB
expect_rc 0 "solve a copy" env RXLOCK_TEST_CLOCK_SKEW="@$((start + 40))" "$R" beacon solve PUB --ids IDC --signer-pin "$pin" --parallel 2
check "epochs 0, 1 and 2 taken from the published identities" \
  sh -c "grep -q 'epoch 0: took the published identity' '$TMP/.err' && grep -q 'epoch 2: took the published identity' '$TMP/.err'"
check "... never solved again" sh -c "! grep -q 'epoch [012] solved in' '$TMP/.err'"
check "epochs 3 and 4 solved (two workers)" sh -c "grep -q 'epoch 3 solved in' '$TMP/.err' && grep -q 'epoch 4 solved in' '$TMP/.err'"
check "the taken identities are the operator's" sh -c "cmp -s IDC/0.txt B/public/identities/0.txt && cmp -s IDC/2.txt B/public/identities/2.txt"
check "the count says so" grep -q '2 epoch keys solved now, 5 solved in all (3 taken' "$TMP/.err"
# --follow with two workers: the released epochs solved at once, then it waits
env RXLOCK_TEST_CLOCK_SKEW="$((start + 40 - $(date +%s)))" "$R" beacon solve PUB --ids IDP --follow --parallel 2 \
  --signer-pin "$pin" 2>par.err & pp=$!
waitfor "test -s IDP/3.txt && test -s IDP/4.txt && grep -q 'looking again at' par.err"
check "--follow --parallel 2: epochs 3 and 4 solved by workers" sh -c 'test -s IDP/3.txt && test -s IDP/4.txt'
kill -TERM $pp; wait $pp; prc=$?
check "... SIGTERM ends it with exit 0" test $prc -eq 0
# a published identity of another key is refused (and the epoch solved)
rm -rf IDC2; cp -r PUB PUB2; cp IDC/3.txt PUB2/identities/0.txt
expect_rc 0 "a copy whose identity 0 is another epoch's" env RXLOCK_TEST_CLOCK_SKEW="@$((start + 40))" "$R" beacon solve PUB2 --ids IDC2 --signer-pin "$pin"
check "... refused and solved instead" grep -q 'epoch 0: the published identities/0.txt does not open the epoch.s recipient: solving it instead' "$TMP/.err"
check "... to the right identity" test "$(grep -v '^#' IDC2/0.txt)" = "$(grep -v '^#' IDF/0.txt)"
# one damaged puzzle: reported and skipped, the others solved, exit 1
rm -rf IDC3; cp -r PUB PUB3; printf 'x' >> PUB3/puzzles/3.json
expect_rc 1 "a copy with one damaged puzzle" env RXLOCK_TEST_CLOCK_SKEW="@$((start + 40))" "$R" beacon solve PUB3 --ids IDC3 --signer-pin "$pin"
check "... says which" grep -q "epoch 3: the published puzzle's digest differs" "$TMP/.err"
check "... solves the others" test -s IDC3/4.txt
check "... and says some failed" grep -q '1 epoch key could not be solved' "$TMP/.err"
summary
