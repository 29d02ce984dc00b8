#!/bin/sh
# katomic report: is it time to move to C11 atomics, on this machine?
#   katomic report [--quick|--full] [--out DIR] [--litmus DIR]... [--skip LIST]
# Runs the three instruments one after the other and joins their answers:
#   codegen  the per-op code-generation audit, every installed compiler x target
#   litmus   tests/litmus (+ each --litmus DIR) on this CPU, c11 and asm backend
#   bench    the per-op and workload benchmarks, C11 vs asm side by side
# prints a progress line per stage on stderr and the verdict table on stdout,
# and writes DIR/REPORT.md, DIR/index.html (+ its plots, *.png), DIR/report.json
# and each instrument's own output in DIR/codegen, DIR/litmus, DIR/bench
# (logs in DIR/logs).
#   --quick        default: about three minutes on 2 cores (codegen --quick,
#                  200000 litmus iterations per test, bench --quick)
#   --full         everything: all clangs on the cross targets, 2000000
#                  iterations, harnesses by gcc and clang, the kernel's own
#                  litmus tests (../shared/litmus/lkmm) when present, full bench
#   --out DIR      where the report goes (default $KATOMIC_BUILD/report)
#   --litmus DIR   also run the .litmus files in DIR (repeatable)
#   --skip LIST    leave out stages: codegen,litmus,bench (their sections say so)
# Exit status: 0 report written; 1 report written, but a forbidden litmus
# outcome was observed or a native probe is WEAKER than the kernel;
# 2 usage error or an unwritable DIR.
set -u
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${KATOMIC_BUILD:-$root/build}
here=$root/tools/report
awk=${AWK:-awk}
export KATOMIC_ROOT=$root KATOMIC_BUILD=$build

die() { echo "katomic report: $*" >&2; exit 2; }
progress() { echo "katomic report: $*" >&2; }

mode=quick out=$build/report skip="" nl='
'
litdirs=""
while [ $# -gt 0 ]; do
	case $1 in
	--quick) mode=quick ;;
	--full) mode=full ;;
	--out|--litmus|--skip)
		[ $# -ge 2 ] || die "$1 needs a value (see --help)"
		case $1 in
		--out) out=$2 ;;
		--skip) skip=$(echo "$2" | tr ',' ' ') ;;
		--litmus)
			[ -d "$2" ] || [ -f "$2" ] || die "--litmus $2: no such file or directory"
			litdirs="$litdirs$(cd "$(dirname "$2")" && pwd)/$(basename "$2")$nl" ;;
		esac
		shift ;;
	--out=*) out=${1#--out=} ;;
	--litmus=*)
		d=${1#--litmus=}
		[ -d "$d" ] || [ -f "$d" ] || die "--litmus $d: no such file or directory"
		litdirs="$litdirs$(cd "$(dirname "$d")" && pwd)/$(basename "$d")$nl" ;;
	-h|--help) sed -n '2,24s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
for s in $skip; do
	case $s in codegen|litmus|bench) ;; *) die "--skip: unknown stage '$s' (codegen, litmus, bench)" ;; esac
done
skipped() { case " $skip " in *" $1 "*) return 0 ;; esac; return 1; }

# ---- the output directory must be writable: one line naming it, exit 2
if ! mkdir -p "$out" 2>/dev/null || [ ! -d "$out" ] || [ ! -w "$out" ] ||
	! probe=$(mktemp "$out/.katomic-report.XXXXXX" 2>/dev/null); then
	die "cannot write to output directory '$out'"
fi
rm -f "$probe"
out=$(cd "$out" && pwd)
logs=$out/logs
mkdir -p "$logs" "$out/litmus" || die "cannot write to output directory '$out'"
facts=$out/logs/facts.tsv
: >"$facts"
rm -f "$out"/REPORT.md "$out"/index.html "$out"/report.json "$out"/plot-*.png "$out"/plot-*.svg "$out"/plot-*.dat

# one record of facts: kind, then fields (tabs and newlines in a field become spaces)
fact() {
	{ printf '%s' "$1"; shift
	  for f in "$@"; do printf '\t%s' "$(printf '%s' "$f" | tr '\t\n' '  ')"; done
	  printf '\n'; } >>"$facts"
}
now() { date +%s; }
t_start=$(now)

# ---------------------------------------------------------------- machine
arch=$(uname -m)
cpu=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$cpu" ] || cpu=unknown
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
osname=$(sed -n 's/^PRETTY_NAME="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' /etc/os-release 2>/dev/null | head -n 1)
version=$(sed -n 's/^#define KATOMIC_VERSION "\(.*\)"/\1/p' "$root/include/katomic/katomic.h" 2>/dev/null)
rev=$(git -C "$root" describe --always --dirty 2>/dev/null || echo -)
fact M mode "$mode"
fact M date "$(date '+%Y-%m-%d %H:%M %Z')"
fact M arch "$arch"
fact M cpu "$cpu"
fact M cpus "$ncpu"
fact M kernel "$(uname -sr)"
fact M os "${osname:-unknown}"
fact M load "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo -)"
fact M katomic "${version:-?} ($rev)"
ccs=""
for c in $(for d in $(echo "$PATH" | tr ':' ' '); do ls "$d" 2>/dev/null; done |
	grep -E '^(gcc|clang)(-[0-9]+)?$' | sort -u); do
	command -v "$c" >/dev/null 2>&1 || continue
	v=$("$c" -dumpversion 2>/dev/null | head -n 1)
	ccs="$ccs $c"
	fact CC "$c" "${v:-?}" "$(readlink -f "$(command -v "$c")")"
