#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_v1.sh — formats last: a beacon directory made before
# beacon.json version 2 (tests/vectors/beacon-v1/, `beacon init` at commit
# cb0108c, whose floor seconds were rounded up) keeps running: `beacon run`
# generates, releases and publishes with its own arithmetic (feed
# floor_seconds still 1), leaves beacon.json at version 1, and `beacon
# status` reads what it published.  signer.key there is a test key.
. "$(dirname "$0")/lib.sh"
V=${RXLOCK_VECTORS:-$PWD/tests/vectors}/beacon-v1
export RXLOCK_TEST_INSECURE=1
D="$TMP/b"
# the folders `beacon init` made (git keeps no empty folder)
mkdir -p "$D/private/puzzles" "$D/private/state" "$D/public/puzzles" "$D/public/identities" "$D/public/sealed"
cp "$V/beacon.json" "$D/beacon.json"
cp "$V/signer.key" "$D/private/signer.key"
chmod 700 "$D/private"; chmod 600 "$D/private/signer.key"
before=$(cat "$D/beacon.json")
# epoch 0's release is 1800000000, every 10 s; at +15 epoch 1 is out
expect_rc 0 "beacon run --once on a version-1 DIR" env RXLOCK_TEST_CLOCK_SKEW=@1800000005 \
  "$RXLOCK_TESTBIN" beacon run "$D" --once --gen-rate 1000000
expect_rc 0 "beacon run --once again, past a release" env RXLOCK_TEST_CLOCK_SKEW=@1800000015 \
  "$RXLOCK_TESTBIN" beacon run "$D" --once --gen-rate 1000000
check "beacon.json left at version 1, unchanged" test "$(cat "$D/beacon.json")" = "$before"
check "feed.json published" test -s "$D/public/feed.json"
check "its floor seconds are the version-1 arithmetic (rounded up: 1)" grep -q '"floor_seconds":1[,}]' "$D/public/feed.json"
check "epoch 1 released at its time" test -s "$D/public/puzzles/1.json"
check "epoch 2 not released before its time" test ! -e "$D/public/puzzles/2.json"
expect_rc 0 "beacon status reads it" env RXLOCK_TEST_CLOCK_SKEW=@1800000015 \
  "$RXLOCK_TESTBIN" beacon status "$D"
check "status names epoch 2 scheduled" grep -q '^epoch 2  scheduled' "$TMP/.out"
summary
