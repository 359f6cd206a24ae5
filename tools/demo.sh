#!/bin/sh
# tools/demo.sh — the main job end to end.  Until the lock layer lands this
# hashes the official RandomX v2 vector with the real engine and compares.
set -e
RX=${1:-build/rxlock}
key=74657374206b657920303030            # "test key 000"
input=5468697320697320612074657374      # "This is a test"
want=22ec6b861b3eb23686b2efbad69513c967ecfce80983df66c9c5b4fbfb4cdb6f
echo "demo: RandomX v2 hash of \"This is a test\" under key \"test key 000\" (light mode)"
got=$("$RX" hash --v2 --key "$key" --input "$input")
echo "  got  $got"
echo "  want $want"
[ "$got" = "$want" ] && echo "demo: OK"
