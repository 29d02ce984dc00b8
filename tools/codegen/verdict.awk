# Verdict per probe x compiler x target.
# awk -f verdict.awk -v MANIFEST=m.txt -v KSEQ=kernel-seq.tbl CONFIGS
# CONFIGS: lines "cc|target|arch|isa|c11.tsv|ref.tsv" (ref.tsv "-" when the
# reference is the kernel table).  Writes tab-separated rows:
#   cc target probe class verdict reason c11_n ref_n c11_seq ref_seq
# verdict: identical | same | better | worse | WEAKER | n/a
# (identical = the same normalised instructions as the reference).

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

function load_tsv(file, pfx,    line, f) {
	while ((getline line < file) > 0) {
		split(line, f, "\t")
		D[pfx, f[1]] = 1
		N[pfx, f[1]] = f[2]; AT[pfx, f[1]] = f[3]; FF[pfx, f[1]] = f[4]; LF[pfx, f[1]] = f[5]
		LP[pfx, f[1]] = f[6]; CL[pfx, f[1]] = f[7]; LIB[pfx, f[1]] = f[8]; PRE[pfx, f[1]] = f[9]
		POST[pfx, f[1]] = f[10]; FA[pfx, f[1]] = f[11]; HV[pfx, f[1]] = f[12]; SQ[pfx, f[1]] = f[13]
	}
	close(file)
}

function lvl(s) { return s == "full" ? 2 : (s == "rel" || s == "acq") ? 1 : 0 }

function kmatch(pat, s) { return pat == "*" || pat == s || (pat ~ /\*$/ && index(s, substr(pat, 1, length(pat) - 1)) == 1) }

function lookup(arch, isa, cls, shape,    i) {
	for (i = 1; i <= NK; i++)
		if (kmatch(K_arch[i], arch) && kmatch(K_isa[i], isa) && kmatch(K_cls[i], cls) && kmatch(K_shape[i], shape))
			return i
	return 0
}

# "" if the probe provides what `need` asks, else why not
function weaker(need, p,    a, n, j, kv, want, got, c, i) {
	if (need == "-" || need == "") return ""
	n = split(need, a, " ")
	for (j = 1; j <= n; j++) {
		split(a[j], kv, "=")
		if (kv[1] == "pre" && lvl(PRE["c", p]) < lvl(kv[2]))
			return "needs " kv[2] " ordering before the atomic access, has " PRE["c", p]
		if (kv[1] == "post" && lvl(POST["c", p]) < lvl(kv[2]))
			return "needs " kv[2] " ordering after the atomic access, has " POST["c", p]
		if (kv[1] == "fence")
			for (i = 1; i <= length(kv[2]); i++) {
				c = substr(kv[2], i, 1)
				if (index(FA["c", p], c) == 0) return "needs a fence of kind " c ", has " FA["c", p]
			}
	}
	return ""
}

function ktok(seq, t,    a, n, j, c) {
	c = 0; n = split(seq, a, " ")
	for (j = 1; j <= n; j++) if (a[j] == t) c++
	return c
}

function emit(p, v, r, cn, rn, cs, rs) {
	printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", CC, TGT, p, CLS[p], v, r, cn, rn, cs, rs
}

function judge_x86(p,    w, worse, better, d) {
	w = weaker(K_need[lookup("x86_64", "*", CLS[p], SH[p])], p)
	if (w != "") { emit(p, "WEAKER", w, N["c", p], N["r", p], SQ["c", p], SQ["r", p]); return }
	worse = ""
	if (LIB["c", p] != "-" && LIB["r", p] == "-") worse = worse "; out-of-line call " LIB["c", p]
	if (HV["c", p] > HV["r", p]) worse = worse "; mfence/lfence/sfence where the reference has none"
	if (FF["c", p] > FF["r", p]) worse = worse "; extra fence"
	if (LP["c", p] > 0 && LP["r", p] == 0 && AT["r", p] > 0) worse = worse "; cmpxchg loop where the reference has one locked instruction"
	if (AT["c", p] > AT["r", p]) worse = worse "; extra locked instruction"
	d = N["c", p] - N["r", p]
	if (d > 0) worse = worse "; " d " more instruction" (d > 1 ? "s" : "")
	if (worse != "") { emit(p, "worse", substr(worse, 3), N["c", p], N["r", p], SQ["c", p], SQ["r", p]); return }
	if (d < 0 || FF["c", p] < FF["r", p] || LP["c", p] < LP["r", p]) {
		emit(p, "better", (d < 0 ? -d " fewer instruction" (d < -1 ? "s" : "") : "fewer fences or loops"),
		     N["c", p], N["r", p], SQ["c", p], SQ["r", p]); return
	}
	emit(p, SQ["c", p] == SQ["r", p] ? "identical" : "same", "-", N["c", p], N["r", p], SQ["c", p], SQ["r", p])
}

