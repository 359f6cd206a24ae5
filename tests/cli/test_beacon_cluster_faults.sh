#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_cluster_faults.sh — `beacon run --cluster slurm`
# on a fake Slurm (tests/cli/fake/: sbatch, squeue, scancel as scripts on
# PATH that run the array tasks here) meeting each fault of README's "A
# beacon on a cluster" (§Faults): sbatch refusing, sbatch and squeue
# hanging (bounded by --cmd-timeout; a job sbatch made before it hung is
# found by its name, not submitted twice), a job that never starts (said
# at once when held, else after a while, with squeue's reason; a
# verification job held once the group job is done), a lost job
# (resubmitted once, its done task kept), an assembly refused (never
# published, planned again; given up when --retries is spent, the next
# epoch made), a full disk at the record, the plan, the puzzle (the
# service goes on and is said to wait) and the feed (said once; releases
# go on and each step tries the feed again; --once exits 1).  In each: said once however many polls, with the way out; nothing
# published unverified; no key outside DIR/private/.  The services run
# side by side, polling every second (about 17 s in all).
. "$(dirname "$0")/lib.sh"
SRC=$PWD
cd "$TMP" || exit 1
R=$RXLOCK
T=$RXLOCK_TESTBIN
mkdir -p bin
ln -s "$R" bin/rxlock
for t in sbatch squeue scancel; do ln -s "$SRC/tests/cli/fake/$t" "bin/$t"; done
printf 'sha3-256 1000 slow test floor\n' > floor.txt
# mk D [init options]: a Slurm beacon (one epoch ahead, released in 10 min) and its own fake Slurm
mk() { _d=$1; shift; mkdir -p "fs-$_d"
  "$R" beacon init "$_d" --work sha3-256 --groups 2 --steps 2000 --floor-table floor.txt --every 30s --ahead 1 \
    --start +600s --cluster slurm "$@" >/dev/null 2>&1; }
# serve D MODE BIN [VAR=VALUE...]: the service on D's fake Slurm playing MODE, in the background, its log in D.log
serve() { _d=$1; echo "$2" > "fs-$_d/mode"; _b=$3; shift 3
  env FAKE_SLURM="$TMP/fs-$_d" PATH="$TMP/bin:$PATH" "$@" "$_b" beacon run "$_d" --cluster slurm --poll 1s \
    --cmd-timeout 1s 2>>"$_d.log" &
  echo $! > "$_d.pid"; }
stop() { kill "$(cat "$1.pid")" 2>/dev/null; wait "$(cat "$1.pid")"; }
alive() { kill -0 "$(cat "$1.pid")" 2>/dev/null; }
said_once() { test "$(grep -c -- "$2" "$1.log")" -eq 1; }
calls() { cat "fs-$1/log" 2>/dev/null | grep -c "^$2 "; }
made() { test -f "$1/private/puzzles/0.json" && grep -q 'epoch 0 (0): assembled' "$1.log"; }
nothing_public() { ! ls "$1/public/puzzles" "$1/public/sealed" 2>/dev/null | grep -q json; }
IS="RXLOCK_TEST_INSECURE=1"

mk refused --no-verify; serve refused refuse "$R"
mk hung --no-verify; serve hung hang-after "$R"
mk squeue --no-verify; serve squeue squeue-hang "$R"
mk held --verify=full; serve held pending:JobHeldAdmin "$R"
mk vheld --verify=full; serve vheld vpending:JobHeldUser "$R"
"$R" beacon init waits --work sha3-256 --groups 2 --steps 2000 --floor-table floor.txt --every 10s --ahead 1 \
  --start +10s --cluster slurm >/dev/null 2>&1; mkdir -p fs-waits; serve waits pending:Resources "$R"
mk lost --no-verify; serve lost lost "$R"
mk stray --verify=full; serve stray stray "$R"
"$R" beacon init bounded --work sha3-256 --groups 2 --steps 2000 --no-verify --floor-table floor.txt --every 30s \
  --ahead 2 --start +600s --cluster slurm >/dev/null 2>&1; mkdir -p fs-bounded
echo stray > fs-bounded/mode
env FAKE_SLURM="$TMP/fs-bounded" PATH="$TMP/bin:$PATH" "$R" beacon run bounded --cluster slurm --poll 1s --retries 0 \
  2>bounded.log & echo $! > bounded.pid
mk record --no-verify; serve record ok "$T" $IS RXLOCK_TEST_STATE_ENOSPC=private/cluster/0.state
mk plan --no-verify; serve plan ok "$T" $IS RXLOCK_TEST_PLAN_ENOSPC=1
mk puzzle --no-verify; serve puzzle ok "$T" $IS RXLOCK_TEST_STATE_ENOSPC=private/puzzles/0.json

