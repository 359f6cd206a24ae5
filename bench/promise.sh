#!/bin/sh
# SPDX-License-Identifier: ISC
# bench/promise.sh — does a lock keep its promise?
#
#   sh bench/promise.sh [WORK] [TIME]       WORK randomx-v2 (default) | sha3-256 | randomx-v1
#                                           TIME a --time DURATION (default 120s)
#
# 1. `rxlock calibrate --work WORK` with the defaults (mode policy: full when
#    the dataset fits; 10 s in windows; setup timed);
# 2. `rxlock lock FILE --time TIME --calibration cal.json` (its stderr states
#    the promise; the notice too);
# 3. opens the file (a) with the exact command the notice prints, and (b)
#    with `rxlock unlock --mode full`, each in a fresh directory, timing the
#    wall clock of the whole command (setup included);
# 4. prints one JSON line per open: promised (hashing + setup, from the
#    puzzle: inspect --json promise_seconds), measured, ratio measured /
#    promised, and the floor (seconds on the fastest known hardware, the
#    floor table's fastest row of any kind).
# The issue asks every ratio to be within 0.8 .. 1.25.  Timing varies with
# the machine's load: run it on a quiet machine (tests never assert on it).
# Each line also splits the open into setup_s / hash_s (unlock --json), the
# open's hash rate, its dataset's huge-page share, and the calibration's
# rate, setup, huge-page share and placement rates (calibration version 5),
# so a miss can be traced to its cause.
# Environment: RXLOCK (the binary, default ./build/rxlock), PROMISE_DIR (work
# directory, default a temporary one, removed), CAL_SECONDS (calibration
# length, default the CLI's 10), REPS (opens of each kind, alternating,
# default 1), CAL_TRIES (calibrations while one warns, default 1).
set -eu
WORK=${1:-randomx-v2}
TIME=${2:-120s}
RXLOCK=${RXLOCK:-$PWD/build/rxlock}
case $RXLOCK in /*) ;; *) RXLOCK=$PWD/$RXLOCK;; esac
if [ -n "${PROMISE_DIR:-}" ]; then D=$PROMISE_DIR; mkdir -p "$D"; else D=$(mktemp -d); trap 'rm -rf "$D"' EXIT; fi
cd "$D"
now() { date +%s.%N; }
echo "promise.sh: $WORK, --time $TIME, $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg), $RXLOCK" >&2

cal_args=""
[ -n "${CAL_SECONDS:-}" ] && cal_args="--seconds $CAL_SECONDS"
t0=$(now)
# CAL_TRIES=n: calibrate again (up to n runs in all) while it warns, as its
# warnings advise ("calibrate again"); the last run is used either way.
try=0
while :; do
  try=$((try + 1))
  # shellcheck disable=SC2086
  "$RXLOCK" calibrate --work "$WORK" $cal_args -o cal.json --force 2> cal.err >&2
  cat cal.err >&2
  grep -q '^rxlock: warning:' cal.err || break
  [ "$try" -lt "${CAL_TRIES:-1}" ] || break
  echo "promise.sh: calibration $try warned; calibrating again" >&2
done
t1=$(now)
head -c 4096 /dev/urandom > secret.bin
if ! "$RXLOCK" lock secret.bin --work "$WORK" --time "$TIME" --calibration cal.json -o locked.rxlock --force 2> lock.err; then
  cat lock.err >&2
  echo "promise.sh: lock failed (above)" >&2
  exit 1
fi
t2=$(now)
cat lock.err >&2
# the puzzle, out of the container, for inspect --json
n=$(grep -a '^puzzle [0-9]*$' locked.rxlock | head -n 1 | cut -d' ' -f2)
start=$(( $(grep -abo '^puzzle [0-9]*$' locked.rxlock | head -n 1 | cut -d: -f1) + 8 + ${#n} ))
tail -c +$((start + 1)) locked.rxlock | head -c "$n" > puzzle.json
"$RXLOCK" inspect puzzle.json --no-estimate --json > inspect.json
promised=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["promise_seconds"])' inspect.json)
floor=$(python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["floor_seconds"]; print("null" if v is None else v)' inspect.json)
cmd=$(sed -n 's/^#     \(rxlock unlock .*\)$/\1/p' locked.rxlock | head -n 1)
[ -n "$cmd" ] || { echo "promise.sh: no open command in the notice" >&2; exit 1; }

run_open() {   # NAME COMMAND...: time one open in a fresh directory
  name=$1; shift
  rm -rf "$name"; mkdir "$name"; cp locked.rxlock "$name/"
  s=$(now)
  load=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$name" && "$@" --json > open.json) >&2
  e=$(now)
  cmp -s "$name/locked" secret.bin || { echo "promise.sh: $name: wrong plaintext" >&2; exit 1; }
  python3 - "$WORK" "$TIME" "$name" "$*" "$promised" "$s" "$e" "$floor" "$name/open.json" cal.json "$load" "$try" <<'PY'
import json, sys
work, tm, name, cmd, promised, s, e, floor, oj, cj, load, tries = sys.argv[1:]
m = float(e) - float(s)
p = float(promised)
o = json.loads(open(oj).read().strip().splitlines()[-1])   # the last event: done
c = json.load(open(cj))
hs = o.get("hash_seconds") or 0
print(json.dumps({"bench": "promise", "work": work, "time": tm, "open": name,
                  "command": cmd.replace(" --json", ""), "promised_s": round(p, 2), "measured_s": round(m, 2),
                  "ratio": round(m / p, 3), "within_0.8_1.25": 0.8 <= m / p <= 1.25,
                  "floor_s": None if floor == "null" else round(float(floor), 2),
                  "mode": o.get("mode"), "setup_s": round(o.get("setup_seconds", 0), 2), "hash_s": round(hs, 2),
                  "hash_rate": round(o["steps_computed"] / hs, 2) if hs else None,
                  "huge_pages": o.get("dataset_huge_pages"), "load_start": float(load),
                  "cal_rate": c["rate"], "cal_sizing_rate": max(c.get("allocation_rates") or [c["rate"]]) if c.get("allocations", 1) > 1 else c["rate"], "cal_setup_s": c.get("setup_seconds"),
                  "cal_huge_pages": c.get("dataset_huge_pages"), "cal_load": c.get("load_average"),
                  "cal_placement_rates": c.get("allocation_rates"), "cal_tries": int(tries)}))
PY
}
r=0
while [ "$r" -lt "${REPS:-1}" ]; do
  r=$((r + 1))
  # (a) exactly what the notice says (its first word is "rxlock": our binary)
  # shellcheck disable=SC2086
  run_open notice "$RXLOCK" ${cmd#rxlock }
  # (b) full mode, forced
  run_open full "$RXLOCK" unlock locked.rxlock --mode full
done
python3 -c 'import sys; print("promise.sh: calibrate %.1f s, lock %.1f s" % (float(sys.argv[2]) - float(sys.argv[1]), float(sys.argv[3]) - float(sys.argv[2])), file=sys.stderr)' "$t0" "$t1" "$t2"
