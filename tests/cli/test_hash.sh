# SPDX-License-Identifier: ISC
# tests/cli/test_hash.sh — `rxlock hash`: official vectors (v1/v2, both
# engines/AES paths via the environment), key/input from files and stdin,
# and usage errors (exit 2, one line).
. tests/cli/lib.sh
key=74657374206b657920303030
in=5468697320697320612074657374
v2=22ec6b861b3eb23686b2efbad69513c967ecfce80983df66c9c5b4fbfb4cdb6f
v1=639183aae1bf4c9a35884cb46b09cad9175f04efd7684e7262a0ac1c2f0b4e3f

h() { "$RXLOCK" hash "$@" 2>"$TMP/err"; }
eq() { d=$1; want=$2; shift 2; got=$(h "$@"); if [ "$got" = "$want" ]; then ok; else fail "$d: got '$got'"; cat "$TMP/err" >&2; fi; }

eq "v2 default engine" "$v2" --v2 --key $key --input $in
eq "v2 is the default" "$v2" --key $key --input $in
eq "v1" "$v1" --v1 --key $key --input $in
RXLOCK_ENGINE=interp RXLOCK_AES=soft eq "v2 interp soft AES" "$v2" --v2 --key $key --input $in
RXLOCK_ENGINE=interp RXLOCK_AES=soft eq "v1 interp soft AES" "$v1" --v1 --key $key --input $in
if grep -qw aes /proc/cpuinfo 2>/dev/null; then
  RXLOCK_ENGINE=interp RXLOCK_AES=hard eq "v2 interp hard AES" "$v2" --v2 --key $key --input $in
fi
# key / input from files and stdin
printf 'test key 000' >"$TMP/key"
printf 'This is a test' >"$TMP/in"
eq "key-file + input-file" "$v2" --key-file "$TMP/key" --input-file "$TMP/in"
got=$(printf 'This is a test' | "$RXLOCK" hash --v2 --key $key - 2>"$TMP/err")
[ "$got" = "$v2" ] && ok || fail "input from stdin: '$got'"
got=$(printf 'test key 000' | "$RXLOCK" hash --v2 --key-file - --input $in 2>"$TMP/err")
[ "$got" = "$v2" ] && ok || fail "key from stdin: '$got'"
# output shape: exactly 64 lowercase hex + newline
h --key '' --input '' >"$TMP/out" && ok || fail "empty key and input"
[ "$(wc -c <"$TMP/out")" -eq 65 ] && grep -qE '^[0-9a-f]{64}$' "$TMP/out" && ok || fail "output shape"
# official vector 2 of v2 tsv (different input)
row=$(grep -v '^#' tests/vectors/randomx-v2.tsv | sed -n 3p)
k2=$(printf '%s' "$row" | cut -f1); i2=$(printf '%s' "$row" | cut -f2); w2=$(printf '%s' "$row" | cut -f3)
eq "v2 vector 2" "$w2" --v2 --key "$k2" --input "$i2"

# usage errors: exit 2 with one line on stderr
for args in "--key zz --input 00" "--key 0 --input 00" "--key 00 --input 0g" \
            "--input 00" "--key 00" "--key 00 --input 00 -" "--key 00 --input 00 --bogus" \
            "--key 00 --key-file $TMP/key --input 00" "--threads x --key 00 --input 00" \
            "--key 00 --input 00 extra" "--key-file - -"; do
  expect_rc 2 "usage: hash $args" "$RXLOCK" hash $args
  [ "$(wc -l <"$TMP/.err")" -eq 1 ] && ok || fail "one-line error for: $args"
done
expect_rc 1 "missing key file" "$RXLOCK" hash --key-file "$TMP/nope" --input 00
summary
