#!/bin/sh
# katomic codegen: the per-op code-generation audit.
#   katomic codegen [--quick] [--cc LIST] [--cross-cc LIST] [--target LIST]
#                   [--out DIR] [--json] [--canon] [-O LEVEL]
# Compiles tools/codegen/generated/probes.c (one function per public API name,
# generated from gen/atomics.tbl and gen/api.tbl) with every compiler x target
# x backend, disassembles, normalises, and judges each C11 probe against the
# asm backend (x86-64, same compiler) or the kernel's own sequence for its
# ordering class (tools/codegen/kernel-seq.tbl).  Writes DIR/codegen.md,
# DIR/codegen.html, DIR/codegen.json and DIR/results.tsv; prints a summary.
#   --cc LIST        native x86-64 compilers (default: every gcc-N/clang-N found)
#   --cross-cc LIST  compilers for the other targets: "gcc" = Debian's
#                    <triple>-gcc, clang-N = clang --target (needs the sysroot);
#                    default: gcc plus the --cc clangs (--quick: the newest clang)
#   --target LIST    x86_64 aarch64 aarch64-no-outline aarch64-lse ppc64le
#                    riscv64 s390x armhf (default: all)
#   --json           print codegen.json on stdout instead of the summary
#   --canon          canonicalise register names before comparing sequences
set -u
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${KATOMIC_BUILD:-$root/build}
here=$root/tools/codegen
awk=${AWK:-awk}
# gawk 5.2.1 (Debian 12) aborts with "double free" in report.awk's output loops; mawk is fine.
rawk=${KATOMIC_REPORT_AWK:-$awk}
[ -z "${KATOMIC_REPORT_AWK:-}" ] && command -v mawk >/dev/null 2>&1 && rawk=mawk

# ---- one compile + disassembly (run in parallel through xargs)
if [ "${1:-}" = "--run-one" ]; then
	# id|cc|flags|objdump|arch|workdir
	IFS='|' read -r id cc flags objdump arch work <<EOF
$2
EOF
	# shellcheck disable=SC2086
	if ! $cc -std=gnu11 $flags -I"$root/include" -c -o "$work/$id.o" "$root/tools/codegen/generated/probes.c" \
		2>"$work/$id.err"; then
		echo "error: $id: compile failed:" >&2; sed 's/^/  /' "$work/$id.err" | head -20 >&2
		exit 1
	fi
	"$objdump" -dr "$work/$id.o" 2>>"$work/$id.err" |
		$awk -v ARCH="$arch" -v CANON="${KATOMIC_CODEGEN_CANON:-0}" -f "$root/tools/codegen/disasm.awk" >"$work/$id.tsv" ||
		{ echo "error: $id: disassembly failed" >&2; exit 1; }
	echo "  done $id" >&2
	exit 0
fi

quick=0 ccs="" xccs="" targets="" out="$build/codegen" json=0 opt=-O2 canon=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--cc) ccs=$2; shift ;;
	--cross-cc) xccs=$2; shift ;;
	--target) targets=$2; shift ;;
	--out) out=$2; shift ;;
	--json) json=1 ;;
	--canon) canon=1 ;;
	-O*) opt=$1 ;;
	-h|--help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) echo "katomic codegen: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
export KATOMIC_CODEGEN_CANON=$canon
all_targets="x86_64 aarch64 aarch64-no-outline aarch64-lse ppc64le riscv64 s390x armhf"
[ -n "$targets" ] || targets=$all_targets

note() { echo "note: $*" >&2; }

# ---- compilers: every gcc-N / clang-N on PATH, then plain gcc/clang if they are something else
if [ -z "$ccs" ]; then
	seen=""
	for c in $(for d in $(echo "$PATH" | tr ':' ' '); do ls "$d" 2>/dev/null; done |
		grep -E '^(gcc|clang)-[0-9]+$' | sort -t- -k1,1 -k2,2n -u) gcc clang; do
		command -v "$c" >/dev/null 2>&1 || continue
		real=$(readlink -f "$(command -v "$c")")
		case " $seen " in *" $real "*) continue ;; esac
		seen="$seen $real"; ccs="$ccs $c"
	done
fi
have_ccs=""
for c in $ccs; do
	if command -v "$c" >/dev/null 2>&1; then have_ccs="$have_ccs $c"
	else note "compiler $c not installed: skipped (apt-get install $(echo "$c" | sed 's/^clang/clang/'))"; fi
done
if [ -z "$xccs" ]; then
	clangs=$(for c in $have_ccs; do case $c in clang*) echo "$c" ;; esac; done)
	[ "$quick" = 1 ] && clangs=$(echo "$clangs" | tail -n 1)
	xccs="gcc $clangs"
fi

