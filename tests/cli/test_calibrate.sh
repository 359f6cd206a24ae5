# SPDX-License-Identifier: ISC
# tests/cli/test_calibrate.sh — `rxlock calibrate` round trip on sha3-256
# (~1 s): file written with exactly the agreed keys (version 2: no mode /
# engine / aes for SHA3), no clobber without --force, --json, -o -, usage
# errors; version-1 files still accepted by lock --calibration.
. tests/cli/lib.sh
OUT=$TMP/cal.json
expect_rc 0 "calibrate sha3-256 1 s" "$RXLOCK" calibrate --work sha3-256 --seconds 1 -o "$OUT"
check "prints the rate" grep -q '^rate: .* H/s' "$TMP/.out"
check "says where it wrote" grep -q "wrote $OUT" "$TMP/.out"
check "states a faster machine solves sooner" grep -q 'faster machine solves sooner' "$TMP/.out"
check "names the sizing statistic (typical, not the fastest window)" grep -q '^sizing rate: .* (the mean over the run: "about T" is the expected time; the floor bounds "no sooner than")' "$TMP/.out"
check "no progress line on a pipe" sh -c "! grep -q '^calibrate:' '$TMP/.err'"
check "file exists" test -s "$OUT"
check "file has exactly the agreed keys and sane values" python3 - "$OUT" <<'PY'
import json, sys, re
d = json.load(open(sys.argv[1]))
assert list(d) == ["rxlock_calibration", "work", "rate", "rate_min", "rate_max",
                   "seconds", "cpu", "created", "setup_seconds", "windows", "load_average"], list(d)
assert d["rxlock_calibration"] == 6 and d["work"] == "sha3-256"
assert d["setup_seconds"] >= 0 and d["windows"] >= 3
assert 0 < d["rate_min"] <= d["rate"] <= d["rate_max"], d
assert 0.9 < d["seconds"] < 5, d
assert isinstance(d["cpu"], str) and d["cpu"]
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", d["created"]), d["created"]
PY
cp "$OUT" "$TMP/orig.json"
expect_rc 1 "no clobber without --force" "$RXLOCK" calibrate --work sha3-256 --seconds 0.1 -o "$OUT"
check "refusal names --force" grep -q -- '--force' "$TMP/.err"
check "file untouched" cmp -s "$OUT" "$TMP/orig.json"
expect_rc 0 "--force --json" "$RXLOCK" calibrate --work sha3-256 --seconds 0.1 -o "$OUT" --force --json
check "--json is one JSON object with file and hashes" python3 -c '
import json, sys
d = json.loads(open(sys.argv[1]).read())
assert d["output"] == sys.argv[2] and d["hashes"] > 0 and d["rxlock_calibration"] == 6
assert d["placement_spread"] == 0 and "allocations" not in d
assert d["sizing_statistic"] == "the mean over the run" and d["sizing_rate"] == d["rate"] and 0 <= d["spread"] < 1
assert "mode" not in d and "engine" not in d and d["fallback"] is None' "$TMP/.out" "$OUT"
check "file replaced" sh -c '! cmp -s "$1" "$2"' sh "$OUT" "$TMP/orig.json"
expect_rc 0 "-o - to stdout" "$RXLOCK" calibrate --work sha3-256 --seconds 0.1 -o -
check "-o - prints the calibration object" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); assert d["work"] == "sha3-256"' "$TMP/.out"
expect_rc 0 "--progress forces the progress line" "$RXLOCK" calibrate --work sha3-256 --seconds 0.1 -o - --progress
check "progress line on stderr" grep -q '^calibrate: .*H/s' "$TMP/.err"
# an old (version 1) file, with the "mode" SHA3 never used, still sizes a puzzle
printf '{"rxlock_calibration": 1, "work": "sha3-256", "mode": "light", "rate": 1000.0, "rate_min": 900.0, "rate_max": 1100.0, "seconds": 5.0, "cpu": "test", "created": "2026-01-01T00:00:00Z"}\n' > "$TMP/v1.json"
expect_rc 0 "version-1 file accepted" "$RXLOCK" lock --work sha3-256 --time 2s --calibration "$TMP/v1.json" --groups 1 -o "$TMP/p.json"
check "rate source without a SHA3 mode" grep -q '"rate_source": "calibration"' "$TMP/p.json"
# the promise: a noisy run is warned about with what to do (the test build
# stretches one window to twice its time, as a busy machine would)
if [ -n "${RXLOCK_TESTBIN:-}" ]; then
  expect_rc 0 "a slow window (test build)" env RXLOCK_TEST_CAL_SLOW_WINDOW=1 "$RXLOCK_TESTBIN" calibrate --work sha3-256 --seconds 1 -o "$TMP/slow.json" --force --json
  check "the spread warning names the spread and what to do" grep -q 'warning: the windows differ by [0-9]*% (over 10%).*calibrate again, longer' "$TMP/.err"
  check "--json reports the spread over 10%" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); assert d["spread"] > 0.10, d' "$TMP/.out"
  expect_rc 0 "a steady run (test build)" "$RXLOCK_TESTBIN" calibrate --work sha3-256 --seconds 1 -o "$TMP/slow.json" --force --json
  check "a v6 file without dataset_huge_pages or allocations for sha3" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); assert d["rxlock_calibration"] == 6 and "dataset_huge_pages" not in d and "allocations" not in d' "$TMP/.out"
