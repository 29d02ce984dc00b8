"""katomic verify --slowpath: the lock's slow path is an acquire, its unlock a release.

The compiled __ka_spin_lock_slowpath_v2 (include/katomic/spinlock-queue.h, as a
unit that locks emits it) is far too big for herd7 whole (thread-locals, the
node pool's address arithmetic, the clock, sched_yield and futex), so it is
judged in two steps, both on the compiled code:

1. Sites.  Each RMW of the function through a register at offset 0 is a
   *site*.  Its slice is the code from the nearest load through that
   register before it (within a few instructions) through the RMW and the
   instructions after it up to the next memory access, call or return (its
   result test, an LL/SC's retry, a trailing fence).  herd7 runs it as P1 of
   an MP test: the lock word starts held (1); P0, a reference writer, stores
   x=1, a full fence, then 0 to the lock word; every branch that leaves the
   slice goes, through a register naming the branch, to a load of x (the
   critical section).  A final lock word whose locked byte is set means P1's
   RMW took the lock after P0's release: with x read 0 the slice alone is
   no acquire (not a WEAKER of the slow path: the code past its exits, not in
   the slice, may hold the fence).  An exit branch seen only in executions that took the lock is a
   *success edge*.  Registers the slice reads before writing start at 0
   (the released word is 0, so a compare-and-swap expecting it can succeed).
2. Ways out.  On the function's control-flow graph without the success
   edges of the sites judged acquire, no return may be reachable from the
   entry: every way out leaves through a success edge of an acquire.

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
FENCE = {"aarch64": re.compile(r"^dmb$"), "riscv64": re.compile(r"^fence"),
         "ppc64le": re.compile(r"^(sync|lwsync|isync|hwsync)$"), "x86_64": re.compile(r"^mfence$")}
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


def _mem_base(isa, i):
    """The base register of an access at offset 0 ([x19], (s0), 0(r31), (%r11)), or None."""
    ops = i.ops
    if not ops:
        return None
    if isa.name == "aarch64":
        m = re.match(r"^\[(x\d+)\]$", ops[-1])
    elif isa.name == "riscv64":
        m = re.match(r"^(?:0)?\(([a-z]+\d*)\)$", ops[-1])
    elif isa.name == "ppc64le":
        if len(ops) == 3 and ops[1] == "0" and re.match(r"^r\d+$", ops[2]):
            return ops[2]               # the indexed forms of lwarx/stwcx. with RA=0
        m = re.match(r"^0\((r\d+)\)$", ops[-1])
    else:
        k = 0 if i.mnem.startswith("mov") else -1
        m = re.match(r"^(?:0x0)?\(%([a-z0-9]+)\)$", ops[k])
    return m.group(1) if m else None


def _is_load(isa, i):
    m = i.mnem
    return {"aarch64": m.startswith(("ldr", "ldar", "ldxr", "ldaxr")) and not m.startswith("ldrs"),
            "riscv64": m in ("lw", "lwu", "lhu", "lh", "lbu", "ld") or m.startswith("lr."),
            "ppc64le": m in ("lwz", "lhz", "lbz", "ld", "lwarx", "lharx", "lbarx", "ldarx"),
            "x86_64": m in ("mov", "movl", "movw", "movzwl", "movzbl") and _mem_base(isa, i) is not None}[isa.name]


def _touches_memory(isa, i):
    return bool(re.search(r"[\[(]", ",".join(i.ops))) or isa.is_call(i) or isa.is_ret(i)


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
        if br:
            if br[0] not in addrs:
                raise NotTaken("a branch out of the slow path (a tail call?): %s" % i.text)
            succ[i.addr] = [br[0]] + (nxt if br[1] else [])
        else:
            succ[i.addr] = nxt
    return succ


def _reach(succ, start, cut=frozenset()):
    seen, todo = set(), [start]
    while todo:
        a = todo.pop()
        if a in seen:
            continue
        seen.add(a)
        todo.extend(b for b in succ[a] if (a, b) not in cut)
    return seen


def _slice(isa, insns, k):
    """(start index, end index) of site k's slice."""
    base = _mem_base(isa, insns[k])
    start, anyload = k, None
    for j in range(k - 1, max(-1, k - 13), -1):
        if isa.is_ret(insns[j]) or isa.is_call(insns[j]):
            break
        if _is_load(isa, insns[j]) and _mem_base(isa, insns[j]) == base:
            if isa.writes(insns[j]) is None and not re.search(r"x[r]|lr\.|arx", insns[j].mnem):
                start = j
                break
            anyload = j if anyload is None else anyload
    if start == k and anyload is not None:
        start = anyload
    end = k
    for j in range(k + 1, min(len(insns), k + 9)):
        if _touches_memory(isa, insns[j]):
            break
        end = j
        if insns[j].mnem == isa.jump:
            break
    return start, end


