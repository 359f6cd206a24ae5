# SPDX-License-Identifier: ISC
# tests/cli/test_exports.sh — librxlock.so exports exactly the public API:
# every dynamic symbol it defines is declared in include/rxlock/*.h, and
# every function those headers declare is exported.  (The library is built
# with -fvisibility=hidden; the public headers wrap their declarations in
# #pragma GCC visibility push(default) / pop.)  Also: the public headers'
# include guards are RXLOCK_<NAME>_H.
. tests/cli/lib.sh
B=$(dirname "$RXLOCK")
SO="$B/librxlock.so"
check "librxlock.so exists" test -f "$SO"
nm -D --defined-only "$SO" | awk '{print $3}' | sed 's/@.*//' | sort -u >"$TMP/exported"
# Declarations: an identifier followed by "(" (functions), or an extern variable.
cat include/rxlock/*.h | sed 's|/\*.*\*/||g' >"$TMP/headers"
grep -oE '\b[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' "$TMP/headers" | sed -E 's/[[:space:]]*\($//' |
  grep -E '^(rx|tl|sha3|pq|age|rxlock)_' | sort -u >"$TMP/declared"
n=$(wc -l <"$TMP/exported")
check "exports something ($n symbols)" test "$n" -ge 40
extra=$(comm -23 "$TMP/exported" "$TMP/declared")
[ -n "$extra" ] && echo "exported but not declared in include/rxlock/:" $extra >&2
check "no symbol exported beyond include/rxlock/*.h" test -z "$extra"
missing=$(comm -13 "$TMP/exported" "$TMP/declared")
[ -n "$missing" ] && echo "declared in include/rxlock/ but not exported:" $missing >&2
check "every declared function is exported" test -z "$missing"
# The test hooks and internals stay out (they live in librxlock-test.a).
check "no hook, util_ or journal symbol" sh -c "! grep -Eq '_hook\$|^util_|^tl_journal_|^rx_jit_' '$TMP/exported'"
# Consistent include guards: include/rxlock/NAME.h uses RXLOCK_NAME_H.
for h in include/rxlock/*.h; do
  g=RXLOCK_$(basename "$h" .h | tr 'a-z' 'A-Z')_H
  check "$(basename "$h"): include guard $g" sh -c "grep -qx '#ifndef $g' '$h' && grep -qx '#define $g' '$h'"
done
summary
