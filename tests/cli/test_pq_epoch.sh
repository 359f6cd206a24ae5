# SPDX-License-Identifier: ISC
# tests/cli/test_pq_epoch.sh — post-quantum epochs (puzzle format
# version 2): lock --pq prints an age1pq1 recipient and the puzzle commits to
# it; records encrypted to it open with the identity `solve` recovers (and
# not before); inspect says which kind; the format's checks (the recipient's
# X25519 part must be epoch_public_key, a changed recipient breaks the
# header digest, version 1 cannot carry it, versions 1 and 2 are read, 3 is
# not); classic epochs are still the default and still version-2 puzzles;
# the same through plan --pq / group / assemble; and, where Node >= 20 and
# typage are available, typage encrypts to the epoch and decrypts with the
# solved identity.  Uses --work sha3-256 so everything takes seconds.
. tests/cli/lib.sh
. tests/cli/npm_oracle.sh
R=$RXLOCK
SRC=$PWD
cd "$TMP" || exit 1
W="--work sha3-256"
expect_rc 0 "lock --pq" sh -c "'$R' lock $W --groups 3 --steps 3000 --pq -o e.json > e.rcp"
check "recipient is age1pq1 (1959 characters)" sh -c "grep -q '^age1pq1' e.rcp && test \$(tr -d '\\n' < e.rcp | wc -c) -eq 1959"
check "puzzle version 2" grep -q '"rxlock_puzzle": 2' e.json
check "puzzle commits to the recipient" grep -q "\"epoch_pq_recipient\": \"$(cat e.rcp)\"" e.json
expect_rc 0 "verify" "$R" verify e.json
expect_rc 0 "inspect" "$R" inspect e.json --no-estimate
check "inspect: post-quantum" grep -q '^epoch key:     post-quantum' "$TMP/.out"
check "inspect: the recipient" grep -q "^recipient:     $(cat e.rcp)" "$TMP/.out"
expect_rc 0 "inspect --json" "$R" inspect e.json --no-estimate --json
check "inspect --json: epoch_key" grep -q '"epoch_key":"post-quantum"' "$TMP/.out"
printf 'a record of the post-quantum epoch\n' > rec.txt
expect_rc 0 "encrypt a record to the epoch" "$R" encrypt -r "$(cat e.rcp)" -o rec.age rec.txt
expect_rc 0 "solve" "$R" solve e.json -o e.id
check "the identity is post-quantum" grep -q '^AGE-SECRET-KEY-PQ-1' e.id
check "its public key line is the epoch recipient" grep -q "^# public key: $(cat e.rcp)\$" e.id
expect_rc 0 "the solved identity opens the record" "$R" decrypt -i e.id -o rec.out rec.age
check "  same bytes" cmp -s rec.txt rec.out

# format checks
python3 - e.json <<'PY'
import json, sys, re
src = open(sys.argv[1]).read()
d = json.loads(src)
rcp = d["epoch_pq_recipient"]
# another valid recipient string with a different X25519 part: flip epoch_public_key
pk = d["epoch_public_key"]
open("pkx.json", "w").write(src.replace(pk, pk[:-2] + ("00" if pk[-2:] != "00" else "01")))
# drop the recipient: a classic puzzle with a changed header
open("norcp.json", "w").write(re.sub(r' "epoch_pq_recipient": "[^"]*",\n', '', src))
# version 1 carrying the field
open("v1.json", "w").write(src.replace('"rxlock_puzzle": 2', '"rxlock_puzzle": 1'))
open("v3.json", "w").write(src.replace('"rxlock_puzzle": 2', '"rxlock_puzzle": 3'))
# a garbled recipient
open("garbled.json", "w").write(src.replace(rcp, rcp[:100] + ("q" if rcp[100] != "q" else "p") + rcp[101:]))
PY
expect_rc 1 "X25519 part not epoch_public_key: refused" "$R" verify pkx.json
check "  says why" grep -q 'X25519 part is not epoch_public_key' "$TMP/.err"
expect_rc 1 "recipient removed: header digest mismatch" "$R" verify norcp.json
check "  says why" grep -q 'header digest mismatch' "$TMP/.err"
expect_rc 1 "version 1 with a PQ recipient: refused" "$R" verify v1.json
check "  says why" grep -q 'needs puzzle version 2' "$TMP/.err"
expect_rc 1 "version 3: refused" "$R" verify v3.json
check "  says why" grep -q 'unsupported puzzle version 3' "$TMP/.err"
expect_rc 1 "garbled recipient: refused" "$R" verify garbled.json

