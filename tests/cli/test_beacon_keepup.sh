#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_keepup.sh — the keep-up check `beacon init` and
# `beacon run` share: init refuses, before writing anything, what run would
# refuse, and the refusal names the flags that fix it (--every,
# --opens-after, --cluster; --workers only up to this machine's CPUs;
# --groups when SIMD lanes sit idle); a sealed schedule that no period can
# save says so; the measured throughput names its workers x lanes and its
# windows; init without --groups picks groups filling workers x lanes;
# init --cluster leaves the check to the cluster.  Verdicts come from
# --gen-rate figures (no assertion on this machine's speed) except where
# the measured line's shape is checked.  A schedule that seals nothing gets
# sealing advice this throughput keeps up with, or is told none exists.
# Also a local run's instruments: --metrics (promtool check metrics where
# Debian's prometheus is installed) and the service section of `beacon
# status DIR`.  The pace a local run keeps (private/gen-pace) judges the
# next start: this CPU's and worker count's records only, a damaged line
# left out, --gen-rate outranks it; a stop by the process group's SIGTERM
# says no worker failed.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
printf 'sha3-256 1000000 test floor\n' > floor.txt     # 1 MH/s floor
cpus=$(nproc)
base="--work sha3-256 --floor-table floor.txt --every 60s --no-verify"

# unsealed (floor work 10 s < 60 s): 10 M hashes a period
expect_rc 1 "init refuses a schedule it cannot keep up with" "$R" beacon init U $base --groups 2 --steps 5000000 --gen-rate 1000
check "... before writing anything" test ! -e U
check "... names --every with the period that keeps up" grep -q -- '--every 2h46m4[01]s or longer' "$TMP/.err"
check "... names --cluster" grep -q -- '--cluster slurm|k8s' "$TMP/.err"
check "... one line" test "$(wc -l < "$TMP/.err")" -eq 1
check "... no sealed-schedule note for an unsealed one" sh -c "! grep -q 'No SEALED' '$TMP/.err'"
expect_rc 1 "fewer workers than CPUs: names --workers up to the CPUs" "$R" beacon init U $base --groups 2 --steps 5000000 --workers 1 --gen-rate 1000
check "... --workers $cpus" grep -q -- "--workers $cpus (this machine has $cpus CPUs)" "$TMP/.err"
expect_rc 1 "more workers than CPUs: never advises more" "$R" beacon init U $base --groups 2 --steps 5000000 --workers $((cpus * 8)) --gen-rate 1000
check "... no --workers advice" sh -c "! grep -q -- '--workers' '$TMP/.err'"
expect_rc 0 "init accepts what keeps up" "$R" beacon init U $base --groups 2 --steps 5000000 --gen-rate 1e6
check "... says the margin" grep -q 'keeps up: .*margin 6.00x' "$TMP/.err"
expect_rc 1 "run refuses what init would" "$R" beacon run U --once --gen-rate 1000
check "... with the same words" grep -q -- '--every 2h46m4[01]s or longer.*--cluster' "$TMP/.err"
check "... nothing generated" test "$(ls U/private/puzzles | wc -l)" -eq 0

# sealed (floor work 60 s = one period): needs generation above the floor rate at any period
expect_rc 1 "sealed below the floor rate: no period saves it" "$R" beacon init S $base --groups 2 --steps 30000000 --gen-rate 900000
check "... says no sealed schedule keeps up here" grep -q 'No SEALED schedule keeps up here at any period.*1.00 MH/s' "$TMP/.err"
check "... longer --every unseals" grep -q -- '--every .* or longer (then unsealed' "$TMP/.err"
check "... shorter --opens-after unseals" grep -q -- '--opens-after .* or shorter (then unsealed)' "$TMP/.err"
expect_rc 0 "sealed above the floor rate keeps up" "$R" beacon init S $base --groups 2 --steps 30000000 --gen-rate 1100000
check "... and is sealed" grep -q 'sealing: epoch E is sealed' "$TMP/.err"

