# SPDX-License-Identifier: ISC
# tests/cli/test_misuse.sh — "hard to misuse": one section per
# item of the issue (data and secrets, signatures, CLI consistency), each a
# case that today's rxlock got wrong.  sha3-256 with small step counts, so
# everything takes seconds; the fault injection uses the test build's
# RXLOCK_TEST_* switches.
. tests/cli/lib.sh
VEC=${RXLOCK_VECTORS:-$PWD/tests/vectors}
cd "$TMP" || exit 1
R=$RXLOCK
T=$RXLOCK_TESTBIN
W="--work sha3-256"
printf 'the secret plan\n' > s.txt
"$R" keygen-signer -o signer.key > signer.pin 2>/dev/null
PIN=$(cat signer.pin)
cp signer.key signer.orig

# --- 1. two options naming one file never destroy it -------------------------
expect_rc 1 "1: --sign-key X --keep-epoch-key X --force refused" \
  "$R" lock $W --groups 1 --steps 10 --sign-key signer.key --keep-epoch-key signer.key --force -o p.json
check "1: the signing key is intact" cmp -s signer.key signer.orig
check "1: message names both options" grep -q -- '--sign-key and --keep-epoch-key name the same file' "$TMP/.err"
check "1: nothing written" test ! -e p.json
expect_rc 1 "1: --keep-epoch-key X -o X refused (no --force)" \
  "$R" lock $W --groups 1 --steps 10 --keep-epoch-key k.json -o k.json
check "1: ... and nothing written" test ! -e k.json
expect_rc 1 "1: --keep-epoch-key X -o ./X --force refused" \
  "$R" lock $W --groups 1 --steps 10 --keep-epoch-key k.json -o ./k.json --force
ln -s signer.key link.key
expect_rc 1 "1: an output that is a link to an input refused" \
  "$R" lock $W --groups 1 --steps 10 --sign-key signer.key -o link.key --force
check "1: the signing key is intact (link)" cmp -s signer.key signer.orig
"$R" lock s.txt $W --groups 1 --steps 100 -q
mv s.txt s.orig
expect_rc 1 "1: unlock -o out --save-identity out --force refused" \
  "$R" unlock s.txt.rxlock -q -o out --save-identity out --force
check "1: nothing written by unlock" test ! -e out
expect_rc 1 "1: unlock -o FILE.rxlock refused (output = input)" "$R" unlock s.txt.rxlock -q -o s.txt.rxlock --force
check "1: container intact" grep -q "^rxlock time-locked file v1$" s.txt.rxlock
expect_rc 1 "1: solve -o PUZZLE refused (output = input)" "$R" solve k0.json -o k0.json --force
"$R" lock $W --groups 1 --steps 10 -o p0.json >/dev/null
expect_rc 1 "1: solve --journal PUZZLE refused" "$R" solve p0.json -o id0 --journal p0.json
check "1: the puzzle is intact" grep -q rxlock_puzzle p0.json
expect_rc 1 "1: encrypt -o INPUT refused" "$R" encrypt -r "$("$R" lock $W --groups 1 --steps 1 -o p1.json)" -o s.orig --force s.orig
check "1: the input is intact" grep -q 'the secret plan' s.orig
expect_rc 1 "1: plan with the same key file twice refused" \
  "$R" plan $W --groups 2 --steps 10 --planner-key k.key --worker-key ./k.key -o plan1
check "1: no plan directory left" test ! -e plan1

# --- 2. every output is checked before the work ----------------------------
: > exists.id
expect_rc 1 "2: unlock --save-identity EXISTING refused before the work" \
  "$T" unlock s.txt.rxlock -q -o s.txt --save-identity exists.id
check "2: no plaintext written" test ! -e s.txt
check "2: no journal left" test ! -e s.txt.rxlock.journal
mkdir ro && chmod 555 ro
if [ ! -w ro ]; then
  expect_rc 1 "2: unwritable output directory refused before the work" "$R" unlock s.txt.rxlock -q -o ro/out
  check "2: ... and the message says so" grep -q 'cannot write in ro' "$TMP/.err"
