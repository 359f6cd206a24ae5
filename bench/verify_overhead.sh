#!/bin/sh
# SPDX-License-Identifier: ISC
# bench/verify_overhead.sh — the CPU cost of chain verification.
# Paired runs of `rxlock lock` in one session, the same deterministic test
# seed (rxlock-test, test-only mode: the same chains in every run), in the
# order none / sample:F / full, repeated ROUNDS times; prints the worker CPU
# seconds (RUSAGE_CHILDREN, from --json) and the verification steps of each
# run, and the ratio to the unverified run.  Digest check: every puzzle is
# solved (light mode) and must give the same identity.
# usage: sh bench/verify_overhead.sh [WORK] [G] [S] [C] [ROUNDS] [F]
set -eu
BIN=${RXLOCK_TESTBIN:-$PWD/build/rxlock-test}
WORK=${1:-sha3-256} G=${2:-2} S=${3:-4000000} C=${4:-100000} ROUNDS=${5:-2} F=${6:-0.25}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff
echo "work=$WORK G=$G S=$S C=$C F=$F workers=2 rounds=$ROUNDS load: $(cut -d' ' -f1-3 /proc/loadavg)"
r=0
while [ $r -lt "$ROUNDS" ]; do
  for v in none sample:$F full; do
    "$BIN" lock --work "$WORK" --mode light --groups "$G" --steps "$S" --checkpoint-steps "$C" --workers 2 \
      --no-resume --verify="$v" --json -o "$T/p.json" 2>/dev/null | grep '"done"' > "$T/done"
    cpu=$(sed -n 's/.*"worker_cpu_seconds":\([0-9.]*\).*/\1/p' "$T/done")
    vs=$(sed -n 's/.*"verify_steps":\([0-9]*\).*/\1/p' "$T/done")
    chk=$(sed -n 's/.*"segments_checked":\([0-9]*\).*/\1/p' "$T/done")
    seg=$(sed -n 's/.*"segments":\([0-9]*\).*/\1/p' "$T/done")
    [ "$v" = none ] && base=$cpu
    "$BIN" solve --mode light --no-journal "$T/p.json" -o "$T/id" 2>/dev/null
    id=$(grep '^AGE-SECRET-KEY-' "$T/id" | sha256sum | cut -c1-16)
    awk -v v="$v" -v c="$cpu" -v b="$base" -v vs="$vs" -v chk="$chk" -v seg="$seg" -v id="$id" -v gs=$((G * S)) \
      'BEGIN { printf "  %-12s worker CPU %7.2f s  x%.3f of none   verify steps %9d = %.3f of G*S   segments %d/%d  identity %s\n", v, c, c / b, vs, vs / gs, chk, seg, id }'
    rm -f "$T/p.json" "$T/id"
  done
  r=$((r + 1))
done