# ---- sbatch refuses: said once with its words, the same submission tried at every poll
check "refused: sbatch tried at three polls" wait_for 30 sh -c "test \$(grep -c '^sbatch ' fs-refused/log) -ge 3"
check "refused: said once, with sbatch's words and the way out" said_once refused \
  'not submitted: sbatch slurm.sbatch failed (exit 1): sbatch: error: Batch job submission failed: Invalid account.*fix what it says'
check "refused: always the same job name (not counted as a resubmission)" \
  test "$(grep -c -- '--job-name=rxlock-[0-9a-f]*-0-a1 ' fs-refused/log)" -eq "$(calls refused sbatch)"
check "refused: the service goes on" alive refused
check "refused: nothing made" sh -c "! test -f refused/private/puzzles/0.json"
echo ok > fs-refused/mode
check "refused: once sbatch takes it, assembled" wait_for 30 made refused
check "refused: ... from one submission" wait_for 10 grep -q 'epoch 0 (0): assembled (2 tasks, 1 submission,' refused.log

# ---- sbatch hangs after making the job: bounded, then the job found by its name
check "hung: said once, bounded by --cmd-timeout" wait_for 30 said_once hung \
  'not submitted: sbatch slurm.sbatch: no answer within the time limit: killed'
check "hung: the job it made found by its name" wait_for 30 grep -q 'epoch 0 (0): found its submission 101 by name' hung.log
check "hung: assembled" wait_for 30 made hung
check "hung: submitted once" test "$(calls hung sbatch)" -eq 1

# ---- squeue hangs: bounded, said once; followed again when it answers
check "squeue hangs: asked at three polls" wait_for 30 sh -c "test \$(grep -c '^squeue ' fs-squeue/log) -ge 3"
check "squeue hangs: said once, with the way out" said_once squeue \
  'the scheduler did not answer about its jobs 101: squeue: no answer within the time limit: killed.*--cmd-timeout'
echo ok > fs-squeue/mode
check "squeue hangs: assembled once it answers" wait_for 30 made squeue
check "squeue hangs: submitted once" test "$(calls squeue sbatch)" -eq 1

# ---- a job that never starts: held (said at once), waiting for resources (said once it has waited)
check "held: said" wait_for 30 grep -q 'epoch 0 (0): job 101 has not started (squeue: JobHeldAdmin)' held.log
check "held: ... asked at three more polls" wait_for 30 sh -c "test \$(grep -c '^squeue ' fs-held/log) -ge 4"
check "held: said once, with the way out" said_once held \
  'job 101 has not started (squeue: JobHeldAdmin): unless it starts, the epoch is skipped at its release (.*scontrol release 101.*scancel 101'
check "verification held: said once the group job is done" wait_for 30 \
  grep -q 'epoch 0 (0): job 102 has not started (squeue: JobHeldUser).*scontrol release 102' vheld.log
n=$(calls vheld squeue)
check "verification held: ... asked again at the next poll" wait_for 30 sh -c "test \$(grep -c '^squeue ' fs-vheld/log) -ge $((n + 1))"
check "verification held: said once" said_once vheld 'has not started'
check "resources: said once it waited a quarter of the time to its release" wait_for 30 \
  grep -q 'epoch 0 (0): job 101 has not started (squeue: Resources)' waits.log
n=$(calls waits squeue)
check "resources: ... asked again at the next poll" wait_for 30 sh -c "test \$(grep -c '^squeue ' fs-waits/log) -ge $((n + 1))"
check "resources: said once" said_once waits 'epoch 0 (0): job 101 has not started'
check "never started: nothing made" sh -c "! test -f held/private/puzzles/0.json && ! test -f waits/private/puzzles/0.json"

# ---- a lost job: resubmitted once, its done task kept
check "lost: assembled" wait_for 40 made lost
check "lost: said once" said_once lost \
  'its jobs 101 ended, or the scheduler no longer knows them, with 1 of 2 tasks done: submitted again'
check "lost: one resubmission" sh -c "test \$(grep -c -- '-0-a1 ' fs-lost/log) -eq 1 && test \$(grep -c -- '-0-a2 ' fs-lost/log) -eq 1"
check "lost: its done task not computed again" grep -q 'task 0 (groups 1..1): 0 computed, 1 already done' fs-lost/tasks.log
check "lost: assembled from 2 submissions" grep -q 'epoch 0 (0): assembled (2 tasks, 2 submissions,' lost.log

# ---- an assembly refused: nothing published, the plan set aside, planned again
check "refused assembly: assembled from a new plan" wait_for 40 made stray
check "refused assembly: said once, with the first problem" said_once stray \
  'assembly refused: 1 problem with the group results; no puzzle written: results/group-0009.result: unexpected file.*nothing is published'
check "refused assembly: the plan set aside" sh -c "ls -d stray/plans/0.failed-* >/dev/null"
check "refused assembly: assembled once" test "$(grep -c 'assembled' stray.log)" -eq 1
check "refused assembly: the new plan's job names go on (a2)" grep -q -- '--job-name=rxlock-[0-9a-f]*-0-a2 ' fs-stray/log

