# SPDX-License-Identifier: ISC
# tests/cli/test_lock_multi.sh — SHA3 lanes and the fused chain: `rxlock lock --work sha3-256`
# with workers that run bundles of groups in SIMD lanes (avx512x8, avx2x4)
# writes the same puzzle, byte for byte (test-only deterministic mode), as
# the single-chain path (RXLOCK_SHA3_MULTI=portable: one lane, one group
# per worker), for bundles that fill the lanes, groups not a multiple of
# the lanes, fewer groups than lanes, and bundled verification segments;
# a flipped bit in a bundled group's chain is caught by verification,
# named, corrected, and the puzzle is the clean one.  `rxlock group` (one
# cluster task of several groups, pinned to one CPU so its groups bundle)
# of a verified plan (chain verification: each chain's value recorded at every
# multiple of C) gives records that the verification task recomputes and
# results that assemble to the same puzzle on every backend, also after a
# SIGTERM (checkpoints) and a re-run, and with the bundle's chains at
# different steps (one starts over, the others resume mid-segment); a
# flipped bit in one bundled chain is caught and named by segment.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff

# which SIMD backends this CPU runs (an unavailable one falls back to the
# best available: the comparison still holds, it just covers less)
have() { grep -qw "$1" /proc/cpuinfo 2>/dev/null; }
backends=portable
have avx2 && backends="$backends avx2x4" || echo "  note: no AVX2 here: avx2x4 runs as the best available backend"
have avx512f && backends="$backends avx512x8" || echo "  note: no AVX-512 here: avx512x8 runs as the best available backend"
[ "$(uname -m)" = aarch64 ] && backends="$backends armv8-sha3x2"

S=300000
C=100000
# case LABEL GROUPS WORKERS: every backend's puzzle equals the single-chain one
case_groups() {
  label=$1 G=$2 W=$3
  RXLOCK_SHA3_MULTI=portable expect_rc 0 "$label: single-chain reference" \
    "$R" lock --work sha3-256 --groups "$G" --steps $S --checkpoint-steps $C --workers "$W" --verify --no-resume -o "ref-$label.json"
  for b in $backends; do
    [ "$b" = portable ] && continue
    RXLOCK_SHA3_MULTI=$b expect_rc 0 "$label: $b" \
      "$R" lock --work sha3-256 --groups "$G" --steps $S --checkpoint-steps $C --workers "$W" --verify -o "$b-$label.json"
    check "$label: $b puzzle byte-identical to the single-chain one" cmp "$b-$label.json" "ref-$label.json"
    check "$label: $b: no state left" test ! -e "$b-$label.json.state"
  done
  expect_rc 0 "$label: inspect" "$R" inspect --no-estimate "ref-$label.json"
  check "$label: every segment verified" grep -q 'verification:  full' "$TMP/.out"
  expect_rc 0 "$label: solves" "$R" solve --mode light "ref-$label.json" -o "id-$label.txt"
}
case_groups g16w2 16 2    # bundles of 8 (AVX-512) / 4 (AVX2): the lanes filled
case_groups g7w2 7 2      # 4 + 3 groups: not a multiple of the lanes
case_groups g10w1 10 1    # 8 + 2 / 4 + 4 + 2 on one worker
case_groups g3w1 3 1      # fewer groups than lanes: a bundle of 3

# --- a flipped bit in a bundled group (3 groups, one worker: one bundle) ---
for b in $backends; do
  RXLOCK_SHA3_MULTI=$b RXLOCK_TEST_FLIP=2:150000 expect_rc 0 "flip, $b: finishes" \
    "$R" lock --work sha3-256 --groups 3 --steps $S --checkpoint-steps $C --workers 1 --verify -o "flip-$b.json"
  check "flip, $b: mismatch named (group 2 segment 2)" grep -q 'group 2 segment 2 (steps 100000..200000).*differ' "$TMP/.err"
  check "flip, $b: the odd worker named" grep -q "the chain's worker (.* pid [0-9]*) gave the odd value" "$TMP/.err"
  check "flip, $b: corrected puzzle byte-identical to the clean one" cmp "flip-$b.json" ref-g3w1.json
done

