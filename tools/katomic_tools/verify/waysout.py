"""katomic verify --slowpath: every way out of the compiled slow path is an acquire.

The property: when __ka_spin_lock_slowpath_v2 returns, the read of the RMW
of the lock word that took the lock is ordered before every access after the
return (the critical section).  It is proven on the compiled function's
control-flow graph (CFG), in three steps, all on the compiled code:

1. The lock's address.  A forward must-analysis gives, at each instruction,
   the registers that hold lock+k: the argument register at the entry, its
   copies (mov, mr, mv) and their additions of a constant; any other write of
   a register, and a call for the registers the ABI does not preserve, forget
   it.  A *lock site* is an RMW or a load-exclusive whose base holds lock+0.
   An RMW through a base known to hold lock+k, k != 0 (the tail's 16-bit
   xchg at lock+2) cannot write the locked byte: it is no site; nor is one of
   lock+0 that can only OR in a constant whose low byte is 0 (the HANDOFF
   flag's, keeps_locked_byte).  An RMW through a base that holds the address
   of one of the library's globals (a GOT/TOC entry's, plus an offset or an
   index that is no lock address: the node pool) is of that object, not the
   lock: no site (global_regs).  An RMW through any other base is *unknown*:
   it may be of the lock word as far as this analysis knows.

2. Segments.  From each site, the CFG is followed through instructions that
   touch no memory but the thread's own stack (and the site's own
   store-exclusive), fences included, up to the first other memory access,
   call or return (the segment's *end*), or a revisited instruction or
   MAX_SEGMENT instructions (never proven).  Each path of it is a herd7 MP
   test: P0, the reference writer, stores x=1, a full fence, then 0 to the
   lock word (1 at the start); P1 runs the path from the site, each branch
   that leaves the path going to a filtered failure exit, then loads x.  The
   read of the site is copied to a register (a move: no access, no
   dependency of the test's); registers read before they are written are 0,
   so a compare-and-swap expecting them expects the released word, except on
   riscv64 those every path gives one constant on entry to the site (gcc
   computes its sub-word masks before the LR/SC loop: rv_values), which start
   with it.  A load of the thread's own stack into registers the path reads no
   more (an epilogue's restores) is left out.  A branch that contradicts an
   earlier one of the path, or what every path into the site knows of the
   registers, ends no path (infeasible; riscv64 and ppc64le).  A path
   is an *acquire* when some execution that runs it reads 0 (P0's release:
   the word starts at 1) and none that does also reads x=0; herd7 judges the
   prefixes that end just after the site, after each fence and at the end,
   and the shortest that is an acquire makes the path *ordered* from there on.
   Ordering does not depend on the registers' values (they decide which path
   runs, and each path is judged apart, with values under which it runs, or
   not at all), and what orders the read before a load of x with no
   dependency of its own (an acquire, a fence, ctrl+isync) orders it before
   everything after it, so an ordered path stays ordered to the return.  A
   path that reaches a return with an execution that read the release and
   x=0 is a WEAKER of the slow path: the way out lets the critical section
   read before the lock's acquisition.

3. Ways out.  A walk of the CFG from the entry with a state per path: none
   (no site yet), pending (a site whose path is not proven ordered), or
   ordered (by site s).  A lock site starts a new segment whatever the state
   (the slow path makes no RMW of lock+0 once it holds the lock: the earlier
   ones did not take it); an unknown RMW in the ordered state must itself be
   proven ordered (if it took the lock, its read is the one to order),
   elsewhere it changes nothing (the state is not ordered anyway).  A site's
   path that writes nothing keeps the state the site was entered with: a
   retry back to the site (a compare that failed, a store-exclusive whose
   status says it failed), or a load-exclusive's path on which its
   store-exclusive does not run and from whose end none of its base is
   reachable but through a load-exclusive.  A return
   is *covered* when every state that reaches it is ordered; it names the
   sites that order it.  The slow path is an acquire when every return is
   covered.  Calls (clock, sched_yield, futex, nanosleep, the cold yield
   helper) are passed over: they get no pointer to the lock, so they take no
   lock and their accesses, after the ordering, are ordered like any other.
"""
import re

from . import isa as isas
from . import listing, translate
from .isa import NotTaken

MAX_SEGMENT = 40
END, FAIL = 0xE0000, 0xF0000
CALLEE_SAVED = {
    "aarch64": {"x%d" % n for n in range(19, 30)} | {"sp"},
    "riscv64": {"s%d" % n for n in range(12)} | {"sp"},
    "ppc64le": {"r%d" % n for n in range(14, 32)} | {"r1", "r2"},
    "x86_64": {"rbx", "rbp", "r12", "r13", "r14", "r15", "rsp"},
}
STACK = {"aarch64": re.compile(r"\[(sp|x29)\b"), "riscv64": re.compile(r"\(sp\)"),
         # ppc64le: d(r1), or an indexed form on r1 (the prologue's `stxvd2x vs63,r1,r4`)
         "ppc64le": re.compile(r"\(r1\)|^[a-z]*\d+,r1,r\d+$"), "x86_64": re.compile(r"\(%rsp\)")}


def _norm(isa, r):
    r = r.strip().lstrip("%").lower()
    if isa.name == "aarch64" and re.match(r"^[wx]\d+$", r):
        return "x" + r[1:]
    if isa.name == "x86_64":
        return isas.X86_64._R64.get(r, r)
    return r


def _reg(isa, op):
    """The register an operand names, normalised, or None (memory, immediate)."""
    o = op.strip()
    if isa.name == "aarch64":
        return _norm(isa, o) if re.match(r"^([wx]\d+|sp|xzr|wzr)$", o) else None
    if isa.name == "riscv64":
        return o if re.match(r"^([astx]\d+|zero|ra|sp|gp|tp|fp)$", o) else None
    if isa.name == "ppc64le":
        return o if re.match(r"^r\d+$", o) else None
    return _norm(isa, o) if re.match(r"^%[a-z0-9]+$", o) else None


def _imm(isa, op):
    o = op.strip().lstrip("#$")
    try:
        return int(o, 0)
    except ValueError:
        return None


def mem_base(isa, i):
    """(base register, displacement) of the instruction's memory operand, or None."""
    for o in i.ops:
        if isa.name == "aarch64":
            m = re.match(r"^\[(x\d+|sp)(?:, #(-?(?:0x)?[0-9a-f]+))?\]!?$", o)
            if m:
                return m.group(1), int(m.group(2) or "0", 0)
        elif isa.name in ("riscv64", "ppc64le"):
            m = re.match(r"^(-?(?:0x)?[0-9a-f]*)\(([a-z]+\d*)\)$", o)
            if m:
                return m.group(2), int(m.group(1) or "0", 0)
        else:
            m = re.match(r"^(?:%[a-z]s:)?(-?(?:0x)?[0-9a-f]*)\(%([a-z0-9]+)\)$", o)
            if m:
                return _norm(isa, m.group(2)), int(m.group(1) or "0", 0)
    if isa.name == "ppc64le" and len(i.ops) >= 3 and re.match(r"^(l|st)\w*(arx|cx\.|x)$", i.mnem):
        if i.ops[1] == "0":
            return i.ops[2], 0             # the indexed forms with RA=0
        return i.ops[1], None              # base + index: no constant displacement
    return None


