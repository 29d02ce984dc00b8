"""The code audit of `katomic kernel --arch arm64|riscv64`: a stock kernel
against one on the asm-generic C11 layer, same config and compiler.

 - counts over vmlinux: full fences (dmb ish; fence rw,rw / iorw,iorw),
   lighter fences, acquire/release instructions, LL/SC loops (store-exclusive
   / sc), LSE and AMO instructions (and how many of them are fully ordered);
 - bloat-o-meter (the cross nm), every function more than 16 bytes bigger with
   a reason read from its atomic instructions, stock vs C11;
 - the codegen audit's classifier on the kernel's own operations:
   tools/kernel/probes/katomic_kprobes.c (one function per operation and order)
   is built as an external module of each build and each probe is judged
   against tools/codegen/kernel-seq.tbl (same/better/worse/WEAKER).  WEAKER
   anywhere fails the audit.
"""
import os
import re
import shutil
import subprocess

from . import KernelError, audit
from ..common import paths
from ..codegen import objdump as cg_objdump, probe_facts, verdict
from ..codegen.kernel_seq import KernelTable

CG_ARCH = {"arm64": "aarch64", "riscv64": "riscv64"}
_LSE = re.compile(r"^(ld|st)(add|clr|eor|set|smax|smin|umax|umin)(a|l|al)?(b|h)?$|^swp(a|l|al)?(b|h)?$|"
                  r"^casp?(a|l|al)?(b|h)?$")


def classify(arch, mn, ops):
    """The audit class of one instruction, or ""."""
    if arch == "arm64":
        if mn == "dmb":
            return "full_fence" if ops in ("ish", "sy") else "light_fence"
        if re.match(r"^(stxr|stlxr|stxp|stlxp)[bh]?$", mn):
            return "llsc_loop"
        m = _LSE.match(mn)
        if m:
            return "lse_full" if re.search(r"al[bh]?$", mn) or (mn.startswith("cas") and "al" in mn) else "lse"
        if re.match(r"^(ldar|ldapr|stlr|ldaxr|ldaxp)[bh]?$", mn):
            return "acq_rel"
        return ""
    if mn == "fence":
        return "full_fence" if ops in ("", "rw,rw", "iorw,iorw") else "light_fence"
    if re.match(r"^sc\.[wd]", mn):
        return "llsc_loop"
    if mn.startswith("amo"):
        return "amo_full" if mn.endswith(".aqrl") else "amo"
    if re.match(r"^lr\.[wd]\.", mn):
        return "acq_rel"
    return ""


CLASSES = {"arm64": ("full_fence", "light_fence", "acq_rel", "llsc_loop", "lse", "lse_full"),
           "riscv64": ("full_fence", "light_fence", "acq_rel", "llsc_loop", "amo", "amo_full")}


