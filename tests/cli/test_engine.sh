# SPDX-License-Identifier: ISC
# tests/cli/test_engine.sh — no silent engine fallback.  With a JIT failure
# injected (RXLOCK_TEST_JIT_FAIL=1, test build only): an explicitly
# required JIT (RXLOCK_ENGINE=jit) is an error with a clear one-line message
# and leaves no file; the automatic choice prints exactly one warning line
# naming the reason and still gives the right result.  The engine that ran
# is reported by hash -v, calibrate (in the file), lock / solve --json.
. tests/cli/lib.sh
cd "$TMP" || exit 1
T=$RXLOCK_TESTBIN
key=74657374206b657920303030
in=5468697320697320612074657374
v2=22ec6b861b3eb23686b2efbad69513c967ecfce80983df66c9c5b4fbfb4cdb6f
one_line() { test "$(wc -l < "$TMP/.err")" -eq 1; }
jit_here=0; case "$(uname -m)" in x86_64|aarch64) jit_here=1;; esac

# --- hash ---------------------------------------------------------------------
RXLOCK_TEST_JIT_FAIL=1 expect_rc 0 "hash: automatic fallback works" "$T" hash --key $key --input $in
check "hash fallback: right digest" test "$(cat "$TMP/.out")" = "$v2"
check "hash fallback: one warning line" one_line
check "hash fallback: names the reason" grep -q 'warning: the RandomX JIT is unavailable (injected test fault' "$TMP/.err"
RXLOCK_TEST_JIT_FAIL=1 RXLOCK_ENGINE=jit expect_rc 1 "hash: required JIT that cannot start fails" "$T" hash --key $key --input $in
check "hash required: nothing on stdout" test ! -s "$TMP/.out"
check "hash required: one line" one_line
check "hash required: clear message" grep -q 'the RandomX JIT cannot start: .*RXLOCK_ENGINE=jit requires it' "$TMP/.err"
RXLOCK_ENGINE=interp expect_rc 0 "hash -v interpreter" "$T" hash -v --key $key --input $in
check "hash -v names the interpreter" grep -q 'engine: interpreter, .* AES, light mode, RandomX v2' "$TMP/.err"
if [ $jit_here -eq 1 ]; then
  expect_rc 0 "hash -v jit" "$T" hash -v --key $key --input $in
  check "hash -v names the JIT" grep -q 'engine: jit[ ,]' "$TMP/.err"
  check "hash -v: no warning" test "$(wc -l < "$TMP/.err")" -eq 1
  RXLOCK_TEST_JIT_FAIL=1 expect_rc 0 "shipping binary has no JIT fault switch" "$RXLOCK" hash -v --key $key --input $in
  check "shipping binary: still the JIT" grep -q 'engine: jit[ ,]' "$TMP/.err"
fi

# --- calibrate: the file records the engine that ran -------------------------
RXLOCK_TEST_JIT_FAIL=1 expect_rc 0 "calibrate: fallback" "$T" calibrate --work randomx-v2 --mode light --seconds 0.1 -o fb.json
check "calibrate fallback: one JIT warning" test "$(grep -c 'warning: the RandomX JIT' "$TMP/.err")" -eq 1
check "calibrate light: says it cannot size a puzzle" grep -q 'warning: a light-mode calibration cannot size a RandomX puzzle' "$TMP/.err"
check "calibrate fallback: file says interpreter" python3 -c '
import json, sys; d = json.load(open("fb.json"))
assert list(d) == ["rxlock_calibration", "work", "mode", "engine", "aes", "rate", "rate_min", "rate_max",
                   "seconds", "cpu", "created", "setup_seconds", "windows", "load_average"], list(d)