def is_rmw(isa, i):
    """An RMW, or the load half of an LL/SC pair ("ll"), or its store half ("sc"); else None."""
    m = i.mnem
    w = isa.writes(i)
    if w == "rmw":
        return "rmw"
    if w == "exclusive":
        return "sc"
    if isa.name == "aarch64" and re.match(r"^ld(a)?xr[bh]?$|^ld(a)?xp$", m):
        return "ll"
    if isa.name == "riscv64" and m.startswith("lr."):
        return "ll"
    if isa.name == "ppc64le" and m.endswith("arx"):
        return "ll"
    return None


def keeps_locked_byte(isa, insns, k, consts=None):
    """True if the RMW or load-exclusive insns[k] of the lock word can only OR into it a constant
    whose low byte is 0 (the HANDOFF flag's ka_atomic_or): it cannot write the locked byte, so it
    takes no lock.  x86-64 `lock or $imm`; riscv64 `amoor` of a register known constant (consts:
    the registers' values there); an LL/SC pair `ll r; or r,r,imm; sc r` in a straight line."""
    i, m, ops = insns[k], insns[k].mnem, insns[k].ops
    low0 = lambda v: v is not None and v & 0xff == 0
    if isa.name == "x86_64":
        return bool(re.match(r"^lock or[bwlq]?$", m)) and ops[0].startswith("$") and low0(_imm(isa, ops[0]))
    if isa.name == "riscv64" and m.startswith("amoor."):
        return low0((consts or {}).get(ops[1]))
    if is_rmw(isa, i) != "ll" or k + 2 >= len(insns):
        return False
    op, sc = insns[k + 1], insns[k + 2]
    d = _norm(isa, ops[0])
    ors = {"aarch64": "orr", "riscv64": "ori", "ppc64le": "ori"}
    if op.mnem not in (ors[isa.name], "or") or len(op.ops) != 3 or {_norm(isa, o) for o in op.ops[:2]} != {d} \
            or not low0(_imm(isa, op.ops[2])):
        return False
    if is_rmw(isa, sc) != "sc" or mem_base(isa, sc) != mem_base(isa, i):
        return False
    stored = {"aarch64": lambda o: o[1], "riscv64": lambda o: o[1], "ppc64le": lambda o: o[0]}[isa.name](sc.ops)
    return _norm(isa, stored) == d


def read_reg(isa, i):
    """The register an RMW or load-exclusive leaves the value it read in (as written), or None."""
    m, ops = i.mnem, i.ops
    if isa.name == "aarch64":
        if m.startswith("cas") or re.match(r"^ld(a)?x", m):
            return ops[0]
        if m.startswith(("swp", "ldadd", "ldclr", "ldset", "ldeor")):
            return ops[1]
        return None
    if isa.name == "riscv64":
        return ops[0] if (m.startswith(("lr.", "amo")) and ops[0] != "zero") else None
    if isa.name == "ppc64le":
        return ops[0] if m.endswith("arx") else None
    words = m.split()
    if words[-1].startswith("cmpxchg"):
        return "%eax"
    if words[-1].startswith(("xchg", "xadd")):
        return ops[0]
    return None


def _copy(isa, dst, src):
    """objdump's text of a register move dst := src (as the translator reads it)."""
    if isa.name == "aarch64":
        return "mov", [("w" if src.startswith("w") else "x") + dst[1:], src]
    if isa.name == "riscv64":
        return "mv", [dst, src]
    if isa.name == "ppc64le":
        return "mr", [dst, src]
    return "mov", [src, isas.X86_64._r32(dst)]


# ------------------------------------------------------------------ the lock's address
def _copy_or_add(isa, i):
    """(dst, src, k) when i sets dst := src + k (k a constant, 0 for a move), else None."""
    m, ops = i.mnem, i.ops
    if isa.name == "x86_64":
        if m in ("mov", "movq") and len(ops) == 2 and re.match(r"^%r", ops[0]) and re.match(r"^%r", ops[1]):
            return _norm(isa, ops[1]), _norm(isa, ops[0]), 0
        if m in ("lea", "leaq") and len(ops) == 2:
            mm = re.match(r"^(-?(?:0x)?[0-9a-f]*)\(%([a-z0-9]+)\)$", ops[0])
            if mm and re.match(r"^%r", ops[1]):
                return _norm(isa, ops[1]), _norm(isa, mm.group(2)), int(mm.group(1) or "0", 0)
        return None
    if m in ("mov", "mv", "mr") and len(ops) == 2 and _reg(isa, ops[1]) and not ops[0].startswith("w"):
        return _reg(isa, ops[0]), _reg(isa, ops[1]), 0
    if m in ("add", "addi") and len(ops) == 3 and _reg(isa, ops[1]) and _imm(isa, ops[2]) is not None \
            and not ops[0].startswith("w"):
        return _reg(isa, ops[0]), _reg(isa, ops[1]), _imm(isa, ops[2])
    return None


NO_DEST = {
    "aarch64": re.compile(r"^(cmp|cmn|tst|ccmp|ccmn|b(\..*)?|cbn?z|tbn?z|ret|dmb|dsb|isb|yield|nop|prfm|hint|st.*)$"),
    "riscv64": re.compile(r"^(b.*|j|ret|fence.*|nop|s[bhwd]|pause)$"),
    "ppc64le": re.compile(r"^(cmp.*|b.*|sync|lwsync|isync|hwsync|eieio|nop|st.*|mt.*|or 31,31,31|or 1,1,1|or 2,2,2)$"),
}


def _written(isa, i):
    """The registers i may write (normalised); None: every register (a call)."""
    if isa.is_call(i):
        return None
    m, ops = i.mnem, i.ops
    out = set()
    if isa.name == "x86_64":
        out |= {"rax", "rdx", "rcx"}    # implicit: cmpxchg, rdtsc, cpuid, mul, div, cltq, rep...
        words = m.split()
        if words and words[-1].startswith(("cmp", "test", "j", "push", "ret", "nop", "pause", "mfence", "lfence",
                                           "sfence")):
            return out
        if words and words[-1].startswith(("xchg", "xadd")):
            out |= {r for r in (_reg(isa, o) for o in ops) if r}
        if ops and _reg(isa, ops[-1]):
            out.add(_reg(isa, ops[-1]))
        return out
    if NO_DEST[isa.name].match(m) and not (isa.writes(i) == "exclusive"):
        dest = []
    else:
        dest = ops[:1]
    if isa.name == "aarch64":
        if m.startswith(("ldp", "ldxp", "ldaxp", "ldnp", "casp")):
            dest = ops[:2]
        if m.startswith(("swp", "ldadd", "ldclr", "ldset", "ldeor", "ldsmax", "ldumax", "ldsmin", "ldumin")):
            dest = ops[1:2]
        if isa.writes(i) == "exclusive":
            dest = ops[:1]
        for o in ops:                   # writeback: [x0, #8]! or [x0], #8
            mm = re.match(r"^\[(x\d+|sp)", o)
            if mm and (o.endswith("!") or o.endswith("]") and ops[-1] != o):
                out.add(_norm(isa, mm.group(1)))
    if isa.name == "ppc64le" and re.match(r"^(l|st)\w*u$", m):
        b = mem_base(isa, i)
        if b:
            out.add(b[0])
    if isa.name == "riscv64" and isa.writes(i) == "exclusive":
        dest = ops[:1]
    out |= {r for r in (_reg(isa, o) for o in dest) if r}
    return out