def functions(vmlinux, prefix):
    """{function: [(mnemonic, operands)]} of vmlinux's executable sections."""
    r = subprocess.run([prefix + "objdump", "-d", "--no-show-raw-insn", vmlinux], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise KernelError("%sobjdump -d %s failed: %s" % (prefix, vmlinux, r.stderr.strip()[-200:]))
    out, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        if cur is None or "\t" not in line:
            continue
        f = line.split("\t")
        if len(f) < 2 or not f[1].strip():
            continue
        mn = f[1].split()[0]
        ops = f[2].split("//")[0].split("#")[0].strip() if len(f) > 2 else ""
        cur.append((mn, ops))
    return out


def counts(funcs, arch):
    c = dict.fromkeys(CLASSES[arch], 0)
    for ins in funcs.values():
        for mn, ops in ins:
            k = classify(arch, mn, ops)
            if k:
                c[k] += 1
    return c


def _fn_counts(ins, arch):
    c = dict.fromkeys(CLASSES[arch], 0)
    for mn, ops in ins or []:
        k = classify(arch, mn, ops)
        if k:
            c[k] += 1
    return c


def reason(arch, variant, old, new):
    """Why a function's size changed, from its atomic instructions."""
    if old is None:
        return "new out-of-line function (the compiler's inlining changed)"
    if new is None:
        return "gone (inlined or merged)"
    a, b = _fn_counts(old, arch), _fn_counts(new, arch)
    d = {k: b[k] - a[k] for k in a if b[k] != a[k]}
    if not d:
        return "same atomic instructions: inlining and register allocation"
    parts = ["%s %+d" % (k, v) for k, v in sorted(d.items())]
    why = []
    if arch == "arm64" and a["lse"] + a["lse_full"] and a["llsc_loop"] and not b["llsc_loop"]:
        why.append("LSE only: the kernel's LL/SC fallback and its static branch are gone")
    if d.get("full_fence", 0) > 0:
        why.append("the full-fence policy (a fence where C11's SEQ_CST RMW is no full barrier)"
                   if arch == "riscv64" or "llsc" in variant else "more full fences")
    if d.get("light_fence", 0) < 0 and d.get("full_fence", 0) > 0:
        why.append("C11 has no load-load/store-store fence: smp_rmb/wmb as acquire/release fences")
    if d.get("llsc_loop", 0) > 0 and arch == "riscv64":
        why.append("LR/SC loops (cmpxchg; gcc 12's sub-word xchg/cmpxchg on the word)")
    return "; ".join(why + [", ".join(parts)])


def probes(tree, bdir, make_args, arch, prefix):
    """Build tools/kernel/probes as an external module of bdir; {probe: ProbeFacts}."""
    src = os.path.join(paths.root(), "tools", "kernel", "probes")
    mdir = os.path.join(bdir, "katomic-probes")
    shutil.rmtree(mdir, ignore_errors=True)
    shutil.copytree(src, mdir)
    log = os.path.join(mdir, "build.log")
    with open(log, "w") as f:
        # Only the object is disassembled: modpost may miss vmlinux's symbols
        # (a build that stopped after modules_prepare, `--probes`).
        r = subprocess.run(["nice", "-n", "10", "make", "-C", tree, "O=" + bdir, "M=" + mdir] + make_args +
                           ["KBUILD_MODPOST_WARN=1", "modules"], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    obj = os.path.join(mdir, "katomic_kprobes.o")
    if not os.path.isfile(obj):
        raise KernelError("building the kernel probes failed (log %s)" % log)
    r = subprocess.run([prefix + "objdump", "-dr", obj], stdout=subprocess.PIPE, universal_newlines=True)
    cga = CG_ARCH[arch]
    return {f.name: probe_facts.summarise(f, cga)
            for f in cg_objdump.parse(r.stdout, cga, wanted=lambda n: n.startswith("kp_"))}


def judge(facts, arch, isa):
    table = KernelTable(os.path.join(paths.root(), "tools", "codegen", "kernel-seq.tbl"))
    rows = []
    for name, c in sorted(facts.items()):
        m = re.match(r"kp_(\w+?)__(\w+?)__(\w+)$", name)
        if not m:
            continue
        cls = m.group(1)
        if cls.startswith("b_"):
            cls = "b:" + cls[2:]
        v = verdict.against_kernel(c, table.lookup(CG_ARCH[arch], isa, cls, m.group(2)))
        rows.append({"probe": name[3:], "class": cls, "shape": m.group(2), "verdict": v.verdict,
                     "reason": v.reason, "c11": c.seq, "kernel": v.ref_seq})
    return rows


def compare(tree, stock, c11, arch, variant, make_args, prefix, stock_tree):
    """The audit item of one stock/C11 pair (build records)."""
    fs, fc = functions(stock["vmlinux"], prefix), functions(c11["vmlinux"], prefix)
    bl = audit.bloat(tree, stock["vmlinux"], c11["vmlinux"], prefix)
    rows = []
    for r in bl["grown_rows"] + bl["shrunk_rows"]:
        rows.append(dict(r, reason=reason(arch, variant, fs.get(r["fn"]), fc.get(r["fn"]))))
    grown = [r for r in rows if r["delta"] > 0]
    shrunk = [r for r in rows if r["delta"] < 0]
    changed = sum(1 for fn in set(fs) & set(fc) if _fn_counts(fs[fn], arch) != _fn_counts(fc[fn], arch))
    isa = ("llsc" if "llsc" in variant else "lse") if arch == "arm64" else "*"
    pc = probes(tree, c11["build_dir"], make_args, arch, prefix)
    ps = probes(stock_tree, stock["build_dir"], make_args, arch, prefix)
    judged = judge(pc, arch, isa)
    for r in judged:
        s = ps.get("kp_" + r["probe"])
        r["stock_insns"] = s.n if s else None
        r["c11_insns"] = pc["kp_" + r["probe"]].n
    tally = {}
    for r in judged:
        tally[r["verdict"]] = tally.get(r["verdict"], 0) + 1
    return {"arch": arch, "isa": isa,
            "bloat": {"total_before": bl["total_before"], "total_after": bl["total_after"],
                      "total_delta": bl["total_delta"], "grown": bl["grown"], "shrunk": bl["shrunk"],
                      "top_grown": grown[:15], "top_shrunk": shrunk[:15],
                      "grown_over_16": [r for r in grown if r["delta"] > 16]},
            "insns": {"stock": counts(fs, arch), "c11": counts(fc, arch)},
            "atomics_changed": changed, "probes": judged, "verdicts": tally,
            "weaker": tally.get("WEAKER", 0)}


def markdown(x):
    """One audit item as markdown (kernel-audit-<arch>.md)."""
    bl = x["bloat"]
    out = ["## %s %s, %s (%s)" % (x["arch"], x["isa"], x["cc"], x["variant"]), "",
           "text: %d -> %d bytes (%+d); %d functions grew, %d shrank; %d functions' atomic "
           "instructions changed." % (bl["total_before"], bl["total_after"], bl["total_delta"],
                                       bl["grown"], bl["shrunk"], x["atomics_changed"]), "",
           "| instructions in vmlinux | stock | C11 |", "|---|---:|---:|"]
    for k in x["insns"]["stock"]:
        out.append("| %s | %d | %d |" % (k, x["insns"]["stock"][k], x["insns"]["c11"][k]))
    out += ["", "Kernel probes judged by the codegen classifier against tools/codegen/kernel-seq.tbl: " +
            ", ".join("%s %d" % kv for kv in sorted(x["verdicts"].items())) + " (WEAKER: %d)" % x["weaker"], "",
            "| probe | class | verdict | reason | C11 code | stock insns |", "|---|---|---|---|---|---:|"]
    for r in x["probes"]:
        out.append("| %s | %s | %s | %s | `%s` | %s |" % (r["probe"], r["class"], r["verdict"], r["reason"],
                                                         r["c11"], r["stock_insns"]))
    for title, rows in (("every function more than 16 bytes bigger", bl["grown_over_16"]),
                        ("shrunk most", bl["top_shrunk"])):
        out += ["", "### %s" % title, "", "| function | stock | C11 | delta | reason |", "|---|---:|---:|---:|---|"]
        out += ["| %s | %d | %d | %+d | %s |" % (r["fn"], r["old"], r["new"], r["delta"], r["reason"]) for r in rows]
    return "\n".join(out) + "\n"
