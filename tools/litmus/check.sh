#!/bin/sh
# Run the litmus corpus (tests/litmus and LKMM_DIR) under each backend; sum the verdicts.
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
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ]