SP = {"aarch64": "sp", "riscv64": "sp", "ppc64le": "r1", "x86_64": "rsp"}


def _transfer(isa, i, cur):
    """The lock+k facts after i: registers by name, the stack's slots as ("sp", offset)."""
    cur = dict(cur)
    sp = SP[isa.name]
    b = mem_base(isa, i)
    words = i.mnem.split()
    m = words[-1] if words else ""
    if isa.name == "x86_64" and m in ("push", "pushq", "pop", "popq"):
        r = _reg(isa, i.ops[0]) if i.ops else None
        slots = {k: v for k, v in cur.items() if isinstance(k, tuple)}
        regs = {k: v for k, v in cur.items() if not isinstance(k, tuple)}
        if m.startswith("push"):
            out = {("sp", o + 8): v for (_, o), v in slots.items()}
            if r in regs:
                out[("sp", 0)] = regs[r]
        else:
            out = {("sp", o - 8): v for (_, o), v in slots.items() if o >= 8}
            regs.pop(r, None)
            if ("sp", 0) in slots:
                regs[r] = slots[("sp", 0)]
        out.update(regs)
        return out
    ca = _copy_or_add(isa, i)
    w = _written(isa, i)
    if w is None:
        return {r: k for r, k in cur.items() if isinstance(r, tuple) or r in CALLEE_SAVED[isa.name]}
    if b and b[0] == sp and b[1] is None:        # an indexed stack access: any slot
        cur = {r: k for r, k in cur.items() if not isinstance(r, tuple)}
        b = None
    if b and b[0] == sp and not isa.is_call(i):
        slot = ("sp", b[1])
        if isa.writes(i) in ("plain", "rmw", "exclusive"):
            src = _reg(isa, i.ops[0])
            cur.pop(slot, None)
            if isa.writes(i) == "plain" and src in cur and i.mnem.split()[-1] in ("str", "sd", "std", "mov", "movq"):
                cur[slot] = cur[src]
            for r in w:
                cur.pop(r, None)
            return cur
        dst = _reg(isa, i.ops[-1] if isa.name == "x86_64" else i.ops[0])
        for r in w:
            cur.pop(r, None)
        if dst and slot in cur and m in ("ldr", "ld", "mov", "movq"):
            cur[dst] = cur[slot]
        return cur
    if sp in (w | ({ca[0]} if ca else set())) or isa.name == "aarch64" and ca is None and i.ops and i.ops[0] == "sp":
        slots = {r: k for r, k in cur.items() if isinstance(r, tuple)}
        cur = {r: k for r, k in cur.items() if not isinstance(r, tuple)}
        if isa.name == "x86_64" and m in ("sub", "add") and len(i.ops) == 2 and _imm(isa, i.ops[0]) is not None:
            d = _imm(isa, i.ops[0]) * (1 if m == "sub" else -1)
            cur.update({("sp", o + d): v for (_, o), v in slots.items()})
    new = None
    if ca and ca[1] in cur:
        new = (ca[0], cur[ca[1]] + ca[2])
    elif isa.name == "riscv64" and m in ("and", "andi") and len(i.ops) == 3 and _imm(isa, i.ops[2]) == -4 \
            and _reg(isa, i.ops[1]) in cur:
        # gcc's sub-word RMW works on the aligned word: lock+k rounded down (the lock word is aligned)
        new = (_reg(isa, i.ops[0]), cur[_reg(isa, i.ops[1])] & ~3)
    for r in w | ({ca[0]} if ca else set()) | ({new[0]} if new else set()):
        cur.pop(r, None)
    if new:
        cur[new[0]] = new[1]
    return cur


def lock_regs(isa, insns, succ):
    """{addr: {register or stack slot: k}}: what holds lock+k before each instruction."""
    by = {i.addr: i for i in insns}
    return isas.forward_must(insns[0].addr, {_norm(isa, isa.arg_regs[0]): 0}, succ,
                             lambda a, cur: _transfer(isa, by[a], cur))


# ------------------------------------------------------------------ addresses of the library's globals
# An address the function takes of a global it names (through a relocation: the GOT, the TOC, a
# PC-relative address) is one of the library's own objects (the node pool, its thread-locals, a
# constant pool), never the lock's: the lock reaches the function only as its argument, and C
# keeps pointer arithmetic inside its object.  So an RMW through such a base, or through one
# plus an offset or an index that is no lock address, is of no lock word.
def _global_source(isa, i, cur):
    """True if i sets its first operand to a global's address: the GOT/TOC entry's load, or
    the address computed PC-relatively (not a load of a global's contents, which may be any
    pointer); cur: the analysis' facts before i ("got"/"pcrel" for riscv's auipc halves)."""
    r, m, ops = i.reloc or "", i.mnem, i.ops
    if isa.name == "ppc64le":
        return (r.startswith("R_PPC64_TOC16_LO_DS") and m == "ld" and i.symbol == ".toc"
                or r == "R_PPC64_TOC16_LO" and m == "addi")
    if isa.name == "aarch64":
        return r in ("R_AARCH64_LD64_GOT_LO12_NC", "R_AARCH64_ADD_ABS_LO12_NC")
    if isa.name == "x86_64":
        return re.match(r"^R_X86_64_(REX_)?GOTPCRELX?$", r) and m.startswith("mov") \
            or r == "R_X86_64_PC32" and m.startswith("lea")
    if r == "R_RISCV_PCREL_LO12_I" and ops:
        src = mem_base(isa, i)[0] if mem_base(isa, i) else (ops[1] if len(ops) > 1 else None)
        return cur.get(src) == ("got" if m == "ld" else "pcrel" if m in ("addi", "add") else None)
    return False


