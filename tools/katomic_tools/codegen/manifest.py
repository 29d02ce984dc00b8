"""The probes' manifest: the `/*@ probe_NAME class=ORDER shape=SHAPE */` lines
gen/gen-probes.awk writes before every function of tools/codegen/generated/probes.c."""
import re
from dataclasses import dataclass

_LINE = re.compile(r"^/\*@ (\S+) class=(\S+) shape=(\S+) \*/$")


@dataclass
class Probe:
    name: str       # probe_atomic_add
    cls: str        # the kernel ordering class (kernel-seq.tbl's third column)
    shape: str      # rmw, xchg, cas, cond, load, store, fence, other


def read(path):
    """Every probe, in the file's order."""
    probes = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.startswith("/*@ "):
                continue
            mo = _LINE.match(line.rstrip("\n"))
            if not mo:
                raise ValueError("%s: line %d: malformed manifest line (want /*@ probe_NAME class=C shape=S */)"
                                 % (path, lineno))
            probes.append(Probe(*mo.groups()))
    return probes
