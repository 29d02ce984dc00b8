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


class Functions(dict):
    """{function: [(mnemonic, operands)]}, and by_addr: {start address: key}
    (a call names its target's address: which copy of a static function)."""
    def __init__(self):
        super().__init__()
        self.by_addr = {}


def functions(vmlinux, prefix):
    """{function: [(mnemonic, operands)]} of vmlinux's executable sections."""
    r = subprocess.run([prefix + "objdump", "-d", "--no-show-raw-insn", vmlinux], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    if r.returncode != 0:
        raise KernelError("%sobjdump -d %s failed: %s" % (prefix, vmlinux, r.stderr.strip()[-200:]))
    out, cur = Functions(), None
    for line in r.stdout.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            # a static function emitted in several objects: name, name#2, ...
            # (as audit.disassemble), so a callee's atomics are one copy's
            key, n = m.group(2), 1
            while key in out:
                n += 1
                key = "%s#%d" % (m.group(2), n)
            cur = out[key] = []
            out.by_addr[int(m.group(1), 16)] = key
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


_CALL = re.compile(r"^(bl|b|jal|j|call|tail)$")
_TARGET = re.compile(r"(?:^|[\s,])([0-9a-f]+) <([^>+]+)(\+0x[0-9a-f]+)?>")


def _callees(ins, self_name, funcs):
    """({function: call sites}, {function: the key of the copy called}) of
    the calls and tail calls in `ins` (arm64 bl/b, RISC-V jal/j/call/tail);
    a branch inside the function is no call."""
    out, keys = {}, {}
    self_name = self_name.split("#")[0]
    by_addr = getattr(funcs, "by_addr", {})
    for mn, ops in ins:
        if _CALL.match(mn):
            m = _TARGET.search(ops)
            if m and m.group(2) != self_name and not m.group(3):
                out[m.group(2)] = out.get(m.group(2), 0) + 1
                keys[m.group(2)] = by_addr.get(int(m.group(1), 16), m.group(2))
    return out, keys


def _bare_base(ins):
    """arm64: `add xR, xS, #off` followed by a load or store at [xR] (no
    offset): the shape of gcc's relaxed __atomic_load/store on a field."""
    n = 0
    for (mn, ops), (mn2, ops2) in zip(ins, ins[1:]):
        if mn == "add" and re.match(r"x\d+, x\d+,$", ops) and re.match(r"^(ld|st)", mn2) \
                and ops2.endswith("[%s]" % ops.split(",")[0]):
            n += 1
    return n


def reason(arch, variant, old, new, name="", fa=None, fb=None):
    """Why a function's size changed, read from its atomic instructions and its
    calls.  fa/fb (every function of each kernel) let a change of inlining
    carry the atomic instructions of the callee inlined (or no longer
    inlined), once per call site, as the x86 audit does (audit.reason)."""
    if old is None:
        return "new out-of-line function (the compiler's inlining changed)"
    if new is None:
        return "gone (inlined or merged)"
    fa, fb = fa or {}, fb or {}
    a, b = _fn_counts(old, arch), _fn_counts(new, arch)
    d = {k: b[k] - a[k] for k in a}
    (ca, ka), (cb, kb) = _callees(old, name, fa), _callees(new, name, fb)
    inlined, outlined, dropped, more = audit.call_changes(ca, cb, fa, fb)
    keys = dict(ka)

    def callees_of(f):
        if keys.get(f, f) not in fa:
            return None
        c, k = _callees(fa[keys.get(f, f)], f, fa)
        for g, key in k.items():
            keys.setdefault(g, key)
        return c
    sites, came = audit.nested(inlined, ca, cb, callees_of)
    outlined, more = [f for f in outlined if f not in came], [f for f in more if f not in came]
    for fn, n in sites.items():     # its atomics now in this body, once per call site gone
        for k, v in _fn_counts(fa[keys.get(fn, fn)], arch).items():
            d[k] -= v * n
    for fn in outlined:
        for k, v in _fn_counts(fb.get(kb[fn], fb[fn]), arch).items():
            d[k] += v * cb[fn]
    d = {k: v for k, v in d.items() if v}
    why = audit.copy_words(name, fa, fb) + audit.call_words(inlined, outlined, dropped, more)
    if arch == "arm64" and "llsc" not in variant and d.get("llsc_loop", 0) < 0:
        why.append("LSE only: the kernel's LL/SC fallback and its static branch are gone")
    if d.get("full_fence", 0) > 0:
        why.append("the full-fence policy (a fence where C11's SEQ_CST RMW is no full barrier)"
                   if arch == "riscv64" or "llsc" in variant else "more full fences")
    if d.get("light_fence", 0) < 0 and d.get("full_fence", 0) > 0:
        why.append("C11 has no load-load/store-store fence: smp_rmb/wmb as acquire/release fences")
    if d.get("llsc_loop", 0) > 0 and arch == "riscv64":
        why.append("LR/SC loops (cmpxchg; gcc 12's sub-word xchg/cmpxchg on the word)")
    if not why and d:
        # the atomics differ but no call explains it: a path the compiler
        # duplicated or merged (tail duplication, a loop peeled), or one
        # operation compiled to another instruction class
        why.append("atomic instructions of a copied or merged path" if all(v > 0 for v in d.values())
                   else "fewer atomic instructions: paths merged" if all(v < 0 for v in d.values())
                   else "other atomic instructions for the same operations")
    if arch == "arm64" and _bare_base(new) > _bare_base(old):
        why.append("%d accesses with the offset in an add (gcc's aarch64 __atomic load/store patterns take a "
                   "bare base register: add + ldr [x] where READ_ONCE has ldr [x, #off])"
                   % (_bare_base(new) - _bare_base(old)))
    if not why:
        n = len(new) - len(old)
        return ("same atomic instructions: %d more instructions, register allocation and inlining" % n if n > 0
                else "same atomic instructions: inlining and register allocation")
    if d:
        why.append(", ".join("%s %+d" % kv for kv in sorted(d.items())))
    return "; ".join(why)


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
        v = verdict.against_kernel(c, table.lookup(CG_ARCH[arch], isa, cls, m.group(2)), m.group(2))
        rows.append({"probe": name[3:], "class": cls, "shape": m.group(2), "verdict": v.verdict,
                     "reason": v.reason, "c11": c.seq, "kernel": v.ref_seq})
    return rows


def compare(tree, stock, c11, arch, variant, make_args, prefix, stock_tree):
    """The audit item of one stock/C11 pair (build records)."""
    fs, fc = functions(stock["vmlinux"], prefix), functions(c11["vmlinux"], prefix)
    bl = audit.bloat(tree, stock["vmlinux"], c11["vmlinux"], prefix)
    rows = []
    for r in bl["grown_rows"] + bl["shrunk_rows"]:
        rows.append(dict(r, reason=reason(arch, variant, fs.get(r["fn"]), fc.get(r["fn"]), r["fn"], fs, fc)))
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
        out += ["", "### %s" % title, ""]
        if rows is bl["grown_over_16"]:
            out += ["%d functions, by reason: %s." % (len(rows), "; ".join(
                "%d %s" % ng for ng in audit.reason_groups(rows))), ""]
        out += ["| function | stock | C11 | delta | reason |", "|---|---:|---:|---:|---|"]
        out += ["| %s | %d | %d | %+d | %s |" % (r["fn"], r["old"], r["new"], r["delta"], r["reason"]) for r in rows]
    return "\n".join(out) + "\n"