fi
# the promise: full-mode RandomX measures several placements of the dataset
for n in 0 9 x 1.5; do
  expect_rc 2 "--allocations $n refused" "$RXLOCK" calibrate --allocations "$n"
  check "--allocations $n: the refusal says the range" grep -q -- "--allocations '$n': need a whole number 1..8" "$TMP/.err"
done
expect_rc 0 "--allocations with sha3 (no dataset: ignored)" "$RXLOCK" calibrate --work sha3-256 --allocations 3 --seconds 0.1 -o -
check "sha3: no allocations recorded" sh -c '! grep -q allocations "$1"' sh "$TMP/.out"
# a calibration whose placements differed: lock says how much longer a solve can take
printf '{"rxlock_calibration": 5, "work": "randomx-v2", "mode": "full", "engine": "jit", "aes": "hardware", "rate": 115.0, "rate_min": 95.0, "rate_max": 130.0, "seconds": 8.0, "cpu": "test", "created": "2026-01-01T00:00:00Z", "setup_seconds": 0.5, "windows": 8, "load_average": 0.1, "dataset_huge_pages": 1.0, "allocations": 4, "allocation_rates": [100.0, 125.0, 110.0, 120.0], "window_spread": 0.04}\n' > "$TMP/v5.json"
expect_rc 0 "lock from a version-5 calibration" "$RXLOCK" lock --work randomx-v2 --mode light --time 1s --calibration "$TMP/v5.json" --groups 1 -o "$TMP/p5.json"
check "lock notes the placement spread and what it means" grep -q 'note: the calibration.s 4 placements of the dataset differed by 20%: a solve on that machine can take up to about 25% longer' "$TMP/.err"
check "sized with the best placement's mean (125 H/s x 0.5 s hashing; not the fastest window, 130)" python3 -c '
import json, sys; d = json.load(open(sys.argv[1])); assert d["groups"] * d["steps"] == 63, d' "$TMP/p5.json"
if [ "${RXLOCK_TEST_FULL:-0}" = 1 ]; then   # make check-full: the real 2080 MiB dataset, copied
  expect_rc 0 "full mode, 2 placements" "$RXLOCK" calibrate --mode full --allocations 2 --seconds 2 -o "$TMP/full.json"
  check "the placements line" grep -q '^placements: 2 copies of the cache + dataset in RAM, .* H/s (.*% apart); windows inside one differ by up to' "$TMP/.out"
  check "sized with the best placement's mean" grep -q "^sizing rate: .* (the best placement's mean" "$TMP/.out"
  check "version 6 keys, 2 placement rates, 4 windows" python3 - "$TMP/full.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rxlock_calibration"] == 6 and d["mode"] == "full", d
