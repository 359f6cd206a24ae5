# SPDX-License-Identifier: ISC
# tests/cli/npm_oracle.sh — source after lib.sh: npm_oracle_ready PKG@VER FILE
# makes sure Node >= 20 runs and PKG is installed in $NPM_DIR
# (RXLOCK_NPM_DIR, default build/npm: git-ignored, never committed),
# installing it with npm when FILE is missing.  Returns 1 with the reason
# in $NPM_SKIP when it cannot.  npm packages are test oracles only.
NPM_DIR=${RXLOCK_NPM_DIR:-$PWD/build/npm}
npm_oracle_ready() {
  if ! command -v node >/dev/null 2>&1; then NPM_SKIP="node not installed"; return 1; fi
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -lt 20 ]; then NPM_SKIP="Node $(node --version) is older than 20"; return 1; fi
  [ -f "$NPM_DIR/$2" ] && return 0
  if ! command -v npm >/dev/null 2>&1; then NPM_SKIP="npm not installed"; return 1; fi
  mkdir -p "$NPM_DIR"
  if ! (cd "$NPM_DIR" && timeout 300 npm install --no-audit --no-fund --prefix . "$1" >/dev/null 2>&1); then
    NPM_SKIP="npm install $1 failed (no registry?)"; return 1
  fi
  [ -f "$NPM_DIR/$2" ] || { NPM_SKIP="$1 installed without $2"; return 1; }
}