assert d["engine"] == "interpreter" and d["mode"] == "light" and d["aes"] in ("hardware", "software"), d'
check "calibrate fallback: report says interpreter" grep -q 'randomx-v2, interpreter, ' "$TMP/.out"
RXLOCK_TEST_JIT_FAIL=1 RXLOCK_ENGINE=jit expect_rc 1 "calibrate: required JIT fails" "$T" calibrate --work randomx-v2 --mode light --seconds 0.1 -o req.json
check "calibrate required: no file" test ! -e req.json
check "calibrate required: clear message" grep -q 'JIT cannot start' "$TMP/.err"
if [ $jit_here -eq 1 ]; then
  expect_rc 0 "calibrate jit --json" "$T" calibrate --work randomx-v2 --mode light --seconds 0.1 -o jit.json --json
  check "calibrate: file says jit" grep -q '"engine": "jit"' jit.json
  check "calibrate --json: engine jit, no fallback" grep -q '"engine":"jit".*"fallback":null' "$TMP/.out"
  # the promise: a light-mode rate never sizes a RandomX puzzle
  expect_rc 1 "lock refuses a light-mode calibration" "$T" lock --work randomx-v2 --mode light --time 5s --calibration jit.json --groups 1 -o pj.json
  check "light refusal: says why" grep -q 'a light-mode rate .* cannot size a RandomX puzzle: anyone with 2.3 GiB' "$TMP/.err"
  check "light refusal: says by how much" grep -q '2.7-4.5x faster (recorded), so it would open in as little as' "$TMP/.err"
  check "light refusal: nothing written" test ! -e pj.json
  # (the setup is set to 1 s: a loaded machine's light-mode cache build can
  # take more than the 5 s --time below, which would then be refused)
  sed 's/"mode": "light"/"mode": "full"/; s/"setup_seconds": [0-9.e+-]*/"setup_seconds": 1/' jit.json > jitf.json
  expect_rc 0 "lock with a full-mode jit calibration" "$T" lock --work randomx-v2 --mode light --time 5s --calibration jitf.json --groups 1 -o pj.json
  check "rate source names mode and engine" grep -q '"rate_source": "calibration (full, jit)"' pj.json
  check "rate mode recorded" grep -q '"rate_mode": "full"' pj.json
fi

# --- lock / solve: start event and final report name the engine --------------
RXLOCK_TEST_JIT_FAIL=1 RXLOCK_ENGINE=jit expect_rc 1 "lock: required JIT fails" "$T" lock --work randomx-v2 --mode light --groups 1 --steps 2 -q -o no.json
check "lock required: no puzzle" test ! -e no.json
check "lock required: clear message" grep -q 'JIT cannot start' "$TMP/.err"
check "lock required: one line" one_line
RXLOCK_TEST_JIT_FAIL=1 expect_rc 0 "lock: fallback" "$T" lock --work randomx-v2 --mode light --groups 1 --steps 2 --workers 1 --json -o p.json
check "lock fallback: one warning" test "$(grep -c 'warning' "$TMP/.err")" -eq 1
check "lock --json start event names the engine" grep -q '^{"event":"start","work":"randomx-v2","engine":"interpreter",.*"mode":"light","fallback":"injected' "$TMP/.out"
check "lock --json done event names the engine" grep -q '"event":"done".*"engine":"interpreter"' "$TMP/.out"
RXLOCK_TEST_JIT_FAIL=1 RXLOCK_ENGINE=jit expect_rc 1 "solve: required JIT fails" "$T" solve p.json --mode light -o id.txt
check "solve required: no identity, no journal" test ! -e id.txt -a ! -e id.txt.journal
check "solve required: clear message" grep -q 'JIT cannot start' "$TMP/.err"
RXLOCK_TEST_JIT_FAIL=1 expect_rc 0 "solve: fallback" "$T" solve p.json --mode light --json -o id.txt
check "solve fallback: one warning" test "$(wc -l < "$TMP/.err")" -eq 1 -a "$(grep -c 'warning: the RandomX JIT' "$TMP/.err")" -eq 1
check "solve --json start event" grep -q '^{"event":"start","work":"randomx-v2","engine":"interpreter"' "$TMP/.out"
check "solve --json done event names the engine" grep -q '"event":"done".*"engine":"interpreter"' "$TMP/.out"
check "solve fallback: identity written" grep -q '^AGE-SECRET-KEY-1' id.txt
if [ $jit_here -eq 1 ]; then
  expect_rc 0 "solve jit" "$T" solve p.json --mode light -o id2.txt
  check "solve: summary names the jit and its install" grep -qE 'jit \(install: (proc-mem|mprotect)\), .* AES, light mode' "$TMP/.err"
  check "solve jit: no warning" sh -c "! grep -q warning '$TMP/.err'"
  # --jit-install before the command forces the flips for that run (as
  # RXLOCK_JIT_INSTALL=mprotect); the summary names what ran
  expect_rc 0 "--jit-install mprotect solve" "$T" --jit-install mprotect solve p.json --mode light -o id3.txt
  check "--jit-install mprotect: the summary says mprotect" grep -q 'jit (install: mprotect), .* AES, light mode' "$TMP/.err"
  check "--jit-install mprotect: the same identity" sh -c 'grep -v "^#" id2.txt > k2; grep -v "^#" id3.txt > k3; cmp -s k2 k3'
  expect_rc 0 "--jit-install=mprotect hash -v" "$T" --jit-install=mprotect hash -v --key 00 --input 616263
  check "hash -v names the forced install" grep -q 'engine: jit (install: mprotect)' "$TMP/.err"
