"""One machine's report: the documents read, joined and judged (rules.py).
Sections (sections/*.py) render a Model; nothing here formats output."""
import os
from dataclasses import dataclass

from ..common import paths
from . import rules
from .bench_view import BenchView, read_probe_map
from .codegen_view import CodegenView, read_loss_rules
from .kernel_view import KernelView
from .litmus_view import LitmusView

STAGES = ("codegen", "litmus", "bench")


@dataclass
class CompilerRow:
    """One row of the verdict table: a compiler audited here and/or benchmarked."""
    name: str
    codegen: dict = None        # its codegen config on this machine's target
    bench: object = None        # bench_view.PerCompiler, when it was benchmarked


@dataclass
class Loss:
    """One line of "Where C11 still loses": a speed cell or a codegen loss group."""
    kind: str           # "speed" or "code"
    what: str
    compilers: str
    probes: int
    examples: str
    verdict: str        # slower, worse, WEAKER
    cost: str
    why: str


class Model:
    def __init__(self, inputs):
        self.inputs = inputs
        run = inputs.run
        self.machine = run["machine"]
        self.name = self.machine["name"]
        self.native = self.machine["arch"]
        self.mode = self.machine["mode"]
        self.seconds = run["seconds"]
        self.compilers = run["compilers"]
        self.missing_tools = run["missing"]
        self.missing_note = {m["name"]: m["note"] for m in run["missing"]}
        self.stage = run["stages"]
        here = os.path.join(paths.root(), "tools", "report")
        self.codegen = CodegenView(inputs.codegen, self.native, read_loss_rules(os.path.join(here, "losses.tbl")))
        self.litmus = LitmusView(self.stage["litmus"], inputs.litmus)
        self.bench = BenchView(inputs.bench, lambda c, p: self.codegen.native_verdict.get((c, p)),
                               read_probe_map(os.path.join(here, "bench-probes.tbl")))
        self.kernel = KernelView(inputs.kernel) if inputs.kernel else None
        self.verify = inputs.verify
        self.rows = self._rows()
        self.losses = self._losses()
        self.answer, self.line = rules.answer(self)
        self.exit = rules.exit_status(self.litmus.forbidden(), self.weaker_native,
                                      (self.kernel.wrong if self.kernel else 0) +
                                      (self.verify["totals"]["weaker"] + len(rules.slow_weaker(self.verify))
                                       if self.verify else 0))

    # ---------------------------------------------------------------- stages
    def ok(self, stage):
        return self.stage[stage]["status"] == "ok"

    def stage_problem(self, stage):
        """"" when the stage ran, else "litmus: failed -- why"."""
        s = self.stage[stage]
        if s["status"] == "ok":
            return ""
        return "%s: %s%s" % (stage, s["status"], " -- " + s["note"] if s.get("note") else "")

    # ---------------------------------------------------------------- the verdict table
    def _rows(self):
        rows = {}
        for c in self.codegen.native_configs():
            rows[c["compiler"]] = CompilerRow(c["compiler"], codegen=c)
        for label in self.bench.labels:
            rows.setdefault(label, CompilerRow(label))
            rows[label].bench = self.bench.by_label[label] if self.bench.by_label[label].ops else None
        return sorted(rows.values(), key=lambda r: _version_key(r.name))

    def missing_compiler_rows(self):
        """gcc / clang not installed at all: a row saying so."""
        out = []
        for family in ("gcc", "clang"):
            if not any(r.name.startswith(family) for r in self.rows) and family in self.missing_note:
                out.append((family, self.missing_note[family]))
        return out

    @property
    def weaker_native(self):
        return sum(c["weaker"] for c in self.codegen.native_configs())

    @property
    def speed(self):
        """[(compiler, C11/asm geometric mean)] for the benchmarked compilers, in row order."""
        return [(r.name, r.bench.geomean()) for r in self.rows if r.bench]

    def speed_list(self):
        return ", ".join("%.2f %s" % (g, c) for c, g in self.speed)

    # ---------------------------------------------------------------- losses
    def _losses(self):
        out = [Loss("speed", s.cell.title, s.cell.label, 1, "", "slower",
                    "%.2fx" % (s.conf["c11_asm_med"] if s.conf else s.cell.ratio), s.why) for s in self.bench.slower]
        for g in self.codegen.native_groups():
            out.append(Loss("code", g.label, ", ".join(g.compilers), len(g.probes), g.examples(), g.verdict,
                            g.cost(), g.why))
        return out

    # ---------------------------------------------------------------- what rules.answer reads
    @property
    def forbidden(self):
        return self.litmus.forbidden()

    @property
    def forbidden_c11(self):
        return self.litmus.forbidden("c11")

    @property
    def forbidden_asm(self):
        return self.litmus.forbidden("asm")

    @property
    def litmus_tests(self):
        return self.litmus.tests_run()

    @property
    def codegen_ok(self):
        return self.ok("codegen")

    @property
    def litmus_ok(self):
        return self.ok("litmus")

    @property
    def litmus_runs_ok(self):
        return bool(self.litmus.ok_runs())

    @property
    def missing(self):
        out = ["%s %s" % (s, self.stage[s]["status"]) for s in STAGES if not self.ok(s)]
        if self.ok("litmus") and not self.litmus.ok_runs():
            out.append("litmus runs failed")
        if self.kernel is not None:
            out += self.kernel.missing()
        return out

    @property
    def code_loss_families(self):
        return sum(1 for l in self.losses if l.kind == "code")

    @property
    def slower_names(self):
        """The answer line's slower ops and workloads, each with what explains it."""
        return self.bench.answer_items()

    @property
    def slower_confirmed(self):
        return self.bench.confirmation is not None

    @property
    def weaker_elsewhere(self):
        return ["%d on %s (%s)" % (c["weaker"], c["target"], c["compiler"])
                for c in self.codegen.other_configs() if c["weaker"] > 0]

    # ---------------------------------------------------------------- captions
    def header(self):
        return "%s run, %s, %s s" % (self.mode, self.machine["date"], self.seconds)

    def machine_line(self):
        m = self.machine
        return "%s, %s, %s CPUs (load %s), %s, %s; katomic %s" % (
            self.native, m["cpu"], m["cpus"], m["load"], m["kernel"], m["os"], m["katomic"])

    def code_caption(self):
        if self.ok("codegen"):
            return "code: %d %s probes per compiler, C11 backend vs asm backend (same compiler)" % (
                self.codegen.probes_per_compiler(), self.native)
        return "code: not audited -- " + self.stage_problem("codegen")

    def speed_caption(self):
        if self.ok("bench"):
            b = self.inputs.bench
            return ("speed: C11 ns/op / asm ns/op, %sbench, median of %d rounds; < 1 = C11 faster; workloads: "
                    "threads <= CPUs" % ("quick " if b["quick"] else "", b["rounds"]))
        return "speed: not measured -- " + self.stage_problem("bench")

    def litmus_caption(self):
        if self.ok("litmus"):
            dirs = ", ".join(paths.relative_to_root(d) for d in self.litmus.dirs)
            return "litmus on this CPU: %s, %s iterations per test" % (dirs, self.litmus.iterations())
        return "litmus: not run -- " + self.stage_problem("litmus")


def _version_key(name):
    """gcc before clang, then by version; plain names after numbered ones."""
    parts = name.split("-")
    v = int(parts[-1]) if len(parts) > 1 and parts[-1].isdigit() else 999
    family = {"gcc": "0", "clang": "1"}.get(parts[0], "2")
    return "%s%04d%s" % (family, v, name)
