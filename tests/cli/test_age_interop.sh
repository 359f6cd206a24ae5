# SPDX-License-Identifier: ISC
# tests/cli/test_age_interop.sh — rxlock encrypt/decrypt against Debian's
# age both ways, binary and armored, at chunk-boundary sizes and 50 MiB
# (the 50 MiB runs must stay under 16 MiB maximum RSS, measured with GNU
# time).  Skips (0 passed) when age is not installed.
. tests/cli/lib.sh
if ! command -v age >/dev/null 2>&1 || ! command -v age-keygen >/dev/null 2>&1; then
  echo "age not installed: skipped" >&2; summary; exit $?
fi
cd "$TMP" || exit 1
# The main key is a solved rxlock epoch: lock a tiny file (sha3-256, a few
# steps), unlock it and keep the epoch identity.  The recipient lock printed
# must be what age-keygen derives from the solved identity.
printf 'x' > tiny
"$RXLOCK" lock tiny --classic --work sha3-256 --groups 1 --steps 10 2> lock.err   # X25519: age 1.1
rm -f tiny
"$RXLOCK" unlock tiny.rxlock -q --save-identity key.txt
check "solved identity written" grep -q '^AGE-SECRET-KEY-1' key.txt
R=$(age-keygen -y key.txt)
check "epoch recipient printed by lock = age-keygen -y solved identity" grep -q "epoch recipient $R)" lock.err
check "identity file public key comment" grep -qx "# public key: $R" key.txt

mk() { # mk SIZE FILE: deterministic-ish pseudo-random content
  head -c "$1" /dev/urandom > "$2"
}
for n in 0 1 65535 65536 65537 200000; do
  mk "$n" "p$n"
  for a in "" "-a"; do
    # age -> rxlock
    age $a -r "$R" -o "c$n$a.age" "p$n"
    expect_rc 0 "rxlock decrypt age$a n=$n" "$RXLOCK" decrypt -i key.txt -o "o$n$a" "c$n$a.age"
    check "age$a -> rxlock n=$n matches" cmp -s "p$n" "o$n$a"
    rm -f "o$n$a"
    # rxlock -> age
    expect_rc 0 "rxlock encrypt$a n=$n" "$RXLOCK" encrypt $a -r "$R" -o "r$n$a.age" "p$n"
    check "rxlock$a -> age n=$n matches" sh -c "age -d -i key.txt 'r$n$a.age' | cmp -s - 'p$n'"
    # rxlock -> rxlock through pipes
    check "rxlock$a pipe round trip n=$n" sh -c "'$RXLOCK' encrypt $a -r '$R' < 'p$n' | '$RXLOCK' decrypt -i key.txt | cmp -s - 'p$n'"
  done
  # Binary ciphertext size is exactly header + 16 + n + 16 per chunk.
  chunks=$(( n == 0 ? 1 : (n + 65535) / 65536 ))
  hdr=$(head -n 4 "r$n.age" | wc -c)
  check "ciphertext size n=$n" test "$(wc -c < "r$n.age")" -eq $((hdr + 16 + n + 16 * chunks))
done
# Armor shape: 64-column lines, BEGIN/END markers.
check "armor begins" sh -c "head -n 1 r65537-a.age | grep -qx -- '-----BEGIN AGE ENCRYPTED FILE-----'"
check "armor ends" sh -c "tail -n 1 r65537-a.age | grep -qx -- '-----END AGE ENCRYPTED FILE-----'"
check "armor columns" sh -c "sed '1d;\$d' r65537-a.age | awk 'length > 64 { bad = 1 } END { exit bad }'"
# Several recipients; age decrypts with either key.
age-keygen -o key2.txt 2>/dev/null
R2=$(age-keygen -y key2.txt)
expect_rc 0 "two recipients" "$RXLOCK" encrypt -r "$R" -r "$R2" -o two.age p1
check "age opens with key 1" sh -c "age -d -i key.txt two.age | cmp -s - p1"
check "age opens with key 2" sh -c "age -d -i key2.txt two.age | cmp -s - p1"
age -r "$R" -r "$R2" -o two2.age p1
expect_rc 0 "rxlock opens age two-recipient file with key 2" "$RXLOCK" decrypt -i key2.txt two2.age
# No clobber without --force.
expect_rc 1 "decrypt -o existing refused" "$RXLOCK" decrypt -i key.txt -o p1 c1.age
expect_rc 0 "decrypt -o existing --force" "$RXLOCK" decrypt -i key.txt --force -o o1 c1.age
expect_rc 1 "encrypt -o existing refused" "$RXLOCK" encrypt -r "$R" -o c1.age p1
check "refused target untouched" sh -c "age -d -i key.txt c1.age | cmp -s - p1"
# Usage errors.
expect_rc 2 "encrypt without -r" "$RXLOCK" encrypt p1
expect_rc 2 "encrypt bad recipient" "$RXLOCK" encrypt -r age1notarecipient p1
expect_rc 2 "decrypt without -i" "$RXLOCK" decrypt c1.age
expect_rc 2 "decrypt unknown flag" "$RXLOCK" decrypt --frob -i key.txt c1.age