assert d["engine"] != "jit" or d["jit_install"] in ("proc-mem", "mprotect"), d
assert list(d)[-4:] == ["dataset_huge_pages", "allocations", "allocation_rates", "window_spread"], list(d)
assert d["allocations"] == 2 and len(d["allocation_rates"]) == 2 and d["windows"] == 4, d
assert all(0 < r <= d["rate_max"] for r in d["allocation_rates"]) and 0 <= d["window_spread"] < 1, d
assert min(d["allocation_rates"]) <= d["rate"] <= max(d["allocation_rates"]) * 1.000001, d
PY
  if [ -n "${RXLOCK_TESTBIN:-}" ]; then
    expect_rc 0 "no room for a copy: one placement (test build)" env RXLOCK_TEST_LOWMEM=1 "$RXLOCK_TESTBIN" calibrate --mode full --seconds 1 -o "$TMP/low.json" --json
    check "one placement recorded" python3 -c '
import json, sys; d = json.loads(open(sys.argv[1]).read().splitlines()[-1]); assert d["allocations"] == 1 and len(d["allocation_rates"]) == 1 and d["placement_spread"] == 0, d' "$TMP/.out"
  fi
else
  echo "SKIP the full-mode placements (RXLOCK_TEST_FULL=1, make check-full)" >&2
fi
# without -o: the saved calibration under $XDG_STATE_HOME (lib.sh: a private
# one), replaced by each run, read by lock (about T here) and inspect
expect_rc 0 "calibrate without -o" "$RXLOCK" calibrate --work sha3-256 --seconds 0.1
SAVED=$XDG_STATE_HOME/rxlock/calibration-sha3-256.json
check "the saved calibration written" test -s "$SAVED"
check "says it is the saved calibration" grep -qF "wrote $SAVED (the saved calibration: lock, plan and inspect read it)" "$TMP/.out"
check "its directory is private (0700)" sh -c '[ "$(stat -c %a "$1")" = 700 ]' sh "$XDG_STATE_HOME/rxlock"
cp "$SAVED" "$TMP/saved1.json"
expect_rc 0 "calibrate without -o again: replaced, no --force needed" "$RXLOCK" calibrate --work sha3-256 --seconds 0.1
check "the saved calibration replaced" sh -c '! cmp -s "$1" "$2"' sh "$SAVED" "$TMP/saved1.json"
expect_rc 0 "lock --time alone reads it" "$RXLOCK" lock --work sha3-256 --time 1s --groups 1 --dry-run
check "lock: the saved calibration's rate for about T" grep -q '^assumed rate:  .*H/s (saved calibration) measured on ' "$TMP/.out"
check "lock: the generation estimate from it" grep -q '^generation:    .* each (the saved calibration of ' "$TMP/.out"
expect_rc 0 "lock --groups --steps" "$RXLOCK" lock --work sha3-256 --groups 1 --steps 1000 -o "$TMP/ps.json"
check "the puzzle records the saved rate" grep -q '"rate_source": "saved calibration"' "$TMP/ps.json"
expect_rc 0 "inspect reads it" "$RXLOCK" inspect "$TMP/ps.json"
check "inspect: the saved calibration, nothing measured" grep -q '^this machine:  .*H/s (.*the saved calibration on .*, typical rate) -> about' "$TMP/.out"
expect_rc 2 "no XDG_STATE_HOME, no HOME: give -o" env -u XDG_STATE_HOME -u HOME "$RXLOCK" calibrate --work sha3-256 --seconds 0.1
check "says to give -o" grep -q 'neither XDG_STATE_HOME nor HOME is set: give -o FILE' "$TMP/.err"
printf 'not json\n' > "$SAVED"
expect_rc 0 "a broken saved calibration is ignored" "$RXLOCK" lock --work sha3-256 --time 1s --groups 1 --dry-run
check "with a warning" grep -q 'warning: the saved calibration does not load' "$TMP/.err"
check "and no rate" grep -q '^assumed rate:  none' "$TMP/.out"
rm -f "$SAVED"
expect_rc 2 "unknown work" "$RXLOCK" calibrate --work md5
expect_rc 2 "unknown mode" "$RXLOCK" calibrate --mode medium
expect_rc 2 "bad seconds" "$RXLOCK" calibrate --seconds 0
expect_rc 2 "bad seconds text" "$RXLOCK" calibrate --seconds 1x
expect_rc 2 "unknown flag" "$RXLOCK" calibrate --frob
check "unknown flag: one line" test "$(wc -l < "$TMP/.err")" -eq 1
expect_rc 2 "stray argument" "$RXLOCK" calibrate extra
summary
