# Renders bench.csv (katomic-bench --csv) as the Markdown tables of
# bench/README.md's results section:
#   1. C11/asm per op and mode, one table per compiler pair (c11-gcc/asm-gcc,
#      c11-clang/asm-clang): median (min-max) of the per-round ratios,
#      **bold** outside the band lo..hi (default 0.97..1.03);
#   2. the same for the workloads, oversubscribed points marked and not judged;
#   3. peers: peer ns/op / katomic c11 ns/op (median), solo and shared;
#   4. uncontended (solo) katomic / raw instruction (median).
# Fields (see the CSV header): 1 kind, 2 name, 3 mode, 4 threads,
# 5 contender, 16-18 ratio_asm, 19 ratio_raw_med, 27 oversub, 28 ratio_c11_med.
#   awk -f tools/bench/results-md.awk build/bench/bench.csv
BEGIN {
	FS = ","
	if (lo == "") lo = 0.97
	if (hi == "") hi = 1.03
	nm = split("solo shared own false", modes, " ")
	np = split("urcu ck ao std-gcc std-clang libc", peers, " ")
}
NR == 1 { next }
{
	key = $2 SUBSEP $3 SUBSEP $4
	if ($1 == "op" && !($2 in seenop)) { seenop[$2] = 1; ops[++nops] = $2 }
	if ($1 == "workload" && !(($2 "/" $4) in seenwl)) {
		seenwl[$2 "/" $4] = 1; wls[++nwl] = $2 SUBSEP $4; over[$2 SUBSEP $4] = $27
	}
	if ($16 != "") ra[$5, key] = sprintf("%.2f (%.2f-%.2f)", $16, $17, $18)
	if ($16 != "") rmed[$5, key] = $16 + 0
	if ($19 != "") rraw[$5, key] = $19 + 0
	if ($28 != "") rc11[$5, key] = $28 + 0
	if ($26 == "n/a") na[$5, key] = 1
	have[$5] = 1
}
function cell(c, key, judged) {
	if (!((c, key) in ra)) return ((c, key) in na) ? "n/a" : "-"
	if (judged && (rmed[c, key] < lo || rmed[c, key] > hi)) { nout[c]++; return "**" ra[c, key] "**" }
	return ra[c, key]
}
function optable(c,    i, m, key) {
	printf "\n%s / %s, per op (median (min-max) of the per-round ratios; **bold** = outside %.2f-%.2f)\n\n", c, ref[c], lo, hi
	printf "| op | solo | shared | own | false |\n|---|---|---|---|---|\n"
	for (i = 1; i <= nops; i++) {
		printf "| %s |", ops[i]
		for (m = 1; m <= nm; m++) {
			key = ops[i] SUBSEP modes[m] SUBSEP (modes[m] == "solo" ? 1 : thr)
			printf " %s |", cell(c, key, 1)
		}
		printf "\n"
	}
}
END {
	# the contended modes' thread count: whatever the shared rows say
	for (k in ra) { split(k, f, SUBSEP); if (f[3] == "shared") { thr = f[4]; break } }
	ref["c11-gcc"] = "asm-gcc"; ref["c11-clang"] = "asm-clang"
	if ("c11-gcc" in have) optable("c11-gcc")
	if ("c11-clang" in have) optable("c11-clang")

	printf "\nWorkloads, C11/asm (oversub = more threads than CPUs: shown, not judged)\n\n"
	printf "| workload/threads | c11-gcc / asm-gcc | c11-clang / asm-clang |\n|---|---|---|\n"
	for (i = 1; i <= nwl; i++) {
		split(wls[i], f, SUBSEP)
		key = f[1] SUBSEP "threads" SUBSEP f[2]
		printf "| %s/%s%s | %s | %s |\n", f[1], f[2], over[wls[i]] ? " oversub" : "",
			cell("c11-gcc", key, !over[wls[i]]), cell("c11-clang", key, !over[wls[i]])
	}
	printf "\nOutside the band (judged figures): gcc %d, clang %d\n", nout["c11-gcc"], nout["c11-clang"]

	printf "\nPeers: peer ns/op / katomic c11 ns/op (std-clang against c11-clang, the others against c11-gcc), median, solo / shared; >1 = the peer pays more\n\n| op |"
	for (p = 1; p <= np; p++) if (peers[p] in have) printf " %s |", peers[p]
	printf "\n|---|"
	for (p = 1; p <= np; p++) if (peers[p] in have) printf "---|"
	printf "\n"
	for (i = 1; i <= nops; i++) {
		printf "| %s |", ops[i]
		for (p = 1; p <= np; p++) {
			if (!(peers[p] in have)) continue
			s = ""
			for (m = 1; m <= 2; m++) {
				key = ops[i] SUBSEP modes[m] SUBSEP (m == 1 ? 1 : thr)
				s = s (m > 1 ? " / " : "") (((peers[p], key) in rc11) ? sprintf("%.2f", rc11[peers[p], key]) : "n/a")
			}
			printf " %s |", s == "n/a / n/a" ? "n/a" : s
		}
		printf "\n"
	}
	for (i = 1; i <= nwl; i++) {
		split(wls[i], f, SUBSEP)
		key = f[1] SUBSEP "threads" SUBSEP f[2]
		printf "| %s/%s%s |", f[1], f[2], over[wls[i]] ? " oversub" : ""
		for (p = 1; p <= np; p++)
			if (peers[p] in have)
				printf " %s |", ((peers[p], key) in rc11) ? sprintf("%.2f", rc11[peers[p], key]) : "n/a"
		printf "\n"
	}

	printf "\nUncontended (solo): katomic / raw instruction, median\n\n| op | asm-gcc | c11-gcc | asm-clang | c11-clang |\n|---|---|---|---|---|\n"
	split("asm-gcc c11-gcc asm-clang c11-clang", kc, " ")
	for (i = 1; i <= nops; i++) {
		key = ops[i] SUBSEP "solo" SUBSEP 1
		printf "| %s |", ops[i]
		for (k = 1; k <= 4; k++)
			printf " %s |", ((kc[k], key) in rraw) ? sprintf("%.2f", rraw[kc[k], key]) : "n/a"
		printf "\n"
	}
}
