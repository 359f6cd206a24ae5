# SPDX-License-Identifier: ISC
# tests/cli/test_crash_points.sh — the enumerated crash test: every
# mutating file-system call (open with O_CREAT, write, fsync, rename,
# link, unlink, rmdir, mkdir, truncate: tests/shim/killshim.c, preloaded)
# of `lock -o` (with --keep-epoch-key), `lock FILE`, `plan` + `group` +
# `group --verify` + `assemble`, `solve` and `unlock` is in turn the last
# thing the process does (SIGKILL right after it).  Each killed run is then
# run again (the same command) and must finish: the outputs byte-identical
# to an uninterrupted run's (test-only deterministic mode) or opening to the
# original bytes, no state, temp file or journal left, and nothing
# published that does not verify.  The last line before the summary says
# how many crash points were covered.  Default: every point of lock -o and
# lock FILE, every 2nd of solve and unlock, every 3rd of the cluster steps;
# RXLOCK_TEST_CRASH_ALL=1 walks every point of every command.  A killed
# `plan` (every 6th point) is made again by the same command or, as its
# message says, with --force, and the plan then works.
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

# journal_gap DIR: an unlock killed after it wrote its output and before it
# removed its journal: the re-run says "already exists", names both files
# and the way out, and the journal stays (a known gap, counted and
# reported, not failed; a solve's re-run finishes such a run itself)
gaps=0
journal_gap() { grep -q 'already exists' "$TMP/.rerr" && ls -A "$1" | grep -q '\.journal$'; }
# walk NAME N SETUP RUN CHECK: for k = 1, 1+STRIDE, ... <= N: a fresh
# directory w made by SETUP, RUN killed at k, RUN again (unless the kill
# came after the run was complete: then it must say "already exists"),
# then CHECK (a shell function of w).  Counts failures per point once.
walk() { _n=$1; _N=$2; _setup=$3; _run=$4; _check=$5; _check_gap=${6:-false}; _k=1; _bad=0; _c=0
  while [ "$_k" -le "$_N" ]; do
    rm -rf w; mkdir w; $_setup w
    _rc=$(killrun w "$_k" $_run)
    (cd w && $_run >"$TMP/.rout" 2>"$TMP/.rerr"); _rr=$?
    if [ "$_rr" -ne 0 ] && ! { [ "$_rc" = 0 ] || grep -q 'already exists' "$TMP/.rerr"; }; then
      _bad=$((_bad + 1)); echo "$_n: killed at $_k (rc $_rc): re-run rc $_rr" >&2; sed 's/^/    /' "$TMP/.rerr" | head -5 >&2
    elif journal_gap w && $_check_gap w; then
      gaps=$((gaps + 1))
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
unlock_gap() { cmp -s "$1/out.bin" data.bin && grep -q 'stopped before removing the journal' "$TMP/.rerr"; }
walk "unlock" "$NU" usetup "$UNLOCK" unlock_ok unlock_gap
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
  killrun pw "$k" $PLAN >/dev/null
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
[ "$gaps" -gt 0 ] && echo "known gap: $gaps point(s) of unlock leave the journal beside a finished output (the re-run says 'already exists')"
echo "crash points covered: $points (lock -o $N, lock FILE $NF, solve $NS, unlock $NU, plan $NP points per run; cluster stride $STRIDE)"
summary
