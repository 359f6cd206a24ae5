# SPDX-License-Identifier: ISC
# tests/cli/test_cluster.sh — generation on a cluster: rxlock plan / group /
# assemble.  The generated slurm.sbatch and k8s-job.yaml are validated
# (bash -n; a YAML parser: kind Job, completionMode Indexed, completions)
# and executed locally as the engines would: every index its own process
# with SLURM_ARRAY_TASK_ID / JOB_COMPLETION_INDEX set, out of order, one
# task killed (kill -9) and re-run, one result tampered, one missing, one
# moved to another group's name.  The assembled puzzle is byte-identical to
# `rxlock lock` (test-only deterministic mode) and solves to the planned
# recipient.  sha3-256 with small steps, plus one small RandomX v2 light case.
# With RXLOCK_TEST_SLURM=1 (root, Debian slurm packages), tools/slurm-local.sh
# starts a one-node Slurm and the array job runs for real.
. tests/cli/lib.sh
cd "$TMP" || exit 1
R=$RXLOCK
mkdir -p keys bin
ln -s "$R" bin/rxlock
publine() { sed -n 's/^# public key: //p' "$1"; }
# flipbyte FILE OFFSET: invert one byte in place
flipbyte() { python3 -c 'import sys; p, o = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, "rb").read()); b[o] ^= 0xff; open(p, "wb").write(b)' "$1" "$2"; }
HAVE_YAML=0; python3 -c 'import yaml' 2>/dev/null && HAVE_YAML=1
[ $HAVE_YAML = 1 ] || echo "SKIP YAML checks: python3-yaml is not installed (tools/deps.sh installs it)" >&2

