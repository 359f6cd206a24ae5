#!/bin/sh
# SPDX-License-Identifier: ISC
# tools/container.sh — the rxlock container image (tools/Containerfile).
#   sh tools/container.sh install          podman and runc from Debian (root)
#   sh tools/container.sh build [BINARY]   the image rxlock:VERSION from BINARY
#        (default build/static/rxlock: `make static`) and LICENSE, in a
#        private build context, without a network (FROM scratch,
#        --pull=never, --network=none); podman, else buildah
#   sh tools/container.sh run ARGS...      podman run with what this machine
#        needs (--runtime runc: crun refuses the hybrid cgroup layout here;
#        explicit --ulimit nofile/nproc) and a locked-down container (no
#        network, read-only root, no capabilities, no new privileges), then
#        ARGS: podman options, the image, its arguments
# $RXLOCK_IMAGE names the image (default rxlock:VERSION, VERSION from the
# binary's --version).  tests/cli/test_container.sh (RXLOCK_TEST_CONTAINER=1)
# builds it and runs a plan's task in it.
set -eu
cd "$(dirname "$0")/.."
die() { echo "container: $*" >&2; exit 1; }
cmd=${1:-build}
[ $# -gt 0 ] && shift
case $cmd in
install)
  [ "$(id -u)" -eq 0 ] || die "needs root"
  pk="podman runc"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pk ||
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $pk; }
  exit 0;;
build)
  bin=${1:-build/static/rxlock}
  [ -x "$bin" ] || die "$bin: no such binary (make static)"
  ldd "$bin" 2>&1 | grep -q 'statically linked\|not a dynamic' || die "$bin is not statically linked (make static)"
  [ -f LICENSE ] || die "LICENSE: missing at the repository root"
  ver=$("$bin" --version | sed -n 's/^rxlock //p')
  [ -n "$ver" ] || die "$bin --version: no version"
  image=${RXLOCK_IMAGE:-rxlock:$ver}
  ctx=$(mktemp -d); trap 'rm -rf "$ctx"' EXIT
  cp "$bin" "$ctx/rxlock"; cp LICENSE "$ctx/LICENSE"; cp tools/Containerfile "$ctx/Containerfile"
  chmod 0755 "$ctx/rxlock"; chmod 0644 "$ctx/LICENSE"
  if command -v podman >/dev/null 2>&1; then
    podman build --pull=never --network=none --build-arg VERSION="$ver" -f "$ctx/Containerfile" -t "$image" "$ctx"
  elif command -v buildah >/dev/null 2>&1; then
    buildah bud --pull-never --network=none --build-arg VERSION="$ver" -f "$ctx/Containerfile" -t "$image" "$ctx"
  else
    die "neither podman nor buildah is installed (sh tools/container.sh install)"
  fi
  echo "container: built $image"
  exit 0;;
run)
  exec podman run --rm --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
       --network=none --read-only --cap-drop=ALL --security-opt=no-new-privileges "$@";;
*) die "usage: container.sh install | build [BINARY] | run ARGS...";;
esac
