#!/bin/sh
# SPDX-License-Identifier: ISC
# fuzz/run.sh — build the libFuzzer targets (`make fuzz-build`: the library
# and fuzz/fuzz_*.c with clang -fsanitize=fuzzer,address,undefined, into
# build-fuzz/) and run each for a bounded time on a seed corpus generated
# from real puzzles, journals, a floor table and a beacon feed.  Fails on any crash, leak or sanitizer
# report.
# Usage: sh fuzz/run.sh [SECONDS_PER_TARGET]     (default 60; $FUZZ_SECONDS)
# CI: sh fuzz/run.sh 30
set -eu
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-60}}
CC=${FUZZ_CC:-clang}
out=build-fuzz/fuzz
if ! command -v "$CC" >/dev/null 2>&1; then echo "fuzz: $CC not found" >&2; exit 1; fi
[ -x build/rxlock ] || make -s all
make -s -j2 FUZZ_CC="$CC" fuzz-build >/dev/null
# Seed corpus from the real binary (test-only deterministic mode).
corp=$out/corpus; rm -rf "$corp"; mkdir -p "$corp/puzzle" "$corp/journal" "$corp/floor" "$corp/beacon_feed"
printf '# t\nrandomx-v2 770 Apple M4 ; short runs\nsha3-256 8.07e6 Apple M4\r\n' > "$corp/floor/t1"
cp tests/vectors/puzzle-v1.json "$corp/puzzle/v1.json"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
R=$PWD/build/rxlock
(
  cd "$tmp"
  export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=000102030405060708090a0b0c0d0e0f
  "$R" lock --work sha3-256 --groups 3 --steps 50 --workers 1 -o p1.json >/dev/null 2>&1
  "$R" keygen-signer -o k >/dev/null
  "$R" lock --work sha3-256 --groups 1 --steps 5 --sign-key k --rate 5 -o p2.json >/dev/null 2>&1
  "$R" lock --work randomx-v2 --groups 2 --steps 1 --time 1s --rate 2 --workers 1 --mode light -o p3.json >/dev/null 2>&1 || true
  "$R" solve p1.json --journal j1 --checkpoint-steps 7 -o id1 2>/dev/null
  printf 'sha3-256 1000 f\n' > fl
  "$R" beacon init b --work sha3-256 --groups 1 --steps 3000 --every 1s --ahead 2 --both --floor-table fl >/dev/null 2>&1
  "$R" beacon run b --once --gen-rate 1e6 >/dev/null 2>&1
)
cp "$tmp/b/public/feed.json" "$corp/beacon_feed/feed.json"
cp "$tmp/b/beacon.json" "$corp/beacon_feed/beacon.json"
for f in "$tmp"/p*.json; do cp "$f" "$corp/puzzle/"; done
cp "$tmp/j1" "$corp/journal/j1"
head -c 200 "$tmp/j1" > "$corp/journal/j1-torn"
head -c 50 "$tmp/j1" > "$corp/journal/j1-hdr"
printf '{"rxlock_puzzle": 2}' > "$corp/puzzle/v2.json"
rc=0
for t in puzzle journal floor beacon_feed; do
  echo "fuzz: $t for ${secs}s"
  mkdir -p "$out/work-$t"
  if ! "$out/fuzz_$t" -max_total_time="$secs" -max_len=1100000 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$out/crash-$t-" "$out/work-$t" "$corp/$t" >"$out/fuzz_$t.log" 2>&1; then
    echo "fuzz: $t FAILED (see $out/fuzz_$t.log)" >&2; tail -n 30 "$out/fuzz_$t.log" >&2; rc=1
  else
    grep -E '^(#[0-9]+|Done)' "$out/fuzz_$t.log" | tail -n 1
  fi
done
[ $rc -eq 0 ] && echo "fuzz: ok (0 crashes)"
exit $rc
