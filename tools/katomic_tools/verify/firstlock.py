"""The lock-order split's first sections: the branches of a lock site that cannot fail.

In one order of the split (locksplit.py), lock L's first critical section takes L_o1, which
starts free (0) and which no other section's code names; its only write is that section's own
lock site, after the site's read.  So the read returns 0 in every execution, and every branch
its value decides goes one way only: the site's test that sends a busy lock to FAIL is never
taken.  herd7 does not know it: it builds an event structure for each way of each branch on a
loaded value, for all threads at once, and enumerates every read-from map of each before it finds
none consistent (an order of four threads with two sections each: 81 structures where 9 are
possible, 1.6 s -> 1.0 s; docs/verify.md).  Here a branch decided by such a read goes: never taken,
dropped; always taken, a jump.

What a dropped branch also gave is a control dependency from the read.  The read communicates
with no other thread (it reads the initial write, and the one write after it is its own site's),
so an ordering edge out of it can only continue a path that entered it from its own thread's
earlier events, and each edge that can (a fence between them, an earlier acquire's, an earlier
branch's control dependency) also reaches every later event by itself.  The read keeps what it
is (an acquire stays one: on arm64 a release before it still orders what follows).

Values are followed forward over the thread's control flow to a fixpoint: a register holds a
constant, a location (from the initial registers) or the 0 such a read returns, where every way
to the line agrees; the read gives 0 only where no way to it accessed its location before (the
split leaves a lock's a-parameter to its spin_lock alone: one read-modify-write, and a loop
around it would access it again first).
`make check-verify` judges every test with and without this (--no-lean) and requires the same.
"""
import re

from .listing import Insn

W64 = (1 << 64) - 1


def decided(isa, lines, init, first):
    """The thread's herd lines without the branches a first location's read decides.  init: the
    thread's initial registers {family: value text}; first: the order's first locations."""
    step = _STEPS.get(isa.name)
    if step is None or not first or not any(v in first for v in init.values()):
        return lines
    return _decide(isa, step, lines, init, first)


def folded(isa, lines, exits=()):
    """The lines without the branches that constants decide, such as clang's test of a
    try_cmpxchg's success flag on the way where the flag is the constant 1 (a lock site's shape
    that swap_lock_sites can then read).  Exact in herd7's models: a branch on a value no read
    gave is no control dependency.  exits: labels the lines jump to but do not hold."""
    step = _STEPS.get(isa.name)
    return lines if step is None else _decide(isa, step, lines, {}, frozenset(), frozenset(exits))


def _decide(isa, step, lines, init, first, exits=frozenset()):
    at = {ln[:-1]: k for k, ln in enumerate(lines) if ln.endswith(":")}
    start = {reg: ("loc", v) if v in first else _int(v) for reg, v in init.items()}
    # before each line: (what every way there knows, the first locations some way there accessed)
    states = [None] * len(lines)
    states[0] = (start, frozenset())
    work = [0]
    while work:
        k = work.pop()
        facts, accessed = states[k]
        kind, target = _flow(isa, lines[k])
        if target is not None and target not in at and target not in exits:
            return lines                            # a way out we cannot follow
        succ = []
        if kind in ("jump", "cond") and target in at:
            succ.append((at[target], facts, accessed))
        if kind is None and not lines[k].endswith(":"):
            facts, seen = dict(facts), set(accessed)
            step.step(isa, lines[k], facts, seen)
            accessed = frozenset(seen)
        if kind in (None, "cond") and k + 1 < len(lines):
            succ.append((k + 1, facts, accessed))
        for j, f, a in succ:
            old = states[j]
            new = (f, a) if old is None else (_meet([old[0], f]), old[1] | a)
            if new != old:
                states[j] = new
                work.append(j)
    out = []
    for k, ln in enumerate(lines):
        kind, target = _flow(isa, ln)
        taken = step.decide(isa, ln, states[k][0]) if kind == "cond" and states[k] is not None else None
        if taken is False:
            continue                                # never taken
        out.extend(isa.render(Insn(0, isa.jump, ["0x0"], ""), lambda a: target) if taken else [ln])
    return out


def _flow(isa, ln):
    return isa.flow(ln) if not ln.endswith(":") else (None, None)


def _int(v):
    try:
        return int(v, 0) & W64
    except (TypeError, ValueError):
        return None


def _meet(states):
    return {r: v for r, v in states[0].items() if v is not None and all(s.get(r) == v for s in states[1:])}


