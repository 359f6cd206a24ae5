# SPDX-License-Identifier: ISC
# tests/cli/test_shipping.sh — the shipping library and binary carry no test
# hooks: no fault-injection globals, no RXLOCK_TEST_* switch, no test RNG,
# no JIT stall variants.
# (The test build, librxlock-test.a / rxlock-test, has them; see Makefile.)
ROOT_DIR=$PWD
. tests/cli/lib.sh
B=$(dirname "$RXLOCK")
for f in "$B/librxlock.a" "$B/librxlock.so" "$RXLOCK"; do
  check "$(basename "$f") exists" test -f "$f"
  check "$(basename "$f"): no RXLOCK_TEST_ string" sh -c "! strings '$f' | grep -q RXLOCK_TEST_"
  check "$(basename "$f"): no test RNG label" sh -c "! strings '$f' | grep -q rxlock/test-rng"
done
check "librxlock.a: no hook symbols" sh -c "! nm '$B/librxlock.a' 2>/dev/null | grep -Eq '_hook\$'"
check "librxlock.a: no JIT stall variants (bench_stall)" sh -c "! nm '$B/librxlock.a' 2>/dev/null | grep -q rx_jit_test_stall"
check "librxlock-test.a has the JIT stall variants" sh -c "nm '$B/librxlock-test.a' 2>/dev/null | grep -q rx_jit_test_stall || [ \"\$(uname -m)\" != x86_64 ]"
check "librxlock-test.a has the hooks" sh -c "nm '$B/librxlock-test.a' 2>/dev/null | grep -q rx_execmem_fault_hook"
check "rxlock-test knows the test switches" sh -c "strings '$RXLOCK_TESTBIN' | grep -q RXLOCK_TEST_SEED"
# the licence ships: LICENSE is ISC, make install puts it in share/doc/rxlock
# and rxlock.pc names it (only where the build is up to date: never rebuild)
check "LICENSE is the ISC licence" grep -q '^ISC License' LICENSE
BR=${B#"$PWD"/}
if make -s -q BUILD="$BR" all 2>/dev/null; then
  D="$TMP/inst"
  check "make install (DESTDIR)" sh -c "make -s BUILD='$BR' DESTDIR='$D' PREFIX=/usr install >/dev/null"
  check "installed share/doc/rxlock/LICENSE" cmp -s LICENSE "$D/usr/share/doc/rxlock/LICENSE"
  check "rxlock.pc names the licence" sh -c "PKG_CONFIG_PATH='$D/usr/lib/pkgconfig' pkg-config --variable=license rxlock | grep -qx ISC"
  check "rxlock.pc: licence file" sh -c "PKG_CONFIG_PATH='$D/usr/lib/pkgconfig' pkg-config --variable=licensefile rxlock | grep -qx /usr/share/doc/rxlock/LICENSE"
  for doc in SECURITY.md FORMAT.md AGE.md DESIGN.md; do
    check "installed share/doc/rxlock/$doc (the man page refers to it)" cmp -s "docs/$doc" "$D/usr/share/doc/rxlock/$doc"
  done
  check "installed rxlock.3 (the library manual)" test -f "$D/usr/share/man/man3/rxlock.3"
  check "installed rxlock/version.h" test -f "$D/usr/include/rxlock/version.h"
  check "make uninstall (DESTDIR)" sh -c "make -s BUILD='$BR' DESTDIR='$D' PREFIX=/usr uninstall >/dev/null"
  left=$(find "$D" -type f | head -5)
  check "make uninstall leaves no installed file${left:+ (left: $left)}" test -z "$left"
else
  echo "test_shipping: build not up to date, make install not checked" >&2
fi
# the licence: every tracked source file names it (SPDX) in its first lines
if command -v git >/dev/null 2>&1 && git -C "$ROOT_DIR" rev-parse >/dev/null 2>&1; then
  untagged=$(git -C "$ROOT_DIR" ls-files '*.c' '*.h' '*.sh' '*.py' '*.mjs' Makefile .ci/run docs/rxlock.1 |
             while read -r f; do head -n 3 "$ROOT_DIR/$f" | grep -q 'SPDX-License-Identifier: ISC' || echo "$f"; done)
  check "every source file has an SPDX-License-Identifier line${untagged:+ (missing: $(echo $untagged | head -c 200))}" test -z "$untagged"
fi
summary