fi
# a container whose age payload is cut, garbled, missing or has trailing bytes
size=$(wc -c < s.txt.rxlock)
off=$(grep -abo '^age-encryption.org/v1' s.txt.rxlock | head -n 1 | cut -d: -f1)
head -c "$off" s.txt.rxlock > nopayload.rxlock
head -c $((size - 20)) s.txt.rxlock > cut.rxlock
{ cat s.txt.rxlock; printf 'x'; } > trailing.rxlock
sed 's/^age-encryption.org\/v1$/age-encryption.org\/v9/' s.txt.rxlock > garbled.rxlock
for f in nopayload cut garbled; do
  RXLOCK_TEST_SEED=0f1e2d3c4b5a69788796a5b4c3d2e1f0 RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_COUNTER="$TMP/ctr.$f" expect_rc 1 "2: $f payload refused before the work" \
    "$T" unlock $f.rxlock -q -o $f.out
  check "2: $f: no hash computed" sh -c "! test -s '$TMP/ctr.$f' || test \"\$(od -An -tu8 -N8 '$TMP/ctr.$f' | tr -d ' ')\" = 0"
  check "2: $f: nothing left" sh -c "! ls $f.out* $f.rxlock.journal 2>/dev/null | grep -q ."
done
# trailing bytes show only when decrypting: the journal (with the final
# chain state) is kept, and the re-run computes nothing
RXLOCK_TEST_SEED=0f1e2d3c4b5a69788796a5b4c3d2e1f0 RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_COUNTER="$TMP/ctr.t1" expect_rc 1 "2: trailing bytes fail the delivery" \
  "$T" unlock trailing.rxlock -q -o trailing.out
check "2: trailing: no output" test ! -e trailing.out
check "2: trailing: the journal is kept" test -s trailing.rxlock.journal
check "2: trailing: says the state is kept" grep -q 'solved state is kept in trailing.rxlock.journal' "$TMP/.err"
RXLOCK_TEST_SEED=0f1e2d3c4b5a69788796a5b4c3d2e1f0 RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_COUNTER="$TMP/ctr.t2" expect_rc 1 "2: trailing: re-run fails again" \
  "$T" unlock trailing.rxlock -q -o trailing.out
check "2: trailing: the re-run computed no hash (final state journalled)" \
  sh -c "test \"\$(od -An -tu8 -N8 '$TMP/ctr.t2' | tr -d ' ')\" = 0"
rm -f trailing.rxlock.journal

# --- 3. no temp file outlives a kill -9; stale ones are cleaned -------------
printf 'three\n' > three.txt
"$R" lock three.txt $W --groups 2 --steps 5000000 -q -o three.rxlock
"$R" unlock three.rxlock -q -o three.out & pid=$!
sleep 1; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
check "3: no temp file after kill -9 during the solve" sh -c "! ls three.out.tmp-* 2>/dev/null | grep -q ."
: > three.out.tmp-AbC123
expect_rc 0 "3: unlock after the kill" "$R" unlock three.rxlock -q -o three.out --force
check "3: a stale temp file of our naming is removed" test ! -e three.out.tmp-AbC123
check "3: unlocked" cmp -s three.out three.txt
"$R" lock three.txt $W --groups 2 --steps 8000000 -q -o three2.rxlock & pid=$!
sleep 1; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
check "3: no temp file after kill -9 during lock FILE" sh -c "! ls three2.rxlock.tmp-* 2>/dev/null | grep -q ."
# encrypt / decrypt from a slow pipe: killed while writing, nothing is left
# (the temp output is unnamed until the commit); a stale one is removed
"$R" keygen -o e3.id > e3.rcp 2>/dev/null
head -c 300000 /dev/urandom > e3.in
"$R" encrypt -r "$(cat e3.rcp)" -o e3.age e3.in
{ head -c 100000 e3.in; sleep 5; } 2>/dev/null | "$R" encrypt -r "$(cat e3.rcp)" -o e3b.age & pid=$!
sleep 1; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
check "3: encrypt killed mid-stream leaves no output or temp file" sh -c "! ls e3b.age* 2>/dev/null | grep -q ."
{ head -c 150000 e3.age; sleep 5; } 2>/dev/null | "$R" decrypt -i e3.id -o e3.out & pid=$!
sleep 1; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
check "3: decrypt killed mid-stream leaves no output or temp file" sh -c "! ls e3.out* 2>/dev/null | grep -q ."
: > e3.out.tmp-AbC123
expect_rc 0 "3: decrypt after the kill" "$R" decrypt -i e3.id -o e3.out e3.age
check "3: ... removes a stale temp file of our naming" test ! -e e3.out.tmp-AbC123
check "3: ... decrypts" cmp -s e3.out e3.in
expect_rc 0 "3: decrypt --force over the output" "$R" decrypt -i e3.id -o e3.out --force e3.age
check "3: ... leaves only the output" sh -c "test \"\$(ls e3.out*)\" = e3.out"
# the named fallback (a file system without O_TMPFILE; test switch)
expect_rc 0 "3: fallback: decrypt --force" env RXLOCK_TEST_NO_TMPFILE=1 "$T" decrypt -i e3.id -o e3.out --force e3.age
expect_rc 0 "3: fallback: decrypt" env RXLOCK_TEST_NO_TMPFILE=1 "$T" decrypt -i e3.id -o e3c.out e3.age
check "3: fallback: ... leaves only the outputs" sh -c "test \"\$(ls e3.out* e3c.out* | tr '\n' ' ')\" = 'e3.out e3c.out '"
check "3: fallback: ... decrypts" cmp -s e3c.out e3.in
{ head -c 150000 e3.age; sleep 5; } 2>/dev/null | env RXLOCK_TEST_NO_TMPFILE=1 "$T" decrypt -i e3.id -o e3d.out & pid=$!
sleep 1; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
expect_rc 0 "3: fallback: decrypt after a kill" env RXLOCK_TEST_NO_TMPFILE=1 "$T" decrypt -i e3.id -o e3d.out e3.age
check "3: fallback: ... the killed run's temp file is removed" sh -c "test \"\$(ls e3d.out*)\" = e3d.out"
"$R" keygen -o e3w.id >/dev/null 2>&1
expect_rc 3 "3: decrypt with the wrong identity" "$R" decrypt -i e3w.id -o e3w.out e3.age
check "3: ... leaves nothing" sh -c "! ls e3w.out* 2>/dev/null | grep -q ."

