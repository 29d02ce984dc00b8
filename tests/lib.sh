# Sourced by the tests/check-*.sh scripts: a scratch directory removed on
# exit ($tmp) and the backends this machine compiles for ($backends: the asm
# backend is x86-64 only).
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
backends="c11"
case $(cc -dumpmachine 2>/dev/null) in
x86_64*) [ -f include/katomic/backend/asm.h ] && backends="c11 asm" ;;
esac
# per_cc FN CC...: FN CC for every compiler, as many at once as there are
# CPUs, each in a subshell with its own $tmp, n and fail; prints their TAP in
# compiler order, renumbered, and leaves the totals in n and fail.
per_cc() {
	fn=$1; shift
	cpus=$(nproc 2>/dev/null || echo 2); k=0
	for c in "$@"; do
		k=$((k + 1)); mkdir -p "$tmp/cc$k"
		(tmp=$tmp/cc$k; n=0; fail=0; "$fn" "$c" >"$tmp/tap" 2>&1; echo "$fail" >"$tmp/fail") &
		[ $((k % cpus)) -eq 0 ] && wait
	done
	wait
	n=0 fail=0 i=0
	while [ "$i" -lt "$k" ]; do
		i=$((i + 1))
		awk -v n="$n" '/^ok [0-9]+/ { n++; sub(/^ok [0-9]+/, "ok " n) }
			/^not ok [0-9]+/ { n++; sub(/^not ok [0-9]+/, "not ok " n) } { print }' "$tmp/cc$i/tap"
		n=$((n + $(grep -c -E '^(not )?ok [0-9]+' "$tmp/cc$i/tap")))
		fail=$((fail + $(cat "$tmp/cc$i/fail" 2>/dev/null || echo 1)))
	done
}
