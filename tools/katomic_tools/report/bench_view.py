"""The bench document as the report needs it: C11/asm per compiler (each c11-*
contender against the asm one of the same compiler, same rounds), the
SLOWER cells -- those its confirmation (bench.json "confirmation", rules.py
confirm()) claims, or without one the run's own rule, marked unconfirmed --
the candidates it did not claim, and why each claimed one is slower.

tools/report/bench-probes.tbl names the codegen probes each benchmark
kernel exercises, so a slower op can be told apart from a code-generation
loss: name<TAB>probes<TAB>known cause outside the probes (optional)<TAB>the
same in a few words, for the answer line (optional)."""
from dataclasses import dataclass, field

from . import rules


def read_probe_map(path):
    probes, causes, clauses = {}, {}, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            probes[cols[0]] = cols[1].split() if len(cols) > 1 else []
            if len(cols) > 2 and cols[2]:
                causes[cols[0]] = cols[2]
            if len(cols) > 3 and cols[3]:
                clauses[cols[0]] = cols[3]
    return probes, causes, clauses


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
    code_loss: str = ""     # the probes' codegen loss that explains it, if any
    conf: dict = None       # its bench.json confirmation entry (None: not confirmed)


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
        self.unclaimed = []         # (Cell, confirmation entry): candidates not claimed
        self.confirmation = doc.get("confirmation") if doc else None
        self.clauses = probe_map[2]
        if not doc:
            return
        label_of = {c["name"]: compiler_label(c["cc"]) for c in doc["contenders"]}
        probes, causes, _ = probe_map
        conf = {(e["contender"], e["kind"], e["name"], e["mode"], e["threads"]): e
                for e in (self.confirmation or {}).get("cells", [])}
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
            e = conf.get((r["contender"], c.kind, c.name, c.mode, c.threads))
            if self.confirmation is not None:
                if e is None:
                    continue
                if e["verdict"] != "slower":
                    self.unclaimed.append((c, e))
                    continue
            elif not rules.is_slower(c.kind, med, c.lowest):
                continue
            why, loss = self._why(c, probes.get(c.name, []), causes.get(c.name), native_verdict)
            if not rules.named_in_answer(c.kind, c.mode):
                why += ("; contended (every thread on one cache line): listed here, not named in the answer, as such "
                        "a figure changes between runs on a shared machine (docs/report.md)")
            self.slower.append(Slower(c, _evidence(c, e) + why, loss, e))

    @staticmethod
    def _why(c, probes, cause, native_verdict):
        """Why a cell is slower: a codegen loss of its probes, a known cause, or
        neither; and the codegen loss alone ("" if none)."""
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
            return why, "; ".join(bad)
        elif cause:
            why = cause
        elif probes and known == len(probes):
            why = ("the audit finds the same or better code for %s with %s: the gap is in the surrounding loop "
                   "or the machine, not in the atomics" % (" ".join(probes), c.label))
        else:
            why = "no codegen data for " + c.label
        return why, ""

    def slower_names(self):
        """The ops and workloads claimed slower that the answer line names, each
        once, in name order (the answer line must not depend on which figure was
        worse this time); contended per-op figures are listed, not named."""
        return sorted(dict.fromkeys(s.cell.name for s in self.slower if rules.named_in_answer(s.cell.kind, s.cell.mode)))

    def answer_items(self):
        """The answer line's list: each name claimed slower with, in a few
        words, whether code explains it (bench-probes.tbl's fourth column, or a
        codegen loss of its probes) or nothing does."""
        out = []
        for name in self.slower_names():
            cells = [s for s in self.slower if s.cell.name == name and rules.named_in_answer(s.cell.kind, s.cell.mode)]
            loss = next((s for s in cells if s.code_loss), None)
            if name in self.clauses:
                out.append("%s (explained by code: %s)" % (name, self.clauses[name]))
            elif loss:
                out.append("%s (explained by code: %s with %s)" % (name, loss.code_loss, loss.cell.label))
            else:
                out.append("%s (unexplained)" % name)
        return out

    def noise_floor(self):
        return self.confirmation.get("noise_floor") if self.confirmation else None

    def plot_cells(self):
        """Cells for the C11/asm plot: ops and judged workload points."""
        return [c for c in self.cells if c.kind == "op" or rules.is_judged_workload(c.threads, self.cpus)]



def _evidence(c, e):
    """How a slower figure was established: its confirmation's figures, or the run alone."""
    if e is None:
        return "slower in every round (%.2f..%.2f), not confirmed (no A/A control in this run); " % (c.lowest, c.highest)
    return ("confirmed: alone %.2f (%.2f-%.2f) against the A/A control's %.2f (%.2f-%.2f), apart by %.2f "
            "(the run: %.2f, %.2f-%.2f); " % (e["c11_asm_med"], e["c11_asm_low"], e["c11_asm_high"], e["aa_med"],
                                             e["aa_low"], e["aa_high"], e["margin"], c.ratio, c.lowest, c.highest))
