# Turns results.tsv (verdict.awk) into OUT/codegen.md, OUT/codegen.html and
# OUT/codegen.json, and prints a summary table (or, with JSON=1, the JSON).
# Rows: cc target probe class verdict reason c11_n ref_n c11_seq ref_seq

function esc_html(s0,    s) { s = s0 ""; gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
function esc_json(s0,    s) { s = s0 ""; gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, " ", s); return "\"" s "\"" }
function esc_md(s0,    s) { s = s0 ""; gsub(/\|/, "\\|", s); return s }
function short(v) { return v == "identical" ? "=" : v == "same" ? "~" : v == "better" ? "+" : v == "worse" ? "-" : v == "WEAKER" ? "W" : "." }
function bucket(v) { return (v == "identical" || v == "same") ? "same" : v == "n/a" ? "na" : v }

BEGIN { FS = "\t" }
{
	k = $1 "/" $2
	if (!(k in CFG)) { CFG[k] = ++NC; CN[NC] = k; CCC[NC] = $1; CT[NC] = $2 }
	if (!($3 in PR)) { PR[$3] = ++NP; PN[NP] = $3; PC[NP] = $4 }
	c = CFG[k]; p = PR[$3]
	V[c, p] = $5; R[c, p] = $6; CNN[c, p] = $7; RNN[c, p] = $8; CS[c, p] = $9; RQ[c, p] = $10
	CNT[c, bucket($5)]++
	NR_ROWS++
}
END {
	md = OUT "/codegen.md"; html = OUT "/codegen.html"; js = OUT "/codegen.json"

	# ---------------- stdout summary
	if (!JSON) {
		printf "%-10s %-20s %5s %6s %5s %6s %4s\n", "compiler", "target", "same", "better", "worse", "WEAKER", "n/a"
		for (c = 1; c <= NC; c++)
			printf "%-10s %-20s %5d %6d %5d %6d %4d\n", CCC[c], CT[c] (CT[c] == "x86_64" ? " (vs asm)" : " (vs kernel)"),
				CNT[c, "same"], CNT[c, "better"], CNT[c, "worse"], CNT[c, "WEAKER"], CNT[c, "na"]
	}

	# ---------------- markdown
	print "# katomic codegen audit\n" > md
	print "C11 backend vs the reference, per probe (one function per public API name, " OPT ")." > md
	print "x86-64: the reference is the asm backend built by the same compiler; other targets: the kernel's" > md
	print "own sequence for the probe's ordering class (tools/codegen/kernel-seq.tbl).  Verdicts: identical" > md
	print "(same instructions), same (same counts), better, worse, WEAKER (the ordering the kernel class" > md
	print "requires is missing: a correctness bug), n/a (no kernel counterpart).\n" > md
	print "## Summary\n" > md
	print "| compiler | target | reference | identical+same | better | worse | WEAKER | n/a |" > md
	print "|---|---|---|---|---|---|---|---|" > md
	for (c = 1; c <= NC; c++)
		printf "| %s | %s | %s | %d | %d | %d | %d | %d |\n", CCC[c], CT[c], CT[c] == "x86_64" ? "asm backend" : "kernel class",
			CNT[c, "same"], CNT[c, "better"], CNT[c, "worse"], CNT[c, "WEAKER"], CNT[c, "na"] > md
	print "\n## WEAKER than the kernel (correctness)\n" > md
	nw = 0
	for (c = 1; c <= NC; c++) for (p = 1; p <= NP; p++) if (V[c, p] == "WEAKER") {
		nw++; printf "- **%s** %s/%s (%s): %s — `%s`\n", PN[p], CCC[c], CT[c], PC[p], R[c, p], esc_md(CS[c, p]) > md
	}
	if (!nw) print "None." > md
	print "\n## Where C11 loses\n" > md
	print "| probe | compiler/target | C11 insns | ref insns | reason |" > md
	print "|---|---|---|---|---|" > md
	for (c = 1; c <= NC; c++) for (p = 1; p <= NP; p++) if (V[c, p] == "worse")
		printf "| %s | %s/%s | %s | %s | %s |\n", PN[p], CCC[c], CT[c], CNN[c, p], RNN[c, p], esc_md(R[c, p]) > md
	print "\n## Matrix\n" > md
	print "`=` identical, `~` same cost, `+` better, `-` worse, `W` WEAKER, `.` n/a, blank: not built.\n" > md
	hdr = "| probe |"; sep = "|---|"
	for (c = 1; c <= NC; c++) { hdr = hdr " " c " |"; sep = sep "---|" }
	for (c = 1; c <= NC; c++) printf "%s%d = %s", (c > 1 ? ", " : "Columns: "), c, CN[c] > md
	print "\n\n" hdr "\n" sep > md
	for (p = 1; p <= NP; p++) {
		line = "| " PN[p] " |"
		for (c = 1; c <= NC; c++) line = line " " (((c SUBSEP p) in V) ? short(V[c, p]) : " ") " |"
		print line > md
	}
	print "\n## Sequences where C11 is worse or WEAKER\n" > md
	for (p = 1; p <= NP; p++) {
		first = 1
		for (c = 1; c <= NC; c++) if (V[c, p] == "worse" || V[c, p] == "WEAKER") {
			if (first) { print "### " PN[p] " (" PC[p] ")\n" > md; first = 0 }
			x1 = esc_md(CS[c, p]); x2 = esc_md(RQ[c, p])
			printf "- %s/%s **%s** (%s)\n  - C11: `%s`\n  - ref: `%s`\n", CCC[c], CT[c], V[c, p], R[c, p], x1, x2 > md
		}
		if (!first) print "" > md
	}
	close(md)

	# ---------------- HTML
	print "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>katomic codegen audit</title><style>" > html
	print "body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 5px;font-size:12px}" > html
	print ".identical{background:#9e9}.same{background:#cfc}.better{background:#8cf}.worse{background:#f99}.WEAKER{background:#c00;color:#fff}.na{background:#eee}" > html
	print "code{font-size:11px}th.v{writing-mode:vertical-rl}td.s{font-family:monospace;font-size:11px;white-space:pre-wrap}</style></head><body>" > html
	print "<h1>katomic codegen audit</h1><p>C11 backend vs reference (" OPT "): on x86-64 the asm backend built by the same compiler, elsewhere the kernel's sequence for the ordering class. Colours: <span class=identical>identical</span> <span class=same>same cost</span> <span class=better>better</span> <span class=worse>worse</span> <span class=WEAKER>WEAKER</span> <span class=na>n/a</span>.</p>" > html
	print "<h2>Summary</h2><table><tr><th>compiler</th><th>target</th><th>same</th><th>better</th><th>worse</th><th>WEAKER</th><th>n/a</th></tr>" > html
	for (c = 1; c <= NC; c++)
		printf "<tr><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td class=%s>%d</td><td class=%s>%d</td><td>%d</td></tr>\n", CCC[c], CT[c],
			CNT[c, "same"], CNT[c, "better"], CNT[c, "worse"] ? "worse" : "same", CNT[c, "worse"],
			CNT[c, "WEAKER"] ? "WEAKER" : "same", CNT[c, "WEAKER"], CNT[c, "na"] > html
	print "</table><h2>Where C11 loses</h2><table><tr><th>probe</th><th>compiler/target</th><th>verdict</th><th>C11 insns</th><th>ref insns</th><th>reason</th></tr>" > html
	for (c = 1; c <= NC; c++) for (p = 1; p <= NP; p++) if (V[c, p] == "worse" || V[c, p] == "WEAKER")
		printf "<tr><td><a href=\"#%s\">%s</a></td><td>%s/%s</td><td class=%s>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", PN[p], PN[p], CCC[c], CT[c],
			V[c, p], V[c, p], CNN[c, p], RNN[c, p], esc_html(R[c, p]) > html
	print "</table><h2>Matrix: ops &times; compilers</h2><table><tr><th>probe</th>" > html
	for (c = 1; c <= NC; c++) printf "<th class=v>%s</th>", CN[c] > html
	print "</tr>" > html
	for (p = 1; p <= NP; p++) {
		printf "<tr><td><a href=\"#%s\">%s</a></td>", PN[p], PN[p] > html
		for (c = 1; c <= NC; c++)
			if ((c SUBSEP p) in V) printf "<td class=%s title=\"%s\">%s</td>", bucket(V[c, p]) == "na" ? "na" : V[c, p], esc_html(V[c, p] ": " R[c, p] " (" CNN[c, p] " vs " RNN[c, p] ")"), short(V[c, p]) > html
			else printf "<td></td>" > html
		print "</tr>" > html
	}
	print "</table><h2>Per-op sequences</h2>" > html
	for (p = 1; p <= NP; p++) {
		printf "<h3 id=\"%s\">%s <small>(%s)</small></h3><table><tr><th>compiler/target</th><th>verdict</th><th>C11</th><th>reference</th></tr>\n", PN[p], PN[p], PC[p] > html
		for (c = 1; c <= NC; c++) if ((c SUBSEP p) in V) {
			a = CS[c, p]; b = RQ[c, p]; gsub(/; /, "\n", a); gsub(/; /, "\n", b)
			x1 = esc_html(R[c, p]); x2 = esc_html(a); x3 = esc_html(b); x4 = bucket(V[c, p]) == "na" ? "na" : V[c, p]
			printf "<tr><td>%s</td><td class=%s>%s<br>%s</td><td class=s>%s</td><td class=s>%s</td></tr>\n", CN[c],
				x4, V[c, p], x1, x2, x3 > html
		}
		print "</table>" > html
	}
	print "</body></html>" > html
	close(html)

	# ---------------- JSON
	printf "{\n  \"opt\": %s,\n  \"summary\": [\n", esc_json(OPT) > js
	for (c = 1; c <= NC; c++) {
		x1 = esc_json(CCC[c]); x2 = esc_json(CT[c])
		printf "    {\"compiler\": %s, \"target\": %s, \"same\": %d, \"better\": %d, \"worse\": %d, \"weaker\": %d, \"na\": %d}%s\n",
			x1, x2, CNT[c, "same"], CNT[c, "better"], CNT[c, "worse"], CNT[c, "WEAKER"], CNT[c, "na"], c < NC ? "," : "" > js
	}
	printf "  ],\n  \"results\": [\n" > js
	n = 0
	for (c = 1; c <= NC; c++) for (p = 1; p <= NP; p++) if ((c SUBSEP p) in V) {
		x1 = esc_json(CCC[c]); x2 = esc_json(CT[c]); x3 = esc_json(PN[p]); x4 = esc_json(PC[p]); x5 = esc_json(V[c, p]); x6 = esc_json(R[c, p]); x7 = esc_json(CS[c, p]); x8 = esc_json(RQ[c, p])
		printf "%s    {\"compiler\": %s, \"target\": %s, \"probe\": %s, \"class\": %s, \"verdict\": %s, \"reason\": %s, \"c11_insns\": %s, \"ref_insns\": %s, \"c11\": %s, \"ref\": %s}",
			(n++ ? ",\n" : ""), x1, x2, x3, x4, x5, x6,
			CNN[c, p] == "-" ? "null" : CNN[c, p], RNN[c, p] == "-" ? "null" : RNN[c, p], x7, x8 > js
	}
	printf "\n  ]\n}\n" > js
	close(js)
	if (JSON) { while ((getline l < js) > 0) print l }
}
