# SPDX-License-Identifier: ISC
# tests/cli/test_gen_rounds.sh — src/sha3/keccak_round.h is what its
# generator, src/sha3/gen_rounds.py, prints today (nobody edited the
# generated header by hand, nor changed the generator without regenerating);
# and the comparison notices a change (a rotation offset altered in a copy
# of the generator).
. tests/cli/lib.sh
if ! command -v python3 >/dev/null 2>&1; then
  echo "test_gen_rounds: no python3, skipped" >&2; summary; exit
fi
check "gen_rounds.py runs" sh -c "python3 src/sha3/gen_rounds.py >'$TMP/round.h'"
check "keccak_round.h == gen_rounds.py output" cmp -s "$TMP/round.h" src/sha3/keccak_round.h
[ -s "$TMP/round.h" ] || fail "gen_rounds.py printed nothing"
# the comparison can fail: a generator with one rotation offset (rho) changed
sed 's/\[0, 36, 3, 41, 18\]/[0, 36, 3, 41, 19]/' src/sha3/gen_rounds.py >"$TMP/gen_bad.py"
check "the altered copy differs from the generator" sh -c "! cmp -s '$TMP/gen_bad.py' src/sha3/gen_rounds.py"
python3 "$TMP/gen_bad.py" >"$TMP/bad.h" 2>/dev/null
check "an altered generator's output is noticed" sh -c "! cmp -s '$TMP/bad.h' src/sha3/keccak_round.h"
summary
