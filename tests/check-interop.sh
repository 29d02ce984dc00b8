#!/bin/sh
# katomic beside what ported programs also include, warning-free (-Werror):
#   liburcu in either include order (rcu_dereference/rcu_assign_pointer are
#   then liburcu's), every flavour, C and C++, with and without _LGPL_SOURCE,
#   and a reader/updater program linked with -lurcu;
#   <stdatomic.h> (C) and <atomic>, C++23 <stdatomic.h> (C++) before or
#   after katomic: every standard name keeps its meaning, the five both
#   define keep the kernel's too (tests/generated/stdnames*.c, every C and
#   C++ standard the compiler has), a call that fits neither is one error
#   naming KATOMIC_PREFIX, and the calls compile to the instructions they
#   compile to without the other header (tests/stdnames.sh);
#   a program's own ATOMIC_INIT/likely identical to the kernel's, before or
#   after katomic; its own u8/likely without <katomic/kernel.h>;
#   <linux/types.h> before or after <katomic/kernel.h>;
#   spin_lock_irqsave's flags: no warning at -O0/-O2, a warning (as in the
#   kernel) for a flags that is not an unsigned long;
#   ACCESS_ONCE on a 16-byte struct does not compile.
# Usage: tests/check-interop.sh [compiler...]   (default: gcc clang)
set -u
ccs=${*:-gcc clang}
. tests/lib.sh
n=0 fail=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
flunk() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"; [ -s "$tmp/err" ] && sed 's/^/# /' "$tmp/err" | head -n 20; }
# compiles CC SRCFILE FLAGS...: the file compiles warning-free
compiles() { c=$1 f=$2; shift 2; $c -Wall -Wextra -Werror -Iinclude -Itests "$@" -c "$f" -o "$tmp/o.o" 2>"$tmp/err"; }
# expect_clean WHAT CC SRCFILE FLAGS...: one TAP line, ok if it compiles warning-free
expect_clean() { what=$1; shift; if compiles "$@"; then pass "$what"; else flunk "$what"; fi; }
# expect_error WHAT PATTERN CC SRCFILE FLAGS...: ok if it does not compile and the error matches PATTERN
expect_error() {
	what=$1 pat=$2; shift 2
	if compiles "$@"; then flunk "$what"
	elif grep -q "$pat" "$tmp/err"; then pass "$what"
	else flunk "$what (the error does not match '$pat')"; fi
}
cxx_of() { case $1 in *clang*) echo "$1" | sed 's/clang/clang++/' ;; *gcc*) echo "$1" | sed 's/gcc/g++/' ;; esac; }
. tests/stdnames.sh
urcu_hdr=$(printf '#include <urcu.h>\n' | ${ccs%% *} -x c -E - >/dev/null 2>&1 && echo yes)