done
case " $ccs" in *" clang"*) ;; *) fact MISSING clang clang "not installed (apt-get install clang)" ;; esac
case " $ccs" in *" gcc"*) ;; *) fact MISSING gcc gcc "not installed (apt-get install gcc)" ;; esac
if command -v gnuplot >/dev/null 2>&1; then have_gnuplot=1; else
	have_gnuplot=0; fact MISSING gnuplot gnuplot "not installed: no plots (apt-get install gnuplot-nox)"; fi
progress "$mode run on $arch, $ncpu CPUs, into $out"

# Stage parameters
if [ "$mode" = full ]; then
	cg_opts="" lt_iter=2000000 lt_timeout=600 bench_opts=""
	lt_ccs="gcc clang"
else
	cg_opts=--quick lt_iter=200000 lt_timeout=120 bench_opts=--quick
	lt_ccs=gcc
fi

# ---------------------------------------------------------------- 1. codegen
stage_codegen() {
	if skipped codegen; then fact S codegen skipped "left out with --skip codegen"; progress "[1/3] codegen: skipped (--skip)"; return; fi
	t0=$(now)
	progress "[1/3] codegen: compiling the probes with every installed compiler x target ($mode)..."
	# shellcheck disable=SC2086
	sh "$root/tools/codegen/codegen.sh" $cg_opts --out "$out/codegen" >"$logs/codegen.out" 2>"$logs/codegen.log"
	rc=$?
	grep '^note:' "$logs/codegen.log" | sed 's/^note: //' | while IFS= read -r n; do fact CGSKIP "$n"; done
	if [ "$rc" -ne 0 ] || [ ! -s "$out/codegen/results.tsv" ]; then
		fact S codegen failed "katomic codegen exited with status $rc: $(grep -v '^  done' "$logs/codegen.log" | tail -n 1) (log: logs/codegen.log)"
		progress "[1/3] codegen: FAILED (status $rc), see $logs/codegen.log"
		return
	fi
	$awk -F'\t' -v MAP="$here/bench-probes.tbl" -f "$here/facts-codegen.awk" "$out/codegen/results.tsv" >>"$facts" ||
		{ fact S codegen failed "could not read codegen results"; return; }
	fact S codegen ok "$(($(now) - t0)) s"
	progress "[1/3] codegen: done in $(($(now) - t0)) s ($(grep -c '^CGROW' "$facts") compiler x target configurations, $(grep -c '^CGSKIP' "$facts") skipped)"
}

# ---------------------------------------------------------------- 2. litmus
stage_litmus() {
	if skipped litmus; then fact S litmus skipped "left out with --skip litmus"; progress "[2/3] litmus: skipped (--skip)"; return; fi
	t0=$(now)
	dirs=$root/tests/litmus$nl$litdirs
	lkmm=$(cd "$root/.." && pwd)/shared/litmus/lkmm
	if [ "$mode" = full ]; then
		if [ -d "$lkmm" ]; then dirs=$dirs$lkmm$nl
		else fact LTNOTE "the kernel's litmus tests ($lkmm) not found: skipped"; fi
	fi
	printf '%s' "$dirs" | while IFS= read -r d; do [ -n "$d" ] && fact LTDIR "$d"; done
	backends=c11
	if [ "$arch" = x86_64 ] && [ -f "$root/include/katomic/backend/asm.h" ]; then backends="c11 asm"
	else fact LTNOTE "asm backend: x86-64 only, not run on $arch"; fi
	hccs=""
	for c in $lt_ccs; do
		if command -v "$c" >/dev/null 2>&1; then hccs="$hccs $c"
		else fact LTNOTE "harness compiler $c not installed: skipped (apt-get install $c)"; fi
	done
	[ -n "$hccs" ] || { command -v cc >/dev/null 2>&1 && hccs=cc; }
	if [ -z "$hccs" ]; then fact S litmus missing "no C compiler for the harnesses (apt-get install gcc)"; progress "[2/3] litmus: no compiler"; return; fi
	progress "[2/3] litmus: building the runner..."
	if ! make -s -C "$root" BUILD="$build" litmus >"$logs/litmus-build.log" 2>&1 || [ ! -x "$build/katomic-litmus" ]; then
		fact S litmus failed "the litmus runner did not build: $(tail -n 1 "$logs/litmus-build.log") (log: logs/litmus-build.log)"
		progress "[2/3] litmus: FAILED to build the runner, see $logs/litmus-build.log"
		return
	fi
	n=0
	for hc in $hccs; do
		for b in $backends; do
			n=$((n + 1))
			progress "[2/3] litmus: $b backend, harnesses by $hc, $lt_iter iterations per test..."
			js=$out/litmus/$b-$hc.json
			# shellcheck disable=SC2046
			(IFS=$nl; set -f; "$build/katomic-litmus" --backend "$b" --cc "$hc" --iterations "$lt_iter" \
				--timeout "$lt_timeout" --json $(printf '%s' "$dirs")) >"$js" 2>"$logs/litmus-$b-$hc.log"
			rc=$?
			if ! grep -q '"passed":' "$js"; then
				fact LT "$b" "$hc" error "$rc" "$(tail -n 1 "$logs/litmus-$b-$hc.log") (log: logs/litmus-$b-$hc.log)"
				continue
			fi
			$awk -v BACKEND="$b" -v CC="$hc" -v RC="$rc" -v ITER="$lt_iter" -f "$here/facts-litmus.awk" "$js" >>"$facts"
		done
	done
	fact S litmus ok "$(($(now) - t0)) s"
	progress "[2/3] litmus: done in $(($(now) - t0)) s ($n runs)"
}