def _herd(isa, name, cols, init, locs, filt):
    width = max([len(ln) for c in cols for ln in c] + [8]) + 2
    body = [" | ".join(("P%d" % t).ljust(width) for t in range(len(cols))) + " ;"]
    for r in range(max(len(c) for c in cols)):
        body.append(" | ".join((" " + c[r] if r < len(c) else "").ljust(width) for c in cols) + " ;")
    text = ["%s %s" % (isa.herd_arch, name), "Variant=telechat", "{ " + " ".join(init) + " }"] + body
    text.append("locations [%s]" % "; ".join(locs))
    if filt:
        text.append("filter (%s)" % " /\\ ".join(filt))
    text.append("exists (true)")
    return "\n".join(text) + "\n"


def _thread(isa, text, tid, notes, reserved, args=()):
    insns = listing.parse(text)["P0"]
    return translate.thread(isa, insns, notes, tid, reserved, True, args)


def _used(isa, insns):
    used = translate._used_regs(insns)
    if isa.name == "x86_64":
        used |= {isas.X86_64._R64.get(w, w) for w in used}
    return used


def site_test(isa, insns, k):
    """The herd7 test of site k (an index into the slow path's instructions):
    (text, keys {lock, data, edge}, {exit number: target address}, notes, slice)."""
    start, end = _slice(isa, insns, k)
    sl = insns[start:end + 1]
    base = _mem_base(isa, insns[k])
    used = _used(isa, sl) | {base}
    free = [r for r in PICK[isa.name] if r not in used]
    if len(free) < 3:
        raise NotTaken("no free registers for the test")
    daddr, dval, edge = free[:3]
    tail = sl[-1]
    nxt = [i.addr for i in insns if i.addr > tail.addr]
    body = [dataclass_copy(i) for i in sl]
    if not (isa.is_ret(tail) or tail.mnem == isa.jump) and nxt:
        body.append(listing.Insn(tail.addr + 1, isa.jump, ["0x%x" % nxt[0]], "(the fall-through out of the slice)"))
    notes = set()
    outside = set()
    lines, marker = translate.thread(isa, body, notes, 1, used | {daddr, dval, edge}, True, (), outside)
    ld = isa.render(listing.parse(_fn([_load(isa, dval, daddr)]))["P0"][0], str, True)
    exits = {}
    jump = {"aarch64": "B %s", "riscv64": "j %s", "ppc64le": "b %s", "x86_64": "jmp %s"}[isa.name]
    for n, t in enumerate(sorted(outside), 1):
        exits[n] = t
        lines += ["Lx1_%x:" % t, isa.mov_imm(edge, n), jump % "Lexit1"]
    lines += ["Lexit1:"] + ld + [isa.ret_text]
    p0, m0 = _thread(isa, _fn(WRITER[isa.name]), 0, notes, set(), isa.arg_regs[:2])
    init = ["l=1;", "x=0;", "0:%s=l;" % isa.reg_key(isa.arg_regs[0]), "0:%s=x;" % isa.reg_key(isa.arg_regs[1]),
            "1:%s=l;" % isa.reg_key(base), "1:%s=x;" % isa.reg_key(daddr)]
    keys = {"lock": "l", "data": "1:%s" % isa.reg_key(dval), "edge": "1:%s" % isa.reg_key(edge)}
    filt = ["1:%s=0" % isa.reg_key(marker)] if marker else []
    text = _herd(isa, "kv-slowpath-%x" % insns[k].addr, [p0, lines], init, [keys["lock"], keys["data"], keys["edge"]],
                 filt)
    return text, keys, exits, sorted(notes), (start, end)


