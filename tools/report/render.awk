# katomic report: joins the facts gathered by report.sh (logs/facts.tsv, one
# tab-separated record a line, first field = kind) into the verdict and
# writes OUT/REPORT.md, OUT/index.html and OUT/report.json; prints the
# verdict tables on stdout.  Variables: OUT, TBL (losses.tbl), MAP
# (bench-probes.tbl), ROOT (the source tree, shortens paths).  Exit status 1 when a correctness check failed.
#
# Thresholds (documented in docs/report.md):
#   an op is slower when its median C11/asm ratio is > OP_SLOW and C11 was
#   slower in every round (ratio min > 1); a workload (threads <= CPUs) when
#   its median is > WL_SLOW and every round was slower; C11 is "as fast" when
#   the geometric mean of its per-op ratios is <= FAST.
BEGIN {
	FS = "\t"
	OP_SLOW = 1.05; WL_SLOW = 1.10; FAST = 1.05
	while ((getline line < TBL) > 0) {
		if (line ~ /^#/ || line == "") continue
		split(line, ff, "\t")
		nr++; rt[nr] = ff[1]; rc[nr] = ff[2]; rv[nr] = ff[3]; rp[nr] = ff[4]; rl[nr] = ff[5]; re[nr] = ff[6]
	}
	close(TBL)
	while ((getline line < MAP) > 0) {
		if (line ~ /^#/ || line == "") continue
		split(line, ff, "\t"); bmap[ff[1]] = ff[2]; bnote[ff[1]] = ff[3]
	}
	close(MAP)
}

# ------------------------------------------------------------ facts
$1 == "M" { m[$2] = $3; next }
$1 == "CC" { ncc++; ccn[ncc] = $2; ccv[ncc] = $3; ccp[ncc] = $4; next }
$1 == "MISSING" { nmiss++; missk[nmiss] = $2; missn[nmiss] = $3; misst[nmiss] = $4; miss[$2] = $4; next }
$1 == "S" { st[$2] = $3; stn[$2] = $4; next }
$1 == "CGROW" {
	ncg++; cgc[ncg] = $2; cgt[ncg] = $3; cgref[ncg] = $4
	cgid[ncg] = $5; cgsm[ncg] = $6; cgbt[ncg] = $7; cgws[ncg] = $8; cgwk[ncg] = $9; cgna[ncg] = $10; cgtot[ncg] = $11
	next
}
$1 == "CGSKIP" { ncgs++; cgskip[ncgs] = $2; next }
$1 == "CGLOSS" { loss($2, $3, $4, $5, $6, $7, $8); next }
$1 == "CGX" { if ($3 == m["arch"]) { cgx[$2, $4] = $5; cgxr[$2, $4] = $6; cgxc[$2] = 1 } next }
$1 == "LTDIR" { nltd++; ltd[nltd] = $2; next }
$1 == "LTNOTE" { nltn++; ltn[nltn] = $2; next }
$1 == "LT" {
	nlt++; ltb[nlt] = $2; ltc[nlt] = $3; lts[nlt] = $4; ltrc[nlt] = $5
	if ($4 == "ok") {
		ltt[nlt] = $6; ltp[nlt] = $7; ltf[nlt] = $8; ltfb[nlt] = $9; ltws[nlt] = $10; ltwt[nlt] = $11
		ltns[nlt] = $12; ltsk[nlt] = $13; lter[nlt] = $14; ltit[nlt] = $15
		ltok++
	} else ltmsg[nlt] = $6
	next
}
$1 == "LTT" {
	k = $4
	if (!(k in ltti)) { nltt++; ltti[k] = nltt; lttn[nltt] = k; ltte[nltt] = $5 }
	run = $2 "/" $3
	if (!(run in ltrun)) { nltr++; ltrun[run] = nltr; ltrn[nltr] = run }
	lt_itot += $10
	lttv[k, run] = $6; ltto[k, run] = $7; lttpos[k, run] = $8; lttneg[k, run] = $9
	next
}
$1 == "LTBAD" { nltbad++; ltbad[nltbad] = $2 "/" $3 ": " $4 " " $5 ": " $6; next }
$1 == "B" { b[$2] = $3; next }
$1 == "BC" { nbc++; bcn[nbc] = $2; bcd[nbc] = $3; bcc[nbc] = $4; bcl[nbc] = $5; next }
$1 == "BNOTE" { nbn++; bnote[nbn] = $2; next }
$1 == "BOP" { bop($2, $4, $5, $6, $7, $8, $9, $10, $11); next }
$1 == "PLOT" {   # the report's own charts first, then the bench's
	if ($3 == "report") { nplr++; plrf[nplr] = $2; plrs[nplr] = $3; plrn[nplr] = $4 }
	else { nplb++; plbf[nplb] = $2; plbs[nplb] = $3; plbn[nplb] = $4 }
	next
}

# ------------------------------------------------------------ codegen losses, grouped
function loss(t, c, p, v, r, ci, ri,    i, lab, ex, g, d) {
	for (i = 1; i <= nr; i++)
		if (t ~ rt[i] && c ~ rc[i] && v ~ rv[i] && p ~ rp[i]) break
	if (i <= nr) { lab = rl[i]; ex = re[i] }
	else if (t == m["arch"]) { lab = p; ex = r }
	else { lab = r; gsub(/__aarch64_[a-z0-9_]+/, "__aarch64_*", lab); ex = "" }
	g = t SUBSEP lab
	if (!(g in gi)) {
		ng++; gi[g] = ng; gt[ng] = t; gl[ng] = lab; ge[ng] = ex; gv[ng] = v; gdmin[ng] = 1e9; gdmax[ng] = -1e9
	}
	i = gi[g]
	if (v == "WEAKER") gv[i] = "WEAKER"
	if (!((i, "c", c) in gseen)) { gseen[i, "c", c] = 1; gcs[i] = gcs[i] (gcs[i] == "" ? "" : ", ") c; gnc[i]++ }
	if (!((i, "p", p) in gseen)) { gseen[i, "p", p] = 1; gnp[i]++; if (gnp[i] <= 6) gps[i] = gps[i] (gps[i] == "" ? "" : ", ") p }
	if (!((i, "r", r) in gseen)) { gseen[i, "r", r] = 1; if (gnr[i]++ < 2) grs[i] = grs[i] (grs[i] == "" ? "" : "; ") r }
	if (ci ~ /^[0-9]+$/ && ri ~ /^[0-9]+$/) {
		d = ci - ri
		if (d < gdmin[i]) gdmin[i] = d
		if (d > gdmax[i]) gdmax[i] = d
	}
	gn[i]++
}

# ------------------------------------------------------------ bench ratios
function bop(l, kind, name, mode, thr, med, mn, mx, s,    k, cell) {
	if (!(l in bli)) { nbl++; bli[l] = nbl; bll[nbl] = l }
	if (s != "ok" || med + 0 <= 0) return
	nbo++; bo_l[nbo] = l; bo_k[nbo] = kind; bo_n[nbo] = name; bo_m[nbo] = mode; bo_t[nbo] = thr
	bo_r[nbo] = med + 0; bo_lo[nbo] = mn + 0; bo_hi[nbo] = mx + 0
	cell = (kind == "op") ? name "/" mode : name "/" thr (thr == 1 ? " thread" : " threads")
	if (kind == "op") {
		bon[l]++; bos[l] += log(med)
		if (!(l in bow) || med + 0 > bow[l]) { bow[l] = med + 0; bown[l] = cell }
		if (med + 0 > OP_SLOW && mn + 0 > 1) slow(l, name, cell, med, mn, mx)
	} else if (thr + 0 <= b["cpus"] + 0 || b["cpus"] == "") {
		bwn[l]++; bws[l] += log(med)
		if (!(l in bww) || med + 0 > bww[l]) { bww[l] = med + 0; bwwn[l] = cell }
		if (med + 0 > WL_SLOW && mn + 0 > 1) slow(l, name, cell, med, mn, mx)
	}
}
function slow(l, name, cell, med, mn, mx,    n, i, p, bad, why, known) {
	nsl++; sll[nsl] = l; slc[nsl] = cell; slr[nsl] = med + 0; slmin[nsl] = mn + 0; slmax[nsl] = mx + 0
	n = split(bmap[name], p, " ")
	bad = ""; known = 0
	for (i = 1; i <= n; i++) {
		if ((l, p[i]) in cgx) known++
		if (cgx[l, p[i]] == "worse" || cgx[l, p[i]] == "WEAKER") bad = bad (bad == "" ? "" : "; ") p[i] " " cgxr[l, p[i]]
	}
	if (bad != "") why = "codegen: " bad
	else if (bnote[name] != "") why = bnote[name]
	else if (n > 0 && known == n) why = "the audit finds the same or better code for " bmap[name] " with " l ": the gap is in the surrounding loop or the machine, not in the atomics"
	else why = "no codegen data for " l
	slw[nsl] = "slower in every round (" fmt2(mn) ".." fmt2(mx) "); " why
}

# ------------------------------------------------------------ helpers
function fmt2(x) { return sprintf("%.2f", x + 0) }
function pad(s, w,  n) { n = w - length(s); while (n-- > 0) s = s " "; return s }
function lpad(s, w,  n) { n = w - length(s); while (n-- > 0) s = " " s; return s }
function isnum(s) { return s ~ /^[-+]?[0-9][0-9.]*x?$/ || s == "-" || s ~ /^[0-9]+ of [0-9]+$/ }
function h(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); gsub(/"/, "\\&quot;", s); return s }
function j(s) {
	gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, " ", s)
	return "\"" s "\""
}
function jn(x) { return (x == "" || x == "-") ? "null" : x + 0 }
function md(s) { gsub(/\|/, "\\|", s); return s }
# a table: tnew(name, "h1\th2..."), tadd(name, "c1\tc2..."); a cell starting
# with "~" spans the rest of the row
function tnew(t, hdr) { tn[t] = 0; th[t] = hdr }
function tadd(t, row) { tr[t, ++tn[t]] = row }
function ttext(t,    i, c, n, w, cell, s, line, hh, nh, txt) {
	nh = split(th[t], hh, "\t")
	for (c = 1; c <= nh; c++) { w[c] = length(hh[c]); txt[c] = (c == 1) }
	for (i = 1; i <= tn[t]; i++) {
		n = split(tr[t, i], cell, "\t")
		for (c = 1; c <= n; c++) {
			if (cell[c] ~ /^~/) break
			if (length(cell[c]) > w[c]) w[c] = length(cell[c])
			if (!isnum(cell[c])) txt[c] = 1
		}
	}
	s = ""
	line = ""
	for (c = 1; c <= nh; c++) line = line (c > 1 ? "  " : "") (txt[c] ? pad(hh[c], w[c]) : lpad(hh[c], w[c]))
	s = rtrim(line) "\n"
	for (i = 1; i <= tn[t]; i++) {
		n = split(tr[t, i], cell, "\t")
		line = ""
		for (c = 1; c <= n; c++) {
			if (cell[c] ~ /^~/) { line = line "  " substr(cell[c], 2); break }
			line = line (c > 1 ? "  " : "") (txt[c] ? pad(cell[c], w[c]) : lpad(cell[c], w[c]))
		}
		s = s rtrim(line) "\n"
	}
	return s
}
function rtrim(s) { sub(/ +$/, "", s); return s }
function tmd(t,    i, c, n, cell, s, hh, nh, line) {
	nh = split(th[t], hh, "\t")
	s = "|"; line = "|"
	for (c = 1; c <= nh; c++) { s = s " " md(hh[c]) " |"; line = line (c == 1 ? "---|" : "---:|") }
	s = s "\n" line "\n"
	for (i = 1; i <= tn[t]; i++) {
		n = split(tr[t, i], cell, "\t")
		line = "|"
		for (c = 1; c <= nh; c++) {
			if (c <= n && cell[c] ~ /^~/) { line = line " " md(substr(cell[c], 2)) " |"; n = c; continue }
			line = line " " (c <= n ? md(cell[c]) : "") " |"
		}
		s = s line "\n"
	}
	return s
}
function thtml(t, id,    i, c, n, cell, s, hh, nh, cls) {
	nh = split(th[t], hh, "\t")
	s = "<table" (id != "" ? " id=\"" id "\"" : "") "><thead><tr>"
	for (c = 1; c <= nh; c++) s = s "<th>" h(hh[c]) "</th>"
	s = s "</tr></thead><tbody>\n"
	for (i = 1; i <= tn[t]; i++) {
		n = split(tr[t, i], cell, "\t")
		s = s "<tr>"
		for (c = 1; c <= n; c++) {
			if (cell[c] ~ /^~/) { s = s "<td class=\"span\" colspan=\"" (nh - c + 1) "\">" h(substr(cell[c], 2)) "</td>"; break }
			cls = hcls(hh[c], cell[c])
			s = s "<td" (c > 1 && isnum(cell[c]) ? " class=\"num" cls "\"" : (cls != "" ? " class=\"" substr(cls, 2) "\"" : "")) ">" h(cell[c]) "</td>"
		}
		s = s "</tr>\n"
	}
	return s "</tbody></table>\n"
}
# colour: bad (red) for WEAKER / forbidden / failed > 0, warn (amber) for worse > 0 or a slow ratio
function hcls(hd, v) {
	if ((hd ~ /WEAKER|forbidden|failed/) && v + 0 > 0) return " bad"
	if (hd ~ /^worse/ && v + 0 > 0) return " warn"
	if (hd ~ /C11\/asm|workloads/ && v ~ /^[0-9.]+$/ && v + 0 > FAST) return " warn"
	if (hd ~ /C11\/asm|workloads/ && v ~ /^[0-9.]+$/) return " good"
	return ""
}
function wrap(s, ind, width,    out, line, n, w, i) {
	n = split(s, w, " ")
	out = ""; line = ""
	for (i = 1; i <= n; i++) {
		if (line != "" && length(line) + 1 + length(w[i]) > width) { out = out line "\n"; line = ind w[i] }
		else line = line (line == "" || line == ind ? "" : " ") w[i]
	}
	return out line "\n"
}
function version_key(c,   a, n, v) {
	# gcc before clang, then by version; plain names sort after numbered ones
	n = split(c, a, "-")
	v = (n > 1 && a[n] ~ /^[0-9]+$/) ? a[n] + 0 : 999
	return (a[1] == "gcc" ? "0" : a[1] == "clang" ? "1" : "2") sprintf("%04d", v) c
}
function sect_missing(sec) {
	if (sec in st && st[sec] == "ok") return ""
	if (!(sec in st)) return sec ": not run"
	return sec ": " st[sec] (stn[sec] != "" ? " -- " stn[sec] : "")
}

END {
	for (i = 1; i <= nplr; i++) { npl++; plf[npl] = plrf[i]; pls[npl] = plrs[i]; pln[npl] = plrn[i] }
	for (i = 1; i <= nplb; i++) { npl++; plf[npl] = plbf[i]; pls[npl] = plbs[i]; pln[npl] = plbn[i] }
	native = m["arch"]
	ncpus = b["cpus"] != "" ? b["cpus"] : m["cpus"]

	# ---- per compiler rows: native codegen configurations + benchmarked compilers
	nrow = 0
	for (i = 1; i <= ncg; i++) if (cgt[i] == native) { nrow++; rowc[nrow] = cgc[i]; rowi[cgc[i]] = i }
	for (i = 1; i <= nbl; i++) if (!(bll[i] in rowi)) { nrow++; rowc[nrow] = bll[i]; rowi[bll[i]] = 0 }
	for (i = 2; i <= nrow; i++) {   # insertion sort by version_key
		x = rowc[i]; kx = version_key(x)
		for (k = i - 1; k >= 1 && version_key(rowc[k]) > kx; k--) rowc[k + 1] = rowc[k]
		rowc[k + 1] = x
	}
	havegcc = havecl = 0
	for (i = 1; i <= nrow; i++) { if (rowc[i] ~ /^gcc/) havegcc = 1; if (rowc[i] ~ /^clang/) havecl = 1 }
	nprobes = 0
	for (i = 1; i <= ncg; i++) if (cgt[i] == native && cgtot[i] > nprobes) nprobes = cgtot[i]

	tnew("v", "compiler\tidentical\tsame cost\tbetter\tworse\tWEAKER\tC11/asm\tworst op\tworkloads")
	cgok = (st["codegen"] == "ok"); bok = (st["bench"] == "ok")
	allfast = 1; nfast = 0; weak_native = 0; fastlist = ""
	for (r = 1; r <= nrow; r++) {
		c = rowc[r]; i = rowi[c]
		if (i > 0) {
			row = c "\t" cgid[i] "\t" cgsm[i] "\t" cgbt[i] "\t" cgws[i] "\t" cgwk[i]
			weak_native += cgwk[i]
		} else row = c "\t-\t-\t-\t-\t-"
		if (c in bon) {
			gm = exp(bos[c] / bon[c]); rg[c] = gm
			row = row "\t" fmt2(gm) "\t" bown[c] " " fmt2(bow[c]) "\t" (c in bwn ? fmt2(exp(bws[c] / bwn[c])) : "-")
			if (gm > FAST) allfast = 0
			nfast++; fastlist = fastlist (fastlist == "" ? "" : ", ") fmt2(gm) " " c
		} else row = row "\t-\t" (bok ? "not benchmarked" : "not measured") "\t-"
		tadd("v", row)
	}
	if (!havegcc && ("gcc" in miss)) tadd("v", "gcc\t~" miss["gcc"])
	if (!havecl && ("clang" in miss)) tadd("v", "clang\t~" miss["clang"])
	if (nrow == 0 && !("gcc" in miss) && !("clang" in miss)) tadd("v", "-\t~no results: " sect_missing("codegen") "; " sect_missing("bench"))

	# ---- litmus
	tnew("l", "backend\tharness\ttests\tpassed\tfailed\tforbidden seen\tweak seen\tnot seen\tskipped/errors")
	lt_tests = lt_forb = lt_forb_c11 = lt_forb_asm = lt_fail = 0
	for (i = 1; i <= nlt; i++) {
		if (lts[i] != "ok") { tadd("l", ltb[i] "\t" ltc[i] "\t~did not run: " ltmsg[i]); continue }
		tadd("l", ltb[i] "\t" ltc[i] "\t" ltt[i] "\t" ltp[i] "\t" ltf[i] "\t" ltfb[i] "\t" ltws[i] " of " ltwt[i] "\t" ltns[i] "\t" (ltsk[i] + lter[i]))
		lt_tests += ltt[i] - ltsk[i] - lter[i]; lt_forb += ltfb[i]; lt_fail += ltf[i]
		if (ltb[i] == "c11") lt_forb_c11 += ltfb[i]; else lt_forb_asm += ltfb[i]
		lt_iter = ltit[i]
	}
	if (nlt == 0) tadd("l", "-\t~not run")
	ltdirs = ""
	for (i = 1; i <= nltd; i++) { d = ltd[i]; if (ROOT != "" && index(d, ROOT "/") == 1) d = substr(d, length(ROOT) + 2); ltdirs = ltdirs (i > 1 ? ", " : "") d }

	# ---- other targets
	tnew("x", "target\tcompiler\tsame\tbetter\tworse\tWEAKER\tn/a")
	nx = 0; weak_cross = 0; weak_cross_s = ""
	for (i = 1; i <= ncg; i++) if (cgt[i] != native) {
		nx++
		tadd("x", cgt[i] "\t" cgc[i] "\t" (cgid[i] + cgsm[i]) "\t" cgbt[i] "\t" cgws[i] "\t" cgwk[i] "\t" cgna[i])
		if (cgwk[i] > 0) { weak_cross += cgwk[i]; weak_cross_s = weak_cross_s (weak_cross_s == "" ? "" : ", ") cgwk[i] " on " cgt[i] " (" cgc[i] ")" }
	}

	# ---- losses: native codegen groups, speed, cross groups
	nloss = 0
	for (i = 1; i <= nsl; i++) {
		nloss++; lw[nloss] = "speed"; lwhat[nloss] = slc[i]; lcomp[nloss] = sll[i]; lcnt[nloss] = 1; lv[nloss] = "slower"
		ld[nloss] = fmt2(slr[i]) "x"; lwhy[nloss] = slw[i]; lprobes[nloss] = ""; lcomp_n[nloss] = 1
	}
	# codegen groups: the ones hitting most compilers first, then most probes
	nnl = 0
	for (i = 1; i <= ng; i++) if (gt[i] == native) nli[++nnl] = i
	for (a = 2; a <= nnl; a++) {
		x = nli[a]
		for (k = a - 1; k >= 1 && (gnc[nli[k]] < gnc[x] || gnc[nli[k]] == gnc[x] && gnp[nli[k]] < gnp[x]); k--) nli[k + 1] = nli[k]
		nli[k + 1] = x
	}
	for (a = 1; a <= nnl; a++) {
		i = nli[a]
		d = gdmin[i] == 1e9 || gdmax[i] <= 0 ? grs[i] : gdmin[i] == gdmax[i] ? sprintf("%+d insns", gdmin[i]) : sprintf("%+d..%+d insns", gdmin[i], gdmax[i])
		nloss++; lw[nloss] = "code"; lwhat[nloss] = gl[i]; lcomp[nloss] = gcs[i]
		lcnt[nloss] = gnp[i]; lv[nloss] = gv[i]; ld[nloss] = d; lwhy[nloss] = ge[i]; lprobes[nloss] = gps[i] (gnp[i] > 6 ? ", ..." : "")
		lcomp_n[nloss] = gnc[i]
	}
	nxl = 0
	for (i = 1; i <= ng; i++) if (gt[i] != native) {
		nxl++; xli[nxl] = i
	}
	# WEAKER first, then by number of probes
	for (a = 2; a <= nxl; a++) {
		x = xli[a]
		for (k = a - 1; k >= 1 && (gv[xli[k]] != "WEAKER" && gv[x] == "WEAKER" || gv[xli[k]] == gv[x] && gnp[xli[k]] < gnp[x]); k--) xli[k + 1] = xli[k]
		xli[k + 1] = x
	}

	# ---- the answer
	missing = ""
	for (s = 1; s <= 3; s++) {
		sec = s == 1 ? "codegen" : s == 2 ? "litmus" : "bench"
		if (st[sec] != "ok") missing = missing (missing == "" ? "" : ", ") sec " " (sec in st ? st[sec] : "not run")
	}
	if (st["litmus"] == "ok" && ltok == 0) missing = missing (missing == "" ? "" : ", ") "litmus runs failed"
	correct = (lt_forb_c11 == 0 && weak_native == 0)
	nlossc = 0; for (i = 1; i <= nloss; i++) if (lw[i] == "code") nlossc++
	if (lt_forb_c11 > 0) {
		ans = "NO"
		line = "NO: the C11 backend showed " lt_forb_c11 " forbidden litmus outcome(s) on this CPU -- it is not correct here (see the litmus section)"
	} else if (weak_native > 0) {
		ans = "NO"
		line = "NO: " weak_native " probe(s) compile to code WEAKER than the kernel's ordering on " native " (see the codegen section)"
	} else if (nfast > 0 && !allfast) {
		ans = "NOT YET"
		line = "NOT YET: C11 is correct here but slower than the asm (C11/asm geomean " fastlist ")"
	} else if (missing != "") {
		ans = "INCOMPLETE"
		ran = ""
		if (cgok) ran = weak_native " WEAKER probes"
		if (st["litmus"] == "ok" && ltok) ran = ran (ran == "" ? "" : ", ") lt_forb " forbidden outcomes in " lt_tests " litmus runs"
		if (nfast) ran = ran (ran == "" ? "" : ", ") "C11/asm " fastlist
		line = "INCOMPLETE: " (ran == "" ? "nothing ran" : "nothing wrong in what ran (" ran ")") ", but " missing
	} else {
		ans = "YES"
		line = "YES on this " native ": C11 is as correct as the asm (" lt_forb " forbidden outcomes in " lt_tests " litmus runs, " \
			weak_native " WEAKER probes) and as fast (C11/asm " fastlist ")" \
			(nlossc ? "; a few instructions lost in " nlossc " op families (above)" : "")
		# The geomean can hide a workload or op that is slower in every round: name them.
		slown = ""
		for (i = 1; i <= nsl; i++) {
			split(slc[i], sp, "/")
			if (!(sp[1] in slseen)) { slseen[sp[1]] = 1; slown = slown (slown == "" ? "" : ", ") sp[1] }
		}
		if (slown != "") line = line "; but slower than the asm in every round on: " slown " (above)"
	}
	if (lt_forb_asm > 0) line = line "; the asm backend also showed " lt_forb_asm " forbidden outcome(s): check the runner and the CPU"
	if (weak_cross > 0) line = line "; elsewhere: WEAKER probes: " weak_cross_s
	xrc = (lt_forb > 0 || weak_native > 0) ? 1 : 0

	# ================================================================ text (stdout)
	title = "katomic report: time to move to C11 atomics?"
	hdr = m["mode"] " run, " m["date"] ", " m["seconds"] " s"
	mach = native ", " m["cpu"] ", " m["cpus"] " CPUs (load " m["load"] "), " m["kernel"] ", " m["os"] "; katomic " m["katomic"]
	cap1 = cgok ? "code: " nprobes " " native " probes per compiler, C11 backend vs asm backend (same compiler)" : "code: not audited -- " sect_missing("codegen")
	cap2 = bok ? "speed: C11 ns/op / asm ns/op, " (b["quick"] == "true" ? "quick " : "") "bench, median of " b["rounds"] " rounds; < 1 = C11 faster; workloads: threads <= CPUs" : "speed: not measured -- " sect_missing("bench")
	cap3 = st["litmus"] == "ok" ? "litmus on this CPU: " ltdirs ", " lt_iter " iterations per test" : "litmus: not run -- " sect_missing("litmus")
	printf "%s  (%s)\n%s\n", title, hdr, wrap(mach, "  ", 100)
	printf "C11 vs the asm reference on this machine, per compiler\n  %s\n  %s\n", cap1, cap2
	printf "%s\n", ttext("v")
	printf "%s\n%s\n", cap3, ttext("l")
	printf "Where C11 still loses on %s\n", native
	if (nloss == 0) printf "  nowhere%s\n", (cgok && bok ? "" : " (in what ran)")
	for (i = 1; i <= nloss; i++)
		printf "%s", wrap("- " lwhat[i] " [" lcomp[i] "; " (lw[i] == "code" ? lcnt[i] " probe" (lcnt[i] > 1 ? "s" : "") (lv[i] == "WEAKER" ? ", WEAKER" : "") (ld[i] != "" ? ", " ld[i] : "") : "speed " ld[i]) "]: " lwhy[i], "    ", 100)
	if (nx > 0) {
		printf "\nOther targets (codegen only: C11 vs the kernel's own sequence for each op)\n%s", ttext("x")
		nsmall = 0
		for (a = 1; a <= nxl; a++) {
			i = xli[a]
			if (gv[i] != "WEAKER" && gnp[i] < 10) { nsmall++; continue }
			ex3 = gps[i]; n = split(ex3, e3, ", "); if (n > 3) ex3 = e3[1] ", " e3[2] ", " e3[3] ", ..."
			printf "%s", wrap("- " gt[i] " [" gcs[i] "; " gnp[i] " probe" (gnp[i] > 1 ? "s" : "") ", " gv[i] "]: " gl[i] (ge[i] != "" ? ": " ge[i] : "") " (e.g. " ex3 ")", "    ", 100)
		}
		if (nsmall) printf "- and %d smaller group%s (< 10 probes each): see REPORT.md\n", nsmall, (nsmall > 1 ? "s" : "")
	}
	nsk = 0
	for (i = 1; i <= ncgs; i++) { if (!nsk++) printf "\nSkipped or missing\n"; printf "%s", wrap("- codegen: " cgskip[i], "    ", 100) }
	for (i = 1; i <= nltn; i++) { if (!nsk++) printf "\nSkipped or missing\n"; printf "%s", wrap("- litmus: " ltn[i], "    ", 100) }
	for (i = 1; i <= nbn; i++) { if (!nsk++) printf "\nSkipped or missing\n"; printf "%s", wrap("- bench: " bnote[i], "    ", 100) }
	for (i = 1; i <= nmiss; i++) if (missk[i] == "gnuplot") { if (!nsk++) printf "\nSkipped or missing\n"; printf "- plots: %s\n", misst[i] }
	for (s = 1; s <= 3; s++) {
		sec = s == 1 ? "codegen" : s == 2 ? "litmus" : "bench"
		if (st[sec] != "ok") { if (!nsk++) printf "\nSkipped or missing\n"; printf "%s", wrap("- " sect_missing(sec), "    ", 100) }
	}
	for (i = 1; i <= nltbad; i++) { if (!nbad++) printf "\nLitmus problems\n"; printf "%s", wrap("- " ltbad[i], "    ", 100) }
	printf "\n%s", wrap("Answer: " line, "  ", 100)

	# ================================================================ REPORT.md
	f = OUT "/REPORT.md"
	printf "# katomic report: time to move to C11 atomics?\n\n" > f
	printf "**Answer: %s**\n\n", md(line) > f
	printf "%s; %s\n\n", hdr, mach > f
	printf "## C11 vs the asm reference, per compiler\n\n- %s\n- %s\n\n%s\n", cap1, cap2, tmd("v") > f
	printf "## Litmus on this CPU\n\n%s\n\n%s\n", cap3, tmd("l") > f
	printf "*forbidden seen* counts runs that ended in a state the test forbids (must be 0); *weak seen*: tests whose allowed weak outcome was witnessed (x86-64 is TSO: only store buffering and store forwarding can show); *not seen*: allowed but not observed (reported, not a failure).\n\n" > f
	for (i = 1; i <= nltbad; i++) printf "- %s\n", md(ltbad[i]) > f
	printf "## Where C11 still loses on %s\n\n", native > f
	if (nloss == 0) printf "Nowhere%s.\n", (cgok && bok ? "" : " (in what ran)") > f
	else {
		printf "| what | compilers | probes | cost | why |\n|---|---|---:|---|---|\n" > f
		for (i = 1; i <= nloss; i++)
			printf "| %s | %s | %s | %s | %s |\n", md(lwhat[i]) (lprobes[i] != "" && lprobes[i] != lwhat[i] ? " (" md(lprobes[i]) ")" : ""), md(lcomp[i]), (lw[i] == "code" ? lcnt[i] : "speed"), md((lv[i] == "WEAKER" ? "WEAKER " : "") ld[i]), md(lwhy[i]) > f
	}
	if (nx > 0) {
		printf "\n## Other targets (codegen only)\n\nC11 against the kernel's own sequence for each op's ordering class (`tools/codegen/kernel-seq.tbl`).\n\n%s\n", tmd("x") > f
		for (a = 1; a <= nxl; a++) {
			i = xli[a]
			printf "- **%s** [%s; %d probe(s), %s]: %s%s (e.g. %s)\n", gt[i], md(gcs[i]), gnp[i], gv[i], md(gl[i]), (ge[i] != "" ? ": " md(ge[i]) : ""), md(gps[i]) (gnp[i] > 6 ? ", ..." : "") > f
		}
	}
	if (ncgs + nltn + nbn + nmiss > 0 || missing != "") {
		printf "\n## Skipped and missing\n\n" > f
		for (i = 1; i <= ncgs; i++) printf "- codegen: %s\n", md(cgskip[i]) > f
		for (i = 1; i <= nltn; i++) printf "- litmus: %s\n", md(ltn[i]) > f
		for (i = 1; i <= nbn; i++) printf "- bench: %s\n", md(bnote[i]) > f
		for (i = 1; i <= nmiss; i++) printf "- %s: %s\n", missn[i], md(misst[i]) > f
		for (s = 1; s <= 3; s++) { sec = s == 1 ? "codegen" : s == 2 ? "litmus" : "bench"; if (st[sec] != "ok") printf "- %s\n", md(sect_missing(sec)) > f }
	}
	if (npl > 0) {
		printf "\n## Plots\n\n" > f
		for (i = 1; i <= npl; i++) printf "![%s](%s)\n\n", pln[i], plf[i] > f
	}
	printf "\n## Machine\n\n- %s\n- compilers:", mach > f
	for (i = 1; i <= ncc; i++) printf " %s (%s)%s", ccn[i], ccv[i], (i < ncc ? "," : "\n") > f
	if (ncc == 0) printf " none\n" > f
	if (b["resampled"] != "") printf "- bench: %s samples taken again because a thread was descheduled, %s still disturbed (kept the least disturbed); core clock estimate %s GHz\n", b["resampled"], b["disturbed"], b["ghz"] > f
	printf "\n## Reading further\n\n- `codegen/codegen.html`: every probe, side by side (C11 vs reference)\n- `litmus/*.json`: every litmus histogram\n- `bench/table.txt`, `bench/bench.csv`: every benchmark figure, with the peers\n- `report.json`: every figure above; `logs/`: what each instrument printed\n- `docs/report.md` in the source tree: how the verdict is reached\n" > f
	close(f)

	# ================================================================ index.html
	f = OUT "/index.html"
	acls = ans == "YES" ? "yes" : ans == "NO" ? "no" : "maybe"
	printf "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>katomic report: %s</title>\n", h(ans) > f
	printf "<style>\nbody{font:15px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#222}\n" > f
	printf "h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\n" > f
	printf "table{border-collapse:collapse;margin:.6em 0}th,td{padding:.25em .6em;border:1px solid #ccc;text-align:left;vertical-align:top}\n" > f
	printf "th{background:#f0f0f0}td.num{text-align:right;font-variant-numeric:tabular-nums}td.span{color:#666;font-style:italic}\n" > f
	printf ".bad{background:#f8d0d0}.warn{background:#fbecc4}.good{background:#dcf2dc}\n" > f
	printf ".answer{font-size:1.15em;padding:.7em 1em;border-radius:6px;margin:1em 0}.answer.yes{background:#dcf2dc;border:1px solid #6a6}\n" > f
	printf ".answer.no{background:#f8d0d0;border:1px solid #c66}.answer.maybe{background:#fbecc4;border:1px solid #ca4}\n" > f
	printf ".cap{color:#555;margin:.2em 0}.plot{max-width:100%%;border:1px solid #ddd;margin:.4em 0}figure{margin:1em 0}figcaption{color:#555}\n" > f
	printf "code{background:#f4f4f4;padding:0 .2em}ul{padding-left:1.3em}details{margin:.5em 0}#plot-check.bad{padding:.3em}\n</style></head><body>\n" > f
	printf "<h1>katomic report: time to move to C11 atomics?</h1>\n<p class=\"cap\">%s &mdash; %s</p>\n", h(hdr), h(mach) > f
	printf "<div class=\"answer %s\" id=\"answer\"><b>%s</b></div>\n", acls, h(line) > f
	printf "<h2>C11 vs the asm reference, per compiler</h2>\n<p class=\"cap\">%s<br>%s</p>\n%s", h(cap1), h(cap2), thtml("v", "verdict-table") > f
	printf "<h2>Litmus on this CPU</h2>\n<p class=\"cap\">%s</p>\n%s", h(cap3), thtml("l", "litmus-table") > f
	printf "<p class=\"cap\"><i>forbidden seen</i>: runs that ended in a state the test forbids (must be 0). <i>weak seen</i>: tests whose allowed weak outcome was witnessed (x86-64 is TSO: only store buffering and store forwarding can show). <i>not seen</i>: allowed but not observed &mdash; reported, not a failure.</p>\n" > f
	if (nltbad) { printf "<ul>\n" > f; for (i = 1; i <= nltbad; i++) printf "<li class=\"bad\">%s</li>\n", h(ltbad[i]) > f; printf "</ul>\n" > f }
	if (nltt > 0) {
		printf "<details><summary>every test (%d) &times; run: observation, positive/negative</summary>\n<table><thead><tr><th>test</th><th>expected</th>", nltt > f
		for (r = 1; r <= nltr; r++) printf "<th>%s</th>", h(ltrn[r]) > f
		printf "</tr></thead><tbody>\n" > f
		for (i = 1; i <= nltt; i++) {
			k = lttn[i]
			printf "<tr><td>%s</td><td>%s</td>", h(k), h(ltte[i]) > f
			for (r = 1; r <= nltr; r++) {
				run = ltrn[r]
				if (!((k, run) in lttv)) { printf "<td>-</td>" > f; continue }
				v = lttv[k, run]
				printf "<td class=\"%s\">%s %s/%s</td>", (v == "FAIL" ? "bad" : v == "not seen" ? "" : "good"), h(ltto[k, run]), lttpos[k, run], lttneg[k, run] > f
			}
			printf "</tr>\n" > f
		}
		printf "</tbody></table></details>\n" > f
	}
	printf "<h2>Where C11 still loses on %s</h2>\n", h(native) > f
	if (nloss == 0) printf "<p>Nowhere%s.</p>\n", (cgok && bok ? "" : " (in what ran)") > f
	else {
		printf "<table id=\"loss-table\"><thead><tr><th>what</th><th>compilers</th><th>probes</th><th>cost</th><th>why</th></tr></thead><tbody>\n" > f
		for (i = 1; i <= nloss; i++)
			printf "<tr><td>%s%s</td><td>%s</td><td class=\"num\">%s</td><td class=\"%s\">%s</td><td>%s</td></tr>\n", h(lwhat[i]), \
				(lprobes[i] != "" && lprobes[i] != lwhat[i] ? "<br><small>" h(lprobes[i]) "</small>" : ""), h(lcomp[i]), \
				(lw[i] == "code" ? lcnt[i] : "speed"), (lv[i] == "WEAKER" ? "bad" : "warn"), h((lv[i] == "WEAKER" ? "WEAKER " : "") ld[i]), h(lwhy[i]) > f
		printf "</tbody></table>\n" > f
	}
	if (nx > 0) {
		printf "<h2>Other targets (codegen only)</h2>\n<p class=\"cap\">C11 against the kernel's own sequence for each op's ordering class.</p>\n%s<ul>\n", thtml("x", "target-table") > f
		for (a = 1; a <= nxl; a++) {
			i = xli[a]
			printf "<li%s><b>%s</b> [%s; %d probe(s), %s]: %s%s <small>(e.g. %s)</small></li>\n", (gv[i] == "WEAKER" ? " class=\"bad\"" : ""), h(gt[i]), h(gcs[i]), gnp[i], gv[i], h(gl[i]), (ge[i] != "" ? ": " h(ge[i]) : ""), h(gps[i]) (gnp[i] > 6 ? ", ..." : "") > f
		}
		printf "</ul>\n" > f
	}
	if (ncgs + nltn + nbn + nmiss > 0 || missing != "") {
		printf "<h2>Skipped and missing</h2>\n<ul>\n" > f
		for (i = 1; i <= ncgs; i++) printf "<li>codegen: %s</li>\n", h(cgskip[i]) > f
		for (i = 1; i <= nltn; i++) printf "<li>litmus: %s</li>\n", h(ltn[i]) > f
		for (i = 1; i <= nbn; i++) printf "<li>bench: %s</li>\n", h(bnote[i]) > f
		for (i = 1; i <= nmiss; i++) printf "<li>%s: %s</li>\n", h(missn[i]), h(misst[i]) > f
		for (s = 1; s <= 3; s++) { sec = s == 1 ? "codegen" : s == 2 ? "litmus" : "bench"; if (st[sec] != "ok") printf "<li class=\"warn\">%s</li>\n", h(sect_missing(sec)) > f }
		printf "</ul>\n" > f
	}
	printf "<h2>Plots</h2>\n" > f
	if (npl == 0) printf "<p>No plots%s.</p>\n", ("gnuplot" in miss ? ": " h(miss["gnuplot"]) : "") > f
	for (i = 1; i <= npl; i++) {
		cap = plf[i] ~ /c11-vs-asm/ ? "C11/asm per op and workload, per compiler: median, with the min..max over rounds (log scale; 1 = as fast)" : \
			plf[i] ~ /codegen/ ? "codegen verdicts per compiler and target (share of probes)" : \
			plf[i] ~ /ratio-/ ? "bench: every contender (katomic, peers, raw instruction) relative to katomic asm, mode " substr(pln[i], 7) : \
			"bench: throughput against threads, workload " substr(pln[i], 4) " (all contenders)"
		printf "<figure><img class=\"plot\" src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>\n", h(plf[i]), h(pln[i]), h(cap) > f
	}
	printf "<p id=\"plot-check\" data-total=\"%d\"></p>\n", npl > f
	printf "<h2>Machine</h2>\n<ul><li>%s</li><li>compilers:", h(mach) > f
	for (i = 1; i <= ncc; i++) printf " %s (%s)%s", h(ccn[i]), h(ccv[i]), (i < ncc ? "," : "") > f
	printf "</li>\n" > f
	if (b["resampled"] != "") printf "<li>bench: %s samples taken again because a thread was descheduled, %s still disturbed (least disturbed kept); core clock estimate %s GHz</li>\n", b["resampled"], b["disturbed"], b["ghz"] > f
	printf "</ul>\n<h2>Reading further</h2>\n<ul><li><a href=\"codegen/codegen.html\">codegen/codegen.html</a>: every probe, C11 and reference side by side</li>\n" > f
	printf "<li><a href=\"litmus/\">litmus/*.json</a>: every litmus histogram</li><li><a href=\"bench/table.txt\">bench/table.txt</a>, <a href=\"bench/bench.csv\">bench/bench.csv</a>: every benchmark figure, with the peers</li>\n" > f
	printf "<li><a href=\"report.json\">report.json</a>: every figure on this page; <a href=\"REPORT.md\">REPORT.md</a>: this page as Markdown</li></ul>\n" > f
	# marks each plot as loaded or broken (visible; also read by tools/report/check.sh)
	printf "<script>\nwindow.addEventListener('load', function () {\n  var imgs = document.querySelectorAll('img.plot'), ok = 0, bad = [];\n" > f
	printf "  for (var i = 0; i < imgs.length; i++) {\n    if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++; else bad.push(imgs[i].getAttribute('src'));\n  }\n" > f
	printf "  var p = document.getElementById('plot-check');\n  p.setAttribute('data-loaded', ok); p.setAttribute('data-broken', bad.length);\n" > f
	printf "  if (bad.length) { p.className = 'bad'; p.textContent = 'Plots that did not load: ' + bad.join(', '); }\n});\n</script>\n</body></html>\n" > f
	close(f)

	# ================================================================ report.json
	f = OUT "/report.json"
	printf "{\n  \"tool\": \"katomic report\",\n  \"mode\": %s,\n", j(m["mode"]) > f
	printf "  \"machine\": {\"arch\": %s, \"cpu\": %s, \"cpus\": %s, \"kernel\": %s, \"os\": %s, \"load\": %s, \"date\": %s, \"katomic\": %s, \"seconds\": %s,\n    \"compilers\": [", \
		j(native), j(m["cpu"]), jn(m["cpus"]), j(m["kernel"]), j(m["os"]), j(m["load"]), j(m["date"]), j(m["katomic"]), jn(m["seconds"]) > f
	for (i = 1; i <= ncc; i++) printf "%s{\"name\": %s, \"version\": %s, \"path\": %s}", (i > 1 ? ", " : ""), j(ccn[i]), j(ccv[i]), j(ccp[i]) > f
	printf "],\n    \"missing\": [" > f
	for (i = 1; i <= nmiss; i++) printf "%s{\"name\": %s, \"note\": %s}", (i > 1 ? ", " : ""), j(missn[i]), j(misst[i]) > f
	printf "]},\n" > f
	# codegen
	printf "  \"codegen\": {\"status\": %s, \"note\": %s, \"native_target\": %s, \"probes\": %d,\n    \"configs\": [", \
		j(st["codegen"] != "" ? st["codegen"] : "not run"), j(stn["codegen"]), j(native), nprobes > f
	for (i = 1; i <= ncg; i++)
		printf "%s\n      {\"compiler\": %s, \"target\": %s, \"reference\": %s, \"identical\": %d, \"same\": %d, \"better\": %d, \"worse\": %d, \"weaker\": %d, \"na\": %d, \"probes\": %d}", \
			(i > 1 ? "," : ""), j(cgc[i]), j(cgt[i]), j(cgref[i]), cgid[i], cgsm[i], cgbt[i], cgws[i], cgwk[i], cgna[i], cgtot[i] > f
	printf "],\n    \"skipped\": [" > f
	for (i = 1; i <= ncgs; i++) printf "%s%s", (i > 1 ? ", " : ""), j(cgskip[i]) > f
	printf "],\n    \"losses\": [" > f
	for (i = 1; i <= ng; i++) {
		printf "%s\n      {\"target\": %s, \"group\": %s, \"verdict\": %s, \"compilers\": %s, \"probes\": %d, \"examples\": %s, \"insns_delta_min\": %s, \"insns_delta_max\": %s, \"why\": %s}", \
			(i > 1 ? "," : ""), j(gt[i]), j(gl[i]), j(gv[i]), j(gcs[i]), gnp[i], j(gps[i]), (gdmin[i] == 1e9 ? "null" : gdmin[i]), (gdmax[i] == -1e9 ? "null" : gdmax[i]), j(ge[i]) > f
	}
	printf "]},\n" > f
	# litmus
	printf "  \"litmus\": {\"status\": %s, \"note\": %s, \"iterations\": %s, \"dirs\": [", j(st["litmus"] != "" ? st["litmus"] : "not run"), j(stn["litmus"]), jn(lt_iter) > f
	for (i = 1; i <= nltd; i++) printf "%s%s", (i > 1 ? ", " : ""), j(ltd[i]) > f
	printf "], \"notes\": [" > f
	for (i = 1; i <= nltn; i++) printf "%s%s", (i > 1 ? ", " : ""), j(ltn[i]) > f
	printf "],\n    \"totals\": {\"tests_run\": %d, \"failed\": %d, \"forbidden_observed\": %d, \"forbidden_observed_c11\": %d, \"forbidden_observed_asm\": %d, \"iterations\": %d},\n    \"runs\": [", lt_tests, lt_fail, lt_forb, lt_forb_c11, lt_forb_asm, lt_itot > f
	for (i = 1; i <= nlt; i++) {
		if (lts[i] != "ok") { printf "%s\n      {\"backend\": %s, \"cc\": %s, \"status\": \"error\", \"exit\": %s, \"note\": %s}", (i > 1 ? "," : ""), j(ltb[i]), j(ltc[i]), jn(ltrc[i]), j(ltmsg[i]) > f; continue }
		printf "%s\n      {\"backend\": %s, \"cc\": %s, \"status\": \"ok\", \"exit\": %s, \"tests\": %d, \"passed\": %d, \"failed\": %d, \"forbidden_observed\": %d, \"weak_witnessed\": %d, \"weak_tests\": %d, \"not_seen\": %d, \"skipped\": %d, \"errors\": %d, \"iterations\": %s}", \
			(i > 1 ? "," : ""), j(ltb[i]), j(ltc[i]), jn(ltrc[i]), ltt[i], ltp[i], ltf[i], ltfb[i], ltws[i], ltwt[i], ltns[i], ltsk[i], lter[i], jn(ltit[i]) > f
	}
	printf "],\n    \"problems\": [" > f
	for (i = 1; i <= nltbad; i++) printf "%s%s", (i > 1 ? ", " : ""), j(ltbad[i]) > f
	printf "],\n    \"tests\": [" > f
	n = 0
	for (i = 1; i <= nltt; i++) for (r = 1; r <= nltr; r++) {
		k = lttn[i]; run = ltrn[r]
		if (!((k, run) in lttv)) continue
		printf "%s\n      {\"name\": %s, \"run\": %s, \"expected\": %s, \"verdict\": %s, \"observation\": %s, \"positive\": %s, \"negative\": %s}", \
			(n++ ? "," : ""), j(k), j(run), j(ltte[i]), j(lttv[k, run]), j(ltto[k, run]), jn(lttpos[k, run]), jn(lttneg[k, run]) > f
	}
	printf "]},\n" > f
	# bench
	printf "  \"bench\": {\"status\": %s, \"note\": %s, \"cpus\": %s, \"rounds\": %s, \"core_ghz_estimate\": %s, \"resampled\": %s, \"disturbed\": %s,\n", \
		j(st["bench"] != "" ? st["bench"] : "not run"), j(stn["bench"]), jn(b["cpus"]), jn(b["rounds"]), jn(b["ghz"]), jn(b["resampled"]), jn(b["disturbed"]) > f
	printf "    \"thresholds\": {\"op_slower\": %s, \"workload_slower\": %s, \"as_fast_geomean\": %s},\n    \"contenders\": [", OP_SLOW, WL_SLOW, FAST > f
	for (i = 1; i <= nbc; i++) printf "%s{\"name\": %s, \"desc\": %s, \"cc\": %s}", (i > 1 ? ", " : ""), j(bcn[i]), j(bcd[i]), j(bcc[i]) > f
	printf "],\n    \"compilers\": [" > f
	for (i = 1; i <= nbl; i++) {
		c = bll[i]
		printf "%s\n      {\"compiler\": %s, \"ops\": %d, \"geomean\": %s, \"worst\": %s, \"worst_ratio\": %s, \"workloads\": %d, \"workloads_geomean\": %s, \"workloads_worst\": %s, \"workloads_worst_ratio\": %s}", \
			(i > 1 ? "," : ""), j(c), bon[c], (c in bon ? sprintf("%.4f", exp(bos[c] / bon[c])) : "null"), j(bown[c]), jn(bow[c]), \
			bwn[c], (c in bwn ? sprintf("%.4f", exp(bws[c] / bwn[c])) : "null"), j(bwwn[c]), jn(bww[c]) > f
	}
	printf "],\n    \"cells\": [" > f
	for (i = 1; i <= nbo; i++)
		printf "%s\n      {\"compiler\": %s, \"kind\": %s, \"name\": %s, \"mode\": %s, \"threads\": %d, \"ratio\": %s, \"ratio_min\": %s, \"ratio_max\": %s}", \
			(i > 1 ? "," : ""), j(bo_l[i]), j(bo_k[i]), j(bo_n[i]), j(bo_m[i]), bo_t[i], bo_r[i], bo_lo[i], bo_hi[i] > f
	printf "],\n    \"notes\": [" > f
	for (i = 1; i <= nbn; i++) printf "%s%s", (i > 1 ? ", " : ""), j(bnote[i]) > f
	printf "],\n    \"plots\": [" > f
	for (i = 1; i <= npl; i++) printf "%s%s", (i > 1 ? ", " : ""), j(plf[i]) > f
	printf "]},\n" > f
	# verdict
	printf "  \"verdict\": {\"answer\": %s, \"line\": %s, \"correct\": %s, \"as_fast\": %s, \"complete\": %s, \"missing\": %s,\n    \"per_compiler\": [", \
		j(ans), j(line), correct ? "true" : "false", (nfast ? (allfast ? "true" : "false") : "null"), missing == "" ? "true" : "false", j(missing) > f
	for (r = 1; r <= nrow; r++) {
		c = rowc[r]; i = rowi[c]
		printf "%s\n      {\"compiler\": %s, \"identical\": %s, \"same\": %s, \"better\": %s, \"worse\": %s, \"weaker\": %s, \"ratio_geomean\": %s, \"worst_op\": %s, \"worst_ratio\": %s, \"workloads_geomean\": %s}", \
			(r > 1 ? "," : ""), j(c), i ? cgid[i] : "null", i ? cgsm[i] : "null", i ? cgbt[i] : "null", i ? cgws[i] : "null", i ? cgwk[i] : "null", \
			(c in bon ? sprintf("%.4f", rg[c]) : "null"), (c in bon ? j(bown[c]) : "null"), (c in bon ? bow[c] : "null"), (c in bwn ? sprintf("%.4f", exp(bws[c] / bwn[c])) : "null") > f
	}
	if (!havegcc && ("gcc" in miss)) printf "%s\n      {\"compiler\": \"gcc\", \"note\": %s}", nrow ? "," : "", j(miss["gcc"]) > f
	if (!havecl && ("clang" in miss)) printf "%s\n      {\"compiler\": \"clang\", \"note\": %s}", (nrow || !havegcc && ("gcc" in miss)) ? "," : "", j(miss["clang"]) > f
	printf "],\n    \"losses\": [" > f
	for (i = 1; i <= nloss; i++)
		printf "%s\n      {\"kind\": %s, \"what\": %s, \"compilers\": %s, \"probes\": %d, \"examples\": %s, \"verdict\": %s, \"cost\": %s, \"why\": %s}", \
			(i > 1 ? "," : ""), j(lw[i]), j(lwhat[i]), j(lcomp[i]), lcnt[i], j(lprobes[i]), j(lv[i]), j(ld[i]), j(lwhy[i]) > f
	printf "]}\n}\n" > f
	close(f)
	exit xrc
}
