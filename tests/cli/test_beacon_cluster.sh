#!/bin/sh
# SPDX-License-Identifier: ISC
# tests/cli/test_beacon_cluster.sh — `beacon run --cluster`, with nobody
# touching it.  Kubernetes (always, python3-yaml): a fake kubectl on PATH
# logs every command the service runs and plays the cluster (each pod of
# an applied Indexed Job run here with the manifest's command, its volume
# and Secret mapped to local paths); the service makes two epochs (group
# Job, then the verification Job), assembles, seals and publishes them.
# Slurm (opt-in: RXLOCK_TEST_SLURM=1, root, tools/slurm-local.sh install):
# on the real one-node Slurm the service is killed (SIGKILL, the test
# build's kill point) right after its first sbatch and before it recorded
# the job; one array task of that job is cancelled (scancel) while it runs;
# the next start finds the job by its recorded name (nothing submitted
# twice: an sbatch wrapper counts the submissions), resubmits the epoch
# whose tasks went missing, and goes on: at least three epochs generated,
# assembled, sealed and released on schedule; a released puzzle solves to
# the feed's recipient; no key outside private/; the metrics file passes
# `promtool check metrics` where Debian's prometheus is installed.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
R=$RXLOCK
mkdir -p bin
ln -s "$R" bin/rxlock
printf 'sha3-256 1000 slow test floor\n' > floor.txt      # floor work >> a period: sealed

# ---- Kubernetes: the commands it runs, through a fake kubectl ------------------
if python3 -c 'import yaml' 2>/dev/null; then
  mkdir -p kube
  cat > bin/kubectl <<'EOF'
#!/usr/bin/env python3
# a fake kubectl: logs its arguments, keeps Secrets and Jobs under $FAKE_KUBE, and
# runs an applied Indexed Job's pods here (volume -> $FAKE_PVC_ROOT/subPath, Secret -> file)
import os, subprocess, sys, yaml
K = os.environ["FAKE_KUBE"]
a = sys.argv[1:]
open(K + "/kubectl.log", "a").write(" ".join(a) + "\n")
if a[:1] == ["-n"]: a = a[2:]
def path(kind, name): return os.path.join(K, kind + "-" + name.split("/")[-1])
if a[0] == "delete":
    p = path(a[1], a[2])
    if os.path.exists(p): os.remove(p)
elif a[0] == "create" and a[1] == "secret":
    src = [x for x in a if x.startswith("--from-file=")][0].split("=", 2)[2]
    open(path("secret", a[3]), "w").write(src)
elif a[0] == "apply" and os.environ.get("FAKE_PENDING"):   # its pods never start
    doc = yaml.safe_load(open(a[2]))
    open(path("job", doc["metadata"]["name"]), "w").write("")
