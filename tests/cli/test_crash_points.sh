# SPDX-License-Identifier: ISC
# tests/cli/test_crash_points.sh — the enumerated crash test: every mutating
# file-system call (open with O_CREAT, write, fsync, rename, link, unlink,
# rmdir, mkdir, truncate: tests/shim/killshim.c, preloaded) of `lock -o`
# (with --keep-epoch-key), `lock FILE`, `plan` + `group` + `group --verify`
# + `assemble`, `solve`, `unlock` and the beacon's `beacon init`, `beacon
# run --once` (before the start: generate, seal, publish; at a release:
# release, generate, seal, publish), `beacon run --plan-only` and `beacon
# solve` on the beacon's DIR is in turn the last thing the process does
# (SIGKILL right after it).  Each killed run is then run again (the same
# command) and must finish: the outputs byte-identical to an uninterrupted
# run's (test-only deterministic mode) or opening to the original bytes, no
# state, temp file or journal left, and nothing published that does not
# verify (the beacon's feed checked with its pin, every file it names
# against its digest).  The last line before the summary says how many crash
# points were covered.  Default: every point of lock -o and lock FILE, every
# 2nd of solve and unlock, every 3rd of the cluster steps, every 8th of the
# beacon's; RXLOCK_TEST_CRASH_ALL=1 walks every point of every command.  A
# killed `plan` (every 6th point) is made again by the same command or, as
# its message says, with --force, and the plan then works.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
SHIM=${RXLOCK_SHIM:-$(dirname "$RXLOCK_TESTBIN")/tests/killshim.so}
if [ ! -f "$SHIM" ] || ldd "$R" 2>/dev/null | grep -q asan; then
  echo "SKIP: no killshim.so (make tests) or a sanitizer build"; summary; exit 0
fi
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=00112233445566778899aabbccddeeff
STRIDE=3; [ "${RXLOCK_TEST_CRASH_ALL:-0}" = 1 ] && STRIDE=1
LSTRIDE=1
[ "${RXLOCK_TEST_QUICK:-0}" = 1 ] && STRIDE=7 && LSTRIDE=7
L="--work sha3-256 --groups 2 --steps 3000 --checkpoint-steps 1000 --workers 2 --verify=full -q"
points=0

# count DIR CMD...: run CMD in DIR under the shim, logging; prints the count
count() { _d=$1; shift; rm -f "$TMP/.log"
  (cd "$_d" && LD_PRELOAD=$SHIM RXLOCK_SHIM_LOG=$TMP/.log "$@" >/dev/null 2>&1)
  wc -l < "$TMP/.log"; }
# killrun DIR K CMD...: run CMD in DIR, killed after mutating call K; rc
killrun() { _d=$1; _k=$2; shift 2
  (cd "$_d" && LD_PRELOAD=$SHIM RXLOCK_SHIM_KILL=$_k "$@" >"$TMP/.kout" 2>"$TMP/.kerr") 2>/dev/null; echo $?; }
# no_litter DIR: no state, temp file or journal left
no_litter() { ! ls -A "$1" | grep -q -e '\.tmp-' -e '\.state$' -e '\.journal$'; }
# same_key A B: two identity files hold the same AGE-SECRET-KEY line
same_key() { [ "$(grep '^AGE-SECRET-KEY' "$1")" = "$(grep '^AGE-SECRET-KEY' "$2")" ] && grep -q '^AGE-SECRET-KEY' "$1"; }

# walk NAME N SETUP RUN CHECK [DONE]: for k = 1, 1+STRIDE, ... <= N: a
# fresh directory w made by SETUP, RUN killed at k, RUN again (unless the
# kill came after the run was complete: then it must say DONE, default
# "already exists"), then CHECK (a shell function of w).  Counts failures
# per point once.
walk() { _n=$1; _N=$2; _setup=$3; _run=$4; _check=$5; _done=${6:-already exists}; _k=1; _bad=0; _c=0
  while [ "$_k" -le "$_N" ]; do
    rm -rf w; mkdir w; $_setup w
    _rc=$(killrun w "$_k" $_run 2>/dev/null)
    (cd w && $_run >"$TMP/.rout" 2>"$TMP/.rerr"); _rr=$?
    if [ "$_rr" -ne 0 ] && ! { [ "$_rc" = 0 ] || grep -q "$_done" "$TMP/.rerr"; }; then
      _bad=$((_bad + 1)); echo "$_n: killed at $_k (rc $_rc): re-run rc $_rr" >&2; sed 's/^/    /' "$TMP/.rerr" | head -5 >&2
    elif ! $_check w; then
      _bad=$((_bad + 1)); echo "$_n: killed at $_k (rc $_rc): check failed" >&2
    fi
    _c=$((_c + 1)); _k=$((_k + STRIDE))
  done
  points=$((points + _c))
  check "$_n: $_c of $_N crash points finish after a re-run ($_bad failed)" test "$_bad" -eq 0; }