# --- 4. a failed plan leaves nothing; a failed lock says what it kept ----------
expect_rc 1 "4: plan with ENOSPC at the 2nd job file fails" env RXLOCK_TEST_PLAN_ENOSPC=2 \
  "$T" plan $W --groups 3 --steps 10 --planner-key pk4 --worker-key wk4 -o plan4
check "4: ... saying why" grep -q 'No space left on device' "$TMP/.err"
check "4: no key and no plan directory left" sh -c "! ls -d pk4 wk4 plan4 2>/dev/null | grep -q ."
expect_rc 0 "4: the retry succeeds" "$T" plan $W --groups 3 --steps 10 --planner-key pk4 --worker-key wk4 -o plan4
# a full disk during lock / lock FILE keeps the generation state and says how to go on
IS="RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=0f1e2d3c4b5a69788796a5b4c3d2e1f0"
expect_rc 1 "4: lock, disk full writing a segment record, fails" env $IS RXLOCK_TEST_STATE_ENOSPC=group-0002.segs \
  "$T" lock $W --groups 2 --steps 3000 -q -o p4.json
check "4: ... names the file and the cause" grep -q 'p4.json.state/results/group-0002.segs: cannot write the generation state: No space left on device' "$TMP/.err"
check "4: ... says the state is kept and to run the same command once there is space" \
  grep -q 'the generation state is kept in p4.json.state/: run the same command again to resume once there is space' "$TMP/.err"
check "4: ... no puzzle, the state kept" sh -c "test ! -e p4.json && test -f p4.json.state/plan.json"
expect_rc 1 "4: lock, disk full writing the finished puzzle, fails" env $IS RXLOCK_TEST_STATE_ENOSPC=puzzle.json \
  "$T" lock $W --groups 2 --steps 3000 -q -o p4.json
check "4: ... names the file, says the state is kept and the way on" \
  grep -q 'p4.json.state/puzzle.json: No space left on device: the generation state is kept in p4.json.state/: run the same command again once there is space' "$TMP/.err"
expect_rc 0 "4: the same command then finishes" env $IS "$T" lock $W --groups 2 --steps 3000 -q -o p4.json
check "4: ... resuming the kept work" grep -q 'resumed: 6000 of 6000 chain steps' "$TMP/.err"
check "4: ... the state removed" test ! -e p4.json.state
printf 'four\n' > f4.txt
expect_rc 1 "4: lock FILE, disk full writing a segment record (--json)" env $IS RXLOCK_TEST_STATE_ENOSPC=group-0001.segs \
  "$T" lock f4.txt $W --groups 2 --steps 3000 --json
