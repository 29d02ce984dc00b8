#!/usr/bin/env python3
"""herd7 in batches (common/herdbatch.py) against herd7 one test per process: the same result for
every test of a batch, whatever sits beside it -- a test herd7 refuses, two tests of one name (the
split's orders), a test over the time limit (the one blamed must be the one that ran over, and the
tests after it still answered), an LKMM test -- and one run for one text however many threads ask.
Prints TAP; skipped with a note where herd7 is missing."""
import os
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))

from katomic_tools.common.tap import Tap  # noqa: E402
from katomic_tools.common import herd, herdbatch  # noqa: E402

tap = Tap()
ok = tap.check
HERE = os.path.dirname(os.path.abspath(__file__))


def table(arch, name, init, cols, cond):
    w = max(len(x) for col in cols for x in col) + 1
    rows = [" | ".join(("P%d" % t).ljust(w) for t in range(len(cols))) + " ;"]
    for k in range(max(len(c) for c in cols)):
        rows.append(" | ".join((col[k] if k < len(col) else "").ljust(w) for col in cols) + " ;")
    return "%s %s\n{ %s }\n%s\n%s\n" % (arch, name, init, "\n".join(rows), cond)


def sb(arch, name, fence):
    """SB on each ISA, with or without its full fence between the store and the load."""
    st, ld, f, r, a, b, init = {
        "AArch64": ("MOV W0,#1;STR W0,[X1]", "LDR W2,[X3]", "DMB ISH", "X2", "X1", "X3", "%d:X1=%s; %d:X3=%s;"),
        "PPC": ("li r5,1;stw r5,0(r1)", "lwz r2,0(r3)", "sync", "r2", "r1", "r3", "%d:r1=%s; %d:r3=%s;"),
        "RISCV": ("li x5,1;sw x5,0(x6)", "lw x2,0(x7)", "fence rw,rw", "x2", "x6", "x7", "%d:x6=%s; %d:x7=%s;"),
        "X86_64": ("movl $1,(%rdi)", "movl (%rsi),%eax", "mfence", "rax", "rdi", "rsi", "%d:rdi=%s; %d:rsi=%s;"),
    }[arch]
    cols = [st.split(";") + ([f] if fence else []) + [ld] for _ in range(2)]
    inits = " ".join(init % (t, xy[0], t, xy[1]) for t, xy in enumerate((("x", "y"), ("y", "x"))))
    return table(arch, name, inits, cols, "exists (0:%s=0 /\\ 1:%s=0)" % (r, r))


def slow():
    """Three threads storing to and reading three locations: herd7 takes minutes (297 s measured;
    two locations took 4.9 s, too close to the 1 s limit below on a faster machine)."""
    cols = []
    for t in range(3):
        cols.append(["MOV W0,#%d" % (t + 1), "STR W0,[X1]", "STR W0,[X2]", "STR W0,[X3]",
                     "LDR W10,[X2]", "LDR W11,[X3]", "LDR W12,[X1]"])
    init = " ".join("%d:X1=x0; %d:X2=x1; %d:X3=x2;" % (t, t, t) for t in range(3))
    return table("AArch64", "slow", init, cols, "exists (0:X10=0)")


BAD = "PPC bad\n{ 0:r1=x; }\n P0 ;\n frobnicate r1 ;\nexists (x=1)\n"


def strip(res):
    return {k: v for k, v in res.items() if k != "secs"}


try:
    h7, lib = herd.find_herd()
except herd.HerdMissing as e:
    print("# SKIP: %s" % e)
    sys.exit(tap.summary())

lkmm = None
try:
    lkmm = herd.find_lkmm(None)
except herd.HerdMissing as e:
    print("# SKIP LKMM part: %s" % e)

texts = [sb(a, "SB", f) for a in ("AArch64", "PPC", "RISCV", "X86_64") for f in (True, False)]
texts.insert(3, BAD)
alone = herd.Herd(h7, lib, lkmm or HERE, tempfile.mkdtemp(prefix="kv-alone-"))
want = [strip(alone.run(t, source=False)) for t in texts]
ok(sum("states" in w for w in want) == 8 and "error" in want[3],
   "alone: 8 tests answered, the refused one an error (%s)" % want[3].get("error"))
sb0 = [w for w, t in zip(want, texts) if "states" in w]
ok(all(any(("0:" in k) for k, _ in s) for w in sb0 for s in w["states"]), "alone: the states name the registers")

