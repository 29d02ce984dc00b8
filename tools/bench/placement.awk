# Reads `nm -S` of build/katomic-bench; prints one TAP line (without its
# number): every benchmark kernel (kb_k_*, not gcc's .cold parts) must start
# on a 64-byte line and end in the 4 KiB page it starts in, as bench/bench.mk
# arranges (-falign-functions=512, kernels < 512 bytes), so identical code
# sits identically in every contender.
function hex(s,    i, c, v) {
	v = 0
	s = tolower(s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1))
		if (!c) return -1
		v = v * 16 + c - 1
	}
	return v
}
NF == 4 && $4 ~ /^kb_k_/ && $4 !~ /\./ {
	n++
	a = hex($1); z = hex($2)
	if (a < 0 || z <= 0 || a % 64 || int(a / 4096) != int((a + z - 1) / 4096)) {
		bad++
		if (bad <= 3) why = why " " $4 "@" $1 "+" $2
	}
}
END {
	if (!n)
		print "not ok - kernel placement: no kb_k_* symbols (stripped?)"
	else if (bad)
		printf "not ok - kernel placement: %d of %d kernels off a line or across a page:%s\n", bad, n, why
	else
		printf "ok - kernel placement: %d kernels, each on a 64-byte line and within one 4 KiB page\n", n
}
