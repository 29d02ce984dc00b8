# Writes tests/generated/atomic-ops.c: every function of gen/atomics.tbl on
# every atomic type, run on every combination of edge values for @v and its
# other arguments, with the return value, @v afterwards and *@p afterwards
# compared against the hand-written reference model in tests/model.h.
#
# Nothing here names an operation: the model function is model_<type>_<op>
# (op from the table), its parameters follow the table's arguments, and what
# the function must return follows from the family letter:
#   v s       nothing (only memory is checked)
#   R         the new value of @v
#   F f       the original value of @v
#   I i l     the model's result
#   B b       the model's result as a truth value
# One runner is emitted per type, argument list and return kind; main()
# calls it once per function (one TAP line each), through call_<name>(), a
# plain static wrapper (GCC refuses calls through a pointer that it later
# resolves to an always_inline function).  A p argument the model leaves
# as it was is passed on a read-only page: any write to it faults.

function ret_kind(m) {
	if (m ~ /^[vs]$/) return "none"
	if (m == "R") return "new"
	if (m ~ /^[Ff]$/) return "old"
	if (m ~ /^[Bb]$/) return "bool"
	return "val"
}

function arg_type(a) { return a ~ /:/ ? substr(a, 1, index(a, ":") - 1) : a }

function runner_name(t, k,    key) {
	key = F_args[k]
	gsub(/[: ]/, "_", key)
	return "run_" TY_pfx[t] "__" key "__" ret_kind(F_meta[k])
}

function emit_runner(t, k, rname,    pfx, T, E, rk, rt, n, a, j, ty, nm, fp, mp, ind, la, ma, cond, fmt, vals) {
	pfx = TY_pfx[t]; T = TY_T[t]; E = "model_" pfx "_edges"
	rk = ret_kind(F_meta[k]); rt = ret_type(F_meta[k], T)
	n = split(F_args[k], a, " ")
	fp = ""; mp = ""; la = ""; ma = ""
	for (j = 1; j <= n; j++) {
		ty = arg_type(a[j]); nm = arg_name(a[j])
		if (ty == "cv") { fp = fp ", const " pfx "_t *"; mp = mp ", const " T " *"; la = la ", &l_" nm; ma = ma ", &m_" nm }
		if (ty == "v")  { fp = fp ", " pfx "_t *";       mp = mp ", " T " *";       la = la ", &l_" nm; ma = ma ", &m_" nm }
		if (ty == "i")  { fp = fp ", " T;                mp = mp ", " T;            la = la ", in_" nm; ma = ma ", in_" nm }
		if (ty == "p")  { fp = fp ", " T " *";           mp = mp ", " T " *";       la = la ", l_" nm "p"; ma = ma ", &m_" nm }
	}
	print "static void " rname "(const char *name,"
	print "\t\t" rt " (*fn)(" substr(fp, 3) "),"
	print "\t\t" T " (*model)(" substr(mp, 3) "))"
	print "{"
	print "\tconst size_t n = sizeof(" E ") / sizeof(" E "[0]);"
	printf "\tsize_t "
	for (j = 1; j <= n; j++) printf "x%d%s", j, j < n ? ", " : ";\n"
	print "\tunsigned long cases = 0, bad = 0;"
	print ""
	if (F_args[k] ~ /(^| )p(:|$| )/)
		print "\tro_user = name;"
	for (j = 1; j <= n; j++)
		print "\tfor (x" j " = 0; x" j " < n; x" j "++)" (j == n ? " {" : "")
	ind = "\t\t"
	for (j = 1; j <= n; j++)
		print ind "const " T " in_" arg_name(a[j]) " = " E "[x" j "];"
	for (j = 1; j <= n; j++) {
		ty = arg_type(a[j]); nm = arg_name(a[j])
		if (ty == "v" || ty == "cv") {
			print ind pfx "_t l_" nm " = " toupper(pfx) "_INIT(in_" nm ");"
			print ind T " m_" nm " = in_" nm ";"
		} else if (ty == "p") {
			print ind T " l_" nm " = in_" nm ", m_" nm " = in_" nm ";"
			print ind T " *l_" nm "p = &l_" nm ";"
		}
	}
	if (rk != "none") {
		print ind T (rk ~ /^(val|bool)$/ ? " m_ret, want;" : " want;")
		print ind rt " l_ret;"
	}
	print ""
	print ind (rk ~ /^(val|bool)$/ ? "m_ret = " : "(void)") "model(" substr(ma, 3) ");"
	for (j = 1; j <= n; j++) {
		if (arg_type(a[j]) != "p") continue
		nm = arg_name(a[j])
		print ind "/* The model leaves *" nm " as it was: the function must not write it at all. */"
		print ind "if (m_" nm " == in_" nm ")"
		print ind "\tl_" nm "p = &ro_" pfx "[x" j "];"
	}
	print ind (rk != "none" ? "l_ret = " : "") "fn(" substr(la, 3) ");"
	if (rk == "new") print ind "want = m_v;"
	if (rk == "old") print ind "want = in_v;"
	if (rk == "val") print ind "want = m_ret;"
	if (rk == "bool") print ind "want = m_ret != 0;"
	print ind "cases++;"
	# The condition and the diagnostic of a mismatch.
	cond = ""; fmt = "%s("; vals = "name"
	for (j = 1; j <= n; j++) {
		nm = arg_name(a[j])
		fmt = fmt (j > 1 ? ", " : "") (arg_type(a[j]) == "p" ? "*" : "") nm "=%lld"
		vals = vals ", (long long)in_" nm
	}
	fmt = fmt "):"
	if (rk != "none") {
		cond = cond " || (" T ")l_ret != want"
		fmt = fmt " returned %lld, expected %lld;"
		vals = vals ", (long long)l_ret, (long long)want"
	}
	for (j = 1; j <= n; j++) {
		ty = arg_type(a[j]); nm = arg_name(a[j])
		if (ty == "v" || ty == "cv") {
			cond = cond " || l_" nm ".counter != m_" nm
			fmt = fmt " " nm " became %lld, expected %lld;"
			vals = vals ", (long long)l_" nm ".counter, (long long)m_" nm
		} else if (ty == "p") {
			cond = cond " || *l_" nm "p != m_" nm
			fmt = fmt " *" nm " became %lld, expected %lld;"
			vals = vals ", (long long)*l_" nm "p, (long long)m_" nm
		}
	}
	sub(/;$/, "", fmt)
	print ind "if (" substr(cond, 5) ") {"
	print ind "\tif (!bad++)"
	print ind "\t\tdiag(\"" fmt "\","
	print ind "\t\t     " vals ");"
	print ind "}"
	print "\t}"
	print "\tif (bad)"
	print "\t\tdiag(\"%s: %lu of %lu cases wrong\", name, bad, cases);"
	print "\tok(!bad, \"%s on %lu combinations of edge values\", name, cases);"
	print "}"
	print ""
}

