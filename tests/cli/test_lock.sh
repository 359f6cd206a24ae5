# SPDX-License-Identifier: ISC
# tests/cli/test_lock.sh — lock / solve / inspect / verify / keygen-signer
# end to end with the sha3-256 work function (and RandomX light when the
# engine reproduces the reference vector): round trips, signatures and pins,
# no-clobber outputs, --time, deterministic worker-count independence,
# worker faults, SIGINT, and bad / tampered puzzles.
. tests/cli/lib.sh
cd "$TMP" || exit 1
R=$RXLOCK
one_line() { test "$(wc -l < "$TMP/.err")" -eq 1; }
idline() { grep '^AGE-SECRET-KEY-1' "$1"; }
publine() { sed -n 's/^# public key: //p' "$1"; }
# flip FIELD N FILE: change the first hex digit of the Nth "FIELD": "..." value
flip() { awk -v f="\"$1\": \"" -v want="$2" 'BEGIN{n=0} index($0,f){n++; if(n==want){ i=index($0,f)+length(f); c=substr($0,i,1); r=(c=="0")?"1":"0"; $0=substr($0,1,i-1) r substr($0,i+1)}} {print}' "$3"; }

# --- round trip, unsigned -------------------------------------------------
expect_rc 0 "lock sha3" "$R" lock --work sha3-256 --groups 3 --steps 2000 --workers 2 -o p1.json
rcp=$(cat "$TMP/.out")
check "lock prints an age recipient" sh -c "echo '$rcp' | grep -q '^age1'"
expect_rc 0 "verify unsigned" "$R" verify p1.json
expect_rc 0 "inspect" "$R" inspect p1.json
check "inspect shows work" grep -q 'sha3-256, 3 groups x 2000 steps' "$TMP/.out"
expect_rc 0 "inspect --json" "$R" inspect --pretty --no-estimate p1.json
check "inspect --json total" grep -q '"total_hashes": 6000' "$TMP/.out"
expect_rc 0 "solve" "$R" solve p1.json -o id1.txt
check "identity matches recipient" test "$(publine id1.txt)" = "$rcp"
check "identity line" sh -c "grep -q '^AGE-SECRET-KEY-1' id1.txt"
check "identity mode 0600" test "$(stat -c %a id1.txt)" = 600
check "journal removed after success" test ! -e id1.txt.journal
expect_rc 1 "solve refuses to overwrite" "$R" solve p1.json -o id1.txt
check "overwrite: one line" one_line
expect_rc 0 "solve --force" "$R" solve p1.json -o id1.txt --force
expect_rc 0 "solve --json, a quote in the path" "$R" solve p1.json --json -o 'q"1.txt'
check "--json lines are valid JSON" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
assert ev[0] == {"event": "start", "work": "sha3-256"} and ev[-1]["output"] == "q\"1.txt", ev' "$TMP/.out"
expect_rc 1 "lock refuses to overwrite" "$R" lock --work sha3-256 --groups 1 --steps 5 -o p1.json
check "lock overwrite: one line" one_line

