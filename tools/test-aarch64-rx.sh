#!/bin/sh
# SPDX-License-Identifier: ISC
# tools/test-aarch64-rx.sh — the AArch64 build and test run under emulation:
#  1. cross-build the whole tree with the Makefile for AArch64 (Debian's
#     aarch64-linux-gnu-gcc, -Werror; the arm64 libraries, libcurl too, come from dpkg
#     multiarch), i.e. what a native ARM64 `make` compiles, with the AArch64
#     JIT (src/rx/jit_aarch64.c);
#  2. build every tests/test_*.c for AArch64 and run the unit, vector and
#     differential tests (not the *_full ones) under qemu-aarch64-static
#     -cpu max (crypto extension: the JIT's hard-AES path) in light mode with
#     RXLOCK_TEST_QUICK=1; test_rx_jit_a64 holds the JIT-vs-interpreter
#     differential test (2,432 random programs, v1+v2, hard+soft AES), the
#     official vectors through the JIT, the code buffer's guarded layout in
#     /proc/self/maps and injected mprotect failures (hash fails, zeroed);
#  3. test_rx_jit_a64's differential, W^X and layout parts again under -cpu cortex-a53
#     (ARMv8.0-A baseline: nothing emitted needs more), and test_sha3 there:
#     the SHA3 backend must be "portable" on cortex-a53 and "armv8-sha3"
#     under -cpu max (the ARMv8.2 SHA3 instructions; formerly
#     tools/test-aarch64.sh);
#  4. the CLI: two official light-mode hashes (v1, v2) with the JIT and with
#     the interpreter.
#   usage: sh tools/test-aarch64-rx.sh [--with-lock]
# test_lock_roundtrip and test_api_age (both generate through tl_generate)
# are left out by default: under qemu-user their forked
# worker processes compute (running, ~50% CPU each) but send no progress
# message within the generator's 120 s watchdog, which kills them (seen on
# the 2-core CI VM; emulation speed, not an AArch64 code path).
# --with-lock runs it anyway.
# Installs what is missing with apt-get (dpkg --add-architecture arm64).
set -eu
cd "$(dirname "$0")/.."
CC=${AARCH64_CC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-qemu-aarch64-static}
CPU=${QEMU_CPU:-max}
SYSROOT=/usr/aarch64-linux-gnu
with_lock=0
[ "${1:-}" = "--with-lock" ] && with_lock=1

need=""
command -v "$CC" >/dev/null 2>&1 || need="$need gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
command -v "$QEMU" >/dev/null 2>&1 || need="$need qemu-user-static"
for p in libsodium-dev:arm64 libjansson-dev:arm64 libcurl4-openssl-dev:arm64 libssl-dev:arm64 librandomx-dev:arm64 libstdc++-12-dev-arm64-cross; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
if [ -n "$need" ]; then
  echo "test-aarch64-rx: installing:$need"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -q
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $need
fi

out=${BUILD:-build}/aarch64
mkdir -p "$out"
start=$(date +%s)
tp=0; tf=0
# 1. the tree, warning-free
if ! make -s -j2 CC="$CC" BUILD="$out" WERROR=1 all >"$out/make.log" 2>&1; then
  tail -n 30 "$out/make.log" | sed 's/^/    | /'
  echo "test-aarch64-rx: AArch64 build of the tree FAILED"; exit 1
fi
# 2. the tests (a test file that does not build for AArch64 shows up below
#    as a missing binary, counted as a failure unless it is a *_full test)
make -s -k -j2 CC="$CC" BUILD="$out" tests >"$out/tests.log" 2>&1 || true
echo "aarch64 build: $(( $(date +%s) - start ))s"

