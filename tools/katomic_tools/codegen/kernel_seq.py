"""tools/codegen/kernel-seq.tbl: what the kernel itself emits, per architecture
and ordering class, and the ordering each class needs (the table's header
explains its columns).  The first matching line applies."""
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

    def lookup(self, arch, isa, cls, shape):
        for r in self.rows:
            if _glob(r.arch, arch) and _glob(r.isa, isa) and _glob(r.cls, cls) and _glob(r.shape, shape):
                return r
        return None
