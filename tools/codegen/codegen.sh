#!/bin/sh
# katomic codegen: the code-generation audit (tools/katomic_tools/codegen/).
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
PYTHONPATH=$root/tools${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic_tools.codegen "$@"
