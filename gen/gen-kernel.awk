# Writes one header of the Linux kernel's x86-64 arch atomic layer on C11
# __atomic builtins (the `katomic kernel` patch puts it in
# arch/x86/include/asm/).  -v PART=atomic|atomic64: arch_atomic*_*() from
# gen/atomics.tbl; any other PART: the banner plus gen/kernel/PART-c11.h.
#
# Which table functions the arch layer provides: every fully ordered (or plain
# read/set) function that is one builtin, i.e. one locked instruction.  The
# conditional loops (add_unless, inc_not_zero, dec_if_positive, ...) and the
# _acquire/_release/_relaxed forms are left to the kernel's own
# include/linux/atomic/atomic-arch-fallback.h, which derives them from these,
# as it does for the stock x86 asm (which provides the same set, minus
# andnot/inc_return/fetch_inc..., that the fallbacks build the same way).
# Every function gets its `#define arch_X arch_X` marker.

# The builtin an op maps to: "OP|OPERAND" (OPERAND "i", "1" or "~i"), "" if none.
function rmw_of(op) {
	if (op ~ /^(add|sub|and|or|xor)$/) return op "|i"
	if (op == "andnot") return "and|~i"
	if (op == "inc") return "add|1"
	if (op == "dec") return "sub|1"
	return ""
}

# The body of function k on the kernel type T, or "" when it is not one builtin.
function body(k, T,    op, m, r, b, x, arg, test) {
	op = F_op[k]; m = F_meta[k]
	if (F_order[k] != "") return ""
	if (m == "l") return "return __atomic_load_n((const volatile " T " *)&v->counter, __ATOMIC_RELAXED);"
	if (m == "s") return "__atomic_store_n((volatile " T " *)&v->counter, i, __ATOMIC_RELAXED);"
	if (op == "xchg") return "return __atomic_exchange_n(&v->counter, newv, __KA_RMW);"
	# The expected value in a local of its own, *old written only on failure
	# (the kernel asm's shape): gcc keeps a caller's old that sits in a
	# struct or union in a stack slot when the builtin takes its address.
	if (op == "try_cmpxchg")
		return T " o = *old;\n\tbool r = __atomic_compare_exchange_n(&v->counter, &o, newv, false,\n\t\t\t\t\t     __KA_RMW, __KA_RMW);\n\n\tif (unlikely(!r))\n\t\t*old = o;\n\treturn r;"
	if (op == "cmpxchg")
		return "(void)__atomic_compare_exchange_n(&v->counter, &old, newv, false,\n\t\t\t\t\t  __KA_RMW, __KA_RMW);\n\treturn old;"
	test = ""
	if (op ~ /_and_test$/) { test = " == 0"; op = substr(op, 1, length(op) - 9) }
	else if (op == "add_negative") { test = " < 0"; op = "add" }
	r = rmw_of(op)
	if (r == "") return ""
	split(r, x, "|"); b = x[1]; arg = x[2]
	if (m == "v") return "(void)__atomic_fetch_" b "(&v->counter, " arg ", __KA_RMW);"
	if (m == "F") return "return __atomic_fetch_" b "(&v->counter, " arg ", __KA_RMW);"
	if (m == "R" || test != "") return "return __atomic_" b "_fetch(&v->counter, " arg ", __KA_RMW)" test ";"
	return ""
}

# Kernel parameter list: the table's, with the kernel's type names.
function k_params(k, T, pfx,    a, n, j, s, ty, nm) {
	n = split(F_args[k], a, " ")
	s = ""
	for (j = 1; j <= n; j++) {
		nm = arg_name(a[j])
		ty = substr(a[j], 1, index(a[j] ":", ":") - 1)
		if (ty == "cv") s = s ", const " pfx "_t *" nm
		else if (ty == "v") s = s ", " pfx "_t *" nm
		else if (ty == "i") s = s ", " T " " nm
		else if (ty == "p") s = s ", " T " *" nm
	}
	return substr(s, 3)
}

