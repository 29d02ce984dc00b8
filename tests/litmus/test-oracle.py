#!/usr/bin/env python3
"""make check-litmus: the litmus runner judged by herd7's states (issue 36).

Without herd7: oracles written here by hand drive the runner's judgement
(a state outside the set fails the test, an empty set is a deadlock, a test
herd7 could not run falls back to its comment, every malformed oracle line
is refused with FILE:LINE), and the writer's lines are checked.
With herd7 (PATH, HERD7, ../shared/tools/herdtools7; else a visible SKIP):
`katomic litmus --judge herd7` over tests/litmus/oracle judges every test,
reports the wrong comment, and catches a weakened smp_mb the test's own
condition cannot see.
Environment: LITMUS (the runner, default build/katomic-litmus), HCC."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
from katomic_tools.common import herd as herdmod, schema  # noqa: E402
from katomic_tools.common.tap import Tap  # noqa: E402
from katomic_tools.litmus import __main__ as wrapper, oracle  # noqa: E402

RUNNER = os.environ.get("LITMUS") or os.path.join(ROOT, "build", "katomic-litmus")
HCC = os.environ.get("HCC", "gcc")
DIR = os.path.join(ROOT, "tests", "litmus", "oracle")
SB = os.path.join(DIR, "SB+mbs+exists-11.litmus")
MP = os.path.join(DIR, "MP+wmb+rmb+wrong-comment.litmus")
LB = os.path.join(DIR, "LB+acquire+release+maybe.litmus")
ITER = "200000"
t = Tap()
tmp = tempfile.mkdtemp(prefix="katomic-oracle-")


def key(path):
    with open(path, "rb") as f:
        return oracle.fnv64(f.read())


def write_oracle(name, lines):
    p = os.path.join(tmp, name)
    with open(p, "w") as f:
        f.write("\n".join(lines) + "\n")
    return p


def run(args, env=None):
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def litmus(oracle_path, *files, extra=()):
    return run([RUNNER, "--cc", HCC, "--iterations", ITER, "--oracle", oracle_path] + list(extra) + list(files))


def fits(doc):
    try:
        schema.check(doc, schema.load_schema("litmus"))
        return True
    except schema.SchemaError as e:
        print("# %s" % e)
        return False


def verdict(out, name):
    return next((ln for ln in out.splitlines() if ln.startswith("Verdict %s " % name)), "")


# ------------------------------------------------------------ 1. the runner, with oracles written here
sb = "%016x" % key(SB)
allowed = write_oracle("sb-lkmm", [oracle.FORMAT, "test %s Sometimes - 3" % sb,
                                   "state 0:r0=0 1:r0=1", "state 0:r0=1 1:r0=0", "state 0:r0=1 1:r0=1"])
rc, out, err = litmus(allowed, SB)
t.check(rc == 0 and "PASS" in verdict(out, "SB+mbs+exists-11") and "by herd7" in verdict(out, "SB+mbs+exists-11"),
        "the states LKMM allows: PASS, judged by herd7 (the runner finds the test by its FNV-1a hash)")

only11 = write_oracle("sb-only-11", [oracle.FORMAT, "test %s Always - 1" % sb, "state 0:r0=1 1:r0=1"])
rc, out, err = litmus(only11, SB, extra=("--json",))
doc = json.loads(out) if out.strip().startswith("{") else {"tests": [{}]}
tj = doc["tests"][0]
t.check(fits(doc), "a run with an oracle fits litmus.schema.json")
t.check(rc == 1 and tj.get("verdict") == "FAIL" and tj.get("forbidden", 0) > 0 and
        any(s.get("forbidden") for s in tj.get("states", [])) and doc.get("judged_by_herd7") == 1,
        "an oracle allowing only 0:r0=1 /\\ 1:r0=1: the other observed states fail the test (JSON: forbidden %s)"
        % tj.get("forbidden"))

none = write_oracle("sb-deadlock", [oracle.FORMAT, "test %s Never - 0" % sb])
rc, out, err = litmus(none, SB)
t.check(rc == 1 and "FAIL (expected DEADLOCK by herd7" in verdict(out, "SB+mbs+exists-11"),
        "an oracle with no allowed state (herd7's DEADLOCK): a run that completes fails")

bad = write_oracle("sb-error", [oracle.FORMAT, "error %s herd7 ran over 5 s" % sb])
rc, out, err = litmus(bad, SB)
t.check(rc == 0 and "UNJUDGED" in verdict(out, "SB+mbs+exists-11") and
        "herd7 did not judge: herd7 ran over 5 s" in out,
        "a test herd7 could not run falls back to its Result: comment (none here: UNJUDGED), with herd7's message")

mp_sb = write_oracle("sb-only", [oracle.FORMAT, "test %s Sometimes - 1" % sb, "state 0:r0=1 1:r0=1"])
rc, out, err = litmus(mp_sb, MP)
t.check(rc == 2 and MP in err and "not in the oracle" in err, "a test the oracle does not name: exit 2, naming it")

SRCU = os.path.join(DIR, "SRCU-index+locations.litmus")
odd = write_oracle("srcu-index", [oracle.FORMAT, "test %016x Sometimes - 2" % key(SRCU),
                                  "state 0:r1=12345 1:r0=0", "state 0:r1=12345 1:r0=1"])
rc, out, err = litmus(odd, SRCU)
t.check(rc == 0 and "PASS" in verdict(out, "SRCU-index+locations") and "not compared: 0:r1" in out,
        "the index srcu_read_lock() returned is the implementation's: not compared with herd7's (12345 here)")

malformed = {
    "header": ["katomic-litmus-oracle 9"],
    "unknown line": [oracle.FORMAT, "tset %s Never - 0" % sb],
    "hash": [oracle.FORMAT, "test xyz Never - 0"],
    "observation": [oracle.FORMAT, "test %s Maybe - 0" % sb],
    "count": [oracle.FORMAT, "test %s Never - many" % sb],
    "state missing": [oracle.FORMAT, "test %s Never - 2" % sb, "state 0:r0=1 1:r0=1"],
    "state outside": [oracle.FORMAT, "state 0:r0=1"],
    "LOCATION=VALUE": [oracle.FORMAT, "test %s Never - 1" % sb, "state 0:r0"],
    "fields": [oracle.FORMAT, "test %s Never 1" % sb],
}
for what, lines in malformed.items():
    p = write_oracle("bad-" + what.replace(" ", "-"), lines)
    rc, out, err = litmus(p, SB)
    first = err.strip().splitlines()[0] if err.strip() else ""
    t.check(rc == 2 and first.startswith("katomic-litmus: " + p + ":") and len(err.strip().splitlines()) == 1,
            "a malformed oracle (%s): one line naming the file and line, exit 2: %s" % (what, first))

# the writer
t.check(oracle.entry(1, {"error": "Warning: x\n  y"}) == ["error 0000000000000001 Warning: x y"],
        "writer: herd7's error on one line")
t.check(oracle.entry(2, {"states": [], "flags": [], "observation": "Never", "unrolled": "Warning: unrolling"})[0]
        .startswith("error 0000000000000002 herd7 unrolled a loop"), "writer: an unrolled loop is not an oracle")
t.check(oracle.entry(3, {"states": [frozenset({("x", "1")})], "flags": []})[0].startswith("error 0000000000000003"),
        "writer: no Observation line, no oracle")
lines = oracle.entry(4, {"states": [frozenset({("x", "1"), ("0:r0", "2")}), frozenset({("x", "0"), ("0:r0", "0")})],
                         "flags": ["data-race"], "observation": "Sometimes"})
t.check(lines == ["test 0000000000000004 Sometimes data-race 2", "state 0:r0=0 x=0", "state 0:r0=2 x=1"],
        "writer: states sorted, flags kept: %s" % lines)
for argv, what in ((["--judge", "nobody"], "--judge"), (["--herd-timeout", "0"], "--herd-timeout"), (["--judge"], "needs")):
    try:
        wrapper.split_args(argv)
        t.check(False, "wrapper refuses %s" % " ".join(argv))
    except ValueError as e:
        t.check(what in str(e), "wrapper refuses %s: %s" % (" ".join(argv), e))

# ------------------------------------------------------------ 2. with herd7
try:
    herdmod.find_herd()
    herdmod.find_lkmm()
    have = True
except herdmod.HerdMissing as e:
    print("# SKIP the herd7 checks: %s" % e)
    have = False
if have:
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools"))
    base = [sys.executable, "-m", "katomic_tools.litmus", "--runner", RUNNER, "--judge", "herd7", "--cc", HCC,
            "--iterations", ITER]
    rc, out, err = run(base + ["--json", DIR], env)
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {"tests": []}
    by = {x.get("name"): x for x in doc["tests"]}
    t.check(fits(doc), "the herd7-judged run fits litmus.schema.json")
    t.check(rc == 0 and len(by) == 4 and all(x.get("judged_by") == "herd7" for x in by.values()),
            "--judge herd7: every test of tests/litmus/oracle judged by herd7 (exit %d)" % rc)
    mp = by.get("MP+wmb+rmb+wrong-comment", {})
    t.check(mp.get("disagrees") is True and mp.get("herd7", {}).get("expected") == "Never" and
            doc.get("disagreements") == 1, "the wrong Result: comment is reported, herd7 says Never")
    lb = by.get("LB+acquire+release+maybe", {})
    t.check(lb.get("verdict") == "PASS" and lb.get("expected") == "Never" and lb.get("comment") == "Maybe",
            "a Result: Maybe test is judged (herd7: %s)" % lb.get("expected"))
    rc, out, err = run(base + ["--json", DIR], env)
    t.check("0 herd7 runs" in err, "the second run costs no herd7 run: %s" % err.strip().splitlines()[0])
    caught = ""
    for _ in range(8):
        rc, out, err = run(base + ["--mutate", "smp_mb=barrier", SB], env)
        v = verdict(out, "SB+mbs+exists-11")
        if rc == 1 and "FAIL" in v and "by herd7" in v:
            caught = v
            break
    t.check(caught, "smp_mb weakened: herd7's states catch 0:r0=0 /\\ 1:r0=0, which the condition does not ask: %s"
            % caught)
    rc, out, err = run(base[:5] + ["--judge", "comment", "--cc", HCC, "--iterations", ITER, "--mutate", "smp_mb=barrier", SB],
                       env)
    t.check(rc == 0 and "UNJUDGED" in verdict(out, "SB+mbs+exists-11"),
            "the same with --judge comment: UNJUDGED (no comment), so the catch is herd7's")
sys.exit(t.summary())
