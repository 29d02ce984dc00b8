#!/bin/sh
# Each public header must compile on its own, warning-free, with every
# installed compiler: as C11 and C17 (-pedantic) and as C++17.
# Usage: tests/check-headers.sh [compiler...]   (default: gcc clang)
set -u
ccs=${*:-gcc clang}
. tests/lib.sh
# every check of one compiler (per_cc runs the compilers side by side)
one_cc() {
	cc=$1
	command -v "$cc" >/dev/null 2>&1 || { echo "# $cc not installed: skipped"; return; }
	case $cc in
	*clang*) cxx=$(echo "$cc" | sed 's/clang/clang++/') ;;
	*gcc*) cxx=$(echo "$cc" | sed 's/gcc/g++/') ;;
	*) cxx= ;;
	esac
	for b in $backends; do
		bflag=; [ "$b" = asm ] && bflag=-DKATOMIC_BACKEND_ASM
		for h in include/katomic/*.h; do
			name=$(basename "$h")
			printf '#include <katomic/%s>\n#include <katomic/%s>\nint katomic_header_check;\n' "$name" "$name" >"$tmp/t.c"
			for std in c11 c17; do
				n=$((n + 1))
				if $cc -std=$std -pedantic -Wall -Wextra -Werror $bflag -Iinclude -c "$tmp/t.c" -o "$tmp/t.o" 2>"$tmp/err"; then
					echo "ok $n - $cc -std=$std $b $name"
				else
					fail=$((fail + 1)); echo "not ok $n - $cc -std=$std $b $name"; sed 's/^/# /' "$tmp/err"
				fi
			done
			if [ -n "$cxx" ] && command -v "$cxx" >/dev/null 2>&1; then
				cp "$tmp/t.c" "$tmp/t.cc"
				n=$((n + 1))
				if $cxx -std=c++17 -Wall -Wextra -Werror $bflag -Iinclude -c "$tmp/t.cc" -o "$tmp/t.o" 2>"$tmp/err"; then
					echo "ok $n - $cxx -std=c++17 $b $name"
				else
					fail=$((fail + 1)); echo "not ok $n - $cxx -std=c++17 $b $name"; sed 's/^/# /' "$tmp/err"
				fi
			fi
		done
	done
}
per_cc one_cc $ccs
# Sizes READ_ONCE, xchg and cmpxchg64 must reject at compile time.
for bad in 'struct { char c[16]; } s; (void)READ_ONCE(s);' \
	   'struct { char c[3]; } s, t = {{0}}; WRITE_ONCE(s, t);' \
	   '__int128 x = 0; (void)xchg(&x, x);' \
	   'int x = 0; (void)cmpxchg64(&x, 0, 1);' \
	   'struct { int a, b, c; } s; (void)smp_load_acquire(&s);'; do
	n=$((n + 1))
	printf '#include <katomic/katomic.h>\nvoid f(void);\nvoid f(void) { %s }\n' "$bad" >"$tmp/bad.c"
	if ${ccs%% *} -std=gnu11 -Iinclude -c "$tmp/bad.c" -o "$tmp/bad.o" 2>/dev/null; then
		fail=$((fail + 1)); echo "not ok $n - rejected at compile time: $bad"
	else
		echo "ok $n - rejected at compile time: $bad"
	fi
done
# <stdatomic.h> first, then katomic without KATOMIC_PREFIX: accepted, -pedantic
# (every name's meaning in both orders: make check-interop).
n=$((n + 1))
printf '#include <stdatomic.h>\n#include <katomic/atomic.h>\nint katomic_header_check;\n' >"$tmp/both.c"
if ${ccs%% *} -std=c11 -pedantic -Wall -Wextra -Werror -Iinclude -c "$tmp/both.c" -o "$tmp/both.o" 2>"$tmp/err"; then
	echo "ok $n - <stdatomic.h> then katomic compiles (-std=c11 -pedantic)"
else
	fail=$((fail + 1)); echo "not ok $n - <stdatomic.h> then katomic compiles (-std=c11 -pedantic)"; sed 's/^/# /' "$tmp/err"
fi
echo "1..$n"
echo "check-headers: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
