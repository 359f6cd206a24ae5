# SPDX-License-Identifier: ISC
# tests/cli/test_lockfile_resume.sh — chain verification: `rxlock lock FILE` keeps its
# generation state, sealed, in OUT.state/ (0700) and resumes it.  A
# multi-group lock killed (kill -9) at 10 random points finishes with a
# container whose puzzle is the one an uninterrupted run gives (test-only
# deterministic mode) and that `rxlock unlock` opens to the original bytes;
# no temp file or state is left; each resume's lost work stays within one
# checkpoint interval per group.  Kills between "container written in the
# state" and "linked" and between "linked" and "state removed" (the test
# build's RXLOCK_TEST_KILL_AT) lose nothing; a changed input is refused
# (what changed named, state kept); --no-resume, --force, stdin and SIGINT.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff

# puzzle_of CONTAINER: the puzzle JSON bytes inside it
puzzle_of() {
  pl=$(grep -a -m 1 '^puzzle [0-9]*$' "$1"); pn=${pl#puzzle }
  po=$(grep -abo -m 1 '^puzzle [0-9]*$' "$1" | cut -d: -f1)
  tail -c +$((po + ${#pl} + 2)) "$1" | head -c "$pn"
}
same_puzzle() { puzzle_of "$1" > .p1; puzzle_of "$2" > .p2; [ -s .p1 ] && cmp -s .p1 .p2; }
# opens A B: rxlock unlock A gives the bytes of B
opens() { rm -f .opened; "$R" unlock "$1" -o .opened -q >/dev/null 2>&1 && cmp -s .opened "$2"; }
# no_leftovers: no temp file, no state
no_leftovers() { ! ls -A | grep -q -e '\.tmp-' -e '\.state$'; }

head -c 300000 /dev/urandom > data.bin

# kill_test LABEL C GROUPS ARGS...: up to 10 kill -9 at random points 5-30%
# of this machine's uninterrupted run after each start (each resumed run
# gets a little further; startup is hit too), then finish
kill_test() {
  label=$1 C=$2 G=$3; shift 3
  t0=$(date +%s%N)
  expect_rc 0 "$label: uninterrupted reference" "$R" lock data.bin "$@" --checkpoint-steps "$C" --no-resume -o "ref-$label.rxlock"
  ref_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  min=$((ref_ms * 5 / 100)); span=$((ref_ms * 25 / 100))
  [ "$span" -ge 1 ] || span=1
  out=$label.rxlock
  n=0
  while [ $n -lt 10 ]; do
    "$R" lock data.bin "$@" --checkpoint-steps "$C" -o "$out" >/dev/null 2>"log-$label-$n" &
    pid=$!
    ms=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % span + min ))
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ -e "$out" ] && [ ! -e "$out.state" ] && break     # it finished before the kill
    ls | grep -q '\.tmp-' && fail "$label: kill $n left a temp file beside the output"
    if [ -e "$out" ]; then   # killed between linking OUT and removing the state: the same command ends it
      "$R" lock data.bin "$@" --checkpoint-steps "$C" -o "$out" >/dev/null 2>"log-$label-final" ||
        fail "$label: kill $n after the link: the re-run did not finish"
      grep -q 'finished by an earlier run' "log-$label-final" || fail "$label: kill $n after the link: the re-run did not reuse the container"
      break
    fi
    n=$((n + 1))
  done
  [ -e "$out" ] || "$R" lock data.bin "$@" --checkpoint-steps "$C" -o "$out" >/dev/null 2>"log-$label-final" || fail "$label: final run"
  check "$label: finished" test -s "$out"
  check "$label: the puzzle inside is the uninterrupted run's" same_puzzle "$out" "ref-$label.rxlock"
  check "$label: unlock gives the original bytes" opens "$out" data.bin
  check "$label: state removed, no temp file" no_leftovers
  check_resumes "$label" "$C" "$G" "$n"
  rm -f log-$label-*
}

kill_test sha3 200000 3 --work sha3-256 --groups 3 --steps 4000000 --workers 2
# RandomX: the light cache (256 MiB) takes a few seconds before any chain step
kill_test rxv2 12 2 --work randomx-v2 --mode light --groups 2 --steps 120 --workers 2

L="--work sha3-256 --groups 2 --steps 200000 --checkpoint-steps 20000 --workers 2"
# --- killed after the container was written inside the state -------------
RXLOCK_TEST_KILL_AT=lockfile-written expect_rc 137 "killed after writing the container in the state" "$R" lock data.bin $L -o w.rxlock
check "  not linked yet, state kept" sh -c '[ ! -e w.rxlock ] && [ -s w.rxlock.state/container.rxlock ]'
cp w.rxlock.state/container.rxlock w-first.rxlock
expect_rc 1 "  a re-run with other parameters refused" "$R" lock data.bin --work sha3-256 --groups 2 --steps 200001 -o w.rxlock
check "  names them" grep -q 'holds the finished container of another lock (sha3-256, 2 x 200000 steps, post-quantum epoch key)' "$TMP/.err"
expect_rc 0 "  the re-run links the finished container" "$R" lock data.bin $L -o w.rxlock
check "  says so" grep -q 'finished by an earlier run' "$TMP/.err"
check "  the same container, not a new one" cmp -s w.rxlock w-first.rxlock
check "  opens" opens w.rxlock data.bin
check "  state removed" test ! -e w.rxlock.state
# --- killed after linking, before removing the state ----------------------
RXLOCK_TEST_KILL_AT=lock-linked expect_rc 137 "killed after linking" "$R" lock data.bin $L -o k.rxlock
check "  linked, state kept" sh -c '[ -s k.rxlock ] && [ -e k.rxlock.state ]'
cp k.rxlock k-first.rxlock
expect_rc 0 "  the re-run takes the output as its own (no --force)" "$R" lock data.bin $L -o k.rxlock
check "  unchanged" cmp -s k.rxlock k-first.rxlock
check "  state removed" test ! -e k.rxlock.state
check "  opens" opens k.rxlock data.bin

# --- a changed input ------------------------------------------------------
B="--work sha3-256 --groups 2 --steps 40000000 --checkpoint-steps 1000000 --workers 2"
cp data.bin c.bin
"$R" lock c.bin $B -o c.rxlock >/dev/null 2>&1 & pid=$!; sleep 1; kill -9 $pid; wait $pid 2>/dev/null
check "state made, private" sh -c "[ \"\$(stat -c %a c.rxlock.state)\" = 700 ] && [ \"\$(stat -c %a c.rxlock.state/input.json)\" = 600 ] && [ \"\$(stat -c %a c.rxlock.state/plan.secrets)\" = 600 ]"
check "the input record holds no content hash" sh -c "! grep -qi -e hash -e blake -e sha c.rxlock.state/input.json"
printf x >> c.bin
expect_rc 1 "grown input refused" "$R" lock c.bin $B -o c.rxlock
check "  names the size change" grep -q 'c.bin: changed since this lock started (size 300000 -> 300001 bytes' "$TMP/.err"
check "  says how to resume or start over" grep -q 'Restore the file and run the same command to resume, or remove c.rxlock.state/ to start over' "$TMP/.err"
check "  state kept" test -f c.rxlock.state/plan.json
cp data.bin c.bin     # same size, new modification time
expect_rc 1 "touched input refused" "$R" lock c.bin $B -o c.rxlock
check "  names the time change" grep -q 'changed since this lock started (modified .* UTC -> .* UTC)' "$TMP/.err"
# --no-resume: in memory, the state left alone
expect_rc 0 "--no-resume writes the container from memory" "$R" lock c.bin --work sha3-256 --groups 2 --steps 2000 --no-resume -q -o c.rxlock
check "  opens" opens c.rxlock c.bin
check "  the other state untouched" test -f c.rxlock.state/plan.json
rm -rf c.rxlock.state c.rxlock

# --- an epoch (puzzle) state is not a lock FILE state ----------------------
"$R" lock $B -o e.rxlock >/dev/null 2>&1 & pid=$!; sleep 1; kill -9 $pid; wait $pid 2>/dev/null
expect_rc 1 "a \`lock -o\` state refused" "$R" lock data.bin $B -o e.rxlock
check "  says so" grep -q 'holds the generation state of `rxlock lock -o`' "$TMP/.err"
rm -rf e.rxlock.state
# ... nor the other way round
"$R" lock data.bin $B -o e.rxlock >/dev/null 2>&1 & pid=$!; sleep 1; kill -9 $pid; wait $pid 2>/dev/null
expect_rc 1 "a \`lock FILE\` state refused by \`lock -o\`" "$R" lock $B -o e.rxlock
check "  says so" grep -q 'holds the generation state of a `rxlock lock FILE`, not of a puzzle' "$TMP/.err"
check "  kept" test -f e.rxlock.state/input.json
rm -rf e.rxlock.state
# --- other parameters refused (the library's check) -------------------------
"$R" lock data.bin $B -o p.rxlock >/dev/null 2>&1 & pid=$!; sleep 1; kill -9 $pid; wait $pid 2>/dev/null
expect_rc 1 "other parameters refused" "$R" lock data.bin --work sha3-256 --groups 2 --steps 40000001 -o p.rxlock
check "  says so" grep -q 'holds the state of another lock' "$TMP/.err"
rm -rf p.rxlock.state

# --- SIGINT leaves a resumable state -----------------------------------------
M="--work sha3-256 --groups 2 --steps 6000000 --checkpoint-steps 200000 --workers 2"
"$R" lock data.bin $M -o i.rxlock >/dev/null 2>i.err & pid=$!; sleep 1.5; kill -INT $pid; wait $pid; rc=$?
check "SIGINT: exit 130 ($rc)" test "$rc" -eq 130
check "  says where the state is" grep -q 'no puzzle written; the generation state is kept in i.rxlock.state: run the same command' i.err
check "  no output, no temp file" sh -c '[ ! -e i.rxlock ] && ! ls -A | grep -q "\.tmp-"'
expect_rc 0 "  the same command resumes" "$R" lock data.bin $M -o i.rxlock
check "  resumed" grep -q 'resumed:' "$TMP/.err"
check "  opens" opens i.rxlock data.bin
check "  no leftovers" no_leftovers

# --- --force unchanged; stdin and stdout stay in memory ----------------------
echo other > f.rxlock
expect_rc 1 "existing output refused before any work" "$R" lock data.bin $L -o f.rxlock
check "  no state made" test ! -e f.rxlock.state
check "  untouched" grep -qx other f.rxlock
expect_rc 0 "--force replaces it" "$R" lock data.bin $L --force -o f.rxlock
check "  opens" opens f.rxlock data.bin
check "  no leftovers" no_leftovers
expect_rc 0 "stdin: in memory" sh -c "'$R' lock - $L -o s.rxlock < data.bin"
check "  no state" test ! -e s.rxlock.state
check "  opens" opens s.rxlock data.bin
expect_rc 0 "stdout: in memory" sh -c "'$R' lock data.bin $L -o - > o.rxlock"
check "  no state" test ! -e -.state
check "  opens" opens o.rxlock data.bin
summary
