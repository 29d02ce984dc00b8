#!/bin/sh
# katomic bench [options]: per-op and workload benchmarks, katomic's backends
# vs liburcu, ck, libatomic_ops, <stdatomic.h>, glibc and the raw instruction,
# all in one run (build/katomic-bench; method in bench/driver.c).
#
#   --quick          a subset of ops and modes, 5 rounds, short samples (< 1 minute)
#   --out DIR        where the results go (default $KATOMIC_BUILD/bench)
#   --filter PATS    ops/workloads: comma-separated names, globs or substrings
#   --json           also write DIR/bench.json
#   --no-plots       skip gnuplot
#   --aa             A/A control: the c11-* contenders built from the asm backend
#                    too (identical code at other addresses): the noise floor
#   --no-up          skip the uniprocessor lock elision benchmark (build/up-patch:
#                    locked vs patched, asm and C11 after katomic uplocks; it is
#                    also skipped when --filter does not name "up")
#   anything else is passed to katomic-bench (--rounds N, --modes LIST,
#   --contenders PATS, --threads N, --ms MS, --wl-ms MS, --list, --check; --help)
#
# Writes DIR/table.txt (also on stdout; the "== up:" table last), DIR/up.json, DIR/bench.csv (one line per op x
# mode x contender: median/min/max ns/op, Mops/s, cycles estimate, ratios to
# katomic asm and to the raw instruction, fairness), DIR/samples.csv (every
# round), and with gnuplot DIR/ratio-MODE.{png,svg} (per-op ratio bars) and
# DIR/wl-NAME.{png,svg} (throughput vs threads).
set -u
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${KATOMIC_BUILD:-$root/build}
out=$build/bench
json=0 plots=1 passthru=0 aa=0 up=1 quick=

die() { echo "katomic bench: $*" >&2; exit 2; }

n=$#
while [ "$n" -gt 0 ]; do
	a=$1; shift; n=$((n - 1))
	case $a in
	--out|--filter)
		[ "$n" -gt 0 ] || die "$a needs a value"
		v=$1; shift; n=$((n - 1))
		if [ "$a" = --out ]; then out=$v; else
			set -- "$@" --filter "$v"
			case $v in *up*) ;; *) up=0 ;; esac
		fi ;;
	--out=*) out=${a#--out=} ;;
	--json) json=1 ;;
	--no-plots) plots=0 ;;
	--aa) aa=1 ;;
	--no-up) up=0 ;;
	--quick) quick=--quick; set -- "$@" "$a" ;;
	-h|--help)
		sed -n '2,24s/^# \{0,1\}//p' "$0"
		exit 0 ;;
	--list|--check) passthru=1; set -- "$@" "$a" ;;
	*) set -- "$@" "$a" ;;
	esac
done

if [ "$aa" = 1 ]; then
	make -s -C "$root" -f bench/bench.mk BUILD="$build" bench-aa >&2 || die "build failed"
	bin=$build/katomic-bench-aa
	[ -x "$bin" ] || die "no A/A control on this machine (x86-64 only)"
else
	make -s -C "$root" -f bench/bench.mk BUILD="$build" bench >&2 || die "build failed"
	bin=$build/katomic-bench
fi
[ "$passthru" = 1 ] && exec "$bin" "$@"

mkdir -p "$out" && rm -f "$out/gnuplot.log" "$out/up.json" || die "cannot create $out"
# Uniprocessor lock elision first (pinned to one CPU, about 20 s; --quick 3 s).
if [ "$up" = 1 ] && [ -x "$build/up-patch" ]; then
	"$build/up-patch" $quick --json "$out/up.json" > "$out/up.txt" || die "up-patch failed (see $out/up.txt)"
	set -- "$@" --up-json "$out/up.json"
elif [ "$up" = 1 ]; then
	echo "katomic bench: no uniprocessor lock elision benchmark here (x86-64 and python3 only)" >&2
