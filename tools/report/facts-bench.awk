# katomic report: facts from `katomic bench --json`: bench.json (first file:
# machine figures and contenders) and bench.csv (second file: one line per
# kind,name,mode,threads,contender,...; column 16-18 = ratio to katomic asm
# median/min/max, 26 = status).
#   B    key value                 cpus, rounds, ghz, quick
#   BC   contender desc compiler label   (label: "gcc 12.2.0" -> gcc-12)
#   BOP  label contender kind name mode threads ratio_med ratio_min ratio_max status
#        for katomic's C11 contenders (c11-*), ratio = C11 ns/op / asm ns/op,
#        both built by the same compiler, measured in the same rounds
function jstr(s, key,    i) {
	i = index(s, "\"" key "\": \"")
	if (!i) return ""
	s = substr(s, i + length(key) + 5)
	return substr(s, 1, index(s, "\"") - 1)
}
function jnum(s, key,    i) {
	i = index(s, "\"" key "\": ")
	if (!i) return ""
	s = substr(s, i + length(key) + 4)
	match(s, /^[-0-9.a-z]+/)
	return substr(s, 1, RLENGTH)
}
BEGIN { OFS = "\t" }
FNR == 1 { file++ }
file == 1 && /"cpus":/ { print "B", "cpus", jnum($0, "cpus") }
file == 1 && /"rounds":/ { print "B", "rounds", jnum($0, "rounds") }
file == 1 && /"core_ghz_estimate":/ { print "B", "ghz", jnum($0, "core_ghz_estimate") }
file == 1 && /"quick":/ { print "B", "quick", jnum($0, "quick") }
file == 1 && /"desc":/ {
	n = jstr($0, "name"); c = jstr($0, "cc")
	split(c, w, " "); split(w[2], v, ".")
	label[n] = w[1] "-" v[1]
	print "BC", n, jstr($0, "desc"), c, label[n]
}
file == 2 && FNR > 1 {
	split($0, f, ",")
	if (f[5] !~ /^c11-/) next
	l = (f[5] in label) ? label[f[5]] : f[5]
	print "BOP", l, f[5], f[1], f[2], f[3], f[4], f[16], f[17], f[18], f[26]
}
