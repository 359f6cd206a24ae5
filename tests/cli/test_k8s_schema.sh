# SPDX-License-Identifier: ISC
# tests/cli/test_k8s_schema.sh — the k8s-job.yaml that `rxlock plan` writes
# is a valid Kubernetes Job: npm kubernetes-models 5.x (the official
# OpenAPI schemas through ajv) on Node >= 20, `new Job(obj).validate()`,
# for the default settings and for every k8s option; a wrong type is
# rejected (the validator is live).  The package is installed at test time
# into $RXLOCK_NODE_DIR (default build/node-oracle: gitignored, never
# committed).  Skipped, with a line saying why, without Node >= 20, npm,
# python3-yaml (YAML -> JSON) or the npm registry.
. tests/cli/lib.sh
ND=${RXLOCK_NODE_DIR:-$PWD/build/node-oracle}
R=$RXLOCK
skip() { echo "SKIP Kubernetes schema validation: $*" >&2; summary; exit $?; }
command -v node >/dev/null 2>&1 || skip "node is not installed (Node >= 20 needed)"
major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)
[ "${major:-0}" -ge 20 ] 2>/dev/null || skip "Node $(node --version 2>/dev/null) is older than 20"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed (tools/deps.sh installs it)"
if ! [ -f "$ND/node_modules/kubernetes-models/package.json" ]; then
  command -v npm >/dev/null 2>&1 || skip "npm is not installed"
  mkdir -p "$ND"
  if ! timeout 300 npm install --prefix "$ND" --no-audit --no-fund --loglevel=error kubernetes-models@5 \
       > "$TMP/npm.log" 2>&1; then
    tail -n 3 "$TMP/npm.log" >&2
    skip "npm could not install kubernetes-models@5 (no registry?)"
  fi
fi
check "kubernetes-models 5.x" node -e 'process.exit(require(process.argv[1]).version.split(".")[0] === "5" ? 0 : 1)' \
  "$ND/node_modules/kubernetes-models/package.json"
# The validator lives beside its node_modules (ESM resolves from the script).
cat > "$ND/validate-job.mjs" <<'EOF'
import { Job } from "kubernetes-models/batch/v1/Job";
import fs from "fs";
const obj = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
try { new Job(obj).validate(); } catch (e) { console.error(e.message); process.exit(1); }
EOF
# valid YAML: k8s-job.yaml -> JSON -> Job(obj).validate()
valid() { python3 -c 'import sys, json, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], "w"))' "$1" "$TMP/job.json" &&
          node "$ND/validate-job.mjs" "$TMP/job.json"; }
mkdir -p "$TMP/keys"
cd "$TMP" || exit 1

expect_rc 0 "plan (defaults)" "$R" plan --work sha3-256 --groups 3 --steps 100 --planner-key keys/p1.key --worker-key keys/w1.key -o A
check "defaults: valid Job" valid A/k8s-job.yaml
check "defaults: valid verification Job" valid A/k8s-verify-job.yaml
expect_rc 0 "plan (every k8s option, full mode, batch 2)" "$R" plan --work randomx-v2 --mode full --groups 5 --steps 100 \
  --batch 2 --image registry.example.org/team/rxlock:0.1.0 --pvc rxlock-shared:plans/b --namespace timelock \
  --k8s-user 1000:2000 --planner-key keys/p2.key --worker-key keys/w2.key -o B
check "options: valid Job" valid B/k8s-job.yaml
check "options: valid verification Job" valid B/k8s-verify-job.yaml
check "options: as given" python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
s = d["spec"]; t = s["template"]["spec"]; c = t["containers"][0]
assert d["metadata"]["namespace"] == "timelock"
assert s["completions"] == 3 and s["backoffLimitPerIndex"] >= 1 and "backoffLimit" not in s
r = s["podFailurePolicy"]["rules"][0]
assert r["action"] == "Ignore" and r["onPodConditions"][0]["type"] == "DisruptionTarget"
assert t["restartPolicy"] == "Never"
sc = t["securityContext"]
assert sc["runAsNonRoot"] is True and sc["runAsUser"] == 1000 and sc["runAsGroup"] == 2000 and sc["fsGroup"] == 2000
assert c["image"] == "registry.example.org/team/rxlock:0.1.0" and c["imagePullPolicy"] == "IfNotPresent"
assert c["resources"]["requests"]["memory"] == "2656Mi" and c["resources"]["requests"]["cpu"] == "2"
m = {v["name"]: v for v in c["volumeMounts"]}
assert m["plan"]["subPath"] == "plans/b"
v = {v["name"]: v for v in t["volumes"]}
assert v["plan"]["persistentVolumeClaim"]["claimName"] == "rxlock-shared"
assert v["worker-key"]["secret"]["defaultMode"] == 0o440
' B/k8s-job.yaml
# the scheduling options: parallelism cap, deadline, TTL, priority class,
# pull secrets, node selector, tolerations (through the same validator)
expect_rc 0 "plan (scheduling options)" "$R" plan --work sha3-256 --groups 6 --steps 100 --k8s-parallelism 2 \
  --k8s-deadline 3d --k8s-ttl 1h --k8s-priority-class batch-low --image-pull-secret regcred \
  --image-pull-secret other-cred --k8s-node-selector kubernetes.io/arch=amd64 --k8s-node-selector pool=rx \
  --k8s-toleration dedicated=rxlock:NoSchedule --k8s-toleration spot:PreferNoSchedule \
  --planner-key keys/p3.key --worker-key keys/w3.key -o C
check "scheduling options: valid Job" valid C/k8s-job.yaml
check "scheduling options: valid verification Job" valid C/k8s-verify-job.yaml
check "scheduling options: as given" python3 -c '
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
s = d["spec"]; t = s["template"]["spec"]
assert s["completions"] == 6 and s["parallelism"] == 2, s
assert s["activeDeadlineSeconds"] == 259200 and s["ttlSecondsAfterFinished"] == 3600
assert t["priorityClassName"] == "batch-low"
assert t["imagePullSecrets"] == [{"name": "regcred"}, {"name": "other-cred"}]
assert t["nodeSelector"] == {"kubernetes.io/arch": "amd64", "pool": "rx"}
assert t["tolerations"] == [{"key": "dedicated", "operator": "Equal", "value": "rxlock", "effect": "NoSchedule"},
                            {"key": "spot", "operator": "Exists", "effect": "PreferNoSchedule"}], t["tolerations"]
' C/k8s-job.yaml
for bad in "--k8s-toleration a:Sometimes" "--k8s-toleration :NoSchedule" "--k8s-node-selector nokey" \
           "--k8s-priority-class Upper" "--image-pull-secret a_b" "--k8s-parallelism 0" "--k8s-deadline 0s"; do
  # shellcheck disable=SC2086
  expect_rc 2 "refused: $bad" "$R" plan --work sha3-256 --groups 2 --steps 10 $bad --planner-key keys/xb.p --worker-key keys/xb.w -o XB
done
# the validator is live: a wrong type and a wrong enum value are rejected
sed 's/^  completions: 3$/  completions: "three"/' B/k8s-job.yaml > bad1.yaml
check "bad1.yaml differs" sh -c '! cmp -s bad1.yaml B/k8s-job.yaml'
if valid bad1.yaml 2>/dev/null; then fail "completions: \"three\" accepted"; else ok; fi
sed 's/action: Ignore /action: Sometimes /' B/k8s-job.yaml > bad2.yaml
if valid bad2.yaml 2>/dev/null; then fail "podFailurePolicy action Sometimes accepted"; else ok; fi
summary