# every check of one compiler (per_cc runs the compilers side by side)
one_cc() {
	cc=$1
	command -v "$cc" >/dev/null 2>&1 || { echo "# $cc not installed: skipped"; return; }
	cxx=$(cxx_of "$cc")
	command -v "$cxx" >/dev/null 2>&1 || cxx=
	for b in $backends; do
		bflag=; [ "$b" = asm ] && bflag=-DKATOMIC_BACKEND_ASM
		# ---- liburcu, both orders, every flavour
		if [ -n "$urcu_hdr" ]; then
			for h in urcu.h urcu-qsbr.h urcu-bp.h urcu/urcu-memb.h urcu/urcu-mb.h urcu/urcu-signal.h; do
				for lgpl in "" -D_LGPL_SOURCE; do
					for order in urcu-first katomic-first; do
						if [ "$order" = urcu-first ]; then
							printf '#include <%s>\n#include <katomic/kernel.h>\n' "$h" >"$tmp/u.c"
						else
							printf '#include <katomic/kernel.h>\n#include <%s>\n' "$h" >"$tmp/u.c"
						fi
						printf 'struct o { int v; };\nstruct o *g;\nint f(struct o *n);\nint f(struct o *n) { struct o *p = rcu_dereference(g); rcu_assign_pointer(g, n); return p ? p->v : 0; }\n' >>"$tmp/u.c"
						what="$cc $b: <$h> and katomic, $order${lgpl:+, $lgpl}"
						expect_clean "$what" "$cc" "$tmp/u.c" -std=gnu11 $bflag $lgpl
						[ -n "$cxx" ] || continue
						cp "$tmp/u.c" "$tmp/u.cc"
						expect_clean "$what (C++, $cxx)" "$cxx" "$tmp/u.cc" -std=gnu++17 $bflag $lgpl
					done
				done
			done
			for order in -DURCU_FIRST ""; do
				what="$cc $b: reader/updater program with liburcu (${order:+urcu first}${order:-katomic first})"
				if $cc -std=gnu11 -O2 -Wall -Wextra -Werror $bflag $order -Iinclude -Itests -pthread \
					-o "$tmp/urcu" tests/interop/urcu.c -lurcu 2>"$tmp/err" &&
					timeout 120 "$tmp/urcu" >"$tmp/out" 2>&1 && ! grep -q '^not ok' "$tmp/out"; then
					pass "$what"
				else
					cat "$tmp/out" >>"$tmp/err" 2>/dev/null; flunk "$what"
				fi
			done
		fi

		# ---- <stdatomic.h> / <atomic> beside katomic (gen/stdnames.tbl)
		stdnames_matrix "$cc" "$cxx" "$b" "$bflag"
		printf '#include <katomic/katomic.h>\n#include <stdatomic.h>\nint f(void);\nint f(void) { atomic_int c = 1; ka_atomic_t k = KA_ATOMIC_INIT(1);\n  return atomic_fetch_add(&c, 1) + ka_atomic_fetch_add(1, &k) + (int)memory_order_relaxed; }\n' >"$tmp/s.c"
		expect_clean "$cc $b: with -DKATOMIC_PREFIX, <stdatomic.h> after katomic is accepted" "$cc" "$tmp/s.c" -std=gnu11 $bflag -DKATOMIC_PREFIX

		# ---- a program's own copies of the kernel's definitions
		printf '#define ATOMIC_INIT(i) { (i) }\n#define likely(x) __builtin_expect(!!(x), 1)\n#include <katomic/kernel.h>\n#define ATOMIC_INIT(i) { (i) }\n#define unlikely(x) __builtin_expect(!!(x), 0)\natomic_t a = ATOMIC_INIT(3);\nint f(int x);\nint f(int x) { return likely(x) + unlikely(x) + atomic_read(&a); }\n' >"$tmp/d.c"
		expect_clean "$cc $b: the kernel's own ATOMIC_INIT/likely/unlikely before and after katomic: no warning" "$cc" "$tmp/d.c" -std=gnu11 $bflag
		printf 'typedef unsigned char u8;\ntypedef int s64;\n#define likely(x) (x)\nstatic int prefetch;\n#include <katomic/katomic.h>\nu8 f(s64 x);\nu8 f(s64 x) { return (u8)(likely(x) + prefetch); }\n' >"$tmp/o.c"
		expect_clean "$cc $b: a program's own u8, s64, likely, prefetch beside katomic.h (kernel.h is opt-in)" "$cc" "$tmp/o.c" -std=gnu11 $bflag
		printf '#define likely(x) (x)\n#include <katomic/kernel.h>\nint f(int x);\nint f(int x) { return likely(x); }\n' >"$tmp/o.c"
		expect_clean "$cc $b: a program's own different likely before kernel.h is kept, no warning" "$cc" "$tmp/o.c" -std=gnu11 $bflag
		for order in before after; do
			if [ $order = before ]; then printf '#include <linux/types.h>\n#include <katomic/kernel.h>\n' >"$tmp/t.c"
			else printf '#include <katomic/kernel.h>\n#include <linux/types.h>\n' >"$tmp/t.c"; fi
			printf '__u64 f(u64 a, __u32 b);\n__u64 f(u64 a, __u32 b) { u32 c = b; return (__u64)(a + c); }\n' >>"$tmp/t.c"
			expect_clean "$cc $b: <linux/types.h> $order <katomic/kernel.h>" "$cc" "$tmp/t.c" -std=gnu11 -pedantic $bflag
		done

		# ---- spin_lock_irqsave's flags
		printf '#include <katomic/katomic.h>\nstatic DEFINE_SPINLOCK(l);\nstatic int c;\nvoid f(void);\nvoid f(void) { unsigned long flags;\n  spin_lock_irqsave(&l, flags); c++; spin_unlock_irqrestore(&l, flags);\n  raw_spin_lock_irqsave(&l, flags); c++; raw_spin_unlock_irqrestore(&l, flags); }\n' >"$tmp/f.c"
		for o in -O0 -O2; do
			expect_clean "$cc $b $o: flags only given to spin_lock_irqsave/irqrestore: no warning" "$cc" "$tmp/f.c" -std=gnu11 $o $bflag
		done
		sed 's/unsigned long flags/unsigned int flags/' "$tmp/f.c" >"$tmp/g.c"
		expect_error "$cc $b: an unsigned int flags is diagnosed (the kernel's typecheck)" \
			'flags\|pointer' "$cc" "$tmp/g.c" -std=gnu11 $bflag

		# ---- ACCESS_ONCE: only 1, 2, 4, 8-byte scalars
		printf '#include <katomic/katomic.h>\nstruct s { long a, b; };\nvoid f(struct s *p, struct s v);\nvoid f(struct s *p, struct s v) { ACCESS_ONCE(*p) = v; }\n' >"$tmp/a.c"
		expect_error "$cc $b: ACCESS_ONCE on a 16-byte struct does not compile, with its own message" \
			'ACCESS_ONCE: only' "$cc" "$tmp/a.c" -std=gnu11 $bflag
	done
}
per_cc one_cc $ccs
[ -n "$urcu_hdr" ] || echo "note: liburcu not installed (apt-get install liburcu-dev): its interop checks skipped"
echo "1..$n"
echo "check-interop: $((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