check "4: ... the error event names the file and the way on" \
  grep -q '"event":"error".*f4.txt.rxlock.state/results/group-0001.segs: cannot write the generation state: No space left on device.*run the same command again to resume once there is space' "$TMP/.out"
expect_rc 1 "4: lock FILE, disk full writing the container" env $IS RXLOCK_TEST_STATE_ENOSPC=container.rxlock \
  "$T" lock f4.txt $W --groups 2 --steps 3000 -q
check "4: ... names the file, says the state is kept and the way on" \
  grep -q 'f4.txt.rxlock.state/container.rxlock: No space left on device: the generation state is kept in f4.txt.rxlock.state/: run the same command again once there is space' "$TMP/.err"
check "4: ... no container beside it" test ! -e f4.txt.rxlock
expect_rc 0 "4: the same command then finishes" env $IS "$T" lock f4.txt $W --groups 2 --steps 3000 -q
check "4: ... and the container opens" sh -c "'$R' unlock f4.txt.rxlock -q -o f4.out && cmp -s f4.out f4.txt"

# --- 5. no core dumps in processes that hold secrets -------------------------
for cmd in "keygen-signer -o k5.key" "decrypt -i signer.key -o d5 s.orig" "lock $W --groups 1 --steps 10 -o p5.json" \
           "solve p0.json -o id5" "unlock s.txt.rxlock -q -o u5"; do
  rm -f dump.state
  RXLOCK_TEST_DUMP_STATE=$TMP/dump.state "$T" $cmd >/dev/null 2>&1
  check "5: ${cmd%% *}: PR_GET_DUMPABLE 0, RLIMIT_CORE 0" grep -qx 'dumpable=0 core=0' dump.state
done
"$R" lock $W --groups 1 --steps 8000000 -o p5b.json >/dev/null 2>&1
# a core limit above 0 to start from (the shell's may already be 0)
ulimit -S -c "$(ulimit -H -c)" 2>/dev/null
"$R" solve p5b.json -q -o id5b 2>/dev/null & pid=$!
sleep 0.5
check "5: a running solve's core limit is 0 (/proc/PID/limits)" \
  sh -c "grep -qE '^Max core file size +0 +0 ' /proc/$pid/limits"
kill -INT $pid 2>/dev/null; wait $pid; rc=$?
check "10: SIGINT exits 130 (got $rc)" test "$rc" -eq 130
check "10: --help names exit 130 / 128+N" sh -c "'$R' --help | grep -q '128+N killed by signal N'"

# --- 6. the signature covers the wraps (version 2); low-order epoch key -------
"$R" lock $W --groups 4 --steps 100 --sign-key signer.key -o p6.json >/dev/null
check "6: the writer emits version 2" grep -q '"rxlock_puzzle": 2,' p6.json
expect_rc 0 "6: verify --signer-pin (v2)" "$R" verify p6.json --signer-pin "$PIN"
check "6: says the wraps are covered" grep -q 'the signature covers the header and wraps' "$TMP/.out"
# alter the ciphertext of wrap 3 (its 'ct' value's first hex digit)
awk 'BEGIN{n=0} /"ct": "/{n++; if(n==3){sub(/"ct": "./, "\"ct\": \"" (index($0,"\"ct\": \"0")?"1":"0"))}} {print}' p6.json > p6w.json
check "6: the altered puzzle differs" sh -c "! cmp -s p6.json p6w.json"
expect_rc 3 "6: verify --signer-pin refuses an altered wrap" "$R" verify p6w.json --signer-pin "$PIN"
expect_rc 3 "6: solve refuses it before any work" "$R" solve p6w.json --signer-pin "$PIN" -o id6
check "6: no identity, no journal" sh -c "! ls id6 id6.journal 2>/dev/null | grep -q ."
V1=$VEC/puzzle-v1
expect_rc 0 "6: a version-1 signed puzzle still verifies" "$R" verify "$V1/signed.json" --signer-pin "$(cat "$V1/signer.pin")"
check "6: ... and says its wraps are not covered" grep -q 'header only (version 1: the wraps are not covered)' "$TMP/.out"
expect_rc 0 "6: a version-1 puzzle still solves" "$R" solve "$V1/signed.json" --signer-pin "$(cat "$V1/signer.pin")" -o id6v1
check "6: ... to its identity" sh -c "grep '^AGE-SECRET' id6v1 | cmp -s - '$V1/identity.txt' || test \"\$(grep '^AGE-SECRET' id6v1)\" = \"\$(grep '^AGE-SECRET' '$V1/identity.txt')\""
expect_rc 0 "6: a version-1 unsigned puzzle verifies" "$R" verify "$V1/unsigned.json"
# a low-order epoch key (a point of order 8), refused before the header digest
sed 's/"epoch_public_key": "[0-9a-f]*"/"epoch_public_key": "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"/' p0.json > low.json
expect_rc 1 "6: verify refuses a low-order epoch key" "$R" verify low.json
check "6: ... naming it" grep -q 'low-order point' "$TMP/.err"