elif a[0] == "apply":
    doc = yaml.safe_load(open(a[2]))
    spec = doc["spec"]["template"]["spec"]; c = spec["containers"][0]
    assert doc["kind"] == "Job" and doc["spec"]["completionMode"] == "Indexed"
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in spec["volumes"]}
    plan = os.path.join(os.environ["FAKE_PVC_ROOT"], mounts["plan"].get("subPath", ""))
    secret = open(path("secret", vols["worker-key"]["secret"]["secretName"])).read()
    def local(s): return s.replace(mounts["worker-key"]["mountPath"] + "/worker.key", secret).replace(mounts["plan"]["mountPath"], plan)
    env = dict(os.environ)
    for e in c.get("env", []): env[e["name"]] = local(e["value"])
    ok = True
    for i in range(doc["spec"]["completions"]):
        env["JOB_COMPLETION_INDEX"] = str(i)
        ok = subprocess.call([local(x) for x in c["command"]], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0 and ok
    if os.environ.get("FAKE_TAMPER") and not os.path.exists(K + "/tampered"):   # once: a result that lies
        open(K + "/tampered", "w").write("")
        r = plan + "/results/group-0001.result"; b = bytearray(open(r, "rb").read()); b[40] ^= 1; open(r, "wb").write(b)
    open(path("job", doc["metadata"]["name"]), "w").write("Complete" if ok else "Failed")
elif a[:2] == ["get", "pods"]:   # -l job-name=NAME -o jsonpath=PHASE SCHEDULED WAITING
    if os.path.exists(path("job", a[3].split("=")[1])): print("Pending  " + os.environ["FAKE_PENDING"])
elif a[0] == "get":
    p = path("job", a[1])
    if os.path.exists(p): print(open(p).read() if "jsonpath" in " ".join(a) else "job.batch/" + a[1].split("/")[-1])
else:
    sys.exit("fake kubectl: unknown command " + " ".join(a))
EOF
  chmod +x bin/kubectl
  "$R" beacon init K --work sha3-256 --groups 2 --steps 20000 --checkpoint-steps 5000 --verify=full \
    --floor-table floor.txt --every 30s --ahead 2 --start +600s --cluster k8s >/dev/null 2>&1
  export FAKE_KUBE="$TMP/kube" FAKE_PVC_ROOT="$TMP/K/plans"
  PATH="$TMP/bin:$PATH" "$R" beacon run K --cluster k8s --namespace beacon --poll 1s --metrics k.prom 2>k8s.log & kpid=$!
  check "k8s: two epochs assembled" wait_for 90 sh -c "test -f K/private/puzzles/0.json && test -f K/private/puzzles/1.json"
  sleep 1
  kill "$kpid"; wait "$kpid"
  check "k8s: sealed epoch 1 published" test -f K/public/sealed/1.age
  check "k8s: the worker key's Secret made, in the namespace" grep -q '^-n beacon create secret generic rxlock-[0-9a-f]*-worker --from-file=worker.key=.*/K/private/plans/0.worker.key' kube/kubectl.log
  check "k8s: the Indexed Job applied" grep -q '^-n beacon apply -f K/plans/0/k8s-job.yaml' kube/kubectl.log
  check "k8s: then the verification Job" sh -c "grep -n 'apply -f K/plans/0/k8s' kube/kubectl.log | tail -n 1 | grep -q k8s-verify-job.yaml"
  check "k8s: followed with kubectl get" grep -q '^-n beacon get job/rxlock-[0-9a-f]* --ignore-not-found -o jsonpath=' kube/kubectl.log
  check "k8s: each Job applied once" test "$(grep -c 'apply -f K/plans/0/k8s-job.yaml' kube/kubectl.log)" -eq 1
  check "k8s: the manifest reads the plan from the volume's subPath" grep -q 'subPath: "0"$' K/plans/0/k8s-job.yaml
  check "k8s: the log says so" grep -q 'the group Job rxlock-[0-9a-f]* is complete: applied the verification Job' k8s.log
  check "k8s: assembled" grep -q 'cluster: epoch 1 (1): assembled' k8s.log
  check "k8s: the cluster's pace kept" grep -q '^epoch_seconds=[0-9]*$' K/private/cluster/pace
  check "k8s: planner and worker keys removed after assembly" test ! -e K/private/plans/0.planner.key -a ! -e K/private/plans/0.worker.key
  check "k8s: no key outside private/" no_key_outside_private K
  check "k8s: metrics written" grep -q '^rxlock_beacon_epochs_ahead{beacon="K",mode="k8s"} 2$' k.prom
  if command -v promtool >/dev/null 2>&1; then
    expect_rc 0 "k8s: promtool check metrics" sh -c "promtool check metrics < k.prom"
  fi
  expect_rc 0 "k8s: beacon status DIR" "$R" beacon status K
  check "k8s: status shows the service, not running" grep -q '^service: k8s generation, NOT RUNNING' "$TMP/.out"
  check "k8s: the Secret and Jobs deleted once the epoch is made" sh -c "grep -q 'delete secret rxlock-[0-9a-f]*-worker --ignore-not-found' kube/kubectl.log && ! ls kube/secret-* >/dev/null 2>&1"
  # a result that does not authenticate: never assembled; the plan is set aside and the epoch planned again
  "$R" beacon init K3 --work sha3-256 --groups 2 --steps 4000 --no-verify --floor-table floor.txt --every 5s --ahead 1 \
    --start +600s --cluster k8s >/dev/null 2>&1
  FAKE_PVC_ROOT="$TMP/K3/plans" FAKE_TAMPER=1 PATH="$TMP/bin:$PATH" "$R" beacon run K3 --cluster k8s --poll 1s 2>k3.log & kpid=$!
  check "k8s tampered: assembled after planning again" wait_for 60 test -f K3/private/puzzles/0.json
  kill "$kpid"; wait "$kpid"
  check "k8s tampered: the lie was found" grep -q 'cluster: epoch 0 (0): its jobs ended with 1 of 2 tasks done (a result or verified segment does not hold)' k3.log
  check "k8s tampered: the plan set aside" sh -c "ls -d K3/plans/0.failed-* >/dev/null"
  check "k8s tampered: assembled once, from the new plan" test "$(grep -c 'assembled' k3.log)" -eq 1
  # killed (kill -9) right after an assembly: the next start removes the keys and record left behind
  "$R" beacon init K5 --work sha3-256 --groups 2 --steps 2000 --no-verify --floor-table floor.txt --every 30s --ahead 1 \
    --start +600s --cluster k8s >/dev/null 2>&1
  FAKE_PVC_ROOT="$TMP/K5/plans" RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_KILL_AT=cluster-assembled PATH="$TMP/bin:$PATH" \
    "$RXLOCK_TESTBIN" beacon run K5 --cluster k8s --poll 1s 2>k5.log
  check "k8s: killed after the assembly" sh -c "test -f K5/private/puzzles/0.json && test -f K5/private/plans/0.planner.key"
  expect_rc 0 "k8s: the next start" env FAKE_PVC_ROOT="$TMP/K5/plans" PATH="$TMP/bin:$PATH" "$R" beacon run K5 --cluster k8s --once
  check "k8s: ... removes what the kill left" sh -c "grep -q 'removed its plan keys and record, left by a run stopped after its assembly' '$TMP/.err' && test ! -e K5/private/plans/0.planner.key && test ! -e K5/private/cluster/0.state"
  check "k8s: ... and submits nothing again" test "$(grep -c 'apply -f K5/plans/0/k8s-job.yaml' kube/kubectl.log)" -eq 1
  # the service's clock (releaser.c, as a local `beacon run`): a forward jump of about 10,000 periods is
  # one line with the epochs it passed; the correction back is one line; releases resume by the corrected clock
  st6=$(( $(date +%s) + 100000 ))
  "$R" beacon init K6 --work sha3-256 --groups 2 --steps 2000 --no-verify --floor-table floor.txt --every 10s --ahead 2 \
    --start "@$st6" --cluster k8s >/dev/null 2>&1
  setclock() { echo $(( $1 - $(date +%s) )) > clock6.new && mv clock6.new clock6; }
  setclock $((st6 - 50))
  mkdir -p K6/private/cluster && echo epoch_seconds=100 > K6/private/cluster/pace   # a slow cluster's pace, kept
  FAKE_PVC_ROOT="$TMP/K6/plans" RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_CLOCK_SKEW="$TMP/clock6" PATH="$TMP/bin:$PATH" \
    "$RXLOCK_TESTBIN" beacon run K6 --cluster k8s --poll 1s 2>k6.log & kpid=$!
  check "k8s clock: two epochs made ahead" wait_for 60 sh -c "test -f K6/private/puzzles/0.json && test -f K6/private/puzzles/1.json"
  check "k8s in flight: chosen from the pace kept, up to the window" \
    grep -q 'cluster: 2 epoch keys on the cluster at once (was 1): the last took 1m40s, .*the window (--ahead) allows no more' k6.log
  setclock $((st6 + 100000))
  check "k8s clock: the forward jump said" wait_for 30 grep -q 'the clock jumped forward by 1000[0-9][0-9] s' k6.log
  check "k8s clock: ... with the epochs it passed, in one line" \
    grep -q 'jumped forward.*: 99[0-9][0-9] epochs (2\.\.[0-9]*) passed their release time ungenerated' k6.log
  check "k8s clock: no line per skipped epoch" test "$(grep -c 'skipped' k6.log)" -le 1
  setclock $((st6 + 5))
  check "k8s clock: the correction said" wait_for 30 grep -q 'the clock went back by 999[0-9][0-9] s .*releases wait' k6.log
  check "k8s clock: epoch 0 released by the corrected clock" wait_for 30 test -f K6/public/puzzles/0.json
  check "k8s clock: epoch 1 not before its time" test ! -e K6/public/puzzles/1.json
  kill "$kpid"; wait "$kpid"
  # a Job whose pods never start (an image that cannot be pulled): said once, at once, with the way out
  "$R" beacon init K7 --work sha3-256 --groups 2 --steps 2000 --no-verify --floor-table floor.txt --every 30s --ahead 1 \
    --start +600s --cluster k8s >/dev/null 2>&1
  FAKE_PVC_ROOT="$TMP/K7/plans" FAKE_PENDING=ImagePullBackOff PATH="$TMP/bin:$PATH" "$R" beacon run K7 --cluster k8s \
    --poll 1s 2>k7.log & kpid=$!
  check "k8s pending: said" wait_for 30 grep -qs 'cluster: epoch 0 (0): Job rxlock-[0-9a-f]* has not started (Pending: ImagePullBackOff)' k7.log
  n=$(grep -c 'get pods -l job-name=' kube/kubectl.log)
  check "k8s pending: asked again at the next poll" wait_for 30 sh -c "test \$(grep -c 'get pods -l job-name=' kube/kubectl.log) -ge $((n + 1))"
  kill "$kpid"; wait "$kpid"
  check "k8s pending: said once, with the way out" test "$(grep -c 'has not started.*kubectl describe pods -l job-name=rxlock-[0-9a-f]*.*kubectl delete job' k7.log)" -eq 1
  check "k8s pending: nothing made" test ! -e K7/private/puzzles/0.json
  # a cluster that refuses the submission: logged, retried, nothing published
  cat > bin/kubectl <<'EOF'
#!/bin/sh
echo "error: the server has asked for the client to provide credentials" >&2; exit 1
EOF
  "$R" beacon init K2 --work sha3-256 --groups 2 --steps 2000 --no-verify --floor-table floor.txt --every 60s --ahead 1 \
    --start +600s --cluster k8s >/dev/null 2>&1
  expect_rc 0 "k8s refused: one pass goes on" env PATH="$TMP/bin:$PATH" "$R" beacon run K2 --cluster k8s --once
  check "k8s refused: logged with the tool's words" grep -q 'kubectl .*failed (exit 1): error: the server has asked' "$TMP/.err"
  check "k8s refused: nothing generated" test ! -e K2/private/puzzles/0.json
  printf '#!/bin/sh\nsleep 30\n' > bin/kubectl
  expect_rc 0 "k8s hangs: bounded by --cmd-timeout" env PATH="$TMP/bin:$PATH" timeout 25 "$R" beacon run K2 --cluster k8s --once --cmd-timeout 1s
  check "k8s hangs: said" grep -q 'no answer within the time limit: killed' "$TMP/.err"
else
  echo "SKIP fake-kubectl service: python3-yaml is not installed (tools/deps.sh installs it)" >&2
fi

# ---- Slurm, for real --------------------------------------------------------------
if [ "${RXLOCK_TEST_SLURM:-0}" = 1 ]; then
  if slurm_up; then
    real=$(command -v sbatch)
    cat > bin/sbatch <<EOF
#!/bin/sh
# counts the submissions: one line each, with the job id sbatch gave
out=\$("$real" "\$@") || exit \$?
echo "\$out"
echo "\$* -> \$out" >> "$TMP/sbatch.log"
EOF
    chmod +x bin/sbatch
    "$R" beacon init S --work sha3-256 --groups 2 --steps 10000000 --checkpoint-steps 2500000 --floor-table floor.txt \
      --every 20s --ahead 3 --start +50s --cluster slurm >/dev/null 2>S.init
    # the service killed right after its first submission, before it recorded the job ids
    RXLOCK_TEST_INSECURE=1 RXLOCK_TEST_KILL_AT=cluster-submitted PATH="$TMP/bin:$PATH" \
      "$RXLOCK_TESTBIN" beacon run S --cluster slurm --poll 1s 2>run1.log
    check "slurm: the service was killed after sbatch (kill -9)" test $? -eq 137
    check "slurm: epoch 0 submitted: group and verification arrays" test "$(grep -c -- '-0-a1 ' sbatch.log)" -eq 2
    check "slurm: the record has the name, not the jobs" sh -c "grep -q '^name=rxlock-.*-0-a1$' S/private/cluster/0.state && grep -qx 'job0=' S/private/cluster/0.state"
    jid=$(sed -n 's/.*slurm\.sbatch -> \([0-9]*\).*/\1/p' sbatch.log | head -n 1)
    # one array task cancelled while it runs
    check "slurm: a task of job $jid runs" wait_for 60 sh -c "squeue -h -j '$jid' -t R -o %i | grep -q '_0'"
    scancel "${jid}_0"
    check "slurm: task ${jid}_0 cancelled" wait_for 30 sh -c "! squeue -h -j '$jid' -t R -o %i | grep -q '_0'"
    PATH="$TMP/bin:$PATH" "$R" beacon run S --cluster slurm --poll 1s --retries 2 --metrics S.prom 2>run2.log & spid=$!
    check "slurm: three epochs released and sealed, unattended" wait_for 300 sh -c \
      "test -f S/public/puzzles/0.json && test -f S/public/puzzles/1.json && test -f S/public/puzzles/2.json && test -f S/public/sealed/2.age"
    expect_rc 0 "slurm: beacon status DIR while it serves" "$R" beacon status S
    check "slurm: status shows the service and the margin" sh -c "grep -q '^service: slurm generation' '$TMP/.out' && grep -q 'keep-up margin: [0-9.]*x' '$TMP/.out'"
    expect_rc 0 "slurm: beacon status DIR --json" "$R" beacon status S --json
    check "slurm: status --json: the service line" sh -c "tail -n 1 '$TMP/.out' | python3 -c 'import json,sys; d=json.load(sys.stdin)[\"service\"]; assert d[\"mode\"]==\"slurm\" and d[\"resubmissions\"]>=1'"
    kill "$spid"; wait "$spid"
    # the jobs of the epoch it was making go on without it: cancel them
    for j in $(sed -n 's/^job[01]=\([0-9][0-9]*\)$/\1/p' S/private/cluster/*.state 2>/dev/null); do scancel "$j"; done
    check "slurm: the restart found the job by its name" grep -q "cluster: epoch 0 (0): found its submission $jid by name" run2.log
    check "slurm: the cancelled task's epoch resubmitted" grep -q 'cluster: epoch 0 (0): submitted (attempt 2)' run2.log
    check "slurm: nothing submitted twice (attempt 1 once)" test "$(grep -c -- '-0-a1 ' sbatch.log)" -eq 2
    check "slurm: epoch 0: two submissions in all" test "$(grep -c -- '-0-a[0-9]* ' sbatch.log)" -eq 4
    check "slurm: epochs 1 and 2 submitted once each" sh -c "test \$(grep -c -- '-1-a' sbatch.log) -eq 2 && test \$(grep -c -- '-2-a' sbatch.log) -eq 2"
    for e in 0 1 2; do
      check "slurm: epoch $e assembled" grep -q "cluster: epoch $e ($e): assembled" run2.log
      check "slurm: epoch $e released" grep -q "released epoch $e:" run2.log
    done
    check "slurm: nothing generated after its release" sh -c "! grep -q 'after its release time' run2.log"
    check "slurm: no key outside private/" no_key_outside_private S
    check "slurm: verification ran on the cluster" sh -c "ls S/plans/0/logs/verify-*.out >/dev/null"
    expect_rc 0 "slurm: solve released epoch 1" "$R" solve S/public/puzzles/1.json -o id1.txt
    rcp=$(python3 -c "import json; f=json.load(open('S/public/feed.json')); print([e for e in f['feed']['epochs'] if e['index']==1][0]['keys'][0]['recipient'])")
    check "slurm: it opens to the feed's recipient" test "$(sed -n 's/^# public key: //p' id1.txt)" = "$rcp"
    if command -v promtool >/dev/null 2>&1; then
      expect_rc 0 "slurm: promtool check metrics" sh -c "promtool check metrics < S.prom"
    else
      echo "SKIP promtool check metrics: Debian's prometheus is not installed (tools/deps.sh)" >&2
    fi
    slurm_down
  fi
else
  echo "SKIP beacon run --cluster slurm on a real Slurm: opt-in with RXLOCK_TEST_SLURM=1 (root; sh tools/slurm-local.sh install)" >&2
fi
[ "$_f" -gt 0 ] && for l in k8s.log run1.log run2.log sbatch.log; do [ -f "$l" ] && { echo "== $l"; tail -n 40 "$l"; } >&2; done
summary
