"""katomic bench --confirm: re-measure each candidate loss of the run alone,
interleaved with the A/A control, and judge it (issue 24).

The candidates are the C11/asm cells the report's rule calls SLOWER
(report/rules.py: speed_candidates; the rule and its thresholds live there,
in one place).  Each is measured again by katomic-bench alone (--filter
its name, its mode or thread count, its compiler's c11 contender; the asm
ones are always kept) in processes of two kinds, alternating R A A R ..., each running that C11
contender with the contenders the driver always keeps (raw, asm-gcc,
asm-clang), in the run's order: the op's cost depends on what ran before it
in the round (measured: cmpxchg_ok/solo with clang-19 1.13-1.14 so, 1.02-1.08
with the asm-clang contender alone), so the context stays the run's:
R = build/katomic-bench (C11 against asm), A = build/katomic-bench-aa (the
C11 slot built from the asm backend: identical code at other addresses).
Each process gives one ratio per round; rules.confirm() judges them.
The result is the "confirmation" object of bench.json
(tools/schema/bench.schema.json)."""
import csv
import os
import subprocess
import tempfile
import time

from ..report import rules


def _load():
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return "-"


def _cells(doc):
    """Every C11/asm cell of the run, as rules.speed_candidates wants them."""
    out = []
    for r in doc["results"]:
        if r["contender"].startswith("c11-") and r["status"] == "ok" and r.get("ratio_asm_med", 0) > 0:
            out.append({"kind": r["kind"], "name": r["name"], "mode": r["mode"], "threads": r["threads"],
                        "contender": r["contender"], "med": r["ratio_asm_med"], "lowest": r["ratio_asm_min"],
                        "highest": r["ratio_asm_max"]})
    return out


def _exact(name):
    """A --filter pattern that matches `name` alone (the driver matches substrings
    unless the pattern is a glob: inc would also run inc_mb_after)."""
    return "[%s]%s" % (name[0], name[1:])


def _ratios(samples, contender):
    """Per-round ns ratio contender / its asm reference, from a --samples file."""
    ref = "asm-" + contender.split("-", 1)[1]
    ns = {}
    with open(samples, newline="") as f:
        for row in csv.DictReader(f):
            ns[(row["contender"], int(row["round"]))] = float(row["ns_per_op"])
    rounds = sorted({k[1] for k in ns})
    return [ns[(contender, k)] / ns[(ref, k)] for k in rounds
            if ns.get((contender, k), 0) > 0 and ns.get((ref, k), 0) > 0]


def _measure_once(exe, cell, p, tmp):
    args = [exe, "--filter", _exact(cell["name"]), "--contenders", cell["contender"],
            "--rounds", str(p["rounds"] if cell["kind"] == "workload" else p["op_rounds"]), "--no-progress",
            "--samples", tmp]
    if cell["kind"] == "op":
        args += ["--modes", cell["mode"], "--ms", str(p["op_ms"])]
        if cell["mode"] != "solo":
            args += ["--threads", str(cell["threads"])]
    else:
        args += ["--wl-threads", str(cell["threads"]), "--wl-ms", str(p["workload_ms"])]
    r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode:
        raise RuntimeError("%s exited with status %d: %s" % (os.path.basename(exe), r.returncode,
                                                             (r.stderr.strip().splitlines() or ["?"])[-1]))
    ratios = _ratios(tmp, cell["contender"])
    if not ratios:
        raise RuntimeError("%s measured no round of %s" % (os.path.basename(exe), cell["name"]))
    return ratios


def _r4(x):
    return round(x, 4)