def global_regs(isa, insns, succ, lock):
    """{addr: {register: "global"}} before each instruction: the registers every path gives an
    address of one of the library's globals (riscv64's auipc halves as "got"/"pcrel").
    lock: lock_regs' result (an index that may be the lock's address makes no global one)."""
    by = {i.addr: i for i in insns}

    def transfer(a, cur):
        i = by[a]
        w = _written(isa, i)
        if w is None:
            return {r: v for r, v in cur.items() if r in CALLEE_SAVED[isa.name]}
        out = {r: v for r, v in cur.items() if r not in w}
        ops, locks = i.ops, lock.get(a, {})
        new = None
        if _global_source(isa, i, cur):
            new = _reg(isa, ops[-1] if isa.name == "x86_64" else ops[0])
        elif isa.name == "riscv64" and i.mnem == "auipc" and i.reloc:
            out[ops[0]] = "got" if "GOT_HI20" in i.reloc else "pcrel" if i.reloc == "R_RISCV_PCREL_HI20" else None
            return {r: v for r, v in out.items() if v}
        else:
            ca = _copy_or_add(isa, i)
            if ca and cur.get(ca[1]) == "global":
                new = ca[0]
            elif isa.name != "x86_64" and i.mnem == "add" and len(ops) >= 3 and not ops[0].startswith("w"):
                if _global_sum(cur, locks, _reg(isa, ops[1]), _reg(isa, ops[2])):
                    new = _reg(isa, ops[0])
            elif isa.name == "x86_64" and len(ops) == 2 and re.match(r"^%r", ops[1]):
                # lea k(%base,%index,s),%rd; add %rs,%rd
                lea = re.match(r"^(-?(?:0x)?[0-9a-f]*)\(%(\w+),%(\w+)(?:,\d)?\)$", ops[0]) \
                    if i.mnem in ("lea", "leaq") else None
                pair = (_norm(isa, lea.group(2)), _norm(isa, lea.group(3))) if lea else \
                    (_reg(isa, ops[0]), _reg(isa, ops[1])) if i.mnem in ("add", "addq") else None
                if pair and _global_sum(cur, locks, *pair):
                    new = _reg(isa, ops[1])
        if new:
            out[new] = "global"
        return out
    return isas.forward_must(insns[0].addr, {}, succ, transfer)


def of_global(isa, i, glob, lock):
    """True if the memory operand of i is in one of the library's globals (global_regs' facts
    glob and lock_regs' lock before i)."""
    b = mem_base(isa, i)
    if not b:
        return False
    if isa.name == "ppc64le" and b[1] is None and len(i.ops) >= 3:     # base + index
        return _global_sum(glob, lock, i.ops[1], i.ops[2])
    return glob.get(b[0]) == "global"


def _global_sum(glob, lock, x, y):
    """Whether x + y is in one of the library's globals: one of them holds a global's address
    (glob: global_regs' facts), the other no lock address (lock: lock_regs')."""
    return glob.get(x) == "global" and y not in lock or glob.get(y) == "global" and x not in lock


# ------------------------------------------------------------------ segments
def _touches(isa, i):
    """A memory access other than the thread's own stack, a call or a return."""
    if isa.is_call(i) or isa.is_ret(i):
        return True
    text = ",".join(i.ops)
    if not re.search(r"[\[(]", text) and mem_base(isa, i) is None and not is_rmw(isa, i):
        return False                    # (ppc's indexed forms, lwarx r9,0,r4, have no parentheses)
    return not STACK[isa.name].search(text)


# ------------------------------------------------------------------ register values (riscv64)
# What a register holds, as an expression: ("const", v); ("val", tag, kind), a value of its own (a
# load's, an RMW's; kind says what its bits can be: "u8", "u16", "u32" zero-extended, "s32"
# sign-extended, "x" anything); ("in", r), r's value before a path; or (operation, operands...).
# Over the whole function (rv_values), a load's tag is its address and every expression that
# names it is forgotten when it runs again, so that one tag is one value wherever it is named;
# along a path (infeasible), each load is a value of its own.  Two branches that test one pair of
# equal expressions both ways cannot both run: clang's CAS (lr.w; and; bne; sc.w) tests its
# success again after the acquire fence (and; fence r,rw; beq), and gcc's masked CAS compares the
# old sub-word once masked and once shifted by its offset (0: the lock word is aligned).
_RV_OPS = re.compile(r"^(and|or|xor|add|addw|sub|subw|sll|srl|sra|sllw|srlw|sraw|mul|mulw)i?w?$")
_RV_UNARY = re.compile(r"^(zext\.[bhw]|sext\.[bhw]|not|neg|negw)$")
# writes no register (branches are isa.branch's: Zbs's bset, bclr... do write one)
_RV_NOREG = re.compile(r"^(sb|sh|sw|sd|fence.*|nop|pause|ret)$")
_RV_LOADS = {"lbu": "u8", "lhu": "u16", "lwu": "u32", "lb": "s32", "lh": "s32", "lw": "s32", "ld": "x",
             "lr.w": "s32", "lr.d": "x"}
_M64 = (1 << 64) - 1


def _sext32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v >> 31 else v


def _s64(v):
    v &= _M64
    return v - (1 << 64) if v >> 63 else v


# register arithmetic on known values as the hardware computes it (64-bit two's complement; the
# w forms on the low 32 bits, sign-extended)
_RV_EVAL = {
    "add": lambda x, y: _s64(x + y), "sub": lambda x, y: _s64(x - y),
    "addw": lambda x, y: _sext32(x + y), "subw": lambda x, y: _sext32(x - y),
    "and": lambda x, y: x & y, "or": lambda x, y: x | y, "xor": lambda x, y: x ^ y,
    "sll": lambda x, y: _s64(x << (y & 63)), "srl": lambda x, y: _s64((x & _M64) >> (y & 63)),
    "sra": lambda x, y: x >> (y & 63),
    "sllw": lambda x, y: _sext32(x << (y & 31)), "srlw": lambda x, y: _sext32((x & 0xffffffff) >> (y & 31)),
    "sraw": lambda x, y: _sext32(_sext32(x) >> (y & 31)),
}
_RV_EVAL1 = {"not": lambda x: ~x, "neg": lambda x: _s64(-x), "negw": lambda x: _sext32(-x),
             "sext.w": _sext32, "zext.b": lambda x: x & 0xff, "zext.h": lambda x: x & 0xffff,
             "zext.w": lambda x: x & 0xffffffff}


def _rv_base(m):
    """The register-register operation of a riscv64 mnemonic (andi -> and, addiw -> addw)."""
    if m.endswith("iw"):
        return m[:-2] + "w"
    return m[:-1] if m.endswith("i") and m[:-1] in _RV_EVAL else m


def _bits(e):
    """How many low bits can be set in e's value (it is non-negative), or None."""
    if e[0] == "const":
        return e[1].bit_length() if e[1] >= 0 else None
    if e[0] == "val":
        return {"u8": 8, "u16": 16, "u32": 32}.get(e[2])
    if e[0] == "and":
        known = [_bits(x) for x in e[1:] if _bits(x) is not None]
        return min(known) if known else None
    return None


def _fits32(e):
    """An expression whose value is known to be a sign-extended 32-bit one."""
    b = _bits(e)
    return (b is not None and b < 32 or e[0] == "const" and -(1 << 31) <= e[1] < (1 << 31)
            or e[0] == "val" and e[2] == "s32" or e[0] in ("sext.w", "addw", "subw", "sllw", "srlw", "sraw", "negw"))