# --- signed, pins -----------------------------------------------------------
expect_rc 0 "keygen-signer" "$R" keygen-signer -o signer.key
pin=$(cat "$TMP/.out")
check "signer key mode 0600" test "$(stat -c %a signer.key)" = 600
expect_rc 1 "keygen-signer no clobber" "$R" keygen-signer -o signer.key
expect_rc 0 "keygen-signer other" "$R" keygen-signer -o other.key
other=$(cat "$TMP/.out")
expect_rc 0 "lock signed" "$R" lock --work sha3-256 --groups 2 --steps 3000000 --sign-key signer.key -o ps.json
expect_rc 0 "verify signed + pin" "$R" verify ps.json --signer-pin "$pin"
expect_rc 3 "verify wrong pin" "$R" verify ps.json --signer-pin "$other"
expect_rc 3 "verify unsigned with pin" "$R" verify p1.json --signer-pin "$pin"
start=$(date +%s)
expect_rc 3 "solve wrong pin refused" "$R" solve ps.json --signer-pin "$other" -o idw.txt
check "wrong pin: one line" one_line
check "wrong pin: refused before any work (no journal, no identity)" test ! -e idw.txt.journal -a ! -e idw.txt
check "wrong pin: quick" test $(( $(date +%s) - start )) -le 2
expect_rc 2 "bad pin hex" "$R" solve ps.json --signer-pin abc -o idw.txt
flip signature 1 ps.json > psbad.json
cmp -s ps.json psbad.json && fail "signature tamper did not change the file"
expect_rc 3 "bad signature" "$R" verify psbad.json
expect_rc 0 "lock signed small" "$R" lock --work sha3-256 --groups 2 --steps 500 --sign-key signer.key -o ps2.json
expect_rc 0 "solve signed + pin" "$R" solve ps2.json --signer-pin "$pin" -o ids.txt

# --- --time / --rate / --calibration ---------------------------------------
expect_rc 0 "lock --time" "$R" lock --work sha3-256 --time 2s --rate 1000 --groups 4 -o pt.json
expect_rc 0 "inspect --time" "$R" inspect --pretty --no-estimate pt.json
check "--time: G*S = 2000" grep -q '"total_hashes": 2000' "$TMP/.out"
check "--time: rate recorded" grep -q '"assumed_rate": 1000' "$TMP/.out"
check "--time: target recorded" grep -q '"target_seconds": 2' "$TMP/.out"
# --time alone sizes against the floor (built-in sha3-256: the Keccak fast
# core, 20,800,781.25 /s) and records no rate (none was measured here)
expect_rc 0 "--time alone --dry-run" "$R" lock --work sha3-256 --time 1s --groups 1 --dry-run
check "--time alone: G*S = ceil(1 s x the floor)" grep -q '^work:          sha3-256, 1 group x 20800782 steps' "$TMP/.out"
printf 'sha3-256 1000 Tiny\n' > tiny.txt
expect_rc 0 "--time alone" "$R" lock --work sha3-256 --time 2s --floor-table tiny.txt --groups 1 -o pf.json
check "--time alone: no rate recorded, never the floor's" grep -q '"rate_source": "none"' pf.json
check "--time alone: the promise says none was measured" grep -q 'no solver rate recorded; no rate was measured here (`rxlock calibrate` saves one) \[--time is the fastest known hardware.s hashing\]' "$TMP/.err"
expect_rc 0 "inspect --time alone" "$R" inspect --pretty --no-estimate pf.json
check "--time alone: G*S = 2 s x 1000" grep -q '"total_hashes": 2000' "$TMP/.out"
# inspect answers in seconds: without a saved calibration a RandomX full-mode
# estimate is a ~1 s light-mode probe, scaled and labelled (where full mode
# does not fit here, the light mode a solver would run is measured instead)
expect_rc 0 "lock a tiny randomx-v2 puzzle" "$R" lock --work randomx-v2 --mode light --groups 1 --steps 5 -q -o rx5.json
expect_rc 0 "inspect: the quick estimate" "$R" inspect --json rx5.json
check "inspect: probe scaled, or the light mode measured" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); s = d["estimate_source"]
assert s in ("light-mode probe, scaled", "measured"), d
assert s != "light-mode probe, scaled" or (d["estimate_mode"] == "light" and d["estimate_rate_min"] < d["estimate_rate"] and
    abs(d["estimate_rate"] / d["estimate_rate_min"] - 4.5 / 2.7) < 1e-9), d' "$TMP/.out"
