# SPDX-License-Identifier: ISC
# tests/cli/test_age_pq.sh — the post-quantum age recipient from the CLI:
# keygen --pq (no clobber, mode 0600, age1pq1 of 1,959 characters),
# encrypt -r age1pq1 / decrypt -i (binary and armored, several recipients,
# PQ and X25519 identity files together), the refusals: mixing PQ and
# X25519 recipients, a malformed or truncated age1pq1 string, an identity
# that does not match (exit 3), a tampered stanza (exit 1).
. tests/cli/lib.sh
R=$RXLOCK
cd "$TMP" || exit 1
expect_rc 0 "keygen --pq" sh -c "'$R' keygen --pq -o a.key > a.rcp"
expect_rc 1 "keygen --pq does not clobber" "$R" keygen --pq -o a.key
expect_rc 0 "keygen --pq --force" sh -c "'$R' keygen --pq --force -o a.key > a.rcp"
expect_rc 0 "a second PQ identity" sh -c "'$R' keygen --pq -o b.key > b.rcp"
expect_rc 0 "an X25519 identity" sh -c "'$R' keygen -o c.key > c.rcp"
check "PQ recipient: age1pq1, 1959 characters" sh -c "grep -q '^age1pq1' a.rcp && test \$(tr -d '\\n' < a.rcp | wc -c) -eq 1959"
check "PQ identity line" grep -q '^AGE-SECRET-KEY-PQ-1' a.key
check "identity file mode 0600" test "$(stat -c %a a.key)" = 600
# (not '^age1[^p]': one X25519 recipient in 32 starts with age1p)
check "X25519 recipient: age1, 62 characters" sh -c "grep -q '^age1' c.rcp && test \$(tr -d '\\n' < c.rcp | wc -c) -eq 62"
head -c 100000 /dev/urandom > msg
expect_rc 0 "encrypt to two PQ recipients" "$R" encrypt -r "$(cat a.rcp)" -r "$(cat b.rcp)" -o m.age msg
check "the stanza is mlkem768x25519" grep -aq '^-> mlkem768x25519 ' m.age
expect_rc 0 "decrypt with the first" "$R" decrypt -i a.key -o m1 m.age
check "  same bytes" cmp -s msg m1
expect_rc 0 "decrypt with X25519 + the second" "$R" decrypt -i c.key -i b.key -o m2 m.age
check "  same bytes" cmp -s msg m2
expect_rc 0 "armored" "$R" encrypt -a -r "$(cat a.rcp)" -o m.asc msg
expect_rc 0 "armored decrypts" "$R" decrypt -i a.key -o m3 m.asc
check "  same bytes" cmp -s msg m3
expect_rc 3 "an X25519 identity does not open it" "$R" decrypt -i c.key -o m4 m.age
check "  no output" test ! -e m4
expect_rc 2 "PQ and X25519 recipients are not mixed" "$R" encrypt -r "$(cat a.rcp)" -r "$(cat c.rcp)" -o x.age msg
check "  says why" grep -q 'cannot be mixed' "$TMP/.err"
check "  no output" test ! -e x.age
expect_rc 2 "a truncated age1pq1 recipient" "$R" encrypt -r "$(head -c 1000 a.rcp)" -o x.age msg
expect_rc 2 "an uppercase age1pq1 recipient" "$R" encrypt -r "$(tr a-z A-Z < a.rcp)" -o x.age msg
# a stanza whose enc lost a character: a header failure (exit 1), no output
sed '2s/^\(-> mlkem768x25519 \)./\1/' m.age > bad.age
expect_rc 1 "a malformed stanza is refused" "$R" decrypt -i a.key -o m5 bad.age
check "  as a header failure" grep -q 'malformed age header' "$TMP/.err"
check "  no output" test ! -e m5
# Debian's age 1.1 has no post-quantum recipients: it must not open the file
if command -v age >/dev/null 2>&1 && ! age --help 2>&1 | grep -q -- '-pq'; then
  check "age 1.1 cannot open a post-quantum file" sh -c "! age -d -i a.key m.age >/dev/null 2>&1"
fi
summary
