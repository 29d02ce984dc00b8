#!/bin/sh
# katomic: one entry point for the instruments: build/katomic after `make`,
# PREFIX/bin/katomic after `make install` (needs only make and a C compiler).
#   katomic litmus  [--judge auto|herd7|comment] [options] FILE_OR_DIR...   C litmus tests on this CPU, judged by herd7
#   katomic codegen [options]                  per-op code-generation audit
#   katomic bench   [options]                  per-op and workload benchmarks
#   katomic report  [--quick|--full] [--out DIR] [--from DIR]  all of it, as one page
#   katomic uplocks [--list] [--dry-run] PROG...   record PROG's lock prefixes (<katomic/up.h>)
#   katomic kernel  [--quick|--full] [--patch] [--src DIR] ...  the Linux kernel on C11 atomics
#   katomic verify  [--target T,...] [--cc C,...] [--mutate M] [FILE_OR_DIR...]  compiled code vs LKMM (herd7)
set -u

# Where the instruments are (ROOT: tools/, bench/, tests/litmus/, include/,
# a Makefile with their build rules) and where they build (BUILD).
#   source tree: ROOT is the tree (make writes its path on the srcroot= line
#                of build/katomic), BUILD is ROOT/build
#   installed:   `make install` sets installed=1: ROOT is ../share/katomic
#                next to this script, BUILD the user's cache directory, as
#                the prefix may be read-only
# KATOMIC_ROOT and KATOMIC_BUILD override both; the helpers read them, and
# KATOMIC_INCLUDE (the headers the litmus harnesses compile against).
srcroot=$(cd "$(dirname "$0")/.." && pwd)
installed=0
if [ "$installed" = 1 ]; then
	self=$(readlink -f "$0" 2>/dev/null || echo "$0")
	root=${KATOMIC_ROOT:-$(cd "$(dirname "$self")/../share/katomic" && pwd)}
	cache=${XDG_CACHE_HOME:-${HOME:?katomic: set HOME or XDG_CACHE_HOME (the installed katomic builds under it)}/.cache}
	build=${KATOMIC_BUILD:-$cache/katomic/$(printf '%s' "$root" | tr -c 'A-Za-z0-9._-' '_')}
else
	root=${KATOMIC_ROOT:-$srcroot}
	build=${KATOMIC_BUILD:-$root/build}
fi
export KATOMIC_ROOT=$root KATOMIC_BUILD=$build KATOMIC_INCLUDE=${KATOMIC_INCLUDE:-$root/include}

usage() {
	sed -n '2,11s/^# \{0,1\}//p' "$0" >&2
	exit 2
}

[ $# -ge 1 ] || usage
cmd=$1; shift
case $cmd in
litmus)
	[ -x "$build/katomic-litmus" ] || make -s -C "$root" BUILD="$build" litmus >&2 || exit 1
	if ! command -v python3 >/dev/null 2>&1; then
		echo "katomic litmus: python3 not found: no herd7 oracle, judged by the tests' Result: comments" >&2
		exec "$build/katomic-litmus" "$@"
	fi
	PYTHONPATH=$root/tools${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic_tools.litmus \
		--runner "$build/katomic-litmus" "$@" ;;
codegen|bench|report|kernel|verify)
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
	echo "katomic: unknown command '$cmd' (litmus, codegen, bench, report, uplocks, kernel, verify)" >&2
	exit 2 ;;
esac
