#!/bin/sh
# make check-report: use `katomic report` as a user would and check what it gives.
#  1. katomic report --quick --out SCRATCH: exit status 0 (or 1 = a correctness
#     finding, reported), the verdict table and the answer on stdout, a progress
#     line per stage on stderr, every file written, every JSON document valid
#     against its schema (tools/schema/), report.json with every section
#     (machine, codegen, litmus, bench, verdict), each plot a PNG;
#  2. index.html in headless Chromium (package chromium): the summary table is
#     in the DOM, every <img> loaded (naturalWidth > 0, marked by the page's own
#     script), and a screenshot ($KATOMIC_BUILD/report-check/screenshot.png);
#     skipped with a note when chromium is not installed;
#  3. bad environments: an unwritable --out gives one line naming it and exit
#     status 2; with clang and the cross tools hidden from PATH the clang row
#     says "not installed" and the cross targets are listed as skipped with the
#     Debian package to install.
# TAP-like lines; ends "N passed, M failed".
set -u
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${KATOMIC_BUILD:-$root/build}
export KATOMIC_ROOT=$root KATOMIC_BUILD=$build
katomic="sh $root/tools/katomic.sh"
keep=$build/report-check
rm -rf "$keep"; mkdir -p "$keep" || exit 2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/katomic-check-report.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT INT TERM
pass=0 fail=0 n=0
ok() { n=$((n + 1)); pass=$((pass + 1)); echo "ok $n - $*"; }
nok() { n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $*"; }
check() { d=$1; shift; if "$@"; then ok "$d"; else nok "$d"; fi; }
jqt() { jq -e "$1" "$out/report.json" >/dev/null 2>&1; }
validate() { PYTHONPATH=$root/tools python3 -m katomic_tools.common.schema "$@" >/dev/null; }
is_png() { [ -s "$1" ] && [ "$(od -An -tx1 -N4 "$1" | tr -d ' \n')" = 89504e47 ]; }

# ---------------------------------------------------------------- 1. the report
out=$scratch/report
echo "# katomic report --quick --out $out (about three minutes)"
$katomic report --quick --out "$out" >"$keep/stdout.txt" 2>"$keep/stderr.txt"
rc=$?
check "katomic report exits 0 or 1 (got $rc)" [ "$rc" -le 1 ]
[ "$rc" = 1 ] && echo "# note: the report found a correctness problem (exit 1): see its answer"
check "stdout: the per-compiler verdict table" grep -q '^compiler  *identical  *same cost  *better  *worse  *WEAKER  *C11/asm' "$keep/stdout.txt"
check "stdout: the litmus table" grep -q '^backend  *harness  *tests  *passed  *failed  *forbidden seen' "$keep/stdout.txt"
check "stdout: a one-line answer" grep -qE '^Answer: (YES|NO|NOT YET|INCOMPLETE)' "$keep/stdout.txt"
for s in codegen litmus bench; do
	check "stderr: progress lines for $s" grep -q "^katomic report: \[[123]/3\] $s: done" "$keep/stderr.txt"
done
for f in REPORT.md index.html report.json run.json codegen/codegen.html codegen/codegen.json litmus/c11-gcc.json \
	bench/bench.json bench/bench.csv bench/table.txt; do
	check "file $f" [ -s "$out/$f" ]
done
# every document the run produced fits its schema (no empty value, no missing field)
for f in "$out"/run.json "$out"/report.json "$out"/codegen/codegen.json "$out"/litmus/*.json "$out"/bench/bench.json; do
	check "schema: ${f#"$out"/}" validate "$f"
done
if command -v jq >/dev/null 2>&1; then
	check "report.json is valid JSON (jq)" jqt .
	for s in machine codegen litmus bench verdict; do
		check "report.json: section $s" jqt ".$s | type == \"object\""
	done
	for s in codegen litmus bench; do
		check "report.json: $s status ok" jqt ".$s.status == \"ok\""
	done
	check "report.json: per-compiler verdict rows" jqt '.verdict.per_compiler | length > 0'
	check "report.json: litmus runs, 0 forbidden outcomes" jqt '(.litmus.runs | length > 0) and .litmus.totals.forbidden_observed == 0'
	check "report.json: C11/asm geometric means" jqt '[.bench.compilers[].geomean] | length > 0 and all(. > 0)'
	check "report.json: a verdict" jqt '.verdict.answer | test("^(YES|NO|NOT YET|INCOMPLETE)$")' 
else
	echo "# note: jq not installed: report.json checked by its keys only (apt-get install jq)"
	for s in machine codegen litmus bench verdict; do
		check "report.json: section $s" grep -q "^  \"$s\": {" "$out/report.json"
	done
fi
# every plot the page shows is a PNG in DIR
imgs=$(sed -n 's/.*<img class="plot" src="\([^"]*\)".*/\1/p' "$out/index.html")
nimg=$(echo "$imgs" | grep -c .)
if command -v gnuplot >/dev/null 2>&1; then
	check "index.html shows plots ($nimg)" [ "$nimg" -ge 3 ]
else
	echo "# note: gnuplot not installed: no plots expected (apt-get install gnuplot-nox)"
fi
for i in $imgs; do
	check "plot $i is a PNG next to index.html" is_png "$out/$i"
done
check "index.html: no absolute or remote references" sh -c "! grep -qE '(src|href)=\"(/|https?:)' '$out/index.html'"

# ---------------------------------------------------------------- 2. headless Chromium
chrome=""
for c in chromium chromium-browser google-chrome; do command -v "$c" >/dev/null 2>&1 && { chrome=$c; break; }; done
if [ -z "$chrome" ]; then
	echo "# skip: headless rendering: chromium not installed (apt-get install chromium)"
else
	prof=$scratch/chrome-profile
	run_chrome() {
		mkdir -p "$prof"
		timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$prof" --allow-file-access-from-files "$@" 2>>"$keep/chromium.log"
	}
	run_chrome --virtual-time-budget=10000 --dump-dom "file://$out/index.html" >"$keep/dom.html"
	check "chromium: DOM dumped" [ -s "$keep/dom.html" ]
	check "chromium: the summary table is rendered" grep -q '<table id="verdict-table">.*<tbody>' "$keep/dom.html"
	rows=$(sed -n '/<table id="verdict-table">/,/<\/table>/p' "$keep/dom.html" | grep -c '<tr><td>')
	check "chromium: the summary table has a row per compiler ($rows)" [ "$rows" -ge 1 ]
	check "chromium: the answer is shown" grep -q 'id="answer"' "$keep/dom.html"
	pc=$(grep -o '<p id="plot-check"[^>]*>' "$keep/dom.html")
	total=$(echo "$pc" | sed -n 's/.*data-total="\([0-9]*\)".*/\1/p')
	loaded=$(echo "$pc" | sed -n 's/.*data-loaded="\([0-9]*\)".*/\1/p')
	broken=$(echo "$pc" | sed -n 's/.*data-broken="\([0-9]*\)".*/\1/p')
	all=no; [ -n "$loaded" ] && [ "$loaded" = "$total" ] && [ "$broken" = 0 ] && all=yes
	check "chromium: every plot image loaded (naturalWidth > 0: ${loaded:-?} of ${total:-?}, ${broken:-?} broken)" [ "$all" = yes ]
	run_chrome --screenshot="$keep/screenshot.png" --window-size=1280,2400 "file://$out/index.html" >/dev/null
	check "chromium: screenshot $keep/screenshot.png" is_png "$keep/screenshot.png"
fi

# ---------------------------------------------------------------- 3. bad environments
bad=/proc/katomic-report-unwritable
$katomic report --out "$bad" --skip codegen,litmus,bench >"$keep/unwritable.out" 2>"$keep/unwritable.err"
rc=$?
check "unwritable --out: exit status 2 (got $rc)" [ "$rc" = 2 ]
check "unwritable --out: one line naming the path" sh -c "[ \$(wc -l <'$keep/unwritable.err') = 1 ] && grep -q '$bad' '$keep/unwritable.err'"

# PATH without clang and without the cross tools: codegen only (gcc on x86-64)
fake=$scratch/path
mkdir -p "$fake"
for d in $(echo "$PATH" | tr ':' ' '); do
	for f in "$d"/*; do
		[ -x "$f" ] || continue
		b=${f##*/}
		case $b in
		clang|clang-[0-9]*|clang++*|*-linux-gnu-*|*-linux-gnueabihf-*) case $b in x86_64-linux-gnu-*) ;; *) continue ;; esac ;;
		esac
		[ -e "$fake/$b" ] || ln -s "$f" "$fake/$b"
	done
