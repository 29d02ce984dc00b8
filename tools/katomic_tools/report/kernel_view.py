"""The kernel results (a katomic-kernel document, tools/schema/kernel.schema.json)
as the report reads them: which boots passed, which C11 boots failed where the
stock kernel of the same config, compiler and -smp passed (rules.py judges)."""
from . import rules


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

    def phrase(self):
        """What the kernel showed, for the answer line."""
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
        return "the Linux kernel on C11: " + what