def _simp(e):
    """An expression in one spelling per value where it is cheap to see: constants folded,
    commutative operands sorted, a mask or a shift pair that keeps every bit the value can have
    dropped, a w-shift by 0 a sign extension, a sign extension of what is already one dropped."""
    op, args = e[0], e[1:]
    if all(x[0] == "const" for x in args):
        if op in _RV_EVAL and len(args) == 2:
            return ("const", _RV_EVAL[op](args[0][1], args[1][1]))
        if op in _RV_EVAL1 and len(args) == 1:
            return ("const", _RV_EVAL1[op](args[0][1]))
    if op == "srl" and args[0][0] == "sll" and args[1][0] == "const" and args[0][2] == args[1] \
            and 0 < args[1][1] < 64:
        return _simp(("and", args[0][1], ("const", (1 << (64 - args[1][1])) - 1)))   # a zero-extension
    if op in ("zext.b", "zext.h", "zext.w"):
        return _simp(("and", args[0], ("const", {"b": 0xff, "h": 0xffff, "w": 0xffffffff}[op[-1]])))
    if op == "and" and len(args) == 2:
        for x, m in (args, args[::-1]):
            if m[0] == "const" and m[1] >= 0 and (m[1] + 1) & m[1] == 0 and _bits(x) is not None \
                    and _bits(x) <= m[1].bit_length():
                return x                # a mask that keeps every bit x can have
    if op in ("sllw", "srlw", "sraw") and args[1] == ("const", 0):
        return _simp(("sext.w", args[0]))
    if op == "sext.w" and _fits32(args[0]):
        return args[0]
    if op in ("and", "or", "xor", "add", "mul") and len(args) == 2:
        return (op,) + tuple(sorted(args, key=repr))
    return e


def _leaves(e):
    """The constants, values and inputs an expression is made of (a value as its tag)."""
    if e[0] == "val":
        return {e[1]}
    if e[0] in ("const", "in"):
        return {e}
    return set().union(*(_leaves(x) for x in e[1:]))


def _rv_step(isa, i, regs, tag, lock=None):
    """The registers' expressions after the riscv64 instruction i, from those before it (regs: a
    register not in it holds ("in", itself)); tag: the tag a value loaded by i gets; lock:
    {register: k} for those that hold lock+k before i (lock_regs), so that gcc's sub-word offset
    `and rd,lock+k,3` is k & 3 (the lock word is aligned)."""
    out, m, ops = dict(regs), i.mnem, i.ops
    if not ops or _RV_NOREG.match(m) or isa.branch(i):
        return out

    def val(o):
        if o in ("zero", "x0"):
            return ("const", 0)
        if re.match(r"^-?(0x[0-9a-f]+|\d+)$", o):
            return ("const", int(o, 0))
        return out.get(o, ("in", o))
    rd, base = ops[0], _rv_base(m)
    if i.reloc:                         # a relocated immediate (lui a0,0x0 of %hi(sym)): the linker's
        e = ("val", tag, "x")
    elif m == "li" and len(ops) == 2 or m == "mv" and len(ops) == 2:
        e = val(ops[1])
    elif m == "lui" and len(ops) == 2 and val(ops[1])[0] == "const":
        e = ("const", _sext32(val(ops[1])[1] << 12))
    elif (m in _RV_EVAL1 or _RV_UNARY.match(m)) and len(ops) == 2:
        e = _simp((m, val(ops[1])))
    elif (base in _RV_EVAL or _RV_OPS.match(m)) and len(ops) == 3:
        x, y = val(ops[1]), val(ops[2])
        if base == "and" and lock and ops[1] in lock and y[0] == "const" and 0 <= y[1] <= 3:
            x = ("const", lock[ops[1]])     # only the offset's low bits are asked for
        e = _simp((base, x, y))
    else:                               # a load, an RMW, sc's status, anything else: a value of its own
        e = ("val", tag, _RV_LOADS.get(m, "s32" if re.match(r"^amo.*\.w", m) else "x"))
    out[rd] = e
    return out


def rv_values(isa, insns, succ, lock=None):
    """riscv64: {addr: {register: expression}} on entry to addr, what every path gives the
    register (the expressions above; a load's tag its address).  A call keeps the callee-saved
    s-registers.  The way of a beq/bne (beqz/bnez) on which its operands are equal gives a
    constant to the other.  lock: lock_regs' result."""
    if isa.name != "riscv64":
        return {}
    by = {i.addr: i for i in insns}
    lock = lock or {}

    def transfer(a, cur):
        if isa.is_call(by[a]):
            return {r: v for r, v in cur.items() if re.match(r"^s\d+$", r)}
        # a load's value replaces the one it had: forget what names the old one
        out = {r: e for r, e in cur.items() if ("pre", a) not in _leaves(e)}
        out = _rv_step(isa, by[a], out, ("pre", a), lock.get(a))
        # ("in", r) is r's value before a path, not before the function: unknown here
        return {r: e for r, e in out.items() if not any(x[0] == "in" for x in _leaves(e))}

    def edge(a, b, out):
        i = by[a]
        m, ops, br = i.mnem, i.ops, isa.branch(i)
        if not br or not br[1] or len(set(succ[a])) != 2 or m not in ("beq", "bne", "beqz", "bnez"):
            return out
        if (b == br[0]) != (m in ("beq", "beqz")):
            return out
        x, y = (ops[0], ops[1]) if m in ("beq", "bne") else (ops[0], "zero")
        ex = ("const", 0) if x in ("zero", "x0") else out.get(x)
        ey = ("const", 0) if y in ("zero", "x0") else out.get(y)
        if ey and ey[0] == "const" and x not in ("zero", "x0") and (not ex or ex[0] != "const"):
            return dict(out, **{x: ey})
        if ex and ex[0] == "const" and y not in ("zero", "x0") and (not ey or ey[0] != "const"):
            return dict(out, **{y: ex})
        return out
    def meet(b, old, new):
        # Where paths join with two expressions for a register, it holds a value of its own
        # there, ("phi", b, r0), with the bits both can have.  Registers that arrive with one
        # expression on every way in share it (r0 the first of them): they are equal.  The
        # groups only split and the kinds only widen, so the analysis ends; an expression kept
        # as it is names no phi of b (a phi of b names the value of this pass through b).
        if old is None:
            return new
        out, split = {}, {}
        for r, o in old.items():
            if r not in new:
                continue
            if o == new[r] and not (o[0] == "val" and o[1][:2] == ("phi", b)):
                out[r] = o
            else:
                split.setdefault((o, new[r]), []).append(r)
        for (o, n), rs in split.items():
            for r in rs:
                out[r] = ("val", ("phi", b, min(rs)), _join(_kind(o), _kind(n)))
        return out
    return isas.forward_must(insns[0].addr, {}, succ, transfer, edge, meet)


_KINDS = ("u8", "u16", "u32", "s32", "x")


def _kind(e):
    """The kind of value an expression is (what its bits can be): one of _KINDS."""
    if e[0] == "val":
        return e[2]
    b = _bits(e)
    if b is not None and b <= 32:
        return "u8" if b <= 8 else "u16" if b <= 16 else "u32"
    return "s32" if _fits32(e) else "x"


