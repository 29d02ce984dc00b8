#!/bin/sh
# make check-payg: pay only for what you use (issue 34).  With each compiler
# (C: gcc clang; C++: g++ clang++) at -O0, -O2 and -Os:
#   1. tests/payg/none.c, which uses atomics but never locks, waits or
#      saturates a refcount, built (each backend) with <katomic/atomic.h> and with
#      <katomic/katomic.h>: the same text (within 16 bytes, `size`), the same
#      data and bss, the same undefined symbols (`nm -u`);
#   2. tests/payg/lock.c (locks, waits, uses a refcount; C11 backend) built as one and as
#      two objects of one program: the second object adds its own function
#      (user1, and main's second call) to .text and nothing else: no second
#      copy of the out-of-line machinery (within 32 bytes of alignment), and
#      nothing to .bss, .tbss or .data.
# Usage: tests/check-payg.sh [INCLUDE_DIR [compiler...]]   (default: include, gcc clang g++ clang++)
set -u
. tests/lib.sh
inc=${1:-include}
[ $# -gt 0 ] && shift
ccs=${*:-gcc clang g++ clang++}
n=0 fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; }
# size(1)'s text data bss of $1
sz() { size "$1" | awk 'NR == 2 { print $1, $2, $3 }'; }
# the size of section $2 of $1 (0 if none)
sec() { size -A "$1" | awk -v s="$2" '$1 == s { n = $2 } END { print n + 0 }'; }
# every check of one compiler (per_cc runs the compilers side by side)
one_cc() {
	cc=$1
	command -v "$cc" >/dev/null 2>&1 || { echo "# $cc not installed: skipped"; return; }
	case $cc in *++*) lang="-x c++ -std=gnu++17" what=C++ ;; *) lang="-std=gnu11" what=C ;; esac
	for o in -O0 -O2 -Os; do
		d=$tmp/$cc$o; mkdir -p "$d"
		cflags="$o -Wall -Wextra ${WERROR:-} -I$inc"
		# 1. nothing used (every backend)
		for b in $backends; do
		bflag=; [ "$b" = asm ] && bflag=-DKATOMIC_BACKEND_ASM
		built=1
		for h in atomic katomic; do
			# shellcheck disable=SC2086
			$cc $lang $cflags $bflag "-DHDR=<katomic/$h.h>" -o "$d/none-$h" tests/payg/none.c 2>"$d/err-$h" || built=0
		done
		label="$what $cc $o $b: katomic.h without locks costs what atomic.h does"
		if [ $built = 0 ]; then
			notok "$label: does not build"; sed 's/^/# /' "$d"/err-*; continue
		fi
		set -- $(sz "$d/none-atomic"); at=$1 ad=$2 ab=$3
		set -- $(sz "$d/none-katomic"); kt=$1 kd=$2 kb=$3
		ua=$(nm -u "$d/none-atomic" | awk '{ print $NF }' | sort | tr '\n' ' ')
		uk=$(nm -u "$d/none-katomic" | awk '{ print $NF }' | sort | tr '\n' ' ')
		dt=$((kt - at)); [ $dt -lt 0 ] && dt=$((-dt))
		if [ $dt -le 16 ] && [ "$kd" = "$ad" ] && [ "$kb" = "$ab" ] && [ "$uk" = "$ua" ]; then
			ok "$label (text $at/$kt, data $ad, bss $ab)"
		else
			notok "$label"
			echo "#   atomic.h:  text $at data $ad bss $ab"
			echo "#   katomic.h: text $kt data $kd bss $kb"
			[ "$uk" = "$ua" ] || { echo "#   nm -u atomic.h:  $ua"; echo "#   nm -u katomic.h: $uk"; }
		fi
		done
		# 2. one copy per program (the C11 backend: with the asm backend every object
		#    keeps its copy, compiler.h's __KA_ONCE_SECTION says why)
		label="$what $cc $o: a second object that locks adds its own code only"
		# shellcheck disable=SC2086
		if ! $cc $lang $cflags -DNAME=user0 -c -o "$d/u0.o" tests/payg/lock.c 2>"$d/err" ||
		   ! $cc $lang $cflags -DNAME=user1 -c -o "$d/u1.o" tests/payg/lock.c 2>>"$d/err" ||
		   ! $cc $lang $cflags -DUSERS=1 -c -o "$d/m1.o" tests/payg/main.c 2>>"$d/err" ||
		   ! $cc $lang $cflags -DUSERS=2 -c -o "$d/m2.o" tests/payg/main.c 2>>"$d/err" ||
		   ! $cc -o "$d/m1" "$d/m1.o" "$d/u0.o" 2>>"$d/err" ||
		   ! $cc -o "$d/m2" "$d/m2.o" "$d/u0.o" "$d/u1.o" 2>>"$d/err"; then
			notok "$label: does not build"; sed 's/^/# /' "$d/err"; continue
		fi
		if ! "$d/m1" || ! "$d/m2"; then
			notok "$label: the programs fail"; continue
		fi
		# the second object's own code: user1 (and a .cold part), and main's extra call
		own=$(nm -S "$d/m2" | awk '$4 ~ /^(_Z[0-9]*)?user1/ || $4 == "main" { s += strtonum("0x" $2) } END { print s + 0 }')
		own1=$(nm -S "$d/m1" | awk '$4 == "main" { s += strtonum("0x" $2) } END { print s + 0 }')
		own=$((own - own1))
		dtext=$(($(sec "$d/m2" .text) - $(sec "$d/m1" .text)))
		bad=
		for s in .bss .tbss .data; do
			[ "$(sec "$d/m2" $s)" = "$(sec "$d/m1" $s)" ] || bad="$bad $s $(sec "$d/m1" $s) -> $(sec "$d/m2" $s);"
		done
		if [ $((dtext - own)) -le 32 ] && [ -z "$bad" ]; then
			ok "$label (.text +$dtext, its code $own)"
		else
			notok "$label"
			echo "#   .text +$dtext bytes for $own bytes of its own code;$bad"
		fi
	done
}
per_cc one_cc $ccs
echo "1..$n"
echo "check-payg: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
