#!/bin/sh
# SPDX-License-Identifier: ISC
# tools/demo.sh — the main jobs end to end (`make demo`), one `demo:` line
# per step, `demo: OK` last.
#  1. lock FILE: time-lock a small file into one .rxlock file (SHA3-256
#     chain, seconds of work, post-quantum epoch key), unlock it, compare;
#     a --classic container's payload opens with Debian's age too.
#  2. an epoch puzzle on RandomX v2 (light mode) and a post-quantum one:
#     records encrypted before the solve open with the solved identity.
#  3. a beacon, in the temporary directory: init (SHA3, an epoch every
#     3 s, each sealed to the one before), `beacon run` in the background,
#     `encrypt --feed --open-after` (and Debian's `age -r` to the feed's
#     recipient), a too-early `decrypt --feed` that names the epoch and
#     when, `beacon solve --follow` from public/ alone, the operator killed
#     (kill -9) right after releasing epoch 0 and its private/ deleted,
#     epoch 0 opened (`decrypt --feed`, `age -d`) and epoch 1 opened
#     through its sealed copy.  Sealing needs an epoch's floor work to span
#     a period: at the real floor that is far more than a demo's seconds,
#     so this beacon uses a floor table of its own (1.5 x this machine's
#     rate, measured first) and says so.
# Everything it starts is stopped (each background process leads its own
# process group: TERM, then KILL, then wait) and the temporary directory
# removed, also when a step fails (it says which and why) or on Ctrl-C.
# Usage: sh tools/demo.sh [RXLOCK-BINARY] (default build/rxlock).
# RXLOCK_DEMO_PART=beacon runs part 3 only (tests/cli/test_demo.sh);
# RXLOCK_DEMO_KEEP=DIR keeps a copy of the beacon's public/ in DIR (a new
# directory) to look at its web page afterwards; RXLOCK_DEMO_STEPS sizes
# part 1's chain (default 3000000).
set -e
RX=${1:-build/rxlock}
case $RX in /*) ;; *) RX=$PWD/$RX ;; esac
[ -x "$RX" ] || { echo "demo: no rxlock binary at $RX (make all builds it)" >&2; exit 1; }
if [ -n "${RXLOCK_DEMO_KEEP:-}" ] && [ -e "$RXLOCK_DEMO_KEEP" ]; then
  echo "demo: RXLOCK_DEMO_KEEP=$RXLOCK_DEMO_KEEP already exists (never overwritten): name a new directory" >&2; exit 2
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/rxlock-demo.XXXXXX")
step="setting up"
bg=""                       # the background processes: each leads its own process group

# alive PID: PID has not exited yet (a zombie has)
alive() { st=$(sed 's/.*) //;s/ .*//' "/proc/$1/stat" 2>/dev/null) || return 1; [ -n "$st" ] && [ "$st" != Z ]; }
# stop PID [SIGNAL]: signal PID's process group (default TERM), give it 5 s,
# then KILL the group, and reap PID; its status is left in $stopped_rc
stop() {
  kill -s "${2:-TERM}" -- "-$1" 2>/dev/null || true
  _n=0; while alive "$1" && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
  kill -s KILL -- "-$1" 2>/dev/null || true
  stopped_rc=0; wait "$1" 2>/dev/null || stopped_rc=$?
  _l=""; for _p in $bg; do [ "$_p" = "$1" ] || _l="$_l $_p"; done; bg=$_l
}
finish() {
  rc=$1
  for p in $bg; do stop "$p"; done
  cd / && rm -rf "$dir"
  if [ -n "$signalled" ]; then
    echo "demo: $signalled during: $step; stopped what it started, removed $dir" >&2
  elif [ "$rc" -ne 0 ]; then
    echo "demo: FAILED during: $step (exit $rc; the lines above say why); stopped what it started, removed $dir" >&2
  fi
  exit "$rc"
}
trap 'finish $?' EXIT
signalled=""
trap 'signalled="interrupted (SIGINT)"; exit 130' INT
trap 'signalled="stopped by SIGTERM"; exit 143' TERM
trap 'signalled="stopped by SIGHUP"; exit 129' HUP
fail() { echo "demo: FAILED: $step: $*" >&2; exit 1; }
cd "$dir"

