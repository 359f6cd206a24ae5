# SPDX-License-Identifier: ISC
# tests/cli/test_messages.sh — operator conventions: each message names
# the file, the cause and the way out (unlock of a puzzle, inspect of a
# non-puzzle, a bad --calibration file, decrypt with the wrong key or a
# damaged file, warning about output only when some was written; -i of a
# puzzle; unlock of a text file; plan status / assemble of a non-plan); the closest option name for a typo, in every command;
# the age habits keygen -y, encrypt -R FILE and encrypt -r PUZZLE.
. tests/cli/lib.sh
R=$RXLOCK
cd "$TMP" || exit 1
W="--work sha3-256"
printf 'hello\n' > f.txt
expect_rc 0 "lock a puzzle" "$R" lock $W --groups 1 --steps 200 --rate 1000 -o p.json
# unlock PUZZLE: says it is a puzzle (not first "give -o OUT")
expect_rc 1 "unlock p.json" "$R" unlock p.json
check "unlock p.json: it is a puzzle, solve it" grep -q "p.json is a puzzle (JSON): solve it with 'rxlock solve" "$TMP/.err"
check "unlock p.json: no -o request" sh -c "! grep -q 'give -o' '$TMP/.err'"
# unlock a text file: what it is (not first "give -o OUT")
expect_rc 1 "unlock f.txt" "$R" unlock f.txt
check "unlock f.txt: text, not a time-locked file" grep -q "f.txt: text (6 bytes), not a time-locked file: unlock opens what .rxlock lock FILE. wrote" "$TMP/.err"
# plan status / assemble of a directory that is no plan
mkdir notaplan
expect_rc 1 "plan status notaplan" "$R" plan status notaplan
check "plan status notaplan: no plan.json, which directory to give" grep -q "notaplan: not a plan directory (no plan.json): give the directory .rxlock plan -o DIR. wrote" "$TMP/.err"
expect_rc 1 "assemble notaplan" "$R" assemble notaplan --planner-key nokey -o np.json
check "assemble notaplan: the same" grep -q "notaplan: not a plan directory (no plan.json)" "$TMP/.err"
# inspect a text file: not 'not valid JSON'
expect_rc 1 "inspect f.txt" "$R" inspect f.txt --no-estimate
check "inspect f.txt: what it is, neither a puzzle nor a .rxlock file" grep -q "f.txt: text (6 bytes), neither a puzzle" "$TMP/.err"
head -c 300 /dev/zero > z.bin
expect_rc 1 "inspect z.bin" "$R" inspect z.bin --no-estimate
check "inspect z.bin: binary data" grep -q "z.bin: binary data (300 bytes), neither a puzzle" "$TMP/.err"
check "inspect f.txt: no JSON parser jargon" sh -c "! grep -q 'not valid JSON' '$TMP/.err'"
# lock --calibration with a puzzle: names the file and the way out
expect_rc 1 "lock --calibration p.json" "$R" lock $W --groups 1 --time 1s --calibration p.json -o q.json
check "--calibration p.json: names the file and rxlock calibrate" grep -q -- "--calibration p.json: .*rxlock calibrate" "$TMP/.err"
check "--calibration p.json: says it is a puzzle" grep -q -- "--calibration p.json: a puzzle, not a calibration" "$TMP/.err"
check "--calibration p.json: no parser jargon" sh -c "! grep -q 'missing \"rxlock_calibration\"' '$TMP/.err'"
expect_rc 1 "lock --calibration f.txt" "$R" lock $W --groups 1 --time 1s --calibration f.txt -o q.json
check "--calibration f.txt: says what it is" grep -q -- "--calibration f.txt: text (6 bytes), not a calibration: give the file .rxlock calibrate -o FILE. wrote" "$TMP/.err"
# decrypt with the wrong key: nothing was written, so no warning about it
"$R" keygen -o a.key > a.rcp 2>/dev/null
"$R" keygen -o b.key > /dev/null 2>&1
"$R" encrypt -r "$(cat a.rcp)" -o f.age f.txt
expect_rc 3 "decrypt, wrong key" "$R" decrypt -i b.key f.age
check "wrong key: says so, names the file and the way out" \
  grep -q "decrypt: f.age: no identity matched .*: give the identity it was encrypted to with -i" "$TMP/.err"
check "wrong key: no 'output written so far' (nothing was)" sh -c "! grep -q 'written so far' '$TMP/.err'"
# decrypt -i PUZZLE: solve it first
expect_rc 1 "decrypt -i p.json" "$R" decrypt -i p.json f.age
check "-i p.json: a puzzle, solve it first" grep -q -- "-i p.json: a puzzle, not an identity: solve it first (rxlock solve p.json -o IDENTITY)" "$TMP/.err"
# a damaged file to stdout: the warning only when something was written
head -c 100 f.age > cut.age
expect_rc 1 "decrypt, cut in the header, to stdout" "$R" decrypt -i a.key cut.age
check "cut in the header: names the file, no 'written so far' (nothing was)" \
  sh -c "grep -q 'decrypt: cut.age: ' '$TMP/.err' && ! grep -q 'written so far' '$TMP/.err' && test ! -s '$TMP/.out'"
head -c 150000 /dev/urandom > big.bin
"$R" encrypt -r "$(cat a.rcp)" -o big.age big.bin
head -c 100000 big.age > bigcut.age
expect_rc 1 "decrypt, cut in the 2nd chunk, to stdout" "$R" decrypt -i a.key bigcut.age
check "cut in the 2nd chunk: 64 KiB written, says not to trust it" \
  sh -c "grep -q 'written so far to stdout is not to be trusted' '$TMP/.err' && test \$(wc -c < '$TMP/.out') -eq 65536"
