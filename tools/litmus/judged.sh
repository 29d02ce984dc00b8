# Sourced by check.sh and check-corpus.sh: judged ARGS... runs $LITMUS through
# `katomic litmus` (tools/katomic_tools/litmus), every observed state judged by
# herd7's LKMM where herd7 is found (JUDGE=herd7 requires it; default auto), else
# by the Result: comments, with a note.
judged() {
	if command -v python3 >/dev/null 2>&1; then
		PYTHONPATH=tools${PYTHONPATH:+:$PYTHONPATH} python3 -m katomic_tools.litmus --runner "$LITMUS" --judge "${JUDGE:-auto}" "$@"
	else
		echo "note: no python3: no herd7 oracle, judged by the Result: comments" >&2
		"$LITMUS" "$@"
	fi
}