def _join(k1, k2):
    """The narrowest kind that holds both."""
    if k1 == k2:
        return k1
    if "x" in (k1, k2) or {k1, k2} == {"u32", "s32"}:
        return "x"
    if "s32" in (k1, k2):
        return "s32"
    return max(k1, k2, key=_KINDS.index)


def rv_consts(values):
    """{addr: {register: value}}: rv_values' constants."""
    return {a: {r: e[1] for r, e in regs.items() if e[0] == "const"} for a, regs in values.items()}


def _contradicts(facts, kind, x, y, eq):
    """Whether a branch that finds expressions x and y equal (eq) or not contradicts what they
    are or what the path's earlier branches found of them (facts: {key: eq}, which it adds to);
    kind: what else the key holds (ppc64le: the compare's width)."""
    if x == y and not eq or x[0] == y[0] == "const" and (x == y) != eq:
        return True
    return facts.setdefault(kind + tuple(sorted((repr(x), repr(y)))), eq) != eq


def infeasible(isa, by, succ, path, entry=None):
    """True if no execution runs `path` (addresses, each the next's predecessor) for want of
    values: a pair of expressions branched on as equal and as unequal.  by: {addr: Insn};
    succ: the control-flow graph; entry: what the registers hold where the path starts
    (rv_values).  riscv64 only; False (no judgement) elsewhere and across a call."""
    if isa.name == "ppc64le":
        return _ppc_infeasible(isa, by, succ, path)
    if isa.name != "riscv64":
        return False
    regs, facts = dict(entry or {}), {}

    def val(op):
        if op in ("zero", "x0"):
            return ("const", 0)
        return regs.get(op, ("in", op))

    for k, a in enumerate(path):
        i = by[a]
        m, ops = i.mnem, i.ops
        if isa.is_call(i):
            return False
        br = isa.branch(i)
        if br:
            # a conditional branch with two ways out (not one whose target is the next instruction)
            if br[1] and k + 1 < len(path) and len(set(succ[a])) == 2:
                if m in ("beq", "bne") and len(ops) >= 3:
                    x, y = val(ops[0]), val(ops[1])
                elif m in ("beqz", "bnez") and len(ops) >= 2:
                    x, y = val(ops[0]), ("const", 0)
                else:
                    continue
                if _contradicts(facts, (), x, y, (path[k + 1] == br[0]) == (m in ("beq", "beqz"))):
                    return True
            continue
        regs = _rv_step(isa, i, regs, ("path", k))
    return False


def _stack_load_dests(isa, i):
    """The registers a load from the thread's own stack writes (an epilogue's restores), or None."""
    m, ops = i.mnem, i.ops
    if isa.name == "x86_64":
        if m.startswith("pop") and ops:
            return [ops[0]]
        return [ops[-1]] if m.startswith("mov") and len(ops) == 2 and STACK[isa.name].search(ops[0]) else None
    if not ops or isa.writes(i) or is_rmw(isa, i) or not STACK[isa.name].search(",".join(ops)):
        return None
    loads = {"aarch64": r"^ld(r|p|ur)[bh]?$", "riscv64": r"^l[bhwd]u?$", "ppc64le": r"^(ld|lwz|lwa|lbz|lhz|lxvd2x|lxv)$"}
    if not re.match(loads[isa.name], m):
        return None
    return ops[:2] if m == "ldp" else ops[:1]


_PPC_CMP = re.compile(r"^cmpl?(w|d)i?$")


def _ppc_infeasible(isa, by, succ, path):
    """ppc64le's infeasible(): a compare sets a condition field to the pair it compares (the
    width of the compare, 32 or 64 bits, with it: equal is the same signed or not); a record
    form (andi., add.) sets cr0 to its result against 0; beq/bne on a field with two ways out is
    a fact of that pair being equal or not, and two contradicting facts are no path.  clang
    tests a CAS's success again after its loop (`lharx r4; cmpw r4,r20; bne` in it, `cmplw
    r4,r20; lwsync; beq` after it).  Registers are expressions of the values before the path, of
    its loads (each a value of its own), li's constants and mr's copies; anything else a
    register's instruction computes is a value of its own."""
    regs, cr, facts = {}, {}, {}
    val = lambda o: ("const", int(o, 0)) if re.match(r"^-?(0x[0-9a-f]+|\d+)$", o) else regs.get(o, ("in", o))
    for k, a in enumerate(path):
        i = by[a]
        m, ops = isa.branch_mnem(i.mnem), i.ops
        if isa.is_call(i):
            return False
        br = isa.branch(i)
        if br:
            field = ops[0] if len(ops) == 2 else "cr0"
            if br[1] and m in ("beq", "bne") and k + 1 < len(path) and len(set(succ[a])) == 2 and field in cr:
                w, x, y = cr[field]
                if _contradicts(facts, (w,), x, y, (path[k + 1] == br[0]) == (m == "beq")):
                    return True
            continue
        cm = _PPC_CMP.match(m)
        if cm:
            field, args = (ops[0], ops[1:]) if re.match(r"^cr[0-7]$", ops[0]) else ("cr0", ops)
            if len(args) == 2:
                cr[field] = (cm.group(1), val(args[0]), val(args[1]))
            continue
        if re.match(r"^(cr|mtcr|mtocrf|mcrf|fcmp|dcmp|xscmp|xvcmp|vcmp)", m) or any(
                re.search(r"\bcr[0-7]\b", o) for o in ops):
            cr.clear()                  # may write the condition register: forget every field
        w = _written(isa, i)
        if w is None:
            return False
        if m == "mr" and len(ops) == 2:
            new = {ops[0]: val(ops[1])}
        elif m == "li" and len(ops) == 2 and re.match(r"^-?(0x[0-9a-f]+|\d+)$", ops[1]):
            new = {ops[0]: ("const", int(ops[1], 0))}
        else:
            new = {r: ("val", ("path", k, r), "x") for r in w}
        regs.update(new)
        for r in w - set(new):
            regs.pop(r, None)
        if m.endswith(".") and isa.writes(i) != "exclusive" and ops and not m.startswith(("f", "v", "x", "d")):
            cr["cr0"] = ("d", val(ops[0]), ("const", 0))
        elif m.endswith("."):
            cr.clear()                  # a store-conditional's status; a float or vector record form
    return False