# run_slurm DIR INDEX: what slurmd does for one array task: run the batch
# script with bash and the task's environment.  run_slurm_verify: the same
# for the verification array (slurm-verify.sbatch).
run_slurm() { SLURM_ARRAY_TASK_ID=$2 SLURM_ARRAY_JOB_ID=1 SLURM_JOB_ID=$(( 100 + $2 )) RXLOCK=$R bash "$1/slurm.sbatch"; }
run_slurm_verify() { SLURM_ARRAY_TASK_ID=$2 SLURM_ARRAY_JOB_ID=2 SLURM_JOB_ID=$(( 200 + $2 )) RXLOCK=$R bash "$1/slurm-verify.sbatch"; }
# k8s_cmd DIR: the pod's command from the manifest, one argument per line,
# with the volume mounts mapped to their local paths (the plan volume ->
# DIR, the worker-key Secret -> keys/).
k8s_cmd() { python3 - "$1" "$TMP/keys" <<'EOF'
import sys, yaml
d, keys = sys.argv[1], sys.argv[2]
doc = yaml.safe_load(open(d + "/k8s-job.yaml"))
c = doc["spec"]["template"]["spec"]["containers"][0]
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
def local(s):
    s = s.replace(mounts["worker-key"], keys)
    return s.replace(mounts["plan"], d)
for a in c["command"] + c.get("args", []):
    print(local(a))
for e in c.get("env", []):
    print("ENV", e["name"], local(e["value"]))
EOF
}
# run_k8s DIR INDEX: what the kubelet does for pod INDEX of the Indexed Job.
run_k8s() {
  set --  "$1" "$2"
  cmd=$(k8s_cmd "$1") || return 99
  envs=$(echo "$cmd" | sed -n 's/^ENV \([^ ]*\) \(.*\)$/\1=\2/p')
  argv=$(echo "$cmd" | grep -v '^ENV ')
  # shellcheck disable=SC2086
  (IFS='
'; exec env -i PATH="$TMP/bin:/usr/bin:/bin" JOB_COMPLETION_INDEX=$2 $envs $argv)
}

R=$RXLOCK_TESTBIN   # deterministic test mode: test build only, up to the unset below
export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=0f0e0d0c0b0a09080706050403020100
# --- plan ------------------------------------------------------------------------
expect_rc 0 "plan sha3" "$R" plan --no-verify --work sha3-256 --groups 6 --steps 30000 --planner-key keys/planner.key --worker-key keys/worker.key --node-worker-key "$TMP/keys/worker.key" -o P
rcp=$(cat "$TMP/.out")
check "plan says: submit from the plan directory" grep -q 'Slurm: *cd P && sbatch slurm.sbatch' "$TMP/.err"
check "plan prints an age recipient" sh -c "echo '$rcp' | grep -q '^age1'"
check "plan files" test -f P/plan.json -a -f P/plan.secrets -a -f P/slurm.sbatch -a -f P/k8s-job.yaml -a -d P/results -a -d P/logs
check "6 job files" test "$(ls P/jobs | wc -l)" -eq 6
check "planner key 0600" test "$(stat -c %a keys/planner.key)" = 600
check "worker key 0600" test "$(stat -c %a keys/worker.key)" = 600
check "plan.secrets 0600" test "$(stat -c %a P/plan.secrets)" = 600
check "no key in the plan dir" sh -c '! grep -rq "^[0-9a-f]\{64\}$" P'
check "plan.json: keys public" grep -q "\"planner_public_key\": \"$(publine keys/planner.key)\"" P/plan.json
expect_rc 1 "plan: no clobber" "$R" plan --work sha3-256 --groups 6 --steps 30000 --planner-key keys/p2.key --worker-key keys/w2.key -o P
check "plan no clobber: one line" test "$(wc -l < "$TMP/.err")" -eq 1
check "plan no clobber: key files not written" test ! -e keys/p2.key -a ! -e keys/w2.key
expect_rc 1 "plan: planner key inside DIR refused" "$R" plan --work sha3-256 --groups 2 --steps 10 --planner-key Q/planner.key --worker-key keys/wq.key -o Q
mkdir -p Q2
expect_rc 1 "plan: worker key inside DIR refused" "$R" plan --work sha3-256 --groups 2 --steps 10 --planner-key keys/pq.key --worker-key Q2/w.key -o Q2
check "inside DIR: says why" grep -q 'must not be inside the plan directory' "$TMP/.err"
check "inside DIR: no key written" test ! -e keys/pq.key -a ! -e Q2/w.key
expect_rc 2 "plan: missing --groups" "$R" plan --work sha3-256 --steps 10 --planner-key keys/a --worker-key keys/b -o Q3
expect_rc 2 "plan: missing keys" "$R" plan --work sha3-256 --groups 2 --steps 10 -o Q3
expect_rc 2 "plan: batch > groups" "$R" plan --work sha3-256 --groups 2 --steps 10 --batch 3 --planner-key keys/a --worker-key keys/b -o Q3

# --- the scripts: syntax and shape ----------------------------------------------
check "slurm.sbatch: bash -n" bash -n P/slurm.sbatch
check "slurm.sbatch: array 0-5" grep -qx '#SBATCH --array=0-5' P/slurm.sbatch
check "slurm.sbatch: uses SLURM_ARRAY_TASK_ID" grep -q 'group "$RXLOCK_PLAN_DIR" "$SLURM_ARRAY_TASK_ID"' P/slurm.sbatch
check "slurm.sbatch: logs to logs/ of the job's working directory (the plan directory)" grep -qx '#SBATCH --output=logs/slurm-%A_%a.out' P/slurm.sbatch
check "slurm.sbatch: no path of the planning host in an #SBATCH line" sh -c "! grep '^#SBATCH' P/slurm.sbatch | grep -q '$TMP'"
if [ $HAVE_YAML = 1 ]; then
  check "k8s-job.yaml: Indexed Job, completions 6" python3 -c '
import sys, yaml
docs = list(yaml.safe_load_all(open(sys.argv[1])))
assert len(docs) == 1
d = docs[0]
assert d["apiVersion"] == "batch/v1" and d["kind"] == "Job", d
s = d["spec"]
assert s["completionMode"] == "Indexed" and s["completions"] == 6 and s["parallelism"] == 6, s
t = s["template"]["spec"]
assert t["restartPolicy"] in ("OnFailure", "Never")
c = t["containers"][0]
assert c["command"][:2] == ["rxlock", "group"], c
vols = {v["name"]: v for v in t["volumes"]}
assert "secret" in vols["worker-key"] and "persistentVolumeClaim" in vols["plan"]
' P/k8s-job.yaml
fi

# --- the job files' settings ---------------------------------------------
check "no rate: no --time, says why" sh -c "! grep -q '^#SBATCH --time' P/slurm.sbatch && grep -q '^# No --time: the plan has no rate' P/slurm.sbatch"
check "node worker key as given" grep -qx "export RXLOCK_WORKER_KEY=\${RXLOCK_WORKER_KEY:-$TMP/keys/worker.key}" P/slurm.sbatch
check "light, batch 1: --mem=544M (RandomX) / sha3 136M" grep -qx '#SBATCH --mem=136M' P/slurm.sbatch
expect_rc 0 "plan --rate: derived time limit" "$R" plan --work sha3-256 --groups 2 --steps 30000 --rate 1000 --planner-key keys/j1p.key --worker-key keys/j1w.key -o J1
# 2 x 30 s of work + 600 s = 660 s = 11 min
check "derived: 2 x work + 10 min" grep -qx '#SBATCH --time=0-00:11:00' J1/slurm.sbatch
check "default node key: \$HOME/.rxlock/NAME" grep -qx 'export RXLOCK_WORKER_KEY=${RXLOCK_WORKER_KEY:-$HOME/.rxlock/j1w.key}' J1/slurm.sbatch
check "plan says where the key goes" grep -q 'the worker key at ~/.rxlock/j1w.key on the nodes' "$TMP/.err"
expect_rc 0 "plan --task-rate" "$R" plan --work sha3-256 --groups 2 --steps 30000 --rate 1000 --task-rate 100 --planner-key keys/j2p.key --worker-key keys/j2w.key -o J2
check "task rate: 2 x 300 s + 600 s" grep -qx '#SBATCH --time=0-00:20:00' J2/slurm.sbatch
# RandomX light tasks at a (full-mode) plan rate: rate / 10, + 60 s setup:
# 2 x 4838400/76.8 + 60 + 600 = 126660 s -> 2111 min = 1-11:11:00
expect_rc 0 "plan v2 light, --rate 768" "$R" plan --work randomx-v2 --mode light --groups 96 --time 7d --rate 768 --planner-key keys/j3p.key --worker-key keys/j3w.key -o J3
check "light: derived from rate / 10" grep -qx '#SBATCH --time=1-11:11:00' J3/slurm.sbatch
check "light: --mem=544M" grep -qx '#SBATCH --mem=544M' J3/slurm.sbatch
# the generation estimate (every group a task at once; no saved calibration
# here: a lower bound at the floor's rate) and the cheaper ways past 10 min
check "plan: the generation estimate" grep -q '^rxlock: generation here: 96 x 4838400 = 464486400 randomx-v2 hashes in light mode on 96 workers at no more than 1674.5H/s each' "$TMP/.err"
check "plan: the cheaper ways" grep -q 'of generation here is over 10 minutes; cheaper ways:' "$TMP/.err"
expect_rc 0 "plan --dry-run: no keys, no DIR needed" "$R" plan --work randomx-v2 --groups 8 --time 1d --dry-run
check "plan --dry-run: the plan" grep -q '^dry run:       nothing is generated or written (plan: every group a task on its own node)' "$TMP/.out"
check "plan --dry-run: full mode, against the floor" grep -q '^sized:         --time 1d00h00m of hashing on the fastest known hardware (the floor)' "$TMP/.out"
expect_rc 0 "plan: every Slurm option, full, batch 2" "$R" plan --work randomx-v2 --mode full --batch 2 --groups 4 --steps 100 \
  --slurm-time 36h --slurm-partition long --slurm-account proj-7 --sbatch --qos=high --sbatch=--mail-type=END \
  --node-worker-key /home/op/.rxlock/w4.key --planner-key keys/j4p.key --worker-key keys/j4w.key -o J4
check "full, batch 2: --mem=2656M (2080 + 256 + 256 + 2 x 32)" grep -qx '#SBATCH --mem=2656M' J4/slurm.sbatch
check "--slurm-time 36h" grep -qx '#SBATCH --time=1-12:00:00' J4/slurm.sbatch
check "--slurm-partition" grep -qx '#SBATCH --partition=long' J4/slurm.sbatch
expect_rc 0 "plan --slurm-log-dir" "$R" plan --work sha3-256 --groups 2 --steps 10 --slurm-log-dir /scratch/op/rxlock-logs \
  --planner-key keys/j5p.key --worker-key keys/j5w.key -o J5
check "--slurm-log-dir: #SBATCH --output there" grep -qx '#SBATCH --output=/scratch/op/rxlock-logs/slurm-%A_%a.out' J5/slurm.sbatch
check "--slurm-log-dir: the verification array too" grep -qx '#SBATCH --output=/scratch/op/rxlock-logs/verify-%A_%a.out' J5/slurm-verify.sbatch
expect_rc 2 "--slurm-log-dir with a space: refused" "$R" plan --work sha3-256 --groups 2 --steps 10 --slurm-log-dir 'a b' \
  --planner-key keys/j6p.key --worker-key keys/j6w.key -o J6
check "--slurm-account" grep -qx '#SBATCH --account=proj-7' J4/slurm.sbatch
check "--sbatch lines, in order" sh -c "grep '^#SBATCH --\(qos\|mail-type\)' J4/slurm.sbatch | tr '\n' ' ' | grep -qx '#SBATCH --qos=high #SBATCH --mail-type=END '"
check "--node-worker-key" grep -qx 'export RXLOCK_WORKER_KEY=${RXLOCK_WORKER_KEY:-/home/op/.rxlock/w4.key}' J4/slurm.sbatch
check "J4: bash -n" bash -n J4/slurm.sbatch
check "no planner-local key path in the commands" sh -c "! grep -v '^#' J4/slurm.sbatch | grep -q 'keys/j4w.key'"
n=0
for bad in "--slurm-partition a;b" "--slurm-account a|b" "--sbatch qos=high" "--sbatch --a;b" "--node-worker-key rel/w.key" \
           "--image a|b" "--pvc Bad" "--pvc ok:../up" "--pvc ok:/abs" "--namespace UPPER" "--namespace -x"; do
  n=$((n + 1))
  # shellcheck disable=SC2086
  expect_rc 2 "refused: $bad" "$R" plan --work sha3-256 --groups 2 --steps 10 --planner-key keys/bad$n.p --worker-key keys/bad$n.w $bad -o BAD$n
  check "refused ($bad): no key, no plan" test ! -e keys/bad$n.p -a ! -e keys/bad$n.w -a ! -e BAD$n/plan.json
done
expect_rc 2 "--slurm-time under a minute" "$R" plan --work sha3-256 --groups 2 --steps 10 --slurm-time 10s --planner-key keys/x.p --worker-key keys/x.w -o X
expect_rc 2 "--k8s-user 0" "$R" plan --work sha3-256 --groups 2 --steps 10 --k8s-user 0 --planner-key keys/x.p --worker-key keys/x.w -o X
expect_rc 2 "--task-rate 0" "$R" plan --work sha3-256 --groups 2 --steps 10 --task-rate 0 --planner-key keys/x.p --worker-key keys/x.w -o X
if [ $HAVE_YAML = 1 ]; then
  check "k8s defaults: image, pull policy, claim, pod user, retries" python3 -c '
import os, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
s = d["spec"]; t = s["template"]["spec"]; c = t["containers"][0]
assert c["image"].startswith("localhost/rxlock:") and c["imagePullPolicy"] == "IfNotPresent", c
assert {v["name"]: v for v in t["volumes"]}["plan"]["persistentVolumeClaim"]["claimName"] == "rxlock-plan"
assert "namespace" not in d["metadata"]
assert t["restartPolicy"] == "Never" and s["backoffLimitPerIndex"] == 3 and "backoffLimit" not in s
assert [r["action"] for r in s["podFailurePolicy"]["rules"]] == ["Ignore", "FailIndex"]
sc = t["securityContext"]
uid = os.stat(sys.argv[2]).st_uid
want = uid if uid != 0 else 65532
assert sc["runAsNonRoot"] is True and sc["runAsUser"] == want and sc["fsGroup"] >= 1, sc
assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
assert c["resources"]["requests"]["memory"] == "544Mi" and c["resources"]["limits"]["memory"] == "544Mi"
' J3/k8s-job.yaml J3
fi

# --- run the Slurm array locally: out of order, one task killed -9 ----------------
for i in 4 1 5; do run_slurm P $i > "slurm-$i.log" 2>&1 & done
wait
check "slurm tasks 4 1 5: results" test -f P/results/group-0005.result -a -f P/results/group-0002.result -a -f P/results/group-0006.result
expect_rc 1 "assemble with groups missing" "$R" assemble P --planner-key keys/planner.key -o early.json
check "missing groups named" sh -c "grep -q 'group 1: result missing' '$TMP/.err' && grep -q 'group 3: result missing' '$TMP/.err' && grep -q 'group 4: result missing' '$TMP/.err'"
check "missing: no puzzle" test ! -e early.json
# kill -9 one task while it runs (a bigger plan so the kill lands mid-chain)
expect_rc 0 "plan big" "$R" plan --work sha3-256 --groups 2 --steps 15000000 --planner-key keys/pb.key --worker-key keys/wb.key --node-worker-key "$TMP/keys/wb.key" -o B
(SLURM_ARRAY_TASK_ID=1 RXLOCK=$R exec bash B/slurm.sbatch > kill.log 2>&1) & kp=$!
sleep 1
kill -9 $kp 2>/dev/null; wait $kp 2>/dev/null; krc=$?
check "killed task: died (rc $krc)" test $krc -ne 0
check "killed task: no result" test ! -e B/results/group-0002.result

run_slurm P 0 > slurm-0.log 2>&1
# a task killed with -9 in P: group 3 (index 2), then re-run
(SLURM_ARRAY_TASK_ID=2 RXLOCK=$R exec bash P/slurm.sbatch > kill2.log 2>&1) & kp=$!
kill -9 $kp 2>/dev/null; wait $kp 2>/dev/null
expect_rc 0 "re-run after kill -9" run_slurm P 2
check "re-run: computed" grep -q '1 computed, 0 already done' "$TMP/.out"
cp P/results/group-0003.result g3.before
expect_rc 0 "idempotent re-run" run_slurm P 2
check "idempotent: already done" grep -q '0 computed, 1 already done' "$TMP/.out"
check "idempotent: result untouched" cmp P/results/group-0003.result g3.before
# the nodes may see the plan at another path: run in the plan directory, the
# script takes its working directory (as sbatch from there does), not the planner's path
cp -r P Pn && rm Pn/results/group-0003.result
expect_rc 0 "run from a copy of the plan directory" sh -c "cd Pn && SLURM_ARRAY_TASK_ID=2 RXLOCK='$R' bash slurm.sbatch"
check "... used that directory" sh -c "grep -q '1 computed, 0 already done' '$TMP/.out' && test -f Pn/results/group-0003.result && cmp -s P/results/group-0003.result g3.before"
rm -rf Pn

# --- the Kubernetes Indexed Job, locally: pod 3 only (JOB_COMPLETION_INDEX) -----
if [ $HAVE_YAML = 1 ]; then
  expect_rc 0 "k8s pod index 3" run_k8s "$TMP/P" 3
  check "k8s pod 3: group 4 computed" grep -q 'task 3 (groups 4..4): 1 computed' "$TMP/.out"
else
  expect_rc 0 "group 3 (no YAML parser)" "$R" group P 3 --worker-key keys/worker.key
fi

# --- assemble: good, then tampered / missing / moved / stray / foreign ----------
expect_rc 0 "assemble" "$R" assemble P --planner-key keys/planner.key -o puzzle.json
check "assemble prints the planned recipient" test "$(cat "$TMP/.out")" = "$rcp"
expect_rc 0 "lock (same test seed)" "$R" lock --no-verify --work sha3-256 --groups 6 --steps 30000 -o ref.json
check "assembled puzzle byte-identical to rxlock lock" cmp puzzle.json ref.json
expect_rc 0 "solve the assembled puzzle" "$R" solve puzzle.json -o id.txt
check "solves to the planned recipient" test "$(publine id.txt)" = "$rcp"
expect_rc 1 "assemble: no clobber" "$R" assemble P --planner-key keys/planner.key -o puzzle.json

cp P/results/group-0003.result g3.good
flipbyte P/results/group-0003.result 130
expect_rc 1 "tampered result refused" "$R" assemble P --planner-key keys/planner.key -o t.json
check "tampered: names group 3" grep -q 'group 3: results/group-0003.result not authentic' "$TMP/.err"
check "tampered: only group 3 named" test "$(grep -c '^rxlock: group' "$TMP/.err")" -eq 1
check "tampered: no puzzle" test ! -e t.json
expect_rc 0 "plan status: tampered result" "$R" plan status P --worker-key keys/worker.key
check "plan status: task 2 failed, group 3 named, the way out" sh -c "grep -q '^  task 2 (groups 3..3): failed: group 3' '$TMP/.out' && grep -q 'remove P/results/group-0003.result' '$TMP/.out'"
expect_rc 0 "plan status without the key: presence only" "$R" plan status P
check "plan status without the key: every group task done" grep -q '^group tasks: 6 done' "$TMP/.out"
cp g3.good P/results/group-0003.result
mv P/results/group-0005.result g5.good
expect_rc 1 "missing result refused" "$R" assemble P --planner-key keys/planner.key -o t.json
check "missing: names group 5" grep -q 'group 5: result missing' "$TMP/.err"
expect_rc 0 "plan status: a missing result" "$R" plan status P --worker-key keys/worker.key --json
check "plan status --json: task 4 missing, run it next" sh -c "grep -q '\"task\":4,\"verify\":false,\"first\":5,\"last\":5,\"state\":\"missing\"' '$TMP/.out' && tail -n 1 '$TMP/.out' | grep -q 'rxlock group P 4'"
check "missing: no puzzle" test ! -e t.json
cp P/results/group-0002.result P/results/group-0005.result
expect_rc 1 "result under another group's name refused" "$R" assemble P --planner-key keys/planner.key -o t.json
check "moved: names group 5" grep -q "group 5: results/group-0005.result holds another group's result" "$TMP/.err"
mv g5.good P/results/group-0005.result
cp P/results/group-0002.result P/results/group-2.result
expect_rc 1 "duplicate result under another name refused" "$R" assemble P --planner-key keys/planner.key -o t.json
check "duplicate: named" grep -q 'results/group-2.result: unexpected file' "$TMP/.err"
rm P/results/group-2.result
# (another test seed: other secrets and keys, same shape)
RXLOCK_TEST_SEED=1f1e1d1c1b1a19181716151413121110 expect_rc 0 "plan C2 (another plan)" "$R" plan --no-verify --work sha3-256 --groups 6 --steps 30000 --planner-key keys/pc2.key --worker-key keys/wc2.key -o C2
RXLOCK_TEST_SEED=1f1e1d1c1b1a19181716151413121110 expect_rc 0 "C2 group 1" "$R" group C2 0 --worker-key keys/wc2.key
cp C2/results/group-0001.result P/results/group-0001.result.x
mv P/results/group-0001.result g1.good; mv P/results/group-0001.result.x P/results/group-0001.result
expect_rc 1 "another plan's result refused" "$R" assemble P --planner-key keys/planner.key -o t.json
check "foreign: names group 1" grep -q 'group 1: results/group-0001.result belongs to another plan' "$TMP/.err"
mv g1.good P/results/group-0001.result
expect_rc 1 "wrong planner key refused" "$R" assemble P --planner-key keys/pc2.key -o t.json
check "wrong planner key: says so" grep -q 'not this plan' "$TMP/.err"
cp P/plan.json plan.good
sed 's/"steps": 30000/"steps": 30001/' plan.good > P/plan.json
expect_rc 1 "tampered plan.json: assemble refuses" "$R" assemble P --planner-key keys/planner.key -o t.json
expect_rc 1 "tampered plan.json: group refuses" "$R" group P 0 --worker-key keys/worker.key
cp plan.good P/plan.json
expect_rc 0 "assemble again after repairs" "$R" assemble P --planner-key keys/planner.key -o again.json
check "again: identical" cmp again.json ref.json

# --- group: keys, job files, index -------------------------------------------------
rm -f P/results/group-0001.result
expect_rc 1 "wrong worker key" "$R" group P 0 --worker-key keys/wc2.key
check "wrong worker key: says so" grep -q "not this plan's worker key" "$TMP/.err"
cp P/jobs/group-0001.job job1.good
flipbyte P/jobs/group-0001.job 200
expect_rc 1 "tampered job file" "$R" group P 0 --worker-key keys/worker.key
check "tampered job: names group 1" grep -q 'group 1: .*group-0001.job does not open' "$TMP/.err"
cp P/jobs/group-0002.job P/jobs/group-0001.job
expect_rc 1 "job file of another group" "$R" group P 0 --worker-key keys/worker.key
cp job1.good P/jobs/group-0001.job
expect_rc 1 "index out of range" "$R" group P 6 --worker-key keys/worker.key
check "out of range: says so" grep -q 'out of range' "$TMP/.err"
expect_rc 2 "no index, no env" env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX "$R" group P --worker-key keys/worker.key
expect_rc 2 "no worker key" env -u RXLOCK_WORKER_KEY "$R" group P 0
RXLOCK_WORKER_KEY=keys/worker.key JOB_COMPLETION_INDEX=0 expect_rc 0 "index and key from the environment" "$R" group P

# --- checkpoints: SIGINT and kill -9 mid-chain, re-run resumes ----------------------
"$R" group B 0 --worker-key keys/wb.key > int.log 2>&1 & kp=$!
sleep 1; kill -INT $kp; wait $kp; irc=$?
check "SIGINT: exit 130 (128 + SIGINT)" test $irc -eq 130
check "SIGINT: checkpointed" test -e B/results/group-0001.ckpt
check "SIGINT: says so" grep -q 'interrupted (checkpointed)' int.log
rm -f B/results/group-0001.ckpt
"$R" group B 0 --worker-key keys/wb.key --checkpoint-every 1 > ck.log 2>&1 & kp=$!
k=0; while [ $k -lt 100 ] && [ ! -e B/results/group-0001.ckpt ]; do sleep 0.1; k=$((k + 1)); done
kill -9 $kp 2>/dev/null; wait $kp 2>/dev/null
check "checkpoint written before the kill" test -e B/results/group-0001.ckpt
check "checkpoint 0600" test "$(stat -c %a B/results/group-0001.ckpt)" = 600
expect_rc 0 "re-run resumes" "$R" group B 0 --worker-key keys/wb.key
check "resumed from the checkpoint" grep -q 'resumed from a checkpoint' "$TMP/.out"
check "checkpoint removed" test ! -e B/results/group-0001.ckpt
flipbyte B/jobs/group-0002.job 0
expect_rc 1 "B: job 2 damaged" "$R" group B 1 --worker-key keys/wb.key

# --- a verified plan: group array, verification array, assemble ---------
VLOCK="--work sha3-256 --groups 4 --steps 40000 --checkpoint-steps 10000"
VOPT="$VLOCK --batch 2"
# shellcheck disable=SC2086
expect_rc 0 "verified plan (the default: full)" "$R" plan $VOPT --planner-key keys/pvp.key --worker-key keys/wvp.key --node-worker-key "$TMP/keys/wvp.key" -o VP
rcpv=$(cat "$TMP/.out")
check "verified plan: says so" grep -q 'verification: full: a second array of 2 tasks' "$TMP/.err"
check "verified plan: submit with slurm-submit.sh" grep -q "Slurm: *sh VP/slurm-submit.sh" "$TMP/.err"
check "plan.json version 2 with verify" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["rxlock_plan"] == 2 and p["verify"] == {"method": "full", "sample_ppm": 1000000, "checkpoint_steps": 10000}, p
' VP/plan.json
check "slurm-verify.sbatch: bash -n" bash -n VP/slurm-verify.sbatch
check "slurm-submit.sh: sh -n" sh -n VP/slurm-submit.sh
check "slurm-verify.sbatch: array 0-1, group --verify" sh -c "grep -qx '#SBATCH --array=0-1' VP/slurm-verify.sbatch && grep -q 'group --verify \"\$RXLOCK_PLAN_DIR\" \"\$SLURM_ARRAY_TASK_ID\"' VP/slurm-verify.sbatch"
check "slurm-submit.sh: afterok on the group array" grep -q -- '--dependency=afterok:"$jid" --kill-on-invalid-dep=yes' VP/slurm-submit.sh
check "verification logs apart" grep -qx '#SBATCH --output=logs/verify-%A_%a.out' VP/slurm-verify.sbatch
check "slurm-submit.sh: submits from the plan directory" sh -c "grep -qx 'cd \"\$(dirname -- \"\$0\")\"' VP/slurm-submit.sh && grep -q 'sbatch --parsable \"\$@\" slurm.sbatch)\$' VP/slurm-submit.sh"
if [ $HAVE_YAML = 1 ]; then
  check "k8s-verify-job.yaml: Indexed Job rxlock-ID-verify, group --verify" python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
assert d["kind"] == "Job" and d["metadata"]["name"].endswith("-verify"), d["metadata"]
s = d["spec"]; c = s["template"]["spec"]["containers"][0]
assert s["completionMode"] == "Indexed" and s["completions"] == 2, s
assert c["command"] == ["rxlock", "group", "--verify", "/rxlock/plan"], c
' VP/k8s-verify-job.yaml
fi
# k8s-submit.sh with a stand-in kubectl: the group Job, its wait, then the
# verification Job; a failed group Job stops it before the second apply
mkdir -p kbin
cat > kbin/kubectl <<'KEOF'
#!/bin/sh
echo "$*" >> "$KLOG"
case "$*" in *"get job"*) echo "$KSTATE" ;; esac
KEOF
chmod +x kbin/kubectl
check "k8s-submit.sh: sh -n" sh -n VP/k8s-submit.sh
check "k8s-submit.sh: group Job, wait, verification Job" sh -c "KLOG='$TMP/k1.log' KSTATE=Complete KUBECTL='$TMP/kbin/kubectl' sh VP/k8s-submit.sh --wait >/dev/null &&
  sed 's/ -o .*//' '$TMP/k1.log' | tr '\n' '|' | grep -qx 'apply -f k8s-job.yaml|get job rxlock-[0-9a-f]*|apply -f k8s-verify-job.yaml|get job rxlock-[0-9a-f]*-verify|'"