def run(doc, build, log=lambda msg: None):
    """The "confirmation" object for bench document `doc` (None when the A/A
    control cannot be built here: it is x86-64 only)."""
    real_exe, aa_exe = os.path.join(build, "katomic-bench"), os.path.join(build, "katomic-bench-aa")
    if not os.access(aa_exe, os.X_OK):
        return None
    p = rules.CONFIRM_QUICK if doc["quick"] else rules.CONFIRM_FULL
    cands = rules.speed_candidates(_cells(doc), doc["cpus"])
    keep = cands if p["max_cells"] is None else cands[:p["max_cells"]]
    t0, load0 = time.time(), _load()
    out, claimed = [], set()
    fd, tmp = tempfile.mkstemp(prefix="katomic-confirm-", suffix=".csv")
    os.close(fd)
    try:
        for c in cands:
            entry = {"kind": c["kind"], "name": c["name"], "mode": c["mode"], "threads": c["threads"],
                     "contender": c["contender"], "run_med": c["med"], "run_min": c["lowest"], "run_max": c["highest"],
                     "slower_every_round": rules.is_slower(c["kind"], c["med"], c["lowest"])}
            if c not in keep or (p["one_per_name"] and c["name"] in claimed):
                out.append(dict(entry, verdict="not re-measured"))
                continue
            log("confirming %s %s/%s ..." % (c["contender"], c["name"], c["mode"] if c["kind"] == "op" else c["threads"]))
            real, aa = [], []
            for i in range(p["processes"]):
                for kind in (("real", "aa") if i % 2 == 0 else ("aa", "real")):
                    if kind == "real":
                        real.append(_measure_once(real_exe, c, p, tmp))
                    else:
                        aa.append(_measure_once(aa_exe, c, p, tmp))
            j = rules.confirm(c["kind"], real, aa)
            if j["verdict"] == "slower":
                claimed.add(c["name"])
            out.append(dict(entry, verdict=j["verdict"],
                            c11_asm_low=_r4(j["c11_asm"][0]), c11_asm_med=_r4(j["c11_asm"][1]),
                            c11_asm_high=_r4(j["c11_asm"][2]),
                            aa_low=_r4(j["aa"][0]), aa_med=_r4(j["aa"][1]), aa_high=_r4(j["aa"][2]),
                            margin=_r4(j["margin"]),
                            c11_asm_rounds=[_r4(x) for x in sum(real, [])],
                            aa_rounds=[_r4(x) for x in sum(aa, [])]))
    finally:
        os.remove(tmp)
    def floor(kinds):
        nf = rules.noise_floor([(e["aa_low"], e["aa_med"], e["aa_high"]) for e in out if "aa_low" in e and e["kind"] in kinds])
        return _r4(nf) if nf is not None else None
    return {"processes": p["processes"], "rounds": p["rounds"], "op_rounds": p["op_rounds"], "op_ms": p["op_ms"], "workload_ms": p["workload_ms"],
            "max_cells": p["max_cells"] if p["max_cells"] is not None else len(cands),
            "seconds": round(time.time() - t0, 1), "load_before": load0, "load_after": _load(),
            "noise_floor": floor(("op", "workload")), "noise_floor_op": floor(("op",)),
            "noise_floor_workload": floor(("workload",)), "cells": out}


def table(conf):
    """The confirmation as text, for table.txt."""
    lines = ["", "== confirmation: each candidate re-measured alone, %d C11/asm processes interleaved with %d A/A "
             "(identical code) ones, %d rounds each (ops: %d); %.0f s, load %s -> %s"
             % (conf["processes"], conf["processes"], conf["rounds"], conf["op_rounds"], conf["seconds"], conf["load_before"],
                conf["load_after"])]
    if conf["noise_floor"] is not None:
        lines.append("noise floor (A/A, widest): %s" % noise_floor_text(conf))
    for e in conf["cells"]:
        what = "%s %s/%s" % (e["contender"], e["name"], e["mode"] if e["kind"] == "op" else e["threads"])
        if "aa_low" not in e:
            lines.append("%-34s run %.2f (%.2f-%.2f): %s" % (what, e["run_med"], e["run_min"], e["run_max"], e["verdict"]))
            continue
        lines.append("%-34s run %.2f (%.2f-%.2f); alone C11/asm %.2f (%.2f-%.2f), A/A %.2f (%.2f-%.2f): %s, margin %+.2f"
                     % (what, e["run_med"], e["run_min"], e["run_max"], e["c11_asm_med"], e["c11_asm_low"],
                        e["c11_asm_high"], e["aa_med"], e["aa_low"], e["aa_high"],
                        "CLAIMED " + e["verdict"] if e["verdict"] in ("slower", "faster") else e["verdict"], e["margin"]))
    return "\n".join(lines) + "\n"


def noise_floor_text(conf):
    """"ops +-0.05, workloads +-0.30": the widest A/A interval of each kind re-measured."""
    return ", ".join("%s +-%.2f" % (k, conf[f]) for k, f in (("ops", "noise_floor_op"), ("workloads", "noise_floor_workload"))
                     if conf.get(f) is not None) or "-"
