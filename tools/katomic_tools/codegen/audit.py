"""Run the planned compiles, analyse each object and judge every probe:
the codegen document (tools/schema/codegen.schema.json)."""
import os
import platform
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

from . import kernel_seq, manifest, objdump, probe_facts, verdict

SCHEMA_VERSION = 1


def compile_and_analyse(job, root, work, canon):
    """Compile probes.c with `job`, disassemble, summarise every probe.

    Returns ({probe: ProbeFacts}, None) or (None, error text).  Also keeps
    WORK/<id>.o, .dis (the objdump listing) and .tsv (the facts) to read."""
    src = os.path.join(root, "tools", "codegen", "generated", "probes.c")
    obj = os.path.join(work, job.id + ".o")
    cmd = job.cc + ["-std=gnu11"] + [f for f in job.flags if f] + ["-I" + os.path.join(root, "include"), "-c", "-o", obj, src]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, "error: %s: compile failed:\n%s" % (job.id, "\n".join("  " + l for l in p.stderr.splitlines()[:20]))
    d = subprocess.run([job.objdump, "-dr", obj], capture_output=True, text=True)
    if d.returncode != 0:
        return None, "error: %s: disassembly failed: %s" % (job.id, d.stderr.strip().splitlines()[-1:] or "")
    with open(os.path.join(work, job.id + ".dis"), "w") as f:
        f.write(d.stdout)
    facts = {}
    for fn in objdump.parse(d.stdout, job.arch, canon):
        facts[fn.name] = probe_facts.summarise(fn, job.arch)
    with open(os.path.join(work, job.id + ".tsv"), "w") as f:
        f.write("".join(x.tsv() + "\n" for x in facts.values()))
    return facts, None


def run_compiles(plan, root, work, canon, jobs):
    """{compile id: facts}; prints "  done ID" per compile and the errors on stderr."""
    results, errors = {}, []

    def one(job):
        facts, err = compile_and_analyse(job, root, work, canon)
        if err:
            errors.append(err)
        else:
            results[job.id] = facts
            print("  done " + job.id, file=sys.stderr)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(one, plan.compiles()))
    for e in errors:
        print(e, file=sys.stderr)
    return results, bool(errors)


def judge_all(plan, facts_by_id, probes, table):
    """Result rows (dicts) in plan order, probes in manifest order."""
    rows = []
    for cfg in plan.configs:
        c11 = facts_by_id[cfg.c11.id]
        ref = facts_by_id[cfg.ref.id] if cfg.ref else None
        for p in probes:
            c = c11.get(p.name)
            if c is None:
                continue        # not on this target (e.g. cmpxchg128)
            if ref is not None:
                r = ref.get(p.name)
                if r is None:
                    continue
                v = verdict.against_asm(c, r, _need(table.lookup("x86_64", "*", p.cls, p.shape)))
            else:
                v = verdict.against_kernel(c, table.lookup(cfg.arch, cfg.isa, p.cls, p.shape,
                                                           kernel_seq.probe_size(p.name)), p.shape)
            rows.append({
                "compiler": cfg.compiler, "target": cfg.target, "probe": p.name, "class": p.cls,
                "shape": p.shape, "verdict": v.verdict, "reason": v.reason, "c11_insns": c.n,
                "ref_insns": v.ref_n, "c11": c.seq, "ref": v.ref_seq})
    return rows


def _need(k):
    return k.need if k else ""


def count(rows, cfg):
    """The verdict counts of one compiler x target."""
    n = {"identical": 0, "same": 0, "better": 0, "worse": 0, "weaker": 0, "na": 0}
    key = {"WEAKER": "weaker", "n/a": "na"}
    for r in rows:
        if r["compiler"] == cfg.compiler and r["target"] == cfg.target:
            n[key.get(r["verdict"], r["verdict"])] += 1
    n["probes"] = sum(n.values())
    return n


def document(plan, rows, probes, opt, canon):
    configs = []
    for cfg in plan.configs:
        c = {"compiler": cfg.compiler, "target": cfg.target, "arch": cfg.arch, "isa": cfg.isa,
             "reference": "asm backend" if cfg.ref else "kernel sequence", "command": cfg.command}
        c.update(count(rows, cfg))
        configs.append(c)
    return {
        "schema": "katomic-codegen", "version": SCHEMA_VERSION, "tool": "katomic codegen",
        "opt": opt, "canon": canon, "host_arch": platform.machine(), "probes": len(probes),
        "configs": configs, "skipped": list(plan.notes), "results": rows,
    }


def audit(root, work, plan, opt, canon, jobs):
    """The codegen document, or None when a compile failed."""
    probes = manifest.read(os.path.join(root, "tools", "codegen", "generated", "probes.c"))
    table = kernel_seq.KernelTable(os.path.join(root, "tools", "codegen", "kernel-seq.tbl"))
    facts, failed = run_compiles(plan, root, work, canon, jobs)
    if failed:
        return None
    return document(plan, judge_all(plan, facts, probes, table), probes, opt, canon)
