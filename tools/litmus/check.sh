#!/bin/sh
# Run the litmus corpus (tests/litmus and LKMM_DIR) under each backend; sum the verdicts.
# Then check that each tests/litmus/bad/*.litmus is rejected with FILE:LINE:COL: and exit 2.
# Environment: LITMUS (runner), ITER, HCC (harness compiler), BACKENDS, LKMM_DIR.
set -u
dirs=tests/litmus
if [ -d "$LKMM_DIR" ]; then
	dirs="$dirs $LKMM_DIR"
else
	echo "note: LKMM_DIR=$LKMM_DIR not found: the kernel's litmus tests are skipped"
fi
case " $BACKENDS " in *" asm "*) ;; *) echo "note: include/katomic/backend/asm.h not found: asm backend skipped";; esac
tp=0 tf=0 st=0
for b in $BACKENDS; do
	out=$("$LITMUS" --backend "$b" --cc "$HCC" --iterations "$ITER" $dirs)
	rc=$?
	echo "$out" | grep -E '^(Verdict|Rate|Error|Skipped|Test .* \()' | grep -vE '^Test .* \(' || true
	echo "$out" | grep -E '^Error' -A3 | head -40
	line=$(echo "$out" | tail -n 1)
	p=$(echo "$line" | awk '/passed, .* failed$/ { print $1 }')
	f=$(echo "$line" | awk '/passed, .* failed$/ { print $3 }')
	echo "backend $b: $(echo "$out" | tail -n 2 | head -n 1) $line"
	if [ -z "$p" ]; then p=0; f=1; fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	tp=$((tp + p)); tf=$((tf + f))
done
# Mutation check: with smp_mb() weakened to a compiler barrier the SB tests
# that rely on it must FAIL (a witness of a forbidden outcome): proof that the
# runner can fail.  The weak outcome needs the two threads to overlap, which
# a loaded machine can delay: up to three tries before calling it missed.
mut="tests/litmus/SB+mbs.litmus"
[ -f "$LKMM_DIR/SB+fencembonceonces.litmus" ] && mut="$mut $LKMM_DIR/SB+fencembonceonces.litmus"
for b in $BACKENDS; do
	for f in $mut; do
		name=$(sed -n '1s/^C[[:space:]]*//p' "$f")
		caught=""
		for try in 1 2 3; do
			out=$("$LITMUS" --backend "$b" --cc "$HCC" --iterations "$ITER" --mutate smp_mb=barrier "$f")
			rc=$?
			caught=$(echo "$out" | grep -F "Verdict $name FAIL" | head -n 1)
			[ "$rc" -eq 1 ] && [ -n "$caught" ] && break
			caught=""
		done
		if [ -n "$caught" ]; then
			tp=$((tp + 1))
			echo "mutation smp_mb=barrier, backend $b: caught: $(echo "$out" | grep -F "Observation $name ")"
		else
			tf=$((tf + 1))
			echo "mutation smp_mb=barrier, backend $b: NOT caught on $f (exit $rc)"
		fi
	done
done
# Bad input (tests/litmus/bad/*.litmus, also fuzz seeds): each must give
# "FILE:LINE:COL: message" on stderr and exit status 2, never a crash.
bp=0 bf=0
for f in tests/litmus/bad/*.litmus; do
	[ -e "$f" ] || continue
	err=$("$LITMUS" --iterations 1 "$f" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -eq 2 ] && printf "%s\n" "$err" | grep -qE "^$f:[0-9]+:[0-9]+: ."; then
		bp=$((bp + 1))
	else
		bf=$((bf + 1))
		echo "bad input $f: exit $rc, expected 2 and $f:LINE:COL: message; got: $(printf "%s" "$err" | head -n 3)"
	fi
done
echo "bad input: $bp rejected with file:line:col, $bf wrong"
tp=$((tp + bp)); tf=$((tf + bf))
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