done
# a native clang named x86_64-linux-gnu-clang* must go too
rm -f "$fake"/x86_64-linux-gnu-clang*
PATH=$fake $katomic report --quick --skip litmus,bench --out "$scratch/noclang" >"$keep/noclang.out" 2>"$keep/noclang.err"
rc=$?
written=no; [ "$rc" -le 1 ] && [ -s "$scratch/noclang/report.json" ] && written=yes
check "no clang, no cross tools: report written (exit $rc)" [ "$written" = yes ]
check "no clang: its row says not installed" grep -qE '^clang +not installed \(apt-get install clang\)' "$keep/noclang.out"
if [ "$(uname -m)" = x86_64 ]; then
	check "no cross tools: aarch64 listed as skipped with its package" \
		grep -qE '^- codegen: aarch64 skipped: .*\(apt-get install [a-z0-9.-]+\)' "$scratch/noclang/REPORT.md"
	check "no cross tools: no other-targets table" sh -c "! grep -q '^Other targets' '$keep/noclang.out'"
fi
check "skipped stages are named, not failed" grep -q 'litmus: skipped -- left out with --skip litmus' "$scratch/noclang/REPORT.md"
cp "$scratch/noclang/REPORT.md" "$keep/noclang.md" 2>/dev/null

# ---------------------------------------------------------------- 4. --from: saved and merged JSON
cp "$out/REPORT.md" "$keep/REPORT.first.md"; cp "$out/report.json" "$keep/report.first.json"
$katomic report --from "$out" >"$keep/from.out" 2>"$keep/from.err"
rc=$?
check "--from the saved run: exit status 0 or 1 (got $rc)" [ "$rc" -le 1 ]
check "--from the saved run: the same REPORT.md" cmp -s "$keep/REPORT.first.md" "$out/REPORT.md"
check "--from the saved run: the same report.json" cmp -s "$keep/report.first.json" "$out/report.json"
again=$scratch/again
$katomic report --from "$out" --out "$again" >/dev/null 2>&1
check "--from into another directory: REPORT.md links back to the run" \
	grep -q '^- `\.\./report/codegen/codegen.html`' "$again/REPORT.md"