# A plain static function around each (always inline) atomic function, so
# that the runners can take it by pointer: a call through a pointer to an
# always_inline function that GCC later resolves is a hard error.
function emit_wrapper(t, k,    pfx, T, n, a, j, ty, nm, ps, as, rt) {
	pfx = TY_pfx[t]; T = TY_T[t]; rt = ret_type(F_meta[k], T)
	n = split(F_args[k], a, " ")
	ps = ""; as = ""
	for (j = 1; j <= n; j++) {
		ty = arg_type(a[j]); nm = arg_name(a[j])
		if (ty == "cv") ps = ps ", const " pfx "_t *" nm
		if (ty == "v")  ps = ps ", " pfx "_t *" nm
		if (ty == "i")  ps = ps ", " T " " nm
		if (ty == "p")  ps = ps ", " T " *" nm
		as = as ", " nm
	}
	print "static " rt " call_" pfx "_" F_name[k] "(" substr(ps, 3) ")"
	print "{ " (rt == "void" ? "" : "return ") pfx "_" F_name[k] "(" substr(as, 3) "); }"
}

# ATOMIC_INIT & co.: static and automatic initialisers hold every edge value.
function emit_init_test(t,    pfx, T, I, E) {
	pfx = TY_pfx[t]; T = TY_T[t]; I = toupper(pfx) "_INIT"; E = "model_" pfx "_edges"
	print "#define INIT_ENTRY_" pfx "(e) " I "(e),"
	print "static " pfx "_t init_" pfx "[] = { MODEL_EDGES_" pfx "(INIT_ENTRY_" pfx ") };"
	print ""
	print "static void test_init_" pfx "(void)"
	print "{"
	print "\tconst size_t n = sizeof(" E ") / sizeof(" E "[0]);"
	print "\tsize_t j, bad = 0;"
	print ""
	print "\tif (sizeof(init_" pfx ") / sizeof(init_" pfx "[0]) != n)"
	print "\t\tbad++;"
	print "\tfor (j = 0; j < n && !bad; j++) {"
	print "\t\t" pfx "_t a = " I "(" E "[j]);"
	print ""
	print "\t\tif (init_" pfx "[j].counter != " E "[j] || a.counter != " E "[j]) {"
	print "\t\t\tdiag(\"" I "(%lld): static %lld, automatic %lld\", (long long)" E "[j],"
	print "\t\t\t     (long long)init_" pfx "[j].counter, (long long)a.counter);"
	print "\t\t\tbad++;"
	print "\t\t}"
	print "\t}"
	print "\tok(!bad && sizeof(" pfx "_t) == sizeof(" T "), \"" I ": static and automatic " pfx "_t initialisers\");"
	print "}"
	print ""
}