lock_part() {
step="lock FILE"
printf 'Meet at the old mill at noon. (%s)\n' "$(date -u +%FT%TZ)" > secret.txt
cp secret.txt original.txt
steps=${RXLOCK_DEMO_STEPS:-3000000}
echo "demo: lock secret.txt -> secret.txt.rxlock (2 groups x $steps sequential sha3-256 hashes, post-quantum epoch key)"
"$RX" lock secret.txt --work sha3-256 --groups 2 --steps "$steps" --rate 3000000
echo "demo: the notice at the top of the container:"
sed -n '/^#     rxlock unlock/p;/^# Work:/,/^# [a-z]/p' secret.txt.rxlock | sed 's/^/  | /'
rm secret.txt
step="unlock"
echo "demo: unlock (solving sequentially; the journal is secret.txt.rxlock.journal)"
t0=$(date +%s)
"$RX" unlock secret.txt.rxlock --save-identity epoch-identity.txt
t1=$(date +%s)
echo "demo: solved in about $((t1 - t0)) s"
cmp secret.txt original.txt
echo "demo: plaintext matches: $(cat secret.txt)"
grep -q '^AGE-SECRET-KEY-PQ-1' epoch-identity.txt
echo "demo: the solved epoch identity is post-quantum (AGE-SECRET-KEY-PQ-1...)"
step="a --classic container"
echo "demo: a --classic container (tiny chain): its payload is a plain age X25519 file"
"$RX" lock original.txt --classic --work sha3-256 --groups 1 --steps 1000 -o classic.rxlock -q
"$RX" unlock classic.rxlock -o classic.txt --save-identity classic-identity.txt -q
cmp classic.txt original.txt
if command -v age >/dev/null 2>&1; then
  off=$(grep -abo '^age-encryption.org/v1' classic.rxlock | head -n 1 | cut -d: -f1)
  tail -c +$((off + 1)) classic.rxlock | age -d -i classic-identity.txt | cmp - original.txt
  echo "demo: Debian's age opens the classic payload with the solved epoch identity too"
fi
}

# Part 2: the epoch-key job on the default work function, RandomX v2 (light
# mode, a tiny 2 x 10 chain): records are encrypted to the epoch recipient
# before the puzzle is solved, and open with the solved identity afterwards.
epoch_part() {
step="an epoch puzzle on RandomX v2"
echo "demo: epoch puzzle on RandomX v2 (2 groups x 10 steps, light mode)"
recipient=$("$RX" lock --work randomx-v2 --groups 2 --steps 10 --mode light -o epoch.json)
echo "demo: epoch recipient $recipient"
printf 'audit record 1\n' | "$RX" encrypt -r "$recipient" -o record1.age
"$RX" verify epoch.json
"$RX" solve epoch.json --mode light -o epoch-id.txt
"$RX" decrypt -i epoch-id.txt record1.age > record1.txt
grep -q '^audit record 1$' record1.txt
echo "demo: record encrypted before the solve opens with the solved identity"

# a post-quantum epoch (lock --pq): the recipient is age1pq1...
step="a post-quantum epoch"
echo "demo: post-quantum epoch (sha3-256, 2 groups x 20000 steps)"
pq=$("$RX" lock --pq --work sha3-256 --groups 2 --steps 20000 -o pq-epoch.json)
echo "demo: post-quantum epoch recipient $(printf %.40s "$pq")... (${#pq} characters)"
printf 'audit record 2\n' | "$RX" encrypt -r "$pq" -o record2.age
"$RX" inspect pq-epoch.json --no-estimate | grep '^epoch key:'
"$RX" solve pq-epoch.json -o pq-id.txt
"$RX" decrypt -i pq-id.txt record2.age | grep -q '^audit record 2$'
echo "demo: the post-quantum record opens with the solved AGE-SECRET-KEY-PQ-1 identity"
}

