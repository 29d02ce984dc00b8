"""The kernel results (a katomic-kernel document, tools/schema/kernel.schema.json)
as the report reads them: which boots passed, which C11 boots failed where the
stock kernel of the same config, compiler and -smp passed (rules.py judges)."""
from . import rules
from .kernel_merge import unique


def _label(b):
    return "%s %s %s -smp %s" % (b["variant"], b["config"], b["cc"], b["smp"])


class KernelView:
    def __init__(self, doc):
        self.doc = doc
        self.builds = doc["builds"]
        self.boots = doc["boots"]
        self.audit = doc["audit"]
        self.kept_asm = doc["c11_kept_asm"]
        self.kvm = doc["machine"]["kvm"]
        stock_ok = {(b["config"], b["cc"], b["smp"]) for b in self.boots
                    if b["variant"] == "stock" and b["passed"]}
        self.c11 = [b for b in self.boots if b["variant"] != "stock"]     # c11, c11fence
        self.c11_passed = [b for b in self.c11 if b["passed"]]
        # A C11 boot that failed where the stock kernel passed: the C11 atomics' fault.
        self.c11_regressions = [b for b in self.c11 if not b["passed"]
                                and (b["config"], b["cc"], b["smp"]) in stock_ok]
        # The code audit of an --arch kernel: a kernel operation whose C11 code is
        # WEAKER than the kernel's own sequence is a correctness failure, as a
        # failed boot is.
        self.weaker = [a for a in self.audit if a.get("weaker", 0) > 0]
        self.x86_audit = [a for a in self.audit if a.get("arch", "x86_64") == "x86_64"]
        self.cross_audit = [a for a in self.audit if a.get("arch", "x86_64") != "x86_64"]
        self.failed = [b for b in self.boots if not b["passed"]]
        self.failed_builds = [b for b in self.builds if not b["ok"]]
        self.torture_s = min((b["torture_s"] for b in self.boots), default=0)

    @staticmethod
    def label(b):
        return _label(b)

    def torture_types(self):
        seen = []
        for b in self.boots:
            for t in b["torture"]:
                name = "%s %s" % (t["name"], t["type"])
                if name not in seen:
                    seen.append(name)
        return seen

    def missing(self):
        """What keeps the kernel result from being complete ([] = nothing)."""
        out = []
        if self.failed_builds:
            out.append("%d kernel build(s) failed" % len(self.failed_builds))
        other = [b for b in self.failed if b not in self.c11_regressions]
        if other:
            out.append("%d kernel boot(s) failed, the stock kernel's too or without one to compare" % len(other))
        if not self.c11:
            out.append("no C11 kernel booted")
        return out

    @property
    def wrong(self):
        """Correctness failures of the C11 kernel: regressed boots + WEAKER audits."""
        return len(self.c11_regressions) + len(self.weaker)

    def boot_verdict(self, config, cc, variant="c11"):
        """The boots of one build, as one cell: PASS -smp 2, FAIL -smp 1: why; or - (not booted)."""
        bs = [b for b in self.boots if (b["config"], b["cc"], b["variant"]) == (config, cc, variant)]
        return "; ".join("PASS -smp %s" % b["smp"] if b["passed"] else
                         "FAIL -smp %s: %s" % (b["smp"], (b["problems"] or ["?"])[0]) for b in bs) or "-"

    def phrase(self):
        """What the kernel showed, for the answer line."""
        if self.weaker and not self.c11_regressions:
            a = self.weaker[0]
            return ("the Linux kernel on C11 FAILED its code audit: %d kernel operation(s) WEAKER than the "
                    "kernel's own sequence (%s %s %s)" % (sum(x["weaker"] for x in self.weaker),
                                                           a.get("arch", "x86_64"), a["config"], a["cc"]))
        if self.c11_regressions:
            b = self.c11_regressions[0]
            return ("the Linux kernel on C11 FAILED where the stock kernel passed (%d boot(s); %s: %s)"
                    % (len(self.c11_regressions), _label(b), (b["problems"] or ["?"])[0]))
        if not self.c11:
            return "the Linux kernel on C11: no C11 boot"
        smps = sorted({b["smp"] for b in self.c11}, reverse=True)
        ccs = sorted({b["cc"] for b in self.c11})
        what = "%d/%d C11 kernel boots passed (-smp %s; %s): self-tests, %s" % (
            len(self.c11_passed), len(self.c11), " and ".join(smps), ", ".join(ccs),
            "torture %d s per test, 0 errors, no splats" % self.torture_s if self.torture_s
            else "no torture")
        if self.torture_s < rules.KERNEL_TORTURE_S:
            what += " (a short run: the full one tortures %d s per test)" % rules.KERNEL_TORTURE_S
        if self.cross_audit:
            what += "; code audit on %s: 0 WEAKER" % ", ".join(unique(a["arch"] for a in self.cross_audit))
        return "the Linux kernel on C11: " + what
