#!/bin/sh
# katomic report: tools/katomic_tools/report/ (runs the instruments, renders from their JSON).
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHONPATH=$root/tools${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic_tools.report "$@"