# ---- part 3: a beacon
hms() { date -u -d "@$1" +%H:%M:%S; }
indent() { sed 's/^/  | /' "$@"; }
# start NAME LOG CMD...: CMD in the background, leading its own process group
# (setsid), stderr to LOG; its process id in $started
start() { _name=$1; _log=$2; shift 2; setsid "$@" >/dev/null 2>"$_log" & started=$!; bg="$bg $started"; }
# await SECONDS PID LOG WHAT TEST...: poll TEST every 0.1 s; fail when PID
# (a background process, LOG its messages) exits first or time runs out
await() {
  _s=$1 _p=$2 _log=$3 _what=$4; shift 4; _n=0
  while ! "$@"; do
    if ! alive "$_p"; then stop "$_p"
      echo "demo: its log ($_log):" >&2; tail -n 5 "$_log" | indent >&2
      fail "$_what: it exited (status $stopped_rc) first"; fi
    [ $_n -lt $((_s * 10)) ] || { echo "demo: its log ($_log):" >&2; tail -n 5 "$_log" | indent >&2
                                  fail "$_what: not within $_s s"; }
    sleep 0.1; _n=$((_n + 1))
  done
}
# sooner AT STATED: a note when an epoch opened before the demo floor's time
sooner() { [ "$1" -ge "$2" ] || printf '; %s' "SOONER: this machine ran faster than when measured, which is why the demo floor is no promise"; }
# solved E: the solver wrote epoch E's identity and logged it
solved() { [ -s "ids/$1.txt" ] && grep -q "^rxlock: epoch $1 solved in" solve.log; }
# in_feed TEXT: the beacon's signed feed (as served) contains TEXT
in_feed() { grep -q "$1" B/public/feed.json 2>/dev/null; }

