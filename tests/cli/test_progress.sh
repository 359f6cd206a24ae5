# tests/cli/test_progress.sh — every long-running command (lock, lock FILE,
# solve, unlock, calibrate) shows a progress line when stderr is a TTY
# (run under `script` for a pseudo-terminal), is silent about progress on
# a pipe, and draws it there with --progress; --quiet / --json turn it off.
. tests/cli/lib.sh
cd "$TMP" || exit 1
R=$RXLOCK
W="--work sha3-256"
if ! command -v script >/dev/null 2>&1; then echo "SKIP: no script(1)" >&2; summary; exit; fi
bar='(lock|solve|unlock|calibrate)( \([a-z]*\))?: [0-9]+/[0-9]+ \([0-9.]+%\)'
# on_tty NAME CMD...: run CMD with a terminal on stdin/stdout/stderr
on_tty() { n=$1; shift; script -qec "$*" /dev/null < /dev/null > "$n.tty" 2>&1; }
has_bar() { grep -Eq "$bar" "$1"; }
no_bar() { ! grep -Eq "$bar" "$1"; }

printf 'secret\n' > s.txt
"$R" lock $W --groups 2 --steps 1000 -o base.json > /dev/null 2>&1
"$R" lock s.txt $W --groups 2 --steps 1000 -o base.rxlock -q 2>/dev/null

# lock (puzzle)
check "lock: bar on a TTY" sh -c "script -qec \"'$R' lock $W --groups 2 --steps 200000 -o t1.json\" /dev/null </dev/null > lock.tty 2>&1"
check "lock: bar drawn" has_bar lock.tty
expect_rc 0 "lock on a pipe" "$R" lock $W --groups 2 --steps 200000 -o p1.json
check "lock pipe: no bar" no_bar "$TMP/.err"
expect_rc 0 "lock --progress on a pipe" "$R" lock $W --groups 2 --steps 200000 --progress -o f1.json
check "lock --progress: bar" has_bar "$TMP/.err"
on_tty lockjson "'$R' lock $W --groups 2 --steps 1000 --json -o j1.json"
check "lock --json on a TTY: no bar" no_bar lockjson.tty

# lock FILE
on_tty lockfile "'$R' lock s.txt $W --groups 2 --steps 200000 -o t2.rxlock"
check "lock FILE: bar on a TTY" has_bar lockfile.tty
expect_rc 0 "lock FILE on a pipe" "$R" lock s.txt $W --groups 2 --steps 200000 -o p2.rxlock
check "lock FILE pipe: no bar" no_bar "$TMP/.err"
expect_rc 0 "lock FILE --progress" "$R" lock s.txt $W --groups 2 --steps 200000 --progress -o f2.rxlock
check "lock FILE --progress: bar" has_bar "$TMP/.err"
on_tty lockq "'$R' lock s.txt $W --groups 2 --steps 1000 -q -o q2.rxlock"
check "lock FILE -q on a TTY: no bar" no_bar lockq.tty

# solve
on_tty solve "'$R' solve t1.json -o id1.txt"
check "solve: bar on a TTY" has_bar solve.tty
expect_rc 0 "solve on a pipe" "$R" solve t1.json -o id2.txt
check "solve pipe: no bar" no_bar "$TMP/.err"
expect_rc 0 "solve --progress" "$R" solve t1.json --progress -o id3.txt
check "solve --progress: bar" has_bar "$TMP/.err"
on_tty solvejson "'$R' solve base.json --json -o id4.txt"
check "solve --json on a TTY: no bar" no_bar solvejson.tty

# unlock
on_tty unlock "'$R' unlock t2.rxlock -o u1.txt"
check "unlock: bar on a TTY" has_bar unlock.tty
expect_rc 0 "unlock on a pipe" "$R" unlock t2.rxlock -o u2.txt
check "unlock pipe: no bar" no_bar "$TMP/.err"
expect_rc 0 "unlock --progress" "$R" unlock t2.rxlock --progress -o u3.txt
check "unlock --progress: bar" has_bar "$TMP/.err"
on_tty unlockq "'$R' unlock base.rxlock -q -o u4.txt"
check "unlock -q on a TTY: no bar" no_bar unlockq.tty

# calibrate
on_tty cal "'$R' calibrate $W --seconds 0.3 -o c1.json"
check "calibrate: bar on a TTY" has_bar cal.tty
expect_rc 0 "calibrate on a pipe" "$R" calibrate $W --seconds 0.3 -o c2.json
check "calibrate pipe: no bar" no_bar "$TMP/.err"
expect_rc 0 "calibrate --progress" "$R" calibrate $W --seconds 0.3 --progress -o c3.json
check "calibrate --progress: bar" has_bar "$TMP/.err"
summary
