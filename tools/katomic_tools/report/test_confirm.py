"""make check-report-rules: the report's confirmation rule (rules.confirm,
issue 24) on synthetic samples -- no timing is measured here.

The samples are made the way the bench makes them: per process, rounds in
which the asm reference runs first and the C11 contender after it, each
sample a time in ns; C11/asm processes (R) interleaved with A/A processes
(A: identical code), R A A R.  The machine's noise, drift and outliers are
put into the times, not into the ratios, so that a test shows what a
position effect does to the ratio as the bench would see it.

    PYTHONPATH=tools python3 -m katomic_tools.report.test_confirm"""
import random
import sys

from ..common.tap import Tap
from . import rules
from .bench_view import BenchView

SCHEDULE = ("R", "A", "A", "R")         # rules.CONFIRM_QUICK: 2 processes of each kind
ROUNDS = 6


def simulate(seed, loss=1.0, noise=0.03, drift=0.0, outlier=None, noisy_process=None, schedule=SCHEDULE,
             rounds=ROUNDS):
    """Per-round C11/asm ratios of the R and A processes of `schedule`.

    loss: C11's true cost relative to asm (the A/A control's is 1: same code);
    noise: each sample's time scatters by this share (Gaussian, sigma);
    drift: the machine slows by this share per sample taken (load rising), so
    the contender that runs second in a round is always the slower one;
    outlier: (process index, round, factor): that round's C11 sample slowed;
    noisy_process: (process index, factor): every C11 sample of it slowed (a
    noisy minute)."""
    rnd = random.Random(seed)
    speed, real, aa = 1.0, [], []
    for p, kind in enumerate(schedule):
        ratios = []
        for k in range(rounds):
            times = []
            for slot, cost in enumerate((1.0, loss if kind == "R" else 1.0)):   # asm, then C11 (or its A/A copy)
                t = 100.0 * cost * speed * (1 + rnd.gauss(0, noise))
                if slot == 1 and outlier and outlier[:2] == (p, k):
                    t *= outlier[2]
                if slot == 1 and noisy_process and noisy_process[0] == p:
                    t *= noisy_process[1]
                times.append(t)
                speed *= 1 + drift
            ratios.append(times[1] / times[0])
        (real if kind == "R" else aa).append(ratios)
    return real, aa


def old_rule_claims(real):
    """What the report claimed before (issue 24): five short rounds, median above
    the threshold and slower in every round."""
    r = real[0][:5]
    return rules.is_slower("op", rules.median(r), min(r))


