#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/run.sh — run every test binary in $BUILD/tests and every CLI test in
# tests/cli/*.sh, sum their "N passed, N failed" lines, print the total last.
# Usage: BUILD=build sh tests/run.sh [full]
# A binary that crashes or prints no summary counts as one failure.
BUILD=${BUILD:-build}
export RXLOCK=${RXLOCK:-$PWD/$BUILD/rxlock}
export RXLOCK_TESTBIN=${RXLOCK_TESTBIN:-$PWD/$BUILD/rxlock-test}
export RXLOCK_VECTORS=${RXLOCK_VECTORS:-$PWD/tests/vectors}
mode=${1:-unit}
tp=0; tf=0
log=$(mktemp); trap 'rm -f "$log"' EXIT
run_one() {
  name=$1; shift
  start=$(date +%s)
  "$@" >"$log" 2>&1; rc=$?
  end=$(date +%s)
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
  if [ -z "$line" ]; then p=0; f=1; else
    p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  fi
  [ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1
  tp=$((tp + p)); tf=$((tf + f))
  printf '%-32s %4d passed %3d failed  %4ds\n' "$name" "$p" "$f" $((end - start))
  if [ "$f" -ne 0 ]; then sed 's/^/    | /' "$log" | tail -n 40; fi
}
if [ "$mode" = full ]; then
  for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *_full) run_one "$(basename "$t")" "$t";; esac
  done
  # the CLI checks that need the real dataset (RXLOCK_TEST_FULL=1 parts)
  if [ "$BUILD" = build ]; then
    RXLOCK_TEST_FULL=1 run_one "test_progress.sh (full)" sh tests/cli/test_progress.sh
    RXLOCK_TEST_FULL=1 run_one "test_calibrate.sh (full)" sh tests/cli/test_calibrate.sh
  fi
else
  for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    case "$t" in *_full) continue;; esac
    run_one "$(basename "$t")" "$t"
  done
  if [ "$BUILD" = build ]; then
    for s in tests/cli/test_*.sh; do
      [ -f "$s" ] || continue
      run_one "$(basename "$s")" sh "$s"
    done
  elif [ -n "$RXLOCK_CLI_SUITES" ]; then
    # A sanitizer build (make check-sanitize): the CLI suites named in
    # RXLOCK_CLI_SUITES run against $BUILD/rxlock and $BUILD/rxlock-test.
    # Every ASan / UBSan / LSan report goes to a file in $san (a test that
    # expects exit 1 would otherwise hide one); any report fails the suite.
    san=$(mktemp -d); trap 'rm -f "$log"; rm -rf "$san"' EXIT
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$san/asan:exitcode=86"
    export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:log_path=$san/ubsan:exitcode=87"
    for n in $RXLOCK_CLI_SUITES; do
      run_one "$n.sh ($BUILD)" sh "tests/cli/$n.sh"
      if ls "$san" | grep -q .; then
        echo "    | sanitizer reports:"; cat "$san"/* | sed 's/^/    | /' | head -n 60
        tf=$((tf + 1)); rm -f "$san"/*
      fi
    done
  else
    echo "CLI tests (tests/cli) not run: they run the build/ binaries; make check runs them"
  fi
fi
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
