# SPDX-License-Identifier: ISC
# tests/cli/test_basic.sh — global CLI behaviour: help, version, bad usage.
. tests/cli/lib.sh
expect_rc 0 "--help" "$RXLOCK" --help
expect_rc 0 "--version" "$RXLOCK" --version
check "--version prints version" grep -q '^rxlock [0-9]' "$TMP/.out"
expect_rc 2 "no args" "$RXLOCK"
expect_rc 2 "unknown command" "$RXLOCK" frobnicate
check "unknown command: one line" test "$(wc -l < "$TMP/.err")" -eq 1
expect_rc 2 "unknown global flag" "$RXLOCK" --frob
for c in hash lock solve unlock inspect verify keygen-signer keygen encrypt decrypt calibrate; do
  expect_rc 0 "help $c" "$RXLOCK" help "$c"
  check "help $c prints usage" grep -q "usage: rxlock $c" "$TMP/.out"
  expect_rc 0 "$c --help" "$RXLOCK" "$c" --help
done
expect_rc 2 "help unknown" "$RXLOCK" help frobnicate
summary
