# SPDX-License-Identifier: ISC
# tests/cli/test_layers.sh — includes only point down the layers
# (docs/DESIGN.md §4, "Architecture and layers"):
#
#   bench  ->  cli  ->  lock  ->  age  ->  pq  ->  rx, sha3  ->  util
#
# and inside lock, down its rooms (each with its own internal header):
#
#   lock/beacon -> lock/cluster -> lock/gen -> lock/measure -> lock/core
#
# and the CLI in rooms beside the library's: each command room
# (cli/beacon, cli/keys, cli/lock, cli/cluster, cli/measure) may include
# the shared CLI (the headers directly in src/cli/) and the library, never
# another command room: code two rooms need moves down into src/cli/.
# main.c holds nothing but main (the command table and usage text are
# commands.c's, which main.c and the error messages both call).
#
# bench/ (the benchmarks) sits on top: it links the library (and the CLI's
# progress display) and may include any layer; nothing in src/ includes it.
# It holds no copy of the library's code: no chain message of its own, no
# clock of its own, no CPU-model reader of its own (checked below).
# A file in src/L/ (src/lock/R/ for lock's rooms) may include a header of
# its own layer or room or of any below it; never one above, and never a
# peer on the same level (rx and sha3 do not include each other).  A file
# directly in src/lock/ belongs to no room and is refused.  Public headers
# count as their layer's: rxlock/rx.h = rx, rxlock/sha3.h = sha3,
# rxlock/pq.h = pq, rxlock/age.h = age, rxlock/rxlock.h, rxlock/error.h,
# rxlock/version.h and rxlock/container.h = lock/core, rxlock/calibrate.h = lock/measure,
# rxlock/beacon.h = lock/beacon.  The
# CLI uses the public headers only (no lock-internal header).  Only
# #include "..." lines are checked (system headers use <...>).
# Also: no tracker numbers ("issue N") anywhere in the tree.
# Usage: sh tests/cli/test_layers.sh [ROOT]
. tests/cli/lib.sh
ROOT=${1:-.}

ROOMS="core measure gen cluster beacon"
CLI_ROOMS="beacon keys lock cluster measure"
rank() {
  case $1 in
    util) echo 0;; rx|sha3) echo 10;; pq) echo 20;; age) echo 30;;
    lock/core) echo 40;; lock/measure) echo 41;; lock/gen) echo 42;; lock/cluster) echo 43;; lock/beacon) echo 44;;
    cli) echo 50;; cli/beacon|cli/keys|cli/lock|cli/cluster|cli/measure) echo 51;;
    bench) echo 60;; *) echo -1;;
  esac
}
# layer_of_include FROM_LAYER "path/in/quotes"
layer_of_include() {
  case $2 in
    rxlock/rx.h) echo rx;; rxlock/sha3.h) echo sha3;; rxlock/pq.h) echo pq;; rxlock/age.h) echo age;;
    rxlock/rxlock.h|rxlock/container.h|rxlock/error.h|rxlock/version.h) echo lock/core;;
    rxlock/calibrate.h) echo lock/measure;;
    rxlock/beacon.h) echo lock/beacon;;
    rxlock/*) echo unknown;;
    lock/*/*) p=${2#lock/}; echo "lock/${p%%/*}";;
    lock/*) echo lock;;
    cli/*/*) p=${2#cli/}; echo "cli/${p%%/*}";;
    */*) echo "${2%%/*}";;
    *) echo "$1";;                     # a bare name: the including file's own folder
  esac
}
# scan LAYER FILE...: prints one line per upward or sideways include
scan() {
  from=$1; shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
    while IFS= read -r line; do
      inc=$(printf '%s\n' "$line" | sed 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/')
      to=$(layer_of_include "$from" "$inc")
      rf=$(rank "$from"); rt=$(rank "$to")
      if [ "$rt" -lt 0 ]; then echo "$f: includes \"$inc\" (no such layer)"
      elif [ "$to" != "$from" ] && [ "$rt" -ge "$rf" ]; then
        echo "$f:${line%%:*}: $from includes $to (\"$inc\")"
      fi
    done
  done
}
check_tree() {
  out=""
  for L in util rx sha3 pq age cli; do
    out="$out$(scan "$L" "$1"/src/"$L"/*.c "$1"/src/"$L"/*.h)"
  done
  for R in $ROOMS; do
    out="$out$(scan "lock/$R" "$1"/src/lock/"$R"/*.c "$1"/src/lock/"$R"/*.h)"
  done
  for R in $CLI_ROOMS; do
    out="$out$(scan "cli/$R" "$1"/src/cli/"$R"/*.c "$1"/src/cli/"$R"/*.h)"
  done
  for d in "$1"/src/cli/*/; do
    [ -d "$d" ] || continue
    case " $CLI_ROOMS " in *" $(basename "$d") "*) ;; *) out="$out${d%/}: a folder in src/cli that is no room ($CLI_ROOMS)
