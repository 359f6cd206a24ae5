# SPDX-License-Identifier: ISC
# tests/cli/test_age_typage.sh — the post-quantum age recipient against an
# independent implementation, typage (npm age-encryption 0.3.1, Node >= 20),
# both ways: typage makes a hybrid identity and encrypts to it, rxlock
# decrypts; rxlock makes one (keygen --pq) and encrypts, typage decrypts;
# binary and armored; the same for a post-quantum epoch (lock --pq, solve).
# The package is installed into $RXLOCK_NPM_DIR (default build/npm,
# git-ignored).  Skipped, with a line saying so, without Node >= 20 or when
# the npm registry cannot be reached.  .ci/run runs it as its own stage.
. tests/cli/lib.sh
. tests/cli/npm_oracle.sh
R=$RXLOCK
if ! npm_oracle_ready "age-encryption@0.3.1" "node_modules/age-encryption/dist/index.js"; then
  echo "SKIP: $NPM_SKIP; typage interop not run"
  summary; exit
fi
SRC=$PWD
T() { NPM_DIR="$NPM_DIR" node "$SRC/tests/oracle/typage.mjs" "$@"; }
cd "$TMP" || exit 1
head -c 200000 /dev/urandom > msg
printf 'short' > short
# typage -> rxlock
check "typage keygen" sh -c "NPM_DIR='$NPM_DIR' node '$SRC/tests/oracle/typage.mjs' keygen ty.key > ty.rcp"
check "typage recipient is age1pq1" grep -q '^age1pq1' ty.rcp
check "rxlock accepts typage's recipient" sh -c "'$R' encrypt -r \"\$(cat ty.rcp)\" -o r2t.age msg"
check "typage decrypts rxlock's file" T decrypt "ty.key" "r2t.age" "r2t.out"
check "  same bytes" cmp -s msg r2t.out
check "rxlock armored for typage" sh -c "'$R' encrypt -a -r \"\$(cat ty.rcp)\" -o r2t.asc short"
check "typage decrypts the armored file" T decrypt "ty.key" "r2t.asc" "r2t2.out"
check "  same bytes" cmp -s short r2t2.out
check "typage encrypts" T encrypt "$(cat ty.rcp)" "msg" "t2r.age"
check "rxlock decrypts typage's file with typage's identity" "$R" decrypt -i ty.key -o t2r.out t2r.age
check "  same bytes" cmp -s msg t2r.out
# rxlock's identity, typage's encryption
check "rxlock keygen --pq" sh -c "'$R' keygen --pq -o rx.key > rx.rcp"
check "typage encrypts to rxlock's recipient" T encrypt "$(cat rx.rcp)" "short" "t2r2.age"
check "rxlock decrypts it" "$R" decrypt -i rx.key -o t2r2.out t2r2.age
check "  same bytes" cmp -s short t2r2.out
check "typage opens rxlock's identity file" sh -c "'$R' encrypt -r \"\$(cat rx.rcp)\" -o r2t3.age short"
check "  and decrypts" T decrypt "rx.key" "r2t3.age" "r2t3.out"
check "  same bytes" cmp -s short r2t3.out
summary
