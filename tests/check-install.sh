#!/bin/sh
# What a user does: make install, then build a program with pkg-config.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
make -s install PREFIX="$tmp/usr" BUILD="$tmp/build" >/dev/null
make -s install PREFIX=/usr DESTDIR="$tmp/dest" BUILD="$tmp/build2" >/dev/null
n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else fail=$((fail + 1)); echo "not ok $n - $1"; fi; }
t "DESTDIR install puts headers under DESTDIR/usr/include/katomic" \
  "[ -f '$tmp/dest/usr/include/katomic/katomic.h' ] && [ -f '$tmp/dest/usr/include/katomic/generated/atomic.h' ]"
t "DESTDIR install puts katomic.pc under DESTDIR/usr/lib/pkgconfig" \
  "grep -q '^prefix=/usr$' '$tmp/dest/usr/lib/pkgconfig/katomic.pc'"
if command -v pkg-config >/dev/null 2>&1; then
	export PKG_CONFIG_PATH="$tmp/usr/lib/pkgconfig"
	t "pkg-config --cflags katomic names the installed headers" \
	  "[ \"\$(pkg-config --cflags katomic | sed 's/ *$//')\" = '-I$tmp/usr/include' ]"
	t "an example builds against the installed headers with pkg-config" \
	  "${CC:-cc} -std=gnu11 -Wall -Wextra -Werror examples/refcount-object.c \$(pkg-config --cflags --libs katomic) -o '$tmp/example'"
	t "and runs: the last put frees once" \
	  "'$tmp/example' | grep -qx 'last put: 400000 uses, freeing'"
else
	echo "# pkg-config not installed (apt-get install pkgconf): build test skipped"
fi
echo "1..$n"
[ "$fail" -eq 0 ]
