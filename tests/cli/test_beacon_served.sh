#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_served.sh — a kill at any file-system call of
# `beacon run` (at a release: puzzles released, the feed republished)
# leaves no temp file of feed.json in the served public/ (the feed is
# staged under private/), even where outputs use named temp files
# (RXLOCK_TEST_NO_TMPFILE=1).  The kills come from the crash test's
# LD_PRELOAD shim (build/tests/killshim.so, `make tests`).
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
SHIM=$PWD/build/tests/killshim.so
[ -f "$SHIM" ] || { echo "SKIP: no killshim.so (make tests)"; summary; exit 0; }
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_NO_TMPFILE=1
printf 'sha3-256 1000 slow test floor\n' > floor.txt
start=1800000000
RXLOCK_TEST_CLOCK_SKEW="@$((start - 100))" "$R" beacon init B --work sha3-256 --groups 1 --steps 5000 \
  --floor-table floor.txt --every 10s --ahead 2 --start "@$start" --workers 1 >/dev/null 2>&1
RXLOCK_TEST_CLOCK_SKEW="@$((start - 100))" "$R" beacon run B --once --gen-rate 1e6 >/dev/null 2>&1
cp -a B ref
rm -f calls.log
RXLOCK_TEST_CLOCK_SKEW="@$start" RXLOCK_SHIM_LOG=$TMP/calls.log LD_PRELOAD=$SHIM "$R" beacon run ref --once --gen-rate 1e6 >/dev/null 2>&1
n=$(wc -l < calls.log)
check "the run at a release makes file-system calls ($n)" test "$n" -gt 10
bad=0; k=1
while [ $k -le "$n" ]; do
  rm -rf W; cp -a B W
  RXLOCK_TEST_CLOCK_SKEW="@$start" RXLOCK_SHIM_KILL=$k LD_PRELOAD=$SHIM "$R" beacon run W --once --gen-rate 1e6 >/dev/null 2>&1
  if ls -A W/public | grep -q 'feed\.json\.tmp-'; then bad=$((bad + 1)); echo "  killed at call $k: $(ls -A W/public | grep tmp)"; fi
  k=$((k + 1))
done
check "no kill left feed.json's temp file in public/ ($bad of $n did)" test "$bad" -eq 0
rm -rf W; cp -a B W
expect_rc 0 "a run after a kill finishes" env RXLOCK_TEST_CLOCK_SKEW="@$start" "$R" beacon run W --once --gen-rate 1e6
check "... epoch 0 released" test -f W/public/puzzles/0.json
summary
