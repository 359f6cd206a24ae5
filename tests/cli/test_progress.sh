# SPDX-License-Identifier: ISC
# tests/cli/test_progress.sh — every long-running command (lock, lock FILE,
# solve, unlock, calibrate, inspect's ~1 s estimate) shows a progress line when stderr is a TTY
# (run under `script` for a pseudo-terminal), is silent about progress on
# a pipe, and draws it there with --progress; --quiet / --json turn it off.
. tests/cli/lib.sh
cd "$TMP" || exit 1
R=$RXLOCK
W="--work sha3-256"
if ! command -v script >/dev/null 2>&1; then echo "SKIP: no script(1)" >&2; summary; exit; fi
bar='(lock|solve|unlock|calibrate|estimate)( \([a-z]*\))?: [0-9]+/[0-9]+ \([0-9.]+%\)'
# on_tty NAME ARGS...: rxlock ARGS with a terminal on stdin/stdout/stderr
on_tty() { n=$1; shift; script -qec "'$R' $*" /dev/null < /dev/null > "$n.tty" 2>&1; }
has_bar() { grep -Eq "$bar" "$1"; }
no_bar() { ! grep -Eq "$bar" "$1"; }
printf 'secret\n' > s.txt
"$R" lock $W --groups 2 --steps 200000 -o big.json > /dev/null 2>&1
"$R" lock s.txt $W --groups 2 --steps 200000 -o big.rxlock -q 2>/dev/null

# each NAME:ARGS ends with an output prefix; every run appends its own suffix
for spec in "lock:lock $W --groups 2 --steps 200000 -o p-" "lockfile:lock s.txt $W --groups 2 --steps 200000 -o f-" \
            "solve:solve big.json -o id-" "unlock:unlock big.rxlock -o u-" "calibrate:calibrate $W --seconds 0.3 -o c-"; do
  n=${spec%%:*}; args=${spec#*:}
  set -- $args; cmd=$1; shift
  on_tty "$n" $cmd "$@tty"; check "$n: bar on a TTY" has_bar "$n.tty"
  expect_rc 0 "$n on a pipe" "$R" $cmd "$@pipe"; check "$n pipe: no bar" no_bar "$TMP/.err"
  expect_rc 0 "$n --progress on a pipe" "$R" $cmd --progress "$@forced"; check "$n --progress: bar" has_bar "$TMP/.err"
done
# inspect: the estimate's line is transient (erased before the report)
on_tty inspect inspect big.json; check "inspect: estimate bar on a TTY" has_bar inspect.tty
check "inspect: report after the bar" grep -q 'this machine:' inspect.tty
expect_rc 0 "inspect on a pipe" "$R" inspect big.json; check "inspect pipe: no bar" no_bar "$TMP/.err"
expect_rc 0 "inspect --progress" "$R" inspect big.json --progress; check "inspect --progress: bar" has_bar "$TMP/.err"
# --json and --quiet: no bar even on a TTY
on_tty lockjson lock $W --groups 2 --steps 1000 --json -o j1.json; check "lock --json on a TTY: no bar" no_bar lockjson.tty
on_tty solvejson solve big.json --json -o j2.txt; check "solve --json on a TTY: no bar" no_bar solvejson.tty
on_tty lockq lock s.txt $W --groups 2 --steps 1000 -q -o q.rxlock; check "lock FILE -q on a TTY: no bar" no_bar lockq.tty
on_tty unlockq unlock big.rxlock -q -o q.txt; check "unlock -q on a TTY: no bar" no_bar unlockq.tty
# the promise: a full-mode solve shows the dataset build ("dataset: N/2080 (P%)
# ... ETA", the ETA counting the hashing after it).  It builds the real
# 2080 MiB dataset (~25-40 s on 2 cores): only under check-full
# (RXLOCK_TEST_FULL=1; tests/run.sh full runs this file).
ds='dataset: [0-9]+/2080 \([0-9.]+%\)  [0-9.]+ MiB/s  elapsed [0-9.hms]+  ETA '
if [ "${RXLOCK_TEST_FULL:-0}" = 1 ]; then
  "$R" lock --work randomx-v2 --mode light --groups 1 --steps 20 --rate 100 -o rx.json > /dev/null 2>&1
  on_tty solvefull solve rx.json --mode full -o idf.txt
  check "full solve on a TTY: dataset line" grep -Eq "$ds" solvefull.tty
  check "full solve: dataset line reaches 2080" grep -Eq 'dataset: 2080/2080 \(100.0%\)' solvefull.tty
  check "full solve: then the solve bar" has_bar solvefull.tty
  check "full solve: identity" grep -q '^AGE-SECRET-KEY-1' idf.txt
else
  echo "SKIP the full-mode dataset line (RXLOCK_TEST_FULL=1, make check-full)" >&2
fi
summary
