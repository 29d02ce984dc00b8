#!/bin/sh
# katomic bench: tools/katomic_tools/bench/ (the driver is bench/driver.c).
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHONPATH=$root/tools${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic_tools.bench "$@"
