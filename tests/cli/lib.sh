# SPDX-License-Identifier: ISC
# tests/cli/lib.sh — helpers for CLI tests that run the real binary.
# Source it; use ok/fail/expect_rc; call summary at the end.
# $RXLOCK is the binary; each test gets a private $TMP directory.
RXLOCK=${RXLOCK:-$PWD/build/rxlock}
# $RXLOCK_TESTBIN: the same CLI linked with the test build of the library
# (-DRXLOCK_TESTING: fault injection, deterministic test mode).  Use it only
# where a test sets an RXLOCK_TEST_* switch; the shipping binary ignores them.
RXLOCK_TESTBIN=${RXLOCK_TESTBIN:-$PWD/build/rxlock-test}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
_p=0; _f=0
ok()   { _p=$((_p + 1)); }
fail() { _f=$((_f + 1)); echo "FAIL: $*" >&2; }
# check "description" command... : passes when the command exits 0
check() { d=$1; shift; if "$@"; then ok; else fail "$d"; fi; }
# expect_rc RC "description" command... : passes when the command exits RC
expect_rc() { want=$1; d=$2; shift 2; "$@" >"$TMP/.out" 2>"$TMP/.err"; got=$?
  if [ "$got" -eq "$want" ]; then ok; else fail "$d (rc $got, want $want)"; cat "$TMP/.err" >&2; fi; }
summary() { echo "$_p passed, $_f failed"; [ "$_f" -eq 0 ]; }