expect_rc 0 "inspect: the text names the probe" "$R" inspect rx5.json
check "inspect: labelled" grep -qE '^this machine:  (about .* to solve in full mode, .*: a ~1 s LIGHT-mode probe .* scaled by|.*measured now on )' "$TMP/.out"
expect_rc 2 "inspect --measure --no-estimate" "$R" inspect --measure --no-estimate rx5.json
printf '{"rxlock_calibration": 1, "work": "randomx-v2", "mode": "light", "rate": 20.0, "rate_min": 19.0, "rate_max": 21.0, "seconds": 5.0, "cpu": "test", "created": "2026-01-01T00:00:00Z"}\n' > cal.json
expect_rc 1 "calibration work mismatch" "$R" lock --work sha3-256 --time 7d --calibration cal.json -o x.json
check "mismatch: one line" one_line
sed 's/"randomx-v2"/"sha3-256"/; s/"rate": 20.0/"rate": 1000.0/; s/"rate_min": 19.0/"rate_min": 900.0/; s/"rate_max": 21.0/"rate_max": 1100.0/' cal.json > cal3.json
expect_rc 0 "lock --time --calibration" "$R" lock --work sha3-256 --time 3s --calibration cal3.json --groups 3 -o pc.json
expect_rc 0 "inspect calibration puzzle" "$R" inspect --pretty --no-estimate pc.json
check "--calibration: G*S = 3 s x the typical rate (1000 H/s; not the fastest window, 1100)" grep -q '"total_hashes": 3000' "$TMP/.out"
check "--calibration: source recorded (no mode for SHA3)" grep -q '"rate_source": "calibration"' "$TMP/.out"
expect_rc 2 "missing -o" "$R" lock --work sha3-256 --groups 1 --steps 1
expect_rc 2 "bad groups" "$R" lock --work sha3-256 --groups 0 --steps 1 -o x.json
expect_rc 2 "too many groups" "$R" lock --work sha3-256 --groups 4097 --steps 1 -o x.json
expect_rc 2 "unknown work" "$R" lock --work md5 --groups 1 --steps 1 -o x.json
expect_rc 2 "unknown flag" "$R" lock --frob -o x.json
expect_rc 2 "solve missing puzzle" "$R" solve -o x.txt

# --- deterministic test mode: independent of the worker count --------------
# The shipping binary has no test mode: the same seed gives different puzzles.
RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff expect_rc 0 "product lock ignores test seed (1)" "$R" lock --work sha3-256 --groups 1 --steps 10 -o ts1.json
RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff expect_rc 0 "product lock ignores test seed (2)" "$R" lock --work sha3-256 --groups 1 --steps 10 -o ts2.json
check "product binary: test seed has no effect" sh -c '! cmp -s ts1.json ts2.json'
check "product puzzle not marked test-only" sh -c '! grep -q test_only ts1.json || grep -q "\"test_only\": false" ts1.json'
R=$RXLOCK_TESTBIN   # test build from here to the unset below
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff
for n in 1 2 5; do
  expect_rc 0 "det lock $n workers" "$R" lock --work sha3-256 --groups 5 --steps 20000 --workers $n --keep-epoch-key keep$n.txt -o det$n.json
done
check "1 vs 2 workers: same puzzle" cmp det1.json det2.json
check "1 vs 5 workers: same puzzle" cmp det1.json det5.json
check "kept identity equal" test "$(idline keep1.txt)" = "$(idline keep5.txt)"
expect_rc 0 "det solve" "$R" solve det5.json -o det.txt
check "test-only warned" grep -q 'TEST-ONLY' "$TMP/.err"
check "solved identity = kept identity" test "$(idline det.txt)" = "$(idline keep1.txt)"
expect_rc 0 "inspect test-only" "$R" inspect --no-estimate det1.json
check "inspect flags test-only" grep -q 'TEST-ONLY' "$TMP/.out"

# --- worker faults (test-only injection) and a real kill -9 ---------------
for f in crash:3 garbage:2; do
  RXLOCK_TEST_WORKER_FAULT=$f expect_rc 0 "worker $f re-run" "$R" lock --work sha3-256 --groups 5 --steps 20000 --workers 2 -o f.json
  check "worker $f: same puzzle after re-run" cmp f.json det1.json
  rm -f f.json
