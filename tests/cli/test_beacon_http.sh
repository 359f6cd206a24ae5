#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_http.sh — a beacon served over HTTP by any static
# server (here `python3 -m http.server` on 127.0.0.1, always stopped by
# the test): `beacon status URL`, `beacon solve URL` (the sealed path too),
# `encrypt --feed URL` / `decrypt --feed URL`; a URL that is not there, a
# feed larger than the limit, a tampered feed and a puzzle whose digest
# differs from the feed are refused; non-http(s) schemes are refused.
. "$(dirname "$0")/lib.sh"
R=$RXLOCK_TESTBIN
cd "$TMP" || exit 1
export RXLOCK_TEST_INSECURE=1
command -v python3 >/dev/null || { echo "no python3: skipped"; summary; exit 0; }
printf 'sha3-256 1000 slow test floor\n' > floor.txt
export RXLOCK_TEST_FLOOR_TABLE="$PWD/floor.txt"   # the clients' floor: the beacons' slow test row
now=$(date +%s); start=$((now + 1000))
at() { off=$1; shift; RXLOCK_TEST_CLOCK_SKEW=$((start - 1000 + off - $(date +%s))) "$R" "$@"; }
"$R" beacon init B --work sha3-256 --groups 2 --steps 10000 --floor-table floor.txt --every 10s --ahead 4 \
  --start "@$start" --workers 2 >B.pin 2>/dev/null
pin=$(cat B.pin)
expect_rc 0 "run before the start" "$R" beacon run B --once --gen-rate 1e6
expect_rc 0 "run at the start" at 1000 beacon run B --once --gen-rate 1e6
cp -r B/public WWW

# the server: a free port, stopped on exit whatever happens
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd WWW && exec python3 -m http.server --bind 127.0.0.1 "$port") >server.log 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null; rm -rf "$TMP"' EXIT
URL=http://127.0.0.1:$port
n=0; while [ $n -lt 50 ] && ! python3 -c "import urllib.request; urllib.request.urlopen('$URL/feed.json')" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done

expect_rc 0 "status URL" "$R" beacon status "$URL" --signer-pin "$pin"
check "status URL lists the epochs" grep -q '^epoch 1  scheduled' "$TMP/.out"
expect_rc 0 "status URL/ (a trailing slash)" "$R" beacon status "$URL/" --signer-pin "$pin"
echo "over http $$" > msg.txt
expect_rc 0 "encrypt --feed URL" at 1000 encrypt --feed "$URL" --signer-pin "$pin" --open-after 25s -o msg.age msg.txt
check "the reference names the URL" grep -q "\"feed\": \"$URL\"" msg.age.beacon
expect_rc 0 "solve URL (released and sealed epochs)" at 1000 beacon solve "$URL" --ids IDS --signer-pin "$pin"
check "epoch 0 from its released puzzle" test -s IDS/0.txt
check "later epochs unsealed over HTTP" grep -q 'epoch 3: unsealed with epoch 1' "$TMP/.err"
expect_rc 0 "decrypt --feed URL --ids" at 1000 decrypt --feed "$URL" --ids IDS -o out.txt msg.age
check "... to the original" cmp -s out.txt msg.txt
# identities published on the server: decrypt fetches them
mkdir -p WWW/identities && cp B/public/feed.json WWW/feed.json
expect_rc 0 "the operator publishes identities" at 1000 beacon solve B --ids OPIDS -q
cp B/public/identities/* WWW/identities/ && cp B/public/feed.json WWW/feed.json
expect_rc 0 "decrypt --feed URL fetches the identity" at 1000 decrypt --feed "$URL" -o out2.txt msg.age
check "... to the original" cmp -s out2.txt msg.txt

# refusals
expect_rc 1 "a URL with no feed" "$R" beacon status "$URL/nothing-here"
check "... says no feed there" grep -q 'no feed there' "$TMP/.err"
expect_rc 1 "a closed port" "$R" beacon status "http://127.0.0.1:1"
expect_rc 1 "another scheme" "$R" beacon status "ftp://127.0.0.1/x"
check "... only http and https" grep -q 'only http:// and https://' "$TMP/.err"
mkdir WWW/big && head -c 9000000 /dev/zero | tr '\0' ' ' > WWW/big/feed.json
expect_rc 1 "a feed larger than 8 MiB" "$R" beacon status "$URL/big"
check "... refused for its size" grep -q 'larger than' "$TMP/.err"
mkdir WWW/t && sed 's/"updated":[0-9]*/"updated":1/' WWW/feed.json > WWW/t/feed.json
expect_rc 3 "a tampered feed over HTTP" "$R" beacon status "$URL/t"
check "... the signature" grep -q 'signature does not verify' "$TMP/.err"
# a released puzzle whose bytes differ from the feed's digest
mkdir -p WWW/p/puzzles && cp WWW/feed.json WWW/p/ && sed 's/"created": "/"created": "2/' WWW/puzzles/0.json > WWW/p/puzzles/0.json
expect_rc 1 "a puzzle that differs from the feed" at 1000 beacon solve "$URL/p" --ids IDP --signer-pin "$pin"
check "... refused by its digest" grep -q "digest differs from the feed" "$TMP/.err"
check "... and not solved" test ! -e IDP/0.txt
summary
