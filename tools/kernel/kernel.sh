#!/bin/sh
# katomic kernel: the Linux kernel on katomic's C11 atomics (tools/katomic_tools/kernel/).
root=${KATOMIC_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "katomic kernel: python3 not found (apt-get install python3)" >&2; exit 2; }
PYTHONPATH=$root/tools${PYTHONPATH:+:$PYTHONPATH} exec python3 -m katomic_tools.kernel "$@"