class _Step:
    """An ISA's reading of herd lines: step() updates the known values for one line (what it does
    not follow, it forgets: every register the line names, and the flags); decide() says whether a
    conditional branch is taken (None: not known)."""

    def forget(self, isa, ln, cur, seen):
        named = isa.reads(ln) | isa.regs(ln)
        if "*" in named:
            self.unknown_access(cur, seen)
            cur.clear()
        for r in named:
            if _loc(cur.get(r)):
                seen.add(_loc(cur[r]))               # it may access what r points at
            cur.pop(r, None)
        cur.pop("flags", None)

    def load(self, cur, seen, dest, base):
        """dest gets what a load from base returns: 0 at the first read of a first location."""
        loc = _loc(cur.get(base))
        first = loc and loc not in seen
        self.store(cur, seen, base)
        if first:
            cur[dest] = 0
        else:
            cur.pop(dest, None)

    def store(self, cur, seen, base):
        if _loc(cur.get(base)):
            seen.add(_loc(cur.get(base)))            # accessed: a later read is not the first

    def unknown_access(self, cur, seen):
        """An access whose address is not followed: any location a register holds may be it."""
        seen.update(_loc(v) for v in cur.values() if _loc(v))


def _loc(v):
    return v[1] if isinstance(v, tuple) and v[0] == "loc" else None


def _val(cur, reg, bits=64):
    v = cur.get(reg)
    return v & ((1 << bits) - 1) if isinstance(v, int) else None


# ---------------------------------------------------------------- AArch64
class _A64(_Step):
    LOAD = re.compile(r"^(?:LDA?X?R|LDAPR)[BH]? ([WX])(\d+),\[(X\d+)\]$")
    SWP = re.compile(r"^SWPA?L?[BH]? (?:[WX]\d+|[WX]ZR),([WX])(\d+),\[(X\d+)\]$")
    # CAS Ws,Wt,[Xn]: Ws is the value compared and gets the value read, whether it stores or not
    CAS = re.compile(r"^CASA?L?[BH]? ([WX])(\d+),(?:[WX]\d+|[WX]ZR),\[(X\d+)\]$")
    STORE = re.compile(r"^ST(?:L?X?R|LUR|UR)[BH]? (?:W\d+,)?(?:[WX]\d+|[WX]ZR),\[(X\d+)\]$")
    MOV = re.compile(r"^MOV ([WX])(\d+),(#-?\d+|[WX]ZR|([WX])(\d+))$")
    CMP = re.compile(r"^CMP ([WX])(\d+),(?:#(\d+)|([WX])(\d+))$")

    def step(self, isa, ln, cur, seen):
        m = self.LOAD.match(ln) or self.SWP.match(ln) or self.CAS.match(ln)
        if m:
            self.load(cur, seen, "X" + m.group(2), m.group(3))
            return
        m = self.STORE.match(ln)
        if m:
            self.store(cur, seen, m.group(1))
            return
        m = self.MOV.match(ln)
        if m:
            bits = 32 if m.group(1) == "W" else 64
            src = m.group(3)
            if src.startswith("#"):
                v = int(src[1:]) & ((1 << bits) - 1)
            elif src.endswith("ZR"):
                v = 0
            else:
                s = cur.get("X" + m.group(5))
                v = s if bits == 64 else (_val(cur, "X" + m.group(5), 32))
            if v is None:
                cur.pop("X" + m.group(2), None)
            else:
                cur["X" + m.group(2)] = v
            return
        m = self.CMP.match(ln)
        if m:
            bits = 32 if m.group(1) == "W" else 64
            a = _val(cur, "X" + m.group(2), bits)
            b = int(m.group(3)) if m.group(3) is not None else _val(cur, "X" + m.group(5), bits)
            cur["flags"] = (a, b) if a is not None and b is not None else None
            return
        self.forget(isa, ln, cur, seen)

    def decide(self, isa, ln, cur):
        m = re.match(r"^(CBNZ|CBZ) ([WX])(\d+),\S+$", ln)
        if m:
            v = _val(cur, "X" + m.group(3), 32 if m.group(2) == "W" else 64)
            return None if v is None else (v != 0) == (m.group(1) == "CBNZ")
        m = re.match(r"^(TBNZ|TBZ) ([WX])(\d+),#(\d+),\S+$", ln)
        if m:
            v = _val(cur, "X" + m.group(3), 32 if m.group(2) == "W" else 64)
            return None if v is None else bool(v >> int(m.group(4)) & 1) == (m.group(1) == "TBNZ")
        m = re.match(r"^B\.(NE|EQ) \S+$", ln)
        f = cur.get("flags")
        if m and f:
            return (f[0] != f[1]) == (m.group(1) == "NE")
        return None


