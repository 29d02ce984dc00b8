"""tools/codegen/kernel-seq.tbl: what the kernel itself emits, per architecture
and ordering class, and the ordering each class needs (the table's header
explains its columns).  The first matching line applies."""
import re
from dataclasses import dataclass


@dataclass
class KernelSeq:
    arch: str
    isa: str
    cls: str
    shape: str
    kernel: str     # F full fence, f lighter fence, A one atomic instruction, L a loop, - nothing, ? unknown
    need: str       # pre=rel|full post=acq|full fence=LETTERS, or -

    def count(self, token):
        return self.kernel.split().count(token)


def _glob(pattern, s):
    """'*' matches anything, 'x*' a prefix, else equality."""
    return pattern == "*" or pattern == s or (pattern.endswith("*") and s.startswith(pattern[:-1]))


class KernelTable:
    def __init__(self, path):
        self.rows = []
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                cols = [c.strip() for c in line.rstrip("\n").split("|")]
                if len(cols) < 6:
                    raise ValueError("%s: line %d: 6 columns expected (arch|isa|class|shape|kernel|need), got %d"
                                     % (path, lineno, len(cols)))
                self.rows.append(KernelSeq(*cols[:6]))

    def lookup(self, arch, isa, cls, shape, size=None):
        """size: the probe's operand size in bytes (its name's _N suffix), or None."""
        for r in self.rows:
            if _glob(r.arch, arch) and _glob(r.isa, isa) and _glob(r.cls, cls) and _shape(r.shape, shape, size):
                return r
        return None


def _shape(pattern, shape, size):
    """SHAPE@N,M matches that shape at those operand sizes only (riscv64's
    1- and 2-byte xchg is a loop on the word, its others one AMO)."""
    if "@" not in pattern:
        return _glob(pattern, shape)
    want, sizes = pattern.split("@", 1)
    return _glob(want, shape) and size is not None and str(size) in sizes.split(",")


def probe_size(name):
    """The operand size a probe's name ends with (probe_xchg_relaxed_2 -> 2), 8 for atomic64_t's
    ops, or None."""
    m = re.search(r"_(1|2|4|8|16)$", name)
    if m:
        return int(m.group(1))
    return 8 if re.match(r"^probe_atomic64_", name) else None