# --- 7. inspect / verify read .rxlock files; the notice says it is not authenticated
expect_rc 0 "7: verify FILE.rxlock" "$R" verify s.txt.rxlock
check "7: verify says the notice is not authenticated" grep -q 'notice text is not authenticated' "$TMP/.out"
check "7: verify checked the payload's shape" grep -q "payload's age header is well formed" "$TMP/.out"
# a container cut inside its age header (or its nonce) fails verify, before anyone solves it
off=$(grep -abo '^-> ' s.txt.rxlock | head -1 | cut -d: -f1)
head -c $((off + 20)) s.txt.rxlock > cut.rxlock
expect_rc 1 "7: verify of a container cut in its payload's header" "$R" verify cut.rxlock
check "7: ... says the payload is unusable" grep -q 'encrypted payload is unusable' "$TMP/.err"
expect_rc 0 "7: inspect FILE.rxlock" "$R" inspect --no-estimate s.txt.rxlock
check "7: inspect shows the real parameters" grep -q '^work: *sha3-256, 1 group x 100 steps' "$TMP/.out"
check "7: the notice's own rules say so" grep -q '^# These notice lines are not authenticated' s.txt.rxlock
sed 's/^# Work: 1 group(s) x 100 /# Work: 1 group(s) x 1 /' s.txt.rxlock > lie.rxlock
expect_rc 0 "7: inspect of a container with a replaced notice" "$R" inspect --no-estimate lie.rxlock
check "7: ... shows the puzzle's steps, not the notice's" grep -q 'x 100 steps' "$TMP/.out"
# ... also from standard input (a pipe: recognised by content, not by name)
expect_rc 0 "7: verify - < FILE.rxlock (a pipe)" sh -c "cat s.txt.rxlock | '$R' verify -"
check "7: ... says the notice is not authenticated" grep -q 'notice text is not authenticated' "$TMP/.out"
expect_rc 0 "7: inspect - < FILE.rxlock (a pipe)" sh -c "cat s.txt.rxlock | '$R' inspect --no-estimate -"
check "7: ... shows the real parameters" grep -q '^work: *sha3-256, 1 group x 100 steps' "$TMP/.out"
expect_rc 0 "7: verify - < PUZZLE (a pipe)" sh -c "cat p0.json | '$R' verify -"
expect_rc 1 "7: solve - < FILE.rxlock names unlock" sh -c "cat s.txt.rxlock | '$R' solve - -q -o - --no-journal"
check "7: ... naming unlock" grep -q "open it with 'rxlock unlock" "$TMP/.err"

# --- 8. '-' is standard input / output everywhere ----------------------------
expect_rc 0 "8: solve -o - --no-journal" "$R" solve p0.json -q -o - --no-journal
check "8: the identity went to stdout" grep -q '^AGE-SECRET-KEY-1' "$TMP/.out"
check "8: no file named '-'" test ! -e ./-
expect_rc 0 "8: unlock -o -" "$R" unlock s.txt.rxlock -q -o -
check "8: the plaintext went to stdout" cmp -s "$TMP/.out" s.orig
check "8: no file named '-' (unlock)" test ! -e ./-
expect_rc 0 "8: unlock - (stdin) -o FILE" sh -c "'$R' unlock - -q -o from-stdin < s.txt.rxlock"
check "8: unlocked from stdin" cmp -s from-stdin s.orig
expect_rc 0 "8: keygen-signer -o -" "$R" keygen-signer -o -
check "8: the key file went to stdout" grep -q '^# public key: ' "$TMP/.out"
check "8: no file named '-' (keygen)" test ! -e ./-
expect_rc 0 "8: lock -o -" "$R" lock $W --groups 1 --steps 10 -o -
check "8: the puzzle went to stdout" grep -q '"rxlock_puzzle"' "$TMP/.out"
check "8: the recipient went to stderr" grep -q '^age1' "$TMP/.err"
for k in "" "--pq"; do
  expect_rc 0 "8: keygen $k -o -" "$R" keygen $k -o -
  check "8: keygen $k: no file named '-'" test ! -e ./-
  check "8: keygen $k: the recipient went to stderr" grep -q '^age1' "$TMP/.err"
  cp "$TMP/.out" kg8.id; cp "$TMP/.err" kg8.rcp
  printf 'eight\n' | "$R" encrypt -r "$(cat kg8.rcp)" -o kg8.age
  expect_rc 0 "8: keygen $k: the identity on stdout opens a file to its recipient" "$R" decrypt -i kg8.id -o kg8.out kg8.age
  rm -f kg8.*