triple_of() {
	case $1 in
	x86_64) echo x86_64-linux-gnu ;; aarch64*) echo aarch64-linux-gnu ;;
	ppc64le) echo powerpc64le-linux-gnu ;; riscv64) echo riscv64-linux-gnu ;;
	s390x) echo s390x-linux-gnu ;; armhf) echo arm-linux-gnueabihf ;;
	esac
}
pkg_of() {
	case $1 in
	aarch64-linux-gnu) echo arm64 ;; powerpc64le-linux-gnu) echo ppc64el ;;
	riscv64-linux-gnu) echo riscv64 ;; s390x-linux-gnu) echo s390x ;; arm-linux-gnueabihf) echo armhf ;;
	esac
}
arch_of() { case $1 in aarch64*) echo aarch64 ;; *) echo "$1" ;; esac; }
isa_of() { case $1 in aarch64-lse) echo lse ;; aarch64*) echo llsc ;; *) echo '*' ;; esac; }
tflags_of() {
	case $1 in
	aarch64-no-outline) echo -mno-outline-atomics ;; aarch64-lse) echo -march=armv8.1-a ;;
	esac
}

work=$out/work
rm -rf "$work"; mkdir -p "$work" || exit 1
cfgs=$work/configs.txt jobs=$work/jobs.txt
: >"$cfgs"; : >"$jobs"
for t in $targets; do
	case " $all_targets " in *" $t "*) ;; *) echo "katomic codegen: unknown target '$t'" >&2; exit 2 ;; esac
	arch=$(arch_of "$t"); isa=$(isa_of "$t"); tf=$(tflags_of "$t"); triple=$(triple_of "$t")
	if [ "$t" = x86_64 ]; then
		case $(uname -m) in x86_64) ;; *) note "x86_64 skipped: not an x86-64 host"; continue ;; esac
		for c in $have_ccs; do
			for b in c11 asm; do
				bf=""; [ $b = asm ] && bf=-DKATOMIC_BACKEND_ASM
				echo "$c.$t.$b|$c|$opt $bf|objdump|$arch|$work" >>"$jobs"
			done
			echo "$c|$t|$arch|$isa|$work/$c.$t.c11.tsv|$work/$c.$t.asm.tsv" >>"$cfgs"
		done
		continue
	fi
	od=$triple-objdump
	if ! command -v "$od" >/dev/null 2>&1; then
		note "$t skipped: $od missing (apt-get install binutils-$triple)"; continue
	fi
	for x in $xccs; do
		case $x in
		gcc*)
			xc=$triple-gcc
			if ! command -v "$xc" >/dev/null 2>&1; then
				note "$t/gcc skipped: $xc missing (apt-get install gcc-$triple)"; continue
			fi
			label=gcc-$($xc -dumpversion | cut -d. -f1)
			cmd=$xc ;;
		clang*)
			if ! command -v "$x" >/dev/null 2>&1; then note "$t/$x skipped: $x not installed"; continue; fi
			if [ ! -d "/usr/$triple/include" ]; then
				note "$t/$x skipped: no sysroot /usr/$triple (apt-get install libc6-dev-$(pkg_of "$triple")-cross)"; continue
			fi
			label=$x
			cmd="$x --target=$triple"
			[ "$t" = armhf ] && cmd="$cmd -march=armv7-a -mthumb" ;;
		*) note "cross compiler '$x' not understood (gcc or clang-N): skipped"; continue ;;
		esac
		echo "$label.$t.c11|$cmd|$opt $tf|$od|$arch|$work" >>"$jobs"
		echo "$label|$t|$arch|$isa|$work/$label.$t.c11.tsv|-" >>"$cfgs"
	done
done
njobs=$(wc -l <"$jobs")
[ "$njobs" -gt 0 ] || { echo "katomic codegen: nothing to compile" >&2; exit 1; }
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
echo "katomic codegen: $njobs compiles on $ncpu cores ($opt)" >&2
tr '\n' '\0' <"$jobs" | xargs -0 -P "$ncpu" -n 1 sh "$here/codegen.sh" --run-one || {
	echo "katomic codegen: some compiles failed (see above)" >&2; exit 1; }

grep '^/\*@ ' "$root/tools/codegen/generated/probes.c" | sed 's|^/\*@ ||; s| \*/$||' >"$work/manifest.txt"
$awk -f "$here/verdict.awk" -v MANIFEST="$work/manifest.txt" -v KSEQ="$here/kernel-seq.tbl" "$cfgs" >"$out/results.tsv" || exit 1
$rawk -f "$here/report.awk" -v OUT="$out" -v OPT="$opt" -v JSON="$json" "$out/results.tsv" || exit 1
echo "katomic codegen: wrote $out/codegen.md, $out/codegen.html, $out/codegen.json" >&2