# The generic (asm-generic) layer for weakly ordered architectures: every
# table function that is one builtin, in the order the table gives it (F_order
# "_acquire"/"_release"/"_relaxed"; "" is fully ordered, except the void RMWs,
# which the kernel leaves unordered).  The order's fences and C11 order come
# from asm-generic/atomic-c11-policy.h (__ka_c11_{pre,ord,post}_X).
function g_ord(k) {
	if (F_order[k] == "_acquire") return "ACQ"
	if (F_order[k] == "_release") return "REL"
	if (F_order[k] == "_relaxed") return "RLX"
	return F_meta[k] == "v" ? "RLX" : "FULL"
}

function g_body(k, T,    op, m, r, b, x, arg, test, X) {
	op = F_op[k]; m = F_meta[k]; X = g_ord(k)
	if (m == "l") return "return __atomic_load_n((const volatile " T " *)&v->counter, __ATOMIC_RELAXED);"
	if (m == "s") return "__ka_c11_set((volatile " T " *)&v->counter, i);"
	if (op == "xchg") return "return __ka_c11_xchg(" X ", &v->counter, newv);"
	if (op == "try_cmpxchg") return "return __ka_c11_try_cmpxchg(" X ", &v->counter, old, newv);"
	if (op == "cmpxchg") return "return __ka_c11_cmpxchg(" X ", &v->counter, old, newv);"
	test = ""
	if (op ~ /_and_test$/) { test = " == 0"; op = substr(op, 1, length(op) - 9) }
	else if (op == "add_negative") { test = " < 0"; op = "add" }
	r = rmw_of(op)
	if (r == "") return ""
	split(r, x, "|"); b = x[1]; arg = x[2]
	if (m == "v") return "(void)__ka_c11_rmw(" X ", __atomic_fetch_" b ", &v->counter, " arg ");"
	if (m == "F") return "return __ka_c11_rmw(" X ", __atomic_fetch_" b ", &v->counter, " arg ");"
	if (m == "R" || test != "") return "return __ka_c11_rmw(" X ", __atomic_" b "_fetch, &v->counter, " arg ")" test ";"
	return ""
}

function emit_generic(t,    pfx, T, G, k, b, n) {
	pfx = t == 1 ? "atomic" : "atomic64"; T = t == 1 ? "int" : "s64"
	G = "_ASM_GENERIC_" toupper(pfx) "_C11_H"
	GENERIC = 1
	banner(" from gen/atomics.tbl")
	print "#ifndef " G
	print "#define " G
	print ""
	print "/*"
	print " * arch_" pfx "_*() on C11 builtins for any architecture (asm-generic), in"
	print " * the four orders of the kernel's API.  A fully ordered RMW is the"
	print " * policy's order plus the fences that make it a full barrier where C11's"
	print " * SEQ_CST RMW is not one (asm-generic/atomic-c11-policy.h says where and"
	print " * why); void RMWs are relaxed, as in the kernel.  The conditional loops"
	print " * (add_unless, inc_not_zero, dec_if_positive, ...) are left to"
	print " * include/linux/atomic/atomic-arch-fallback.h, which builds them on these."
	print " */"
	print "#include <asm-generic/atomic-c11-policy.h>"
	print "#include <asm-generic/cmpxchg-c11.h>"
	print ""
	if (t == 2) {
		print "#ifndef ATOMIC64_INIT"
		print "#define ATOMIC64_INIT(i) { (i) }"
		print "#endif"
		print ""
	}
	print "#ifndef __ka_c11_rmw"
	print "#define __ka_c11_rmw(X, fn, p, i) ({\t\t\t\t\t\t\\"
	print "\t__ka_c11_pre_##X(sizeof(*(p)));\t\t\t\t\t\t\\"
	print "\t__typeof__(*(p)) __ka_r = fn((p), (i), __ka_c11_ord_##X(sizeof(*(p))));\t\\"
	print "\t__ka_c11_post_##X(sizeof(*(p)));\t\t\t\t\t\t\\"
	print "\t__ka_r;\t\t\t\t\t\t\t\t\t\\"
	print "})"
	print "#endif"
	print ""
	n = 0
	for (k = 1; k <= NF_FUNCS; k++) {
		# read_acquire/set_release: the fallbacks' smp_load_acquire/smp_store_release.
		if (F_order[k] != "" && F_meta[k] ~ /^[vls]$/) continue
		b = g_body(k, T)
		if (b == "") continue
		n++
		print "static __always_inline " ret_type(F_meta[k], T) " arch_" pfx "_" F_name[k] "(" k_params(k, T, pfx) ")"
		print "{"
		print "\t__ka_c11_hot();"
		print "\t" b
		print "}"
		print "#define arch_" pfx "_" F_name[k] " arch_" pfx "_" F_name[k]
		print ""
	}
	if (n < 40) { printf "gen-kernel.awk: only %d generic arch_%s functions from %s\n", n, pfx, TABLE > "/dev/stderr"; exit 2 }
	print "#endif /* " G " */"
}

