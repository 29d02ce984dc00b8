"""Run the three instruments one after the other and keep their documents:
OUT/codegen/codegen.json, OUT/litmus/BACKEND-CC.json, OUT/bench/bench.json,
and OUT/run.json (tools/schema/run.schema.json), which says what ran, how
it went and what was skipped.  Logs go to OUT/logs/."""
import os
import shutil
import subprocess
import sys
import time

from ..common import compilers, documents, paths
from ..litmus import oracle as litmus_oracle
from . import machine

SCHEMA_VERSION = 1


def progress(msg):
    print("katomic report: " + msg, file=sys.stderr, flush=True)


def _last_line(path, skip_prefix=None):
    try:
        lines = [l.rstrip("\n") for l in open(path, errors="replace") if l.strip()]
    except OSError:
        return ""
    if skip_prefix:
        lines = [l for l in lines if not l.startswith(skip_prefix)]
    return lines[-1] if lines else ""


def _notes(path):
    try:
        return [l[len("note: "):].rstrip("\n") for l in open(path, errors="replace") if l.startswith("note: ")]
    except OSError:
        return []


def _py(module, args, stdout, stderr):
    env = dict(os.environ, PYTHONPATH=os.path.join(paths.root(), "tools") + (
        ":" + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else ""))
    with open(stdout, "w") as o, open(stderr, "w") as e:
        return subprocess.run([sys.executable, "-m", module] + args, stdout=o, stderr=e, env=env).returncode