done

# --- 9. a file of the wrong kind names the command to use --------------------
expect_rc 1 "9: unlock PUZZLE.json" "$R" unlock p0.json -q -o x9
check "9: ... names rxlock solve" grep -q "rxlock solve" "$TMP/.err"
expect_rc 1 "9: solve FILE.rxlock" "$R" solve s.txt.rxlock -o x9
check "9: ... names rxlock unlock" grep -q "rxlock unlock" "$TMP/.err"
expect_rc 1 "9: decrypt FILE.rxlock" "$R" decrypt -i "$V1/identity.txt" -o x9 s.txt.rxlock
check "9: ... names rxlock unlock" grep -q "rxlock unlock" "$TMP/.err"
check "9: nothing written" test ! -e x9

# --- 10. options agree across commands ---------------------------------------
expect_rc 0 "10: solve -q" "$R" solve p0.json -q -o id10
check "10: solve -q prints nothing" test ! -s "$TMP/.err"
expect_rc 0 "10: unlock --json" "$R" unlock s.txt.rxlock --json -o u10
check "10: unlock --json: a done event" grep -q '"event":"done"' "$TMP/.out"
expect_rc 0 "10: solve --json" "$R" solve p0.json --json --no-journal -o id10j
check "10: solve --json ends with a done event, as lock, unlock and group do" sh -c "tail -n 1 '$TMP/.out' | grep -q '\"event\":\"done\"'"
expect_rc 0 "10: verify --json" "$R" verify --json p0.json
check "10: verify --json: one object" grep -q '"ok":true' "$TMP/.out"
expect_rc 0 "10: group --json" "$R" group plan4 0 --worker-key wk4 --json
check "10: group --json: a done event" grep -q '"event":"done"' "$TMP/.out"
expect_rc 0 "10: group -q" "$R" group plan4 1 --worker-key wk4 -q
check "10: group -q prints nothing" sh -c "test ! -s '$TMP/.out' && test ! -s '$TMP/.err'"
printf 'ten\n' > s10.txt
expect_rc 0 "10: lock FILE --json" "$R" lock s10.txt $W --groups 2 --steps 100 --json -o s10.rxlock
check "10: lock FILE --json: a start line" sh -c "head -n 1 '$TMP/.out' | grep -q '\"event\":\"start\"'"
check "10: lock FILE --json: a done event naming the container" \
  sh -c "tail -n 1 '$TMP/.out' | grep '\"event\":\"done\"' | grep -q '\"output\":\"s10.rxlock\",\"container\":true'"