class Judge:
    """herd7 on one slow path's segments (results kept by path)."""

    def __init__(self, H, isa, insns, succ, free_regs):
        self.H, self.isa, self.insns, self.succ = H, isa, insns, succ
        self.by = {i.addr: i for i in insns}
        self.free = free_regs
        self.memo = {}
        self.tests = []                 # every path judged: (site, path, end, verdict, detail)
        self.lock = lock_regs(isa, insns, succ)
        self.values = rv_values(isa, insns, succ, self.lock)
        self.consts = rv_consts(self.values)

    def path_test(self, path, end):
        """The herd7 test of the path (addresses from the site), ending before `end`."""
        isa = self.isa
        site = self.by[path[0]]
        base = mem_base(isa, site)[0]
        seq = [self.by[a] for a in path]
        used = translate._used_regs(seq) | {base}
        if isa.name == "x86_64":
            used |= {isas.X86_64._R64.get(w, w) for w in used} | {"rax", "rdx", "rcx"}
        free = [r for r in self.free if r not in used]
        if len(free) < 4:
            raise NotTaken("no free registers for the test")
        obs, daddr, dval, edge = free[:4]
        rr = read_reg(isa, site)
        if rr is None:
            raise NotTaken("the read of %s is in no register" % site.text.strip())
        body, addr = [], 0x1000
        nxt = list(path[1:]) + [end]
        # riscv64: the registers every path gives a constant on entry to the site start with it
        # (gcc's sub-word masks are computed before its LR/SC loop); the others start at 0
        entry = {r: v for r, v in self.consts.get(path[0], {}).items() if r in used and r != base}
        known = {r: ("const", v) for r, v in entry.items()}
        for n, i in enumerate(seq):
            want = nxt[n]
            before = known
            if isa.name == "riscv64":
                known = _rv_step(isa, i, known, ("path", n))
            if HINT[isa.name].match(i.mnem):
                continue                    # a hint: no access, no order (herd7 lacks it)
            if isa.name == "ppc64le" and i.mnem in ("mtocrf", "mtcrf") and not any(
                    isa.branch(j) and isa.branch(j)[1] or re.match(r"^(isel|mfcr|cr)", j.mnem) for j in seq[n + 1:]):
                continue                    # the epilogue's condition fields back: nothing on the path reads them
            dests = _stack_load_dests(isa, i)
            if dests and not {_norm(isa, r) for r in dests} & {
                    _norm(isa, w) for w in translate._used_regs(seq[n + 1:])}:
                continue                    # a load of the own stack into registers the path reads no more
            br = isa.branch(i)
            if br and not br[1]:            # an unconditional jump along the path: nothing to run
                if br[0] != want:
                    raise NotTaken("a path that does not follow its jump")
                continue
            new = listing.Insn(addr, i.mnem, list(i.ops), i.text, i.symbol, i.reloc, [])
            if i.mnem == "srlw" and len(i.ops) == 3 and before.get(i.ops[2]) == ("const", 0):
                new.mnem, new.ops = "sext.w", i.ops[:2]   # what srlw by 0 computes (herd7 lacks srlw)
            body.append(new)
            addr += 4
            if n == 0:
                m, ops = _copy(isa, obs, rr)
                body.append(listing.Insn(addr, m, ops, "%s %s" % (m, ",".join(ops))))
                addr += 4
            if br:
                k = len(body) - 1
                fall = self.insns[self.insns.index(i) + 1].addr if i is not self.insns[-1] else None
                if br[0] == want and fall == want:
                    new.ops[-1] = "%x" % (addr + 0x0)        # both ways along the path
                elif br[0] == want:
                    new.ops[-1] = "%x" % addr                 # taken: on; fall-through: off the path
                    body.append(listing.Insn(addr, isa.jump, ["%x" % FAIL], "(off the path)"))
                    addr += 4
                    body[k].ops[-1] = "%x" % addr
                else:
                    new.ops[-1] = "%x" % FAIL
        body.append(listing.Insn(addr, isa.jump, ["%x" % END], "(the path's end)"))
        notes, outside = set(), set()
        lines, marker = translate.thread(isa, body, notes, 1, set(used) | {obs, daddr, dval, edge}, True, (),
                                         outside)
        from . import slowpath as sp
        ld = isa.render(listing.parse(sp._fn([sp._load(isa, dval, daddr)]))["P0"][0], str, True)
        jump = {"aarch64": "B %s", "riscv64": "j %s", "ppc64le": "b %s", "x86_64": "jmp %s"}[isa.name]
        lines = lines[:]
        lines += ["Lx1_%x:" % END, isa.mov_imm(edge, 1)] + ld + [isa.ret_text]
        lines += ["Lx1_%x:" % FAIL, isa.mov_imm(edge, 2), isa.ret_text]
        p0, _ = sp._thread(isa, sp._fn(sp.WRITER[isa.name]), 0, notes, set(), isa.arg_regs[:2])
        init = ["l=1;", "x=0;", "0:%s=l;" % isa.reg_key(isa.arg_regs[0]), "0:%s=x;" % isa.reg_key(isa.arg_regs[1]),
                "1:%s=l;" % isa.reg_key(base), "1:%s=x;" % isa.reg_key(daddr)]
        init += ["1:%s=%d;" % (isa.reg_key(r), v) for r, v in sorted(entry.items())]
        keys = ["1:%s" % isa.reg_key(r) for r in (obs, dval, edge)]
        filt = ["1:%s=1" % isa.reg_key(edge)] + (["1:%s=0" % isa.reg_key(marker)] if marker else [])
        text = sp._herd(isa, "kv-wayout-%x-%x" % (path[0], end), [p0, lines], init, keys, filt)
        return text, keys, sorted(notes)

    def judge(self, path, end):
        """"ordered", "not ordered", "WEAKER" (an execution read the release and x=0), "not run"
        (no execution runs the path having read the release) or "not judged"; and a detail."""
        key = (tuple(path), end)
        if key in self.memo:
            return self.memo[key]
        try:
            text, (kobs, kval, kedge), notes = self.path_test(path, end)
        except NotTaken as ex:
            r = ("not judged", str(ex), None)
        else:
            res = self.H.run(text, source=False)
            if "error" in res or res.get("unrolled"):
                r = ("not judged", "herd7: %s" % (res.get("error") or res["unrolled"]), text)
            else:
                seen = [dict(st) for st in res["states"]]
                rel = [d for d in seen if int(d.get(kobs, "1"), 0) == 0]
                if not rel:
                    r = ("not run", "no execution runs the path after reading the release", text)
                elif any(d.get(kval) == "0" for d in rel):
                    r = ("not ordered", "read the release and x=0", text)
                else:
                    r = ("ordered", "", text)
        self.memo[key] = r
        rec = {"site": "0x%x" % path[0], "path": ["0x%x" % a for a in path], "end": "0x%x" % end, "verdict": r[0]}
        if r[1]:
            rec["reason"] = r[1]
        if r[0] != "ordered" and r[2]:
            rec["herd_test"] = r[2]
        self.tests.append(rec)
        return r

    def retry(self, path):
        """A path from the site back to it that writes nothing: a compare-and-swap whose compare
        failed, or a load-exclusive whose store-exclusive failed (the branch on its status) or
        did not run."""
        isa = self.isa
        seq = [self.by[a] for a in path]
        last = seq[-1]
        br = isa.branch(last)
        if not br or br[0] != path[0]:
            return False
        site = seq[0]
        kind = is_rmw(isa, site)
        if kind == "rmw":
            if isa.name == "x86_64":
                return len(seq) == 2 and site.mnem.split()[-1].startswith("cmpxchg") and last.mnem == "jne"
            if isa.name == "aarch64":
                rr = read_reg(isa, site)
                return (len(seq) == 3 and site.mnem.startswith("cas") and seq[1].mnem == "cmp" and rr in seq[1].ops
                        and last.mnem == "b.ne")
            return False
        scs = [k for k, j in enumerate(seq) if is_rmw(isa, j) == "sc"]
        if not scs:
            return True
        k = scs[-1]
        if k != len(seq) - 2:
            return False
        sc = seq[k]
        if isa.name == "aarch64":
            return last.mnem == "cbnz" and last.ops[0] == sc.ops[0]
        if isa.name == "riscv64":
            return (last.mnem == "bnez" and last.ops[0] == sc.ops[0]) or (
                last.mnem == "bne" and last.ops[0] == sc.ops[0] and last.ops[1] == "zero")
        if isa.name == "ppc64le":
            return isa.branch_mnem(last.mnem) == "bne" and len(last.ops) == 1
        return False

    def unwritten(self, path, end):
        """A load-exclusive's path on which its store-exclusive does not run, and from whose end
        no store-exclusive of its base is reachable but through a load-exclusive (which the
        store-exclusive would pair with instead): it wrote nothing (it took no lock)."""
        isa = self.isa
        site = self.by[path[0]]
        if is_rmw(isa, site) != "ll":
            return False
        base = mem_base(isa, site)
        if any(is_rmw(isa, self.by[a]) == "sc" for a in path):
            return False
        seen, todo = set(), [end]
        while todo:
            a = todo.pop()
            if a in seen or is_rmw(isa, self.by[a]) == "ll":
                continue            # a store-exclusive after another load-exclusive is that one's
            seen.add(a)
            if is_rmw(isa, self.by[a]) == "sc" and mem_base(isa, self.by[a]) == base:
                return False
            todo.extend(self.succ[a])
        return True

    def segment(self, site):
        """[(addr, state)] where the segments from site end: state ("ord", site) or "pend";
        and the WEAKER paths [(path, ret addr)]."""
        isa = self.isa
        out, weaker = [], []
        fence = FENCE[isa.name]
        sbase = mem_base(isa, self.by[site])

        def cut(path):
            last = self.by[path[-1]]
            return len(path) == 1 or fence.match(last.mnem) or is_rmw(isa, last) == "sc"

        def walk(a, path):
            i = self.by[a]
            if path and cut(path) and self.judge(path, a)[0] == "ordered":
                out.append((a, ("ord", site)))
                return
            if a == site and path:
                out.append((a, ("retry", site) if self.retry(path) else ("pend", site)))
                return
            own_sc = is_rmw(isa, i) == "sc" and mem_base(isa, i) == sbase
            if path and (a in path or len(path) >= MAX_SEGMENT or (_touches(isa, i) and not own_sc)):
                if a not in path and len(path) < MAX_SEGMENT:
                    v = self.judge(path, a)
                    if v[0] == "ordered":
                        out.append((a, ("ord", site)))
                        return
                    if v[0] == "not ordered" and isa.is_ret(i):
                        weaker.append((path, a))
                out.append((a, ("retry", site) if self.unwritten(path, a) else ("pend", site)))
                return
            for b in self.succ[a]:
                if not infeasible(isa, self.by, self.succ, path + [a, b], self.values.get(site)):
                    walk(b, path + [a])

        walk(site, [])
        return out, weaker