# The epoch path: `rxlock lock -o PUZZLE` prints the recipient, age encrypts
# to it before the solve, `rxlock solve` writes the identity, both tools open
# each other's files with it.
if R3=$("$RXLOCK" lock --work sha3-256 --groups 2 --steps 1000 -o epoch.json 2>/dev/null); then
  check "lock prints an age recipient" sh -c "printf %s '$R3' | grep -Eq '^age1[a-z0-9]{58}\$'"
  age -r "$R3" -o epoch.age p65537
  "$RXLOCK" encrypt -a -r "$R3" -o epoch.rx p65537
  expect_rc 0 "rxlock solve writes the epoch identity" "$RXLOCK" solve epoch.json -o epoch-id.txt
  check "solved identity matches the recipient" test "$(age-keygen -y epoch-id.txt)" = "$R3"
  check "rxlock decrypt -i solved identity (age file)" sh -c "'$RXLOCK' decrypt -i epoch-id.txt epoch.age | cmp -s - p65537"
  check "age -d -i solved identity (rxlock file)" sh -c "age -d -i epoch-id.txt epoch.rx | cmp -s - p65537"
  # The puzzle inside a .rxlock container solves the same way.
  "$RXLOCK" lock p1 --classic --work sha3-256 --groups 1 --steps 500 -o c.rxlock -q   # X25519: age 1.1
  n=$(grep -a '^puzzle [0-9]*$' c.rxlock | head -n 1 | cut -d' ' -f2)
  start=$(( $(grep -abo '^puzzle [0-9]*$' c.rxlock | head -n 1 | cut -d: -f1) + 8 + ${#n} ))
  tail -c +$((start + 1)) c.rxlock | head -c "$n" > c.json
  expect_rc 0 "rxlock solve on the container's puzzle" "$RXLOCK" solve c.json -o c-id.txt
  off=$(grep -abo '^age-encryption.org/v1' c.rxlock | head -n 1 | cut -d: -f1)
  check "age -d opens the container payload" sh -c "tail -c +$((off + 1)) c.rxlock | age -d -i c-id.txt | cmp -s - p1"
else
  fail "rxlock lock -o PUZZLE failed"
fi

# 50 MiB both ways under a 16 MiB RSS ceiling.
if [ -x /usr/bin/time ]; then
  head -c $((50 * 1024 * 1024)) /dev/urandom > big
  rss() { sed -n 's/^[[:space:]]*Maximum resident set size (kbytes): //p' "$1"; }
  age -r "$R" -o big.age big
  /usr/bin/time -v "$RXLOCK" decrypt -i key.txt -o big.out big.age 2> t1.txt
  check "50 MiB age -> rxlock" cmp -s big big.out
  k=$(rss t1.txt); echo "rxlock decrypt 50 MiB: max RSS ${k} KiB" >&2
  check "decrypt 50 MiB RSS < 16 MiB (${k} KiB)" test "${k:-999999}" -lt 16384
  rm -f big.out big.age
  /usr/bin/time -v "$RXLOCK" encrypt -a -r "$R" -o big.age big 2> t2.txt
  k=$(rss t2.txt); echo "rxlock encrypt -a 50 MiB: max RSS ${k} KiB" >&2
  check "encrypt 50 MiB RSS < 16 MiB (${k} KiB)" test "${k:-999999}" -lt 16384
  check "50 MiB rxlock -a -> age" sh -c "age -d -i key.txt big.age | cmp -s - big"
  /usr/bin/time -v "$RXLOCK" decrypt -i key.txt -o big.out big.age 2> t3.txt
  k=$(rss t3.txt); echo "rxlock decrypt armored 50 MiB: max RSS ${k} KiB" >&2
  check "armored decrypt 50 MiB RSS < 16 MiB (${k} KiB)" test "${k:-999999}" -lt 16384
  check "50 MiB armored round trip" cmp -s big big.out
  rm -f big big.age big.out
else
  fail "/usr/bin/time missing (install Debian package 'time')"
fi
# '-o -' is standard output (not a file named '-'); a directory is no input
printf 'dash\n' > d.txt
check "encrypt -a -o - to stdout" sh -c "'$RXLOCK' encrypt -a -r '$R' -o - d.txt > d.asc && test ! -e ./- && grep -q 'BEGIN AGE ENCRYPTED FILE' d.asc"
check "decrypt -o - to stdout" sh -c "'$RXLOCK' decrypt -i key.txt -o - d.asc | cmp -s - d.txt && test ! -e ./-"
mkdir -p adir
expect_rc 1 "encrypt a directory refused" "$RXLOCK" encrypt -r "$R" -o dir.age adir
check "directory: no output" test ! -e dir.age
summary
