#!/bin/sh
# The installed instruments work without the source tree: a copy of this tree
# is built and installed into a scratch prefix, then the copy is deleted and
# the installed katomic runs from another directory, with KATOMIC_* unset and
# a fresh HOME: `katomic litmus` on an installed test (every backend) and
# `katomic report --quick`.  The prefix must be unchanged afterwards (the CLI
# builds in the user's cache).  About 3-5 minutes: the report is most of it.
# Usage: tests/check-install-tools.sh [--no-report]
set -u
report=1; [ "${1:-}" = --no-report ] && report=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else fail=$((fail + 1)); echo "not ok $n - $1"; fi; }

src=$tmp/src prefix=$tmp/prefix
mkdir -p "$src"
tar -cf - --exclude=./build --exclude=./.git . | (cd "$src" && tar -xf -)
t "a copy of the source tree installs into $prefix" \
  "make -s -C '$src' install PREFIX='$prefix' >'$tmp/install.log' 2>&1 || { sed 's/^/# /' '$tmp/install.log'; false; }"
rm -rf "$src"
t "the copy is gone" "[ ! -e '$src' ]"
(cd "$prefix" && find . -exec ls -ld --time-style=+%s {} + | awk '{ print $1, $5, $6, $7 }' | sort) >"$tmp/before"

unset KATOMIC_ROOT KATOMIC_BUILD KATOMIC_INCLUDE
export HOME="$tmp/home" PATH="$prefix/bin:$PATH"
unset XDG_CACHE_HOME
mkdir -p "$HOME" "$tmp/elsewhere"
cd "$tmp/elsewhere" || exit 1
case $(uname -m) in x86_64) backends="c11 asm" ;; *) backends=c11 ;; esac
for b in $backends; do
	t "katomic litmus --backend $b on an installed test: 1 passed, 0 failed" \
	  "katomic litmus --backend $b --iterations 20000 '$prefix/share/katomic/tests/litmus/MP+release+acquire.litmus' >'$tmp/litmus-$b.out' 2>&1 && grep -qx '1 passed, 0 failed' '$tmp/litmus-$b.out' || { tail -n 5 '$tmp/litmus-$b.out' | sed 's/^/# /'; false; }"
done
t "it built in the user's cache (~/.cache/katomic), not in the prefix" \
  "ls '$HOME'/.cache/katomic/*/katomic-litmus >/dev/null 2>&1"
if [ "$report" = 1 ]; then
	katomic report --quick --out "$tmp/report" >"$tmp/report.out" 2>"$tmp/report.err"
	rc=$?
	t "katomic report --quick exits 0 or 1 (report written; got $rc)" \
	  "[ $rc -le 1 ] || { tail -n 8 '$tmp/report.err' | sed 's/^/# /'; false; }"
	t "and writes REPORT.md, index.html and report.json with every stage run" \
	  "[ -s '$tmp/report/REPORT.md' ] && [ -s '$tmp/report/index.html' ] && [ -s '$tmp/report/report.json' ] && ! grep -q 'FAILED' '$tmp/report.err' || { grep 'FAILED' '$tmp/report.err' | sed 's/^/# /'; false; }"
	t "its answer is on stdout" "grep -q '^Answer:' '$tmp/report.out'"
fi
(cd "$prefix" && find . -exec ls -ld --time-style=+%s {} + | awk '{ print $1, $5, $6, $7 }' | sort) >"$tmp/after"
t "the installed prefix is unchanged by the runs" "cmp -s '$tmp/before' '$tmp/after' || { diff '$tmp/before' '$tmp/after' | head -n 5 | sed 's/^/# /'; false; }"
echo "1..$n"
[ "$fail" -eq 0 ]
