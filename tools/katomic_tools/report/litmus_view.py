"""The litmus runs as the report needs them: per run the counts, per test the
outcome of every run, and the problems (anything but PASS / not seen and the
verdicts of tests run but not judged: UNJUDGED for Result Maybe or none, DATARACE).

forbidden = iterations that ended in a state the test forbids: judged by
herd7, every state outside the states LKMM allows (the runner's `forbidden`);
judged by the Result: comment, positive for `Never` (exists ...), negative
for `Always` (forall ...).  weak seen = of the tests expected `Sometimes`,
those whose condition was witnessed.  by herd7 / by comment: the tests each
oracle judged (documents from before the oracle: all by comment)."""
from dataclasses import dataclass, field

PASSING = ("PASS", "not seen")
JUDGED = ("PASS", "not seen", "FAIL")      # verdicts of a test that ran to the end
NOT_JUDGED = ("UNJUDGED", "DATARACE")      # ran to the end, reported, judged by nobody


@dataclass
class RunSummary:
    backend: str
    cc: str
    exit: int
    ok: bool
    note: str = ""          # why it did not run (ok = False)
    tests: int = 0
    passed: int = 0
    failed: int = 0
    forbidden: int = 0
    weak_seen: int = 0
    weak_tests: int = 0
    not_seen: int = 0
    not_judged: int = 0
    by_herd7: int = 0
    by_comment: int = 0
    disagreements: int = 0
    oracle: bool = False
    skipped: int = 0
    errors: int = 0
    iterations: int = 0     # per test, as asked
    problems: list = field(default_factory=list)

    @property
    def name(self):
        return "%s/%s" % (self.backend, self.cc)


def summarise(entry, doc, iterations):
    """entry: run.json's stages.litmus.runs[i]; doc: its document (None if it has none)."""
    if doc is None or entry["status"] != "ok":
        return RunSummary(entry["backend"], entry["cc"], entry["exit"], False, entry.get("note") or "no document")
    s = RunSummary(entry["backend"], entry["cc"], entry["exit"], True, iterations=iterations,
                   oracle=bool(doc.get("oracle")), disagreements=doc.get("disagreements", 0))
    for t in doc["tests"]:
        s.tests += 1
        v, ex = t["verdict"], t.get("expected", "")
        name = t.get("name") or t["file"]
        pos, neg = t.get("positive", 0), t.get("negative", 0)
        s.passed += v in PASSING
        s.not_seen += v == "not seen"
        s.failed += v == "FAIL"
        s.not_judged += v in NOT_JUDGED
        s.skipped += v == "SKIP"
        s.errors += v in ("ERROR", "parse error")
        if v in JUDGED:
            by = t.get("judged_by", "Result:")
            s.by_herd7 += by == "herd7"
            s.by_comment += by == "Result:"
            if "forbidden" in t:
                s.forbidden += t["forbidden"]
            elif ex == "Never":
                s.forbidden += pos
            elif ex == "Always":
                s.forbidden += neg
            if ex == "Sometimes":
                s.weak_tests += 1
                s.weak_seen += pos > 0
        if v not in PASSING + NOT_JUDGED:
            why = t.get("reason") or t.get("error") or ""
            if v == "FAIL":
                why = "expected %s by %s, observed %s (%d positive, %d negative%s)" % (
                    ex, t.get("judged_by") or "Result:", t.get("observation", ""), pos, neg,
                    ", %d in states LKMM forbids" % t["forbidden"] if t.get("judged_by") == "herd7" else "")
            s.problems.append("%s: %s %s: %s" % (s.name, name, v, why))
    return s


class LitmusView:
    def __init__(self, stage, docs):
        """stage: run.json's stages.litmus; docs: {run index: document or None}."""
        self.stage = stage
        self.dirs = stage.get("dirs", [])
        self.notes = stage.get("notes", [])
        it = stage.get("iterations") or 0
        self.runs = [summarise(e, docs.get(i), it) for i, e in enumerate(stage.get("runs", []))]
        # every test x run (tests that ran to a verdict), in order of first appearance
        self.tests, self.expected, self.cell, self.run_names = [], {}, {}, []
        self.iterations_total = 0
        for i, e in enumerate(stage.get("runs", [])):
            doc = docs.get(i)
            if doc is None or e["status"] != "ok":
                continue
            run = "%s/%s" % (e["backend"], e["cc"])
            for t in doc["tests"]:
                # not run: SKIP, ERROR, and UNJUDGED with a reason (no iterations, no states)
                if t["verdict"] not in JUDGED + NOT_JUDGED or "iterations" not in t:
                    continue
                name = t.get("name") or t["file"]
                if name not in self.expected:
                    self.tests.append(name)
                    self.expected[name] = t["expected"]
                if run not in self.run_names:
                    self.run_names.append(run)
                self.iterations_total += t["iterations"]
                self.cell[name, run] = t

    def ok_runs(self):
        return [r for r in self.runs if r.ok]

    def problems(self):
        return [p for r in self.runs for p in r.problems]

    def tests_run(self):
        return sum(r.tests - r.skipped - r.errors for r in self.ok_runs())

    def forbidden(self, backend=None):
        return sum(r.forbidden for r in self.ok_runs() if backend is None or
                   (r.backend == "c11") == (backend == "c11"))

    def failed(self):
        return sum(r.failed for r in self.ok_runs())

    def iterations(self):
        """Iterations per test of the last run that completed (as the runner was asked)."""
        ok = self.ok_runs()
        return ok[-1].iterations if ok else ""
