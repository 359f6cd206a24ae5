# SPDX-License-Identifier: ISC
# tests/cli/test_age_bad.sh — rxlock decrypt on damaged input: truncations,
# a flipped byte in the header, nonce and every chunk, a wrong identity,
# unknown stanzas, trailing garbage, non-canonical armor.  Every case must
# fail with a clear one-line error and leave no output file (nor temp file).
. tests/cli/lib.sh
if ! command -v age-keygen >/dev/null 2>&1; then echo "age not installed: skipped" >&2; summary; exit $?; fi
cd "$TMP" || exit 1
age-keygen -o key.txt 2>/dev/null
age-keygen -o other.txt 2>/dev/null
R=$(age-keygen -y key.txt)
head -c 150000 /dev/urandom > p            # 3 chunks: 65536 + 65536 + 18928
"$RXLOCK" encrypt -r "$R" -o good.age p
"$RXLOCK" encrypt -a -r "$R" -o good.asc p
hdr=$(head -n 4 good.age | wc -c)
size=$(wc -c < good.age)

# bad RC DESC FILE [IDENTITY]: decrypt must exit RC, say something, and
# leave neither out nor out.tmp-*.
bad() {
  want=$1; d=$2; f=$3; id=${4:-key.txt}
  rm -f out out.tmp-*
  expect_rc "$want" "$d" "$RXLOCK" decrypt -i "$id" -o out "$f"
  check "$d: no output file" test ! -e out
  check "$d: no temp file" sh -c '! ls out.tmp-* >/dev/null 2>&1'
  check "$d: one-line error" test "$(wc -l < "$TMP/.err")" -eq 1
  check "$d: error names the problem" grep -q 'rxlock: decrypt: ' "$TMP/.err"
  [ -n "$VERBOSE" ] && cat "$TMP/.err" >&2
  return 0
}
flip() { # flip FILE OFFSET -> FILE.flip
  cp "$1" "$1.flip"
  v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf %o $(( v ^ 1 )))" | dd of="$1.flip" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
expect_rc 0 "good file opens" "$RXLOCK" decrypt -i key.txt -o ok good.age
check "good file matches" cmp -s ok p

# Truncations: inside the version line, the header, the nonce, a chunk, at
# a chunk boundary, one byte short.
for cut in 10 40 $hdr $((hdr + 8)) $((hdr + 16)) $((hdr + 16 + 1000)) \
           $((hdr + 16 + 65552)) $((hdr + 16 + 2 * 65552)) $((size - 1)); do
  head -c "$cut" good.age > t.age
  bad 1 "truncated at $cut" t.age
done
head -c $((hdr + 16 + 65552)) good.age > t.age
"$RXLOCK" decrypt -i key.txt -o out t.age 2>err.txt
check "chunk-boundary truncation says truncated" grep -q truncated err.txt
: > empty.age
bad 1 "empty file" empty.age

# A flipped byte: version line, stanza, MAC, nonce, chunk 0, 1, 2 (final), tag.
# (A damaged stanza no longer opens: that reads as "no identity matched".)
flip good.age 30
bad 3 "flipped byte in the stanza" good.age.flip
for off in 3 $((hdr - 5)) $((hdr + 3)) $((hdr + 16 + 5)) $((hdr + 16 + 65552 + 7)) \
           $((hdr + 16 + 2 * 65552 + 100)) $((size - 1)); do
  flip good.age "$off"
  bad 1 "flipped byte at $off" good.age.flip
done

# Wrong identity: exit 3, no output.
bad 3 "wrong identity" good.age other.txt
check "wrong identity message" grep -q 'no identity matched' "$TMP/.err"