function banner(what) {
	print "/* SPDX-License-Identifier: GPL-2.0 */"
	print "/*"
	print " * Generated by katomic's gen/gen.sh (gen/gen-kernel.awk"
	print " *" what "): do not edit."
	if (GENERIC) {
		print " * Put into include/asm-generic/ by `katomic kernel --arch arm64|riscv64`;"
		print " * used when CONFIG_ARCH_ATOMIC_C11=y (arch/<arch>/Kconfig.katomic)."
	} else {
		print " * Put into arch/x86/include/asm/ by `katomic kernel`; used when"
		print " * CONFIG_X86_ATOMIC_C11=y (arch/x86/Kconfig.katomic)."
	}
	print " */"
}

function emit_atomic(t,    pfx, T, G, k, b, n) {
	pfx = t == 1 ? "atomic" : "atomic64"; T = t == 1 ? "int" : "s64"
	G = "_ASM_X86_" toupper(pfx) "_C11_H"
	banner(" from gen/atomics.tbl")
	print "#ifndef " G
	print "#define " G
	print ""
	print "/*"
	print " * arch_" pfx "_*() on C11 builtins.  The x86-64 policy of katomic's"
	print " * include/katomic/arch/x86_64.h: every RMW is SEQ_CST, the same locked"
	print " * instruction as any weaker order, and a full compiler barrier as the asm's"
	print " * \"memory\" clobber is (smp_mb__{before,after}_atomic() stay empty)."
	print " * read/set are relaxed volatile accesses, as __READ_ONCE/__WRITE_ONCE are."
	print " */"
	print "#ifndef __KA_RMW"
	print "#define __KA_RMW __ATOMIC_SEQ_CST"
	print "#endif"
	print ""
	emit_file(KDIR "/hot-c11.h")
	print ""
	n = 0
	for (k = 1; k <= NF_FUNCS; k++) {
		b = body(k, T)
		if (b == "") continue
		n++
		print "static __always_inline " ret_type(F_meta[k], T) " arch_" pfx "_" F_name[k] "(" k_params(k, T, pfx) ")"
		print "{"
		print "\t__ka_c11_hot();"
		print "\t" b
		print "}"
		print "#define arch_" pfx "_" F_name[k] " arch_" pfx "_" F_name[k]
		print ""
	}
	if (n < 20) { printf "gen-kernel.awk: only %d arch_%s functions from %s\n", n, pfx, TABLE > "/dev/stderr"; exit 2 }
	print "#endif /* " G " */"
}

# A template line "/* @insert NAME */" stands for gen/kernel/NAME: one text
# that the x86 and the asm-generic headers both carry (ordered-access-c11.h).
function emit_file(f,    line, n, m) {
	n = 0
	while ((getline line < f) > 0) {
		n++
		if (match(line, /^\/\* @insert [^ ]+ \*\/$/)) {
			m = emit_file(KDIR "/" substr(line, 12, length(line) - 14))
			if (m == 0) { print "gen-kernel.awk: " f ":" n ": " line ": missing or empty" > "/dev/stderr"; exit 2 }
		} else
			print line
	}
	close(f)
	return n
}

function emit_template(part,    f) {
	f = KDIR "/" part "-c11.h"
	banner(" from gen/kernel/" part "-c11.h")
	if (emit_file(f) == 0) { print "gen-kernel.awk: " f ": missing or empty" > "/dev/stderr"; exit 2 }
}

BEGIN {
	load_table(TABLE)
	if (PART == "atomic") emit_atomic(1)
	else if (PART == "atomic64") emit_atomic(2)
	else if (PART == "generic-atomic") emit_generic(1)
	else if (PART == "generic-atomic64") emit_generic(2)
	else if (PART ~ /^generic\//) { GENERIC = 1; emit_template(PART) }
	else emit_template(PART)
}