fi
expect_rc 2 "--jit-install with a bad value" "$T" --jit-install rwx solve p.json -o x.txt
check "--jit-install: says what it wants" grep -q "want mprotect or proc-mem" "$TMP/.err"
expect_rc 2 "--jit-install without a value" "$T" --jit-install

# --- the promise: the one mode policy (the test build's low-memory switch) ------
lowmem='warning: full mode needs 2.3 GiB, not available here (RXLOCK_TEST_LOWMEM=1): using light mode, 2.7-4.5x slower'
RXLOCK_TEST_LOWMEM=1 expect_rc 0 "solve, low memory: light" "$T" solve p.json -o lm1.txt
check "solve, low memory: one warning line" test "$(grep -c "$lowmem" "$TMP/.err")" -eq 1
check "solve, low memory: ran light" grep -q ', light mode' "$TMP/.err"
RXLOCK_TEST_LOWMEM=1 expect_rc 0 "solve, low memory, --mode light: no warning" "$T" solve p.json --mode light -o lm2.txt
check "forced mode: no low-memory warning" sh -c "! grep -q 'full mode needs' '$TMP/.err'"
RXLOCK_TEST_LOWMEM=1 expect_rc 0 "calibrate, low memory: light" "$T" calibrate --work randomx-v2 --seconds 0.1 -o lm.json
check "calibrate, low memory: warning line" grep -q "$lowmem" "$TMP/.err"
check "calibrate, low memory: file says light" grep -q '"mode": "light"' lm.json
RXLOCK_TEST_LOWMEM=1 expect_rc 0 "lock, low memory: light generation" "$T" lock --work randomx-v2 --groups 1 --steps 2 --workers 1 --json -o lm.json2
check "lock, low memory: warning line" grep -q "$lowmem" "$TMP/.err"
check "lock, low memory: start event says light" grep -q '"mode":"light"' "$TMP/.out"
RXLOCK_TEST_LOWMEM=1 expect_rc 0 "inspect, low memory: light estimate" "$T" inspect p.json --pretty
check "inspect, low memory: warning line" grep -q "$lowmem" "$TMP/.err"
check "inspect, low memory: estimate mode light" grep -q '"estimate_mode": "light"' "$TMP/.out"
RXLOCK_TEST_LOWMEM=1 expect_rc 0 "sha3, low memory: no warning (no mode)" "$T" calibrate --work sha3-256 --seconds 0.1 -o lm3.json
check "sha3: no low-memory warning" sh -c "! grep -q 'full mode needs' '$TMP/.err'"

# SHA3: no engine, AES or mode keys (they mean nothing there)
expect_rc 0 "sha3 lock --json" "$T" lock --work sha3-256 --groups 1 --steps 10 --json -o sha.json
check "sha3 start event: only the work" grep -qx '{"event":"start","work":"sha3-256"}' "$TMP/.out"
expect_rc 0 "sha3 solve --json" "$T" solve sha.json --json -o sha.txt
check "sha3 done event: no engine key" sh -c "grep '\"event\":\"done\"' '$TMP/.out' | grep -vq engine"

# --- unlock -------------------------------------------------------------------
printf 'secret\n' > s.txt
expect_rc 0 "lock FILE randomx" "$T" lock s.txt --work randomx-v2 --mode light --groups 1 --steps 2 --workers 1 -q
RXLOCK_TEST_JIT_FAIL=1 RXLOCK_ENGINE=jit expect_rc 1 "unlock: required JIT fails" "$T" unlock s.txt.rxlock --mode light -o s.out -q
check "unlock required: no output, no journal" test ! -e s.out -a ! -e s.txt.rxlock.journal
check "unlock required: clear message" grep -q 'JIT cannot start' "$TMP/.err"
RXLOCK_TEST_JIT_FAIL=1 expect_rc 0 "unlock: fallback" "$T" unlock s.txt.rxlock --mode light -o s.out
check "unlock fallback: one warning" test "$(grep -c 'warning' "$TMP/.err")" -eq 1
check "unlock fallback: plaintext" cmp -s s.out s.txt
check "unlock summary names the engine" grep -q 'wrote s.out (2 hashes computed, interpreter, .* AES, light mode)' "$TMP/.err"
RXLOCK_TEST_LOWMEM=1 expect_rc 0 "unlock, low memory: light" "$T" unlock s.txt.rxlock -o s.lm
check "unlock, low memory: one warning line" test "$(grep -c "$lowmem" "$TMP/.err")" -eq 1
check "unlock, low memory: plaintext" cmp -s s.lm s.txt
check "RandomX notice: names the mode policy" grep -q '^# The command above runs RandomX in full mode when 2.3 GiB of memory' s.txt.rxlock
summary