check "k8s-submit.sh: a failed group Job stops it" sh -c "! KLOG='$TMP/k2.log' KSTATE=Failed KUBECTL='$TMP/kbin/kubectl' sh VP/k8s-submit.sh 2>/dev/null && ! grep -q verify '$TMP/k2.log'"
check "no k8s-submit.sh for an unverified plan" test ! -e P/k8s-submit.sh
for i in 1 0; do run_slurm VP $i > "vp-$i.log" 2>&1 & done; wait
check "verified plan: 4 chains recorded (.segs)" test "$(ls VP/results/*.segs | wc -l)" -eq 4
expect_rc 1 "assemble before the verification array: refused" "$R" assemble VP --planner-key keys/pvp.key -o vp-early.json
check "not verified yet: each group named with its verification task" sh -c "grep -q 'group 1: 4 of its 4 picked segments not verified yet: run verification task 1' '$TMP/.err' && grep -q 'group 4: 4 of its 4 picked segments not verified yet: run verification task 0' '$TMP/.err'"
check "not verified: no puzzle" test ! -e vp-early.json
expect_rc 1 "group --verify on a --no-verify plan: refused" "$R" group --verify P 0 --worker-key keys/worker.key
check "no verification tasks: says so" grep -q 'no verification tasks' "$TMP/.err"
expect_rc 0 "verification task 0" run_slurm_verify VP 0
check "verification task 0 checks groups 3..4" grep -q 'task 0 (groups 3..4): every picked segment matched' "$TMP/.out"
expect_rc 0 "verification task 1" run_slurm_verify VP 1
expect_rc 0 "verification task 1 again: idempotent" run_slurm_verify VP 1
check "idempotent: nothing appended" test "$(stat -c %s VP/results/group-0001.verify)" -eq 800
expect_rc 0 "assemble the verified plan" "$R" assemble VP --planner-key keys/pvp.key -o vp.json
check "assemble: says what was verified" grep -q 'verification: 16 of 16 chain segments recomputed by another task and matched' "$TMP/.err"
expect_rc 0 "inspect the verified puzzle" "$R" inspect vp.json
check "inspect: full verification" grep -q 'full: all 16 chain segments' "$TMP/.out"
# shellcheck disable=SC2086
expect_rc 0 "lock --verify=full (same seed, same C)" "$R" lock $VLOCK --workers 2 --verify=full -o vpref.json
check "verified plan byte-identical to a verified rxlock lock" cmp vp.json vpref.json
expect_rc 0 "solve the verified puzzle" "$R" solve vp.json -o vp-id.txt
check "verified: solves to the planned recipient" test "$(publine vp-id.txt)" = "$rcpv"

