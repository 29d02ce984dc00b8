#!/bin/sh
# spinlock_t across an executable and a shared library that each inline
# katomic (tests/dso/): one waiter pool, exact counts.  Every pair of the
# installed compilers, so that gcc-built and clang-built halves meet (they
# call the contended path through different wrappers).
# Usage: tests/check-spinlock-dso.sh [compiler...]
set -u
ccs=${*:-gcc clang}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
for lcc in $ccs; do
	command -v "$lcc" >/dev/null 2>&1 || { echo "# $lcc not installed: skipped"; continue; }
	for mcc in $ccs; do
		command -v "$mcc" >/dev/null 2>&1 || continue
		for b in c11 asm; do
			bflag=; [ "$b" = asm ] && bflag=-DKATOMIC_BACKEND_ASM
			case $(cc -dumpmachine) in x86_64*) ;; *) [ "$b" = asm ] && continue ;; esac
			n=$((n + 1)); d=$tmp/$n; mkdir -p "$d"
			what="library $lcc, program $mcc, $b backend"
			if ! $lcc -std=gnu11 -O2 -Wall -Wextra -Werror $bflag -Iinclude -fPIC -shared \
				-o "$d/libspin.so" tests/dso/spin-lib.c 2>"$d/err" ||
			   ! $mcc -std=gnu11 -O2 -Wall -Wextra -Werror $bflag -Iinclude -pthread \
				-o "$d/main" tests/dso/spin-main.c -L"$d" -lspin -Wl,-rpath,"$d" 2>>"$d/err"; then
				fail=$((fail + 1)); echo "not ok $n - $what: does not build"; sed 's/^/# /' "$d/err"
				continue
			fi
			if timeout 120 "$d/main" >"$d/out" 2>&1 && ! grep -q '^not ok' "$d/out"; then
				echo "ok $n - $what: one pool, exact count"
			else
				fail=$((fail + 1)); echo "not ok $n - $what"; sed 's/^/# /' "$d/out"
			fi
		done
	done
done
echo "1..$n"
echo "check-spinlock-dso: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
