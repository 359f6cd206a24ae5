# SPDX-License-Identifier: ISC
# tests/cli/test_pq_noble.sh — ML-KEM-768 against an independent
# implementation, @noble/post-quantum (npm, test-only oracle), both ways:
# noble's keygen / encapsulation / implicit rejection for random inputs must
# equal ours bit for bit and decapsulate with ours; noble must decapsulate
# our random encapsulations.  The package is installed into $RXLOCK_NPM_DIR
# (default build/npm, git-ignored) on first use.  Skipped, with a line
# saying so, without Node >= 20 or when the npm registry cannot be reached.
. tests/cli/lib.sh
. tests/cli/npm_oracle.sh
BIN=$(dirname "$RXLOCK_TESTBIN")/tests/test_pq_mlkem
check "test_pq_mlkem is built" test -x "$BIN"
if ! npm_oracle_ready "@noble/post-quantum@0.7.1" "node_modules/@noble/post-quantum/ml-kem.js"; then
  echo "SKIP: $NPM_SKIP; ML-KEM oracle cross-check not run"
  summary; exit
fi
check "noble generates 40 cases" env NPM_DIR="$NPM_DIR" node tests/oracle/noble_mlkem.mjs gen 40 "$TMP/noble.tsv"
RXLOCK_VECTORS=$TMP RXLOCK_MLKEM_ORACLE=noble.tsv "$BIN" >"$TMP/ours.out" 2>&1
check "ours equals noble: keygen, encaps, decaps, rejection" grep -q '^1 passed, 0 failed' "$TMP/ours.out"
grep -q '^1 passed, 0 failed' "$TMP/ours.out" || head -c 4000 "$TMP/ours.out" >&2
check "noble decapsulates ours" env NPM_DIR="$NPM_DIR" node tests/oracle/noble_mlkem.mjs check "$TMP/noble.tsv.ours"
check "40 of ours checked" test "$(awk 'length > 1000' "$TMP/noble.tsv.ours" | wc -l)" -eq 40
summary