# classic is the default for epochs, still version 2, no recipient field
expect_rc 0 "lock (classic default)" sh -c "'$R' lock $W --groups 1 --steps 100 -o c.json > c.rcp"
check "classic recipient age1 (62 characters; the 5th is random data and may be 'p')" grep -qx 'age1[02-9ac-hj-np-z]\{58\}' c.rcp
check "classic: version 2, no epoch_pq_recipient" sh -c "grep -q '\"rxlock_puzzle\": 2' c.json && ! grep -q epoch_pq_recipient c.json"
expect_rc 0 "classic solve" "$R" solve c.json -o c.id
check "classic identity" grep -q '^AGE-SECRET-KEY-1' c.id
expect_rc 0 "inspect classic" "$R" inspect c.json --no-estimate
check "inspect: classic" grep -q '^epoch key:     classic' "$TMP/.out"

# a version-1 puzzle (made by the test build as a pre-issue-21 rxlock would)
# still verifies and solves with this rxlock
if [ -x "$RXLOCK_TESTBIN" ]; then
  TV="RXLOCK_TEST_PUZZLE_VERSION=1 RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=21212121212121212121212121212121"
  expect_rc 0 "a version-1 puzzle (test build)" sh -c "$TV '$RXLOCK_TESTBIN' lock $W --groups 2 --steps 500 -o v1old.json > v1old.rcp"
  check "  is version 1" grep -q '"rxlock_puzzle": 1' v1old.json
  expect_rc 0 "  verifies" "$R" verify v1old.json
  expect_rc 0 "  solves" "$R" solve v1old.json -o v1old.id
  check "  to its recipient" sh -c "grep -q \"^# public key: \$(cat v1old.rcp)\$\" v1old.id"
  expect_rc 1 "  --pq cannot make a version-1 puzzle" sh -c "$TV '$RXLOCK_TESTBIN' lock $W --pq --groups 1 --steps 10 -o v1pq.json"
fi

# plan --pq / group / assemble
mkdir keys
expect_rc 0 "plan --pq" sh -c "'$R' plan $W --pq --groups 2 --steps 2000 --planner-key keys/p.key --worker-key keys/w.key -o P > p.rcp"
check "plan prints an age1pq1 recipient" grep -q '^age1pq1' p.rcp
expect_rc 0 "task 0" "$R" group P 0 --worker-key keys/w.key
expect_rc 0 "task 1" "$R" group P 1 --worker-key keys/w.key
expect_rc 0 "verification task 0" "$R" group --verify P 0 --worker-key keys/w.key
expect_rc 0 "verification task 1" "$R" group --verify P 1 --worker-key keys/w.key
expect_rc 0 "assemble" sh -c "'$R' assemble P --planner-key keys/p.key -o p.json > a.rcp"
check "assemble prints the same recipient" cmp -s p.rcp a.rcp
check "the puzzle commits to it" grep -q "\"epoch_pq_recipient\": \"$(cat p.rcp)\"" p.json
expect_rc 0 "solve the assembled puzzle" "$R" solve p.json -o p.id
check "  to the planned recipient" grep -q "^# public key: $(cat p.rcp)\$" p.id

# typage (independent age implementation) and the post-quantum epoch
if npm_oracle_ready "age-encryption@0.3.1" "node_modules/age-encryption/dist/index.js"; then
  T() { NPM_DIR="$NPM_DIR" node "$SRC/tests/oracle/typage.mjs" "$@"; }
  check "typage encrypts to the epoch recipient" T encrypt "$(cat e.rcp)" rec.txt ty.age
  expect_rc 0 "the solved identity opens typage's record" "$R" decrypt -i e.id -o ty.out ty.age
  check "  same bytes" cmp -s rec.txt ty.out
  check "typage decrypts rxlock's epoch record with the solved identity" T decrypt e.id rec.age ty2.out
  check "  same bytes" cmp -s rec.txt ty2.out
else
  echo "SKIP: $NPM_SKIP; typage epoch interop not run"
fi
summary