# --- lock -o PUZZLE --keep-epoch-key K ------------------------------------------
mkdir ref; LOCK="$R lock $L --keep-epoch-key K -o P.json"
N=$(count ref $LOCK)
check "lock -o: reference run" test -s ref/P.json -a -s ref/K
nosetup() { :; }
lock_ok() { cmp -s "$1/P.json" ref/P.json && same_key "$1/K" ref/K && no_litter "$1" && "$R" verify "$1/P.json" >/dev/null 2>&1; }
STRIDE0=$STRIDE; STRIDE=$LSTRIDE
walk "lock -o" "$N" nosetup "$LOCK" lock_ok

# --- lock FILE -----------------------------------------------------------------
head -c 100000 /dev/urandom > data.bin
fsetup() { cp data.bin "$1/"; }
LF="$R lock data.bin $L -o F.rxlock"
mkdir reff; fsetup reff
NF=$(count reff $LF)
check "lock FILE: reference run" test -s reff/F.rxlock
lockfile_ok() { no_litter "$1" && "$R" verify "$1/F.rxlock" >/dev/null 2>&1 &&
  "$R" unlock "$1/F.rxlock" -o "$1/.opened" -q >/dev/null 2>&1 && cmp -s "$1/.opened" data.bin; }
walk "lock FILE" "$NF" fsetup "$LF" lockfile_ok
STRIDE=$STRIDE0

# --- solve and unlock (their journals) ------------------------------------------
ssetup() { cp ref/P.json "$1/"; }
SOLVE="$R solve P.json -o ID --checkpoint-steps 500 -q"
mkdir refs; ssetup refs
NS=$(count refs $SOLVE)
check "solve: reference run" same_key refs/ID ref/K
solve_ok() { same_key "$1/ID" ref/K && no_litter "$1"; }
STRIDE0=$STRIDE; [ "$STRIDE" -gt 1 ] && STRIDE=2
walk "solve" "$NS" ssetup "$SOLVE" solve_ok
usetup() { cp reff/F.rxlock "$1/"; }
UNLOCK="$R unlock F.rxlock -o out.bin --checkpoint-steps 500 -q"
"$R" unlock --help 2>&1 | grep -q checkpoint-steps || UNLOCK="$R unlock F.rxlock -o out.bin -q"
mkdir refu; usetup refu
NU=$(count refu $UNLOCK)
check "unlock: reference run" cmp -s refu/out.bin data.bin
unlock_ok() { cmp -s "$1/out.bin" data.bin && no_litter "$1"; }
walk "unlock" "$NU" usetup "$UNLOCK" unlock_ok
STRIDE=$STRIDE0

# --- plan + group + group --verify + assemble ------------------------------------
PLAN="$R plan --work sha3-256 --groups 2 --steps 3000 --verify=full --checkpoint-steps 1000 --planner-key keys/p.key --worker-key keys/w.key -o PL"
G0="$R group PL 0 --worker-key keys/w.key -q"; G1="$R group PL 1 --worker-key keys/w.key -q"
V0="$R group --verify PL 0 --worker-key keys/w.key -q"; V1="$R group --verify PL 1 --worker-key keys/w.key -q"
ASM="$R assemble PL --planner-key keys/p.key -o A.json"
mkdir refc refc/keys
for step in "$PLAN" "$G0" "$G1" "$V0" "$V1" "$ASM"; do (cd refc && $step >/dev/null 2>&1) || fail "cluster reference: $step"; done
check "cluster: reference puzzle" test -s refc/A.json
# each step killed at every point, from a copy of the directory before it
before=0
for step in "$G0" "$G1" "$V0" "$V1" "$ASM"; do
  rm -rf pre; mkdir pre pre/keys; (cd pre && $PLAN >/dev/null 2>&1)
  for s in "$G0" "$G1" "$V0" "$V1" "$ASM"; do [ "$s" = "$step" ] && break; (cd pre && $s >/dev/null 2>&1); done
  csetup() { rm -rf "$1"; cp -a pre "$1"; }
  rest=0
  cluster_ok() { _w=$1; _go=0
    for s in "$G0" "$G1" "$V0" "$V1" "$ASM"; do
      [ "$_go" = 1 ] && { (cd "$_w" && $s >/dev/null 2>&1) || return 1; }
      [ "$s" = "$step" ] && _go=1
    done
    cmp -s "$_w/A.json" refc/A.json && "$R" verify "$_w/A.json" >/dev/null 2>&1 && ! ls -A "$_w" "$_w/PL/results" | grep -q '\.tmp-'; }
  rm -rf cnt; cp -a pre cnt
  NC=$(count cnt $step)
  walk "${step#"$R" }" "$NC" csetup "$step" cluster_ok
