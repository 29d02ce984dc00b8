#!/bin/sh
# The unit tests cross-compiled with Debian's gcc for other architectures and
# run under qemu-user, once per target variant; a missing cross compiler or
# qemu is skipped with a note naming the package to install.  The tests that
# are also C++ (CXX_SRCS) are built by clang++ --target with the same
# sysroot: they use no C++ library, so neither its headers (-nostdinc++) nor
# a cross libstdc++ are needed.
set -u
build=${BUILD:-build}/cross
rm -rf "$build"; mkdir -p "$build"
# The stress tests are too slow under emulation, except the spinlock's (time-
# bounded): its mixed-size accesses and futex sleeps are the target's own.
srcs="$(ls tests/test-*.c tests/generated/*.c | grep -v -e '/test-stress-' -e '/test-up-' -e '/stdnames-cxx' -e '/stdnames-codegen') tests/test-stress-spinlock.c"
CXX_SRCS=${CXX_SRCS:-tests/test-compat.c tests/generated/names.c tests/generated/names-optin.c}
CROSS_CXX=${CROSS_CXX:-clang++}
command -v "$CROSS_CXX" >/dev/null 2>&1 || echo "note: C++ cross builds skipped: $CROSS_CXX not installed (apt-get install clang)"
# name | compiler | qemu | flags | Debian package
targets='aarch64|aarch64-linux-gnu-gcc|qemu-aarch64||gcc-aarch64-linux-gnu
aarch64-no-outline|aarch64-linux-gnu-gcc|qemu-aarch64|-mno-outline-atomics|gcc-aarch64-linux-gnu
aarch64-lse|aarch64-linux-gnu-gcc|qemu-aarch64|-march=armv8.1-a|gcc-aarch64-linux-gnu
ppc64le|powerpc64le-linux-gnu-gcc|qemu-ppc64le||gcc-powerpc64le-linux-gnu
riscv64|riscv64-linux-gnu-gcc|qemu-riscv64||gcc-riscv64-linux-gnu
s390x|s390x-linux-gnu-gcc|qemu-s390x||gcc-s390x-linux-gnu
armhf|arm-linux-gnueabihf-gcc|qemu-arm||gcc-arm-linux-gnueabihf'
ran=0 failed=0
echo "$targets" | {
while IFS='|' read -r name cc qemu flags pkg; do
	if ! command -v "$cc" >/dev/null 2>&1 || ! command -v "$qemu" >/dev/null 2>&1; then
		echo "note: $name skipped: needs $cc and $qemu (apt-get install $pkg qemu-user)"
		continue
	fi
	mkdir -p "$build/$name"
	for src in $srcs; do
		t=$(basename "$src" .c)
		bin="$build/$name/$t"
		if ! $cc -std=gnu11 -O2 -Wall -Wextra ${WERROR:-} $flags -static -pthread -Iinclude -Itests \
			-o "$bin" "$src" 2>"$bin.err"; then
			echo "not ok - $name: $t does not compile"; sed 's/^/# /' "$bin.err"
			failed=$((failed + 1)); continue
		fi
		printf '#!/bin/sh\nexec %s %s\n' "$qemu" "$bin" >"$bin.t"
	done
	command -v "$CROSS_CXX" >/dev/null 2>&1 || continue
	for src in $CXX_SRCS; do
		t=$(basename "$src" .c)
		bin="$build/$name/$t-cxx"
		if ! $CROSS_CXX --target="${cc%-gcc}" -x c++ -std=gnu++17 -O2 -Wall -Wextra ${WERROR:-} $flags \
			-static -nostdinc++ -nostdlib++ -fno-exceptions -fno-rtti -pthread -Iinclude -Itests \
			-o "$bin" "$src" 2>"$bin.err"; then
			echo "not ok - $name: $t does not compile as C++ ($CROSS_CXX --target=${cc%-gcc})"; sed 's/^/# /' "$bin.err"
			failed=$((failed + 1)); continue
		fi
		printf '#!/bin/sh\nexec %s %s\n' "$qemu" "$bin" >"$bin.t"
	done
done
ls "$build"/*/*.t >/dev/null 2>&1 || { echo "check-cross: no cross target available"; exit 0; }
[ "$failed" -eq 0 ] || exit 1
exec prove -f --exec sh "$build"/*/*.t
}