class Runner:
    def __init__(self, out, mode, skip, litmus_dirs):
        self.out, self.mode, self.skip, self.extra_dirs = out, mode, skip, litmus_dirs
        self.logs = os.path.join(out, "logs")
        self.full = mode == "full"

    def skipped(self, stage, n):
        progress("[%d/3] %s: skipped (--skip)" % (n, stage))
        return {"status": "skipped", "note": "left out with --skip " + stage, "notes": []}

    # ------------------------------------------------------------ 1. codegen
    def codegen(self):
        if "codegen" in self.skip:
            return self.skipped("codegen", 1)
        t0 = time.time()
        progress("[1/3] codegen: compiling the probes with every installed compiler x target (%s)..." % self.mode)
        log = os.path.join(self.logs, "codegen.log")
        rc = _py("katomic_tools.codegen", ([] if self.full else ["--quick"]) + ["--out", os.path.join(self.out, "codegen")],
                 os.path.join(self.logs, "codegen.out"), log)
        doc = os.path.join(self.out, "codegen", "codegen.json")
        notes = _notes(log)
        if rc != 0 or not os.path.exists(doc):
            progress("[1/3] codegen: FAILED (status %d), see %s" % (rc, log))
            return {"status": "failed", "notes": notes, "note": "katomic codegen exited with status %d: %s (log: logs/codegen.log)"
                    % (rc, _last_line(log, "  done"))}
        n = len(documents.read(doc, "codegen")["configs"])
        secs = int(time.time() - t0)
        progress("[1/3] codegen: done in %d s (%d compiler x target configurations, %d skipped)" % (secs, n, len(notes)))
        return {"status": "ok", "note": "%d s" % secs, "seconds": secs, "notes": notes, "document": "codegen/codegen.json"}

    # ------------------------------------------------------------ 2. litmus
    def litmus(self):
        iters, timeout = (2000000, 600) if self.full else (200000, 120)
        if "litmus" in self.skip:
            return dict(self.skipped("litmus", 2), dirs=[], iterations=iters, runs=[])
        t0 = time.time()
        root, build = paths.root(), paths.build()
        notes = []
        dirs = [os.path.join(root, "tests", "litmus")] + self.extra_dirs
        lkmm = os.path.join(os.path.dirname(root), "shared", "litmus", "lkmm")
        if self.full:
            if os.path.isdir(lkmm):
                dirs.append(lkmm)
            else:
                notes.append("the kernel's litmus tests (%s) not found: skipped" % lkmm)
        backends = ["c11"]
        if os.uname().machine == "x86_64" and os.path.exists(os.path.join(root, "include", "katomic", "backend", "asm.h")):
            backends.append("asm")
        else:
            notes.append("asm backend: x86-64 only, not run on %s" % os.uname().machine)
        hccs = []
        for c in (["gcc", "clang"] if self.full else ["gcc"]):
            if shutil.which(c):
                hccs.append(c)
            else:
                notes.append("harness compiler %s not installed: skipped (apt-get install %s)" % (c, c))
        if not hccs and shutil.which("cc"):
            hccs = ["cc"]
        stage = {"notes": notes, "dirs": [paths.relative_to_root(d) for d in dirs], "iterations": iters, "runs": []}
        if not hccs:
            progress("[2/3] litmus: no compiler")
            return dict(stage, status="missing", note="no C compiler for the harnesses (apt-get install gcc)")
        progress("[2/3] litmus: building the runner...")
        blog = os.path.join(self.logs, "litmus-build.log")
        with open(blog, "w") as f:
            rc = subprocess.run(["make", "-s", "-C", root, "BUILD=" + build, "litmus"], stdout=f, stderr=f).returncode
        runner = os.path.join(build, "katomic-litmus")
        if rc != 0 or not os.access(runner, os.X_OK):
            progress("[2/3] litmus: FAILED to build the runner, see " + blog)
            return dict(stage, status="failed",
                        note="the litmus runner did not build: %s (log: logs/litmus-build.log)" % _last_line(blog))
        # herd7's LKMM states judge every observed state where herd7 is found (katomic litmus --judge auto)
        progress("[2/3] litmus: herd7's LKMM states for the tests (cached after the first run)...")
        with open(os.path.join(self.logs, "litmus-oracle.log"), "w") as olog:
            try:
                oracle_args, what = litmus_oracle.prepare(runner, dirs, "auto", stream=olog)
            except (OSError, subprocess.SubprocessError) as err:
                oracle_args, what = [], "herd7 oracle failed (%s): judged by the Result: comments" % err
        if what:
            notes.append(what)
        stage["judge"] = "herd7" if oracle_args else "comment"
        for hc in hccs:
            for b in backends:
                progress("[2/3] litmus: %s backend, harnesses by %s, %d iterations per test..." % (b, hc, iters))
                rel = "litmus/%s-%s.json" % (b, hc)
                log = os.path.join(self.logs, "litmus-%s-%s.log" % (b, hc))
                with open(os.path.join(self.out, rel), "w") as o, open(log, "w") as e:
                    rc = subprocess.run([runner, "--backend", b, "--cc", hc, "--iterations", str(iters),
                                         "--timeout", str(timeout), "--json"] + oracle_args + dirs,
                                        stdout=o, stderr=e).returncode
                entry = {"backend": b, "cc": hc, "exit": rc, "document": rel}
                try:
                    documents.read(os.path.join(self.out, rel), "litmus")
                    entry.update(status="ok", note="-")
                except ValueError as err:
                    why = _last_line(log) if os.path.getsize(os.path.join(self.out, rel)) == 0 else str(err)
                    entry.update(status="error", note="%s (log: logs/litmus-%s-%s.log)" % (why, b, hc))
                stage["runs"].append(entry)
        secs = int(time.time() - t0)
        progress("[2/3] litmus: done in %d s (%d runs)" % (secs, len(stage["runs"])))
        return dict(stage, status="ok", note="%d s" % secs, seconds=secs)

    # ------------------------------------------------------------ 3. bench
    def bench(self):
        if "bench" in self.skip:
            return self.skipped("bench", 3)
        t0 = time.time()
        progress("[3/3] bench: C11 vs asm vs peers, side by side, then each candidate loss again against the A/A "
                 "control (%s)..." % self.mode)
        log = os.path.join(self.logs, "bench.log")
        rc = _py("katomic_tools.bench", ([] if self.full else ["--quick"]) + ["--confirm", "--no-plots", "--out",
                                                                              os.path.join(self.out, "bench")],
                 os.path.join(self.logs, "bench.out"), log)
        notes = _notes(log)
        if rc != 0 or not os.path.exists(os.path.join(self.out, "bench", "bench.json")):
            progress("[3/3] bench: FAILED (status %d), see %s" % (rc, log))
            return {"status": "failed", "notes": notes,
                    "note": "katomic bench exited with status %d: %s (log: logs/bench.log)" % (rc, _last_line(log))}
        secs = int(time.time() - t0)
        conf = documents.read(os.path.join(self.out, "bench", "bench.json"), "bench").get("confirmation")
        progress("[3/3] bench: done in %d s%s" % (secs, "" if not conf else
                 " (of which %.0f s re-measuring %d candidate(s) against the A/A control)"
                 % (conf["seconds"], sum(1 for c in conf["cells"] if "aa_med" in c))))
        return {"status": "ok", "note": "%d s" % secs, "seconds": secs, "notes": notes, "document": "bench/bench.json"}

    # ------------------------------------------------------------ all
    def run(self):
        t0 = time.time()
        m = machine.describe(paths.root(), self.mode)
        ccs = compilers.installed_compilers()
        missing = []
        for family, pkg in (("clang", "clang"), ("gcc", "gcc")):
            if not any(c["name"].startswith(family) for c in ccs):
                missing.append({"name": family, "note": "not installed (apt-get install %s)" % pkg})
        if not shutil.which("gnuplot"):
            missing.append({"name": "gnuplot", "note": "not installed: no plots (apt-get install gnuplot-nox)"})
        progress("%s run on %s, %d CPUs, into %s" % (self.mode, m["arch"], m["cpus"], self.out))
        stages = {"codegen": self.codegen(), "litmus": self.litmus(), "bench": self.bench()}
        doc = {"schema": "katomic-run", "version": SCHEMA_VERSION, "tool": "katomic report", "machine": m,
               "seconds": int(time.time() - t0), "compilers": ccs, "missing": missing, "stages": stages}
        documents.write(os.path.join(self.out, "run.json"), doc)
        return doc