# atomic*_cond_read_{relaxed,acquire} on a value that already satisfies the condition.
function emit_cond_read_test(t,    pfx, T, E, o, ord) {
	pfx = TY_pfx[t]; T = TY_T[t]; E = "model_" pfx "_edges"
	print "static void test_cond_read_" pfx "(void)"
	print "{"
	print "\tconst size_t n = sizeof(" E ") / sizeof(" E "[0]);"
	print "\tsize_t j, bad_relaxed = 0, bad_acquire = 0;"
	print ""
	print "\tfor (j = 0; j < n; j++) {"
	print "\t\tconst " T " e = " E "[j];"
	print "\t\t" pfx "_t v = " toupper(pfx) "_INIT(e);"
	print "\t\t" T " r;"
	print ""
	for (o = 1; o <= 2; o++) {
		ord = o == 1 ? "relaxed" : "acquire"
		print "\t\tr = " pfx "_cond_read_" ord "(&v, VAL == e);"
		print "\t\tif (r != e || v.counter != e)"
		print "\t\t\tbad_" ord "++;"
		print "\t\tr = " pfx "_cond_read_" ord "(&v, VAL != (" T ")~e);"
		print "\t\tif (r != e || v.counter != e)"
		print "\t\t\tbad_" ord "++;"
	}
	print "\t}"
	print "\tok(!bad_relaxed, \"" pfx "_cond_read_relaxed returns the value that satisfies the condition\");"
	print "\tok(!bad_acquire, \"" pfx "_cond_read_acquire returns the value that satisfies the condition\");"
	print "}"
	print ""
}

BEGIN {
	types_init()
	load_table(TABLE)
	print "/* SPDX-License-Identifier: MIT */"
	print "/* Generated by gen/gen.sh from gen/atomics.tbl (gen/gen-tests.awk): do not edit. */"
	print "/*"
	print " * Every atomic*_ function on every pair of edge values, against the"
	print " * reference model of tests/model.h: return value, @v and *@old afterwards."
	print " */"
	print "#include <signal.h>"
	print "#include <stdio.h>"
	print "#include <stdlib.h>"
	print "#include <string.h>"
	print "#include <sys/mman.h>"
	print "#include <unistd.h>"
	print "#include <katomic/katomic.h>"
	print "#include \"tap.h\""
	print "#include \"model.h\""
	print ""
	# Which types have pointer arguments (try_cmpxchg's *old): those get a
	# read-only copy of the edge values, for the cases where the function
	# must not write through the pointer.
	for (t = 1; t <= NTYPES; t++)
		for (k = 1; k <= NF_FUNCS; k++)
			if (F_args[k] ~ /(^| )p(:|$| )/) need_ro[t] = 1
	for (t = 1; t <= NTYPES; t++) if (need_ro[t]) any_ro = 1
	if (any_ro) {
		print "#include \"ro-page.h\""
		print ""
		print "/* A write to the read-only page faults: say which function did it. */"
		print "static const char *volatile ro_user = \"?\";"
		print ""
		print "static void ro_fault(int sig)"
		print "{"
		print "\tstatic const char pre[] = \"Bail out! \";"
		print "\tstatic const char post[] = \": wrote through a pointer it must leave alone (fault on a read-only page)\\n\";"
		print "\tssize_t r;"
		print ""
		print "\t(void)sig;"
		print "\tr = write(1, pre, sizeof(pre) - 1);"
		print "\tr = write(1, ro_user, strlen(ro_user));"
		print "\tr = write(1, post, sizeof(post) - 1);"
		print "\t(void)r;"
		print "\t_exit(1);"
		print "}"
		print ""
		for (t = 1; t <= NTYPES; t++)
			if (need_ro[t]) print "static " TY_T[t] " *ro_" TY_pfx[t] ";	/* model_" TY_pfx[t] "_edges, read-only */"
		print ""
	}
	for (t = 1; t <= NTYPES; t++) {
		emit_init_test(t)
		for (k = 1; k <= NF_FUNCS; k++) {
			r = runner_name(t, k)
			if (r in emitted) continue
			emitted[r] = 1
			emit_runner(t, k, r)
		}
		emit_cond_read_test(t)
	}
	for (t = 1; t <= NTYPES; t++)
		for (k = 1; k <= NF_FUNCS; k++)
			emit_wrapper(t, k)
	print ""
	print "int main(void)"
	print "{"
	if (any_ro) {
		print "\tsignal(SIGSEGV, ro_fault);"
		print "\tsignal(SIGBUS, ro_fault);"
	}
	for (t = 1; t <= NTYPES; t++)
		if (need_ro[t]) print "\tro_" TY_pfx[t] " = ro_copy(model_" TY_pfx[t] "_edges, sizeof(model_" TY_pfx[t] "_edges));"
	for (t = 1; t <= NTYPES; t++) {
		print ""
		print "\ttest_init_" TY_pfx[t] "();"
		for (k = 1; k <= NF_FUNCS; k++)
			print "\t" runner_name(t, k) "(\"" TY_pfx[t] "_" F_name[k] "\", call_" TY_pfx[t] "_" F_name[k] ", model_" TY_pfx[t] "_" F_op[k] ");"
		print "\ttest_cond_read_" TY_pfx[t] "();"
	}
	print "\treturn done_testing();"
	print "}"
}
