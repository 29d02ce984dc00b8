#!/bin/sh
# Run the litmus corpus (tests/litmus and LKMM_DIR) under each backend, judged by herd7
# when it is found (the oracle's own checks: tests/litmus/test-oracle.py); sum the verdicts.
# Then the mutation checks (a weakened primitive must make a test FAIL), and
# check that each tests/litmus/bad/*.litmus is rejected with FILE:LINE:COL: and exit 2.
# Environment: LITMUS (runner), ITER, HCC (harness compiler), BACKENDS, LKMM_DIR, JUDGE (auto, herd7).
set -u
dirs=tests/litmus
if [ -d "$LKMM_DIR" ]; then
	dirs="$dirs $LKMM_DIR"
else
	echo "note: LKMM_DIR=$LKMM_DIR not found: the kernel's litmus tests are skipped"
fi
case " $BACKENDS " in *" asm "*) ;; *) echo "note: include/katomic/backend/asm.h not found: asm backend skipped";; esac
tp=0 tf=0
# the runs go through `katomic litmus`, judged by herd7 where it is found
. tools/litmus/judged.sh
for b in $BACKENDS; do
	out=$(judged --backend "$b" --cc "$HCC" --iterations "$ITER" $dirs)
	rc=$?
	echo "$out" | grep -E '^(Verdict .* (FAIL|ERROR)|Error|Skipped)' || true
	echo "$out" | grep -E '^Error' -A3 | head -40
	line=$(echo "$out" | tail -n 1)
	p=$(echo "$line" | awk '/passed, .* failed$/ { print $1 }')
	f=$(echo "$line" | awk '/passed, .* failed$/ { print $3 }')
	echo "backend $b: $(echo "$out" | tail -n 2 | head -n 1) $line"
	if [ -z "$p" ]; then p=0; f=1; fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	tp=$((tp + p)); tf=$((tf + f))