def dataclass_copy(i):
    return listing.Insn(i.addr, i.mnem, list(i.ops), i.text, i.symbol, i.reloc, list(i.notes))


def judge_site(H, isa, insns, k):
    i = insns[k]
    rec = {"addr": "0x%x" % i.addr, "insn": i.text.replace("\t", " ").strip()}
    try:
        text, keys, exits, notes, (s, e) = site_test(isa, insns, k)
    except NotTaken as ex:
        rec.update(verdict="not judged", reason=str(ex))
        return rec, set()
    rec["slice"] = ["0x%x" % insns[s].addr, "0x%x" % insns[e].addr]
    rec["notes"] = notes
    res = H.run(text, source=False)
    if "error" in res or res.get("unrolled"):
        rec.update(verdict="not judged", reason="herd7 (%s): %s" % (isa.herd_arch, res.get("error") or res["unrolled"]),
                   herd_test=text)
        return rec, set()
    taken, other, weaker = set(), set(), []
    for st in res["states"]:
        d = dict(st)
        took = int(d.get(keys["lock"], "0"), 0) & 0xff != 0
        e = int(d.get(keys["edge"], "0"), 0)
        (taken if took else other).add(e)
        if took and d.get(keys["data"]) == "0":
            weaker.append(" ".join("%s=%s;" % kv for kv in sorted(st)))
    success = taken - other - {0}
    edges = set()
    for n in success:
        srcs = [j.addr for j in insns[s:e + 1] if exits[n] in _targets(isa, insns, j, e)]
        edges.update((a, exits[n]) for a in srcs)      # none: not counted (never more than the code has)
    if weaker:
        # Not a WEAKER of the slow path: code past an exit (not in the slice) may hold the fence
        # (ppc64le clang-19: sthcx. at 0x9a4 exits to the lwsync at 0x974).
        rec.update(verdict="no acquire in the slice", weaker=weaker, herd_test=text,
                   reason="the slice alone lets the lock be taken with x read 0; the code past its exits "
                   "may still order it")
        return rec, set()
    if not taken:
        rec.update(verdict="takes no lock", reason="no execution of the slice sets the locked byte after the release")
        return rec, set()
    # a success edge counts only if nothing outside the slice branches into it after the RMW
    inside = {j.addr for j in insns[s:e + 1]}
    after = {j.addr for j in insns[k + 1:e + 1]}
    if any(isa.branch(j) and isa.branch(j)[0] in after for j in insns if j.addr not in inside):
        rec.update(verdict="acquire", reason="code outside the slice branches into it after the RMW: its exits "
                   "are not counted as success edges")
        return rec, set()
    rec.update(verdict="acquire", success_edges=["0x%x->0x%x" % ed for ed in sorted(edges)])
    return rec, edges


def _targets(isa, insns, j, e):
    """The addresses instruction j of a slice ending at index e may go to."""
    k = insns.index(j)
    out = set()
    br = isa.branch(j)
    if br:
        out.add(br[0])
    if not (br and not br[1]) and not isa.is_ret(j) and k + 1 < len(insns):
        out.add(insns[k + 1].addr)
    return out


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


def ways_out(isa, insns, edges):
    """Each return of the slow path: covered when every path to it from the entry takes a success edge."""
    succ = _succ(isa, insns)
    free = _reach(succ, insns[0].addr, frozenset(edges))
    whole = _reach(succ, insns[0].addr)
    out = []
    for i in insns:
        if isa.is_ret(i) and i.addr not in whole:
            # never counted as covered: the graph has lost a path the code has
            raise NotTaken("the control-flow graph does not reach the return at 0x%x" % i.addr)
        if isa.is_ret(i):
            by = sorted({"0x%x" % a for a, b in edges if i.addr in _reach(succ, b, frozenset(edges) - {(a, b)})})
            out.append({"addr": "0x%x" % i.addr, "covered": i.addr not in free, "after": by})
    return out


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
