# SPDX-License-Identifier: ISC
# tests/cli/test_state_attacks.sh — a generation state or plan directory
# that was tampered with can only make a run fail, never make it write
# elsewhere, hang, or publish something broken: a symbolic link planted as
# a segment file (nothing truncated through it), a symbolic link
# puzzle.json faking a finished run, a FIFO as a job or segment file (no
# hang), a changed checkpoint_steps in state.json (refused: MAC), a
# damaged finished container (written again from the state), a state of
# another lock (named, no "invalid argument"), a lost segment file beside
# a valid result (the group task computes it again).
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
SHIM=${RXLOCK_SHIM:-$(dirname "$RXLOCK_TESTBIN")/tests/killshim.so}
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff
L="--work sha3-256 --groups 2 --steps 3000 --checkpoint-steps 1000 --workers 2 --verify=full -q"
# killed_state OUT: a `lock -o OUT` stopped after it recorded its first segments
killed_state() {
  if [ -f "$SHIM" ]; then (LD_PRELOAD=$SHIM RXLOCK_SHIM_KILL=45 "$R" lock $L -o "$1" >/dev/null 2>&1) 2>/dev/null
  else "$R" lock $L -o "$1" >/dev/null 2>&1 & _p=$!; sleep 0.3; kill -9 $_p; wait $_p 2>/dev/null; fi
  [ -d "$1.state" ] && [ -f "$1.state/plan.json" ]; }

# --- a symbolic link planted as a segment file: nothing truncated through it --
check "a stopped lock leaves a state" killed_state S.json
printf 'victim: not a record; a cut would shorten it\n' > victim
cp victim victim.orig
rm -f S.json.state/results/group-0001.segs
ln -s ../../victim S.json.state/results/group-0001.segs
expect_rc 1 "segment file a symbolic link: the run fails" "$R" lock $L -o S.json
check "  the linked file is untouched" cmp -s victim victim.orig
check "  no puzzle published" test ! -e S.json
check "  the message names the way out" grep -q 'remove\|lock failed' "$TMP/.err"
rm -rf S.json.state

# --- a symbolic link puzzle.json does not fake a finished run --------------------
"$R" lock $L -o P.json >/dev/null 2>&1
check "a finished puzzle" test -s P.json
check "a second lock stopped" killed_state Q.json
cp P.json Q.json
ln -s ../Q.json Q.json.state/puzzle.json
expect_rc 1 "puzzle.json a symbolic link: refused" "$R" lock $L -o Q.json
check "  says why" grep -q 'puzzle.json: a symbolic link (refused)' "$TMP/.err"
check "  the state (its epoch secret) is kept" test -f Q.json.state/plan.secrets -a -f Q.json.state/planner.key
rm -rf Q.json Q.json.state

# --- state.json is authenticated ------------------------------------------------
check "a third lock stopped" killed_state T.json
sz=$(cat T.json.state/results/group-*.segs | wc -c)
sed 's/"checkpoint_steps": [0-9]*/"checkpoint_steps": 7/' T.json.state/state.json > st && cat st > T.json.state/state.json
expect_rc 1 "a changed checkpoint_steps: refused" "$R" lock $L -o T.json
check "  names state.json" grep -q 'state.json: modified or damaged' "$TMP/.err"
check "  no segment record cut" test "$(cat T.json.state/results/group-*.segs | wc -c)" -eq "$sz"
check "  no 'I/O error' or 'invalid argument' line" sh -c "! grep -qi 'I/O error\|invalid argument' '$TMP/.err'"
rm -rf T.json.state

# --- a state of another lock: named -------------------------------------------------
check "a fourth lock stopped" killed_state U.json
expect_rc 1 "other parameters: refused" "$R" lock --work sha3-256 --groups 3 --steps 3000 -q -o U.json
check "  names the other lock" grep -q 'holds the state of another lock' "$TMP/.err"
check "  no 'invalid argument' line" sh -c "! grep -qi 'invalid argument' '$TMP/.err'"
rm -rf U.json.state

# --- a damaged finished container is written again, never linked --------------------
head -c 50000 /dev/urandom > data.bin
RXLOCK_TEST_KILL_AT=lockfile-written expect_rc 137 "lock FILE stopped with its container in the state" "$R" lock data.bin $L -o C.rxlock
c=C.rxlock.state/container.rxlock
head -c $(( $(wc -c < $c) - 100 )) $c > cut && cat cut > $c
expect_rc 0 "a truncated container: the re-run succeeds" "$R" lock data.bin $L -o C.rxlock
check "  says it was damaged" grep -q 'container.rxlock: damaged' "$TMP/.err"
check "  the container opens" sh -c "'$R' unlock C.rxlock -o opened -q >/dev/null 2>&1 && cmp -s opened data.bin"
check "  no state left" test ! -e C.rxlock.state

# --- a FIFO in a plan: no hang -------------------------------------------------------
mkdir keys
"$R" plan --work sha3-256 --groups 2 --steps 3000 --verify=full --checkpoint-steps 1000 --planner-key keys/p.key \
  --worker-key keys/w.key -o PL >/dev/null 2>&1
check "a plan" test -f PL/plan.json
rm -f PL/jobs/group-0001.job; mkfifo PL/jobs/group-0001.job
expect_rc 1 "a FIFO job file: refused, no hang" timeout 20 "$R" group PL 0 --worker-key keys/w.key -q
mkfifo PL/results/group-0002.segs
expect_rc 1 "a FIFO segment file: refused, no hang" timeout 20 "$R" group PL 1 --worker-key keys/w.key -q
check "  names the directory and the way out" grep -q 'group 2: its records in PL/results/ cannot be read .*remove it and run the task again' "$TMP/.err"

# --- a lost segment file beside a valid result: the group task computes again ---
"$R" plan --work sha3-256 --groups 2 --steps 3000 --verify=full --checkpoint-steps 1000 --planner-key keys/p2.key \
  --worker-key keys/w2.key -o PM >/dev/null 2>&1
"$R" group PM 0 --worker-key keys/w2.key -q >/dev/null 2>&1; "$R" group PM 1 --worker-key keys/w2.key -q >/dev/null 2>&1
check "group tasks done" test -f PM/results/group-0001.result -a -f PM/results/group-0001.segs
rm PM/results/group-0001.segs
expect_rc 0 "the group task again" "$R" group PM 0 --worker-key keys/w2.key -q
check "  recorded the segments again" test -s PM/results/group-0001.segs
expect_rc 0 "then verification task 0" "$R" group --verify PM 0 --worker-key keys/w2.key -q
expect_rc 0 "and verification task 1" "$R" group --verify PM 1 --worker-key keys/w2.key -q
expect_rc 0 "and assemble" "$R" assemble PM --planner-key keys/p2.key -o M.json
summary
