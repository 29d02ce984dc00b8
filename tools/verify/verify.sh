#!/bin/sh
# katomic verify: the compiled atomics against the LKMM with herd7 (tools/katomic_tools/verify/).
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHONPATH=$root/tools${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic_tools.verify "$@"
