#!/bin/sh
# make check-codegen / make codegen-update: tools/katomic_tools/codegen/baseline.py
#   sh tools/codegen/check.sh [--update]
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHONPATH=$root/tools${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic_tools.codegen.baseline "$@"
