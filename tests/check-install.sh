#!/bin/sh
# What a user does: make install, then build a program with pkg-config and
# with CMake (find_package(katomic) -> katomic::katomic), and make uninstall.
# The installed instruments are run by tests/check-install-tools.sh.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
make -s install PREFIX="$tmp/usr" BUILD="$tmp/build" >/dev/null
make -s install PREFIX=/usr DESTDIR="$tmp/dest" BUILD="$tmp/build2" >/dev/null
n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else fail=$((fail + 1)); echo "not ok $n - $1"; fi; }
d=$tmp/dest/usr
t "DESTDIR install puts headers under DESTDIR/usr/include/katomic" \
  "[ -f '$d/include/katomic/katomic.h' ] && [ -f '$d/include/katomic/generated/atomic.h' ] && [ -f '$d/include/katomic/kernel.h' ]"
t "DESTDIR install puts katomic.pc under DESTDIR/usr/lib/pkgconfig" \
  "grep -q '^prefix=/usr$' '$d/lib/pkgconfig/katomic.pc'"
t "DESTDIR install puts the CMake package under DESTDIR/usr/lib/cmake/katomic" \
  "[ -f '$d/lib/cmake/katomic/katomic-config.cmake' ] && grep -q '\"$(sed -n 's/^#define KATOMIC_VERSION "\(.*\)"/\1/p' include/katomic/katomic.h)\"' '$d/lib/cmake/katomic/katomic-config-version.cmake'"
t "DESTDIR install puts the katomic CLI in DESTDIR/usr/bin, set up as installed" \
  "[ -x '$d/bin/katomic' ] && grep -q '^installed=1$' '$d/bin/katomic'"
t "DESTDIR install puts the instruments in DESTDIR/usr/share/katomic (tools, bench, litmus tests, Makefile)" \
  "[ -f '$d/share/katomic/tools/litmus/main.c' ] && [ -f '$d/share/katomic/bench/bench.mk' ] && [ -f '$d/share/katomic/tests/litmus/SB+mbs.litmus' ] && [ -f '$d/share/katomic/Makefile' ]"
t "share/katomic/include leads to the installed headers" \
  "[ -f '$d/share/katomic/include/katomic/katomic.h' ] && [ \"\$(readlink '$d/share/katomic/include')\" = ../../include ]"
t "the installed CLI runs from DESTDIR: katomic --help names its commands" \
  "'$d/bin/katomic' --help 2>&1 | grep -q 'katomic litmus'"
find "$tmp/dest" ! -type d | sort >"$tmp/installed"
t "uninstall from DESTDIR removes every file and link install made ($(wc -l <"$tmp/installed") of them)" \
  "make -s uninstall PREFIX=/usr DESTDIR='$tmp/dest' >/dev/null && [ -z \"\$(find '$tmp/dest' ! -type d)\" ]"
# A packager: `make` (the default prefix), `make` again with another one, then
# `make install PREFIX=/usr DESTDIR=...` from the same build directory: what
# is installed must be for /usr, whatever was built before (issue #26).
make -s BUILD="$tmp/b3" >/dev/null && make -s BUILD="$tmp/b3" PREFIX="$tmp/first" >/dev/null &&
	make -s install BUILD="$tmp/b3" PREFIX=/usr DESTDIR="$tmp/pk" >/dev/null
t "make, make PREFIX=A, make install PREFIX=/usr DESTDIR=D: D/usr/lib/pkgconfig/katomic.pc says prefix=/usr" \
  "grep -qx 'prefix=/usr' '$tmp/pk/usr/lib/pkgconfig/katomic.pc'"
t "and no installed file records the prefix or the build directory of the earlier builds" \
  "! grep -rlF -e '$tmp/first' -e '$tmp/b3' -e 'prefix=/usr/local' '$tmp/pk' | sed 's/^/# records it: /' | grep ."
make -s install BUILD="$tmp/b3" PREFIX="$tmp/again" >/dev/null
t "make install PREFIX=B from that build directory again: B's katomic.pc says prefix=B" \
  "grep -qx 'prefix=$tmp/again' '$tmp/again/lib/pkgconfig/katomic.pc'"
if command -v pkg-config >/dev/null 2>&1; then
	# What a cross or staged build sees: only D's .pc, its paths under D.
	pc_d=$(PKG_CONFIG_LIBDIR="$tmp/pk/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/pk" pkg-config --cflags --libs katomic)
	t "pkg-config (PKG_CONFIG_LIBDIR=D/usr/lib/pkgconfig, PKG_CONFIG_SYSROOT_DIR=D) gives -ID/usr/include ($pc_d)" \
	  "echo '$pc_d' | grep -q -- '-I$tmp/pk/usr/include\\( \\|\$\\)'"
	t "a program builds with exactly those flags and runs" \
	  "${CC:-cc} -O2 -o '$tmp/pk-prog' examples/refcount-object.c $pc_d && '$tmp/pk-prog' | grep -qx 'last put: 400000 uses, freeing'"
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
if command -v cmake >/dev/null 2>&1; then
	# shellcheck disable=SC2016
	cm() { cmake -S tests/cmake -B "$1" -DCMAKE_PREFIX_PATH="$2" -DCMAKE_C_FLAGS='-Wall -Wextra -Werror' \
		-DCMAKE_CXX_FLAGS='-Wall -Wextra -Werror' >"$1.log" 2>&1 && cmake --build "$1" >>"$1.log" 2>&1; }
	t "a CMake project finds katomic (find_package(katomic 0.1), katomic::katomic) and builds, C and C++" \
	  "cm '$tmp/cmake' '$tmp/usr' || { sed 's/^/# /' '$tmp/cmake.log'; false; }"
	t "and its programs run" \
	  "'$tmp/cmake/consumer' | grep -qx 'cmake consumer: 400000 hits, last put frees' && '$tmp/cmake/consumer-cxx' | grep -qx 'cmake C++ consumer: 42'"
	make -s install PREFIX=/usr DESTDIR="$tmp/dest" BUILD="$tmp/build2" >/dev/null
	t "the CMake package works from where it is (a DESTDIR install, PREFIX=/usr)" \
	  "cm '$tmp/cmake-dest' '$tmp/dest/usr' && grep -q '$tmp/dest/usr/include' '$tmp/cmake-dest/CMakeFiles/consumer.dir/flags.make'"
	t "find_package(katomic 1.0) refuses this version, saying which it found" \
	  "! cmake -S tests/cmake -B '$tmp/cmake-v' -DCMAKE_PREFIX_PATH='$tmp/usr' -DKATOMIC_WANT=1.0 >'$tmp/v.log' 2>&1 && grep -q 'version: $(sed -n 's/^#define KATOMIC_VERSION "\(.*\)"/\1/p' include/katomic/katomic.h)' '$tmp/v.log'"
else
	echo "# cmake not installed (apt-get install cmake): CMake package test skipped"
fi
echo "1..$n"
[ "$fail" -eq 0 ]
