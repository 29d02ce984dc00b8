# katomic report: facts from one `katomic-litmus --json` run (one test per
# line).  Variables: BACKEND, CC, RC (the runner's exit status), ITER.
#   LT     backend cc ok rc tests passed failed forbidden weak_seen weak_tests
#          notseen skipped errors iterations
#   LTT    backend cc name expected verdict observation positive negative iterations file
#   LTBAD  backend cc name verdict reason   (FAIL, ERROR, SKIP, parse error)
# forbidden = runs that showed a state the test forbids (exists with Never:
# positive; forall/Always: negative); weak_seen = tests expected Sometimes
# whose condition was witnessed.
function jstr(s, key,    i, r, c) {
	i = index(s, "\"" key "\":\"")
	if (!i) return ""
	s = substr(s, i + length(key) + 4)
	r = ""
	while (length(s)) {
		c = substr(s, 1, 1)
		if (c == "\\") { r = r substr(s, 2, 1); s = substr(s, 3); continue }
		if (c == "\"") break
		r = r c; s = substr(s, 2)
	}
	gsub(/\t/, " ", r)
	return r
}
function jnum(s, key,    i) {
	i = index(s, "\"" key "\":")
	if (!i) return 0
	s = substr(s, i + length(key) + 3)
	match(s, /^-?[0-9.]+/)
	return RSTART ? substr(s, 1, RLENGTH) + 0 : 0
}
BEGIN { OFS = "\t" }
/^\{"file":/ {
	tests++
	name = jstr($0, "name"); if (name == "") name = jstr($0, "file")
	v = jstr($0, "verdict"); ex = jstr($0, "expected")
	pos = jnum($0, "positive"); neg = jnum($0, "negative"); it = jnum($0, "iterations")
	if (v == "PASS" || v == "not seen") passed++
	if (v == "not seen") notseen++
	if (v == "FAIL") failed++
	if (v == "SKIP") skipped++
	if (v == "ERROR" || v == "parse error") errors++
	if (v == "PASS" || v == "not seen" || v == "FAIL") {
		if (ex == "Never") forbidden += pos
		else if (ex == "Always") forbidden += neg
		else if (ex == "Sometimes") { wt++; if (pos > 0) ws++ }
		iters += it
		print "LTT", BACKEND, CC, name, ex, v, jstr($0, "observation"), pos, neg, it, jstr($0, "file")
	}
	if (v != "PASS" && v != "not seen") {
		r = jstr($0, "reason"); if (r == "") r = jstr($0, "error")
		if (v == "FAIL") r = "expected " ex ", observed " jstr($0, "observation") " (" pos " positive, " neg " negative)"
		print "LTBAD", BACKEND, CC, name, v, r
	}
}
END {
	print "LT", BACKEND, CC, "ok", RC, tests + 0, passed + 0, failed + 0, forbidden + 0, ws + 0, wt + 0, \
		notseen + 0, skipped + 0, errors + 0, ITER
}