done
# plan killed at every 2*STRIDE-th point: finished (plan.json is written
# last), or the same command finishes it or says how to make it again
# (--force); the plan then works
rm -rf pw; mkdir pw pw/keys; NP=$(count pw $PLAN); pbad=0; pc=0; k=1
while [ "$k" -le "$NP" ]; do
  rm -rf pw; mkdir pw pw/keys
  killrun pw "$k" $PLAN >/dev/null 2>&1
  if [ ! -e pw/PL/plan.json ] && ! (cd pw && $PLAN >/dev/null 2>"$TMP/.perr"); then
    if ! grep -q 'has no plan.json: if the key files are from a .plan -o PL. that was stopped' "$TMP/.perr" ||
       ! (cd pw && $PLAN --force >/dev/null 2>&1); then pbad=$((pbad + 1)); echo "plan: killed at $k: no way out" >&2; fi
  fi
  (cd pw && $G0 && $G1 && $V0 && $V1 && $ASM) >/dev/null 2>&1 && "$R" verify pw/A.json >/dev/null 2>&1 ||
    { pbad=$((pbad + 1)); echo "plan: killed at $k: the plan made again does not work" >&2; }
  pc=$((pc + 1)); k=$((k + STRIDE * 2))
done
points=$((points + pc))
check "plan: $pc of $NP crash points: the same command (or, as it says, --force) makes a working plan ($pbad failed)" test "$pbad" -eq 0

