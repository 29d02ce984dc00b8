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
    """The file's text; "" when the report did not write it (the check then fails, not the script)."""
    try:
        with open(os.path.join(d, name), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


def md_table(md, first_header, column=None):
    """The rows ({header: cell}) of REPORT.md's first table whose first header cell is
    `first_header` (and that has a column `column`)."""
    lines = md.splitlines()
    cells = lambda s: [c.strip() for c in s.strip().strip("|").split(" | ")]  # noqa: E731
    for i, line in enumerate(lines):
        if line.startswith("| %s |" % first_header) and (column is None or column in cells(line)):
            head, rows = cells(line), []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(dict(zip(head, cells(row))))
            return rows
    return []


def kernel_run(d, doc, arch=None):
    """A `katomic kernel --out d` directory: d/kernel.json, or d/ARCH/kernel.json for --arch."""
    os.makedirs(os.path.join(d, arch) if arch else d, exist_ok=True)
    with open(os.path.join(d, arch, "kernel.json") if arch else os.path.join(d, "kernel.json"), "w") as f:
        json.dump(doc, f)
    return d


def x86_run(cc, date, delta, n_grown, seed):
    """One x86-64 run of one compiler, every figure derived from seed (no two runs alike)."""
    doc = copy.deepcopy(KERNEL)
    doc["machine"]["date"] = date
    for x in doc["builds"] + doc["boots"]:
        x["cc"] = cc
    doc["builds"] = [b for b in doc["builds"] if b["ok"]]
    a = doc["audit"][0]
    a["cc"] = cc
    a["bloat"]["total_delta"] = delta
    a["bloat"]["grown_over_16"] = [{"fn": "fn_%d_%d" % (seed, i), "old": 100, "new": 117 + (i * seed) % 97,
                                    "delta": 17 + (i * seed) % 97, "reason": "reason %d of %d" % (i, seed)}
                                   for i in range(n_grown)]
    a["lock_prefixes"] = {"stock": 2000 + seed, "c11": 2050 + seed}
    a["smp_locks"] = {"stock": 1800 + seed, "c11": 1700 + seed}
    return doc


def arm64_run(date, weaker=0):
    doc = copy.deepcopy(json.load(open(os.path.join(J, "kernel-arm64.json"))))
    doc["machine"]["date"] = date
    a = doc["audit"][0]
    a["insns"]["stock"].update(full_fence=531, acq_rel=1801, llsc_loop=1499, lse=1103, lse_full=361)
    a["insns"]["c11"].update(full_fence=337, acq_rel=703, llsc_loop=23, lse=1389, lse_full=411)
    a["weaker"] = weaker
    if weaker:
        a["verdicts"]["WEAKER"] = weaker
    boot = copy.deepcopy(next(b for b in KERNEL["boots"] if b["variant"] == "c11" and b["smp"] == "2"))
    boot.update(config=a["config"], cc=a["cc"], arch="arm64")
    doc["boots"] = [boot]
    return doc


def merged_kernel_section(tmp):
    """Four kernel runs, each its own --out: x86 gcc, x86 clang, arm64 (OUT/arm64/kernel.json),
    and gcc again later: one section, each key from its latest run, none lost."""
    runs = {"gcc-old": x86_run("gcc", "2026-12-04T19:00:00Z", 3315, 7, 3),
            "clang": x86_run("clang", "2026-12-04T20:00:00Z", 4737, 4, 5),
            "gcc": x86_run("gcc", "2026-12-04T23:00:00Z", -212, 9, 11),
            "arm64": arm64_run("2026-12-04T21:00:00Z")}
    d = run_dir(os.path.join(tmp, "multi"))
    dirs = [kernel_run(os.path.join(tmp, "k-" + name), doc, "arm64" if name == "arm64" else None)
            for name, doc in runs.items()]
    rc, out, err = report("--from", d, *sum((["--from", k] for k in dirs), []))
    md = read(d, "REPORT.md")
    t.check(rc == 0 and md.count("## The Linux kernel on C11") == 1,
            "4 kernel runs merged into one section (exit %d%s)" % (rc, err.strip()[-200:]))
    x86 = {(r["config"], r["cc"]): r for r in md_table(md, "config")}
    want = {("small", cc): runs[cc]["audit"][0] for cc in ("gcc", "clang")}
    t.check(set(x86) == set(want) and all(
        x86[k]["text delta bytes"] == "%+d" % a["bloat"]["total_delta"]
        and x86[k]["lock prefixes C11"] == str(a["lock_prefixes"]["c11"])
        and x86[k][".smp_locks stock"] == str(a["smp_locks"]["stock"])
        and x86[k]["functions >16 B bigger"] == str(len(a["bloat"]["grown_over_16"])) for k, a in want.items()),
        "x86 audit rows: gcc from its later run (%s), clang's kept (%s)" % (
            x86.get(("small", "gcc"), {}).get("text delta bytes"), x86.get(("small", "clang"), {}).get("text delta bytes")))
    a = runs["arm64"]["audit"][0]
    rows = md_table(md, "arch")
    r = rows[0] if len(rows) == 1 else {}
    s, c = a["insns"]["stock"], a["insns"]["c11"]
    t.check(r.get("arch") == "arm64" and r.get("cc") == a["cc"] and r.get("text stock") == str(a["bloat"]["total_before"])
            and r.get("text C11") == str(a["bloat"]["total_after"]) and r.get("text delta bytes") == "%+d" % a["bloat"]["total_delta"]
            and r.get("full fences stock -> C11") == "%d -> %d" % (s["full_fence"], c["full_fence"])
            and r.get("acquire/release stock -> C11") == "%d -> %d" % (s["acq_rel"], c["acq_rel"])
            and r.get("LL/SC loops stock -> C11") == "%d -> %d" % (s["llsc_loop"], c["llsc_loop"])
            and r.get("LSE/AMO stock -> C11") == "%d -> %d" % (s["lse"] + s["lse_full"], c["lse"] + c["lse_full"])
            and r.get("of them fully ordered stock -> C11") == "%d -> %d" % (s["lse_full"], c["lse_full"])
            and r.get("WEAKER") == "0" and r.get("C11 boots") == "PASS -smp 2"
            and r.get("functions >16 B bigger") == str(len(a["bloat"]["grown_over_16"])),
            "the --arch row: text, full fences, acquire/release, LL/SC, LSE, WEAKER 0, boot verdict as in its kernel.json: %s" % r)
    g = runs["gcc"]["audit"][0]["bloat"]["grown_over_16"]
    top = sorted(g, key=lambda x: -x["delta"])[:5]
    title = "x86_64 small gcc: %d function(s) more than 16 bytes bigger, the 5 largest" % len(g)
    block = md[md.find(title):].split("\n\n", 2)[1] if title in md else ""
    t.check(block.splitlines() == ["- %s %+d bytes: %s" % (x["fn"], x["delta"], x["reason"]) for x in top],
            "functions >16 B bigger: the count and the 5 largest with their reasons (gcc's latest run)")
    t.check(("arm64 small-arm64 gcc: %d function(s) more than 16 bytes bigger" % len(a["bloat"]["grown_over_16"])) in md
            and "x86_64 small clang: 4 function(s) more than 16 bytes bigger; by reason: 4 reason N of N:" in md,
            "functions >16 B bigger: arm64's and clang's lists too, grouped by reason")
    builds = md_table(md, "variant", "built")
    t.check(sorted((b["config"], b["cc"], b["variant"]) for b in builds) == sorted(
        {(b["config"], b["cc"], b["variant"]) for doc in runs.values() for b in doc["builds"]}),
        "the builds of every run, once each")
    rj = json.load(open(os.path.join(d, "report.json")))["kernel"]
    t.check(sorted((x["arch"], x["cc"], x["text_delta"], x["grown_over_16"]) for x in rj["audits"]) == sorted(
        [("x86_64", "gcc", -212, 9), ("x86_64", "clang", 4737, 4),
         ("arm64", a["cc"], a["bloat"]["total_delta"], len(a["bloat"]["grown_over_16"]))]),
        "report.json: one audit per architecture and compiler, figures as in the inputs")
    t.check("code audit on arm64: 0 WEAKER" in answer(out), "the answer: the --arch audit found nothing WEAKER")

    inner = run_dir(os.path.join(tmp, "inner"), runs["clang"])      # DIR/kernel/kernel.json
    kernel_run(os.path.join(inner, "kernel"), runs["arm64"], "arm64")  # and DIR/kernel/arm64/kernel.json
    rc, out, err = report("--from", inner)
    md = read(inner, "REPORT.md")
    t.check(rc == 0 and [r["cc"] for r in md_table(md, "config")] == ["clang"]
            and [r["arch"] for r in md_table(md, "arch")] == ["arm64"],
            "a report directory's kernel/kernel.json and kernel/arm64/kernel.json: both in its section")

    w = run_dir(os.path.join(tmp, "weaker"))
    kw = kernel_run(os.path.join(tmp, "k-weaker"), arm64_run("2026-12-04T21:00:00Z", weaker=2), "arm64")
    rc, out, err = report("--from", w, "--from", runs_dir(tmp, "clang", runs["clang"]), "--from", kw)
    md = read(w, "REPORT.md")
    rows = md_table(md, "arch")
    t.check(rc == 1 and rows and rows[0]["WEAKER"] == "2 FAIL" and answer(out).startswith("Answer: NO")
            and "2 kernel operation(s) WEAKER" in answer(out),
            "WEAKER 2 in the --arch audit: shown as a failure, answer NO, exit 1 (%d)" % rc)
    table = read(w, "index.html").split('id="kernel-arch"')[-1].split("</table>")[0]
    t.check('<td class="bad">2 FAIL</td>' in table, "index.html: the WEAKER cell is marked bad")


UP_FIELDS = ("recorded", "unrecorded", "recorded_locked", "recorded_patched", "unrecorded_locked", "left_locked",
             "probe_recorded", "probe_unrecorded", "probe_recorded_locked", "probe_recorded_patched",
             "probe_unrecorded_locked", "modules_recorded", "modules_unrecorded", "modules_left_locked")


def up_reading(seed, one_cpu_patches=True):
    """A measured up_elision object, every figure derived from seed (no two alike)."""
    u = {k: 0 for k in UP_FIELDS}
    u.update(measured=True, recorded=1600 + seed, unrecorded=120 + seed, unrecorded_locked=120 + seed,
             probe_recorded=7, probe_unrecorded=1, probe_unrecorded_locked=1, modules=4,
             modules_recorded=30 + seed, modules_unrecorded=5 + seed, modules_left_locked=5 + seed,
             table_freed=seed % 2 == 0)
    if one_cpu_patches:
        u.update(recorded_patched=u["recorded"], probe_recorded_patched=7)
    else:                               # a kernel whose rule did not patch: everything still 0xf0
        u.update(recorded_locked=u["recorded"], probe_recorded_locked=7)
    u["left_locked"] = u["recorded_locked"] + u["unrecorded_locked"]
    return u


def crosscheck(seed, missing=0):
    """A smp_locks_crosscheck record (kernel.schema.json), its figures derived from seed."""
    def part(n, miss, **more):
        return dict(lock_sites=n + 100, objtool=n, decoder=n + miss, kept_rule=100, kept_annotated=0,
                    missing=["0x%x" % i for i in range(miss)], n_missing=miss, extra=[], n_extra=0, **more)
    return {"checked": True, "vmlinux": part(1600 + seed, missing, marks_not_locks=0, entries_outside_text=288),
            "modules": part(30 + seed, 0, modules=4), "agree": not missing}


def cross_cell(b):
    c = b.get("smp_locks_crosscheck")
    if not c:
        return "-"
    if c["agree"]:
        return "agree (%d + %d sites)" % (c["vmlinux"]["objtool"], c["modules"]["objtool"])
    return "DIFFER: %d missing, 0 extra" % c["vmlinux"]["n_missing"]


def up_elision_section(tmp):
    """The UP lock elision table: two runs (gcc, clang) merged; gcc stock and C11 measured (the
    rendered cells equal the input figures, stock beside C11), clang C11 not measured (its reason)."""
    gcc, clang = x86_run("gcc", "2026-12-04T20:00:00Z", 900, 2, 3), x86_run("clang", "2026-12-04T21:00:00Z", 800, 2, 5)
    want = {}
    for doc, seeds in ((gcc, {"stock": 11, "c11": 22}), (clang, {"stock": 33, "c11": None})):
        doc["builds"] = sorted(doc["builds"], key=lambda b: b["variant"] == "stock")   # C11 first in the input
        for b in doc["builds"]:
            seed = seeds[b["variant"]]
            b["up_elision"] = (up_reading(seed, b["variant"] != "stock" or seed != 33) if seed is not None else
                               {"measured": False, "reason": "a C11 build without the .smp_locks steps (seed)"})
            if b["variant"] == "c11":
                b["smp_locks_crosscheck"] = crosscheck(seed or 44, missing=0 if seed else 3)
            want[(b["cc"], b["variant"])] = b
    d = run_dir(os.path.join(tmp, "up"))
    rc, out, err = report("--from", d, "--from", kernel_run(os.path.join(tmp, "up-gcc"), gcc),
                          "--from", kernel_run(os.path.join(tmp, "up-clang"), clang))
    md, html = read(d, "REPORT.md"), read(d, "index.html")
    rows = md_table(md, "config", ".smp_locks sites (kernel text)")
    t.check(rc == 0 and len(rows) == 4 and 'id="kernel-up"' in html and "UP lock elision" in out,
            "UP lock elision: one table, 4 rows from 2 merged runs, in REPORT.md and index.html (exit %d%s)"
            % (rc, err.strip()[-200:] if rc else ""))
    got = [(r["cc"], r["variant"]) for r in rows]
    t.check(got == [("clang", "stock"), ("clang", "c11"), ("gcc", "stock"), ("gcc", "c11")],
            "per compiler, the stock kernel beside (before) the C11 one: %s" % got)
    bad = []
    for r in rows:
        u = want[(r["cc"], r["variant"])]["up_elision"]
        if not u["measured"]:
            cells = ["not measured: " + u["reason"]] + ["-"] * 7
        else:
            cells = [str(u["recorded"]), "%d / %d" % (u["recorded_patched"], u["recorded_locked"]),
                     "%d of %d" % (u["unrecorded_locked"], u["unrecorded"]), str(u["left_locked"]),
                     str(u["modules_recorded"]), str(u["modules_left_locked"]),
                     "%d / %d" % (u["probe_recorded_patched"], u["probe_recorded"]),
                     "yes" if u["table_freed"] else "no"]
        cells.append(cross_cell(want[(r["cc"], r["variant"])]))
        if [r[c] for c in list(r)[3:]] != cells:
            bad.append((r["cc"], r["variant"], [r[c] for c in list(r)[3:]], cells))
    t.check(not bad and len(rows) == 4, "every rendered figure equals its kernel.json input; a missing reading: "
            "'not measured' with its reason; the C11 builds' cross-check (agree / DIFFER) %s" % (bad[:1] or ""))
    stock = next(r for r in rows if (r["cc"], r["variant"]) == ("clang", "stock"))
    t.check(stock["left locked on one CPU: kernel"] == str(1600 + 33 + 120 + 33),
            "a kernel that did not patch: its recorded sites count as left locked (%s)"
            % stock["left locked on one CPU: kernel"])
    # A later audit-only run (--no-boot) of the same builds keeps the earlier reading; the
    # later run's kept-asm list replaces the earlier x86 run's (it describes the newer code).
    later = copy.deepcopy(gcc)
    later["machine"]["date"] = "2026-12-04T22:00:00Z"
    for b in later["builds"]:
        b["up_elision"] = {"measured": False, "reason": "not booted (--no-boot)"}
    later["boots"] = []
    later["c11_kept_asm"] = [dict(later["c11_kept_asm"][0], what="only the newer run's entry")]
    rc, out, err = report("--from", d, "--from", kernel_run(os.path.join(tmp, "up-gcc"), gcc),
                          "--from", kernel_run(os.path.join(tmp, "up-clang"), clang),
                          "--from", kernel_run(os.path.join(tmp, "up-gcc-later"), later))
    md = read(d, "REPORT.md")
    rows = md_table(md, "config", ".smp_locks sites (kernel text)")
    kept = [r[".smp_locks sites (kernel text)"] for r in rows if r["cc"] == "gcc"]
    t.check(rc == 0 and kept == [str(want[("gcc", "stock")]["up_elision"]["recorded"]),
                                 str(want[("gcc", "c11")]["up_elision"]["recorded"])],
            "a later --no-boot run of the same builds keeps the earlier -smp 1 reading (%s)" % kept)
    t.check("only the newer run's entry" in md and gcc["c11_kept_asm"][0]["what"] not in md,
            "what stays asm: the latest x86 run's list, not the union with an older run's")
    for what, change in (("measured without its figures", lambda u: u.pop("recorded_locked")),
                         ("not measured without a reason", lambda u: (u.clear(), u.update(measured=False))),
                         ("a negative count", lambda u: u.update(left_locked=-1)),
                         ("an undeclared field", lambda u: u.update(guessed=1))):
        broken = copy.deepcopy(gcc)
        change(broken["builds"][0]["up_elision"])
        bd = run_dir(os.path.join(tmp, "up-bad"), broken)
        rc, out, err = report("--from", bd)
        t.check(rc == 2 and "up_elision" in err and err.count("\n") == 1 and "Traceback" not in err,
                "the schema refuses a malformed up_elision (%s): one line, exit 2: %s" % (what, err.strip()[-160:]))


def runs_dir(tmp, name, doc):
    return kernel_run(os.path.join(tmp, "k2-" + name), doc)


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

    merged_kernel_section(tmp)
    up_elision_section(tmp)

    if report_main.kernel_verb() is None:
        rc, out, err = report("--kernel", "--skip", "codegen,litmus,bench", "--out", os.path.join(tmp, "k"))
        t.check(rc == 2 and "`katomic kernel`" in err and "not in this version" in err,
                "--kernel without a kernel verb: one clear line before anything runs")
    else:
        print("# katomic kernel exists: --kernel is exercised by make check-kernel (docs/kernel.md)")

sys.exit(t.summary())
