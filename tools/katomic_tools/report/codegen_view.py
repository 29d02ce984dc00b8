"""The codegen document as the report needs it: counts per compiler x target,
and the losses (worse or WEAKER probes) grouped by tools/report/losses.tbl."""
import re
from dataclasses import dataclass, field


@dataclass
class LossRule:
    target: str     # regular expressions (searched): target, compiler, verdict, probe (without probe_)
    compiler: str
    verdict: str
    probe: str
    label: str      # the group's name in the report
    why: str        # the explanation


def read_loss_rules(path):
    rules = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 6:
                raise ValueError("%s: line %d: 6 tab-separated columns expected, got %d" % (path, lineno, len(cols)))
            rules.append(LossRule(*cols[:6]))
    return rules


@dataclass
class LossGroup:
    target: str
    label: str
    why: str
    verdict: str                    # WEAKER if any probe in it is, else worse
    compilers: list = field(default_factory=list)
    probes: list = field(default_factory=list)
    reasons: list = field(default_factory=list)
    deltas: list = field(default_factory=list)   # C11 - reference instructions (x86-64)

    def examples(self, n=6):
        """The first n probes, ", ..." when there are more."""
        return ", ".join(self.probes[:n]) + (", ..." if len(self.probes) > n else "")

    def cost(self):
        """"+3 insns", "+1..+7 insns", or the first reasons when no delta is known."""
        if not self.deltas or max(self.deltas) <= 0:
            return "; ".join(self.reasons[:2])
        lo, hi = min(self.deltas), max(self.deltas)
        return "%+d insns" % lo if lo == hi else "%+d..%+d insns" % (lo, hi)


class CodegenView:
    def __init__(self, doc, native, rules):
        self.doc = doc
        self.native = native
        self.configs = doc["configs"] if doc else []
        self.groups = []
        self.native_verdict = {}        # (compiler, probe without probe_) -> (verdict, reason)
        by_key = {}
        for r in doc["results"] if doc else []:
            probe = r["probe"][len("probe_"):]
            if r["target"] == native:
                self.native_verdict[r["compiler"], probe] = (r["verdict"], r["reason"])
            if r["verdict"] not in ("worse", "WEAKER"):
                continue
            label, why = self._classify(rules, r, probe)
            g = by_key.get((r["target"], label))
            if g is None:
                g = by_key[r["target"], label] = LossGroup(r["target"], label, why, r["verdict"])
                self.groups.append(g)
            if r["verdict"] == "WEAKER":
                g.verdict = "WEAKER"
            if r["compiler"] not in g.compilers:
                g.compilers.append(r["compiler"])
            if probe not in g.probes:
                g.probes.append(probe)
            if r["reason"] not in g.reasons:
                g.reasons.append(r["reason"])
            if r["ref_insns"] is not None:
                g.deltas.append(r["c11_insns"] - r["ref_insns"])

    def _classify(self, rules, r, probe):
        """(group label, explanation): the first matching rule; else the probe
        itself (this machine's target) or the audit's reason (other targets)."""
        for rule in rules:
            if (re.search(rule.target, r["target"]) and re.search(rule.compiler, r["compiler"])
                    and re.search(rule.verdict, r["verdict"]) and re.search(rule.probe, probe)):
                return rule.label, rule.why
        if r["target"] == self.native:
            return probe, r["reason"]
        return re.sub(r"__aarch64_[a-z0-9_]+", "__aarch64_*", r["reason"]), ""

    def native_configs(self):
        return [c for c in self.configs if c["target"] == self.native]

    def other_configs(self):
        return [c for c in self.configs if c["target"] != self.native]

    def native_groups(self):
        """Groups on this machine's target: those hitting most compilers first, then most probes."""
        return sorted((g for g in self.groups if g.target == self.native),
                      key=lambda g: (-len(g.compilers), -len(g.probes)))

    def other_groups(self):
        """Groups on other targets: WEAKER first, then most probes."""
        return sorted((g for g in self.groups if g.target != self.native),
                      key=lambda g: (g.verdict != "WEAKER", -len(g.probes)))

    def probes_per_compiler(self):
        return max([c["probes"] for c in self.native_configs()] or [0])
