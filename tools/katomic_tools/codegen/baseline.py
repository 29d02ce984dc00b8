"""make check-codegen: no verdict may get worse than tools/codegen/expected/.

  python3 -m katomic_tools.codegen.baseline [--update] [--ccs "gcc clang ..."]

Runs the audit for the compilers CI installs on x86-64 (CODEGEN_CCS, default
below) and Debian's cross gcc on the other targets, and compares every
verdict with tools/codegen/expected/<compiler>-<target>.txt (probe, verdict,
reason; tab-separated).  Fails when a verdict gets worse (better >
identical/same/n/a > worse > WEAKER) or a new WEAKER appears, printing the
lines; equal or better passes (+ lines).  --update rewrites the expected
files from this run.  Missing compilers are skipped with a note.  Also
checks that probes.c is what gen/gen.sh makes of the tables, and validates
the codegen document against its schema.
"""
import os
import shutil
import subprocess
import sys

from ..common import documents, paths
from . import verdict

DEFAULT_CCS = "gcc clang gcc-11 clang-13 clang-15 clang-16 clang-19"


def read_expected(path):
    rows = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 3 or cols[1] not in verdict.RANK:
                raise ValueError("%s: line %d: want probe<TAB>verdict<TAB>reason" % (path, lineno))
            rows[cols[0]] = (cols[1], cols[2])
    return rows


def compare(name, expected, current):
    """(lines to print, worse?) for one compiler/target."""
    lines, bad = [], False
    for probe, (v, reason) in current.items():
        if probe not in expected:
            lines.append("  new probe %s: %s" % (probe, v))
            continue
        e = expected[probe][0]
        if v == "WEAKER" and e != "WEAKER":
            lines.append("- %s %s: %s -> WEAKER (%s)" % (name, probe, e, reason))
            bad = True
        elif verdict.RANK[v] < verdict.RANK[e]:
            lines.append("- %s %s: %s -> %s (%s)" % (name, probe, e, v, reason))
            bad = True
        elif verdict.RANK[v] > verdict.RANK[e]:
            lines.append("+ %s %s: %s -> %s (%s)" % (name, probe, e, v, reason))
    for probe in expected:
        if probe not in current:
            lines.append("  probe %s gone" % probe)
    return lines, bad


def probes_are_fresh(root, build):
    tmp = os.path.join(build, "codegen-gen")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = dict(os.environ, AWK=os.environ.get("AWK", "awk"))
    if subprocess.run(["sh", os.path.join(root, "gen", "gen.sh"), tmp], env=env, stdout=subprocess.DEVNULL).returncode:
        return False
    rel = os.path.join("tools", "codegen", "generated", "probes.c")
    with open(os.path.join(tmp, rel), "rb") as a, open(os.path.join(root, rel), "rb") as b:
        return a.read() == b.read()


def main(argv):
    update = "--update" in argv
    root, build = paths.root(), paths.build()
    ccs = os.environ.get("CODEGEN_CCS", DEFAULT_CCS)
    if "--ccs" in argv:
        ccs = argv[argv.index("--ccs") + 1]
    exp_dir = os.path.join(root, "tools", "codegen", "expected")
    out = os.path.join(build, "codegen-check")
    if not probes_are_fresh(root, build):
        print("check-codegen: tools/codegen/generated/probes.c is stale: run make gen", file=sys.stderr)
        return 1
    p = subprocess.run([sys.executable, "-m", "katomic_tools.codegen", "--cc", ccs, "--cross-cc", "gcc", "--out", out],
                       stdout=subprocess.DEVNULL)
    if p.returncode:
        return 1
    try:
        doc = documents.read(os.path.join(out, "codegen.json"), "codegen")
    except ValueError as e:
        print("check-codegen: %s" % e, file=sys.stderr)
        return 1
    by_config = {}
    for r in doc["results"]:
        by_config.setdefault((r["compiler"], r["target"]), {})[r["probe"]] = (r["verdict"], r["reason"])
    for note in doc["skipped"]:
        print("note: " + note)
    os.makedirs(exp_dir, exist_ok=True)
    status, compared = 0, 0
    for (cc, t), current in by_config.items():
        text = "".join("%s\t%s\t%s\n" % (p, v, r) for p, (v, r) in current.items())
        with open(os.path.join(out, "cur-%s-%s.txt" % (cc, t)), "w") as f:
            f.write(text)
        path = os.path.join(exp_dir, "%s-%s.txt" % (cc, t))
        if update:
            with open(path, "w") as f:
                f.write(text)
            print("check-codegen: wrote " + path)
            continue
        if not os.path.exists(path):
            print("note: no expected verdicts for %s/%s (%s): skipped" % (cc, t, path))
            continue
        compared += 1
        lines, bad = compare("%s/%s" % (cc, t), read_expected(path), current)
        for l in lines:
            print(l)
        status |= bad
    if update:
        return 0
    if status:
        print("check-codegen: FAILED: some verdicts got worse (lines with -); report in %s/codegen.md" % out, file=sys.stderr)
        print("  if intended: make codegen-update and commit tools/codegen/expected/", file=sys.stderr)
        return 1
    print("check-codegen: %d compiler/target pairs no worse than expected (codegen.json valid)" % compared)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