check "given up: the next epoch made" wait_for 40 grep -q 'epoch 1 (1): assembled' bounded.log
check "given up: said once, after its one submission (--retries 0 bounds its plans too)" said_once bounded \
  'epoch 0 (0) GIVEN UP after 1 submission: '
check "given up: not planned again" sh -c "test \$(grep -c 'planned epoch 0' bounded.log) -eq 1 && ! test -f bounded/private/puzzles/0.json"

# ---- a full disk: at the record, the plan, the puzzle
check "disk full, record: said" wait_for 30 grep -q "the epoch's record cannot be written" record.log
check "disk full, plan: said" wait_for 30 grep -q 'not planned: planning epoch 0: .*No space left on device' plan.log
check "disk full, puzzle: said" wait_for 30 grep -q 'its puzzle cannot be written: .*No space left on device' puzzle.log
sleep 3   # a few more polls
check "disk full, record: said once, with the way out" said_once record "cannot be written: nothing is submitted.*free space"
check "disk full, record: nothing submitted" test "$(calls record sbatch)" -eq 0
check "disk full, plan: said once, with the way out" said_once plan 'not planned: .*free space'
check "disk full, plan: no half plan, no key left" sh -c "! test -e plan/plans/0/plan.json && ! ls plan/private/plans | grep -q key"
check "disk full, puzzle: said once, with the way out" said_once puzzle 'its puzzle cannot be written: .*free space'
check "disk full, puzzle: nothing made, the plan keys kept" sh -c "! test -f puzzle/private/puzzles/0.json && test -f puzzle/private/plans/0.planner.key"
for x in record plan puzzle; do
  check "disk full, $x: the service goes on" alive $x
  stop $x
  serve $x ok "$R"
done
for x in record plan puzzle; do check "disk full, $x: with space again, assembled" wait_for 30 made $x; done
check "disk full, puzzle: not submitted again" test "$(calls puzzle sbatch)" -eq 1
# at the feed: said once, the feed served stays whole, releases go on, each step tries the feed again;
# --once ends with exit 1
mk feed --no-verify
echo ok > fs-feed/mode
expect_rc 0 "feed: a first pass" env FAKE_SLURM="$TMP/fs-feed" PATH="$TMP/bin:$PATH" "$R" beacon run feed --cluster slurm --once
cp feed/public/feed.json feed.before
expect_rc 1 "disk full, feed: --once fails" env FAKE_SLURM="$TMP/fs-feed" PATH="$TMP/bin:$PATH" $IS \
  RXLOCK_TEST_STATE_ENOSPC=public/feed.json "$T" beacon run feed --cluster slurm --once
check "disk full, feed: said, with the way out" grep -q 'feed.json not published: No space left on device: the feed served is the last one; free space.*a running `beacon run` publishes it at its next step' "$TMP/.err"
check "disk full, feed: said once" test "$(grep -c 'not published: No space' "$TMP/.err")" -eq 1
check "disk full, feed: and that it ends unpublished" grep -q 'ending with feed.json not published' "$TMP/.err"
check "disk full, feed: the feed served unchanged" cmp -s feed.before feed/public/feed.json
expect_rc 0 "disk full, feed: with space again it goes on" env FAKE_SLURM="$TMP/fs-feed" PATH="$TMP/bin:$PATH" \
  "$R" beacon run feed --cluster slurm --once
"$R" beacon init feed2 --work sha3-256 --groups 2 --steps 2000 --floor-table floor.txt --every 4s --ahead 1 \
  --start +6s --cluster slurm --no-verify >/dev/null 2>&1
mkdir -p fs-feed2
serve feed2 ok "$T" $IS RXLOCK_TEST_STATE_ENOSPC=public/feed.json
check "disk full, feed, serving: epoch 0 released all the same" wait_for 30 test -f feed2/public/puzzles/0.json
check "disk full, feed, serving: the service goes on" alive feed2
stop feed2
check "disk full, feed, serving: said once" said_once feed2 'not published: No space'
check "disk full, feed, serving: no feed half-written" sh -c "! ls feed2/public | grep -q 'feed.json.'"

check "resources: at its release the epoch is skipped, its jobs cancelled" wait_for 30 grep -q '^scancel 101$' fs-waits/log
check "resources: ... said" grep -q 'epoch 0 skipped: its release time passed before it was generated' waits.log
for x in refused hung squeue held vheld waits lost stray bounded record plan puzzle; do stop $x; done
for x in refused hung squeue held vheld waits lost stray bounded record plan puzzle feed; do
  check "$x: no key outside private/" no_key_outside_private $x
  check "$x: nothing public before its release" nothing_public $x
  check "$x: no temp file" sh -c "! find '$x' -name '*.tmp-*' | grep -q ."
done
[ "$_f" -gt 0 ] && for x in refused hung squeue held waits lost stray record plan puzzle; do
  { echo "== $x.log"; tail -n 15 "$x.log"; echo "== fs-$x/log"; tail -n 8 "fs-$x/log"; } >&2; done
summary
