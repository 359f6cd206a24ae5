# SPDX-License-Identifier: ISC
# tests/cli/test_man.sh — the rxlock(1) man page (docs/rxlock.1): lint clean
# (mandoc -T lint, else groff -ww), renders with man -l, documents every
# command of `rxlock --help` and every long option of every command's help
# text, the exit codes, the environment switches, and is installed by
# `make install` under PREFIX/share/man/man1.
. tests/cli/lib.sh
MAN=$PWD/docs/rxlock.1
check "man page exists" test -f "$MAN"
if command -v mandoc >/dev/null 2>&1; then
  check "mandoc -T lint: not even style notes" sh -c "mandoc -T lint -W all '$MAN' >'$TMP/lint' 2>&1 && test ! -s '$TMP/lint'"
  cat "$TMP/lint" >&2
fi
if command -v groff >/dev/null 2>&1; then
  check "groff -ww: no warnings" sh -c "groff -ww -man -z '$MAN' >'$TMP/groff' 2>&1 && test ! -s '$TMP/groff'"
  cat "$TMP/groff" >&2
fi
if command -v man >/dev/null 2>&1; then
  check "man -l renders" sh -c "MANWIDTH=80 man -l '$MAN' 2>/dev/null | grep -q 'EXIT STATUS'"
  # a font macro (.BR, .BI, ...) given a sentence glues its words together:
  # no rendered word is that long
  MANWIDTH=80 man -l "$MAN" 2>/dev/null | tr ' ' '\n' | awk 'length($0) > 36 && $0 !~ /\//' > "$TMP/glued"
  check "man: no words glued together by a font macro" test ! -s "$TMP/glued"
  cat "$TMP/glued" >&2
fi
# the source with \- unescaped, for plain greps
sed 's/\\-/-/g; s/\\f[BIRP]//g' "$MAN" > "$TMP/man.txt"
cmds=$("$RXLOCK" --help | sed -n '/^commands:/,/^$/p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p')
check "commands listed by --help" test -n "$cmds"
for c in $cmds; do
  check "man: a heading for command $c" grep -Eq "^\\.(SS|B) \"rxlock $c( |\")" "$TMP/man.txt"
  for o in $("$RXLOCK" help "$c" | grep -oE -- '--[a-z0-9][a-z0-9-]*' | sort -u); do
    grep -q -- "$o\\b" "$TMP/man.txt" || fail "man: $c option $o not documented"
  done
done
for code in 0 1 2 3; do
  check "man: exit status $code" sh -c "sed -n '/^\\.SH EXIT STATUS/,/^\\.SH /p' '$TMP/man.txt' | grep -qx '\\.B $code'"
done
for v in RXLOCK_ENGINE RXLOCK_AES; do
  check "man: environment $v" sh -c "sed -n '/^\\.SH ENVIRONMENT/,/^\\.SH /p' '$TMP/man.txt' | grep -q '^\\.B $v'"
done
# every non-test RXLOCK_* variable the help texts name is documented
for c in $cmds; do "$RXLOCK" help "$c"; done | grep -oE 'RXLOCK_[A-Z_]+' | grep -v '^RXLOCK_TEST_' | sort -u > "$TMP/envs"
while read -r v; do grep -q "$v" "$TMP/man.txt" || fail "man: environment $v not documented"; done < "$TMP/envs"
check "man: points to docs/FORMAT.md" grep -q 'docs/FORMAT.md' "$TMP/man.txt"
# make install puts it in PREFIX/share/man/man1 (the build is already there)
if [ -f build/rxlock ] && [ -f build/librxlock.so ]; then
  check "make install: man page installed" sh -c "make -s --no-print-directory install DESTDIR='$TMP/inst' PREFIX=/usr/local >/dev/null 2>&1 && cmp -s '$MAN' '$TMP/inst/usr/local/share/man/man1/rxlock.1'"
fi
summary