done
RXLOCK_TEST_WORKER_FAULT=hang:1 expect_rc 0 "hung worker re-run" "$R" lock --work sha3-256 --groups 5 --steps 20000 --workers 2 --worker-timeout 1 -o f.json
check "hang: same puzzle after re-run" cmp f.json det1.json
rm -f f.json
RXLOCK_TEST_WORKER_FAULT=crash:2:all expect_rc 1 "worker always crashing: fails" "$R" lock --work sha3-256 --groups 5 --steps 20000 --workers 2 -o f.json
check "failed run: no puzzle" test ! -e f.json
check "failed run: no temp files" sh -c '! ls f.json.tmp* 2>/dev/null | grep -q .'
# a fresh start: the failed run's state (PUZZLE.state/) holds the groups it
# finished (with bundled workers, group 4's bundle finishes there), and a
# resumed run would not recompute group 4
rm -rf f.json.state
RXLOCK_TEST_WORKER_FAULT=garbage:4 expect_rc 1 "garbage, no retries: fails" "$R" lock --work sha3-256 --groups 5 --steps 20000 --workers 2 --retries 0 -o f.json
check "garbage failed: no puzzle" test ! -e f.json

# real kill -9 of a worker process: re-run (default) gives the same puzzle
# sized from this machine's rate: ~3 s per group, so kills land mid-run
rate=$("$R" inspect --pretty p1.json 2>/dev/null | sed -n 's/.*"estimate_rate": \([0-9]*\).*/\1/p')
[ -n "$rate" ] || rate=1000000
bigS=$((rate * 3)); [ $bigS -lt 1000000 ] && bigS=1000000
big="--work sha3-256 --groups 2 --steps $bigS --workers 2"
expect_rc 0 "reference big" "$R" lock $big -o ref.json
kill_worker() {   # $1 = output, rest = extra flags; prints the lock's exit code
  out=$1; shift
  "$R" lock $big "$@" -o "$out" >/dev/null 2>"$TMP/kw.err" & lp=$!
  k=0; child=
  while [ $k -lt 100 ] && [ -z "$child" ]; do sleep 0.05; child=$(pgrep -P $lp | head -n 1); k=$((k + 1)); done
  sleep 0.3
  [ -n "$child" ] && kill -9 "$child"
  wait $lp; echo $?
}
check "kill -9 worker: recovered" test "$(kill_worker kw.json)" -eq 0
check "kill -9 worker: same puzzle" cmp kw.json ref.json
check "kill -9 worker: reported" grep -q 'worker for group' "$TMP/kw.err"
check "kill -9 worker, no retries: fails" test "$(kill_worker kw0.json --retries 0)" -eq 1
check "kill -9 worker, no retries: no puzzle" test ! -e kw0.json
# SIGINT to the supervisor: stops all workers, nothing written
"$R" lock $big -o int.json >/dev/null 2>&1 & lp=$!
sleep 0.5; kill -INT $lp; wait $lp; rc=$?
check "SIGINT: exit 130 (128 + SIGINT)" test $rc -eq 130
check "SIGINT: no puzzle" test ! -e int.json
check "SIGINT: no temp files" sh -c '! ls int.json.tmp* 2>/dev/null | grep -q .'
sleep 0.2
check "SIGINT: no workers left" sh -c "! pgrep -P $lp >/dev/null"
unset RXLOCK_TEST_INSECURE RXLOCK_TEST_SEED
R=$RXLOCK