";; esac
  done
  m="$1/src/cli/main.c"
  if [ -f "$m" ]; then
    extra=$(grep -E '^[a-z_][a-z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(' "$m" | grep -v '^static ' | grep -v '^int main(')
    [ -n "$extra" ] && out="$out$m: defines more than main (the command table and usage are commands.c's): $extra
"
  fi
  for f in "$1"/src/lock/*.c "$1"/src/lock/*.h; do
    [ -f "$f" ] && out="$out$f: in src/lock but in no room ($ROOMS)
"
  done
  out="$out$(grep -ln '^[[:space:]]*#[[:space:]]*include[[:space:]]*"lock/' "$1"/src/cli/*.c "$1"/src/cli/*.h "$1"/src/cli/*/*.c "$1"/src/cli/*/*.h 2>/dev/null |
             sed 's/$/: the CLI includes a lock-internal header/')"
  out="$out$(scan bench "$1"/bench/*.c "$1"/bench/*.h)"
  for h in "$1"/include/rxlock/*.h; do
    out="$out$(scan "$(layer_of_include x "rxlock/$(basename "$h")")" "$h")"
  done
  printf '%s' "$out"
}

if [ -n "${LAYERS_ONLY:-}" ]; then           # checker mode, for the self-test below
  bad=$(check_tree "$ROOT"); [ -n "$bad" ] && printf '%s\n' "$bad" >&2
  [ -z "$bad" ]; exit
fi

bad=$(check_tree "$ROOT")
[ -n "$bad" ] && printf '%s\n' "$bad" >&2
check "no include points up or sideways" test -z "$bad"
for L in util rx sha3 pq age lock cli; do
  check "src/$L exists" test -d "$ROOT/src/$L"
done
for R in core measure gen cluster; do
  check "src/lock/$R exists" test -d "$ROOT/src/lock/$R"
done
for R in $CLI_ROOMS; do
  check "src/cli/$R exists" test -d "$ROOT/src/cli/$R"
done
# the walls between command rooms: no include arrow from one to another
arrows=0
for R in $CLI_ROOMS; do
  for S in $CLI_ROOMS; do
    [ "$R" = "$S" ] && continue
    n=$(cat "$ROOT"/src/cli/"$R"/*.[ch] 2>/dev/null | grep -c "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"cli/$S/" || true)
    arrows=$((arrows + n))
  done
done
check "no include arrow between CLI command rooms ($arrows)" test "$arrows" -eq 0
check "bench/ exists" test -d "$ROOT/bench"
# bench/ links the library instead of copying it
check "bench/: no chain message of its own (tl_chain_message)" sh -c "! grep -l 'rxlock/chain/v1' '$ROOT'/bench/*.c '$ROOT'/bench/*.h"
check "bench/: no monotonic clock of its own (util_now)" sh -c "! grep -l 'CLOCK_MONOTONIC' '$ROOT'/bench/*.c '$ROOT'/bench/*.h"
check "bench/: no CPU-model reader of its own (tl_cpu_model)" sh -c "! grep -l 'model name' '$ROOT'/bench/*.c '$ROOT'/bench/*.h"
check "bench/: no engine error names of its own (rxlock_strerror)" sh -c "! grep -l 'page-permission change failed' '$ROOT'/bench/*.c '$ROOT'/bench/*.h"
check "bench/: no code in headers (static functions)" sh -c "! grep -l '^static [^=]*(' '$ROOT'/bench/*.h"
check "src/util: no progress display (the CLI's)" test ! -e "$ROOT/src/util/progress.c"
# the tree speaks of the product: a feature or a document section, never a
# tracker number ("issue 19" means nothing to the next maintainer)
trk=$(grep -rnIE '[Ii]ssue #?[0-9]+' "$ROOT/include" "$ROOT/src" "$ROOT/docs" "$ROOT/bench" "$ROOT/tests" "$ROOT/tools" \
        "$ROOT/fuzz" "$ROOT/README.md" "$ROOT/Makefile" 2>/dev/null | grep -v '^[^:]*/test_layers.sh:')
[ -n "$trk" ] && printf '%s\n' "$trk" | head -5 >&2
check "no tracker numbers in the tree" test -z "$trk"

