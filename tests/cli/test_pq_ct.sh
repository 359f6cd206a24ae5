# SPDX-License-Identifier: ISC
# tests/cli/test_pq_ct.sh — ML-KEM-768 is constant time in its secrets:
# build/tests/test_pq_ct under valgrind memcheck, with the seed, m and dk's
# secret parts marked undefined, must report 0 errors (a secret-dependent
# branch or memory index is a "depends on uninitialised value" error).
# Skipped, with a line saying so, when valgrind is not installed.
. tests/cli/lib.sh
BIN=$(dirname "$RXLOCK_TESTBIN")/tests/test_pq_ct
check "test_pq_ct is built" test -x "$BIN"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "SKIP: valgrind not installed (tools/deps.sh installs it); constant-time check not run"
  summary; exit
fi
valgrind --tool=memcheck --error-exitcode=99 --track-origins=yes "$BIN" >"$TMP/out" 2>"$TMP/err"
rc=$?
check "runs under valgrind (rc $rc)" test "$rc" -eq 0
check "it was valgrind" grep -q '^valgrind: yes' "$TMP/out"
check "its own checks passed" grep -q '^1 passed, 0 failed' "$TMP/out"
check "0 errors from memcheck" grep -q 'ERROR SUMMARY: 0 errors' "$TMP/err"
[ "$rc" -eq 0 ] || sed -n '1,60p' "$TMP/err" >&2
summary