# one flipped bit in group 3's chain (step 25000, segment 3) on the group task:
# the verification task fails, assemble names group, segment, tasks and hosts
# shellcheck disable=SC2086
expect_rc 0 "plan VF (same secrets)" "$R" plan $VOPT --planner-key keys/pvf.key --worker-key keys/wvf.key --node-worker-key "$TMP/keys/wvf.key" -o VF
run_slurm VF 0 > vf-0.log 2>&1
RXLOCK_TEST_FLIP=3:25000 run_slurm VF 1 > vf-1.log 2>&1
expect_rc 0 "the faulty group task itself succeeds" grep -q '2 computed' vf-1.log
expect_rc 1 "verification task 0 (checks the faulty groups 3, 4): fails" run_slurm_verify VF 0
check "verification task: names group 3 and its segment" grep -q 'group 3 segment 3 (steps 20000..30000): the recomputation differs from the value group task 1 recorded' "$TMP/.err"
expect_rc 1 "the failed verification task re-run: fails again (recorded, not redone)" run_slurm_verify VF 0
expect_rc 0 "verification task 1 (groups 1, 2): good" run_slurm_verify VF 1
expect_rc 1 "assemble refuses the mismatch" "$R" assemble VF --planner-key keys/pvf.key -o vf.json
check "mismatch: group 3 segment 3, steps, tasks and hosts named" grep -q "group 3 segment 3 (steps 20000..30000): MISMATCH: group task 1 (host $(hostname), pid [0-9]*) recorded one value, verification task 0 (host $(hostname), pid [0-9]*) computed another" "$TMP/.err"
check "mismatch: only that segment" test "$(grep -c MISMATCH "$TMP/.err")" -eq 1
check "mismatch: no puzzle" test ! -e vf.json
# the repair the message gives: remove the group's files, re-run both tasks
rm VF/results/group-0003.*
expect_rc 0 "re-run group task 1" run_slurm VF 1
check "re-run: group 3 only" grep -q '1 computed, 1 already done' "$TMP/.out"
expect_rc 0 "re-run verification task 0" run_slurm_verify VF 0
expect_rc 0 "assemble after the repair" "$R" assemble VF --planner-key keys/pvf.key -o vf.json
check "repaired: the same puzzle as the good run" cmp vf.json vp.json

