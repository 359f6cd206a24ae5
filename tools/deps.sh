#!/bin/sh
# SPDX-License-Identifier: ISC
# tools/deps.sh — install the Debian packages rxlock's build and tests need.
# Does nothing when they are all present.  Product deps: libsodium, jansson,
# libcurl (the beacon commands fetching by URL; not in the static binary),
# pkg-config.  Test-only oracles/tools: librandomx (RandomX v1 oracle),
# OpenSSL (SHA3 oracle), age (interop), valgrind, clang + libFuzzer runtime,
# python3-yaml (checks the generated Kubernetes manifest; with the machine's
# Node >= 20 and npm, tests/cli/test_k8s_schema.sh installs kubernetes-models
# into build/ at test time), mandoc (man page lint), bsdutils (script(1): a
# terminal for progress tests), prometheus (promtool checks `beacon run
# --metrics`' file).  podman + runc: tools/container.sh install;
# Slurm: tools/slurm-local.sh install (the CI stages that need them).
set -e
PKGS="build-essential pkg-config libsodium-dev libjansson-dev libcurl4-openssl-dev librandomx-dev libssl-dev openssl age time valgrind clang libclang-rt-14-dev python3-yaml mandoc bsdutils prometheus"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing:$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing
