#!/bin/sh
# tools/test-aarch64.sh — cross-build the SHA3 unit test for AArch64 (static,
# no Makefile, no OpenSSL: the test checks the recorded FIPS 202 and chain
# digests and every backend against the portable one) and run it under
# qemu-aarch64-static twice: -cpu max (ARMv8.2 SHA3 instructions, so the
# "armv8-sha3" backend and the two-lane "armv8-sha3x2" multi-chain backend are
# selected) and -cpu cortex-a53 (no SHA3: "portable" for both).
#   usage: sh tools/test-aarch64.sh [--full]   (--full adds the 1M-step chain)
# Installs gcc-aarch64-linux-gnu and qemu-user-static with apt-get if missing.
set -eu
cd "$(dirname "$0")/.."
CC=${AARCH64_CC:-aarch64-linux-gnu-gcc}
QEMU=${QEMU_AARCH64:-qemu-aarch64-static}
quick=1
[ "${1:-}" = "--full" ] && quick=0

if ! command -v "$CC" >/dev/null 2>&1 || ! command -v "$QEMU" >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q gcc-aarch64-linux-gnu qemu-user-static
fi

out=${BUILD:-build}/aarch64
mkdir -p "$out"
bin=$out/test_sha3
# shellcheck disable=SC2046
"$CC" -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Wconversion -Wshadow -Wstrict-prototypes \
  -Werror -static -DSHA3_TEST_NO_OPENSSL -Iinclude -Isrc -Itests \
  -o "$bin" tests/test_sha3.c $(ls src/sha3/*.c)

fail=0
run() {   # run CPU EXPECTED-BACKEND EXPECTED-MULTI-BACKEND
  log=$out/test_sha3.$1.log
  if RXLOCK_TEST_QUICK=$quick "$QEMU" -cpu "$1" "$bin" >"$log" 2>&1; then rc=0; else rc=$?; fi
  sum=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
  got=$(sed -n 's/^sha3 backend: \([^ ]*\).*/\1/p' "$log")
  multi=$(sed -n 's/^sha3 multi backend: \([^,]*\),.*/\1/p' "$log")
  echo "aarch64 -cpu $1: backend $got (want $2), multi-chain $multi (want $3): ${sum:-no summary} (exit $rc)"
  if [ "$rc" -ne 0 ] || [ "$got" != "$2" ] || [ "$multi" != "$3" ] || [ -z "$sum" ]; then
    sed 's/^/    | /' "$log" | tail -n 40
    fail=1
  fi
}
run max armv8-sha3 armv8-sha3x2
run cortex-a53 portable portable
[ "$fail" -eq 0 ] && echo "test-aarch64: ok" || { echo "test-aarch64: FAILED"; exit 1; }
