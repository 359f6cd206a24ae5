# SPDX-License-Identifier: ISC
# tests/cli/test_container.sh — the container image (tools/Containerfile,
# tools/container.sh).  Opt-in: RXLOCK_TEST_CONTAINER=1 (root; Debian's
# podman and runc: sh tools/container.sh install; the static binary: make
# static).  Builds the image without a network (FROM scratch: the static
# binary and LICENSE), runs `rxlock --version` in it, then the tasks of a
# small plan as the generated k8s-job.yaml says: its image, command, env,
# mount paths and pod user (runAsUser/runAsGroup, not root) taken from the
# manifest, the plan directory mounted read-write (results/ and logs/
# chowned to that user, as README.md says for volumes without fsGroup), the
# worker key mounted read-only (0440, group = fsGroup, as a Secret volume).
# The puzzle assembled from the container's results solves to the planned
# recipient.  Skipped, with a line saying why, where podman cannot run.
. tests/cli/lib.sh
SRC=$PWD
R=$RXLOCK
skip() { echo "SKIP container image: $*" >&2; summary; exit $?; }
[ "${RXLOCK_TEST_CONTAINER:-0}" = 1 ] || skip "opt-in with RXLOCK_TEST_CONTAINER=1 (root; sh tools/container.sh install; make static)"
[ "$(id -u)" -eq 0 ] || skip "needs root (it chowns the plan's results to the pod user)"
command -v podman >/dev/null 2>&1 || skip "podman is not installed (sh tools/container.sh install)"
python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml is not installed (tools/deps.sh installs it)"
[ -f LICENSE ] || skip "no LICENSE at the repository root (the image ships it)"
STATIC=${RXLOCK_STATIC:-$(dirname "$R")/static/rxlock}
[ -x "$STATIC" ] || skip "$STATIC: no static binary (make static)"
IMG=localhost/rxlock-test:ci
expect_rc 0 "image builds offline (FROM scratch)" env RXLOCK_IMAGE=$IMG sh tools/container.sh build "$STATIC"
[ $_f -eq 0 ] || { cat "$TMP/.out" "$TMP/.err" | tail -n 5 >&2; summary; exit 1; }
if ! sh tools/container.sh run $IMG --version > "$TMP/v.out" 2> "$TMP/v.err"; then
  tail -n 3 "$TMP/v.err" >&2
  podman rmi -f $IMG > /dev/null 2>&1
  skip "podman cannot run a container here (see above)"
fi
check "rxlock --version in the container" test "$(cat "$TMP/v.out")" = "$("$R" --version)"
check "image: only the binary and the licence" sh -c "podman image inspect --format '{{len .RootFS.Layers}} {{.Config.User}}' $IMG | grep -qx '2 65532:65532'"

cd "$TMP" || exit 1
mkdir keys secret
expect_rc 0 "plan (image and pod user set)" "$R" plan --no-verify --work sha3-256 --groups 3 --steps 20000 --batch 2 --image $IMG \
  --k8s-user 65532:65532 --planner-key keys/p.key --worker-key keys/w.key -o P
rcp=$(cat "$TMP/.out")
# What the operator does for a volume without fsGroup support, and what the
# kubelet does with the Secret (defaultMode 0440, group fsGroup).
chown -R 65532:65532 P/results P/logs
cp keys/w.key secret/worker.key; chgrp 65532 secret/worker.key; chmod 0440 secret/worker.key
# The pod from the manifest: podman options, one per line, then the command.
python3 - P/k8s-job.yaml "$TMP/P" "$TMP/secret" > pod.args <<'EOF'
import json, sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
t = d["spec"]["template"]["spec"]
c = t["containers"][0]
sc = t["securityContext"]
assert sc["runAsNonRoot"] and sc["runAsUser"] != 0
src = {"plan": sys.argv[2], "worker-key": sys.argv[3]}
print("--user=%d:%d" % (sc["runAsUser"], sc["runAsGroup"]))
for m in c["volumeMounts"]:
    print("--volume=%s:%s%s" % (src[m["name"]], m["mountPath"], ":ro" if m.get("readOnly") else ""))
for e in c.get("env", []):
    print("--env=%s=%s" % (e["name"], e["value"]))
print("--entrypoint=" + json.dumps(c["command"]))
print(c["image"])
for a in c.get("args", []):
    print(a)
EOF
check "pod from the manifest" test -s pod.args
for i in 1 0; do
  # shellcheck disable=SC2046
  (IFS='
'; exec sh "$SRC/tools/container.sh" run --env=JOB_COMPLETION_INDEX=$i $(cat pod.args)) > "pod-$i.log" 2>&1
  rc=$?
  check "pod index $i: rc $rc" test $rc -eq 0
  [ $rc -eq 0 ] || tail -n 5 "pod-$i.log" >&2
done
check "task 0 in the container: 2 computed" grep -q 'groups 1..2): 2 computed' pod-0.log
check "results written by the pod user (65532)" test "$(stat -c %u P/results/group-0003.result 2>/dev/null)" = 65532
expect_rc 0 "assemble the container's results" "$R" assemble P --planner-key keys/p.key -o puzzle.json
check "assemble: the planned recipient" test "$(cat "$TMP/.out")" = "$rcp"
expect_rc 0 "solve" "$R" solve puzzle.json -o id.txt
check "solves to the planned recipient" test "$(sed -n 's/^# public key: //p' id.txt)" = "$rcp"
podman rmi -f $IMG > /dev/null 2>&1
summary
