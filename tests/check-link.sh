#!/bin/sh
# make check-link: a program that includes katomic links with libc alone, on
# every target.  katomic is installed into a scratch DESTDIR; tests/link/
# single.c (single-threaded: katomic's ops, the user's own 1- and 2-byte
# xchg/cmpxchg, a spinlock) is then built with each compiler (gcc; clang,
# --target= for the cross ones, Debian's cross sysroot), statically and
# dynamically (and at -O0), with
#   exactly the flags `pkg-config --cflags --libs katomic` gives (what the
#   README says), and
#   the same without -pthread, which on RISC-V makes gcc add -latomic and so
#   hid libatomic calls: nothing but libc may be linked then;
# and run (under qemu-user for the cross targets).  Each build must not
# contain or need libatomic: no __atomic_* symbol in a static binary, no
# libatomic in a dynamic one's NEEDED.  A missing compiler or qemu is skipped
# with a note naming the package.
set -u
. tests/lib.sh
command -v pkg-config >/dev/null 2>&1 || { echo "check-link: needs pkg-config (apt-get install pkgconf)" >&2; exit 1; }
make -s install PREFIX=/usr DESTDIR="$tmp/stage" BUILD="$tmp/build" >/dev/null || exit 1
pc=$(PKG_CONFIG_LIBDIR="$tmp/stage/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$tmp/stage" \
	pkg-config --cflags --libs katomic) || exit 1
nopthread=$(echo "$pc" | sed 's/-pthread//g')
echo "# pkg-config --cflags --libs katomic: $pc"
n=0 fail=0
t() { n=$((n + 1)); if eval "$2"; then echo "ok $n - $1"; else fail=$((fail + 1)); echo "not ok $n - $1"; fi; }

# One build and run: $1 label, $2 compiler command, $3 qemu (or empty), $4 sysroot for
# qemu -L, $5 link (static|dynamic), $6 flags.
one() {
	bin=$tmp/bin-$n
	# shellcheck disable=SC2086
	if ! $2 -std=gnu11 -O2 -Wall -Wextra ${WERROR:-} $([ "$5" = static ] && echo -static) \
		-o "$bin" tests/link/single.c $6 >"$bin.log" 2>&1; then
		sed 's/^/# /' "$bin.log"; return 1
	fi
	if [ "$5" = static ]; then
		# libatomic's entry points and internals (glibc has __atomic_wide_counter_* of its own)
		syms=$(readelf -sW "$bin" | awk '$8 ~ /^(__atomic_(load|store|exchange|compare_exchange|fetch_|add_fetch|sub_fetch|and_fetch|or_fetch|xor_fetch|nand_fetch|test_and_set|is_lock_free|feraiseexcept)|libat_)/ { print $8 }' |
			sort -u | tr '\n' ' ')
		[ -z "$syms" ] || { echo "# libatomic linked in: $syms"; return 1; }
	else
		need=$(readelf -dW "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
		case " $need" in *" libatomic"*) echo "# NEEDED: $need"; return 1 ;; esac
		if [ "$6" = "$nopthread" ]; then
			for lib in $need; do
				case $lib in libc.so.*|ld-linux*|ld64.so.*|ld.so.*) ;;
				*) echo "# NEEDED more than libc: $need"; return 1 ;; esac
			done
		fi
	fi
	# shellcheck disable=SC2086
	out=$(${3:+$3 -L $4} "$bin" 2>&1) && echo "$out" | grep -q '^single: all [0-9]* checks hold$' ||
		{ echo "$out" | sed 's/^/# /'; return 1; }
}

# name | gcc | clang --target triple (empty: native) | qemu | flags | Debian package (as tests/check-cross.sh)
targets="native|gcc|||
aarch64|aarch64-linux-gnu-gcc|aarch64-linux-gnu|qemu-aarch64||gcc-aarch64-linux-gnu
aarch64-no-outline|aarch64-linux-gnu-gcc|aarch64-linux-gnu|qemu-aarch64|-mno-outline-atomics|gcc-aarch64-linux-gnu
aarch64-lse|aarch64-linux-gnu-gcc|aarch64-linux-gnu|qemu-aarch64|-march=armv8.1-a|gcc-aarch64-linux-gnu
ppc64le|powerpc64le-linux-gnu-gcc|powerpc64le-linux-gnu|qemu-ppc64le||gcc-powerpc64le-linux-gnu
riscv64|riscv64-linux-gnu-gcc|riscv64-linux-gnu|qemu-riscv64||gcc-riscv64-linux-gnu
s390x|s390x-linux-gnu-gcc|s390x-linux-gnu|qemu-s390x||gcc-s390x-linux-gnu
armhf|arm-linux-gnueabihf-gcc|arm-linux-gnueabihf|qemu-arm||gcc-arm-linux-gnueabihf"
while IFS='|' read -r name gcc triple qemu flags pkg; do
	if [ -n "$qemu" ] && ! command -v "$qemu" >/dev/null 2>&1; then
		echo "# note: $name skipped: $qemu not installed (apt-get install qemu-user)"; continue
	fi
	for cc in "$gcc" clang; do
		if ! command -v "$cc" >/dev/null 2>&1; then
			echo "# note: $name with $cc skipped: not installed${pkg:+ (apt-get install $pkg)}"; continue
		fi
		cmd="$cc${triple:+ --target=$triple} $flags"
		[ "$cc" = clang ] || cmd="$cc $flags"
		for link in static dynamic; do
			t "$name $cc $link: links with exactly pkg-config's flags, no libatomic, runs" \
			  "one '$name' '$cmd' '$qemu' '/usr/$triple' $link '$pc'"
			t "$name $cc $link: and without -pthread: nothing but libc, runs" \
			  "one '$name' '$cmd' '$qemu' '/usr/$triple' $link '$nopthread'"
		done
		t "$name $cc static -O0: without -pthread: nothing but libc, runs" \
		  "one '$name' '$cmd' '$qemu' '/usr/$triple' static '$nopthread -O0'"
	done
done <<EOF
$targets
EOF
echo "1..$n"
[ "$fail" -eq 0 ]
