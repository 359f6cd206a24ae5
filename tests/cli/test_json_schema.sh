# SPDX-License-Identifier: ISC
# tests/cli/test_json_schema.sh — every command's --json lines against the
# machine-readable schema docs/json-schema.json (docs/JSON.md), validated
# with ajv (npm, test-only, installed into $RXLOCK_NPM_DIR, default
# build/npm, git-ignored): lock, lock FILE, solve, unlock, inspect (one
# line; --pretty), verify, calibrate, plan, group, group --verify, plan
# status, assemble, and the error event of failing runs (a pin mismatch,
# exit 3; a usage error, exit 2; a missing file, exit 1).  Without Node
# >= 20 or the registry, the shape checks that need no validator still run
# and the validation is skipped with a line saying so.
. tests/cli/lib.sh
. tests/cli/npm_oracle.sh
R=$RXLOCK
SRC=$PWD
cd "$TMP" || exit 1
: > lines.tsv
# run_json LABEL RC COMMAND...: COMMAND's stdout lines go to lines.tsv
# (labelled); it must exit RC, every line must be one JSON object, and the
# last line must be the done event (RC 0) or the error event with exit RC.
run_json() { _l=$1; _rc=$2; shift 2
  expect_rc "$_rc" "$_l" "$@"
  sed "s/^/$_l	/" "$TMP/.out" >> lines.tsv
  check "$_l: a last line" test -s "$TMP/.out"
  if [ "$_rc" -eq 0 ]; then
    check "$_l: ends with its done event" sh -c "tail -n 1 '$TMP/.out' | grep -q '^{\"event\":\"done\",\"command\":'"
  else
    check "$_l: ends with an error event, exit $_rc" sh -c "tail -n 1 '$TMP/.out' | grep -q '^{\"event\":\"error\",\"command\":\"[a-z ]*\",\"exit\":$_rc,\"message\":\"..*\"}\$'"
  fi; }
printf 'a secret\n' > f.txt
run_json calibrate 0 "$R" calibrate --work sha3-256 --seconds 0.5 -o cal.json --json
run_json lock 0 "$R" lock --work sha3-256 --groups 2 --steps 3000 --rate 1000 -o p.json --json
run_json lock-file 0 "$R" lock f.txt --work sha3-256 --groups 2 --steps 3000 --rate 1000 --json
run_json solve 0 "$R" solve p.json -o id.txt --json
run_json unlock 0 "$R" unlock f.txt.rxlock -o f.out --json
run_json inspect 0 "$R" inspect p.json --json
check "inspect --json: one line" test "$(wc -l < "$TMP/.out")" -eq 1
run_json inspect-rxlock 0 "$R" inspect f.txt.rxlock --json --no-estimate
expect_rc 0 "inspect --pretty" "$R" inspect p.json --pretty --no-estimate
check "inspect --pretty: indented, the same object" python3 -c '
import json, subprocess, sys
t = open(sys.argv[1]).read()
assert t.count("\n") > 10
one = subprocess.run([sys.argv[2], "inspect", "p.json", "--json", "--no-estimate"], capture_output=True, text=True).stdout
assert json.loads(t) == json.loads(one)' "$TMP/.out" "$R"
run_json verify 0 "$R" verify p.json --json
run_json verify-pin 3 "$R" verify p.json --json --signer-pin 0000000000000000000000000000000000000000000000000000000000000000
check "the pin mismatch's error event names the file" grep -q '"message":"p.json: not signed by the pinned key"' "$TMP/.out"
run_json usage-typo 2 "$R" lock --work sha3-256 --groups 2 --stepz 10 -o q.json --json
check "a usage error's event carries the suggestion" grep -q "did you mean '--steps'" "$TMP/.out"
run_json unlock-missing 1 "$R" unlock nothere.rxlock --json
mkdir keys
run_json plan 0 "$R" plan --work sha3-256 --groups 3 --steps 4000 --planner-key keys/p.key --worker-key keys/w.key -o P --json
run_json plan-status-new 0 "$R" plan status P --json
check "plan status: every task missing at first" sh -c "grep -c '\"state\":\"missing\"' '$TMP/.out' | grep -qx 6"
export RXLOCK_WORKER_KEY="$TMP/keys/w.key"
run_json group 0 "$R" group P 0 --json
run_json group-1 0 "$R" group P 1 --json
run_json plan-status-mid 0 "$R" plan status P --json
check "plan status: 2 group tasks done, task 2 missing" python3 -c '
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
t = {(e["verify"], e["task"]): e["state"] for e in l if e["event"] == "task"}
assert t[(False, 0)] == t[(False, 1)] == "done" and t[(False, 2)] == "missing", t
d = l[-1]
assert d["group_tasks"] == {"done": 2, "running": 0, "missing": 1, "failed": 0} and not d["complete"], d
assert "rxlock group P 2" in d["next"], d' "$TMP/.out"
run_json group-2 0 "$R" group P 2 --json
for v in 0 1 2; do run_json "group-verify-$v" 0 "$R" group --verify P $v --json; done
check "group --verify: a done event with verify true" grep -q '"command":"group","plan":"P","task":2,"verify":true' "$TMP/.out"
run_json plan-status-done 0 "$R" plan status P --json
check "plan status: complete, assemble next" sh -c "tail -n 1 '$TMP/.out' | grep -q '\"complete\":true,\"next\":\"every task is done: .rxlock assemble P'"
run_json assemble 0 "$R" assemble P --planner-key keys/p.key -o pz.json --json
run_json assemble-again 1 "$R" assemble P --planner-key keys/p.key -o pz.json --json
# the shapes every line must have, with or without a validator
check "every line is one JSON object with an event" python3 -c '
import json, sys
for raw in open(sys.argv[1]):
    label, text = raw.rstrip("\n").split("\t", 1)
    o = json.loads(text)
    assert isinstance(o, dict) and list(o)[0] == "event", (label, text[:200])' lines.tsv
if ! npm_oracle_ready "ajv@8" "node_modules/ajv/dist/ajv.js"; then
  echo "SKIP: $NPM_SKIP; the JSON lines were not validated against docs/json-schema.json"
  summary; exit
fi
V() { NPM_DIR="$NPM_DIR" node "$SRC/tests/oracle/json_lines.mjs" "$SRC/docs/json-schema.json" "$@"; }
check "every --json line matches docs/json-schema.json" env NPM_DIR="$NPM_DIR" sh -c "node '$SRC/tests/oracle/json_lines.mjs' '$SRC/docs/json-schema.json' lines.tsv > valid.log"
cat valid.log
# the validator is not vacuous: a stray key, a wrong type, an unknown event
printf 'stray\t{"event":"done","command":"verify","input":"p.json","ok":true,"container":false,"version":2,"work":"sha3-256","groups":2,"steps":2000,"signer":null,"signature_covers":"x","test_only":false,"file":"p.json"}\n' > bad1.tsv
printf 'type\t{"event":"error","command":"verify","exit":"3","message":"m"}\n' > bad2.tsv
printf 'unknown\t{"event":"verified","task":0}\n' > bad3.tsv
for b in 1 2 3; do
  V bad$b.tsv > bad$b.log; rc=$?
  check "a bad line is refused (bad$b)" test "$rc" -eq 1 -a "$(grep -c 'valid$' bad$b.log)" -eq 1
done
summary