# ---------------------------------------------------------------- RISC-V
class _RV(_Step):
    LOAD = re.compile(r"^(?:l[bhwd]u?|lr\.[wd](?:\.\w+)*) (\w+),(?:-?\d+)?\((\w+)\)$")
    AMO = re.compile(r"^amo\w+\.[wd](?:\.\w+)* (\w+),\w+,\((\w+)\)$")
    STORE = re.compile(r"^(?:s[bhwd]|sc\.[wd](?:\.\w+)*) (?:\w+,)?\w+,(?:-?\d+)?\((\w+)\)$")
    FOLD = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
            "add": lambda a, b: a + b}
    BR = {"beq": lambda a, b: a == b, "bne": lambda a, b: a != b}

    def _get(self, isa, cur, op):
        if re.fullmatch(r"-?\d+", op):
            return int(op) & W64
        r = isa.reg_of(op)
        return 0 if r == "x0" else _val(cur, r)

    def step(self, isa, ln, cur, seen):
        m = self.LOAD.match(ln) or self.AMO.match(ln)
        if m:
            self.load(cur, seen, isa.reg_of(m.group(1)), isa.reg_of(m.group(2)))
            return
        m = self.STORE.match(ln)
        if m:
            self.store(cur, seen, isa.reg_of(m.group(1)))
            return
        mnem, _, rest = ln.partition(" ")
        ops = rest.split(",") if rest else []
        base = mnem[:-1] if mnem.endswith("i") and mnem[:-1] in self.FOLD else mnem
        v, known = None, False
        if mnem == "li" and len(ops) == 2:
            v, known = self._get(isa, cur, ops[1]), True
        elif mnem == "mv" and len(ops) == 2:
            src = cur.get(isa.reg_of(ops[1]))
            v, known = (0 if isa.reg_of(ops[1]) == "x0" else src), True
        elif base in self.FOLD and len(ops) == 3:
            a, b = self._get(isa, cur, ops[1]), self._get(isa, cur, ops[2])
            v, known = (None if a is None or b is None else self.FOLD[base](a, b) & W64), True
        if known and ops and isa.reg_of(ops[0]) != "x0":
            d = isa.reg_of(ops[0])
            if v is None:
                cur.pop(d, None)
            else:
                cur[d] = v
            return
        self.forget(isa, ln, cur, seen)

    def decide(self, isa, ln, cur):
        mnem, _, rest = ln.partition(" ")
        ops = rest.split(",")
        if mnem in ("beqz", "bnez") and len(ops) == 2:
            mnem, ops = mnem[:3], [ops[0], "zero", ops[1]]
        if mnem not in self.BR or len(ops) != 3:
            return None
        a, b = self._get(isa, cur, ops[0]), self._get(isa, cur, ops[1])
        return None if a is None or b is None else self.BR[mnem](a, b)


# ---------------------------------------------------------------- POWER
class _PPC(_Step):
    LOAD = re.compile(r"^(?:l[bhw]z|ld|lwa) (r\d+),(?:-?\d+)\((r\d+)\)$")
    LOADX = re.compile(r"^(?:l[bhw]zx|ldx|l[bhwd]arx) (r\d+),(r\d+),(r\d+)$")
    STORE = re.compile(r"^(?:st[bhwd]) r\d+,(?:-?\d+)\((r\d+)\)$")
    STOREX = re.compile(r"^(?:st[bhwd]x|st[bhwd]cx\.) r\d+,(r\d+),(r\d+)$")
    CMPI = re.compile(r"^cmp(l?)([wd])i (?:(cr\d),)?(r\d+),(-?\d+)$")
    CMP = re.compile(r"^cmp(l?)([wd]) (?:(cr\d),)?(r\d+),(r\d+)$")

    def _indexed(self, cur, seen, ra, rb):
        """The base of an indexed access, followed only with no index (ra r0); None for any other,
        which may be an access to any location a register holds."""
        if ra == "r0":
            return rb
        self.unknown_access(cur, seen)
        return None

    def step(self, isa, ln, cur, seen):
        m = self.LOAD.match(ln)
        if m:
            self.load(cur, seen, m.group(1), m.group(2))
            return
        m = self.LOADX.match(ln)
        if m:
            base = self._indexed(cur, seen, m.group(2), m.group(3))
            if base:
                self.load(cur, seen, m.group(1), base)
            else:
                cur.pop(m.group(1), None)
            return
        m = self.STORE.match(ln)
        if m:
            self.store(cur, seen, m.group(1))
            return
        m = self.STOREX.match(ln)
        if m:
            base = self._indexed(cur, seen, m.group(1), m.group(2))
            if base:
                self.store(cur, seen, base)
            if "cx." in ln:
                cur.pop("cr0", None)                # a store-conditional sets cr0
            return
        m = self.CMPI.match(ln) or self.CMP.match(ln)
        if m:
            bits = 32 if m.group(2) == "w" else 64
            a = _val(cur, m.group(4), bits)
            b = (int(m.group(5)) & ((1 << bits) - 1)) if m.re is self.CMPI else _val(cur, m.group(5), bits)
            cur[m.group(3) or "cr0"] = (a, b) if a is not None and b is not None else None
            return
        mv = isa.move(ln)
        if mv:
            d, src = mv
            v = _int(ln.split(",")[-1]) if ln.startswith("li ") else cur.get(src)
            if v is None:
                cur.pop(d, None)
            else:
                cur[d] = v
            return
        if ln in ("isync", "lwsync", "sync", "nop"):
            return
        self.forget(isa, ln, cur, seen)
        for f in [k for k in cur if k.startswith("cr")]:
            cur.pop(f)

    def decide(self, isa, ln, cur):
        mnem, _, rest = ln.partition(" ")
        ops = rest.split(",")
        mnem = isa.branch_mnem(mnem)
        if mnem not in ("beq", "bne"):
            return None
        f = cur.get(ops[0] if len(ops) == 2 else "cr0")
        return None if not f else (f[0] != f[1]) == (mnem == "bne")


