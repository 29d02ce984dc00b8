"""katomic verify --slowpath: the lock's slow path is an acquire, its unlock a release.

The slow path: every way out of the compiled __ka_spin_lock_slowpath_v2
(include/katomic/spinlock-queue.h, as a unit that locks emits it) is proven
an acquire on its control-flow graph, path by path from each RMW of the lock
word, with herd7 (waysout.py says how and why it is sound).  The function is
far too big for herd7 whole (thread-locals, the node pool's address
arithmetic, the clock, sched_yield and futex); the paths judged stop at the
first access past the ordering, so none of that is translated.

The unlock: P0 is the compiled `WRITE_ONCE(*x, 1); spin_unlock(l)`, P1 a
reference reader (load the lock word, a full fence, load x); seeing the
unlock and x=0 is WEAKER (no release).
"""
import os
import re
import shutil

from . import isa as isas
from . import listing, translate, units, waysout
from .isa import NotTaken

SLOW = "__ka_spin_lock_slowpath_v2"
UNIT = ('#include "kv-head.h"\n'
        "KV_THREAD void P0(ka_spinlock_t *l, int *x) { KA_WRITE_ONCE(*x, 1); ka_spin_unlock(l); }\n"
        "KV_THREAD void P1(ka_spinlock_t *l) { ka_spin_lock(l); }\n")

# Mutations of a copy of include/katomic (the slow path's code is the header's: a macro defined
# after it does not reach it): they must be seen WEAKER on the weak targets.
MUTATIONS = {
    "slowpath-acquire=relaxed": [
        ("spinlock-queue.h", "ka_try_cmpxchg_acquire(", "ka_try_cmpxchg_relaxed("),
        ("spinlock-queue.h", "ka_atomic_try_cmpxchg_acquire(", "ka_atomic_try_cmpxchg_relaxed("),
        ("spinlock.h", "return ka_try_cmpxchg_acquire(", "return ka_try_cmpxchg_relaxed(")],
    "unlock-release=relaxed": [
        ("spinlock.h", "ka_smp_store_release(&lock->q.locked, (unsigned char)0);",
         "KA_WRITE_ONCE(lock->q.locked, (unsigned char)0);")],
}

# Reference threads, in objdump's syntax (through the same translator): arguments l, x.
WRITER = {
    "aarch64": ["mov\tw2, #0x1", "str\tw2, [x1]", "dmb\tish", "str\twzr, [x0]", "ret"],
    "riscv64": ["li\ta5,1", "sw\ta5,0(a1)", "fence\trw,rw", "sw\tzero,0(a0)", "ret"],
    "ppc64le": ["li\tr9,1", "stw\tr9,0(r4)", "sync", "li\tr9,0", "stw\tr9,0(r3)", "blr"],
    "x86_64": ["movl   $0x1,(%rsi)", "mfence", "movl   $0x0,(%rdi)", "ret"],
}
READER = {      # the lock word into the first observed register, x into the second
    "aarch64": (["ldr\tw9, [x0]", "dmb\tish", "ldr\tw10, [x1]", "ret"], ("x9", "x10")),
    "riscv64": (["lw\tt0,0(a0)", "fence\trw,rw", "lw\tt1,0(a1)", "ret"], ("t0", "t1")),
    "ppc64le": (["lwz\tr10,0(r3)", "sync", "lwz\tr9,0(r4)", "blr"], ("r10", "r9")),
    "x86_64": (["mov    (%rdi),%r11d", "mfence", "mov    (%rsi),%r10d", "ret"], ("r11", "r10")),
}
# a register the verifier may give the data's address, the data's value, the exit's number
PICK = {"aarch64": ["x%d" % n for n in range(9, 16)] + ["x%d" % n for n in range(1, 8)],
        "riscv64": ["t0", "t1", "t2", "t3", "t4", "t5", "t6", "a6", "a7"],
        "ppc64le": ["r%d" % n for n in range(5, 13)],
        "x86_64": ["r8", "r9", "r10", "r11", "rcx", "rdx", "rsi"]}


