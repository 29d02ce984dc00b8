# katomic report: the report's own charts.  Reads logs/facts.tsv, writes the
# data files OUT/plot-*.dat and prints a gnuplot script on stdout:
#   plot-c11-vs-asm.png  C11/asm per op (and workload, threads <= CPUs) and
#                        compiler: median bar, min..max error bar, log scale
#   plot-codegen.png     codegen verdicts per compiler x target, as shares
# Variables: OUT, TERM (gnuplot terminal: pngcairo or png).
BEGIN { FS = "\t" }
$1 == "B" && $2 == "cpus" { cpus = $3 + 0 }
$1 == "M" && $2 == "cpus" && !cpus { cpus = $3 + 0 }
$1 == "BOP" && $11 == "ok" {
	l = $2
	if ($4 == "workload" && cpus && $7 + 0 > cpus) next
	cell = $4 == "op" ? $5 "/" $6 : $5 "/" $7 "t"
	if (!(l in li)) { nl++; li[l] = nl; ln[nl] = l }
	if (!(cell in ci)) { nc++; ci[cell] = nc; cn[nc] = cell }
	med[cell, l] = $8; lo[cell, l] = $9; hi[cell, l] = $10
	if ($9 + 0 > 0 && $9 + 0 < ymin) ymin = $9 + 0
	if ($10 + 0 > ymax) ymax = $10 + 0
}
$1 == "CGROW" { ng++; g[ng] = $3 " " $2; gv[ng] = $5 "\t" $6 "\t" $7 "\t" $8 "\t" $9 "\t" $10 "\t" $11 }
BEGIN { ymin = 1; ymax = 1 }
END {
	if (nc && nl) {
		d = OUT "/plot-c11-vs-asm.dat"
		printf "# cell" > d
		for (k = 1; k <= nl; k++) printf "\t%s\tmin\tmax", ln[k] > d
		printf "\n" > d
		for (i = 1; i <= nc; i++) {
			printf "%s", cn[i] > d
			for (k = 1; k <= nl; k++)
				if ((cn[i], ln[k]) in med) printf "\t%s\t%s\t%s", med[cn[i], ln[k]], lo[cn[i], ln[k]], hi[cn[i], ln[k]] > d
				else printf "\t-\t-\t-" > d
			printf "\n" > d
		}
		close(d)
		# 0.5..2, widened to 0.25..4 when a median or a min/max needs it (longer bars are clipped)
		lo2 = ymin < 0.5 ? 0.25 : 0.5; hi2 = ymax > 2 ? 4 : 2
		w = 300 + nc * (22 + 12 * nl); if (w < 800) w = 800; if (w > 2000) w = 2000
		printf "set terminal %s noenhanced size %d,480 font ',11'\n", TERM, w
		printf "set output '%s/plot-c11-vs-asm.png'\n", OUT
		printf "set title \"C11 / asm per op (mode) and workload (threads <= CPUs): median of per-round ratios, bar = min..max; < 1 = C11 faster\"\n"
		printf "set datafile separator '\\t'\nset datafile missing '-'\nset style data histograms\n"
		printf "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.7 border -1\nset boxwidth 0.9\nset bars front\n"
		printf "set logscale y 2\nset yrange [%g:%g]\nset ytics (0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4)\nset grid ytics\nset xtics rotate by -40 scale 0\nset key outside right top\n", lo2, hi2
		printf "set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 front\n"
		printf "plot "
		for (k = 1; k <= nl; k++)
			printf "%s'%s' using %d:%d:%d%s title '%s'", (k > 1 ? ", " : ""), d, 3 * k - 1, 3 * k, 3 * k + 1, (k == 1 ? ":xtic(1)" : ""), ln[k]
		printf "\nunset arrow\nunset logscale y\nunset yrange\n"
	}
	if (ng) {
		d = OUT "/plot-codegen.dat"
		printf "# config\tidentical\tsame cost\tbetter\tworse\tWEAKER\tn/a\tprobes\n" > d
		for (i = 1; i <= ng; i++) printf "%s\t%s\n", g[i], gv[i] > d
		close(d)
		w = 300 + ng * 42; if (w < 800) w = 800
		printf "set terminal %s noenhanced size %d,560 font ',11'\n", TERM, w
		printf "set output '%s/plot-codegen.png'\n", OUT
		printf "set title 'codegen: C11 verdict per probe, per target and compiler (x86_64: vs the asm backend; others: vs the kernel sequence)'\n"
		printf "set datafile separator '\\t'\nset style data histograms\nset style histogram rowstacked\nset style fill solid 0.85 border -1\n"
		printf "set boxwidth 0.75\nset yrange [0:100]\nset ytics 0,20,100\nset ylabel '%% of probes'\nset grid ytics\nset xtics rotate by -40 scale 0\nset key outside right top\n"
		printf "plot '%s' using (100*$2/$8):xtic(1) title 'identical' lc rgb '#2e8b57', '' using (100*$3/$8) title 'same cost' lc rgb '#9acd32', ", d
		printf "'' using (100*$4/$8) title 'better' lc rgb '#4682b4', '' using (100*$5/$8) title 'worse' lc rgb '#f0a030', "
		printf "'' using (100*$6/$8) title 'WEAKER' lc rgb '#d62728', '' using (100*$7/$8) title 'n/a' lc rgb '#c8c8c8'\n"
	}
}
