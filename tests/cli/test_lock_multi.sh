# SPDX-License-Identifier: ISC
# tests/cli/test_lock_multi.sh — issue 23: `rxlock lock --work sha3-256`
# with workers that run bundles of groups in SIMD lanes (avx512x8, avx2x4)
# writes the same puzzle, byte for byte (test-only deterministic mode), as
# the single-chain path (RXLOCK_SHA3_MULTI=portable: one lane, one group
# per worker), for bundles that fill the lanes, groups not a multiple of
# the lanes, fewer groups than lanes, and bundled verification segments;
# a flipped bit in a bundled group's chain is caught by verification,
# named, corrected, and the puzzle is the clean one.
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
summary