# --- bad input ---------------------------------------------------------------
head -c 300 p1.json > trunc.json
expect_rc 1 "truncated" "$R" verify trunc.json
check "truncated: one line" one_line
expect_rc 1 "truncated solve" "$R" solve trunc.json -o t.txt
check "truncated solve: one line" one_line
{ cat p1.json; head -c 1100000 /dev/zero | tr '\0' ' '; } > big.json
expect_rc 1 "oversized" "$R" verify big.json
check "oversized: one line" one_line
check "oversized: says so" grep -q 'larger than' "$TMP/.err"
# the promise: version-1 puzzles (made before puzzle version 2) still solve
V=${RXLOCK_VECTORS:-$OLDPWD/tests/vectors}
expect_rc 0 "version-1 puzzle: solve" "$R" solve "$V/puzzle-v1.json" -o v1id.txt
check "version-1 puzzle: the identity it was made with" test "$(idline v1id.txt)" = "$(idline "$V/puzzle-v1.identity")"
expect_rc 0 "version-1 puzzle: inspect" "$R" inspect --no-estimate "$V/puzzle-v1.json"
check "version-1 puzzle: inspect says version 1, mode not recorded" sh -c "grep -q '(version 1)' '$TMP/.out' && grep -q 'mode not recorded' '$TMP/.out'"
cp "$V/puzzle-v1.rxlock" v1.rxlock
expect_rc 0 "version-1 container: unlock" "$R" unlock v1.rxlock -q
check "version-1 container: plaintext" sh -c "printf 'version-1 secret\n' | cmp -s - v1"
sed 's/"rxlock_puzzle": 2/"rxlock_puzzle": 3/' p1.json > v3.json
expect_rc 1 "wrong version" "$R" verify v3.json
check "wrong version: one line" one_line
check "wrong version: says so" grep -q 'unsupported puzzle version 3' "$TMP/.err"
sed 's/"steps": 2000/"steps": 2001/' p1.json > th.json
expect_rc 1 "tampered header" "$R" verify th.json
check "tampered header: one line" one_line
expect_rc 1 "tampered header solve" "$R" solve th.json -o t.txt
check "tampered header solve: one line" one_line
# flip one hex digit inside the second wrap's ciphertext
flip ct 2 p1.json > tc.json
cmp -s p1.json tc.json && fail "ciphertext tamper did not change the file"
expect_rc 0 "tampered ciphertext still parses" "$R" verify tc.json
expect_rc 3 "tampered ciphertext solve: a verification failure (3)" "$R" solve tc.json -o t.txt
check "tampered ciphertext: one line" one_line
check "tampered ciphertext: detected at group 2" grep -q 'group 2 of 3' "$TMP/.err"
check "tampered ciphertext: no identity" test ! -e t.txt
echo 'not json' > nj.json
expect_rc 1 "not json" "$R" inspect nj.json
check "not json: one line" one_line
sed 's/"work": "sha3-256",/"work": "sha3-256", "extra": 1,/' p1.json > uk.json
expect_rc 1 "unknown field" "$R" verify uk.json
expect_rc 1 "missing file" "$R" verify nonexistent.json
check "missing file: one line" one_line

# --- RandomX light round trips (when the engine is in) ---------------------
if "$R" hash --v2 --key 74657374206b657920303030 --input 5468697320697320612074657374 2>/dev/null | grep -q '^22ec6b86'; then
  for w in randomx-v2 randomx-v1; do
    expect_rc 0 "lock $w" "$R" lock --work $w --mode light --groups 2 --steps 3 --workers 2 --sign-key signer.key -o rx-$w.json
    expect_rc 0 "solve $w" "$R" solve rx-$w.json --mode light --signer-pin "$pin" -o rx-$w.txt
    check "$w identity matches" test "$(publine rx-$w.txt)" = "$(cat "$TMP/.out" >/dev/null; "$R" inspect --pretty --no-estimate rx-$w.json | sed -n 's/.*"recipient": "\(.*\)".*/\1/p')"
  done
else
  echo "SKIP RandomX round trips: 'rxlock hash --v2' does not reproduce the reference vector yet" >&2
fi
summary
