# SPDX-License-Identifier: ISC
# tests/cli/test_resume.sh — chain verification: a multi-group `rxlock lock` killed
# (kill -9) at 10 random points resumes from its sealed generation state
# (PUZZLE.state/) and finishes with the puzzle an uninterrupted run gives
# (byte for byte, test-only deterministic mode), which solves to the right
# identity; no temp file or state is left; the work each resume reports as
# lost stays within one checkpoint interval (C steps) per group.  Then a
# test-build fault (RXLOCK_TEST_FLIP: one bit of one step of one group) is
# caught by verification, group and segment named, the chain corrected and
# the puzzle solves; with --no-verify the same fault gives a puzzle that
# inspect marks UNVERIFIED (and that does not solve past that group).
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff

# no_leftovers NAME: only NAME (and the reference) may remain
no_leftovers() { [ -z "$(ls -A | grep -v -e "^$1\$" -e '^ref-' -e '^id-' -e '^log-' -e '^\.out$' -e '^\.err$' -e '^sha3\.json$')" ]; }
# same_identity A B: the same age identity line
same_identity() { [ "$(grep '^AGE-SECRET-KEY-' "$1")" = "$(grep '^AGE-SECRET-KEY-' "$2")" ] && grep -q '^AGE-SECRET-KEY-' "$1"; }

# kill_test LABEL C GROUPS MIN_MS SPAN_MS ARGS...: 10 kills at random points
# MIN_MS .. MIN_MS+SPAN_MS after the start (or 30-80% of the reference run
# when that is shorter), then finish
kill_test() {
  label=$1 C=$2 G=$3 min=$4 span=$5; shift 5
  t0=$(date +%s%N)
  expect_rc 0 "$label: uninterrupted reference" "$R" lock "$@" --checkpoint-steps "$C" --no-resume -o "ref-$label.json"
  # kill points inside this machine's own run time (a quiet machine runs
  # the chains faster than MIN_MS + SPAN_MS): 30-80% of the reference run,
  # but never before MIN_MS's share of it
  ref_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ "$ref_ms" -lt $((min + span)) ]; then min=$((ref_ms * 3 / 10)); span=$((ref_ms * 50 / 100)); fi
  [ "$span" -ge 1 ] || span=1
  out=$label.json
  n=0
  while [ $n -lt 10 ]; do
    "$R" lock "$@" --checkpoint-steps "$C" -o "$out" >/dev/null 2>"log-$label-$n" &
    pid=$!
    # a random point (from /dev/urandom)
    ms=$(( $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % span + min ))
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    [ -e "$out" ] && break            # it finished before the kill
    ls | grep -q '\.tmp-' && fail "$label: kill $n left a temp file beside the output"
    n=$((n + 1))
  done
  [ -e "$out" ] || "$R" lock "$@" --checkpoint-steps "$C" -o "$out" >/dev/null 2>"log-$label-final" || fail "$label: final run"
  check "$label: finished" test -s "$out"
  check "$label: resumed puzzle byte-identical to the uninterrupted one" cmp "$out" "ref-$label.json"
  check "$label: state removed, no temp file" no_leftovers "$out"
  check_resumes "$label" "$C" "$G" "$n"   # every resume's lost work <= C per group
  expect_rc 0 "$label: solves" "$R" solve --mode light "$out" -o "id-$label.txt"
  expect_rc 0 "$label: reference solves" "$R" solve --mode light "ref-$label.json" -o "id-ref-$label.txt"
  check "$label: same identity" same_identity "id-$label.txt" "id-ref-$label.txt"
}

kill_test sha3 200000 3 200 1200 --work sha3-256 --groups 3 --steps 4000000 --workers 2
# RandomX: the light cache (256 MiB) takes a few seconds before any chain step
kill_test rxv2 12 2 1500 4500 --work randomx-v2 --mode light --groups 2 --steps 120 --workers 2