fi
if [ "$json" = 1 ]; then set -- "$@" --json "$out/bench.json"; fi
"$bin" "$@" --csv "$out/bench.csv" --samples "$out/samples.csv" > "$out/table.txt"
rc=$?
[ -f "$out/up.json" ] && cat "$out/up.txt" >> "$out/table.txt"
cat "$out/table.txt"
[ "$rc" = 0 ] || exit "$rc"

# ------------------------------------------------------------------ plots
if [ "$plots" = 0 ]; then
	exit 0
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "katomic bench: gnuplot not installed: no plots (apt-get install gnuplot-nox)" >&2
	exit 0
fi
png=png
gnuplot -e 'set terminal' 2>/dev/null | grep -q pngcairo && png=pngcairo
csv=$out/bench.csv

# Per-op ratio bars, one chart per mode: rows = ops, columns = contenders
# (ratio of median ns/op to katomic asm; the asm columns are 1 by definition).
for mode in $(awk -F, 'NR > 1 && $1 == "op" { print $3 }' "$csv" | awk '!s[$0]++'); do
	dat=$out/ratio-$mode.dat
	awk -f "$root/tools/bench/pivot.awk" -v kind=op -v sel=3 -v want="$mode" -v row=2 -v val=16 \
		-v skipf=5 -v skipre='^asm-' -v head=op "$csv" > "$dat"
	ncol=$(head -1 "$dat" | awk '{ print NF }')
	nops=$(($(wc -l < "$dat") - 1))
	[ "$nops" -gt 0 ] || continue
	width=$((300 + nops * 70))
	for fmt in png svg; do
		if [ $fmt = png ]; then term="$png noenhanced size $width,520"; else term="svg noenhanced size $width,520"; fi
		gnuplot 2>>"$out/gnuplot.log" <<EOF || echo "katomic bench: gnuplot failed on $dat (see $out/gnuplot.log)" >&2
set terminal $term
set output '$out/ratio-$mode.$fmt'
set title "per-op cost relative to katomic asm backend, mode '$mode' (median of per-round ratios; log scale; n/a = no bar)"
set datafile missing '-'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y 2
set yrange [0.25:32]
set ytics (0.25, 0.5, 1, 2, 4, 8, 16, 32)
set grid ytics
set xtics rotate by -40 scale 0
set key outside right top
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 dt 2 front
plot for [i=2:$ncol] '$dat' using i:xtic(1) title columnheader(i)
EOF
	done
done

# Workloads: throughput (Mops/s, median) against threads, one line per contender.
for wl in $(awk -F, 'NR > 1 && $1 == "workload" { print $2 }' "$csv" | awk '!s[$0]++'); do
	dat=$out/wl-$wl.dat
	awk -f "$root/tools/bench/pivot.awk" -v kind=workload -v sel=2 -v want="$wl" -v row=4 -v val=12 \
		-v skipf=26 -v skipre='^n/a$' -v head=threads "$csv" > "$dat"
	ncol=$(head -1 "$dat" | awk '{ print NF }')
	[ "$ncol" -gt 1 ] || continue
	for fmt in png svg; do
		if [ $fmt = png ]; then term="$png noenhanced size 800,500"; else term="svg noenhanced size 800,500"; fi
		gnuplot 2>>"$out/gnuplot.log" <<EOF || echo "katomic bench: gnuplot failed on $dat (see $out/gnuplot.log)" >&2
set terminal $term
set output '$out/wl-$wl.$fmt'
set title "workload '$wl': throughput vs threads (median Mops/s; threads > CPUs = oversubscribed)"
set datafile missing '-'
set xlabel 'threads'
set ylabel "Mops/s, all threads (log scale)"
set logscale y 10
set xtics 1
set grid
set key outside right top
plot for [i=2:$ncol] '$dat' using 1:i with linespoints lw 2 title columnheader(i)
EOF
	done
done
echo "katomic bench: results in $out (table.txt, bench.csv, samples.csv$([ "$json" = 1 ] && echo ', bench.json'), plots)" >&2