check "10: lock FILE --json: every line is JSON" python3 -c "import json,sys; [json.loads(l) for l in open(sys.argv[1])]" "$TMP/.out"
check "10: lock FILE --json: no summary on stderr" test ! -s "$TMP/.err"
expect_rc 0 "10: ... and it unlocks" "$R" unlock s10.rxlock -q -o s10.out
check "10: ... to the file" cmp -s s10.out s10.txt
expect_rc 2 "10: lock FILE --json with the container on stdout refused" "$R" lock s10.txt $W --groups 1 --steps 10 --json -o -
expect_rc 0 "10: lock FILE -q" "$R" lock s10.txt $W --groups 1 --steps 10 -q -o s10q.rxlock
check "10: lock FILE -q prints nothing" sh -c "test ! -s '$TMP/.out' && test ! -s '$TMP/.err'"
expect_rc 0 "10: calibrate -q" "$R" calibrate --work sha3-256 --seconds 0.2 -q -o c10.json
check "10: calibrate -q: nothing on stdout" test ! -s "$TMP/.out"
check "10: calibrate -q: no informational line on stderr (warnings only)" sh -c "! grep -v '^rxlock: warning: ' '$TMP/.err'"
check "10: calibrate -q: the file is written" grep -q '"rate"' c10.json
expect_rc 0 "10: calibrate --json" "$R" calibrate --work sha3-256 --seconds 0.2 --json -o c10b.json
check "10: calibrate --json: one JSON object" python3 -c "import json,sys; l=open(sys.argv[1]).read().splitlines(); assert len(l)==1 and json.loads(l[0])['rate']>0" "$TMP/.out"
expect_rc 0 "10: inspect -q" "$R" inspect -q --progress p0.json
check "10: inspect -q: no progress line even with --progress" sh -c "! grep -q '^estimate' '$TMP/.err'"
check "10: inspect -q: the report (the result) is printed" grep -q '^this machine:' "$TMP/.out"
expect_rc 0 "10: inspect --json" "$R" inspect --json --no-estimate p0.json
check "10: inspect --json: one JSON object" python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['groups']==1" "$TMP/.out"
for c in "solve" "unlock" "lock" "calibrate" "group" "inspect" "verify"; do
  check "10: help $c shows -q, --quiet" sh -c "'$R' help $c | grep -q -- '-q, --quiet'"
  check "10: help $c shows --json" sh -c "'$R' help $c | grep -q -- '--json'"
done
# ... and each command's own man page section (lock's two: puzzle and FILE)
MAN=$OLDPWD/docs/rxlock.1
if [ -f "$MAN" ]; then
  sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN" > man10.txt
  for c in "solve" "unlock" "lock [options]" "lock FILE" "calibrate" "group" "inspect" "verify"; do
    awk -v h="\"rxlock $c" 'index($0, ".SS ")==1 || index($0, ".B \"rxlock ")==1 {on = index($0, h)==5 || index($0, h)==4} on' man10.txt > sec10.txt
    check "10: man: a section for $c" test -s sec10.txt
    check "10: man: $c documents -q, --quiet" sh -c "grep -q -- '-q' sec10.txt && grep -q -- '--quiet' sec10.txt"
    check "10: man: $c documents --json" grep -q -- '--json' sec10.txt
  done
fi
for c in lock solve unlock keygen-signer assemble plan; do
  check "10: help $c shows --output" sh -c "'$R' help $c | grep -q -- '--output'"
done
expect_rc 0 "10: --time 1h30m" "$R" lock $W --time 1h30m --rate 1 --groups 2 -o t10.json
check "10: 1h30m = 5400 s" grep -q '"target_seconds": 5400' t10.json
expect_rc 2 "10: --time 1x refused" "$R" lock $W --time 1x --rate 1 -o t10b.json
check "10: ... echoing the value and why" grep -q "\-\-time '1x': unknown unit" "$TMP/.err"
# every option that takes a time reads durations the same way
expect_rc 0 "10: solve --checkpoint-every 1m" "$R" solve p0.json -q --checkpoint-every 1m -o id10c
expect_rc 0 "10: solve --checkpoint-every 0 (every batch)" "$R" solve p0.json -q --checkpoint-every 0 -o id10d
expect_rc 2 "10: solve --checkpoint-every 1x refused" "$R" solve p0.json -q --checkpoint-every 1x -o id10e
check "10: ... echoing the value and why" grep -q "\-\-checkpoint-every '1x': unknown unit" "$TMP/.err"
expect_rc 0 "10: lock --worker-timeout 2m" "$R" lock $W --groups 1 --steps 10 -q --worker-timeout 2m -o t10w.json
expect_rc 2 "10: lock --worker-timeout 0 refused" "$R" lock $W --groups 1 --steps 10 --worker-timeout 0 -o t10x.json
check "10: ... echoing the value and why" grep -q "\-\-worker-timeout '0': must be more than 0" "$TMP/.err"
expect_rc 0 "10: calibrate --seconds 0.2s" "$R" calibrate --work sha3-256 --seconds 0.2s -q -o c10s.json
expect_rc 2 "10: calibrate --seconds 2d refused (over 86400 s)" "$R" calibrate --work sha3-256 --seconds 2d -q -o c10t.json
check "10: ... saying the range" grep -q "\-\-seconds '2d': want 0.05..86400 seconds" "$TMP/.err"
expect_rc 0 "10: group --checkpoint-every 1m" "$R" group plan4 2 --worker-key wk4 -q --checkpoint-every 1m
"$R" keygen -o kg10.id >/dev/null 2>&1
for c in "lock $W --groups 1 --steps 1 -o p0.json" "solve p0.json -o id10" "unlock s.txt.rxlock -o u10" \
         "keygen-signer -o signer.key" "keygen -o kg10.id" "keygen --pq -o kg10.id" \
         "calibrate --work sha3-256 --seconds 0.1 -o c10.json" "encrypt -r $(cat "$V1/recipient.txt") -o u10 s.orig"; do
  expect_rc 1 "10: ${c%% *}: existing output" "$R" $c
  check "10: ${c%% *}: one wording" grep -q 'already exists (use --force to replace it)' "$TMP/.err"
