#!/bin/sh
# The codegen regression guard (make check-codegen).
#   sh tools/codegen/check.sh [--update]
# Runs the audit for the compilers CI installs (gcc clang gcc-11 clang-16 on
# x86-64, Debian's cross gcc on the other targets) and compares every verdict
# with tools/codegen/expected/<compiler>-<target>.txt.  Fails when a verdict
# gets worse (better > same/identical/n/a > worse > WEAKER) or a new WEAKER
# appears, printing the diff; equal or better passes.  --update rewrites the
# expected files from this run.  Missing compilers are skipped with a note.
set -u
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${KATOMIC_BUILD:-$root/build}
exp=$root/tools/codegen/expected
out=$build/codegen-check
ccs=${CODEGEN_CCS:-gcc clang gcc-11 clang-16}
update=0; [ "${1:-}" = --update ] && update=1

# probes.c must be what gen/gen.sh makes of the tables
tmp=$build/codegen-gen; rm -rf "$tmp"; mkdir -p "$tmp"
AWK=${AWK:-awk} sh "$root/gen/gen.sh" "$tmp" >/dev/null || exit 1
if ! cmp -s "$tmp/tools/codegen/generated/probes.c" "$root/tools/codegen/generated/probes.c"; then
	echo "check-codegen: tools/codegen/generated/probes.c is stale: run make gen" >&2; exit 1
fi

sh "$root/tools/codegen/codegen.sh" --cc "$ccs" --cross-cc gcc --out "$out" >/dev/null || exit 1
mkdir -p "$exp"
status=0 compared=0
for key in $(cut -f1,2 "$out/results.tsv" | sort -u | tr '\t' '@'); do
	cc=${key%@*} t=${key#*@}
	cur=$out/cur-$cc-$t.txt
	awk -F'\t' -v cc="$cc" -v t="$t" '$1 == cc && $2 == t { print $3 "\t" $5 "\t" $6 }' "$out/results.tsv" >"$cur"
	f=$exp/$cc-$t.txt
	if [ "$update" = 1 ]; then cp "$cur" "$f"; echo "check-codegen: wrote $f"; continue; fi
	if [ ! -f "$f" ]; then echo "note: no expected verdicts for $cc/$t ($f): skipped"; continue; fi
	compared=$((compared + 1))
	if ! awk -F'\t' -v name="$cc/$t" '
		function rank(v) { return v == "better" ? 3 : (v == "identical" || v == "same" || v == "n/a") ? 2 : v == "worse" ? 1 : 0 }
		NR == FNR { E[$1] = $2; ER[$1] = $3; next }
		{
			if (!($1 in E)) { print "  new probe " $1 ": " $2; next }
			seen[$1] = 1
			if ($2 == "WEAKER" && E[$1] != "WEAKER") { printf "- %s %s: %s -> WEAKER (%s)\n", name, $1, E[$1], $3; bad = 1 }
			else if (rank($2) < rank(E[$1])) { printf "- %s %s: %s -> %s (%s)\n", name, $1, E[$1], $2, $3; bad = 1 }
			else if (rank($2) > rank(E[$1])) printf "+ %s %s: %s -> %s (%s)\n", name, $1, E[$1], $2, $3
		}
		END { for (p in E) if (!(p in seen)) print "  probe " p " gone"; exit bad }' "$f" "$cur"; then
		status=1
	fi
done
[ "$update" = 1 ] && exit 0
if [ "$status" -ne 0 ]; then
	echo "check-codegen: FAILED: some verdicts got worse (lines with -); report in $out/codegen.md" >&2
	echo "  if intended: sh tools/codegen/check.sh --update and commit tools/codegen/expected/" >&2
	exit 1
fi
echo "check-codegen: $compared compiler/target pairs no worse than expected"