HINT = {"aarch64": re.compile(r"^(yield|nop)$"), "riscv64": re.compile(r"^(nop|pause)$"),
        "ppc64le": re.compile(r"^nop$"), "x86_64": re.compile(r"^(pause|nop[wl]?|xchg +%ax,%ax)$")}
FENCE = {"aarch64": re.compile(r"^dmb$"), "riscv64": re.compile(r"^fence"),
         "ppc64le": re.compile(r"^(sync|lwsync|isync|hwsync)$"), "x86_64": re.compile(r"^mfence$")}


def ways_out(H, isa, insns, succ, free_regs):
    """The record's sites (lock sites and the unknown RMWs judged), ways_out, verdict and reason."""
    J = Judge(H, isa, insns, succ, free_regs)
    lr = J.lock
    glob = global_regs(isa, insns, succ, lr)
    by = {i.addr: i for i in insns}
    kind = {}
    for i in insns:
        r = is_rmw(isa, i)
        if r not in ("rmw", "ll"):
            continue
        b = mem_base(isa, i)
        if b is None or STACK[isa.name].search(",".join(i.ops)):
            continue
        regs = lr.get(i.addr, {})
        if of_global(isa, i, glob.get(i.addr, {}), regs):
            kind[i.addr] = "global"                # no site: an object of the library's, not the lock
        elif b[0] in regs and regs[b[0]] + (b[1] or 0) == 0 and keeps_locked_byte(isa, insns, insns.index(i),
                                                                             J.consts.get(i.addr)):
            kind[i.addr] = "lock, flags only"      # no site: it cannot take the lock
        elif b[1] is None:
            kind[i.addr] = "unknown"
        elif b[0] in regs and regs[b[0]] + b[1] == 0:
            kind[i.addr] = "lock"
        elif b[0] in regs:
            kind[i.addr] = "lock+%d" % (regs[b[0]] + b[1])
        else:
            kind[i.addr] = "unknown"
    segs, weaker = {}, []
    seen, todo = set(), [(insns[0].addr, ("none", None))]
    at_ret = {}
    while todo:
        a, st = todo.pop()
        if (a, st) in seen:
            continue
        seen.add((a, st))
        i = by[a]
        k = kind.get(a)
        if k == "lock" or k == "unknown" and st[0] == "ord":
            if a not in segs:
                segs[a] = J.segment(a)
                weaker += segs[a][1]
            for b, s2 in segs[a][0]:
                todo.append((b, st) if s2[0] == "retry" else (b, s2))
            continue
        if isa.is_ret(i):
            at_ret.setdefault(a, set()).add(st)
            continue
        for b in succ[a]:
            todo.append((b, st))
    out = []
    for i in insns:
        if isa.is_ret(i):
            sts = at_ret.get(i.addr, set())
            if not sts:
                raise NotTaken("the control-flow graph does not reach the return at 0x%x" % i.addr)
            cov = all(s[0] == "ord" for s in sts)
            out.append({"addr": "0x%x" % i.addr, "covered": cov,
                        "after": sorted({"0x%x" % s[1] for s in sts if s[0] == "ord"}),
                        "states": sorted({"ordered by 0x%x" % s[1] if s[0] == "ord" else "not ordered after 0x%x" % s[1]
                                          if s[0] == "pend" else "no lock site before it" for s in sts})})
    sites = [{"addr": "0x%x" % a, "insn": by[a].text.replace("\t", " ").strip(), "kind": kind[a],
              "judged": a in segs} for a in sorted(kind)]
    return sites, out, J.tests, [{"path": ["0x%x" % x for x in p], "ret": "0x%x" % r} for p, r in weaker]