# one batch of them all (one reader), all tests named SB: the names herd7 answers once per process
B = herd.Herd(h7, lib, lkmm or HERE, tempfile.mkdtemp(prefix="kv-batch-"), slots=1)
got = [strip(r) for r in B.run_many(texts, source=False)]
ok(got == want, "batch of %d (one refused, eight of one name): the results of one process each" % len(texts))
ok(B.processes < B.runs, "batch: %d runs in %d processes" % (B.runs, B.processes))
ok(B.run_many(texts, source=False) and B.hits == len(texts), "batch: each result cached under its own text")

# the time limit: the slow test is the one blamed; the ones after it are answered by a new process
T = herd.Herd(h7, lib, lkmm or HERE, tempfile.mkdtemp(prefix="kv-batch-t-"), timeout=1, slots=1)
mixed = [texts[0], slow(), texts[1], BAD, texts[2]]
got = [strip(r) for r in T.run_many(mixed, source=False)]
ok(got[1] == {"error": "herd7 ran over 1 s"}, "limit: the slow test ran over 1 s: %s" % got[1])
ok([got[0], got[2], got[3], got[4]] == [want[0], want[1], want[3], want[2]],
   "limit: the tests before and after it (one refused) answered as alone")
ok(T.processes >= 2, "limit: a new process after the one killed (%d)" % T.processes)
T1 = herd.Herd(h7, lib, lkmm or HERE, tempfile.mkdtemp(prefix="kv-batch-t1-"), timeout=1)
ok(strip(T1.run(slow(), source=False)) == got[1], "limit: alone, the same test runs over too")

# all or none (the split's orders): after the one over the limit, the rest are not run, nor cached
for slots in (1, 0):
    G = herd.Herd(h7, lib, lkmm or HERE, tempfile.mkdtemp(prefix="kv-batch-g-"), timeout=1, slots=slots)
    got = G.run_many([texts[0], slow(), texts[1], texts[2]], source=False, all_or_none=True)
    ok(strip(got[0]) == want[0] and got[1].get("error") == "herd7 ran over 1 s"
       and [g.get("error") for g in got[2:]] == [herdbatch.SKIPPED] * 2 and G.runs == 2,
       "all or none (%s): the tests after the one over the limit not run (%d runs): %s"
       % ("batched" if slots else "one process each", G.runs, [g.get("error") for g in got]))
    again = G.run_many([texts[1], texts[2]], source=False)
    ok([strip(g) for g in again] == [want[1], want[2]] and G.runs == 4,
       "all or none (%s): a test not run was not cached: asked again, it runs" % ("batched" if slots else "alone"))

# threads asking for one text: one run
C = herd.Herd(h7, lib, lkmm or HERE, tempfile.mkdtemp(prefix="kv-batch-c-"), slots=2)
res = [None] * 6


def ask(k):
    res[k] = C.run(texts[5], source=False)


ths = [threading.Thread(target=ask, args=(k,)) for k in range(6)]
for th in ths:
    th.start()
for th in ths:
    th.join()
ok(all(strip(r) == want[5] for r in res) and C.runs == 1,
   "six threads, one text: one herd7 run (%d), the same result for each" % C.runs)

# LKMM tests (-conf linux-kernel.cfg in the memory model's folder), one the LKMM refuses
if lkmm:
    lit = os.path.join(HERE, "..", "litmus")
    ctexts = []
    for name in ("SB+mbs", "MP+wmb+rmb", "LB+ctrls", "MP+spinlocks"):
        p = os.path.join(lit, name + ".litmus")
        if os.path.isfile(p):
            with open(p) as f:
                ctexts.append(herd.lkmm_text(f.read())[0])
    ctexts.append("C refused\n{}\nP0(int *x)\n{\n\tspin_unlock_wait(x);\n}\nexists (x=1)\n")
    LA = herd.Herd(h7, lib, lkmm, tempfile.mkdtemp(prefix="kv-lkmm-alone-"))
    LB = herd.Herd(h7, lib, lkmm, tempfile.mkdtemp(prefix="kv-lkmm-batch-"), slots=1)
    w = [strip(LA.run(t, source=True)) for t in ctexts]
    g = [strip(r) for r in LB.run_many(ctexts, source=True)]
    ok(len(ctexts) == 5 and g == w and sum("states" in x for x in w) == 4 and "error" in w[-1],
       "LKMM: %d tests in one batch (one refused: %s), the results of one process each"
       % (len(ctexts), w[-1].get("error")))
sys.exit(tap.summary())
