"""report.json: every figure the page shows, for one machine
(tools/schema/report.schema.json) or several (report-merged.schema.json)."""
from . import rules

SCHEMA_VERSION = 1


def _stage(m, s):
    st = m.stage[s]
    return {"status": st["status"], "note": st.get("note") or "-"}


def _round(x):
    return None if x is None else round(x, 4)


def machine_report(m):
    cg, lv, bv = m.codegen, m.litmus, m.bench
    b = m.inputs.bench
    per_compiler = []
    for r in m.rows:
        c, pc = r.codegen, r.bench
        per_compiler.append({
            "compiler": r.name,
            **{k: (c[k] if c else None) for k in ("identical", "same", "better", "worse", "weaker")},
            "ratio_geomean": _round(pc.geomean()) if pc else None,
            "worst_op": pc.worst.title if pc else None,
            "worst_ratio": pc.worst.ratio if pc else None,
            "workloads_geomean": _round(pc.workloads_geomean()) if pc else None,
        })
    for family, note in m.missing_compiler_rows():
        per_compiler.append({"compiler": family, "note": note})
    doc = {
        "schema": "katomic-report", "version": SCHEMA_VERSION, "tool": "katomic report", "mode": m.mode,
        "machine": dict(m.machine, seconds=m.seconds, compilers=m.compilers, missing=m.missing_tools),
        "codegen": dict(_stage(m, "codegen"), native_target=m.native, probes=cg.probes_per_compiler(),
                        configs=[{k: c[k] for k in ("compiler", "target", "reference", "identical", "same", "better",
                                                     "worse", "weaker", "na", "probes")} for c in cg.configs],
                        skipped=m.stage["codegen"].get("notes", []),
                        losses=[{"target": g.target, "group": g.label, "verdict": g.verdict,
                                 "compilers": g.compilers, "probes": len(g.probes), "examples": g.probes[:6],
                                 "insns_delta_min": min(g.deltas) if g.deltas else None,
                                 "insns_delta_max": max(g.deltas) if g.deltas else None,
                                 "why": g.why or "-"} for g in cg.groups]),
        "litmus": dict(_stage(m, "litmus"), iterations=lv.iterations() or None, dirs=lv.dirs, notes=lv.notes,
                       totals={"tests_run": lv.tests_run(), "failed": lv.failed(), "forbidden_observed": lv.forbidden(),
                               "forbidden_observed_c11": lv.forbidden("c11"), "forbidden_observed_asm": lv.forbidden("asm"),
                               "iterations": lv.iterations_total},
                       runs=[_litmus_run(r) for r in lv.runs], problems=lv.problems(),
                       tests=[{"name": n, "run": run, "expected": lv.expected[n], "verdict": t["verdict"],
                               "observation": t["observation"], "positive": t["positive"], "negative": t["negative"]}
                              for n in lv.tests for run in lv.run_names for t in [lv.cell.get((n, run))] if t]),
        "bench": dict(_stage(m, "bench"), cpus=b["cpus"] if b else None, rounds=b["rounds"] if b else None,
                      core_ghz_estimate=b["core_ghz_estimate"] if b else None,
                      resampled=b["resampled"] if b else None, disturbed=b["disturbed"] if b else None,
                      thresholds={"op_slower": rules.OP_SLOWER, "workload_slower": rules.WORKLOAD_SLOWER,
                                  "as_fast_geomean": rules.AS_FAST, "candidate_op": rules.CANDIDATE_OP,
                                  "candidate_workload": rules.CANDIDATE_WORKLOAD, "confirm_trim": rules.CONFIRM_TRIM},
                      confirmation=_confirmation(bv),
                      contenders=b["contenders"] if b else [],
                      compilers=[_bench_compiler(l, bv.by_label[l]) for l in bv.labels],
                      cells=[{"compiler": c.label, "kind": c.kind, "name": c.name, "mode": c.mode, "threads": c.threads,
                              "ratio": c.ratio, "ratio_min": c.lowest, "ratio_max": c.highest} for c in bv.cells],
                      notes=m.stage["bench"].get("notes", []),
                      plots=[p.src for p in m.plots]),
        "verdict": {"answer": m.answer, "line": m.line, "correct": m.forbidden_c11 == 0 and m.weaker_native == 0,
                    "as_fast": all(rules.is_as_fast(g) for _, g in m.speed) if m.speed else None,
                    "complete": not m.missing, "missing": m.missing, "exit": m.exit,
                    "per_compiler": per_compiler,
                    "losses": [{"kind": l.kind, "what": l.what, "compilers": l.compilers, "probes": l.probes,
                                "examples": l.examples or "-", "verdict": l.verdict, "cost": l.cost or "-",
                                "why": l.why or "-"} for l in m.losses]},
    }
    k = m.kernel
    if k is not None:
        doc["kernel"] = {"boots": len(k.boots), "passed": len(k.boots) - len(k.failed), "c11_boots": len(k.c11),
                         "c11_passed": len(k.c11_passed), "c11_regressions": [k.label(b) for b in k.c11_regressions],
                         "torture_s": k.torture_s, "kvm": k.kvm, "line": k.phrase(),
                         "audits": [{"arch": a.get("arch", "x86_64"), "config": a["config"], "cc": a["cc"],
                                     "text_delta": a["bloat"]["total_delta"],
                                     "grown_over_16": len(a["bloat"].get("grown_over_16", [])),
                                     "weaker": a.get("weaker")} for a in k.audit]}
    return doc


