#!/bin/sh
# katomic: one entry point for the instruments.  `make` writes it to
# build/katomic with KATOMIC_ROOT set to the source tree.
#   katomic litmus  [options] FILE_OR_DIR...   run C litmus tests on this CPU
#   katomic codegen [options]                  per-op code-generation audit
#   katomic bench   [options]                  per-op and workload benchmarks
#   katomic report  [--quick|--full] [--out DIR] [--from DIR]  all of it, as one page
#   katomic uplocks [--list] [--dry-run] PROG...   record PROG's lock prefixes (<katomic/up.h>)
set -u
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${KATOMIC_BUILD:-$root/build}
export KATOMIC_ROOT=$root KATOMIC_BUILD=$build

usage() {
	sed -n '2,9s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

[ $# -ge 1 ] || usage
cmd=$1; shift
case $cmd in
litmus)
	[ -x "$build/katomic-litmus" ] || make -s -C "$root" BUILD="$build" litmus >&2 || exit 1
	exec "$build/katomic-litmus" "$@" ;;
codegen|bench|report)
	impl=$root/tools/$cmd/$cmd.sh
	if [ ! -f "$impl" ]; then
		echo "katomic: '$cmd' is not built yet in this version" >&2
		exit 2
	fi
	exec sh "$impl" "$@" ;;
uplocks)
	command -v python3 >/dev/null 2>&1 || { echo "katomic uplocks: python3 not found" >&2; exit 2; }
	exec python3 "$root/tools/up/uplocks.py" "$@" ;;
-h|--help|help)
	usage ;;
*)
	echo "katomic: unknown command '$cmd' (litmus, codegen, bench, report, uplocks)" >&2
	exit 2 ;;
esac
