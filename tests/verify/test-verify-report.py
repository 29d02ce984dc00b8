#!/usr/bin/env python3
"""The report's section "The memory model, proven on the compiled code" and its
answer line, rendered from tests/json/verify.json put into a run directory
(a report run with every stage skipped, then --from): no herd7 needed."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap  # noqa: E402

tap = Tap()
tmp = tempfile.mkdtemp(prefix="kv-report-")
env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools"), KATOMIC_ROOT=ROOT)
try:
    run = os.path.join(tmp, "run")
    subprocess.run([sys.executable, "-m", "katomic_tools.report", "--quick", "--skip", "codegen,litmus,bench",
                    "--out", run], env=env, capture_output=True, check=True)
    os.makedirs(os.path.join(run, "verify"))
    shutil.copy(os.path.join(ROOT, "tests", "json", "verify.json"), os.path.join(run, "verify", "verify.json"))
    p = subprocess.run([sys.executable, "-m", "katomic_tools.report", "--from", run], env=env,
                       capture_output=True, text=True)
    out = p.stdout
    tap.check(p.returncode == 0, "report --from a run with a verify.json: exit 0 (%d)" % p.returncode)
    tap.check("The memory model, proven on the compiled code" in out, "stdout: the section's title")
    tap.check(any(ln.split()[:3] == ["aarch64-lse", "gcc", "lib"] and ln.split()[3:6] == ["3", "0", "1"]
                  for ln in out.splitlines()), "stdout: the aarch64-lse/gcc row: 3 judged, 0 WEAKER, 1 folded")
    tap.check("dependency folded: aarch64-lse/gcc/lib: untyped+reg-addr-arith" in out,
              "stdout: the folded dependency named")
    tap.check("0 WEAKER" in out.split("Answer:")[-1], "the answer line says what herd7 found")
    md = open(os.path.join(run, "REPORT.md"), encoding="utf-8").read()
    html = open(os.path.join(run, "index.html"), encoding="utf-8").read()
    tap.check("## The memory model, proven on the compiled code" in md, "REPORT.md: the section")
    tap.check('id="verify-table"' in html, "index.html: the section's table")
    # katomic verify --slowpath's document beside it: its own table, and a line of the answer
    import json
    sdoc = json.load(open(os.path.join(ROOT, "tests", "json", "verify.json")))
    unit = {"verdict": "release"}
    sdoc["slowpath"] = [
        {"target": "aarch64-lse", "cc": "gcc", "verdict": "acquire", "unlock": unit, "sites": [],
         "ways_out": [{"addr": "0x210", "covered": True, "after": ["0x1f4"], "states": ["ordered by 0x1f4"]}]},
        {"target": "ppc64le", "cc": "clang-19", "verdict": "not judged", "reason": "ways out not proven an acquire: 0x8cc",
         "unlock": unit, "sites": [], "ways_out": [{"addr": "0x8cc", "covered": False, "after": [], "states": []}]}]
    spath = os.path.join(run, "verify", "verify-slowpath.json")
    json.dump(sdoc, open(spath, "w"))
    p = subprocess.run([sys.executable, "-m", "katomic_tools.report", "--from", run], env=env,
                       capture_output=True, text=True)
    rows = [ln.split() for ln in p.stdout.splitlines()]
    tap.check(p.returncode == 0 and "The lock's slow path (every way out an acquire) and unlock (a release)" in p.stdout,
              "with verify-slowpath.json: its table's title (%d)" % p.returncode)
    tap.check(["aarch64-lse", "gcc", "acquire", "1", "of", "1", "release", "-"] in rows
              and any(r[:4] == ["ppc64le", "clang-19", "not", "judged"] and "0x8cc" in r for r in rows),
              "with verify-slowpath.json: a row each, the unproven one with its reason")
    tap.check("the lock's slow path an acquire on 1 of 2 target x compiler, its unlock a release on 2"
              in p.stdout.split("Answer:")[-1].replace("\n  ", " "), "the answer line counts the slow path")
    sdoc["slowpath"][1]["unlock"] = {"verdict": "WEAKER"}
    json.dump(sdoc, open(spath, "w"))
    p = subprocess.run([sys.executable, "-m", "katomic_tools.report", "--from", run], env=env,
                       capture_output=True, text=True)
    tap.check(p.returncode == 1 and "Answer: NO: herd7 finds the lock's slow path or unlock WEAKER on ppc64le/clang-19"
              in p.stdout.replace("\n  ", " "), "an unlock WEAKER: the answer is NO and the exit status 1 (%d)" % p.returncode)
    os.unlink(spath)
    # a WEAKER makes the answer NO and the exit status 1
    doc = json.load(open(os.path.join(run, "verify", "verify.json")))
    doc["configs"][0]["weaker"] = doc["totals"]["weaker"] = 1
    doc["configs"][0]["tests"][0]["verdict"] = "WEAKER"
    doc["configs"][0]["tests"][0]["weaker"] = ["0:r0=0; 1:r0=0;"]
    json.dump(doc, open(os.path.join(run, "verify", "verify.json"), "w"))
    p = subprocess.run([sys.executable, "-m", "katomic_tools.report", "--from", run], env=env,
                       capture_output=True, text=True)
    tap.check(p.returncode == 1 and "Answer: NO: herd7 finds 1 compiled litmus test" in p.stdout.replace("\n  ", " "),
              "a WEAKER: the answer is NO and the exit status 1 (%d)" % p.returncode)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(tap.summary())