# Unknown stanza inserted into a valid header: the MAC no longer matches.
{ head -n 1 good.age; printf -- '-> unknown-type arg1 arg2\nSGVsbG8\n'; tail -n +2 good.age; } > unk.age
bad 1 "unknown stanza added to header" unk.age
check "unknown stanza: MAC error" grep -q 'MAC' "$TMP/.err"
# A header with only an unknown stanza: nothing for our identity.
{ printf 'age-encryption.org/v1\n-> example.com/enigma xyz\n\n'; sed -n 4p good.age; tail -c +$((hdr + 1)) good.age; } > only.age
bad 3 "only an unknown stanza" only.age
# Malformed X25519 stanza (three arguments), bad version, garbage line.
{ head -n 1 good.age; sed -n 2p good.age | sed 's/$/ extra/'; tail -n +3 good.age; } > x3.age
bad 1 "X25519 stanza with 3 arguments" x3.age
{ printf 'age-encryption.org/v2\n'; tail -n +2 good.age; } > v2.age
bad 1 "unsupported version" v2.age
check "version message" grep -q 'not an age v1 file' "$TMP/.err"
{ head -n 1 good.age; printf 'garbage\n'; tail -n +2 good.age; } > g.age
bad 1 "garbage header line" g.age
# An altered stanza body: its last base64 character replaced.
body=$(sed -n 3p good.age)
last=$(printf %s "$body" | tail -c 1)
# Replace it by another canonical last character (two spare low bits zero:
# A and E are values 0 and 4), so the body still parses and only the file
# key it carries is wrong.  (B, used before, has a spare bit set: when the
# random body ended in A, 1 run in 16, the file failed to parse instead.)
case $last in A) nb=E;; *) nb=A;; esac
{ head -n 2 good.age; printf '%s%s\n' "$(printf %s "$body" | head -c 42)" "$nb"; tail -n +4 good.age; } > nc.age
bad 3 "altered stanza body" nc.age
printf 'this is not an age file\n' > text.txt
bad 1 "not an age file" text.txt
printf 'age-encryption.org/v1\n' > hdronly.age
bad 1 "version line only" hdronly.age

# Trailing garbage: binary, after a full final chunk, armored.
{ cat good.age; printf 'X'; } > trail.age
bad 1 "one trailing byte" trail.age
head -c 131072 /dev/urandom > p2                # exactly 2 full chunks
"$RXLOCK" encrypt -r "$R" -o full.age p2
{ cat full.age; head -c 100 /dev/urandom; } > trail2.age
bad 1 "trailing data after a full final chunk" trail2.age
check "trailing data message" grep -q 'trailing data' "$TMP/.err"
{ cat good.asc; printf 'junk\n'; } > trail.asc
bad 1 "text after armor END" trail.asc
check "armor trailing message" grep -q 'trailing data' "$TMP/.err"

# Armor: whitespace around the block is fine; damage is not.
{ printf '\n  \n'; cat good.asc; printf '\n\n'; } > ws.asc
expect_rc 0 "armor with surrounding whitespace" "$RXLOCK" decrypt -i key.txt -o ws.out ws.asc
check "armor with whitespace matches" cmp -s ws.out p
sed 's/$/\r/' good.asc > crlf.asc
expect_rc 0 "armor with CRLF lines" "$RXLOCK" decrypt -i key.txt -o crlf.out crlf.asc
check "CRLF armor matches" cmp -s crlf.out p
{ printf 'hello\n'; cat good.asc; } > pre.asc
bad 1 "text before armor BEGIN" pre.asc
sed '$d' good.asc > noend.asc
bad 1 "armor without END line" noend.asc
sed '1d;$d' good.asc | tr -d '\n' | fold -w 76 > rewrap.b64
{ sed -n 1p good.asc; cat rewrap.b64; echo; sed -n '$p' good.asc; } > rewrap.asc
bad 1 "armor wrapped at 76 columns" rewrap.asc
{ sed -n 1p good.asc; sed '1d;$d' good.asc | sed '2s/^\(.\)/\1 /'; sed -n '$p' good.asc; } > sp.asc
bad 1 "armor with a space inside" sp.asc
{ sed -n 1p good.asc; sed -n 2p good.asc; echo; sed '1,2d' good.asc; } > blank.asc
bad 1 "armor with an empty line inside" blank.asc
sed '2s/^\(.\)\(.*\)/\2/' good.asc > short.asc
bad 1 "armor with a short line in the middle" short.asc
lines=$(wc -l < good.asc)
sed "$((lines - 1))s/.\$/!/" good.asc > badchar.asc
bad 1 "armor with a bad base64 character" badchar.asc
summary