# --- a flipped bit in one step of group 2 --------------------------------
rm -f ./*.json ./id-* ./log-*
expect_rc 0 "clean reference" "$R" lock --work sha3-256 --groups 3 --steps 300000 --checkpoint-steps 30000 --verify --no-resume -o ref-clean.json
RXLOCK_TEST_FLIP=2:75000 expect_rc 0 "fault, --verify: finishes" "$R" lock --work sha3-256 --groups 3 --steps 300000 --checkpoint-steps 30000 --verify -o flip.json
check "fault: mismatch named (group 2 segment 3)" grep -q 'group 2 segment 3 (steps 60000..90000).*differ' "$TMP/.err"
check "fault: the odd worker named" grep -q "the chain's worker (.* pid [0-9]*) gave the odd value" "$TMP/.err"
check "fault: corrected puzzle byte-identical to the clean one" cmp flip.json ref-clean.json
expect_rc 0 "fault: corrected puzzle solves" "$R" solve flip.json -o id-flip.txt
expect_rc 0 "fault: inspect" "$R" inspect --no-estimate flip.json
check "fault: inspect says full" grep -q 'verification:  full' "$TMP/.out"
RXLOCK_TEST_FLIP=2:75000 expect_rc 0 "fault, --no-verify: finishes" "$R" lock --work sha3-256 --groups 3 --steps 300000 --checkpoint-steps 30000 --no-verify -o nov.json
check "no-verify: says unverified" grep -q 'unverified' "$TMP/.err"
expect_rc 0 "no-verify: inspect" "$R" inspect --no-estimate nov.json
check "no-verify: inspect marks it UNVERIFIED" grep -q 'verification:  UNVERIFIED' "$TMP/.out"
expect_rc 3 "no-verify: the corrupted chain fails at group 2 (its wrap does not open: 3)" "$R" solve nov.json -o id-nov.txt
check "no-verify: names group 2" grep -q 'group 2 of 3' "$TMP/.err"
# the record is in the header: claiming a verification changes H
sed 's/"method": "none"/"method": "full"/' nov.json > forged.json
cmp -s nov.json forged.json && fail "forging the verification record did not change the file"
expect_rc 1 "a forged verification record is refused" "$R" verify forged.json
check "forged record: header digest mismatch" grep -q 'header digest mismatch' "$TMP/.err"
RXLOCK_TEST_FLIP=2:75000 expect_rc 0 "fault, --verify=sample:1" "$R" lock --work sha3-256 --groups 3 --steps 300000 --checkpoint-steps 30000 --verify=sample:1 -o s1.json
check "sample:1 = every segment: corrected" cmp s1.json ref-clean.json

# --- options ---------------------------------------------------------------
expect_rc 2 "bad --verify" "$R" lock --work sha3-256 --groups 1 --steps 10 --verify=most -o x.json
expect_rc 2 "bad --verify sample" "$R" lock --work sha3-256 --groups 1 --steps 10 --verify=sample:2 -o x.json
expect_rc 2 "too many segments" "$R" lock --work sha3-256 --groups 4096 --steps 100 --checkpoint-steps 1 -o x.json
# a state for other parameters is refused, and kept
mkdir -p other.json.state
"$R" lock --work sha3-256 --groups 2 --steps 30000000 --checkpoint-steps 1000000 -o other.json >/dev/null 2>&1 &
pid=$!; sleep 1; kill -9 $pid; wait $pid 2>/dev/null
expect_rc 1 "state of another lock refused" "$R" lock --work sha3-256 --groups 2 --steps 30000001 -o other.json
check "refusal says so" grep -q 'holds the state of another lock' "$TMP/.err"
expect_rc 1 "the same lock with the other epoch kind (--pq) refused" "$R" lock --pq --work sha3-256 --groups 2 --steps 30000000 --checkpoint-steps 1000000 -o other.json
check "epoch kind: says which the state holds" grep -q 'holds the state of another lock (sha3-256, 2 x 30000000 steps, classic epoch key)' "$TMP/.err"
check "state kept" test -f other.json.state/plan.json
check "state is private" sh -c "[ \"\$(stat -c %a other.json.state)\" = 700 ] && [ \"\$(stat -c %a other.json.state/plan.secrets)\" = 600 ]"
summary
