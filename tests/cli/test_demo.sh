#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_demo.sh — tools/demo.sh's beacon part (RXLOCK_DEMO_PART=
# beacon; the shipping binary, real time, about 20 s): it prints the
# beacon's lines, the too-early refusal, the sealed recovery and `demo: OK`;
# and no process it started survives it, nor its temporary directory —
# after a clean run, after Ctrl-C (SIGINT to its process group while the
# operator and the solver run in the background), and after a failed step
# (an rxlock whose `encrypt` fails, while the operator runs), which the demo
# names.  Its processes are found by a mark in their environment.
. "$(dirname "$0")/lib.sh"
DEMO=$(cd "$(dirname "$0")/../.." && pwd)/tools/demo.sh
cd "$TMP" || exit 1
mark="demo-test-$$-$(date +%s%N)"
# survivors: how many processes carry this test's mark (the demo's and
# everything it started; none of this shell's own)
survivors() { grep -l -s -a "RXLOCK_DEMO_TEST_MARK=$mark" /proc/[0-9]*/environ 2>/dev/null | wc -l; }
# demo CASE [BIN]: run the demo's beacon part in its own process group
# (setsid, SIGINT at its default, as under a terminal's Ctrl-C) in the
# background, TMPDIR=$TMP/CASE.tmp, output in CASE.out / CASE.err; $pid
demo() { mkdir "$1.tmp"
  RXLOCK_DEMO_PART=beacon RXLOCK_DEMO_TEST_MARK=$mark TMPDIR=$TMP/$1.tmp \
    setsid env --default-signal=INT sh "$DEMO" "${2:-$RXLOCK}" >"$1.out" 2>"$1.err" & pid=$!; }
alive() { st=$(sed 's/.*) //;s/ .*//' "/proc/$1/stat" 2>/dev/null) || return 1; [ "$st" != Z ]; }
# finish_within S: wait for the demo at most S seconds (then KILL its group);
# its exit status in $rc
finish_within() { n=0; while alive $pid && [ $n -lt $(($1 * 10)) ]; do sleep 0.1; n=$((n + 1)); done
  alive $pid && { fail "the demo did not end within $1 s"; kill -s KILL -- -$pid 2>/dev/null; }
  wait $pid; rc=$?; }
# until_line CASE TEXT S: wait until CASE.out has TEXT (at most S seconds)
until_line() { n=0; while ! grep -q "$2" "$1.out" && alive $pid && [ $n -lt $(($3 * 10)) ]; do sleep 0.1; n=$((n + 1)); done
  grep -q "$2" "$1.out"; }
# left CASE: what the demo left in its TMPDIR
left() { ls -A "$1.tmp" | wc -l; }

# ---- a whole run
check "no marked process before" test "$(survivors)" -eq 0
demo run
finish_within 150
# the demo sizes its beacon from a 1 s measurement; when the machine got much
# busier right after it, the demo says so and stops: one more try, then
if [ "$rc" -ne 0 ] && grep -q 'busier than when measured' run.err; then
  echo "  (the machine got busier than the demo measured: once more)"
  check "... and removed what it made" test "$(left run)" -eq 0
  rm -rf run.tmp; demo run; finish_within 150
fi
check "the demo exits 0 (rc $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || { cat run.out run.err >&2; }
check "beacon init line names the demo floor" grep -q '^demo: beacon init B: .*DEMO FLOOR TABLE.*NOT the real floor' run.out
check "... and the real floor's cost" grep -q 'at the real floor, 20.80 MH/s' run.out
check "init's own promise line names the demo row" grep -q 'no sooner than 3.0s after its release .*DEMO floor' run.out
check "beacon run in the background" grep -q '^demo: beacon run B in the background' run.out
check "epoch 0 generated" grep -q '^demo: generated epoch 0 (operator-only' run.out
check "epoch 1 sealed to epoch 0" grep -q '^demo: generated epoch 1, published at once sealed to epoch 0' run.out
check "encrypt picks epoch 1 for the later date" grep -q '^demo: encrypt --feed B --open-after .* note.txt: epoch 1' run.out
check "encrypt --feed --open-after picks epoch 0" grep -q '^demo: encrypt --feed B --open-after .* letter.txt: .*epoch 0' run.out
check "Debian age -r to the feed's recipient" grep -q "^demo: by hand with Debian's age .*age -r age1" run.out
check "too early: names the epoch and when" grep -q 'epoch 0 is not solved yet (not released): expected about' run.out
check "beacon solve --follow" grep -q '^demo: beacon solve B/public --ids ids --follow' run.out
check "the operator is killed" grep -q '^demo: epoch 0 released .* the operator is killed (kill -9) and B/private deleted' run.out
check "epoch 0 solved" grep -q '^demo: epoch 0 solved in' run.out
check "decrypt --feed opens it" grep -q '^demo: decrypt --feed B --ids ids letter.txt.age opens it: Meet at the old mill' run.out
check "age -d opens the age-made file" grep -q "^demo: Debian's age opens the age-made file" run.out
check "the sealed recovery" grep -q '^demo: sealed recovery: epoch 1, never released, unsealed with epoch 0.s identity .* from public/ alone, at .*; decrypt --feed opens note.age: The key is under' run.out
check "the solver stopped" grep -q '^demo: beacon solve --follow stopped (SIGTERM, exit 0)' run.out
check "a line about the web page" grep -q '^demo: .*web page' run.out
check "demo: OK last" test "$(tail -n 1 run.out)" = "demo: OK"
check "every line is a demo: line or an indented one" test "$(grep -cv '^demo: \|^  | ' run.out)" -eq 0
check "no process survives a run" test "$(survivors)" -eq 0
check "its temporary directory is removed" test "$(left run)" -eq 0

# ---- Ctrl-C while the operator and the solver run in the background
demo int
if until_line int '^demo: beacon solve B/public' 60; then
  sleep 0.5
  check "both background processes run before SIGINT" test "$(survivors)" -ge 3
  kill -s INT -- -$pid
  finish_within 30
  check "SIGINT: exit 130 (rc $rc)" test "$rc" -eq 130
  check "SIGINT: says where it was interrupted" grep -q '^demo: interrupted (SIGINT) during: .*; stopped what it started, removed ' int.err
  check "SIGINT: no process survives" test "$(survivors)" -eq 0
  check "SIGINT: its temporary directory is removed" test "$(left int)" -eq 0
else
  fail "SIGINT: the demo never reached beacon solve"; cat int.out int.err >&2; kill -s KILL -- -$pid; wait $pid
fi

# ---- a step that fails while the operator runs: an rxlock whose encrypt fails
printf '#!/bin/sh\n[ "$1" = encrypt ] && { echo "rxlock: encrypt: refused (test)" >&2; exit 1; }\nexec %s "$@"\n' \
  "$RXLOCK" > rx-fail
chmod +x rx-fail
demo fail "$TMP/rx-fail"
finish_within 60
check "failed step: exit 1 (rc $rc)" test "$rc" -eq 1
check "failed step: the operator was running" grep -q '^demo: beacon run B in the background' fail.out
check "failed step: says which" grep -q '^demo: FAILED during: encrypt --feed --open-after (exit 1' fail.err
check "failed step: says why" grep -q 'encrypt: refused (test)' fail.err
check "failed step: no demo: OK" test "$(grep -c '^demo: OK' fail.out)" -eq 0
check "failed step: no process survives" test "$(survivors)" -eq 0
check "failed step: its temporary directory is removed" test "$(left fail)" -eq 0
summary
