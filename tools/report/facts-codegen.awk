# katomic report: facts from the codegen audit's results.tsv (tab-separated:
# compiler target probe class verdict reason c11_insns ref_insns c11 ref).
#   CGROW   compiler target reference identical same better worse weaker na probes
#   CGLOSS  target compiler probe verdict reason c11_insns ref_insns
#   CGX     compiler target probe verdict reason   (probes named in MAP, for the bench)
BEGIN {
	FS = OFS = "\t"
	while ((getline line < MAP) > 0) {
		if (line ~ /^#/ || line == "") continue
		split(line, f, "\t")
		n = split(f[2], p, " ")
		for (i = 1; i <= n; i++) want["probe_" p[i]] = 1
	}
	close(MAP)
}
NF >= 8 {
	k = $1 SUBSEP $2
	if (!(k in seen)) { seen[k] = 1; order[++nk] = k; cc[nk] = $1; tg[nk] = $2 }
	v = $5
	if (v == "identical") id[k]++
	else if (v == "same") sm[k]++
	else if (v == "better") bt[k]++
	else if (v == "worse") ws[k]++
	else if (v == "WEAKER") wk[k]++
	else na[k]++
	tot[k]++
	probe = $3; sub(/^probe_/, "", probe)
	if (v == "worse" || v == "WEAKER")
		print "CGLOSS", $2, $1, probe, v, $6, $7, $8
	if ($3 in want)
		print "CGX", $1, $2, probe, v, $6
}
END {
	for (i = 1; i <= nk; i++) {
		k = order[i]
		print "CGROW", cc[i], tg[i], (tg[i] == "x86_64" ? "asm backend" : "kernel sequence"), \
			id[k] + 0, sm[k] + 0, bt[k] + 0, ws[k] + 0, wk[k] + 0, na[k] + 0, tot[k] + 0
	}
}