done
# Mutation checks: with a primitive weakened the test that relies on it must
# FAIL (a witness of a forbidden outcome): proof that the runner, and the
# grace periods, can fail.  The weak outcome needs the two threads to
# overlap, which a loaded machine can delay, and the SRCU tests run 53248
# iterations whatever --iterations says, with the mutated outcome at
# 0.004-0.03 % of them (2-16 witnesses a run here, 0 in a CI run while a
# kernel built beside it): up to eight tries (a try is well under a second).
mut="tests/litmus/SB+mbs.litmus:smp_mb=barrier tests/litmus/SRCU-SB+sync.litmus:synchronize_srcu=kl_nothing
tests/litmus/RCU-SB+sync.litmus:synchronize_rcu=barrier"
[ -f "$LKMM_DIR/SB+fencembonceonces.litmus" ] && mut="$mut $LKMM_DIR/SB+fencembonceonces.litmus:smp_mb=barrier"
for b in $BACKENDS; do
	for m in $mut; do
		f=${m%%:*} with=${m#*:}
		name=$(sed -n '1s/^C[[:space:]]*//p' "$f")
		caught=""
		for try in 1 2 3 4 5 6 7 8; do
			out=$("$LITMUS" --backend "$b" --cc "$HCC" --iterations "$ITER" --mutate "$with" "$f")
			rc=$?
			if echo "$out" | grep -q '^Skipped'; then
				caught=skipped
				break
			fi
			caught=$(echo "$out" | grep -F "Verdict $name FAIL" | head -n 1)
			[ "$rc" -eq 1 ] && [ -n "$caught" ] && break
			caught=""
		done
		if [ "$caught" = skipped ]; then
			echo "note: mutation $with, backend $b: $f skipped ($(echo "$out" | sed -n 's/^Skipped: //p'))"
		elif [ -n "$caught" ]; then
			tp=$((tp + 1))
			echo "mutation $with, backend $b: caught: $(echo "$out" | grep -F "Observation $name ")"
		else
			tf=$((tf + 1))
			echo "mutation $with, backend $b: NOT caught on $f (exit $rc)"
		fi
	done
done
# Bad input (tests/litmus/bad/*.litmus, also fuzz seeds): each must give
# "FILE:LINE:COL: message" on stderr and exit status 2, never a crash, with
# and without --parse-only.
bp=0 bf=0
for f in tests/litmus/bad/*.litmus; do
	[ -e "$f" ] || continue
	for mode in --parse-only --iterations=1; do
		err=$("$LITMUS" ${mode%%=*} $(case $mode in *=*) echo "${mode#*=}";; esac) "$f" 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" -eq 2 ] && [ "$(printf "%s\n" "$err" | wc -l)" -eq 1 ] &&
		   printf "%s\n" "$err" | grep -qE "^$f:[0-9]+:[0-9]+: ."; then
			bp=$((bp + 1))
		else
			bf=$((bf + 1))
			echo "bad input $f ($mode): exit $rc, expected 2 and one line $f:LINE:COL: message; got: $(printf "%s" "$err" | head -n 3)"
		fi
	done
done
echo "bad input: $bp rejected with file:line:col, $bf wrong"
tp=$((tp + bp)); tf=$((tf + bf))
# Issue #23.  A location used as an SRCU domain or a lock and as a plain word:
# UNJUDGED with the reason, not run, never an ERROR.  A lock never released:
# the iterations where a thread waits for it forever are discarded and
# shown, the others judged (lock-unreleased+once: PASS with "Discarded:").
for b in $BACKENDS; do
	for f in tests/litmus/mixed+srcu-int.litmus tests/litmus/mixed+spinlock-int.litmus; do
		name=$(sed -n '1s/^C[[:space:]]*//p' "$f")
		out=$("$LITMUS" --backend "$b" --cc "$HCC" --iterations 1000 "$f")
		if echo "$out" | grep -qx "Verdict $name UNJUDGED (expected Maybe, not run)" &&
		   echo "$out" | grep -q '^Unjudged: location .* herd treats it as one untyped cell'; then
			tp=$((tp + 1)); echo "mixed types, backend $b: $name UNJUDGED with its reason"
		else
			tf=$((tf + 1)); echo "mixed types, backend $b: $name not UNJUDGED with a reason: $(echo "$out" | grep -E '^(Verdict|Error|Unjudged)')"
		fi
	done
	f=tests/litmus/lock-unreleased+once.litmus
	out=$("$LITMUS" --backend "$b" --cc "$HCC" --iterations 20000 "$f")
	if echo "$out" | grep -q '^Verdict lock-unreleased+once PASS' && echo "$out" | grep -q '^Discarded: [1-9]'; then
		tp=$((tp + 1)); echo "lock never released, backend $b: $(echo "$out" | grep '^Discarded:' | cut -d: -f2 | cut -d'(' -f1)discarded, PASS"
	else
		tf=$((tf + 1)); echo "lock never released, backend $b: expected PASS with discarded iterations: $(echo "$out" | grep -E '^(Verdict|Error|Discarded|Deadlock)')"
	fi
done
# The JSON documents (a run of every verdict kind our tests give, a bad file,
# --parse-only) must fit tools/schema/litmus.schema.json.
if command -v python3 >/dev/null 2>&1; then
	tmp=$(mktemp -d) && bad1=$(ls tests/litmus/bad/*.litmus | head -n 1)
	for b in $BACKENDS; do
		"$LITMUS" --backend "$b" --cc "$HCC" --iterations 2000 --deadline 1 --json tests/litmus "$bad1" \
			>"$tmp/run-$b.json" 2>/dev/null
		"$LITMUS" --backend "$b" --parse-only --json tests/litmus "$bad1" >"$tmp/parse-$b.json" 2>/dev/null
		for j in "$tmp/run-$b.json" "$tmp/parse-$b.json"; do
			if err=$(PYTHONPATH=tools python3 -m katomic_tools.common.schema --as litmus "$j" 2>&1 >/dev/null); then
				tp=$((tp + 1)); echo "json: ${j##*/} fits tools/schema/litmus.schema.json"
			else
				tf=$((tf + 1)); echo "json: ${j##*/} does not fit: $err"
			fi
		done
	done
	rm -rf "$tmp"
else
	echo "note: no python3: the JSON output is not checked against its schema"
fi
# The herd7 oracle: hand-written oracles always, herd7's own where it is found.
out=$(LITMUS=$LITMUS HCC=$HCC python3 tests/litmus/test-oracle.py 2>&1 || true)
echo "$out" | grep -Ev '^ok ' || true
p=$(echo "$out" | tail -n 1 | awk '/passed, .* failed$/ { print $1 }')
f=$(echo "$out" | tail -n 1 | awk '/passed, .* failed$/ { print $3 }')
[ -n "$p" ] || { p=0; f=1; }
tp=$((tp + p)); tf=$((tf + f))
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
