# Shared by every generator: reads gen/atomics.tbl and expands each line into
# the functions it stands for.  Loaded first with  awk -f common.awk -f gen-X.awk.
#
# After reading the table (call load_table(file)):
#   NF_FUNCS                       number of functions per atomic type (85)
#   F_name[k]    e.g. "fetch_add_acquire"   F_op[k]   table op ("add")
#   F_meta[k]    family letter ("F")        F_order[k] "", "_acquire", ...
#   F_base[k]    name without order ("fetch_add")
#   F_args[k]    table args ("i v"),  F_cond[k], F_effect[k], F_returns[k]

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

function die(msg) { printf "%s:%d: %s\n", TBL, TBL_LINE, msg > "/dev/stderr"; exit 2 }

# The order variants a family letter produces.
function orders_of(m) {
	if (m ~ /^[RFIB]$/) return ",_acquire,_release,_relaxed"
	if (m == "l") return ",_acquire"
	if (m == "s") return ",_release"
	if (m ~ /^[vfib]$/) return ""
	return "?"
}

# The function name (without order) a family letter gives an op.
function base_of(op, m) {
	if (m == "R") return op "_return"
	if (m == "F" || m == "f") return "fetch_" op
	return op
}

function add_func(op, m, ord, args, cond, eff, ret,    k) {
	k = ++NF_FUNCS
	F_op[k] = op; F_meta[k] = m; F_order[k] = ord; F_args[k] = args
	F_base[k] = base_of(op, m); F_name[k] = F_base[k] ord
	F_cond[k] = cond; F_effect[k] = eff; F_returns[k] = ret
	F_index[F_name[k]] = k
}

function load_table(file,    line, n, fld, op, meta, args, j, m, os, no, ords, o, a, na) {
	TBL = file; TBL_LINE = 0; NF_FUNCS = 0
	while ((getline line < file) > 0) {
		TBL_LINE++
		if (line ~ /^[ \t]*(#|$)/) continue
		n = split(line, fld, "|")
		if (n != 6) die("expected 6 '|'-separated fields, found " n)
		op = trim(fld[1]); meta = trim(fld[2]); args = trim(fld[3])
		if (op !~ /^[a-z_]+$/) die("bad operation name '" op "'")
		if (meta !~ /^[vRFfIiBbls]+$/) die("unknown family letter in '" meta "'")
		na = split(args, a, " ")
		for (j = 1; j <= na; j++)
			if (a[j] !~ /^(cv|v|i|p)(:[a-z]+)?$/) die("bad argument '" a[j] "'")
		if (trim(fld[4]) != "" && trim(fld[4]) != "cond") die("fourth field must be empty or 'cond'")
		for (j = 1; j <= length(meta); j++) {
			m = substr(meta, j, 1)
			no = split(orders_of(m), ords, ",")
			if (no == 0) { no = 1; ords[1] = "" }
			for (o = 1; o <= no; o++)
				add_func(op, m, ords[o], args, trim(fld[4]), trim(fld[5]), trim(fld[6]))
		}
	}
	close(file)
	if (NF_FUNCS == 0) die("no operations")
}

# Per atomic type: function prefix, counter type, unsigned twin.
function types_init() {
	NTYPES = 3
	TY_pfx[1] = "atomic";      TY_T[1] = "int";       TY_U[1] = "unsigned int"
	TY_pfx[2] = "atomic64";    TY_T[2] = "long long"; TY_U[2] = "unsigned long long"
	TY_pfx[3] = "atomic_long"; TY_T[3] = "long";      TY_U[3] = "unsigned long"
}

function ret_type(m, T) {
	if (m ~ /^[vs]$/) return "void"
	if (m ~ /^[Bb]$/) return "bool"
	return T
}

# Parameter name of one table argument.
function arg_name(a) {
	if (a ~ /:/) return substr(a, index(a, ":") + 1)
	return a == "cv" ? "v" : a
}

# C parameter list for function k on type t.
function c_params(k, t,    a, n, j, s, ty, nm) {
	n = split(F_args[k], a, " ")
	s = ""
	for (j = 1; j <= n; j++) {
		nm = arg_name(a[j])
		ty = substr(a[j], 1, index(a[j] ":", ":") - 1)
		if (ty == "cv") s = s ", const ka_" TY_pfx[t] "_t *" nm
		else if (ty == "v") s = s ", ka_" TY_pfx[t] "_t *" nm
		else if (ty == "i") s = s ", " TY_T[t] " " nm
		else if (ty == "p") s = s ", " TY_T[t] " *" nm
	}
	return substr(s, 3)
}

# Argument names in table order, comma separated ("i, v").
function c_argnames(k,    a, n, j, s) {
	n = split(F_args[k], a, " ")
	s = ""
	for (j = 1; j <= n; j++) s = s ", " arg_name(a[j])
	return substr(s, 3)
}

# Arguments for a size-generic arch_ macro: the counter's address first.
function arch_args(k,    a, n, j, s) {
	n = split(F_args[k], a, " ")
	s = "&v->counter"
	for (j = 1; j <= n; j++)
		if (a[j] != "v" && a[j] != "cv") s = s ", " arg_name(a[j])
	return s
}

# gen/stdnames.tbl: every name of the standard libraries' atomics (see its
# header).  After load_std(file): NS rows, S_lang[k] S_name[k] S_kind[k]
# S_katomic[k] S_guard[k] S_test[k] S_ktest[k]; BOTH[name] = 1 for a name
# the kernel's API also defines (katomic "both"), CXXFUNC[name] = 1 for a
# katomic macro that is a function in C++ (katomic "function").
function load_std(file,    line, n, f) {
	TBL = file; TBL_LINE = 0; NS = 0
	while ((getline line < file) > 0) {
		TBL_LINE++
		if (line ~ /^[ \t]*(#|$)/) continue
		n = split(line, f, "|")
		if (n != 6 && n != 7) die("expected 6 or 7 '|'-separated fields, found " n)
		NS++
		S_lang[NS] = trim(f[1]); S_name[NS] = trim(f[2]); S_kind[NS] = trim(f[3])
		S_katomic[NS] = trim(f[4]); S_guard[NS] = trim(f[5]); S_test[NS] = trim(f[6])
		S_ktest[NS] = n == 7 ? trim(f[7]) : ""
		S_line[NS] = TBL_LINE
		if (S_lang[NS] !~ /^(c|c\+\+)$/) die("unknown language '" S_lang[NS] "' (c or c++)")
		if (S_name[NS] !~ /^[A-Za-z_][A-Za-z0-9_]*$/) die("bad name '" S_name[NS] "'")
		if (S_kind[NS] !~ /^(func|macro|type|enum|const)$/) die("unknown kind '" S_kind[NS] "'")
		if (S_katomic[NS] !~ /^(c11|both|function)$/) die("unknown decision '" S_katomic[NS] "' (c11, both or function)")
		if (S_test[NS] == "") die("no test for " S_name[NS])
		if ((S_katomic[NS] != "c11") != (S_ktest[NS] != "")) die(S_name[NS] ": a kernel test is required for \"both\" and \"function\" and only there")
		if (S_katomic[NS] == "both") BOTH[S_name[NS]] = 1
		if (S_katomic[NS] == "function") CXXFUNC[S_name[NS]] = 1
	}
	close(file)
	if (NS == 0) die("no names")
}