def main():
    t = Tap()
    # the interval: the middle half of the rounds
    t.check(rules.interval([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) == (4, 6.5, 9), "interval: middle half of 12 rounds")
    t.check(rules.interval([5, 1, 9]) == (5, 5, 5), "interval: 3 rounds, one left out at each end")
    t.check(rules.interval([1.0, 2.0]) == (1.0, 1.5, 2.0), "interval: 2 rounds, all kept")
    t.check(_raises(lambda: rules.confirm("op", [[]], [[1.0]])), "confirm: no rounds is an error")

    # a real 1.2x loss is claimed, with its margin
    claims = [rules.confirm("op", *simulate(s, loss=1.2)) for s in range(200)]
    t.check(all(c["verdict"] == "slower" for c in claims), "a real 1.2x loss is claimed (200 seeds)")
    t.check(all(0.05 < c["margin"] < 0.25 for c in claims), "... apart from the A/A interval by 0.05-0.25 (%.3f..%.3f)"
            % (min(c["margin"] for c in claims), max(c["margin"] for c in claims)))
    t.check(all(1.15 < c["c11_asm"][1] < 1.25 and 0.95 < c["aa"][1] < 1.05 for c in claims),
            "... with the C11/asm median near 1.2 and the A/A one near 1")
    c = rules.confirm("workload", *simulate(7, loss=1.2, outlier=(1, 2, 0.5)))
    t.check(c["verdict"] == "slower", "a real 1.2x workload loss is claimed with an A/A outlier round (%s)" % c["verdict"])
    c = rules.confirm("op", *simulate(3, loss=1.2, noise=0.01, drift=0.01))
    t.check(c["verdict"] == "slower", "a real 1.2x loss is claimed while the machine drifts (%s)" % c["verdict"])

    # A/A-sized noise is not
    seeds, old = range(500), 0
    for s in seeds:
        real, aa = simulate(s, noise=0.05)
        c = rules.confirm("op", real, aa)
        if c["verdict"] in ("slower", "faster"):
            break
        old += old_rule_claims(real)
    else:
        s = None
    t.check(s is None, "no loss is equal to the A/A control: nothing claimed in %d seeds%s"
            % (len(seeds), "" if s is None else " (seed %d claimed %s)" % (s, c)))
    t.check(old > 0, "... where the old rule (5 rounds, slower in every round) claimed %d" % old)

    # a drift across rounds is not: the machine slows while it runs; the C11
    # contender runs second in every round and looks 6% slower in every one
    real, aa = simulate(11, noise=0.005, drift=0.06)
    t.check(old_rule_claims(real), "a drift across rounds: the old rule would claim it (%.3f..%.3f)"
            % (min(real[0]), max(real[0])))
    c = rules.confirm("op", real, aa)
    t.check(c["verdict"] == "within noise", "... the confirmation does not: the A/A control drifts alike (%s, "
            "C11/asm %.3f-%.3f, A/A %.3f-%.3f)" % (c["verdict"], c["c11_asm"][0], c["c11_asm"][2], c["aa"][0], c["aa"][2]))

    # one outlier round is not
    for k in range(ROUNDS):
        c = rules.confirm("op", *simulate(5, noise=0.01, outlier=(0, k, 1.6)))
        if c["verdict"] != "within noise":
            break
    t.check(c["verdict"] == "within noise", "one outlier round (1.6x, in any round) is not claimed (%s)" % c["verdict"])
    # nor one noisy process (a noisy minute in one C11/asm process, none in the A/A ones)
    c = rules.confirm("op", *simulate(5, noise=0.01, noisy_process=(3, 1.25)))
    t.check(c["verdict"] == "within noise" and c["c11_asm"][2] > c["aa"][2],
            "one noisy C11/asm process (1.25x) is not claimed (%s)" % c["verdict"])

    # nor a loss one of the C11/asm processes did not see (--full: 4 of each)
    real, aa = simulate(9, loss=1.2, noise=0.01, schedule=SCHEDULE * 2, rounds=8)
    real[3] = simulate(9, noise=0.01, schedule=("R",), rounds=8)[0][0]
    c = rules.confirm("op", real, aa)
    t.check(c["verdict"] == "within noise" and c["c11_asm"][0] > c["aa"][2],
            "a loss absent from one of 4 C11/asm processes is not claimed, though the interval clears (%s)" % c["verdict"])

    # the other verdicts
    c = rules.confirm("op", *simulate(2, loss=0.8))
    t.check(c["verdict"] == "faster" and c["margin"] > 0.1, "a real 0.8x win is claimed as faster (%s)" % c["verdict"])
    c = rules.confirm("op", *simulate(2, loss=1.03, noise=0.003))
    t.check(c["verdict"] == "small", "a real 1.03x loss clears the A/A interval but not the threshold: small (%s)"
            % c["verdict"])
    c = rules.confirm("workload", *simulate(2, loss=1.08, noise=0.003))
    t.check(c["verdict"] == "small", "a 1.08x workload loss is under the workload threshold: small (%s)" % c["verdict"])

    # the candidates: cast wider than the rule; the worst alone when none is
    cells = [{"kind": "op", "threads": 1, "med": 1.04, "lowest": 0.99}, {"kind": "op", "threads": 1, "med": 1.02, "lowest": 1.01},
             {"kind": "workload", "threads": 4, "med": 1.5, "lowest": 1.2}, {"kind": "workload", "threads": 2, "med": 1.06, "lowest": 0.9}]
    t.check([c["med"] for c in rules.speed_candidates(cells, 2)] == [1.06, 1.04],
            "candidates: ops above 1.03, judged workload points above 1.05, the worst first; oversubscribed ones left out")
    t.check([c["med"] for c in rules.speed_candidates(cells[1:2], 2)] == [1.02], "no candidate: the worst figure alone")
    t.check(abs(rules.noise_floor([(0.97, 1.0, 1.02), (0.99, 1.0, 1.05)]) - 0.05) < 1e-9 and rules.noise_floor([]) is None,
            "noise floor: the widest distance from 1 of an A/A interval")

    # the report: only a claimed figure reaches the answer line, explained or not
    view = BenchView(_doc(), lambda c, p: ("worse", "1 more instruction") if p == "test_and_set_bit_c" else ("same", ""),
                     ({"seqlock": ["READ_ONCE_4"], "cmpxchg_ok": ["atomic_cmpxchg"], "mpmc": ["atomic_try_cmpxchg"],
                       "test_and_set_bit_c": ["test_and_set_bit_c"]}, {"seqlock": "long cause"},
                      {"seqlock": "short cause"}))
    t.check(view.slower_names() == ["mpmc", "seqlock", "test_and_set_bit_c"],
            "report: the claimed figures' names, in name order (%s)" % view.slower_names())
    t.check(view.answer_items() == ["mpmc (unexplained)", "seqlock (explained by code: short cause)",
                                    "test_and_set_bit_c (explained by code: test_and_set_bit_c 1 more instruction with gcc-12)"],
            "report: each with whether code explains it (%s)" % view.answer_items())
    t.check([(c.name, e["verdict"]) for c, e in view.unclaimed] == [("cmpxchg_ok", "within noise")],
            "report: the candidate not claimed is listed apart")
    t.check([s.cell.title for s in view.slower if "not named in the answer" in s.why] == ["add_negative/shared"],
            "report: a claimed contended per-op figure is listed with the losses, not named in the answer")
    t.check(all("confirmed: alone" in s.why for s in view.slower), "report: each claim carries its confirmation figures")
    doc = _doc()
    del doc["confirmation"]
    old = BenchView(doc, lambda c, p: None, ({}, {}, {}))
    t.check(old.slower_names() == ["cmpxchg_ok", "mpmc", "seqlock", "test_and_set_bit_c"] and
            all("not confirmed" in s.why for s in old.slower),
            "report: a bench document without a confirmation: the run's own rule, marked not confirmed")
    return t.summary()


def _raises(f):
    try:
        f()
    except ValueError:
        return True
    return False


def _doc():
    """A bench document's fields BenchView reads: five C11 figures slower in every
    round of the run; the confirmation claims four, one of them contended."""
    def res(name, kind, mode, threads, med):
        return {"kind": kind, "name": name, "mode": mode, "threads": threads, "contender": "c11-gcc", "status": "ok",
                "ratio_asm_med": med, "ratio_asm_min": med - 0.02, "ratio_asm_max": med + 0.1}

    def conf(r, verdict, med):
        return {"kind": r["kind"], "name": r["name"], "mode": r["mode"], "threads": r["threads"], "contender": "c11-gcc",
                "run_med": r["ratio_asm_med"], "run_min": r["ratio_asm_min"], "run_max": r["ratio_asm_max"],
                "slower_every_round": True, "verdict": verdict, "c11_asm_low": med - 0.02, "c11_asm_med": med,
                "c11_asm_high": med + 0.02, "aa_low": 0.98, "aa_med": 1.0, "aa_high": 1.02, "margin": med - 1.04}
    rs = [res("seqlock", "workload", "threads", 2, 1.3), res("mpmc", "workload", "threads", 1, 1.4),
          res("cmpxchg_ok", "op", "solo", 1, 1.11), res("test_and_set_bit_c", "op", "solo", 1, 1.12),
          res("add_negative", "op", "shared", 2, 1.2)]
    return {"cpus": 2, "contenders": [{"name": "c11-gcc", "cc": "gcc 12.2.0"}], "results": rs,
            "confirmation": {"noise_floor": 0.02, "cells": [conf(rs[0], "slower", 1.3), conf(rs[1], "slower", 1.4),
                                                            conf(rs[2], "within noise", 1.02),
                                                            conf(rs[3], "slower", 1.12), conf(rs[4], "slower", 1.2)]}}


if __name__ == "__main__":
    sys.exit(main())