WIDE_PICK = {"aarch64": PICK["aarch64"] + ["x%d" % n for n in range(16, 29)],
             "riscv64": PICK["riscv64"] + ["s%d" % n for n in range(1, 12)] + ["a%d" % n for n in range(2, 6)],
             "ppc64le": PICK["ppc64le"] + ["r%d" % n for n in range(14, 32)],
             "x86_64": ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rbx", "rbp", "rsi", "rdi"]}


def _load(isa, dst, base):
    """A 32-bit load of [base] into dst, in objdump's syntax."""
    return {"aarch64": lambda: "ldr\tw%s, [%s]" % (dst[1:], base),
            "riscv64": lambda: "lw\t%s,0(%s)" % (dst, base),
            "ppc64le": lambda: "lwz\t%s,0(%s)" % (dst, base),
            "x86_64": lambda: "mov    (%%%s),%s" % (base, isas.X86_64._r32(dst))}[isa.name]()


def _fn(lines, name="P0", base=0):
    return "%016x <%s>:\n" % (base, name) + "".join(" %x:\t%s\n" % (base + 4 * k, t) for k, t in enumerate(lines)) + "\n"


def _succ(isa, insns):
    """The control-flow graph: {addr: [successor addrs]}; a return has none."""
    addrs = [i.addr for i in insns]
    succ = {}
    for k, i in enumerate(insns):
        nxt = [addrs[k + 1]] if k + 1 < len(addrs) else []
        if isa.is_ret(i):
            succ[i.addr] = []
            continue
        if i.mnem in ("br", "blr", "bctr", "jr") and not isa.is_ret(i) or i.mnem == "jmp" and "*" in " ".join(i.ops):
            raise NotTaken("an indirect branch in the slow path: %s" % i.text)
        try:
            br = isa.branch(i)
        except ValueError:
            raise NotTaken("a branch the verifier cannot follow: %s" % i.text)
        if not br and not isa.is_call(i) and BRANCHY[isa.name].match(isa.branch_mnem(i.mnem)):
            # a branch the ISA's tables do not name (x86 jbe, ja...): both ways, so that the graph
            # has every edge the code has (herd7 refuses it if a judged path runs it)
            try:
                br = (int(i.ops[-1], 16), True)
            except (ValueError, IndexError):
                raise NotTaken("a branch the verifier cannot follow: %s" % i.text)
        if br:
            if br[0] not in addrs:
                raise NotTaken("a branch out of the slow path (a tail call?): %s" % i.text)
            succ[i.addr] = [br[0]] + (nxt if br[1] else [])
        else:
            succ[i.addr] = nxt
    # every instruction but padding must be reached: code the graph does not reach means an edge lost
    seen, todo = set(), [addrs[0]] if addrs else []
    while todo:
        a = todo.pop()
        if a not in seen:
            seen.add(a)
            todo.extend(succ[a])
    lost = [i for i in insns if i.addr not in seen and not PADDING[isa.name].match(i.text.split("\t", 1)[-1].strip())]
    if lost:
        raise NotTaken("code the control-flow graph does not reach (a branch lost?): 0x%x %s" % (
            lost[0].addr, lost[0].text.strip()))
    return succ


# mnemonics of branches (calls and returns are told apart first), and padding between functions' blocks
BRANCHY = {"aarch64": re.compile(r"^(b|b\..*|cbn?z|tbn?z)$"), "riscv64": re.compile(r"^(b[a-z]*|j)$"),
           "ppc64le": re.compile(r"^(b[a-z]*)$"), "x86_64": re.compile(r"^j[a-z]+$")}
PADDING = {"aarch64": re.compile(r"^(nop|udf\b.*)$"), "riscv64": re.compile(r"^(nop|unimp|c\.nop)\b"),
           "ppc64le": re.compile(r"^(nop|ori\s+r2,r2,0|trap)$"),
           "x86_64": re.compile(r"^((data16 |cs |ds )*(nop[wl]?|xchg\s+%ax,%ax)\b.*|int3|ud2)$")}


def _herd(isa, name, cols, init, locs, filt):
    text = ["%s %s" % (isa.herd_arch, name), "Variant=telechat", "{ " + " ".join(init) + " }"] + translate.code_table(cols)
    text.append("locations [%s]" % "; ".join(locs))
    if filt:
        text.append("filter (%s)" % " /\\ ".join(filt))
    text.append("exists (true)")
    return "\n".join(text) + "\n"


def _thread(isa, text, tid, notes, reserved, args=()):
    insns = listing.parse(text)["P0"]
    return translate.thread(isa, insns, notes, tid, reserved, True, args)


def judge_unlock(H, isa, funcs):
    rec = {}
    notes = set()
    try:
        p0, m0 = translate.thread(isa, funcs["P0"], notes, 0, set(isa.arg_regs[:2]), True, isa.arg_regs[:2])
        rd, (rl, rx) = READER[isa.name]
        p1, _ = _thread(isa, _fn(rd), 1, notes, {rl, rx}, isa.arg_regs[:2])
    except (NotTaken, KeyError) as ex:
        rec.update(verdict="not judged", reason=str(ex))
        return rec
    init = ["l=1;", "x=0;"] + ["%d:%s=%s;" % (t, isa.reg_key(isa.arg_regs[n]), v) for t in (0, 1)
                               for n, v in enumerate(("l", "x"))]
    kl, kx = "1:%s" % isa.reg_key(rl), "1:%s" % isa.reg_key(rx)
    text = _herd(isa, "kv-unlock", [p0, p1], init, [kl, kx], ["0:%s=0" % isa.reg_key(m0)] if m0 else [])
    rec["listing"] = [i.text.replace("\t", " ").strip() for i in funcs["P0"]]
    res = H.run(text, source=False)
    if "error" in res:
        rec.update(verdict="not judged", reason="herd7 (%s): %s" % (isa.herd_arch, res["error"]), herd_test=text)
        return rec
    seen = [dict(st) for st in res["states"] if int(dict(st)[kl], 0) & 0xff == 0]
    if not seen:
        rec.update(verdict="not judged", reason="no execution sees the unlock")
    elif any(d[kx] == "0" for d in seen):
        rec.update(verdict="WEAKER", weaker=["%s=0; %s=0;" % (kl, kx)], herd_test=text)
    else:
        rec["verdict"] = "release"
    return rec


def patched_include(root, cache, mutation):
    """A copy of include/ with the mutation's edits (each must apply)."""
    dst = os.path.join(cache, "include-" + re.sub(r"[^a-z0-9]+", "-", mutation))
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(root, "include"), dst)
    for f, old, new in MUTATIONS[mutation]:
        p = os.path.join(dst, "katomic", f)
        with open(p) as fh:
            text = fh.read()
        if old not in text:
            raise RuntimeError("mutation %s: '%s' not found in %s" % (mutation, old, f))
        with open(p, "w") as fh:
            fh.write(text.replace(old, new))
    return dst