# sampled: a share of the segments, the puzzle says which
# shellcheck disable=SC2086
expect_rc 0 "plan --verify=sample:0.5" "$R" plan $VOPT --verify=sample:0.5 --planner-key keys/pvs.key --worker-key keys/wvs.key -o VS
check "sample: plan.json" grep -q '"sample_ppm": 500000' VS/plan.json
for i in 0 1; do "$R" group VS $i --worker-key keys/wvs.key -q; done
for i in 0 1; do "$R" group --verify VS $i --worker-key keys/wvs.key -q; done
expect_rc 0 "assemble sampled" "$R" assemble VS --planner-key keys/pvs.key -o vs.json
# plan.json edited to ask for no verification (version 1, "verify" gone): the
# planner's secrets are bound to the plan's verification, assemble refuses
cp VS/plan.json vs-plan.good
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("verify"); d["rxlock_plan"]=1; json.dump(d,open(sys.argv[1],"w"))' VS/plan.json
expect_rc 1 "plan.json downgraded to no verification: assemble refuses" "$R" assemble VS --planner-key keys/pvs.key -o vs-down.json
check "... says plan.json was modified" grep -q 'plan.json, its verification included, or plan.secrets was modified' "$TMP/.err"
check "... no puzzle" test ! -e vs-down.json
cp vs-plan.good VS/plan.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["verify"]["sample_ppm"]=250000; json.dump(d,open(sys.argv[1],"w"))' VS/plan.json
check "... (the sample edited)" grep -q '"sample_ppm": 250000' VS/plan.json
expect_rc 1 "plan.json with a smaller sample: assemble refuses" "$R" assemble VS --planner-key keys/pvs.key -o vs-down.json
cp vs-plan.good VS/plan.json
expect_rc 0 "inspect sampled" "$R" inspect vs.json
check "inspect: sampled, the rest UNVERIFIED" grep -q 'sampled: [0-9]* of 16 chain segments recomputed and matched; the others are UNVERIFIED' "$TMP/.out"
# a group task's worker crashes: its chain runs once more from its last
# value; a worker that crashes every time fails the task, naming the group
expect_rc 0 "plan WF" "$R" plan --work sha3-256 --groups 2 --steps 40000 --checkpoint-steps 10000 --batch 2 --planner-key keys/pwf.key --worker-key keys/wwf.key -o WF
RXLOCK_TEST_WORKER_FAULT=crash:2 expect_rc 0 "a crashed worker: its chain runs again" "$R" group WF 0 --worker-key keys/wwf.key
check "crashed once: both results" test -e WF/results/group-0001.result -a -e WF/results/group-0002.result
expect_rc 0 "crashed once: the verification task" "$R" group --verify WF 0 --worker-key keys/wwf.key
expect_rc 0 "crashed once: verified and assembled" "$R" assemble WF --planner-key keys/pwf.key -o wf.json
rm -f WF/results/group-0002.*
RXLOCK_TEST_WORKER_FAULT=crash:2:all expect_rc 1 "a worker that crashes every time: the task fails" "$R" group WF 0 --worker-key keys/wwf.key
check "crashes every time: names the group" grep -q 'group 2: its worker process failed twice' "$TMP/.err"
check "crashes every time: no result" test ! -e WF/results/group-0002.result
expect_rc 0 "crashes every time: a re-run without the fault finishes" "$R" group WF 0 --worker-key keys/wwf.key
unset RXLOCK_TEST_INSECURE RXLOCK_TEST_SEED
R=$RXLOCK