beacon_part() {
P=3                                         # the period, seconds
step="measuring this machine's SHA3 chain rate (rxlock calibrate)"
"$RX" calibrate --work sha3-256 --seconds 1 -o cal.json -q 2>calibrate.log || { indent calibrate.log >&2; exit 1; }
rate=$(sed -n 's/^ *"rate": *\([0-9.eE+]*\),*$/\1/p' cal.json)
[ -n "$rate" ] || fail "no rate in cal.json"
# the demo's floor: k = 1.5 x this machine (so that the feed's "no sooner
# than" holds here while the load varies a little; generation still keeps
# up: 1.5 x 1.25 (verification) / 2 workers = 94% of a period; one CPU:
# 0.75), a multiple of the 16 groups so that an epoch's floor work is
# exactly one period: each epoch is sealed to the one before
cpus=$(nproc 2>/dev/null || echo 2)
k=1.5; [ "$cpus" -ge 2 ] || k=0.75
floor=$(awk -v r="$rate" -v k=$k 'BEGIN { printf "%d", int(r * k / 16 + 1) * 16 }')
steps=$((floor * P / 16))
real=20800000                               # the built-in floor's SHA3 row (docs/SECURITY.md, "The floor")
mhs() { awk -v x="$1" 'BEGIN { printf "%.2f", x / 1e6 }'; }
echo "demo: beacon: this machine's SHA3-256 chain runs at $(mhs "$rate") MH/s (rxlock calibrate, 1 s)"
printf 'sha3-256 %s DEMO floor = %s x this machine, NOT the real floor\n' "$floor" $k > demo-floor.txt

step="beacon init"
# epoch 0's release: after its generation (about 1.5 s, estimated 3 s),
# epoch 1's (as long again) before epoch 1's release, one period later
start_at=$(($(date +%s) + 10))
pin=$("$RX" beacon init B --work sha3-256 --groups 16 --steps "$steps" --every ${P}s --ahead 2 --start "@$start_at" \
        --calibration cal.json --floor-table demo-floor.txt 2>init.log) || { indent init.log >&2; exit 1; }
# init's keep-up check measured this machine's generation throughput (all
# workers, SIMD lanes): "... at 11.79 MH/s (measured here: 2 workers x 4
# lanes, ...": the generation figure below, and `beacon run --gen-rate`
gen=$(sed -n 's/.*of generation at \([0-9.]*\) MH\/s (measured here: \([^,]*\),.*/\1/p' init.log | head -n 1)
how=$(sed -n 's/.*of generation at \([0-9.]*\) MH\/s (measured here: \([^,]*\),.*/\2/p' init.log | head -n 1)
if [ -n "$gen" ]; then
  genr=$(awk -v g="$gen" 'BEGIN { printf "%.0f", g * 1e6 }'); genhow="at $gen MH/s ($how, measured by init)"
else
  genr=$(awk -v r="$rate" -v w="$cpus" 'BEGIN { printf "%.0f", r * w }'); genhow="on $cpus worker(s) at one chain each"
fi
echo "demo: beacon init B: an epoch every $P s from $(hms "$start_at") UTC, 16 x $steps SHA3-256 hashes each, on a" \
     "DEMO FLOOR TABLE ($(mhs "$floor") MH/s = $k x this machine, NOT the real floor) so that an epoch's floor work" \
     "spans the period and each is sealed to the one before (at the real floor, $(mhs $real) MH/s, an epoch would be" \
     "$(awk -v f=$real -v p=$P 'BEGIN { printf "%.0f", f * p / 1e6 }') M hashes:" \
     "$(awk -v f=$real -v p=$P -v g="$genr" 'BEGIN { printf "%.0f", f * p * 1.25 / g }') s of" \
     "generation per $P s period here $genhow, and $(awk -v f=$real -v p=$P -v r="$rate" 'BEGIN { printf "%.0f", f * p / r }') s to solve)"
indent init.log

step="beacon run (the operator, in the background)"
if [ -n "$gen" ]; then start operator run.log "$RX" beacon run B --gen-rate "$genr"   # init's measurement
else start operator run.log "$RX" beacon run B; fi                                   # measures itself
op=$started
echo "demo: beacon run B in the background (the operator): generates 2 epochs ahead, seals each, releases each at its time (log: run.log)"
slow="this machine is busier than when measured: run the demo again"
await 60 "$op" run.log "the operator generates epoch 0" in_feed '"index":0,'
! in_feed '"puzzles/0.json"' || fail "generating epoch 0 took past its release ($slow)"
echo "demo: generated epoch 0 (operator-only: no earlier epoch to seal it to); nothing released before $(hms "$start_at")"
grep 'keeps up' run.log | indent

step="encrypt --feed --open-after"
printf 'Meet at the old mill at noon.\n' > letter.txt
printf 'The key is under the third stone.\n' > note.txt
open0=$((start_at + P)); open1=$((start_at + 2 * P))
"$RX" encrypt --feed B --signer-pin "$pin" --floor-table demo-floor.txt --open-after "@$open0" letter.txt 2>enc.log || { indent enc.log >&2; exit 1; }
grep -q '"epoch": 0' letter.txt.age.beacon || fail "letter.txt.age is not for epoch 0"
echo "demo: encrypt --feed B --open-after $(hms "$open0") letter.txt: the earliest epoch opening no sooner, epoch 0 (letter.txt.age + .beacon)"
indent enc.log
if command -v age >/dev/null 2>&1; then
  step="age -r to the feed's recipient"
  rcp0=$(sed -n 's/.*"recipient": "\(age1[a-z0-9]*\)".*/\1/p' letter.txt.age.beacon)
  in_feed "\"recipient\":\"$rcp0\"" || fail "epoch 0's recipient $rcp0 is not the feed's"
  age -r "$rcp0" -o letter-by-age.age letter.txt
  echo "demo: by hand with Debian's age to epoch 0's recipient from the feed: age -r $rcp0 -o letter-by-age.age letter.txt"
fi

step="decrypt --feed before the epoch opens"
if "$RX" decrypt --feed B --floor-table demo-floor.txt -o early.txt letter.txt.age 2>early.log; then
  fail "letter.txt.age opened before its epoch was solved"
fi
grep -q 'epoch 0 is not solved yet' early.log || { indent early.log >&2; fail "decrypt did not say which epoch and when"; }
echo "demo: too early: decrypt --feed B letter.txt.age refuses (exit 1), naming the epoch and when it opens:"
indent early.log

step="beacon solve --follow (in the background)"
start solver solve.log "$RX" beacon solve B/public --ids ids --signer-pin "$pin" --follow --poll 1
sv=$started
echo "demo: beacon solve B/public --ids ids --follow in the background: anyone may solve, from the served files alone; it waits for the release (log: solve.log)"

step="the operator generates and seals epoch 1"
await 60 "$op" run.log "the operator generates epoch 1" in_feed '"sealed/1.age"'
! in_feed '"puzzles/1.json"' || fail "generating epoch 1 took past its release ($slow)"
echo "demo: generated epoch 1, published at once sealed to epoch 0 (public/sealed/1.age): it opens without the operator"
"$RX" encrypt --feed B --signer-pin "$pin" --floor-table demo-floor.txt --open-after "@$open1" -o note.age note.txt 2>enc1.log || { indent enc1.log >&2; exit 1; }
grep -q '"epoch": 1' note.age.beacon || fail "note.age is not for epoch 1"
echo "demo: encrypt --feed B --open-after $(hms "$open1") note.txt: epoch 1, the sealed one (note.age)"

step="the operator releases epoch 0"
await 60 "$op" run.log "the operator releases epoch 0" in_feed '"puzzles/0.json"'
! in_feed '"puzzles/1.json"' || fail "the operator released epoch 1 too before it was stopped ($slow)"
stop "$op" KILL
rm -rf B/private
echo "demo: epoch 0 released at $(hms "$start_at"); the operator is killed (kill -9) and B/private deleted: epoch 1 is never released, only its sealed copy is public"

step="beacon solve: epoch 0"
await 120 "$sv" solve.log "the solver solves epoch 0" solved 0
at0=$(date +%s)
echo "demo: $(sed -n 's/^rxlock: \(epoch 0 solved in [0-9.]* s\).*/\1/p' solve.log) from its released puzzle, at" \
     "$(hms "$at0") (the feed said: no sooner than $(hms "$open0") at the demo floor$(sooner "$at0" "$open0"))"
step="decrypt --feed after the solve"
"$RX" decrypt --feed B --floor-table demo-floor.txt --ids ids -o letter.out letter.txt.age 2>dec.log || { indent dec.log >&2; exit 1; }
cmp -s letter.out letter.txt || fail "letter.out differs from letter.txt"
echo "demo: decrypt --feed B --ids ids letter.txt.age opens it: $(cat letter.out)"
if [ -f letter-by-age.age ]; then
  step="age -d with the solved identity"
  age -d -i ids/0.txt letter-by-age.age | cmp -s - letter.txt || fail "age -d did not open letter-by-age.age"
  echo "demo: Debian's age opens the age-made file with the solved identity: age -d -i ids/0.txt letter-by-age.age"
fi

step="the sealed recovery: epoch 1 from public/ alone"
await 120 "$sv" solve.log "the solver unseals and solves epoch 1" solved 1
at1=$(date +%s)
grep -q 'epoch 1: unsealed with epoch 0' solve.log || { indent solve.log >&2; fail "epoch 1 did not come through its sealed copy"; }
[ ! -e B/public/puzzles/1.json ] || fail "epoch 1 was released after all"
"$RX" decrypt --feed B --floor-table demo-floor.txt --ids ids -o note.out note.age 2>dec1.log || { indent dec1.log >&2; exit 1; }
cmp -s note.out note.txt || fail "note.out differs from note.txt"
echo "demo: sealed recovery: epoch 1, never released, unsealed with epoch 0's identity and" \
     "$(sed -n 's/^rxlock: epoch 1 \(solved in [0-9.]* s\).*/\1/p' solve.log) from public/ alone, at $(hms "$at1")" \
     "(the feed said: no sooner than $(hms "$open1")$(sooner "$at1" "$open1")); decrypt --feed opens note.age: $(cat note.out)"

step="stopping the solver"
stop "$sv"
[ "$stopped_rc" -eq 0 ] || { indent solve.log >&2; fail "beacon solve --follow ended with status $stopped_rc on SIGTERM"; }
echo "demo: beacon solve --follow stopped (SIGTERM, exit 0); nothing this demo started is running"

step="the web page"
if [ -n "${RXLOCK_DEMO_KEEP:-}" ]; then
  mkdir -p "$RXLOCK_DEMO_KEEP" && cp -r B/public "$RXLOCK_DEMO_KEEP/public"
  if [ -f B/public/index.html ]; then
    echo "demo: the beacon's public/ with its web page (built by make web) is kept in $RXLOCK_DEMO_KEEP/public: python3 -m" \
         "http.server --directory $RXLOCK_DEMO_KEEP/public --bind 127.0.0.1, then open http://127.0.0.1:8000/#pin=$pin"
  else
    echo "demo: the beacon's public/ is kept in $RXLOCK_DEMO_KEEP/public (no web page: make web builds it)"
  fi
elif [ -f B/public/index.html ]; then
  echo "demo: beacon run published the web page (built by make web into build/web) in B/public, removed with this" \
       "demo's directory: RXLOCK_DEMO_KEEP=DIR make demo keeps a copy; then python3 -m http.server --directory" \
       "DIR/public --bind 127.0.0.1 and open http://127.0.0.1:8000/#pin=PIN"
else
  echo "demo: no web page (make web builds it into build/web; beacon run then publishes it in public/)"
fi
}

case ${RXLOCK_DEMO_PART:-all} in
  all) lock_part; epoch_part; beacon_part ;;
  beacon) beacon_part ;;
  *) echo "demo: RXLOCK_DEMO_PART: want all or beacon" >&2; exit 2 ;;
esac
step="done"
echo "demo: OK"