# ---------------------------------------------------------------- x86-64
class _X86(_Step):
    MEM = r"(?:-?\d+)?\(%(\w+)\)"
    XCHG = re.compile(r"^xchg[bwlq]? (?:%s,%%(\w+)|%%(\w+),%s)$" % (MEM, MEM))
    LOAD = re.compile(r"^mov(?:[bwlq]|z[bw][lq]?)? %s,%%(\w+)$" % MEM)
    STORE = re.compile(r"^mov[bwlq]? (?:\$-?\w+|%%\w+),%s$" % MEM)
    IMM = re.compile(r"^mov([lq]?) \$(-?\w+),%(\w+)$")
    CMP = re.compile(r"^cmp[bwlq]? (?:\$(-?\w+)|%(\w+)),%(\w+)$")
    TEST = re.compile(r"^test[bwlq]? %(\w+),%(\w+)$")

    @staticmethod
    def _bits(name):
        if re.fullmatch(r"r\w+d|e\w+", name):
            return 32
        if re.fullmatch(r"r\d+w|[a-d]x|[sd]i|[sb]p", name):
            return 16
        if re.fullmatch(r"r\d+b|[a-d]l|[sd]il|[sb]pl", name):
            return 8
        return 64

    def step(self, isa, ln, cur, seen):
        m = self.XCHG.match(ln)
        if m:
            base, reg = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            fam = isa.reg_of(reg)
            self.load(cur, seen, fam, base)
            if cur.get(fam) == 0 and self._bits(reg) < 64:
                cur[fam] = ("part", self._bits(reg))   # its low bits 0, the rest as they were
            return
        m = self.LOAD.match(ln)
        if m:
            fam = isa.reg_of(m.group(2))
            self.load(cur, seen, fam, m.group(1))
            if cur.get(fam) == 0 and self._bits(m.group(2)) < 32 and not ln.startswith("movz"):
                cur[fam] = ("part", self._bits(m.group(2)))
            return
        m = self.STORE.match(ln)
        if m:
            self.store(cur, seen, m.group(1))
            return
        m = self.IMM.match(ln)
        if m and self._bits(m.group(3)) >= 32 and isa.reg_of(m.group(3)) != "*":
            v = _int(m.group(2))
            cur[isa.reg_of(m.group(3))] = v if v is None or self._bits(m.group(3)) == 64 else v & 0xffffffff
            return
        m = self.CMP.match(ln) or self.TEST.match(ln)
        if m:
            if m.re is self.CMP:
                bits = self._bits(m.group(3))
                a = _int(m.group(1)) if m.group(1) is not None else self._get(isa, cur, m.group(2))
                b = self._get(isa, cur, m.group(3))
                cur["flags"] = (a & ((1 << bits) - 1), b) if a is not None and b is not None else None
            else:
                a, b = self._get(isa, cur, m.group(1)), self._get(isa, cur, m.group(2))
                cur["flags"] = ((a & b), 0) if a is not None and b is not None else None
            return
        self.forget(isa, ln, cur, seen)

    def _get(self, isa, cur, name):
        v = cur.get(isa.reg_of(name))
        bits = self._bits(name)
        if isinstance(v, tuple) and v[0] == "part":
            return 0 if bits <= v[1] else None
        return v & ((1 << bits) - 1) if isinstance(v, int) else None

    def decide(self, isa, ln, cur):
        mnem = ln.partition(" ")[0]
        f = cur.get("flags")
        if mnem not in ("je", "jz", "jne", "jnz") or not f:
            return None
        return (f[0] != f[1]) == (mnem in ("jne", "jnz"))


_STEPS = {"aarch64": _A64(), "riscv64": _RV(), "ppc64le": _PPC(), "x86_64": _X86()}