# --- rxlock group: one task of 7 groups on one CPU (bundles of 7 / 4 + 3) ---
if command -v taskset >/dev/null 2>&1; then
  mkdir -p keys
  expect_rc 0 "plan" "$R" plan --work sha3-256 --groups 7 --steps 3000000 --batch 7 \
    --planner-key keys/p --worker-key keys/w -o P
  for b in $backends; do
    cp -r P "P-$b"
    RXLOCK_SHA3_MULTI=$b expect_rc 0 "group, $b" taskset -c 0 "$R" group "P-$b" 0 --worker-key keys/w -q
    expect_rc 0 "group --verify, $b: every recorded segment recomputed and matched" "$R" group --verify "P-$b" 0 --worker-key keys/w -q
    expect_rc 0 "assemble, $b" "$R" assemble "P-$b" --planner-key keys/p -o "group-$b.json"
    check "group, $b: the assembled puzzle equals the single-chain one" cmp "group-$b.json" group-portable.json
  done
  # interrupted: SIGTERM to the task after 1.5 s (its bundles checkpoint), then a re-run
  b=$(echo $backends | awk '{print $2}'); [ -n "$b" ] || b=portable
  # the task on one CPU, SIGTERM after 1.5 s (its bundles checkpoint): rc
  term_task() {
    RXLOCK_SHA3_MULTI=$b taskset -c 0 "$R" group "$1" 0 --worker-key keys/w --checkpoint-every 1 -q >/dev/null 2>&1 &
    pid=$!
    sleep 1.5
    kill -TERM $pid 2>/dev/null
    wait $pid; rc=$?
  }
  cp -r P P-int
  term_task P-int
  if [ $rc -eq 143 ]; then
    check "group, $b, SIGTERM: checkpoints left" sh -c 'ls P-int/results | grep -q ckpt'
  else
    echo "  note: the task ended before the SIGTERM (rc $rc): the resume is not exercised"
  fi
  RXLOCK_SHA3_MULTI=$b expect_rc 0 "group, $b: re-run" taskset -c 0 "$R" group P-int 0 --worker-key keys/w -q
  expect_rc 0 "group --verify, interrupted" "$R" group --verify P-int 0 --worker-key keys/w -q
  expect_rc 0 "assemble, interrupted" "$R" assemble P-int --planner-key keys/p -o group-int.json
  check "group, $b, interrupted and re-run: the same puzzle" cmp group-int.json group-portable.json
  # staggered bundle: group 1 starts over while the others resume from their
  # mid-segment checkpoints, so the bundle's chains reach their record
  # boundaries (multiples of C) at different batches; each is recorded
  cp -r P P-stag
  term_task P-stag
  [ $rc -eq 143 ] || echo "  note: the task ended before the SIGTERM (rc $rc): the chains start together"
  rm -f P-stag/results/group-0001.*
  RXLOCK_SHA3_MULTI=$b expect_rc 0 "group, $b, staggered: re-run" taskset -c 0 "$R" group P-stag 0 --worker-key keys/w -q
  expect_rc 0 "group --verify, staggered" "$R" group --verify P-stag 0 --worker-key keys/w -q
  expect_rc 0 "assemble, staggered" "$R" assemble P-stag --planner-key keys/p -o group-stag.json
  check "group, $b, staggered: the same puzzle" cmp group-stag.json group-portable.json
  # a flipped bit in one bundled chain (group 2, step 150000, segment 2): the
  # group task succeeds, the verification task fails, assemble names the segment
  expect_rc 0 "plan VF" "$R" plan --work sha3-256 --groups 3 --steps $S --checkpoint-steps $C --batch 3 \
    --planner-key keys/pf --worker-key keys/wf -o VF
  RXLOCK_SHA3_MULTI=$b RXLOCK_TEST_FLIP=2:150000 expect_rc 0 "group, $b, flip: the bundle finishes" \
    taskset -c 0 "$R" group VF 0 --worker-key keys/wf -q
  expect_rc 1 "group --verify, flip: fails" "$R" group --verify VF 0 --worker-key keys/wf -q
  check "group --verify, flip: names group 2 and its segment" grep -q 'group 2 segment 2 (steps [0-9]*..[0-9]*): the recomputation differs' "$TMP/.err"
  expect_rc 1 "assemble, flip: refused" "$R" assemble VF --planner-key keys/pf -o vf.json
  check "assemble, flip: group 2 segment 2 only" sh -c "grep -q 'group 2 segment 2 (steps 100000..200000): MISMATCH' '$TMP/.err' && test \$(grep -c MISMATCH '$TMP/.err') -eq 1"
else
  echo "  note: no taskset: the rxlock group bundle cases are skipped"
fi
summary