export RXLOCK_VECTORS="$PWD/tests/vectors"
# the same reason for the worker-process cases inside test_errors (t_events)
# and test_lock_plan (t_plan_roundtrip)
if [ "$with_lock" -eq 0 ]; then export RXLOCK_TEST_NO_WORKERS=1; fi
run_test() {   # run_test CPU BINARY [DIFF_ONLY]
  name=$(basename "$2")
  log=$out/$name.$1.log
  s=$(date +%s)
  if RXLOCK_TEST_QUICK=1 RXLOCK_A64_DIFF_ONLY=${3:-0} "$QEMU" -cpu "$1" -L "$SYSROOT" "$2" >"$log" 2>&1
  then rc=0; else rc=$?; fi
  sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
  printf 'aarch64 -cpu %-10s %-22s %s (exit %d, %ds)\n' "$1" "$name" "${sum:-no summary}" "$rc" $(( $(date +%s) - s ))
  grep -E '^(jit:|differential|vectors)' "$log" | sed 's/^/    /' || true
  if [ -z "$sum" ]; then p=0; f=1; else
    p=$(echo "$sum" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$sum" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  tp=$((tp + p)); tf=$((tf + f))
  if [ "$f" -ne 0 ]; then sed 's/^/    | /' "$log" | tail -n 40; fi
}
for src in tests/test_*.c; do
  name=$(basename "$src" .c)
  case "$name" in *_full) continue;; esac
  # test_api_age generates a puzzle through tl_generate's worker processes too
  if { [ "$name" = test_lock_roundtrip ] || [ "$name" = test_api_age ]; } && [ "$with_lock" -eq 0 ]; then
    echo "aarch64 -cpu $CPU $name: SKIPPED (too slow under qemu-user for its 120 s worker watchdog; --with-lock runs it)"; continue
  fi
  if [ ! -x "$out/tests/$name" ]; then
    tf=$((tf + 1)); echo "aarch64 $name: did not build"
    grep -A3 "$src" "$out/tests.log" | head -n 12 | sed 's/^/    | /'
    continue
  fi
  run_test "$CPU" "$out/tests/$name"
done
# 3. the JIT on a baseline ARMv8.0-A core model
[ -x "$out/tests/test_rx_jit_a64" ] && [ "$CPU" != cortex-a53 ] && run_test cortex-a53 "$out/tests/test_rx_jit_a64" 1
if [ -x "$out/tests/test_sha3" ] && [ "$CPU" = max ]; then
  run_test cortex-a53 "$out/tests/test_sha3"
  for cb in max:armv8-sha3 cortex-a53:portable; do
    got=$(sed -n 's/^sha3 backend: \([^ ]*\).*/\1/p' "$out/test_sha3.${cb%%:*}.log")
    if [ "$got" = "${cb#*:}" ]; then tp=$((tp + 1)); r=ok; else tf=$((tf + 1)); r="FAILED (got '$got')"; fi
    echo "aarch64 -cpu ${cb%%:*}: sha3 backend ${cb#*:}: $r"
  done
  for cb in max:armv8-sha3x2 cortex-a53:portable; do   # the multi-chain backend
    got=$(sed -n 's/^sha3 multi backend: \([^,]*\),.*/\1/p' "$out/test_sha3.${cb%%:*}.log")
    if [ "$got" = "${cb#*:}" ]; then tp=$((tp + 1)); r=ok; else tf=$((tf + 1)); r="FAILED (got '$got')"; fi
    echo "aarch64 -cpu ${cb%%:*}: sha3 multi-chain backend ${cb#*:}: $r"
  done
fi
# 4. the CLI
for v in v1:639183aae1bf4c9a35884cb46b09cad9175f04efd7684e7262a0ac1c2f0b4e3f \
         v2:22ec6b861b3eb23686b2efbad69513c967ecfce80983df66c9c5b4fbfb4cdb6f; do
  for eng in jit interp; do
    got=$(RXLOCK_ENGINE=$eng "$QEMU" -cpu "$CPU" -L "$SYSROOT" "$out/rxlock" hash "--${v%%:*}" \
          --key 74657374206b657920303030 --input 5468697320697320612074657374 2>&1 || true)
    if [ "$got" = "${v#*:}" ]; then tp=$((tp + 1)); r=ok; else tf=$((tf + 1)); r="FAILED (got $got)"; fi
    echo "aarch64 rxlock hash --${v%%:*} (RXLOCK_ENGINE=$eng): $r"
  done
done
echo "aarch64 total: $tp passed, $tf failed ($(( $(date +%s) - start ))s)"
[ "$tf" -eq 0 ] && echo "test-aarch64-rx: ok" || { echo "test-aarch64-rx: FAILED"; exit 1; }