# --- batches, real randomness, signed ------------------------------------------------
expect_rc 0 "plan --batch 3" "$R" plan --work sha3-256 --groups 7 --steps 20000 --batch 3 --planner-key keys/p7.key --worker-key keys/w7.key --node-worker-key "$TMP/keys/w7.key" -o S
rcp7=$(cat "$TMP/.out")
check "batch: array 0-2" grep -qx '#SBATCH --array=0-2' S/slurm.sbatch
check "batch: cpus-per-task 3" grep -qx '#SBATCH --cpus-per-task=3' S/slurm.sbatch
[ $HAVE_YAML = 1 ] && check "batch: completions 3" python3 -c 'import sys, yaml; d = yaml.safe_load(open(sys.argv[1])); assert d["spec"]["completions"] == 3' S/k8s-job.yaml
for i in 2 0 1; do run_slurm S $i > "s-$i.log" 2>&1 & done; wait
check "batch: last task has group 7 only" grep -q 'groups 7..7' s-2.log
check "batch: 7 results" test "$(ls S/results/*.result | wc -l)" -eq 7
# chain verification: verified by default; the verification array's tasks fork per group too
for i in 1 2 0; do run_slurm_verify S $i > "sv-$i.log" 2>&1 & done; wait
check "batch: verification task 2 checks groups 1..3" grep -q 'task 2 (groups 1..3): every picked segment matched' sv-2.log
check "batch: 7 verification files" test "$(ls S/results/*.verify | wc -l)" -eq 7
"$R" keygen-signer -o keys/signer.key > pin.txt
expect_rc 0 "assemble signed" "$R" assemble S --planner-key keys/p7.key --sign-key keys/signer.key --keep-epoch-key kept.txt -o s.json
check "signed: recipient" test "$(cat "$TMP/.out")" = "$rcp7"
expect_rc 0 "verify signed + pin" "$R" verify s.json --signer-pin "$(cat pin.txt)"
expect_rc 0 "solve signed" "$R" solve s.json --signer-pin "$(cat pin.txt)" -o s-id.txt
check "signed: solves to the planned recipient" test "$(publine s-id.txt)" = "$rcp7"
check "kept identity = solved identity" test "$(grep '^AGE-SECRET' kept.txt)" = "$(grep '^AGE-SECRET' s-id.txt)"
check "not test-only" grep -q '"test_only": false' s.json