function judge_kernel(p,    k, w, ks, worse, better, cF, cf, kF, kf, cL, kL, kA) {
	k = lookup(ARCH, ISA, CLS[p], SH[p])
	ks = k ? K_kernel[k] : "?"
	w = k ? weaker(K_need[k], p) : ""
	if (w != "") { emit(p, "WEAKER", w, N["c", p], "-", SQ["c", p], "kernel: " ks); return }
	if (ks == "?") {
		if (LIB["c", p] != "-") emit(p, "worse", "out-of-line call " LIB["c", p], N["c", p], "-", SQ["c", p], "kernel: ?")
		else emit(p, "n/a", "no kernel sequence to compare with", N["c", p], "-", SQ["c", p], "kernel: ?")
		return
	}
	cF = FF["c", p]; cf = LF["c", p]; kF = ktok(ks, "F"); kf = ktok(ks, "f")
	kL = ktok(ks, "L"); kA = ktok(ks, "A")
	cL = (AT["c", p] > 0 && LP["c", p] > 0) ? 1 : 0
	worse = ""
	if (LIB["c", p] != "-") worse = worse "; out-of-line call " LIB["c", p]
	if (cF > kF) worse = worse "; " (cF - kF) " extra full fence" (cF - kF > 1 ? "s" : "")
	else if (cF + cf > kF + kf) worse = worse "; extra fence"
	if (cL > kL && kA > 0) worse = worse "; loop where the kernel has one atomic instruction"
	if (worse != "") { emit(p, "worse", substr(worse, 3), N["c", p], "-", SQ["c", p], "kernel: " ks); return }
	better = ""
	if (cF + cf < kF + kf || cF < kF) better = "fewer fences than the kernel"
	else if (cL < kL && AT["c", p] > 0) better = "one atomic instruction where the kernel loops"
	if (better != "") { emit(p, "better", better, N["c", p], "-", SQ["c", p], "kernel: " ks); return }
	emit(p, "same", "-", N["c", p], "-", SQ["c", p], "kernel: " ks)
}

BEGIN {
	FS = "|"
	while ((getline line < MANIFEST) > 0) {
		split(line, f, " ")
		P[++NP] = f[1]; c = f[2]; sub(/^class=/, "", c); s = f[3]; sub(/^shape=/, "", s)
		CLS[f[1]] = c; SH[f[1]] = s
	}
	close(MANIFEST)
	while ((getline line < KSEQ) > 0) {
		if (line ~ /^[ \t]*(#|$)/) continue
		split(line, f, "|")
		NK++; K_arch[NK] = trim(f[1]); K_isa[NK] = trim(f[2]); K_cls[NK] = trim(f[3])
		K_shape[NK] = trim(f[4]); K_kernel[NK] = trim(f[5]); K_need[NK] = trim(f[6])
	}
	close(KSEQ)
}

{
	CC = $1; TGT = $2; ARCH = $3; ISA = $4
	delete D; delete N; delete SQ
	load_tsv($5, "c")
	if ($6 != "-") load_tsv($6, "r")
	for (i = 1; i <= NP; i++) {
		p = P[i]
		if (!(("c", p) in D)) continue	# not on this target (e.g. cmpxchg128)
		if ($6 != "-") {
			if (!(("r", p) in D)) continue
			judge_x86(p)
		} else
			judge_kernel(p)
	}
}
