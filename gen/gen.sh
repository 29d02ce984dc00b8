#!/bin/sh
# Regenerates every derived file from gen/atomics.tbl, gen/api.tbl and gen/stdnames.tbl.
# Usage: gen/gen.sh [ROOT]   (ROOT defaults to the repository; `make gen-check`
# writes into a scratch ROOT and diffs it against the checked-in files)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(dirname "$here")}
awk=${AWK:-awk}
inc=$root/include/katomic/generated
tst=$root/tests/generated
mkdir -p "$inc" "$tst"

gen() { # gen SCRIPT OUTFILE [awk args...]
	script=$1 out=$2; shift 2
	$awk -f "$here/common.awk" -f "$here/$script" -v TABLE="$here/atomics.tbl" \
		-v API="$here/api.tbl" -v STD="$here/stdnames.tbl" -v FALLBACKS="$here/fallbacks" "$@" </dev/null >"$out.tmp"
	mv "$out.tmp" "$out"
}

gen gen-atomic.awk "$inc/atomic.h" -v TYPE=1
gen gen-atomic.awk "$inc/atomic64.h" -v TYPE=2
gen gen-atomic.awk "$inc/atomic-long.h" -v TYPE=3
gen gen-names.awk "$tst/.names-stamp" -v OUT="$inc" -v TEST="$tst/names.c" -v TEST_OPTIN="$tst/names-optin.c"
rm -f "$tst/.names-stamp"
gen gen-stdnames.awk "$tst/.std-stamp" -v OUT="$inc/names-stdatomic.h" -v TEST_C="$tst/stdnames.c" -v TEST_CXX="$tst/stdnames-cxx.c" -v CODEGEN="$tst/stdnames-codegen.c"
rm -f "$tst/.std-stamp"
gen gen-tests.awk "$tst/atomic-ops.c"
mkdir -p "$root/tools/codegen/generated" && gen gen-probes.awk "$root/tools/codegen/generated/probes.c"
# The Linux kernel's x86-64 arch atomic layer on C11 (`katomic kernel`).
kasm=$root/tools/kernel/generated/arch/x86/include/asm
mkdir -p "$kasm"
for part in atomic atomic64 cmpxchg bitops barrier; do
	gen gen-kernel.awk "$kasm/$part-c11.h" -v PART=$part -v KDIR="$here/kernel"
done
# The asm-generic C11 atomic layer for bringing up a new (weakly ordered)
# architecture (`katomic kernel --arch arm64|riscv64`).
kgen=$root/tools/kernel/generated/include/asm-generic
mkdir -p "$kgen"
gen gen-kernel.awk "$kgen/atomic-c11.h" -v PART=generic-atomic
gen gen-kernel.awk "$kgen/atomic64-c11.h" -v PART=generic-atomic64
for part in policy cmpxchg barrier; do
	out=$part; [ $part = policy ] && out=atomic-c11-policy || out=$part-c11
	gen gen-kernel.awk "$kgen/$out.h" -v PART=generic/$part -v KDIR="$here/kernel"
done