# a schedule that seals nothing: init's advice names only an --every that seals
# and keeps up (whole seconds, never 0), or says that none does
expect_rc 0 "floor work under a second" "$R" beacon init A0 $base --groups 2 --steps 1000 --gen-rate 1e9
check "... no --every advised (1s is the shortest)" grep -q 'No --every removes it (the shortest --every, 1s, is longer than the floor work); a longer --opens-after (floor work >= 1m00s) does' "$TMP/.err"
check "... never 'at most 0'" sh -c "! grep -q 'at most 0' '$TMP/.err'"
expect_rc 0 "floor work 10 s, 8.3 s of generation a period" "$R" beacon init A1 $base --groups 2 --steps 5000000 --gen-rate 1.2e6
check "... an --every of 9s..10s" grep -q -- 'or an --every of at most 10s and at least 9s (the shortest this machine keeps up with) removes it' "$TMP/.err"
for e in 9 10; do
  expect_rc 0 "... --every ${e}s keeps up" "$R" beacon init A1-$e $base --groups 2 --steps 5000000 --gen-rate 1.2e6 --every ${e}s
  check "... and seals" grep -q 'sealing: epoch E is sealed to epoch max(0, E - 1)' "$TMP/.err"
done
expect_rc 1 "... --every 8s does not keep up" "$R" beacon init A1-8 $base --groups 2 --steps 5000000 --gen-rate 1.2e6 --every 8s
expect_rc 0 "below the floor rate: no period seals" "$R" beacon init A2 $base --groups 2 --steps 5000000 --gen-rate 9e5
check "... says none does, and why" grep -q 'No --every or --opens-after removes it here: the shortest --every this machine keeps up with, 12s, is longer than the floor work, and a longer --opens-after would not keep up: sealing needs .* 1.00 MH/s with 0% verified, this machine makes 900.0 kH/s' "$TMP/.err"

# measured: the line names workers x lanes and windows; groups fill them
expect_rc 0 "init measures (a tiny schedule)" "$R" beacon init M --work sha3-256 --floor-table floor.txt --every 60s --opens-after 1s --floor
check "... measured here: workers x lanes, median of windows" grep -q 'measured here: [0-9]* workers\{0,1\} x [0-9]* lanes\{0,1\}, median of [0-9]* windows' "$TMP/.err"
w=$(sed -n 's/.*measured here: \([0-9]*\) worker.* x \([0-9]*\) lane.*/\1/p' "$TMP/.err")
l=$(sed -n 's/.*measured here: \([0-9]*\) worker.* x \([0-9]*\) lane.*/\2/p' "$TMP/.err")
check "... with the machine's CPUs as workers" test "$w" = "$cpus"
check "... groups = workers x lanes ($w x $l)" grep -q "\"groups\": $((w * l))," M/beacon.json
check "... a lane count of 1..8" test "$l" -ge 1 -a "$l" -le 8
if [ "${l:-1}" -gt 1 ]; then
  expect_rc 1 "lanes left idle: the refusal names --groups" "$R" beacon init U $base --groups 2 --steps 5000000 --gen-rate 1000
  check "... --groups $((w * l)) (workers x lanes)" grep -q -- "--groups $((w * l)) at \`beacon init\` (fills $w workers x $l SIMD lanes" "$TMP/.err"
fi

# the instruments of a local run: --metrics (Prometheus text) and status DIR's service section
expect_rc 0 "a tiny beacon" "$R" beacon init T --work sha3-256 --floor-table floor.txt --every 60s --groups 2 --steps 1000 --ahead 2 --gen-rate 1e9
expect_rc 0 "run --once --metrics" "$R" beacon run T --once --gen-rate 1e9 --metrics T.prom
check "metrics: epochs ahead, local" grep -q '^rxlock_beacon_epochs_ahead{beacon="T",mode="local"} 2$' T.prom
check "metrics: the margin the check measured" grep -q '^rxlock_beacon_keepup_margin{beacon="T",mode="local"} ' T.prom
check "metrics: every sample has HELP and TYPE" test "$(grep -c '^# HELP' T.prom)" -eq "$(grep -c '^# TYPE' T.prom)"
if command -v promtool >/dev/null 2>&1; then
  expect_rc 0 "promtool check metrics" sh -c "promtool check metrics < T.prom"
else
  echo "SKIP promtool check metrics: Debian's prometheus is not installed (tools/deps.sh)" >&2