# unlock to stdout: the same for a container's payload
"$R" lock big.bin $W --groups 1 --steps 200 -q -o big.rxlock
sz=$(wc -c < big.rxlock)
flipat() { cp "$1" "$2"; v=$(od -An -tu1 -j "$3" -N1 "$1" | tr -d ' ')
  printf "\\$(printf %o $(( v ^ 1 )))" | dd of="$2" bs=1 seek="$3" conv=notrunc 2>/dev/null; }
flipat big.rxlock last.rxlock $((sz - 10))
expect_rc 1 "unlock -o -, damaged last chunk" "$R" unlock last.rxlock -q -o -
check "damaged last chunk: the chunks before it out, says not to trust it" \
  sh -c "grep -q 'written so far to stdout is not to be trusted' '$TMP/.err' && test \$(wc -c < '$TMP/.out') -eq 131072"
flipat big.rxlock first.rxlock $((sz - 150000))
expect_rc 1 "unlock -o -, damaged first chunk" "$R" unlock first.rxlock -q -o -
check "damaged first chunk: nothing out, no 'written so far'" \
  sh -c "grep -q 'payload' '$TMP/.err' && ! grep -q 'written so far' '$TMP/.err' && test ! -s '$TMP/.out'"
expect_rc 1 "decrypt, empty standard input" sh -c "'$R' decrypt -i a.key < /dev/null"
check "empty standard input: named" grep -q "decrypt: standard input: " "$TMP/.err"
# option typos: the closest option, in several commands
expect_rc 2 "lock --stepz" "$R" lock $W --stepz 10 -o x.json
check "lock --stepz: did you mean --steps" grep -q "did you mean '--steps'" "$TMP/.err"
expect_rc 2 "encrypt --armour" "$R" encrypt --armour -r "$(cat a.rcp)" f.txt
check "encrypt --armour: did you mean --armor" grep -q "did you mean '--armor'" "$TMP/.err"
expect_rc 2 "inspect --jsn" "$R" inspect --jsn p.json
check "inspect --jsn: did you mean --json" grep -q "did you mean '--json'" "$TMP/.err"
expect_rc 2 "beacon status --jsn (a subcommand)" "$R" beacon status --jsn x
check "beacon status --jsn: did you mean --json" grep -q "beacon status: unknown option '--jsn': did you mean '--json'" "$TMP/.err"
expect_rc 2 "plan status --josn (a subcommand)" "$R" plan status --josn x
check "plan status --josn: named as plan status, did you mean --json" grep -q "^rxlock plan status: unknown option '--josn': did you mean '--json'? (see 'rxlock help plan status')" "$TMP/.err"
expect_rc 2 "plan status without DIR" "$R" plan status
check "plan status: missing DIR" grep -q "^rxlock plan status: missing DIR" "$TMP/.err"
expect_rc 2 "beacon run --onse" "$R" beacon run x --onse
check "beacon run --onse: did you mean --once" grep -q "did you mean '--once'" "$TMP/.err"
expect_rc 2 "solve --xyzzy-foo" "$R" solve --xyzzy-foo p.json
check "no suggestion when nothing is close" sh -c "! grep -q 'did you mean' '$TMP/.err'"
# keygen -y: the recipient of an identity file, X25519 and post-quantum, file and stdin
expect_rc 0 "keygen -y" "$R" keygen -y a.key
check "keygen -y: the recipient keygen printed" sh -c "cmp -s '$TMP/.out' a.rcp"
check "keygen -y -: from standard input" sh -c "'$R' keygen -y - < a.key | cmp -s - a.rcp"
"$R" keygen --pq -o pq.key > pq.rcp 2>/dev/null
check "keygen -y: post-quantum" sh -c "'$R' keygen -y pq.key | cmp -s - pq.rcp"
expect_rc 1 "keygen -y of a non-identity" "$R" keygen -y f.txt
check "keygen -y: failed to parse, names the file" grep -q "failed to parse input f.txt" "$TMP/.err"
expect_rc 2 "keygen -y with -o" "$R" keygen -y a.key -o z.key
# encrypt -R FILE: comments and blank lines skipped
printf '# the team\n\n%s\n' "$(cat a.rcp)" > team.txt
expect_rc 0 "encrypt -R" "$R" encrypt -R team.txt -o r.age f.txt
check "encrypt -R: opens with the key" sh -c "'$R' decrypt -i a.key r.age | cmp -s - f.txt"
printf 'age1nope\n' > bad.txt
expect_rc 1 "encrypt -R with a bad line" "$R" encrypt -R bad.txt -o r2.age f.txt
check "-R bad line: file and line named" grep -q 'recipients file "bad.txt" line 1: malformed recipient' "$TMP/.err"
expect_rc 1 "encrypt -R missing file" "$R" encrypt -R nosuch.txt -o r3.age f.txt
check "-R missing: failed to open recipient file" grep -q "failed to open recipient file" "$TMP/.err"
printf '# nothing\n' > empty.txt
expect_rc 1 "encrypt -R without recipients" "$R" encrypt -R empty.txt -o r4.age f.txt
# encrypt -r PUZZLE: the puzzle's epoch recipient
expect_rc 0 "encrypt -r p.json" "$R" encrypt -r p.json -o e.age f.txt
expect_rc 0 "solve p.json" "$R" solve p.json -o p.id -q
check "encrypt -r p.json: opens with the solved identity" sh -c "'$R' decrypt -i p.id e.age | cmp -s - f.txt"
expect_rc 2 "encrypt -r nosuch.json" "$R" encrypt -r nosuch.json -o e2.age f.txt
check "-r nosuch.json: not a recipient and no such puzzle file" grep -q "no such puzzle file" "$TMP/.err"
summary
