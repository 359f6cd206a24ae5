#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon.sh — shared epochs: `rxlock beacon init` (what it
# refuses, what it says about sealing), `run --once` (generation ahead,
# nothing public before its release time, the signed feed), `status`
# (text, --json, the pin), `solve` on the beacon's own DIR (identities and
# feed published), `encrypt --feed --open-after` (the choice rule) and
# `decrypt --feed` (before: says when; after: opens), Debian age interop,
# --both (classic + post-quantum keys, sealed to the pq key), two beacons
# nested (decrypt needs both; the age pipeline equivalent), a clock that
# goes back, and the keep-up refusal.  Time moves with the test build's
# RXLOCK_TEST_CLOCK_SKEW.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
printf 'sha3-256 1000 slow test floor\n' > floor.txt     # 2 x 10000 hashes = 20 s at the floor
export RXLOCK_TEST_FLOOR_TABLE="$PWD/floor.txt"   # the clients' floor: the beacons' slow test row
now=$(date +%s); start=$((now + 1000))
# at OFFSET CMD...: run CMD with the clock at start - 1000 + OFFSET (absolute)
at() { off=$1; shift; RXLOCK_TEST_CLOCK_SKEW=$((start - 1000 + off - $(date +%s))) "$R" "$@"; }
init() { d=$1; shift; "$R" beacon init "$d" --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt \
           --every 10s --ahead 3 --start "@$start" --workers 2 "$@" >"$d.pin" 2>"$d.init"; }

