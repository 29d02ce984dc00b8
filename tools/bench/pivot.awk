# Pivots bench.csv into a gnuplot matrix: one row per distinct value of field
# `row`, one column per contender (field 5), each cell the value of field `val`
# ("-" where it is empty or absent).  Selects the rows whose field 1 is `kind`
# and whose field `sel` is `want`, leaving out those whose field `skipf`
# matches `skipre`.  `head` names the first column.
BEGIN { FS = "," }
NR == 1 { next }
$1 == kind && $sel == want && !($skipf ~ skipre) {
	if (!($5 in ci)) { ci[$5] = ++nc; cn[nc] = $5 }
	if (!($row in ri)) { ri[$row] = ++nr; rn[nr] = $row }
	v[$row, $5] = $val == "" ? "-" : $val
}
END {
	printf "%s", head; for (c = 1; c <= nc; c++) printf " %s", cn[c]; printf "\n"
	for (r = 1; r <= nr; r++) {
		printf "%s", rn[r]
		for (c = 1; c <= nc; c++) printf " %s", ((rn[r], cn[c]) in v) ? v[rn[r], cn[c]] : "-"
		printf "\n"
	}
}