# The checker itself: a clean tree passes, a planted violation of each kind fails.
T="$TMP/t"
mkdir -p "$T/src/util" "$T/src/rx" "$T/src/sha3" "$T/src/pq" "$T/src/age" "$T/src/cli" "$T/include/rxlock" "$T/bench"
for R in $ROOMS; do mkdir -p "$T/src/lock/$R"; done
for R in $CLI_ROOMS; do mkdir -p "$T/src/cli/$R"; done
printf '#include "cli/cli.h"\n#include "cli/feed.h"\n#include "rxlock/beacon.h"\n#include "beacon_cli.h"\n' >"$T/src/cli/beacon/ok.c"
printf '#include "cli/feed.h"\n#include "cli/keys/keys_cli.h"\n' >"$T/src/cli/keys/ok.c"
printf 'static int f(void) { return 0; }\nint main(void) { return f(); }\n' >"$T/src/cli/main.c"
printf '#include "util/util.h"\n#include "rxlock/rx.h"\n#include "internal.h"\n' >"$T/src/rx/ok.c"
printf '#include "rxlock/age.h"\n#include "rx/internal.h"\n#include "rxlock/container.h"\n' >"$T/src/lock/core/ok.c"
printf '#include "lock/core/core_internal.h"\n#include "lock/measure/measure_internal.h"\n#include "gen_internal.h"\n' >"$T/src/lock/gen/ok.c"
printf '#include "rxlock/calibrate.h"\n#include "rxlock/rxlock.h"\n' >"$T/src/cli/ok.c"
printf '#include "rxlock/error.h"\n' >"$T/include/rxlock/rxlock.h"
printf '#include "cli/progress.h"\n#include "rx/jit.h"\n#include "bench_x.h"\n' >"$T/bench/ok.c"
layers() { LAYERS_ONLY=1 sh tests/cli/test_layers.sh "$T" >/dev/null 2>&1; }
check "a clean tree passes" layers
plant() { printf '#include "%s"\n' "$2" >"$T/src/$1/planted.c"; if layers; then r=1; else r=0; fi; rm -f "$T/src/$1/planted.c"; return $r; }
check "detects util -> rx"    plant util "rx/internal.h"
check "detects rx -> sha3"    plant rx "rxlock/sha3.h"
check "detects age -> lock"   plant age "rxlock/rxlock.h"
check "detects age -> lock room" plant age "lock/core/core_internal.h"
check "detects pq -> age"     plant pq "rxlock/age.h"
check "detects sha3 -> pq"    plant sha3 "pq/mlkem_internal.h"
check "detects lock -> cli"   plant lock/gen "cli/cli.h"
check "detects core -> gen"   plant lock/core "lock/gen/gen_internal.h"
check "detects core -> rxlock/calibrate.h (measure)" plant lock/core "rxlock/calibrate.h"
check "detects measure -> gen" plant lock/measure "lock/gen/gen_internal.h"
check "detects gen -> cluster" plant lock/gen "lock/cluster/cluster_internal.h"
check "detects cluster -> beacon" plant lock/cluster "lock/beacon/beacon_internal.h"
check "detects cli -> a lock-internal header" plant cli "lock/core/core_internal.h"
printf 'int x;\n' >"$T/src/lock/roomless.c"
check "detects a file in src/lock outside the rooms" sh -c "! LAYERS_ONLY=1 sh tests/cli/test_layers.sh '$T' >/dev/null 2>&1"
rm -f "$T/src/lock/roomless.c"
check "detects rx -> rxlock/age.h" plant rx "rxlock/age.h"
check "detects cli -> bench"  plant cli "bench/bench_variant.h"
check "detects a CLI room -> another room" plant cli/keys "cli/beacon/beacon_cli.h"
check "detects cli/lock -> cli/cluster" plant cli/lock "cli/cluster/cluster_cli.h"
check "detects the shared CLI -> a room" plant cli "cli/lock/lock_cli.h"
check "detects a CLI room -> a lock-internal header" plant cli/beacon "lock/beacon/beacon_internal.h"
mkdir -p "$T/src/cli/stray"
check "detects a folder in src/cli that is no room" sh -c "! LAYERS_ONLY=1 sh tests/cli/test_layers.sh '$T' >/dev/null 2>&1"
rmdir "$T/src/cli/stray"
printf 'const char *cli_command_usage(const char *c) { return c; }\nint main(void) { return 0; }\n' >"$T/src/cli/main.c"
check "detects main.c defining more than main" sh -c "! LAYERS_ONLY=1 sh tests/cli/test_layers.sh '$T' >/dev/null 2>&1"
printf 'int main(void) { return 0; }\n' >"$T/src/cli/main.c"
printf '#include "rxlock/rxlock.h"\n' >"$T/include/rxlock/age.h"
check "detects a public header pointing up" sh -c "! LAYERS_ONLY=1 sh tests/cli/test_layers.sh '$T' >/dev/null 2>&1"
summary
