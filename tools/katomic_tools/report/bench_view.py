"""The bench document as the report needs it: C11/asm per compiler (each c11-*
contender against the asm one of the same compiler, same rounds), the
SLOWER cells (rules.py) and why each is slower.

tools/report/bench-probes.tbl names the codegen probes each benchmark
kernel exercises, so a slower op can be told apart from a code-generation
loss: name<TAB>probes<TAB>known cause outside the probes (optional)."""
from dataclasses import dataclass, field

from . import rules


def read_probe_map(path):
    probes, causes = {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            probes[cols[0]] = cols[1].split() if len(cols) > 1 else []
            if len(cols) > 2 and cols[2]:
                causes[cols[0]] = cols[2]
    return probes, causes


def compiler_label(cc):
    """"gcc 12.2.0" -> gcc-12 (how the codegen audit names compilers)."""
    w = cc.split()
    return "%s-%s" % (w[0], w[1].split(".")[0]) if len(w) > 1 else cc


@dataclass
class Cell:
    """One C11/asm figure: an op in a mode, or a workload at a thread count."""
    label: str          # compiler (gcc-12)
    kind: str
    name: str
    mode: str
    threads: int
    ratio: float
    lowest: float
    highest: float

    @property
    def title(self):
        if self.kind == "op":
            return "%s/%s" % (self.name, self.mode)
        return "%s/%d %s" % (self.name, self.threads, "thread" if self.threads == 1 else "threads")


@dataclass
class Slower:
    cell: Cell
    why: str


@dataclass
class PerCompiler:
    ops: list = field(default_factory=list)         # ratios
    worst: Cell = None
    workloads: list = field(default_factory=list)
    worst_workload: Cell = None

    def geomean(self):
        return rules.geomean(self.ops) if self.ops else None

    def workloads_geomean(self):
        return rules.geomean(self.workloads) if self.workloads else None


class BenchView:
    def __init__(self, doc, native_verdict, probe_map):
        """native_verdict(compiler, probe) -> (verdict, reason) or None (codegen on this target)."""
        self.doc = doc
        self.cpus = doc["cpus"] if doc else None
        self.labels = []            # compilers in order of first appearance
        self.by_label = {}
        self.cells = []             # every C11/asm figure measured
        self.slower = []
        if not doc:
            return
        label_of = {c["name"]: compiler_label(c["cc"]) for c in doc["contenders"]}
        probes, causes = probe_map
        for r in doc["results"]:
            if not r["contender"].startswith("c11-"):
                continue
            label = label_of.get(r["contender"], r["contender"])
            if label not in self.by_label:
                self.labels.append(label)
                self.by_label[label] = PerCompiler()
            med = r.get("ratio_asm_med")
            if r["status"] != "ok" or not med or med <= 0:
                continue
            c = Cell(label, r["kind"], r["name"], r["mode"], r["threads"], med, r["ratio_asm_min"], r["ratio_asm_max"])
            self.cells.append(c)
            pc = self.by_label[label]
            if c.kind == "op":
                pc.ops.append(med)
                if pc.worst is None or med > pc.worst.ratio:
                    pc.worst = c
            elif rules.is_judged_workload(c.threads, self.cpus):
                pc.workloads.append(med)
                if pc.worst_workload is None or med > pc.worst_workload.ratio:
                    pc.worst_workload = c
            else:
                continue
            if rules.is_slower(c.kind, med, c.lowest):
                self.slower.append(Slower(c, self._why(c, probes.get(c.name, []), causes.get(c.name), native_verdict)))

    @staticmethod
    def _why(c, probes, cause, native_verdict):
        """Why a cell is slower: a codegen loss of its probes, a known cause, or neither."""
        bad, known = [], 0
        for p in probes:
            v = native_verdict(c.label, p)
            if v is None:
                continue
            known += 1
            if v[0] in ("worse", "WEAKER"):
                bad.append("%s %s" % (p, v[1]))
        if bad:
            why = "codegen: " + "; ".join(bad)
        elif cause:
            why = cause
        elif probes and known == len(probes):
            why = ("the audit finds the same or better code for %s with %s: the gap is in the surrounding loop "
                   "or the machine, not in the atomics" % (" ".join(probes), c.label))
        else:
            why = "no codegen data for " + c.label
        return "slower in every round (%.2f..%.2f); %s" % (c.lowest, c.highest, why)

    def slower_names(self):
        """The ops and workloads slower in every round, each once."""
        return list(dict.fromkeys(s.cell.name for s in self.slower))

    def plot_cells(self):
        """Cells for the C11/asm plot: ops and judged workload points."""
        return [c for c in self.cells if c.kind == "op" or rules.is_judged_workload(c.threads, self.cpus)]