def _litmus_run(r):
    base = {"backend": r.backend, "cc": r.cc, "exit": r.exit}
    if not r.ok:
        return dict(base, status="error", note=r.note)
    return dict(base, status="ok", tests=r.tests, passed=r.passed, failed=r.failed, forbidden_observed=r.forbidden,
                weak_witnessed=r.weak_seen, weak_tests=r.weak_tests, not_seen=r.not_seen, skipped=r.skipped,
                errors=r.errors, iterations=r.iterations)


def _confirmation(bv):
    """The bench's confirmation: every candidate, claimed or not, with its figures."""
    conf = bv.confirmation
    if conf is None:
        return None
    cells = [(s.cell, s.conf) for s in bv.slower] + bv.unclaimed
    keys = ("c11_asm_low", "c11_asm_med", "c11_asm_high", "aa_low", "aa_med", "aa_high", "margin")
    return dict({k: conf[k] for k in ("processes", "rounds", "seconds", "load_before", "load_after", "noise_floor")},
                noise_floor_op=conf.get("noise_floor_op"), noise_floor_workload=conf.get("noise_floor_workload"), **{
        "cells": [dict({"compiler": c.label, "kind": c.kind, "name": c.name, "mode": c.mode, "threads": c.threads,
                        "verdict": e["verdict"], "claimed": e["verdict"] == "slower", "run_med": e["run_med"],
                        "run_min": e["run_min"], "run_max": e["run_max"]}, **{k: e.get(k) for k in keys})
                  for c, e in sorted(cells, key=lambda ce: -ce[1]["run_med"])]})


def _bench_compiler(label, pc):
    return {"compiler": label, "ops": len(pc.ops), "geomean": _round(pc.geomean()),
            "worst": pc.worst.title if pc.worst else None, "worst_ratio": pc.worst.ratio if pc.worst else None,
            "workloads": len(pc.workloads), "workloads_geomean": _round(pc.workloads_geomean()),
            "workloads_worst": pc.worst_workload.title if pc.worst_workload else None,
            "workloads_worst_ratio": pc.worst_workload.ratio if pc.worst_workload else None}


def merged_report(models, answer, line):
    return {"schema": "katomic-report-merged", "version": SCHEMA_VERSION, "tool": "katomic report",
            "answer": answer, "line": line, "machines": [machine_report(m) for m in models]}