def judge_config(H, comp, tg, argv, objdump, head, workdir):
    isa = isas.ISAS[tg.isa]
    rec = {"target": tg.name}
    try:
        dis = comp.disassemble(argv, objdump, UNIT, head, workdir)
    except (RuntimeError, OSError) as ex:
        rec.update(verdict="not judged", reason=str(ex), sites=[], ways_out=[], unlock={"verdict": "not judged",
                                                                                          "reason": str(ex)})
        return rec
    funcs = listing.parse(dis, re.escape(SLOW))
    rec["unlock"] = judge_unlock(H, isa, funcs)
    insns = funcs.get(SLOW)
    if not insns:
        rec.update(verdict="not judged", reason="%s not in the object" % SLOW, sites=[], ways_out=[])
        return rec
    try:
        succ = _succ(isa, insns)
        sites, ways, tests, weaker = waysout.ways_out(H, isa, insns, succ, WIDE_PICK[isa.name])
    except NotTaken as ex:
        rec.update(sites=[], ways_out=[], verdict="not judged", reason=str(ex))
        return rec
    except Exception as ex:         # the verifier's own fault: not judged, never a pass
        rec.update(sites=[], ways_out=[], verdict="not judged", reason="verifier error: %s: %s" % (
            type(ex).__name__, ex))
        return rec
    rec.update(sites=sites, ways_out=ways, paths=tests)
    if weaker:
        rec.update(verdict="WEAKER", weaker=weaker, reason="a way out lets the lock be taken with x read 0: %s" % (
            ", ".join("%s->%s" % (w["path"][0], w["ret"]) for w in weaker)))
    elif ways and all(w["covered"] for w in ways):
        rec["verdict"] = "acquire"
    else:
        rec.update(verdict="not judged", reason="ways out not proven an acquire: %s" % ", ".join(
            w["addr"] for w in ways if not w["covered"]) if ways else "no return found")
    return rec


def run(H, comp_for, configs, cache):
    """configs: [(target, cc, argv, objdump, head)]; comp_for(argv) the compiler.  The document's
    "slowpath" entries, one per configuration."""
    out = []
    for n, (tg, cc, argv, objdump, head, comp) in enumerate(configs):
        rec = judge_config(H, comp, tg, argv, objdump, head, os.path.join(cache, "slowpath-%d-%d" % (os.getpid(), n)))
        rec.update(cc=cc, compiler=comp.version(argv[0]))
        out.append(rec)
    return out


def show(recs, out):
    for r in recs:
        label = "%s/%s" % (r["target"], r["cc"])
        paths = r.get("paths", [])
        print("%-22s slow path: %-10s unlock: %-10s lock sites %d (unknown RMWs %d); paths judged %d (ordered %d); "
              "ways out %d, covered %d%s" % (
                  label, r["verdict"], r["unlock"]["verdict"], sum(s["kind"] == "lock" for s in r["sites"]),
                  sum(s["kind"] == "unknown" for s in r["sites"]), len(paths),
                  sum(p["verdict"] == "ordered" for p in paths), len(r["ways_out"]),
                  sum(w["covered"] for w in r["ways_out"]), " -- " + r["reason"] if r.get("reason") else ""), file=out)
        for w in r["ways_out"]:
            print("    ret at %s: %s" % (w["addr"], "ordered by the site at %s" % ", ".join(w["after"]) if w["covered"]
                                       else "NOT proven (%s)" % ", ".join(w["states"])), file=out)
        for w in r.get("weaker", []):
            print("    WEAKER way out: %s" % " ".join(w["path"]) + " -> ret " + w["ret"], file=out)
        if r["unlock"]["verdict"] == "WEAKER":
            print("    WEAKER unlock: %s" % " | ".join(r["unlock"].get("listing", [])), file=out)