done

# --- 11. progress: 100% at the end; a resumed run says where it resumes ------
"$R" lock $W --groups 2 --steps 4000000 -o p11.json >/dev/null 2>&1
"$R" solve p11.json --progress -o id11 --checkpoint-steps 100000 2>p11a.err & pid=$!
sleep 1; kill -INT $pid 2>/dev/null; wait $pid
expect_rc 0 "11: resumed solve" "$R" solve p11.json --progress -o id11
check "11: says where it resumes from" grep -q '^rxlock: resuming from the journal at group [12] of 2, step [0-9]* ([0-9.]*% done)' "$TMP/.err"
check "11: its time is this run's" grep -q 'this run' "$TMP/.err"
check "11: the last frame says 100%" sh -c "grep '^solve' '$TMP/.err' | tail -n 1 | grep -q '8000000/8000000 (100.0%)'"

# --- 12. messages name the real cause and the file ---------------------------
ln -s loop.j loop.j 2>/dev/null
expect_rc 1 "12: a journal that is a symlink loop" "$R" solve p0.json -o id12 --journal loop.j
check "12: ... names the journal and ELOOP" grep -q 'loop.j: .*symbolic links' "$TMP/.err"
"$R" solve p11.json -q -o id12b --journal busy.j 2>/dev/null & pid=$!
sleep 0.5
expect_rc 1 "12: a journal a running solve holds" "$R" solve p11.json -q -o id12c --journal busy.j
check "12: ... says it is in use, not to remove it" grep -q 'busy.j: in use by another rxlock.*do not remove' "$TMP/.err"
kill -INT $pid 2>/dev/null; wait $pid
printf 'rxlock-journal/1\002\000\000\000' > v2.j; head -c 76 /dev/zero >> v2.j
expect_rc 1 "12: a journal of another version" "$R" solve p0.json -o id12 --journal v2.j
check "12: ... names the journal" grep -q 'v2.j: a journal of an unsupported version' "$TMP/.err"
# a journal entry with a wrong chain value (valid checksum): the solver goes
# back to its group's start once, instead of failing every re-run
"$R" lock $W --groups 2 --steps 3000 -o p12.json >/dev/null 2>&1
expect_rc 0 "12: solve journalling wrong chain values (test hook)" env RXLOCK_TEST_JOURNAL_FLIP=1 \
  "$T" solve p12.json -q -o id12f --journal f.j --checkpoint-steps 1000
check "12: the explicit journal is kept" test -s f.j
expect_rc 0 "12: the re-run falls back to the group's start and solves" "$R" solve p12.json -q -o id12g --journal f.j
check "12: ... to the same identity" sh -c "test \"\$(grep '^AGE' id12f)\" = \"\$(grep '^AGE' id12g)\""

# --- 13. small ones ----------------------------------------------------------
expect_rc 2 "13: --rate 0.0001 refused" "$R" lock $W --time 1d --rate 0.0001 -o r13.json
check "13: ... saying why" grep -q "below 0.001" "$TMP/.err"
expect_rc 2 "13: --time 1s --rate 0.5 --groups 2 refused" "$R" lock $W --time 1s --rate 0.5 --groups 2 -o r13.json
check "13: ... saying why" grep -q "fewer than --groups 2" "$TMP/.err"
{ grep '^AGE-SECRET' "$V1/identity.txt" | tr -d '\n'; printf '\000junk\n'; } > nul.id
"$R" encrypt -r "$(cat "$V1/recipient.txt")" -o e13.age s.orig
expect_rc 1 "13: an identity line followed by NUL refused" "$R" decrypt -i nul.id -o d13 e13.age
(umask 077; "$R" lock $W --groups 1 --steps 1 -o um.json >/dev/null)
check "13: public outputs honour the umask (077 -> 600)" test "$(stat -c %a um.json)" = 600

# @@END
summary
