# SPDX-License-Identifier: ISC
# tests/cli/test_refusal.sh — a puzzle refused before any work (tampered
# header, bad signature, wrong pin, unsigned with a pin) leaves no file
# behind: no journal (also with --journal PATH), no identity, no plaintext,
# no temporary file; solve and unlock alike.  sha3-256, seconds.
. tests/cli/lib.sh
cd "$TMP" || exit 1
R=$RXLOCK
# flip FIELD FILE: change the first hex digit of the first "FIELD": "..." value
flip() { awk -v f="\"$1\": \"" 'BEGIN{n=0} index($0,f)&&!n{n=1; i=index($0,f)+length(f); c=substr($0,i,1); r=(c=="0")?"1":"0"; $0=substr($0,1,i-1) r substr($0,i+1)} {print}' "$2"; }
nothing_left() { # nothing_left DESC FILE...
  d=$1; shift
  for f in "$@"; do check "$d: no $f" test ! -e "$f"; done
  check "$d: no temporary files" sh -c '! ls *.tmp* >/dev/null 2>&1'
}

"$R" keygen-signer -o signer.key > pin.txt 2>/dev/null && "$R" keygen-signer -o other.key > other.txt 2>/dev/null
pin=$(cat pin.txt); other=$(cat other.txt)
expect_rc 0 "lock signed puzzle" "$R" lock --work sha3-256 --groups 2 --steps 1000 --sign-key signer.key -o p.json
sed 's/"steps": 1000/"steps": 1001/' p.json > th.json
flip signature p.json > bs.json
cmp -s p.json bs.json && fail "signature flip did not change the puzzle"

for j in "" "--journal j2.log"; do
  expect_rc 1 "solve tampered header $j" "$R" solve th.json $j -o id.txt
  nothing_left "tampered header $j" id.txt id.txt.journal j2.log
  expect_rc 3 "solve bad signature $j" "$R" solve bs.json $j -o id.txt
  nothing_left "bad signature $j" id.txt id.txt.journal j2.log
  expect_rc 3 "solve wrong pin $j" "$R" solve p.json --signer-pin "$other" $j -o id.txt
  nothing_left "wrong pin $j" id.txt id.txt.journal j2.log
done
expect_rc 0 "solve right pin" "$R" solve p.json --signer-pin "$pin" --journal j2.log -o id.txt
check "solved: an explicit --journal is kept (only the default one is removed)" test -e j2.log
rm -f j2.log id.txt

# the same refusals for a .rxlock container
printf 'plan\n' > s.txt
expect_rc 0 "lock FILE signed" "$R" lock s.txt --work sha3-256 --groups 2 --steps 1000 --sign-key signer.key -q
sed 's/"steps": 1000,/"steps": 1001,/' s.txt.rxlock > th.rxlock
flip signature s.txt.rxlock > bs.rxlock
cmp -s s.txt.rxlock bs.rxlock && fail "signature flip did not change the container"
for j in "" "--journal j3.log"; do
  expect_rc 1 "unlock tampered header $j" "$R" unlock th.rxlock $j -q
  nothing_left "unlock tampered header $j" th th.rxlock.journal j3.log
  expect_rc 3 "unlock bad signature $j" "$R" unlock bs.rxlock $j -q
  nothing_left "unlock bad signature $j" bs bs.rxlock.journal j3.log
  expect_rc 3 "unlock wrong pin $j" "$R" unlock s.txt.rxlock -o out.txt --signer-pin "$other" $j -q
  nothing_left "unlock wrong pin $j" out.txt s.txt.rxlock.journal j3.log
  check "unlock wrong pin: one line" test "$(wc -l < "$TMP/.err")" -eq 1
done
expect_rc 2 "lock --time without a unit" "$R" lock --time 10 -o bare.json
check "bare --time: says to give a unit" grep -q "a bare number: give its unit" "$TMP/.err"
check "bare --time: nothing written" test ! -e bare.json
expect_rc 2 "unlock bad pin hex" "$R" unlock s.txt.rxlock -o out.txt --signer-pin abc
expect_rc 0 "unlock right pin" "$R" unlock s.txt.rxlock -o out.txt --signer-pin "$pin" -q
check "unlock right pin: plaintext" cmp -s out.txt s.txt
# an unsigned container with a pin is refused too
expect_rc 0 "lock FILE unsigned" "$R" lock s.txt --work sha3-256 --groups 1 --steps 10 -o u.rxlock -q
expect_rc 3 "unlock unsigned with a pin" "$R" unlock u.rxlock -o u.txt --signer-pin "$pin" -q
nothing_left "unsigned with a pin" u.txt u.rxlock.journal
summary
