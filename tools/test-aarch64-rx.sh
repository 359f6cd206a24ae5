#!/bin/sh
# tools/test-aarch64-rx.sh — cross-build the RandomX engine (src/rx/*.c, with
# the AArch64 JIT) and its unit, vector and differential tests for AArch64
# with Debian's aarch64-linux-gnu-gcc (static, against libsodium-dev:arm64),
# and run them under qemu-aarch64-static -cpu max (crypto extension: the
# hard-AES JIT path and the armv8 AES backend; the soft-AES paths are forced
# by the tests' own flags) in light mode with RXLOCK_TEST_QUICK=1, then the
# JIT test again under -cpu cortex-a53 (ARMv8.0-A baseline); finally the
# Makefile build of the whole tree for AArch64 and two CLI hashes with it.
#   usage: sh tools/test-aarch64-rx.sh [--slow]   (--slow: RXLOCK_TEST_QUICK=0)
# Tests: test_rx_aes test_rx_cache test_rx_instr test_rx_execmem
# test_rx_vectors test_rx_jit test_rx_jit_a64 (the last holds the JIT-vs-
# interpreter differential test: 2,432 random programs, v1+v2, hard+soft AES).
# Installs the cross compiler, qemu and the arm64 libsodium if missing
# (dpkg --add-architecture arm64).  No OpenSSL / librandomx oracle is needed:
# the rx tests check recorded vectors.
set -eu
cd "$(dirname "$0")/.."
CC=${AARCH64_CC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-qemu-aarch64-static}
CPU=${QEMU_CPU:-max}
quick=1
[ "${1:-}" = "--slow" ] && quick=0
SODIUM_A=/usr/lib/aarch64-linux-gnu/libsodium.a

if ! command -v "$CC" >/dev/null 2>&1 || ! command -v "$QEMU" >/dev/null 2>&1 || [ ! -f "$SODIUM_A" ] ||
   [ ! -f /usr/lib/aarch64-linux-gnu/libjansson.so ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO dpkg --add-architecture arm64
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
    qemu-user-static libsodium-dev:arm64 libjansson-dev:arm64
fi

out=${BUILD:-build}/aarch64-rx
mkdir -p "$out/obj"
CFLAGS="-std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wconversion -Wshadow -Wstrict-prototypes -Werror \
 -fstack-protector-strong -Iinclude -Isrc -Itests -DRXLOCK_VERSION=\"0.1.0\""

# jit_none.c must not be built where jit_aarch64.c provides the JIT; its
# guard does that once it reads #if !defined(__x86_64__) && !defined(__aarch64__).
srcs=""
for f in src/rx/*.c; do
  if [ "$f" = src/rx/jit_none.c ] && ! grep -q '!defined(__aarch64__)' "$f"; then
    echo "note: $f is not guarded against __aarch64__ yet: left out of the AArch64 build"
    continue
  fi
  srcs="$srcs $f"
done

start=$(date +%s)
objs=""
pids=""
for f in $srcs; do
  o=$out/obj/$(basename "$f" .c).o
  objs="$objs $o"
  # shellcheck disable=SC2086
  $CC $CFLAGS -c "$f" -o "$o" &
  pids="$pids $!"
done
fail=0
for p in $pids; do wait "$p" || fail=1; done
[ "$fail" -eq 0 ] || { echo "test-aarch64-rx: library build FAILED"; exit 1; }
rm -f "$out/librxlock-rx.a"
# shellcheck disable=SC2086
aarch64-linux-gnu-ar rcs "$out/librxlock-rx.a" $objs

tests="test_rx_aes test_rx_cache test_rx_instr test_rx_execmem test_rx_vectors test_rx_jit test_rx_jit_a64"
for t in $tests; do
  [ -f "tests/$t.c" ] || { echo "note: tests/$t.c missing, skipped"; continue; }
  # shellcheck disable=SC2086
  $CC $CFLAGS -static -o "$out/$t" "tests/$t.c" "$out/librxlock-rx.a" "$SODIUM_A" -lpthread -lm
done
echo "aarch64 build: $(( $(date +%s) - start ))s"

export RXLOCK_VECTORS="$PWD/tests/vectors"
tp=0; tf=0
run_test() {   # run_test CPU TEST [DIFF_ONLY]
  log=$out/$2.$1.log
  s=$(date +%s)
  if RXLOCK_TEST_QUICK=$quick RXLOCK_A64_DIFF_ONLY=${3:-0} "$QEMU" -cpu "$1" "$out/$2" >"$log" 2>&1; then rc=0; else rc=$?; fi
  sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
  printf 'aarch64 -cpu %-10s %-16s %s (exit %d, %ds)\n' "$1" "$2" "${sum:-no summary}" "$rc" $(( $(date +%s) - s ))
  grep -E '^(jit:|differential|vectors)' "$log" | sed 's/^/    /' || true
  if [ -z "$sum" ]; then p=0; f=1; else
    p=$(echo "$sum" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$sum" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
  fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  tp=$((tp + p)); tf=$((tf + f))
  if [ "$f" -ne 0 ]; then sed 's/^/    | /' "$log" | tail -n 40; fi
}
for t in $tests; do
  [ -x "$out/$t" ] && run_test "$CPU" "$t"
done
# the JIT's differential and W^X parts once more on a baseline ARMv8.0-A
# core (Cortex-A53 model, with AES): nothing emitted needs more than v8.0
[ -x "$out/test_rx_jit_a64" ] && [ "$CPU" != cortex-a53 ] && run_test cortex-a53 test_rx_jit_a64 1
# the Makefile build of the whole tree for AArch64 (what a native ARM64
# `make` compiles, -Werror), and its CLI under qemu: light-mode hashes of the
# first official v1/v2 vectors with the JIT and with the interpreter
mk=${BUILD:-build}/aarch64-make
if make -s -j2 CC="$CC" BUILD="$mk" WERROR=1 all >"$out/make.log" 2>&1; then
  for v in v1:639183aae1bf4c9a35884cb46b09cad9175f04efd7684e7262a0ac1c2f0b4e3f \
           v2:22ec6b861b3eb23686b2efbad69513c967ecfce80983df66c9c5b4fbfb4cdb6f; do
    for eng in jit interp; do
      got=$(RXLOCK_ENGINE=$eng "$QEMU" -cpu "$CPU" -L /usr/aarch64-linux-gnu "$mk/rxlock" hash "--${v%%:*}" \
            --key 74657374206b657920303030 --input 5468697320697320612074657374 2>&1 || true)
      if [ "$got" = "${v#*:}" ]; then tp=$((tp + 1)); r=ok; else tf=$((tf + 1)); r="FAILED (got $got)"; fi
      echo "aarch64 make build: rxlock hash --${v%%:*} (RXLOCK_ENGINE=$eng): $r"
    done
  done
else
  tf=$((tf + 1)); echo "aarch64 make build FAILED"; tail -n 20 "$out/make.log" | sed 's/^/    | /'
fi
echo "aarch64 total: $tp passed, $tf failed ($(( $(date +%s) - start ))s)"
[ "$tf" -eq 0 ] && echo "test-aarch64-rx: ok" || { echo "test-aarch64-rx: FAILED"; exit 1; }
