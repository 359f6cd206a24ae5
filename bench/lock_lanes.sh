#!/bin/sh
# SPDX-License-Identifier: ISC
# bench/lock_lanes.sh — SHA3 lanes and the fused chain: the wall and CPU time of `rxlock lock
# --work sha3-256` with G groups on W workers, one chain per worker
# (RXLOCK_SHA3_MULTI=portable: one lane) against workers running bundles of
# groups in SIMD lanes (avx512x8, avx2x4).  Paired in one session in the
# order A B C C B A, repeated ROUNDS times, the same deterministic test seed
# (rxlock-test, test-only mode), default verification (sample:0.25) and
# resume state; digest check: every run's puzzle must equal the first one
# byte for byte.  CPU = user + sys of lock and its workers (GNU time).
# usage: sh bench/lock_lanes.sh [G] [W] [S] [ROUNDS] [BACKENDS...]
set -eu
BIN=${RXLOCK_TESTBIN:-$PWD/build/rxlock-test}
G=${1:-16} W=${2:-2} S=${3:-20000000} ROUNDS=${4:-1}
shift 4 2>/dev/null || shift $#
B=${*:-portable avx512x8 avx2x4}
REV=$(for b in $B; do echo "$b"; done | tac | tr '\n' ' ')
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff
echo "G=$G W=$W S=$S backends: $B; $(date -u +%H:%M:%S) UTC load: $(cut -d' ' -f1-3 /proc/loadavg)"
r=0
while [ "$r" -lt "$ROUNDS" ]; do
  for b in $B $REV; do
    rm -f "$T/p.json"
    RXLOCK_SHA3_MULTI=$b /usr/bin/time -f '%e %U %S' -o "$T/time" \
      "$BIN" lock --work sha3-256 --groups "$G" --steps "$S" --workers "$W" -q -o "$T/p.json" >/dev/null 2>&1
    [ -f "$T/ref.json" ] || cp "$T/p.json" "$T/ref.json"
    cmp -s "$T/p.json" "$T/ref.json" && same=same || same=DIFFERENT
    read -r wall u s < "$T/time"
    awk -v b="$b" -v w="$wall" -v u="$u" -v s="$s" -v same="$same" -v l="$(cut -d' ' -f1 /proc/loadavg)" \
      'BEGIN { printf "  %-9s wall %7.2f s  cpu %7.2f s  puzzle %s  load %s\n", b, w, u + s, same, l }'
  done
  r=$((r + 1))
done
