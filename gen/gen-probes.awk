# Writes tools/codegen/generated/probes.c: one small non-inlined function per
# public API name, for the code-generation audit (tools/codegen/).  The
# atomic*_ probes come from gen/atomics.tbl, everything else from
# gen/api.tbl; the shape of a probe follows from the name's header and kind
# (and, for the size-generic cmpxchg family, one probe per size).
#
# Every probe is preceded by a manifest line the audit reads:
#   /*@ probe_NAME class=ORDER shape=SHAPE */
# ORDER is the kernel ordering class (full, full_cond, acquire, release,
# relaxed, void, once, load_acquire, store_release, plain, b:<barrier>, other)
# and SHAPE the kind of instruction the kernel uses (rmw, xchg, cas, cond,
# load, store, fence, other): tools/codegen/kernel-seq.tbl is keyed by them.

function emit(name, class, shape, sig, body) {
	print "/*@ probe_" name " class=" class " shape=" shape " */"
	sub(/\(/, " probe_" name "(", sig)
	print "KA_PROBE " sig
	print "{"
	print body
	print "}"
	print ""
	NPROBES++
}

function order_class(ord, cond) {
	if (ord == "_acquire") return "acquire"
	if (ord == "_release") return "release"
	if (ord == "_relaxed") return "relaxed"
	return cond == "cond" ? "full_cond" : "full"
}

function op_shape(op) {
	if (op ~ /cmpxchg/) return "cas"
	if (op == "xchg") return "xchg"
	if (op ~ /unless|not_zero|if_positive/) return "cond"
	return "rmw"
}

# ---- atomics.tbl: 255 functions
function atomic_probes(    t, k, m, cls, sh, rt, call, pfx) {
	for (t = 1; t <= NTYPES; t++)
		for (k = 1; k <= NF_FUNCS; k++) {
			m = F_meta[k]; pfx = TY_pfx[t]
			sh = op_shape(F_op[k])
			if (m == "v") cls = "void"
			else if (m == "l") { cls = F_order[k] == "" ? "once" : "load_acquire"; sh = "load" }
			else if (m == "s") { cls = F_order[k] == "" ? "once" : "store_release"; sh = "store" }
			else cls = order_class(F_order[k], F_cond[k])
			rt = ret_type(m, TY_T[t])
			call = pfx "_" F_name[k] "(" c_argnames(k) ")"
			emit(pfx "_" F_name[k], cls, sh, rt "(" c_params(k, t) ")",
			     "\t" (rt == "void" ? "" : "return ") call ";")
		}
}

# ---- api.tbl
function sz_init() { SZ_T[1] = "unsigned char"; SZ_T[2] = "unsigned short"; SZ_T[4] = "unsigned int"; SZ_T[8] = "unsigned long long" }

function name_order(n) {
	if (n ~ /_acquire$/) return "_acquire"
	if (n ~ /_release$/) return "_release"
	if (n ~ /_relaxed$/) return "_relaxed"
	return ""
}

function cmpxchg_probes(n, req,    sizes, ns, j, s, T, cls, ord) {
	ord = name_order(n)
	if (n ~ /_local$/) cls = "relaxed"
	else if (n ~ /cmpxchg/) cls = order_class(ord, "cond")
	else cls = order_class(ord, "")
	if (n ~ /128/) { ns = 1; sizes[1] = 16 }
	else if (n ~ /64/) { ns = 1; sizes[1] = 8 }
	else { ns = split("1 2 4 8", sizes, " ") }
	if (req != "") print req_open(req)
	for (j = 1; j <= ns; j++) {
		s = sizes[j]; T = s == 16 ? "u128" : SZ_T[s]
		if (n ~ /^try_/)
			emit(n "_" s, cls, "cas", "bool(" T " *p, " T " *old, " T " new)",
			     "\treturn " n "(p, old, new);")
		else if (n ~ /cmpxchg/)
			emit(n "_" s, cls, "cas", T "(" T " *p, " T " old, " T " new)",
			     "\treturn " n "(p, old, new);")
		else
			emit(n "_" s, cls, "xchg", T "(" T " *p, " T " new)", "\treturn " n "(p, new);")
	}
	if (req != "") print "#endif"
}

function bitop_probes(n,    cls, sh, rt, body) {
	sh = "rmw"
	if (n ~ /^__/ && n != "__clear_bit_unlock") cls = "plain"
	else if (n == "__clear_bit_unlock") { cls = "store_release"; sh = "store" }
	else if (n == "test_bit") { cls = "once"; sh = "load" }
	else if (n == "test_bit_acquire") { cls = "load_acquire"; sh = "load" }
	else if (n == "test_and_set_bit_lock") cls = "acquire"
	else if (n == "clear_bit_unlock") cls = "release"
	else if (n ~ /^test_and_/) cls = "full"
	else cls = "void"
	rt = n ~ /test/ ? "bool" : "void"
	body = "\t" (rt == "void" ? "" : "return ") n
	emit(n "_c", cls, sh, rt "(unsigned long *a)", body "(5, a);")
	emit(n "_v", cls, sh, rt "(long nr, unsigned long *a)", body "(nr, a);")
}

function refcount_probe(n,    args, params, rt, old, arith) {
	arith = n ~ /(add|sub)/
	old = n ~ /^__/
	params = (arith ? "int i, " : "") "refcount_t *r"
	args = (arith ? "i, " : "") "r"
	if (n ~ /^refcount_set/) { params = "refcount_t *r, int n"; args = "r, n" }
	if (n == "refcount_dec_and_lock") { params = params ", spinlock_t *l"; args = args ", l" }
	if (old) { params = params ", int *oldp"; args = args ", oldp" }
	if (n == "refcount_read") rt = "unsigned int"
	else if (n ~ /(not_zero|and_test|if_one|not_one|and_lock)$/) rt = "bool"
	else rt = "void"
	emit(n, "other", "other", rt "(" params ")", "\t" (rt == "void" ? "" : "return ") n "(" args ");")
}

function spinlock_probe(n,    rt, cls) {
	rt = n ~ /^spin_(trylock|is_)/ ? "bool" : "void"
	cls = n == "spin_lock" || n == "spin_trylock" ? "acquire" : n == "spin_unlock" ? "store_release" : "other"
	emit(n, cls, n == "spin_unlock" ? "store" : "other", rt "(spinlock_t *l)",
	     "\t" (rt == "void" ? "" : "return ") n "(l);")
}

# A barrier between a store and a load, so that what it orders is visible.
function barrier_probe(n) {
	emit(n, "b:" n, "fence", "int(int *a, int *b)",
	     "\tWRITE_ONCE(*a, 1);\n\t" n "();\n\treturn READ_ONCE(*b);")
}

function sized_probes(n, cls, sh, sig, body,    sizes, ns, j, T, s, b) {
	ns = split("1 2 4 8", sizes, " ")
	for (j = 1; j <= ns; j++) {
		T = SZ_T[sizes[j]]; s = sig; b = body
		gsub(/T/, T, s); gsub(/\$T/, T, b)
		emit(n "_" sizes[j], cls, sh, s, b)
	}
}

function api_probes(    line, nf, f, h, kind, n, req, pfx) {
	TBL = API; TBL_LINE = 0
	while ((getline line < API) > 0) {
		TBL_LINE++
		if (line ~ /^[ \t]*(#|$)/ || line ~ /^@/) continue
		nf = split(line, f, "|")
		if (nf != 5 && nf != 6) die("expected 5 or 6 fields")
		h = trim(f[1]); kind = trim(f[2]); n = trim(f[3]); req = trim(f[5])
		if (req == "!" n) req = ""	# katomic's unless the program has its own: probes.c has none
		if (kind == "type" || kind == "const" || kind == "exact") continue
		# probes.c includes katomic.h: opt-in headers' names are aliases of others
		if (h == "kernel.h") continue
		# spin_lock_irqsave, _irq, _bh, raw_spin_*: spin_lock/spin_unlock by definition
		if (h == "spinlock.h" && kind == "macro" && params_of(f[4]) != "") continue
		if (n ~ /(INIT|LOCK_UNLOCKED|DEFINE_SPINLOCK|DEFINE_RAW_SPINLOCK|DEFINE_BITMAP|^BIT_|BITS_TO_LONGS)/) continue
		if (h == "cmpxchg.h" && n != "system_has_cmpxchg128") { cmpxchg_probes(n, req); continue }
		if (h == "bitops.h") { if (kind == "func") bitop_probes(n); continue }
		if (h == "refcount.h") { refcount_probe(n); continue }
		if (h == "spinlock.h" && kind == "func") { spinlock_probe(n); continue }
		if (req != "") print req_open(req)
		if (n ~ /^atomic.*_cond_read_/) {
			pfx = n; sub(/_cond_read_.*/, "", pfx)
			emit(n, n ~ /acquire$/ ? "load_acquire" : "once", "load",
			     (pfx == "atomic" ? "int" : pfx == "atomic64" ? "long long" : "long") "(" pfx "_t *v)",
			     "\treturn " n "(v, VAL != 0);")
		} else if (params_of(f[4]) == "" && kind == "macro")
			barrier_probe(n)
		else if (n ~ /^(smp|virt)_store_mb$/)
			sized_probes(n, "store_mb", "store", "void(T *p, T v)", "\t" n "(*p, v);")
		else if (n ~ /^(smp|virt)_load_acquire$/)
			sized_probes(n, "load_acquire", "load", "T(T *p)", "\treturn " n "(p);")
		else if (n ~ /^(smp|virt)_store_release$/)
			sized_probes(n, "store_release", "store", "void(T *p, T v)", "\t" n "(p, v);")
		else if (n == "READ_ONCE")
			sized_probes(n, "once", "load", "T(T *p)", "\treturn READ_ONCE(*p);")
		else if (n == "ACCESS_ONCE") {
			sized_probes(n "_load", "once", "load", "T(T *p)", "\treturn ACCESS_ONCE(*p);")
			sized_probes(n "_store", "once", "store", "void(T *p, T v)", "\tACCESS_ONCE(*p) = v;")
		}
		else if (n == "WRITE_ONCE")
			sized_probes(n, "once", "store", "void(T *p, T v)", "\tWRITE_ONCE(*p, v);")
		else if (n ~ /^smp_cond_load_/)
			emit(n, n ~ /acquire$/ ? "load_acquire" : "once", "load", "int(int *p)",
			     "\treturn " n "(p, VAL != 0);")
		else if (n == "rcu_dereference")
			emit(n, "once", "load", "int *(int **pp)", "\treturn rcu_dereference(*pp);")
		else if (n == "rcu_assign_pointer")
			emit(n, "store_release", "store", "void(int **pp, int *v)", "\trcu_assign_pointer(*pp, v);")
		else if (n == "data_race")
			emit(n, "plain", "load", "int(int *p)", "\treturn data_race(*p);")
		else if (n == "system_has_cmpxchg128")
			emit(n, "other", "other", "bool(void)", "\treturn system_has_cmpxchg128();")
		else
			die("no probe shape for '" n "'")
		if (req != "") print "#endif"
	}
	close(API)
}

function params_of(s) { return trim(s) }

# A requirement (gen/api.tbl): MACRO or !MACRO.
function req_open(r) { return r ~ /^!/ ? "#ifndef " substr(r, 2) : "#ifdef " r }

# ---- idioms: how the ops are used together
function idiom_probes() {
	emit("idiom_inc_mb_after_atomic", "rmw_mb_after", "rmw", "void(atomic_t *v)",
	     "\tatomic_inc(v);\n\tsmp_mb__after_atomic();")
	emit("idiom_mb_before_atomic_inc", "rmw_mb_before", "rmw", "void(atomic_t *v)",
	     "\tsmp_mb__before_atomic();\n\tatomic_inc(v);")
	emit("idiom_dec_and_test_call", "other", "other", "void(atomic_t *v)",
	     "\tif (atomic_dec_and_test(v))\n\t\tprobe_ext(v);")
	emit("idiom_refcount_put", "other", "other", "void(refcount_t *r)",
	     "\tif (refcount_dec_and_test(r))\n\t\tprobe_ext(r);")
	emit("idiom_test_and_set_bit_call", "other", "other", "void(unsigned long *a)",
	     "\tif (!test_and_set_bit(3, a))\n\t\tprobe_ext(a);")
	emit("idiom_test_and_set_bit_count", "other", "other", "long(unsigned long *a, long n)",
	     "\treturn n + test_and_set_bit(3, a);")
	emit("idiom_add_negative_call", "other", "other", "void(int i, atomic_t *v)",
	     "\tif (atomic_add_negative(i, v))\n\t\tprobe_ext(v);")
	emit("idiom_try_cmpxchg_loop", "other", "other", "bool(atomic_t *v, int limit)",
	     "\tint old = atomic_read(v);\n\n\tdo {\n\t\tif (old >= limit)\n\t\t\treturn false;\n" \
	     "\t} while (!atomic_try_cmpxchg(v, &old, old * 2 + 1));\n\treturn true;")
	# The expected value in a union (lockref's shape): C11 kept it in a stack slot.
	emit("idiom_try_cmpxchg_union", "other", "other", "int(unsigned long *w)",
	     "\tunion { unsigned long word; struct { unsigned short lock, count; } f; } old, next;\n\n" \
	     "\told.word = READ_ONCE(*w);\n\tdo {\n\t\tif (old.f.lock)\n\t\t\treturn -1;\n" \
	     "\t\tnext = old;\n\t\tnext.f.count++;\n\t} while (!try_cmpxchg(w, &old.word, next.word));\n" \
	     "\treturn next.f.count;")
	# Atomics behind a test (a statistic, a flag's count): gcc guessed them
	# unlikely, as it guesses any guarded call, and moved them out of line.
	emit("idiom_guarded_rmw", "other", "other", "int(unsigned int flags, atomic_t *a, atomic_t *b)",
	     "\tif (flags & 1)\n\t\tatomic_dec(a);\n\tif (flags & 2)\n\t\tatomic_inc(b);\n" \
	     "\tif ((flags & 4) && atomic_dec_and_test(a))\n\t\treturn 1;\n\treturn 0;")
	emit("idiom_cmpxchg_loop_long", "other", "other", "long(atomic_long_t *v, long mask)",
	     "\tlong old = atomic_long_read(v), seen;\n\n\tfor (;;) {\n" \
	     "\t\tseen = atomic_long_cmpxchg(v, old, (old | mask) + 1);\n" \
	     "\t\tif (seen == old)\n\t\t\treturn old;\n\t\told = seen;\n\t}")
	emit("idiom_spin_lock_unlock", "other", "other", "void(spinlock_t *l, int *x)",
	     "\tspin_lock(l);\n\t(*x)++;\n\tspin_unlock(l);")
	emit("idiom_store_release_load_acquire", "other", "other", "int(int *a, int *b)",
	     "\tsmp_store_release(a, 1);\n\treturn smp_load_acquire(b);")
}

BEGIN {
	types_init(); sz_init()
	load_table(TABLE)
	print "/* SPDX-License-Identifier: MIT */"
	print "/* Generated by gen/gen.sh (gen/gen-probes.awk) from gen/atomics.tbl and gen/api.tbl: do not edit. */"
	print "/*"
	print " * Code-generation probes for `katomic codegen` (tools/codegen/): one small"
	print " * non-inlined function per public API name, named probe_<name>[_<size>|_c|_v],"
	print " * plus idioms.  Compile with -c and read the disassembly; the manifest lines"
	print " * (slash-star-at) give the audit each probe's ordering class and instruction shape."
	print " */"
	print "#include <katomic/katomic.h>\n"
	print "#define KA_PROBE __attribute__((noinline, used))"
	print "#if defined(__GNUC__) && !defined(__clang__)"
	print "#undef KA_PROBE"
	print "#define KA_PROBE __attribute__((noinline, noclone, used))"
	print "#endif"
	print "void probe_ext(void *);\n"
	atomic_probes()
	api_probes()
	idiom_probes()
}