# --- the beacon: init, run (generate, seal, publish), run at a release, solve ---
# A small beacon (2 x 3000 sha3-256 hashes an epoch, one every 2 s, 2 ahead:
# the floor work spans 3 periods, so epochs 1 and 2 are sealed to epoch 0).
# The test clock stands still (RXLOCK_TEST_CLOCK_SKEW=@T): a killed run and
# its re-run see the same moment.
printf 'sha3-256 1000 slow test floor\n' > floor.txt
export RXLOCK_TEST_FLOOR_TABLE="$PWD/floor.txt"   # the clients' floor: the beacons' slow test row
T0=$(($(date +%s) + 100000))
BINIT="$R beacon init B --work sha3-256 --groups 2 --steps 3000 --checkpoint-steps 1000 --floor-table $TMP/floor.txt --every 2s --ahead 2 --start @$T0 --workers 2"
BRUN="$R beacon run B --once --gen-rate 1e6"
BSOLVE="$R beacon solve B --ids I -q"
# beacon_sound W N [solved]: the feed verifies (signature, pin) and lists N
# epochs (all solved); every puzzle and sealed file it names is there with
# its digest, every identity it names is there, every released puzzle
# verifies; no temp file, no generation state, no solver journal left
beacon_sound() {
  "$R" beacon status "$1/B" --signer-pin "$PIN" >/dev/null 2>&1 || return 1
  python3 - "$1/B/public" "$2" "${3:-}" <<'PY' || return 1
import hashlib, json, os, sys
pub, n, solved = sys.argv[1], int(sys.argv[2]), sys.argv[3] == 'solved'
f = json.load(open(os.path.join(pub, 'feed.json')))['feed']
assert len(f['epochs']) == n, len(f['epochs'])
def sha(p): return hashlib.sha256(open(os.path.join(pub, p), 'rb').read()).hexdigest()
for e in f['epochs']:
    assert e['state'] == 'solved' or not solved, e['index']
    for k in e['keys']:
        if k['puzzle']['path']: assert sha(k['puzzle']['path']) == k['puzzle']['sha256']
        if k['sealed']: assert sha(k['sealed']['path']) == k['sealed']['sha256']
        if k['identity']: assert os.path.isfile(os.path.join(pub, k['identity']))
PY
  for _pz in "$1"/B/public/puzzles/*.json; do
    [ -e "$_pz" ] || continue; "$R" verify "$_pz" --signer-pin "$PIN" -q >/dev/null 2>&1 || return 1
  done
  ! find "$1" -name '*.tmp-*' -o -name '*.journal' | grep -q . && [ -z "$(ls -A "$1/B/private/state")" ]
}
STRIDE0=$STRIDE; [ "${RXLOCK_TEST_CRASH_ALL:-0}" = 1 ] || STRIDE=$((STRIDE * 2 + 2))
export RXLOCK_TEST_CLOCK_SKEW=@$((T0 - 50))
mkdir pre0; (cd pre0 && $BINIT >../B.pin 2>/dev/null); PIN=$(cat B.pin)
check "beacon init: reference run" test -s pre0/B/beacon.json -a ${#PIN} -eq 64
cp -a pre0 pre1; (cd pre1 && $BRUN >/dev/null 2>&1)
check "beacon run: reference run (epochs 0 and 1, nothing public)" beacon_sound pre1 2
cp -a pre1 pre2; (cd pre2 && RXLOCK_TEST_CLOCK_SKEW=@$((T0 + 1)) $BRUN >/dev/null 2>&1)
check "beacon run at epoch 0's release: reference run (0 released, 2 generated)" sh -c 'test -f pre2/B/public/puzzles/0.json -a -f pre2/B/private/puzzles/2.json'
cp -a pre2 pre3; (cd pre3 && RXLOCK_TEST_CLOCK_SKEW=@$((T0 + 1)) $BSOLVE >/dev/null 2>&1)
check "beacon solve: reference run (0 released, 1 and 2 unsealed: all solved)" beacon_sound pre3 3 solved
# init: the same command finishes it (a signer key it saved is kept), or,
# killed after beacon.json, says a beacon is there
binit_ok() { _s=$(sed -n 's/^# public key: //p' "$1/B/private/signer.key")
  [ -n "$_s" ] && grep -Eq "\"signer\": *\"$_s\"" "$1/B/beacon.json" && [ "$(stat -c %a "$1/B/private")" = 700 ] &&
  [ -d "$1/B/public/identities" ] && ! find "$1" -name '*.tmp-*' | grep -q .; }
rm -rf cnt; mkdir cnt; NBI=$(count cnt $BINIT)
walk "beacon init" "$NBI" nosetup "$BINIT" binit_ok 'already holds a beacon'
# run before the start, from a new beacon
from() { cp -a "$_from/B" "$1/"; }
_from=pre0; rm -rf cnt; cp -a pre0 cnt; NBR=$(count cnt $BRUN)
brun_ok() { beacon_sound "$1" 2 && [ -z "$(ls -A "$1/B/public/puzzles")" ]; }
walk "beacon run" "$NBR" from "$BRUN" brun_ok
# run --plan-only (a beacon without verification): a cluster plan per
# epoch; killed while it writes one, the same command writes it again (a
# plan directory without plan.json is no plan); epoch 0's plan then works
# (its tasks and assembly make a puzzle that verifies with the pin)
BPLAN="$R beacon run B --plan-only"
mkdir prp; (cd prp && $BINIT --no-verify >../P.pin 2>/dev/null); PPIN=$(cat P.pin)
_from=prp; rm -rf cnt; cp -a prp cnt; NBP=$(count cnt $BPLAN)
bplan_ok() { _w=$1/B
  [ -f "$_w/plans/0/plan.json" ] && [ -f "$_w/plans/1/plan.json" ] && ! find "$1" -name '*.tmp-*' | grep -q . &&
  (cd "$_w" && for _t in 0 1; do "$R" group plans/0 $_t --worker-key private/plans/0.worker.key -q || exit 1; done &&
   "$R" assemble plans/0 --planner-key private/plans/0.planner.key --sign-key private/signer.key \
     -o private/puzzles/0.json) >/dev/null 2>&1 && "$R" verify "$_w/private/puzzles/0.json" --signer-pin "$PPIN" -q >/dev/null 2>&1; }
walk "beacon run --plan-only" "$NBP" from "$BPLAN" bplan_ok
# run at epoch 0's release: releases 0, generates and seals 2
export RXLOCK_TEST_CLOCK_SKEW=@$((T0 + 1))
_from=pre1; rm -rf cnt; cp -a pre1 cnt; NBC=$(count cnt $BRUN)
brel_ok() { beacon_sound "$1" 3 && cmp -s "$1/B/public/puzzles/0.json" pre2/B/private/puzzles/0.json &&
  [ "$(ls "$1/B/public/puzzles")" = 0.json ]; }
walk "beacon run at a release" "$NBC" from "$BRUN" brel_ok
# solve on the beacon's own DIR: identities written and published, the feed
# lists every epoch solved
_from=pre2; rm -rf cnt; cp -a pre2 cnt; NBS=$(count cnt $BSOLVE)
bsolve_ok() { beacon_sound "$1" 3 solved && for _e in 0 1 2; do same_key "$1/I/$_e.txt" "pre3/I/$_e.txt" || return 1; done; }
walk "beacon solve" "$NBS" from "$BSOLVE" bsolve_ok
unset RXLOCK_TEST_CLOCK_SKEW
BSTRIDE=$STRIDE; STRIDE=$STRIDE0

echo "crash points covered: $points (lock -o $N, lock FILE $NF, solve $NS, unlock $NU, plan $NP points per run; cluster stride $STRIDE; beacon init $NBI, run $NBR, run --plan-only $NBP, run at a release $NBC, solve $NBS, stride $BSTRIDE)"
summary