# ---- init
expect_rc 2 "init without --every" "$R" beacon init X --work sha3-256 --groups 1 --steps 10 --floor-table floor.txt
expect_rc 2 "init --both --pq" "$R" beacon init X --work sha3-256 --groups 1 --steps 10 --every 5s --both --pq --floor-table floor.txt
expect_rc 1 "init with no floor row for the work" "$R" beacon init X --work randomx-v1 --groups 1 --steps 10 --every 5s --floor-table floor.txt
check "refusals left nothing" test ! -e X
check "init" init B
pin=$(cat B.pin)
check "init prints the signer" test ${#pin} -eq 64
check "private is 0700" test "$(stat -c %a B/private)" = 700
check "signer key 0600" test "$(stat -c %a B/private/signer.key)" = 600
expect_rc 1 "init over an existing beacon" "$R" beacon init B --work sha3-256 --groups 1 --steps 10 --every 5s --floor-table floor.txt
"$R" beacon init O --work sha3-256 --groups 1 --steps 10 --every 5s --floor-table floor.txt 2>O.init >/dev/null
check "init says when every epoch is operator-only" grep -q 'EVERY epoch is operator-only.*--opens-after' O.init

# ---- run --once before the start: three epochs ahead, nothing released
expect_rc 0 "run --once" "$R" beacon run B --once
check "run logs a keep-up line" grep -q 'keeps up:' "$TMP/.err"
check "run says each epoch's generation time before it starts" grep -q 'generating epoch 0 (2 x 10000 sha3-256 hashes; about .* here, verification included)' "$TMP/.err"
check "three puzzles generated" test "$(ls B/private/puzzles | wc -l)" -eq 3
check "puzzles private 0600" test "$(stat -c %a B/private/puzzles/0.json)" = 600
check "no puzzle public" test "$(ls B/public/puzzles | wc -l)" -eq 0
check "no generation state left" test "$(ls B/private/state | wc -l)" -eq 0
expect_rc 0 "status with the pin" "$R" beacon status B --signer-pin "$pin"
check "status lists epoch 2" grep -q '^epoch 2  scheduled' "$TMP/.out"
expect_rc 3 "status with another pin" "$R" beacon status B --signer-pin "$(echo "$pin" | tr 0-9a-f 1-9a-f0)"
expect_rc 0 "status --json" "$R" beacon status B/public --json --signer-pin "$pin"
check "status --json is the feed" python3 -c "import json,sys; d=json.load(open('$TMP/.out')); assert d['rxlock_beacon_feed']==2 and len(d['feed']['epochs'])==3"
expect_rc 0 "status of a public/ copy warns without a pin" "$R" beacon status B/public
check "... names the key to pin" grep -q "no --signer-pin.*$pin" "$TMP/.err"
# one second before epoch 0's release: still nothing; at it: 0.json
check "init --both" init P --both
check "init a second beacon" init C
expect_rc 0 "run --both before the start" "$R" beacon run P --once --gen-rate 1e6
expect_rc 0 "run the second before the start" "$R" beacon run C --once --gen-rate 1e6
expect_rc 0 "run at release - 5 s" at 995 beacon run B --once --gen-rate 1e6
check "still nothing public at release - 5 s" test "$(ls B/public/puzzles | wc -l)" -eq 0
expect_rc 0 "run at release" at 1000 beacon run B --once --gen-rate 1e6
check "epoch 0 public at its release" test -f B/public/puzzles/0.json
check "... byte for byte the private one" cmp -s B/public/puzzles/0.json B/private/puzzles/0.json
check "... and only it" test "$(ls B/public/puzzles | wc -l)" -eq 1
check "epoch 3 generated (3 ahead of the first open one)" test -f B/private/puzzles/3.json

# ---- encrypt to a date (the choice rule), before release and solve
echo "to the future $$" > msg.txt
# earliest_opening(E) = start + 10E + 20: @start+35 -> epoch 2 (start+40)
expect_rc 0 "encrypt --open-after a date" at 1000 encrypt --feed B --open-after "@$((start + 35))" -o msg.age msg.txt
check "... picked epoch 2" grep -q '"epoch": 2' msg.age.beacon
check "... and said which" grep -q 'epoch 2, recipient age1' "$TMP/.err"
expect_rc 0 "encrypt --open-after a duration" at 1000 encrypt --feed B --open-after 31s -o dur.age msg.txt
check "... picked epoch 2 (now + 31 s)" grep -q '"epoch": 2' dur.age.beacon
expect_rc 1 "a date beyond the generated horizon" at 1000 encrypt --feed B --open-after 1h -o far.age msg.txt
check "... says so" grep -q 'no scheduled epoch opens at or after' "$TMP/.err"
check "... writes nothing" test ! -e far.age
expect_rc 1 "encrypt refuses an existing output" at 1000 encrypt --feed B --open-after 31s -o msg.age msg.txt
expect_rc 1 "decrypt before the identity is out" at 1000 decrypt --feed B -o out.txt msg.age
check "... says when it is expected" grep -q 'epoch 2 is not solved yet (not released): expected about' "$TMP/.err"
check "... writes nothing" test ! -e out.txt
expect_rc 2 "decrypt with the wrong number of feeds" at 1000 decrypt --feed B --feed B msg.age

# ---- solve on the beacon's own DIR (time: epoch 2 released)
expect_rc 0 "run at epoch 2's release" at 1020 beacon run B --once --gen-rate 1e6
expect_rc 0 "solve the own DIR" at 1020 beacon solve B --ids IDS -q
check "identities 0..2 in OUTDIR" sh -c 'test -s IDS/0.txt && test -s IDS/1.txt && test -s IDS/2.txt'
check "identities are 0600" test "$(stat -c %a IDS/2.txt)" = 600
check "identities published" test -s B/public/identities/2.txt
# --follow: a solver that keeps going: solves what is there, waits, reads the
# feed again and solves each epoch as it is released; SIGTERM ends it cleanly
RXLOCK_TEST_CLOCK_SKEW=$((start - 1000 + 1020 - $(date +%s))) "$R" beacon solve B --ids IDF --follow --poll 1 \
  >follow.out 2>follow.err & fp=$!
k=0; while [ $k -lt 100 ] && ! grep -q 'looking again at' follow.err; do sleep 0.1; k=$((k + 1)); done
check "follow: solved what was there, then waits" grep -q 'looking again at' follow.err
check "follow: identity 2" test -s IDF/2.txt
expect_rc 0 "run at epoch 5's release (releases 3..5, generates more)" at 1050 beacon run B --once --gen-rate 1e6
k=0; while [ $k -lt 100 ] && [ ! -s IDF/5.txt ]; do sleep 0.1; k=$((k + 1)); done
check "follow: epoch 5 solved once released" test -s IDF/5.txt
kill -TERM $fp; wait $fp; frc=$?
check "follow: SIGTERM ends it with exit 0" test $frc -eq 0
check "follow: says what the run solved" grep -q 'solved in this run' follow.err || sed 's/^/    | /' follow.err
expect_rc 0 "status after solving" "$R" beacon status B
check "epoch 2 is solved in the feed" grep -q '^epoch 2  solved' "$TMP/.out"
expect_rc 0 "decrypt --feed after the solve" at 1020 decrypt --feed B -o out.txt msg.age
check "... to the original" cmp -s out.txt msg.txt
check "Debian age -d opens it with the published identity" sh -c "age -d -i B/public/identities/2.txt msg.age | cmp -s - msg.txt"
rcp2=$(sed -n 's/^# public key: //p' IDS/2.txt)
check "Debian age -r to the feed's recipient" sh -c "age -r '$rcp2' -o byage.age msg.txt"
expect_rc 0 "rxlock decrypt -i opens age's file" "$R" decrypt -i IDS/2.txt -o out2.txt byage.age
check "... to the original" cmp -s out2.txt msg.txt

# ---- a clock that goes back: the feed's time never does
upd() { python3 -c "import json; print(json.load(open('B/public/feed.json'))['feed']['updated'])"; }
u1=$(upd)
expect_rc 0 "run with the clock 500 s back" at 500 beacon run B --once --gen-rate 1e6
check "... warns" grep -q 'clock .* is behind the last feed' "$TMP/.err"
check "... the feed keeps its time" test "$(upd)" -ge "$u1"
check "... nothing is unpublished" test -f B/public/puzzles/2.json

# ---- --both: a classic and a post-quantum key per slot, sealed to the pq key
expect_rc 0 "run --both at the start" at 1000 beacon run P --once --gen-rate 1e6
check "two puzzles per slot" sh -c 'test -f P/private/puzzles/1-classic.json && test -f P/private/puzzles/1-pq.json'
check "sealed per kind" sh -c 'test -f P/public/sealed/1-classic.age && test -f P/public/sealed/1-pq.age'
check "the feed names the pq seal" grep -q '"to":"pq"' P/public/feed.json
expect_rc 0 "encrypt --pq to a --both beacon" at 1000 encrypt --feed P --pq --open-after 21s -o pq.age msg.txt
check "... to the pq key" grep -q '"kind": "pq"' pq.age.beacon
expect_rc 0 "solve --both with --parallel 2" at 1000 beacon solve P --ids IDP --parallel 2 -q
check "both kinds of epoch 1 solved (epoch 1 unsealed)" sh -c 'test -s IDP/1-classic.txt && test -s IDP/1-pq.txt'
check "a pq identity" grep -q '^AGE-SECRET-KEY-PQ-1' IDP/1-pq.txt
expect_rc 0 "decrypt the pq file" at 1000 decrypt --feed P --ids IDP -o pqout.txt pq.age
check "... to the original" cmp -s pqout.txt msg.txt

# ---- two beacons nested: every identity is needed
expect_rc 0 "run it at the start" at 1000 beacon run C --once --gen-rate 1e6
expect_rc 0 "encrypt to two beacons" at 1000 encrypt --feed B --feed C --open-after 21s -o two.age msg.txt
check "two layers named" test "$(grep -c '"epoch"' two.age.beacon)" -eq 2
expect_rc 1 "decrypt with one beacon's identity only" at 1000 decrypt --feed B --feed C -o two.txt two.age
check "... says what is missing" grep -q 'of 2 identities are not published yet' "$TMP/.err"
expect_rc 0 "solve the second beacon" at 1000 beacon solve C --ids IDC -q
# B's epoch is one still scheduled when encrypting (epochs 2..5 were out): sealed by a released one
expect_rc 0 "solve the first beacon again" at 1000 beacon solve B --ids IDS -q
expect_rc 0 "decrypt with both" at 1000 decrypt --feed B --feed C -o two.txt two.age
check "... to the original" cmp -s two.txt msg.txt
eB=$(python3 -c "import json; print(json.load(open('two.age.beacon'))['layers'][0]['epoch'])")
eC=$(python3 -c "import json; print(json.load(open('two.age.beacon'))['layers'][1]['epoch'])")
check "the age pipeline opens it: age -d -i C | age -d -i B" \
  sh -c "age -d -i IDC/$eC.txt two.age | age -d -i IDS/$eB.txt | cmp -s - msg.txt"

# ---- a schedule this machine cannot keep up with is refused
expect_rc 1 "init refuses an unsustainable schedule" "$R" beacon init K --work sha3-256 --groups 2 --steps 100000000 --every 10s --floor-table floor.txt --workers 2 --gen-rate 1000
check "... before writing anything" test ! -e K
check "... naming the flags that fix it" grep -q 'cannot keep up.*--every .* or longer.*--opens-after.*--cluster' "$TMP/.err"
"$R" beacon init K --work sha3-256 --groups 2 --steps 100000000 --every 10s --floor-table floor.txt --workers 2 --gen-rate 1e12 >/dev/null 2>&1
expect_rc 1 "run refuses it as init would" "$R" beacon run K --once --gen-rate 1000
check "... saying what would" grep -q 'cannot keep up.*--every .* or longer.*--cluster' "$TMP/.err"
check "... before generating anything" test "$(ls K/private/puzzles | wc -l)" -eq 0

# ---- --plan-only: a cluster plan per epoch, assembled elsewhere, then sealed and published
"$R" beacon init L --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt --every 10s --ahead 2 \
  --start "@$start" --no-verify >L.pin 2>/dev/null
expect_rc 0 "run --plan-only" "$R" beacon run L --plan-only
check "two plans written" sh -c 'test -f L/plans/0/plan.json && test -f L/plans/1/plan.json'
check "... keys in private/" test -f L/private/plans/0.planner.key
check "... the assemble command logged" grep -q 'rxlock assemble L/plans/0 --planner-key L/private/plans/0.planner.key --sign-key L/private/signer.key -o L/private/puzzles/0.json' "$TMP/.err"
check "... nothing generated here" test "$(ls L/private/puzzles | wc -l)" -eq 0
for e in 0 1; do
  for t in 0 1; do "$R" group "L/plans/$e" $t --worker-key "L/private/plans/$e.worker.key" -q >/dev/null 2>&1; done
  "$R" assemble "L/plans/$e" --planner-key "L/private/plans/$e.planner.key" --sign-key L/private/signer.key \
    -o "L/private/puzzles/$e.json" >/dev/null 2>&1
done
check "the cluster's puzzles assembled" sh -c 'test -f L/private/puzzles/0.json && test -f L/private/puzzles/1.json'
expect_rc 0 "run --plan-only again: seals and publishes them" "$R" beacon run L --plan-only
check "... epoch 1 sealed" test -f L/public/sealed/1.age
expect_rc 0 "... and the feed lists both" "$R" beacon status L
check "... (epoch 1 listed)" grep -q '^epoch 1  scheduled' "$TMP/.out"
expect_rc 0 "release epoch 0 (plan-only pass at the start)" at 1000 beacon run L --plan-only
expect_rc 0 "solve the cluster-made epochs" at 1000 beacon solve L --ids IDL -q
check "... both opened (1 through its seal)" sh -c 'test -s IDL/0.txt && test -s IDL/1.txt'
summary
