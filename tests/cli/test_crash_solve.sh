# SPDX-License-Identifier: ISC
# tests/cli/test_crash_solve.sh — kill -9 the solver at 20 pseudo-random
# moments across a multi-group sha3 puzzle, resuming each time with the same
# command.  The final identity must be correct, and the total recomputation
# (work counted by the test-only RXLOCK_TEST_COUNTER, which survives kill -9)
# at most one checkpoint interval per kill.  Also: a torn journal tail is
# ignored, a journal from another puzzle is refused.
. tests/cli/lib.sh
cd "$TMP" || exit 1
R=$RXLOCK_TESTBIN   # RXLOCK_TEST_COUNTER / test seed: test build only
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=0f1e2d3c4b5a69788796a5b4c3d2e1f0
# Size the puzzle from this machine's rate so the solve takes ~8 s and the
# kills (4.5 s of sleeps in all) land mid-solve on slow and fast machines.
# The fastest of a 1 s calibration's windows: a rate caught in a busy moment
# (inspect's quick estimate once read 1.0 M/s for a 4.7 M/s chain under a
# parallel build) sizes a puzzle that finishes before the kills.
"$R" calibrate --work sha3-256 --seconds 1 -o cal.json --json > cal.out 2>/dev/null
rate=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["rate_max"]))' cal.out 2>/dev/null)
[ -n "$rate" ] || rate=5000000
G=4; S=$((rate * 2)); [ $S -lt 300000 ] && S=300000
CK=$((S / 30)); KILLS=20
expect_rc 0 "lock" "$R" lock --work sha3-256 --groups $G --steps $S --workers 2 --keep-epoch-key want.txt -o p.json
idline() { grep '^AGE-SECRET-KEY-1' "$1"; }
export RXLOCK_TEST_COUNTER=$TMP/counter
rm -f counter
solve() { "$R" solve p.json --mode light --checkpoint-steps $CK -o id.txt "$@"; }
echo "crash test: G=$G S=$S checkpoint every $CK steps (rate $rate H/s)" >&2
# Kill moments: deterministic pseudo-random sleeps (awk srand with a fixed seed).
sleeps=$(awk -v n=$KILLS 'BEGIN{srand(7); for(i=0;i<n;i++) printf "%.2f ", 0.05 + rand()*0.35}')
k=0; killed=0
for t in $sleeps; do
  k=$((k + 1))
  "$R" solve p.json --mode light --checkpoint-steps $CK -o id.txt >/dev/null 2>&1 & sp=$!
  sleep "$t"
  if kill -9 $sp 2>/dev/null; then killed=$((killed + 1)); fi
  wait $sp 2>/dev/null
  [ $k -eq 10 ] && [ -f id.txt.journal ] && printf 'torn-tail-garbage' >> id.txt.journal
done
check "no identity while killed" test ! -e id.txt
check "journal exists" test -f id.txt.journal
expect_rc 0 "final resume" solve --json
check "resumed" grep -q '"resumed_group":[1-9]' "$TMP/.out"
check "identity correct" test "$(idline id.txt)" = "$(idline want.txt)"
total=$(od -An -t u8 -N8 counter | tr -d ' ')
work=$((G * S))
extra=$((total - work))
echo "crash test: $killed kills, $total hashes computed for $work ($extra recomputed, bound $((killed * CK)))" >&2
check "all work done" test "$total" -ge "$work"
check "recomputation <= one checkpoint interval per kill" test "$extra" -le $((killed * CK))
check "at least 15 kills landed mid-solve" test "$killed" -ge 15
# another puzzle's journal is refused before any work
unset RXLOCK_TEST_COUNTER
unset RXLOCK_TEST_INSECURE RXLOCK_TEST_SEED
expect_rc 0 "lock other" "$R" lock --work sha3-256 --groups 1 --steps 10 -o q.json
"$R" solve p.json --journal keep.journal --checkpoint-steps $CK -o id2.txt >/dev/null 2>&1 & sp=$!
sleep 0.3; kill -9 $sp 2>/dev/null; wait $sp 2>/dev/null
expect_rc 1 "foreign journal refused" "$R" solve q.json --journal keep.journal -o q.txt
check "foreign journal: one line" test "$(wc -l < "$TMP/.err")" -eq 1
check "foreign journal: says so" grep -q 'another puzzle' "$TMP/.err"
check "foreign journal: untouched, no identity" test ! -e q.txt
# SIGINT: checkpoint, exit 130 (128 + SIGINT), resume
"$R" solve p.json --mode light -o id3.txt >/dev/null 2>"$TMP/int.err" & sp=$!
sleep 0.5; kill -INT $sp; wait $sp; rc=$?
check "solve SIGINT: exit 130" test $rc -eq 130
check "solve SIGINT: says resume" grep -q 're-run the same command' "$TMP/int.err"
check "solve SIGINT: journal kept, no identity" test -s id3.txt.journal -a ! -e id3.txt
expect_rc 0 "solve after SIGINT" "$R" solve p.json --mode light --json -o id3.txt
check "solve after SIGINT: resumed" grep -q '"resumed_group":[1-9]' "$TMP/.out"
check "solve after SIGINT: identity" test "$(idline id3.txt)" = "$(idline want.txt)"
# garbage file as journal
printf 'this is not a journal at all, just text of some length........................................' > junk.journal
expect_rc 1 "junk journal refused" "$R" solve q.json --journal junk.journal -o q.txt
# stopped after the identity was written, before the journal was removed:
# the same command finishes that run (the journal holds the chain values)
printf 'left by a run stopped after writing id3.txt' > id3.txt.journal
expect_rc 0 "identity written, journal left: the same command finishes" "$R" solve p.json --mode light -o id3.txt
check "... says so" grep -q 'already holds this puzzle.s identity' "$TMP/.err"
check "... journal removed, identity kept" test ! -e id3.txt.journal -a "$(idline id3.txt)" = "$(idline want.txt)"
"$R" keygen -o other.txt 2>/dev/null
printf 'journal' > other.txt.journal
expect_rc 1 "another identity at -o: refused as before" "$R" solve p.json --mode light -o other.txt
check "... the journal untouched" test -e other.txt.journal
summary
