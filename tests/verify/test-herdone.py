#!/usr/bin/env python3
"""The split's orders in verify's _herd_one, against a scripted herd7: the first order runs alone,
the rest as one all-or-none batch, and an order answered "not run" (herdbatch.SKIPPED, because an
order of its group failed first) is never taken for a pass.  The failure that skipped it is the
test's reason; with no failure of its own in the batch it is asked again; a failure that only asks
for the sub-word widening makes the orders run again widened.  Needs no herd7 and no compiler.
Prints TAP."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))

from katomic_tools.common.tap import Tap  # noqa: E402
from katomic_tools.common import herdbatch  # noqa: E402
from katomic_tools.verify import __main__ as verify, isa as isas  # noqa: E402

tap = Tap()
ok = tap.check
A64 = isas.ISAS["aarch64"]


def dis(load):
    """objdump -dr text of P0 (a store) and P1 (a load, `load` being ldr or ldrb)."""
    return ("0000000000000000 <P0>:\n 0:\tmov\tw2, #0x1\n 4:\tstr\tw2, [x0]\n 8:\tret\n\n"
            "0000000000000040 <P1>:\n 40:\t%s\tw9, [x0]\n 44:\tret\n" % load)


class Comp:
    def __init__(self, text):
        self.text = text

    def disassemble(self, *args, **kw):
        return self.text


class Herd:
    """Answers each run_many from a script: one list of results per call, in order."""

    def __init__(self, script):
        self.script, self.calls = list(script), []

    def run_many(self, texts, source=False, model=None, all_or_none=False):
        self.calls.append((list(texts), all_or_none))
        got = self.script.pop(0)
        assert len(got) == len(texts), (len(got), len(texts))
        return got


OK = {"states": [frozenset({("1:X20", 0)})], "flags": []}
OVER = {"error": "herd7 ran over 10 s"}
MIXED = {"error": "Warning: Illegal mixed-size test (User error)"}
SKIP = {"error": herdbatch.SKIPPED}
TEST = {"name": "MP", "quant": "exists", "cond": "(%1:0%=1)", "filter": None,
        "vars": [{"name": "x", "init": 0}, {"name": "lk", "init": 0}],
        "threads": [{"id": 0, "args": ["x"], "observed": []}, {"id": 1, "args": ["x"], "observed": ["r0"]}],
        "observed": [["1:r0", "%1:0%"]]}
ORDERS = [({"lk": "lk_o%d" % j}, {"lk_o%d" % j: 0}) for j in range(1, 5)]


def run(script, load="ldr"):
    H = Herd(script)
    with tempfile.TemporaryDirectory() as tmp:
        unit = os.path.join(tmp, "unit.c")
        with open(unit, "w") as f:
            f.write("/* unit */\n")
        got = verify._herd_one(H, Comp(dis(load)), A64, [], "objdump", "lib", "c11", "", TEST, unit,
                               os.path.join(tmp, "work"), ORDERS)
    return got, H


got, H = run([[OK], [SKIP, OVER, SKIP]])
ok("reason" in got and "order 3 of 4" in got["reason"] and "ran over" in got["reason"] and len(H.calls) == 2,
   "an order skipped for a later order's time-out: that time-out is the test's reason (%s)" % got.get("reason"))
ok([len(c[0]) for c in H.calls] == [1, 3] and all(c[1] for c in H.calls),
   "the first order alone, the other three as one all-or-none batch")
got, H = run([[OK], [SKIP, OK, OK], [OK, OK, OK]])
ok(len(got.get("runs", [])) == 4 and len(H.calls) == 3 and len(H.calls[2][0]) == 3,
   "an order skipped with no failure in its batch (another group's) is asked again, and judged")
got, H = run([[OK], [SKIP, MIXED, SKIP], [MIXED, SKIP, SKIP], [OK, OK, OK]], load="ldrb")
ok(len(got.get("runs", [])) == 4 and len(H.calls) == 4 and H.calls[3][0] != H.calls[2][0]
   and any("widened" in n for n in got.get("notes", [])),
   "a later order's mixed-size refusal: the orders from the skipped one run again, then widened (%s)"
   % got.get("reason", got.get("notes")))
got, H = run([[OK], [SKIP, MIXED, SKIP]], load="ldr")
ok("reason" in got and "order 3 of 4" in got["reason"] and "mixed-size" in got["reason"] and len(H.calls) == 2,
   "without a sub-word access to widen, the later refusal is the test's reason (%s)" % got.get("reason"))
got, H = run([[OVER]])
ok("reason" in got and "order 1 of 4" in got["reason"] and len(H.calls) == 1,
   "the first order over the limit: the rest are never asked")
sys.exit(tap.summary())