# --- a batch task interrupted (SIGTERM, as Slurm preemption): both groups checkpoint ---
expect_rc 0 "plan batch big" "$R" plan --no-verify --work sha3-256 --groups 2 --steps 15000000 --batch 2 --planner-key keys/pbb.key --worker-key keys/wbb.key -o BB
"$R" group BB 0 --worker-key keys/wbb.key > term.log 2>&1 & kp=$!
sleep 1; kill -TERM $kp; wait $kp; trc=$?
check "batch SIGTERM: exit 143 (128 + SIGTERM)" test $trc -eq 143
check "batch SIGTERM: both groups checkpointed" test -e BB/results/group-0001.ckpt -a -e BB/results/group-0002.ckpt
check "batch SIGTERM: no result yet" test ! -e BB/results/group-0001.result -a ! -e BB/results/group-0002.result
expect_rc 0 "batch re-run" "$R" group BB 0 --worker-key keys/wbb.key
check "batch re-run: 2 computed" grep -q 'groups 1..2): 2 computed' "$TMP/.out"
check "batch re-run: checkpoints removed" test ! -e BB/results/group-0001.ckpt -a ! -e BB/results/group-0002.ckpt
expect_rc 0 "batch assemble" "$R" assemble BB --planner-key keys/pbb.key -o bb.json
# --force replaces a plan (new keys, old results cleared)
expect_rc 1 "plan over a plan without --force" "$R" plan --work sha3-256 --groups 3 --steps 100 --planner-key keys/pbb.key --worker-key keys/wbb.key -o BB
expect_rc 0 "plan --force" "$R" plan --work sha3-256 --groups 3 --steps 100 --force --planner-key keys/pbb.key --worker-key keys/wbb.key -o BB
check "--force: old results cleared" test "$(ls BB/results | wc -l)" -eq 0
check "--force: 3 job files" test "$(ls BB/jobs | wc -l)" -eq 3
expect_rc 0 "help plan" "$R" help plan
expect_rc 0 "help group" "$R" group --help
check "group usage mentions SLURM_ARRAY_TASK_ID" grep -q SLURM_ARRAY_TASK_ID "$TMP/.out"
expect_rc 0 "help assemble" "$R" help assemble

# --- RandomX v2, light, small ----------------------------------------------------
if "$R" hash --v2 --key 74657374206b657920303030 --input 5468697320697320612074657374 2>/dev/null | grep -q '^22ec6b86'; then
  R=$RXLOCK_TESTBIN
  export RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_SEED=a0a1a2a3a4a5a6a7a8a9aaabacadaeaf
  expect_rc 0 "plan v2 light" "$R" plan --no-verify --work randomx-v2 --mode light --groups 2 --steps 3 --planner-key keys/pv.key --worker-key keys/wv.key --node-worker-key "$TMP/keys/wv.key" -o V
  rcpv=$(cat "$TMP/.out")
  for i in 1 0; do run_slurm V $i > "v-$i.log" 2>&1 & done; wait
  expect_rc 0 "assemble v2" "$R" assemble V --planner-key keys/pv.key -o v.json
  expect_rc 0 "lock v2 (same seed)" "$R" lock --no-verify --work randomx-v2 --mode light --groups 2 --steps 3 --workers 1 -o vref.json
  check "v2: byte-identical to rxlock lock" cmp v.json vref.json
  expect_rc 0 "solve v2" "$R" solve v.json --mode light -o v-id.txt
  check "v2: solves to the planned recipient" test "$(publine v-id.txt)" = "$rcpv"
  unset RXLOCK_TEST_INSECURE RXLOCK_TEST_SEED
  R=$RXLOCK
