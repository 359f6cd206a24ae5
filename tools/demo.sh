#!/bin/sh
# SPDX-License-Identifier: ISC
# tools/demo.sh — the main job end to end: time-lock a small file into a
# single .rxlock file (SHA3-256 chain, a few seconds of work), solve and
# open it with `rxlock unlock`, compare with the original.  The container's
# epoch key is post-quantum (age mlkem768x25519, the default for lock FILE);
# a --classic container's payload is a plain age X25519 file that Debian's
# age opens with the solved identity.  Then epochs: a classic one on
# RandomX v2 (records from rxlock and, if installed, Debian's age) and a
# post-quantum one (lock --pq).
set -e
RX=${1:-build/rxlock}
case $RX in /*) ;; *) RX=$PWD/$RX ;; esac
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
printf 'Meet at the old mill at noon. (%s)\n' "$(date -u +%FT%TZ)" > secret.txt
cp secret.txt original.txt
steps=${RXLOCK_DEMO_STEPS:-3000000}
echo "demo: lock secret.txt -> secret.txt.rxlock (2 groups x $steps sequential sha3-256 hashes, post-quantum epoch key)"
"$RX" lock secret.txt --work sha3-256 --groups 2 --steps "$steps" --rate 3000000
echo "demo: the notice at the top of the container:"
sed -n '/^#     rxlock unlock/p;/^# Work:/,/^# [a-z]/p' secret.txt.rxlock | sed 's/^/  | /'
rm secret.txt
echo "demo: unlock (solving sequentially; the journal is secret.txt.rxlock.journal)"
t0=$(date +%s)
"$RX" unlock secret.txt.rxlock --save-identity epoch-identity.txt
t1=$(date +%s)
echo "demo: solved in about $((t1 - t0)) s"
cmp secret.txt original.txt
echo "demo: plaintext matches: $(cat secret.txt)"
grep -q '^AGE-SECRET-KEY-PQ-1' epoch-identity.txt
echo "demo: the solved epoch identity is post-quantum (AGE-SECRET-KEY-PQ-1...)"
echo "demo: a --classic container (tiny chain): its payload is a plain age X25519 file"
"$RX" lock original.txt --classic --work sha3-256 --groups 1 --steps 1000 -o classic.rxlock -q
"$RX" unlock classic.rxlock -o classic.txt --save-identity classic-identity.txt -q
cmp classic.txt original.txt
if command -v age >/dev/null 2>&1; then
  off=$(grep -abo '^age-encryption.org/v1' classic.rxlock | head -n 1 | cut -d: -f1)
  tail -c +$((off + 1)) classic.rxlock | age -d -i classic-identity.txt | cmp - original.txt
  echo "demo: Debian's age opens the classic payload with the solved epoch identity too"
fi

# Part 2: the epoch-key job on the default work function, RandomX v2 (light
# mode, a tiny 2 x 10 chain): records are encrypted to the epoch recipient
# before the puzzle is solved, and open with the solved identity afterwards.
echo "demo: epoch puzzle on RandomX v2 (2 groups x 10 steps, light mode)"
recipient=$("$RX" lock --work randomx-v2 --groups 2 --steps 10 --mode light -o epoch.json)
echo "demo: epoch recipient $recipient"
printf 'audit record 1\n' | "$RX" encrypt -r "$recipient" -o record1.age
"$RX" verify epoch.json
"$RX" solve epoch.json --mode light -o epoch-id.txt
"$RX" decrypt -i epoch-id.txt record1.age > record1.txt
grep -q '^audit record 1$' record1.txt
echo "demo: record encrypted before the solve opens with the solved identity"

# Part 3: a post-quantum epoch (lock --pq): the recipient is age1pq1...
echo "demo: post-quantum epoch (sha3-256, 2 groups x 20000 steps)"
pq=$("$RX" lock --pq --work sha3-256 --groups 2 --steps 20000 -o pq-epoch.json)
echo "demo: post-quantum epoch recipient $(printf %.40s "$pq")... (${#pq} characters)"
printf 'audit record 2\n' | "$RX" encrypt -r "$pq" -o record2.age
"$RX" inspect pq-epoch.json --no-estimate | grep '^epoch key:'
"$RX" solve pq-epoch.json -o pq-id.txt
"$RX" decrypt -i pq-id.txt record2.age | grep -q '^audit record 2$'
echo "demo: the post-quantum record opens with the solved AGE-SECRET-KEY-PQ-1 identity"
echo "demo: OK"
