# SPDX-License-Identifier: ISC
# tests/cli/lib.sh — helpers for CLI tests that run the real binary.
# Source it; use ok/fail/expect_rc; call summary at the end.
# $RXLOCK is the binary; each test gets a private $TMP directory.
RXLOCK=${RXLOCK:-$PWD/build/rxlock}
# $RXLOCK_TESTBIN: the same CLI linked with the test build of the library
# (-DRXLOCK_TESTING: fault injection, deterministic test mode).  Use it only
# where a test sets an RXLOCK_TEST_* switch; the shipping binary ignores them.
RXLOCK_TESTBIN=${RXLOCK_TESTBIN:-$PWD/build/rxlock-test}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
_src=$PWD   # the tree's root: tests run from it
# The saved calibration (calibrate without -o; read by lock / plan /
# inspect) lives under $XDG_STATE_HOME: a private, empty one per test, never
# the developer's own.
XDG_STATE_HOME=$TMP/.state; export XDG_STATE_HOME
_p=0; _f=0
ok()   { _p=$((_p + 1)); }
fail() { _f=$((_f + 1)); echo "FAIL: $*" >&2; }
# check "description" command... : passes when the command exits 0
check() { d=$1; shift; if "$@"; then ok; else fail "$d"; fi; }
# expect_rc RC "description" command... : passes when the command exits RC
expect_rc() { want=$1; d=$2; shift 2; "$@" >"$TMP/.out" 2>"$TMP/.err"; got=$?
  if [ "$got" -eq "$want" ]; then ok; else fail "$d (rc $got, want $want)"; cat "$TMP/.err" >&2; fi; }
summary() { echo "$_p passed, $_f failed"; [ "$_f" -eq 0 ]; }
# check_resumes LABEL C G N: the kill tests' logs (log-LABEL-*, in the current
# directory) show at least one resume, and every resume's lost work is at
# most C steps per group (G groups); prints what N kills cost in all.
check_resumes() { _l=$1; _c=$2; _g=$3
  _r=$(cat log-"$_l"-* | grep -c 'resumed:')
  check "$_l: resumed at least once ($_r)" test "$_r" -ge 1
  _bad=$(cat log-"$_l"-* | sed -n 's/.*segments already verified; \([0-9]*\) steps computed.*/\1/p' |
         awk -v lim=$((_c * _g)) '$1 > lim' | wc -l)
  check "$_l: lost work within one checkpoint interval per group" test "$_bad" -eq 0
  _lost=$(cat log-"$_l"-* | sed -n 's/.*verified; \([0-9]*\) steps computed.*/\1/p' | awk '{s += $1} END {print s + 0}')
  echo "  $_l: $4 kills, $_r resumes, $_lost steps reported lost in all (C = $_c, G = $_g)"; }
# wait_for SECONDS CMD...: poll CMD every 0.5 s; 0 when it held in time
wait_for() { _t=$(( $1 * 2 )); shift; while [ "$_t" -gt 0 ]; do "$@" && return 0; sleep 0.5; _t=$((_t - 1)); done; return 1; }
# no_key_outside_private DIR: no *.key file in a beacon DIR but under DIR/private/
no_key_outside_private() { ! find "$1" -path "$1/private" -prune -o -name '*.key' -print | grep -q .; }
# slurm_up: the one-node Slurm of tools/slurm-local.sh, for a test's opt-in
# part (RXLOCK_TEST_SLURM=1): 0 when it answers (started here when it was
# not up: slurm_down stops it again), else 1 with the daemons' last words
# on stderr (a SKIP line)
slurm_up() {
  export SLURM_CONF=${RXLOCK_SLURM_DIR:-/tmp/rxlock-slurm}/slurm.conf
  _slurm_started=0
  sinfo -h >/dev/null 2>&1 && return 0
  if sh "$_src/tools/slurm-local.sh" start > slurm-start.log 2>&1; then _slurm_started=1; return 0; fi
  echo "SKIP real Slurm: tools/slurm-local.sh could not start the daemons:" >&2
  tail -n 3 slurm-start.log >&2
  return 1
}
slurm_down() { [ "${_slurm_started:-0}" = 1 ] && sh "$_src/tools/slurm-local.sh" stop > /dev/null 2>&1; }
