#!/bin/sh
# Real material nobody here wrote, through the runner:
#  1. every *.litmus of the public kernel litmus corpus share (CORPUS, ../shared in
#     CI) must parse (--parse-only);
#  2. a fixed sample of it (every SAMPLE-th file in name order) runs on every backend;
#  3. the litmus tests of Debian's linux-source-6.12 (tools/memory-model/litmus-tests,
#     Documentation/litmus-tests), extracted at test time from LINUX_TAR, run on every
#     backend.
# A run passes when the runner exits 0 (no FAIL, no ERROR) and every test it skips
# names a primitive outside the kernel API.  Missing material is skipped with a note.
# Environment: LITMUS (runner), HCC, BACKENDS, CORPUS, SAMPLE, ITER (sample),
# AGREE_BACKENDS, AGREE_ITER (the parser-runner agreement run), LINUX_TAR,
# LINUX_ITER, BUILD, JUDGE (auto: herd7 if found; herd7: required).
set -u
tp=0 tf=0
# the runs go through `katomic litmus`, judged by herd7 where it is found
. tools/litmus/judged.sh
# the runner's counts line: who judged, what herd7 could not
oracle_line() {
	echo "$1" | grep '^(.*judged by herd7' | sed 's/^(//; s/; backend .*//'
}
pass() { tp=$((tp + 1)); echo "ok: $*"; }
fail() { tf=$((tf + 1)); echo "FAILED: $*"; }

# run NAME ARGS...: every backend; a failure, or a skip for another reason, fails
run() {
	what=$1
	shift
	for b in $BACKENDS; do
		t0=$(date +%s)
		out=$(judged --backend "$b" --cc "$HCC" "$@" 2>/dev/null)
		rc=$?
		t1=$(date +%s)
		other=$(echo "$out" | grep '^Skipped: ' | grep -v 'is not in the kernel API' | head -n 3)
		summary="$(echo "$out" | tail -n 2 | tr '\n' ' ')in $((t1 - t0)) s (load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null))"
		if [ "$rc" -eq 0 ] && [ -z "$other" ]; then
			pass "$what, backend $b: $summary"
		else
			fail "$what, backend $b (exit $rc): $summary"
			echo "$out" | grep -E '^Verdict .* (FAIL|ERROR)|^Error' | head -n 20
			[ -n "$other" ] && echo "$other"
		fi
	done
}

if [ -d "$CORPUS" ]; then
	files=$(find "$CORPUS" -name '*.litmus' | LC_ALL=C sort)
	n=$(echo "$files" | wc -l)
	out=$("$LITMUS" --parse-only $files 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ] && echo "$out" | tail -n 1 | grep -qx "$n parsed, 0 rejected"; then
		pass "corpus share: $n of $n parse"
	else
		fail "corpus share: parse-only exit $rc, $(echo "$out" | tail -n 1) of $n"
		echo "$out" | grep -v 'parsed, ' | head -n 20
	fi
	sample=$(echo "$files" | awk -v k="$SAMPLE" 'NR % k == 1')
	run "corpus sample ($(echo "$sample" | wc -l) tests, every ${SAMPLE}th, $ITER iterations)" --iterations "$ITER" $sample
else
	echo "note: CORPUS=$CORPUS not found: the public corpus share is skipped"
fi

# Parser and runner agree (issue #23): every file that parses, of the corpus
# share and tests/litmus, runs (no ERROR: a harness that does not compile or
# crashes) or is SKIPPED or UNJUDGED with a reason.  Few iterations: a
# compile-and-smoke run of every test, AGREE_BACKENDS only (c11 by default).
agree=tests/litmus
[ -d "$CORPUS" ] && agree="$agree $CORPUS"
n=$(find $agree -name '*.litmus' ! -path '*/bad/*' | wc -l)
for b in $AGREE_BACKENDS; do
	t0=$(date +%s)
	out=$(judged --backend "$b" --cc "$HCC" --iterations "$AGREE_ITER" --rcu-iterations "$AGREE_ITER" \
		$(find $agree -name '*.litmus' ! -path '*/bad/*' | LC_ALL=C sort) 2>/dev/null)
	rc=$?
	t1=$(date +%s)
	verdicts=$(echo "$out" | grep -c '^Verdict ')
	skips=$(echo "$out" | grep -c '^Skipped: .')
	unj=$(echo "$out" | grep -c '^Unjudged: .')
	summary="$verdicts verdicts ($skips skipped, $unj unjudged with a reason) for $n files in $((t1 - t0)) s; $(oracle_line "$out")"
	# what herd7 could not judge, by its message (numbers in it made N: one line per kind)
	echo "$out" | sed -n 's/^Oracle Result: comment (herd7 did not judge: \(.*\))$/\1/p' |
		sed 's/[0-9][0-9]*/N/g' | sort | uniq -c | sort -rn | sed 's/^ */  herd7 could not judge: /'
	if [ "$rc" -eq 0 ] && [ "$verdicts" -eq "$((n - skips))" ]; then
		pass "parser and runner agree, backend $b: $summary"
	else
		fail "parser and runner agree, backend $b (exit $rc): $summary"
		echo "$out" | grep -E '^Verdict .* (FAIL|ERROR)|^Error' | head -n 20
	fi
done

if [ -f "$LINUX_TAR" ]; then
	dir=$BUILD/linux-litmus
	top=linux-source-6.12
	if [ ! -d "$dir/$top" ] || [ "$LINUX_TAR" -nt "$dir/$top" ]; then
		rm -rf "$dir" && mkdir -p "$dir" &&
		tar -xJf "$LINUX_TAR" -C "$dir" --wildcards "$top/tools/memory-model/litmus-tests/*" \
			"$top/Documentation/litmus-tests/*" || fail "extracting the litmus tests from $LINUX_TAR"
	fi
	run "$top litmus tests ($(find "$dir/$top" -name '*.litmus' | wc -l) tests, $LINUX_ITER iterations)" \
		--iterations "$LINUX_ITER" -r "$dir/$top/tools/memory-model/litmus-tests" "$dir/$top/Documentation/litmus-tests"
else
	echo "note: $LINUX_TAR not found (Debian: apt-get install linux-source-6.12): the kernel's own litmus tests are skipped"
fi
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