# ---------------------------------------------------------------- 3. bench
stage_bench() {
	if skipped bench; then fact S bench skipped "left out with --skip bench"; progress "[3/3] bench: skipped (--skip)"; return; fi
	t0=$(now)
	progress "[3/3] bench: C11 vs asm vs peers, side by side ($mode; about a minute)..."
	# shellcheck disable=SC2086
	sh "$root/tools/bench/bench.sh" $bench_opts --json --out "$out/bench" >"$logs/bench.out" 2>"$logs/bench.log"
	rc=$?
	grep '^note:' "$logs/bench.log" | sed 's/^note: //' | while IFS= read -r n; do fact BNOTE "$n"; done
	if [ "$rc" -ne 0 ] || [ ! -s "$out/bench/bench.csv" ]; then
		fact S bench failed "katomic bench exited with status $rc: $(tail -n 1 "$logs/bench.log") (log: logs/bench.log)"
		progress "[3/3] bench: FAILED (status $rc), see $logs/bench.log"
		return
	fi
	$awk -f "$here/facts-bench.awk" "$out/bench/bench.json" "$out/bench/bench.csv" >>"$facts"
	sed -n 's/^Samples taken again because a thread was descheduled > 5% of the time (shared machine): \([0-9]*\);.*/\1/p' \
		"$out/bench/table.txt" | head -n 1 | while read -r x; do fact B resampled "$x"; done
	sed -n 's/^still disturbed after [0-9]* tries (least disturbed kept): \([0-9]*\)\..*/\1/p' \
		"$out/bench/table.txt" | head -n 1 | while read -r x; do fact B disturbed "$x"; done
	# the bench's own charts, copied next to index.html
	for f in "$out"/bench/ratio-*.png "$out"/bench/wl-*.png; do
		[ -s "$f" ] || continue
		b=$(basename "$f" .png)
		# only charts of this run: a mode or workload named in bench.csv
		name=${b#ratio-}; name=${name#wl-}
		grep -q ",$name," "$out/bench/bench.csv" || continue
		cp "$f" "$out/plot-bench-$b.png" && fact PLOT "plot-bench-$b.png" bench "$b"
	done
	fact S bench ok "$(($(now) - t0)) s"
	progress "[3/3] bench: done in $(($(now) - t0)) s"
}

stage_codegen
stage_litmus
stage_bench

# ---------------------------------------------------------------- own plots
if [ "$have_gnuplot" = 1 ]; then
	progress "plots..."
	term=png
	gnuplot -e 'set terminal' 2>/dev/null | grep -q pngcairo && term=pngcairo
	$awk -v OUT="$out" -v TERM="$term" -f "$here/plots.awk" "$facts" >"$logs/plots.gp" 2>"$logs/plots.log" &&
		gnuplot "$logs/plots.gp" >>"$logs/plots.log" 2>&1 ||
		progress "gnuplot failed (see $logs/plots.log)"
	for p in c11-vs-asm codegen; do
		[ -s "$out/plot-$p.png" ] && fact PLOT "plot-$p.png" report "$p"
	done
fi

# ---------------------------------------------------------------- render
fact M seconds "$(($(now) - t_start))"
$awk -F'\t' -v OUT="$out" -v ROOT="$root" -v TBL="$here/losses.tbl" -v MAP="$here/bench-probes.tbl" -f "$here/render.awk" "$facts" >"$logs/verdict.txt"
rc=$?
if [ "$rc" -gt 1 ] || [ ! -s "$out/report.json" ]; then
	echo "katomic report: rendering failed (status $rc); facts in $facts" >&2
	exit 2
fi
cat "$logs/verdict.txt"
progress "done in $(($(now) - t_start)) s: $out/REPORT.md, $out/index.html, $out/report.json"
exit "$rc"