check "--from the saved run: the same verdict on stdout" cmp -s "$keep/stdout.txt" "$keep/from.out"
# two machines: the same run copied twice, the second renamed (as if run elsewhere)
merged=$scratch/merged
mkdir -p "$merged"
for d in codegen litmus bench; do mkdir -p "$merged/alpha/$d" "$merged/beta/$d"; done
for m in alpha beta; do
	cp "$out/run.json" "$merged/$m/"; cp "$out/codegen/codegen.json" "$merged/$m/codegen/"
	cp "$out"/litmus/*.json "$merged/$m/litmus/"; cp "$out/bench/bench.json" "$merged/$m/bench/"
done
python3 - "$merged/beta/run.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["machine"]["name"] = "beta-host"; d["machine"]["arch"] = "x86_64"
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
$katomic report --from "$merged" >"$keep/merged.out" 2>"$keep/merged.err"
rc=$?
check "--from two machines: exit status 0 or 1 (got $rc)" [ "$rc" -le 1 ]
check "--from two machines: report.json is a merged report of 2" validate --as report-merged "$merged/report.json"
check "--from two machines: REPORT.md has a section per machine" sh -c "[ \$(grep -c '^## Machine: ' '$merged/REPORT.md') = 2 ] && grep -q '^## Machine: beta-host' '$merged/REPORT.md'"
check "--from two machines: index.html has each machine's verdict table" sh -c "grep -q 'id=\"verdict-table\"' '$merged/index.html' && grep -q 'id=\"verdict-table-2\"' '$merged/index.html'"
check "--from two machines: stdout summarises both" grep -q '^Answer, all machines: ' "$keep/merged.out"
for i in $(sed -n 's/.*<img class="plot" src="\([^"]*\)".*/\1/p' "$merged/index.html"); do
	check "--from two machines: plot $i is a PNG" is_png "$merged/$i"
done
# a saved document that does not fit its schema is refused, naming the file and the field
bad=$scratch/bad
cp -r "$merged/alpha" "$bad"
sed 's/"c11_insns": [0-9]*/"c11_insns": ""/' "$out/codegen/codegen.json" >"$bad/codegen/codegen.json"
$katomic report --from "$bad" --out "$scratch/bad-out" >/dev/null 2>"$keep/bad.err"
rc=$?
check "--from an empty value: exit status 2 (got $rc)" [ "$rc" = 2 ]
check "--from an empty value: one line naming the file and the field" \
	sh -c "[ \$(wc -l <'$keep/bad.err') = 1 ] && grep -q 'codegen/codegen.json: results\[0\].c11_insns' '$keep/bad.err'"
python3 - "$bad/bench/bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); del d["results"][0]["contender"]; json.dump(d, open(sys.argv[1], "w"))
PY
cp "$out/codegen/codegen.json" "$bad/codegen/codegen.json"
$katomic report --from "$bad" --out "$scratch/bad-out" >/dev/null 2>"$keep/bad2.err"
rc=$?
check "--from a missing field: exit status 2 naming it (got $rc)" \
	sh -c "[ $rc = 2 ] && grep -q \"bench/bench.json: results\\[0\\]: missing field 'contender'\" '$keep/bad2.err'"

echo "# outputs kept in $keep (stdout.txt, stderr.txt, dom.html, screenshot.png, noclang.out)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