fi
expect_rc 0 "status DIR: the service's record" "$R" beacon status T
check "... local, not running, nothing being made" sh -c "grep -q '^service: local generation, NOT RUNNING' '$TMP/.out' && grep -q 'making: nothing' '$TMP/.out'"
expect_rc 0 "status DIR --json: a second line" "$R" beacon status T --json
check "... {\"service\": ...}" sh -c "test \$(wc -l < '$TMP/.out') -eq 2 && tail -n 1 '$TMP/.out' | grep -q '^{\"service\":{\"rxlock_service\":1,\"mode\":\"local\"'"
expect_rc 0 "status of a copy of public/: no service section" "$R" beacon status T/public
check "... none" sh -c "! grep -q '^service:' '$TMP/.out'"

# the pace kept as the service generated (private/gen-pace): the next start judges by it, not by a few seconds
expect_rc 0 "a beacon whose epoch key takes seconds" "$R" beacon init P --work sha3-256 --floor-table floor.txt --every 1h \
  --groups 1 --steps 12000000 --ahead 1 --workers 1 --no-verify --gen-rate 1e9
expect_rc 0 "run --once generates it" "$R" beacon run P --once --gen-rate 1e9
check "its pace kept: one line, 1 worker, this CPU" grep -q '^rate=[0-9]* at=[0-9]* workers=1 cpu=.' P/private/gen-pace
cpu=$(sed -n 's/^rate=.* cpu=//p' P/private/gen-pace | head -n 1)
{ for r in 900 1000 1100; do echo "rate=$r at=1 workers=1 cpu=$cpu"; done; } > P/private/gen-pace
expect_rc 1 "the next start refuses at the pace kept (median 1 kH/s; 12 M hashes an hour need 3.33 kH/s)" "$R" beacon run P --once
check "... says where the figure comes from" grep -q 'at 1000.0H/s (as this beacon generated its last 3 epoch keys here: median, 900.0..1100.0H/s; private/gen-pace, remove it to measure again' "$TMP/.err"
check "... without measuring" sh -c "! grep -q 'measured here' '$TMP/.err'"
{ for r in 5e6 6e6 7e6; do echo "rate=$r at=1 workers=1 cpu=$cpu"; done; echo "rate=bad"; } > P/private/gen-pace
expect_rc 0 "a pace that keeps up starts it (a damaged line left out)" "$R" beacon run P --once
check "... keeps up, by the pace kept" grep -q 'keeps up: .*as this beacon generated its last 3 epoch keys here' "$TMP/.err"
{ for r in 5e6 6e6; do echo "rate=$r at=1 workers=1 cpu=$cpu"; done; echo "rate=6e6 at=1 workers=1 cpu=another CPU"; echo "rate=6e6 at=1 workers=2 cpu=$cpu"; } > P/private/gen-pace
expect_rc 0 "another CPU's or worker count's records do not count: measured again" "$R" beacon run P --once
check "... measured here" grep -q 'keeps up: .*measured here' "$TMP/.err"
expect_rc 0 "--gen-rate outranks the pace kept" "$R" beacon run P --once --gen-rate 1e9
check "... given" grep -q 'keeps up: .*given by --gen-rate' "$TMP/.err"

# stopped as a service manager stops it (SIGTERM to the whole process group): no worker "failed"
expect_rc 0 "a beacon with a long epoch" "$R" beacon init Q --work sha3-256 --floor-table floor.txt --every 1h \
  --groups 2 --steps 400000000 --ahead 1 --no-verify --gen-rate 1e9
setsid "$R" beacon run Q --gen-rate 1e9 2>q.log & qp=$!
k=0; while [ $k -lt 100 ] && ! grep -q 'generating epoch 0' q.log; do sleep 0.1; k=$((k + 1)); done
sleep 1; /bin/kill -TERM -- "-$qp"; wait "$qp"
check "stopped on the signal" grep -q 'stopping on a signal' q.log
check "... no worker said to have failed" sh -c "! grep -q 'failed' q.log"

# --cluster: not checked here
expect_rc 0 "init --cluster slurm leaves the check to the cluster" "$R" beacon init C $base --groups 2 --steps 5000000 --gen-rate 1 --cluster slurm
check "... says so" grep -q 'keep-up: not checked here: generation runs on a cluster' "$TMP/.err"
expect_rc 2 "init --cluster other: usage" "$R" beacon init C2 $base --groups 2 --steps 10 --cluster pbs
summary
