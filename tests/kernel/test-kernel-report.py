#!/usr/bin/env python3
"""make check-kernel-boot, part 2: the report's kernel section, without a kernel (TAP).

A report directory assembled from the documents of tests/json/ (run, codegen,
litmus, bench) is rendered with `katomic report --from`: without kernel
results (no section, no kernel words in the answer), with
tests/json/kernel.json in DIR/kernel/ (the section, the answer line,
report.json's kernel object), with a C11 boot that failed where the stock
one passed (answer NO, exit status 1), with the kernel results given as a
second --from directory, and the refusals (kernel results alone, --kernel
with --from, a malformed kernel.json; --kernel when this version has no
`katomic kernel`).
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common.tap import Tap  # noqa: E402
from katomic_tools.report import __main__ as report_main  # noqa: E402

t = Tap()
J = os.path.join(ROOT, "tests", "json")
KERNEL = json.load(open(os.path.join(J, "kernel.json")))


def run_dir(d, kernel=None):
    for sub in ("codegen", "litmus", "bench"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    shutil.copy(os.path.join(J, "run.json"), d)
    shutil.copy(os.path.join(J, "codegen.json"), os.path.join(d, "codegen"))
    for r in ("c11-gcc", "asm-gcc"):      # the runs tests/json/run.json names
        shutil.copy(os.path.join(J, "litmus.json"), os.path.join(d, "litmus", r + ".json"))
    shutil.copy(os.path.join(J, "bench.json"), os.path.join(d, "bench"))
    if kernel is not None:
        os.makedirs(os.path.join(d, "kernel"), exist_ok=True)
        with open(os.path.join(d, "kernel", "kernel.json"), "w") as f:
            json.dump(kernel, f)
    return d


def report(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools"), KATOMIC_ROOT=ROOT)
    p = subprocess.run([sys.executable, "-m", "katomic_tools.report"] + list(args), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def answer(out):
    return " ".join(out[out.rindex("Answer: "):].split())


def read(d, name):
    with open(os.path.join(d, name), encoding="utf-8") as f:
        return f.read()


with tempfile.TemporaryDirectory() as tmp:
    plain = run_dir(os.path.join(tmp, "plain"))
    rc, out, err = report("--from", plain)
    t.check(rc == 0 and "Linux kernel on C11" not in read(plain, "REPORT.md")
            and "kernel" not in json.load(open(os.path.join(plain, "report.json")))
            and "Linux kernel" not in answer(out), "no kernel results: no section, no kernel in the answer")

    ok = copy.deepcopy(KERNEL)
    ok["builds"] = [b for b in ok["builds"] if b["ok"]]
    with_k = run_dir(os.path.join(tmp, "with"), ok)
    rc, out, err = report("--from", with_k)
    md, html = read(with_k, "REPORT.md"), read(with_k, "index.html")
    rj = json.load(open(os.path.join(with_k, "report.json")))
    t.check(rc == 0, "with kernel results: exit status 0 (%d %s)" % (rc, err.strip()[-200:]))
    t.check("## The Linux kernel on C11" in md and "| c11 | small | gcc | 2 | PASS |" in md,
            "REPORT.md: the section and a C11 boot row")
    t.check('id="kernel-boots"' in html and 'id="kernel-audit"' in html, "index.html: boots and audit tables")
    t.check("boot times would measure the emulator and are not shown" in md and "boot s" not in md,
            "TCG: the boot times are not shown")
    a = answer(out)
    t.check(a.startswith("Answer: YES") and "the Linux kernel on C11: 2/2 C11 kernel boots passed" in a,
            "the answer says what the kernel showed: " + a[-120:])
    t.check(rj.get("kernel", {}).get("c11_passed") == 2 and rj["kernel"]["c11_regressions"] == []
            and rj["kernel"]["torture_s"] == 60, "report.json: the kernel object")

    kvm = copy.deepcopy(ok)
    kvm["machine"]["kvm"] = True
    for b in kvm["boots"]:
        b["accel"] = "kvm"
    d = run_dir(os.path.join(tmp, "kvm"), kvm)
    report("--from", d)
    t.check("| boot s |" in read(d, "REPORT.md") and "262.4" in read(d, "REPORT.md"),
            "KVM: the boot times are shown")

    short = copy.deepcopy(ok)
    for b in short["boots"]:
        b["torture_s"] = 10
    d = run_dir(os.path.join(tmp, "short"), short)
    rc, out, err = report("--from", d)
    t.check("a short run" in answer(out), "a short torture run says so")

    bad = copy.deepcopy(ok)
    c11 = next(b for b in bad["boots"] if b["variant"] == "c11" and b["smp"] == "2")
    c11.update(passed=False, outcome="deadline", problems=["hung: killed at the 900 s deadline"])
    d = run_dir(os.path.join(tmp, "regressed"), bad)
    rc, out, err = report("--from", d)
    a = answer(out)
    t.check(rc == 1 and a.startswith("Answer: NO: the Linux kernel on C11 FAILED where the stock kernel passed")
            and "c11 small gcc -smp 2: hung" in a, "a C11 boot that failed where stock passed: NO, exit 1")
    t.check("FAIL: hung" in read(d, "REPORT.md"), "REPORT.md: the failed boot's first problem")

    both = copy.deepcopy(bad)
    for b in both["boots"]:
        if b["smp"] == "2":
            b.update(passed=False, problems=["atomic64_test: missing"])
    d = run_dir(os.path.join(tmp, "both"), both)
    rc, out, err = report("--from", d)
    t.check(rc == 0 and answer(out).startswith("Answer: INCOMPLETE") and "kernel boot(s) failed" in answer(out),
            "stock and C11 both failed: INCOMPLETE, not NO")

    kdir = os.path.join(tmp, "kernel-only")
    os.makedirs(kdir)
    with open(os.path.join(kdir, "kernel.json"), "w") as f:
        json.dump(ok, f)
    merged_into = run_dir(os.path.join(tmp, "merge"))
    rc, out, err = report("--from", merged_into, "--from", kdir)
    t.check(rc == 0 and "## The Linux kernel on C11" in read(merged_into, "REPORT.md")
            and "Linux kernel on C11" in answer(out), "--from RUN --from KERNEL-DIR: the kernel results merged in")
    rc, out, err = report("--from", kdir)
    t.check(rc == 2 and "kernel results only" in err and err.count("\n") == 1,
            "--from kernel results alone: one line, exit 2")
    rc, out, err = report("--kernel", "--from", plain)
    t.check(rc == 2 and "give one of them" in err, "--kernel with --from: refused")

    broken = copy.deepcopy(ok)
    del broken["boots"][0]["torture"]
    d = run_dir(os.path.join(tmp, "broken"), broken)
    rc, out, err = report("--from", d)
    t.check(rc == 2 and "kernel.json" in err and "torture" in err and err.count("\n") == 1
            and "Traceback" not in err, "a malformed kernel.json: one line naming it, exit 2")

    if report_main.kernel_verb() is None:
        rc, out, err = report("--kernel", "--skip", "codegen,litmus,bench", "--out", os.path.join(tmp, "k"))
        t.check(rc == 2 and "`katomic kernel`" in err and "not in this version" in err,
                "--kernel without a kernel verb: one clear line before anything runs")
    else:
        print("# katomic kernel exists: --kernel is exercised by make check-kernel (docs/kernel.md)")

sys.exit(t.summary())