else
  echo "SKIP RandomX v2 case: the engine does not reproduce the reference vector" >&2
fi

# --- a real one-node Slurm (opt-in: RXLOCK_TEST_SLURM=1, root, Debian packages) ---
if [ "${RXLOCK_TEST_SLURM:-0}" = 1 ]; then
  if slurm_up; then
    # the generated scripts as they are: time limit, partition, an extra line;
    # rxlock from PATH, the worker key where --node-worker-key says
    expect_rc 0 "slurm: plan" "$R" plan --no-verify --work sha3-256 --groups 4 --steps 20000 --slurm-time 10m \
      --slurm-partition local --sbatch --comment=rxlock-ci --node-worker-key "$TMP/keys/ws.key" \
      --planner-key keys/ps.key --worker-key keys/ws.key -o SL
    rcps=$(cat "$TMP/.out")
    expect_rc 0 "slurm: sbatch --test-only" sbatch --test-only SL/slurm.sbatch
    expect_rc 0 "slurm: plan full mode, batch 2, derived limit" "$R" plan --work randomx-v2 --mode full --batch 2 \
      --groups 4 --time 1h --rate 100 --planner-key keys/psf.key --worker-key keys/wsf.key -o SF
    expect_rc 0 "slurm: sbatch --test-only (full mode, 2656M, derived --time)" sbatch --test-only SF/slurm.sbatch
        # submitted as plan says: from the plan directory (logs/ there)
    expect_rc 0 "slurm: cd SL && sbatch --wait (array 0-3)" sh -c "cd SL && PATH='$TMP/bin:$PATH' timeout 300 sbatch --wait slurm.sbatch"
    jid=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$TMP/.out")
    check "slurm: the job ran with the time limit (job $jid)" sh -c "scontrol show job '$jid' | grep -q 'TimeLimit=00:10:00'"
    check "slurm: 4 results" test "$(ls SL/results/*.result | wc -l)" -eq 4
    check "slurm: per-task logs" test -f "$(ls SL/logs/slurm-*_3.out | head -n 1)"
    rm SL/results/group-0003.result
    expect_rc 0 "slurm: resubmit the whole array with --chdir (idempotent)" env PATH="$TMP/bin:$PATH" timeout 300 sbatch --wait --chdir=SL SL/slurm.sbatch
    check "slurm: only group 3 recomputed" test "$(cat SL/logs/slurm-*.out | grep -c '1 computed')" -eq 5
    expect_rc 0 "slurm: assemble" "$R" assemble SL --planner-key keys/ps.key -o sl.json
    expect_rc 0 "slurm: solve" "$R" solve sl.json -o sl-id.txt
    check "slurm: solves to the planned recipient" test "$(publine sl-id.txt)" = "$rcps"
    # chain verification: a verified plan, submitted as plan says (slurm-submit.sh: the
    # verification array after the group array, --dependency=afterok)
    expect_rc 0 "slurm: verified plan" "$R" plan --work sha3-256 --groups 4 --steps 40000 --batch 2 --checkpoint-steps 10000 \
      --slurm-time 10m --slurm-partition local --node-worker-key "$TMP/keys/wsv.key" \
      --planner-key keys/psv.key --worker-key keys/wsv.key -o SV
    rcpsv=$(cat "$TMP/.out")
    expect_rc 0 "slurm: plan status before submitting" "$R" plan status SV --worker-key keys/wsv.key
    check "slurm: plan status: 2 group tasks missing, run them next" sh -c "grep -q '^group tasks: 0 done, 0 running, 2 missing, 0 failed' '$TMP/.out' && grep -q '^next: finish the group tasks' '$TMP/.out'"
    expect_rc 0 "slurm: sbatch --test-only slurm-verify.sbatch" sbatch --test-only SV/slurm-verify.sbatch
    expect_rc 0 "slurm: sh slurm-submit.sh --wait (group array, then verification array)" env PATH="$TMP/bin:$PATH" timeout 300 sh SV/slurm-submit.sh --wait
    gjid=$(sed -n 's/^rxlock: group array: job \([0-9]*\).*/\1/p' "$TMP/.out")
    vjid=$(sed -n 's/^Submitted batch job \([0-9]*\).*/\1/p' "$TMP/.out")
    check "slurm: the verification job depended on the group job ($vjid after $gjid)" sh -c "test -n '$gjid' && test -n '$vjid' && scontrol show job '$vjid' | grep -q 'JobState=COMPLETED'"
    check "slurm: 4 results, 4 verification files" sh -c "test \$(ls SV/results/*.result | wc -l) -eq 4 && test \$(ls SV/results/*.verify | wc -l) -eq 4"
    check "slurm: verification logs" sh -c "cat SV/logs/verify-*.out | grep -c 'every picked segment matched' | grep -qx 2"
    expect_rc 0 "slurm: plan status --json after the arrays" "$R" plan status SV --worker-key keys/wsv.key --json
    check "slurm: plan status: every task done, assemble next" sh -c "tail -n 1 '$TMP/.out' | grep -q '\"group_tasks\":{\"done\":2,\"running\":0,\"missing\":0,\"failed\":0},\"verify_tasks\":{\"done\":2,.*\"complete\":true,\"next\":\"every task is done: .rxlock assemble SV'"
    expect_rc 0 "slurm: assemble the verified plan" "$R" assemble SV --planner-key keys/psv.key -o sv.json
    check "slurm: all 16 segments verified" grep -q 'verification: 16 of 16' "$TMP/.err"
    expect_rc 0 "slurm: solve the verified puzzle" "$R" solve sv.json -o sv-id.txt
    check "slurm: verified puzzle solves to the planned recipient" test "$(publine sv-id.txt)" = "$rcpsv"
    slurm_down
  fi
else
  echo "SKIP real Slurm array job: opt-in with RXLOCK_TEST_SLURM=1 (root; sh tools/slurm-local.sh install)" >&2
fi
summary
