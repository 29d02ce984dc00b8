"""Rewrites of a thread's herd lines that only make herd7 faster (verify --no-lean turns them off).

herd7's time on a compiled test grows with its register events as much as with its memory events:
every instruction is register reads and writes, every conditional branch two paths whose
contradiction herd7 does not see early, and AArch64's model computes its dependencies per
candidate from the register events.  Compiled code is full of register traffic with no memory
effect: callee-saved saves and restores, copies on the failure paths, constants built by shifts,
a lock site's second test of the value it read.  Each rewrite here keeps every memory event,
every dependency and every branch that can be taken (docs/verify.md, "herd7's cost, and the lean
rewrites"; `make check-verify` runs its tests both ways and requires the same verdicts).

The ISA classes (isa.py) say what a herd line is: its control flow (flow), the register move or
computation it is (move), the registers it reads (reads, regs) and what names one register
(reg_of, HERD_REG).  What to rewrite is here, the generic passes first, then each ISA's own
(SIMPLIFY).
"""
import re


def lean(isa, lines, fail, live_out=()):
    """The thread's herd lines, leaner.  fail: the FAIL exit's label (not yet in lines); live_out:
    the registers read after the thread ends (its observed ones).  Code no path reaches goes first,
    and with it the labels only it jumped to (the failure paths' retries), so that the ISA's own
    rewrites see straight lines; then what they left unreachable or dead."""
    if isa.HERD_REG is None:
        return lines
    simplify = SIMPLIFY.get(isa.name, lambda isa, lines, fail: lines)
    lines = drop_unreachable(isa, simplify(isa, drop_unreachable(isa, lines, fail), fail), fail)
    return drop_dead_moves(isa, lines, fail, live_out)


def entry_values(isa, lines, fail, init, live_out=()):
    """The thread's register copies and constants at its entry as initial values: (the lines
    without them, the thread's initial registers {family: value}).  A move at the entry, before
    any label, branch or line that may touch a register it does not name, whose destination no
    line kept before it names, and whose source is a constant or a register no line kept before
    it names, sets its destination to a value known before the thread starts: the test may start
    with it there.  The registers herd7 sees and the values they hold when each kept line runs are
    the same; what goes is a register read and write per move with no memory effect (compilers
    begin a function with copies of its arguments into callee-saved registers, and gcc and clang
    order them differently: two tests that differ in that one now have one normal form).  Then the
    initial values no line reads (not live at the entry, not observed) go too."""
    init = dict(init)
    touched, out, k = set(), [], 0
    while k < len(lines):
        ln = lines[k]
        if ln.endswith(":") or isa.flow(ln)[0] is not None:
            break
        ev = isa.entry_value(ln)
        if ev and ev[0] not in touched and (ev[1][0] == "imm" or ev[1][1] not in touched):
            init[ev[0]] = str(ev[1][1]) if ev[1][0] == "imm" else init.get(ev[1][1], "0")
        else:
            named = isa.reads(ln) | isa.regs(ln)          # what it sets it names
            if "*" in named:
                break
            touched |= named
            out.append(ln)
        k += 1
    out += lines[k:]
    live = liveness(isa, out, fail, live_out)[0][0] if out else {isa.reg_of(r) for r in live_out}
    if "*" not in live:
        init = {r: v for r, v in init.items() if r in live}
    return out, init


def drop_unreachable(isa, lines, fail):
    """The lines no path from the first reaches dropped, then the labels no kept branch names."""
    at = {ln[:-1]: k for k, ln in enumerate(lines) if ln.endswith(":")}
    seen, todo = set(), [0]
    while todo:
        k = todo.pop()
        while k < len(lines) and k not in seen:
            seen.add(k)
            kind, target = isa.flow(lines[k])
            if target is not None and target != fail:
                if target not in at:
                    return lines            # a label we cannot follow: leave the code as it is
                todo.append(at[target])
            if kind in ("ret", "jump"):
                break
            k += 1
    kept = [ln for k, ln in enumerate(lines) if k in seen]
    named = {isa.flow(ln)[1] for ln in kept}
    return [ln for ln in kept if not ln.endswith(":") or ln[:-1] in named]


def liveness(isa, lines, fail, live_out=()):
    """(live, after): live[k] the registers (in reg_of's names, "*" for any) that the code from
    line k on may read before it sets them, and after(k) those live when line k is done.  Over-
    approximated: every register an instruction names is read by it (but what isa.def_use says it
    sets), an instruction outside isa.reads's list reads them all, a label we cannot follow too;
    the FAIL exit reads none (its executions are filtered), a return reads live_out."""
    live_out = {isa.reg_of(r) for r in live_out}
    n = len(lines)
    at = {ln[:-1]: k for k, ln in enumerate(lines) if ln.endswith(":")}
    live = [set() for _ in range(n + 1)]
    live[n] = set(live_out)             # running off the end: the thread ends

    def after(k):
        kind, target = isa.flow(lines[k])
        out = set(live_out) if kind == "ret" else set()
        if kind != "ret" and kind != "jump":
            out |= live[k + 1]
        if target is not None and target != fail:
            out |= live[at[target]] if target in at else {"*"}
        return out

    changed = True
    while changed:
        changed = False
        for k in range(n - 1, -1, -1):
            sets, uses = isa.def_use(lines[k])
            inn = (after(k) - sets) | uses
            if inn != live[k]:
                live[k], changed = inn, True
    return live, after


def dead_at(isa, live, k, reg):
    """Whether reg's value is read by no path from line k on (liveness()'s live)."""
    return not ({isa.reg_of(reg), "*"} & live[k])


def drop_dead_moves(isa, lines, fail, live_out=()):
    """The lines without the register moves and computations whose destination nothing reads
    afterwards (the callee-saved registers' saves and restores, the copies a failure path made):
    they make register events and nothing else, and a write nothing reads carries no dependency.
    Liveness is over-approximated (liveness()), so a move is dropped only when it is certainly dead."""
    while True:
        live, after = liveness(isa, lines, fail, live_out)
        dead = {k for k in range(len(lines))
                if isa.move(lines[k]) and not ({isa.move(lines[k])[0], "*"} & after(k))}
        if not dead:
            return lines
        lines = [ln for k, ln in enumerate(lines) if k not in dead]


# ---------------------------------------------------------------- AArch64
_A64_FLAGS_READ = re.compile(r"^(B\.[A-Z]+|CSEL|CSET|CSETM|CSINC|CSINV|CSNEG|CINC|CINV|CNEG|CCMP|CCMN|ADC|ADCS|SBC|"
                             r"SBCS|NGC|NGCS|FCSEL)$")
_A64_FLAGS_WRITE = re.compile(r"^(CMP|CMN|TST|ADDS|SUBS|ANDS|BICS|NEGS|FCMP|FCMPE)$")
_A64_CMP0 = re.compile(r"^CMP ([WX]\d+),#0$")


def _flags_dead(lines, starts, fail, step):
    """Whether every path from the lines `starts` (indexes or labels) writes the flags before it
    reads them, or ends (a return, the FAIL exit, the thread's end) first.  step(line): "read",
    "end" (this path writes them or ends), ("jump", label), ("branch", label) (the label is
    followed too, and so is the next line), or None (the next line)."""
    at = {ln[:-1]: k for k, ln in enumerate(lines) if ln.endswith(":")}
    todo, seen = list(starts), set()
    while todo:
        k = todo.pop()
        if not isinstance(k, int):
            if k == fail:
                continue
            if k not in at:
                return False                # a label we cannot follow: assume it reads them
            k = at[k]
        while k < len(lines) and k not in seen:
            seen.add(k)
            what = None if lines[k].endswith(":") else step(lines[k])
            if what == "read":
                return False
            if what == "end":
                break
            if what and what[0] == "jump":
                todo.append(what[1])
                break
            if what and what[0] == "branch":
                todo.append(what[1])
            k += 1
    return True


def _a64_flags_dead(lines, starts, fail):
    """aarch64's NZCV (_flags_dead)."""
    def step(ln):
        mnem, _, ops = ln.partition(" ")
        if _A64_FLAGS_READ.match(mnem):
            return "read"
        if _A64_FLAGS_WRITE.match(mnem) or mnem == "RET":
            return "end"
        if mnem == "B":
            return ("jump", ops)
        if mnem in ("CBZ", "CBNZ", "TBZ", "TBNZ"):
            return ("branch", ops.split(",")[-1])
        return None
    return _flags_dead(lines, starts, fail, step)


def cmp0_branches(isa, lines, fail):
    """aarch64: "cmp wn,#0; b.ne L" as "cbnz wn,L" (b.eq: cbz) where nothing reads the flags after:
    the same branch on the same register, so the same control dependency, without the NZCV write
    and read (a four-thread lock test of clang's: 1.8 s -> 0.5 s in herd7)."""
    def site(k):
        m = _A64_CMP0.match(lines[k])
        b = re.match(r"^B\.(NE|EQ) (\S+)$", lines[k + 1]) if m and k + 1 < len(lines) else None
        if not b or not _a64_flags_dead(lines, [k + 2, b.group(2)], fail):
            return None
        return ["%s %s,%s" % ("CBNZ" if b.group(1) == "NE" else "CBZ", m.group(1), b.group(2))], 2
    return isa._rewrite_sites(lines, site)[0]


# ---------------------------------------------------------------- RISC-V
def _sx(v, bits):
    """v as a signed bits-bit number."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


# register computations from immediates alone, as herd7's RISCV computes them (64-bit registers)
_RV_FOLD2 = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "and": lambda a, b: a & b,
             "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b, "sll": lambda a, b: a << (b & 63),
             "srl": lambda a, b: (a & (1 << 64) - 1) >> (b & 63), "sra": lambda a, b: a >> (b & 63),
             "addw": lambda a, b: _sx(a + b, 32), "subw": lambda a, b: _sx(a - b, 32),
             "sllw": lambda a, b: _sx(a << (b & 31), 32), "srlw": lambda a, b: _sx((a & 0xffffffff) >> (b & 31), 32),
             "sraw": lambda a, b: _sx(a, 32) >> (b & 31)}
_RV_FOLD2.update({"addi": _RV_FOLD2["add"], "andi": _RV_FOLD2["and"], "ori": _RV_FOLD2["or"], "xori": _RV_FOLD2["xor"],
                  "slli": _RV_FOLD2["sll"], "srli": _RV_FOLD2["srl"], "srai": _RV_FOLD2["sra"],
                  "addiw": _RV_FOLD2["addw"], "slliw": _RV_FOLD2["sllw"], "srliw": _RV_FOLD2["srlw"],
                  "sraiw": _RV_FOLD2["sraw"]})
_RV_FOLD1 = {"mv": lambda a: a, "sext.w": lambda a: _sx(a, 32)}


def fold_constants(isa, lines):
    """riscv64: each register computation whose every source is a known constant (an immediate,
    zero, or a register set from them in the same straight line of code) as `li` of its value:
    gcc builds a sub-word lock's masks with a dozen shifts, ands and xors of constants a site,
    which herd7 turns into register events; a constant carries no dependency, so the `li` is the
    same to the model (drop_dead_moves then drops those nothing reads)."""
    known, out = {}, []

    def val(op):
        if re.fullmatch(r"-?\d+", op):
            return int(op)
        key = isa.reg_key(op)
        return 0 if key == "x0" else known.get(key)

    for ln in lines:
        mnem, _, rest = ln.partition(" ")
        ops = rest.split(",") if rest else []
        if ln.endswith(":"):
            known.clear()                   # a join: what the other paths bring is not known here
            out.append(ln)
            continue
        v = None
        if mnem in _RV_FOLD2 and len(ops) == 3:
            a, b = val(ops[1]), val(ops[2])
            v = None if a is None or b is None else _RV_FOLD2[mnem](a, b)
        elif mnem in _RV_FOLD1 and len(ops) == 2:
            a = val(ops[1])
            v = None if a is None else _RV_FOLD1[mnem](a)
        elif mnem == "li" and len(ops) == 2:
            v = int(ops[1])
        elif mnem == "lui" and len(ops) == 2 and re.fullmatch(r"-?\d+", ops[1]):
            v = _sx(int(ops[1]) << 12, 32)
        dst = isa.reg_key(ops[0]) if ops and isa.HERD_REG.fullmatch(ops[0]) else None
        if dst:
            known.pop(dst, None)
        if v is not None and dst and dst != "x0":
            v = _sx(v, 64)
            known[dst] = v
            if mnem not in ("li", "lui"):
                ln = "li %s,%d" % (ops[0], v)
        out.append(ln)
        if mnem in ("j", "ret", "jr"):
            known.clear()                   # what follows is reached from elsewhere
    return out


def settled_branches(isa, lines):
    """riscv64: branches on a value a branch above already settled, as what they always do: after
    `and t,v,M; bne t,zero,L` fell through, the bits M of v are 0, so a later `and u,v,M'` (M'
    within M), `slli u,v,s` (the low 64-s bits within M) or its `sext.w` is 0, and
    `beq u,zero,L'` is always taken (a `j`), `bne u,zero,L'` never (dropped).  v is not written
    between, so the first branch depended on the same load and its control dependency covers all
    that follows.  A lock site tests the value it read twice (the acquire CAS's own compare, then
    the lock's): each branch herd7 keeps doubles its paths (doomed.py sends the first to FAIL)."""
    const, zero_bits, masked, zero, out = {}, {}, {}, set(), []

    def kill(r):
        const.pop(r, None)
        zero_bits.pop(r, None)
        masked.pop(r, None)
        zero.discard(r)
        for k in [k for k, (v, _) in masked.items() if v == r]:
            masked.pop(k)                   # k keeps its value (and a 0 stays 0), not its link to r

    def is_zero(op):
        k = isa.reg_key(op)
        return k == "x0" or const.get(k) == 0

    for ln in lines:
        mnem, _, rest = ln.partition(" ")
        ops = rest.split(",") if rest else []
        if ln.endswith(":") or mnem in ("j", "ret"):
            const, zero_bits, masked, zero = {}, {}, {}, set()
            out.append(ln)
            continue
        if mnem in ("beq", "bne") and len(ops) == 3 and (is_zero(ops[1]) or is_zero(ops[0])):
            t = isa.reg_key(ops[0] if is_zero(ops[1]) else ops[1])
            if t in zero:
                if mnem == "beq":
                    out.append("j %s" % ops[2])
                continue                    # bne: never taken
            if mnem == "bne" and t in masked:
                v, m = masked[t]
                zero_bits[v] = zero_bits.get(v, 0) | m
            out.append(ln)
            continue
        dst = isa.reg_key(ops[0]) if ops and isa.HERD_REG.fullmatch(ops[0]) and not isa.first_read(mnem) else None
        got = None                          # what dst becomes: ("mask", v, M) | ("zero",) | ("const", c)
        if mnem == "li" and len(ops) == 2:
            got = ("const", int(ops[1]))
        elif mnem in ("and", "andi") and len(ops) == 3:
            a, b = isa.reg_key(ops[1]), ops[2]
            m = int(b) if re.fullmatch(r"-?\d+", b) else const.get(isa.reg_key(b))
            if m is not None:
                got = ("mask", a, m & ((1 << 64) - 1))
        elif mnem == "slli" and len(ops) == 3 and re.fullmatch(r"\d+", ops[2]):
            got = ("mask", isa.reg_key(ops[1]), (1 << (64 - int(ops[2]))) - 1)
        elif mnem == "sext.w" and len(ops) == 2 and isa.reg_key(ops[1]) in zero:
            got = ("zero",)
        if dst:
            # what the sources say, before dst's own facts go (dst may be a source: slli v,v,48)
            is_0 = got is not None and (got[0] == "zero" or got[0] == "mask" and
                                        got[2] & ~zero_bits.get(got[1], 0) == 0)
            kill(dst)
            if got and got[0] == "const":
                const[dst] = got[1]
            if got and got[0] == "mask" and got[1] != dst:
                masked[dst] = (got[1], got[2])
            if is_0:
                zero.add(dst)
        out.append(ln)
    return out


# ---------------------------------------------------------------- POWER
_PPC_CR_WRITE = re.compile(r"^(cmp\w*|cr\w+|mtcrf?|mtocrf|mcrf\w*|bl|bctrl|\w+\.)$")
_PPC_CMPI = re.compile(r"^cmpl?[wd]i (?:(cr\d),)?(r\d+),(\d+)$")


def repeated_branches(isa, lines):
    """ppc64le: without the `bne` that tests again what a `bne` above it in the same straight line
    of code found equal: the same register against the same immediate (0 to 32767, so a signed
    and an unsigned compare agree on equality), nothing writing the register between.  Reached
    only through the first one's fall-through, it is never taken, and its control dependency is
    the first one's (the same register's value; what follows it follows the first too).  gcc's
    acquire CAS tests its compare again after the isync (`bne; stwcx.; isync; bne`, and in the
    split's plain form the stwcx. is a store), clang's compares again after its lwsync; each such
    branch about doubles herd7's time on a four-thread lock test."""
    out = []
    src = {}        # CR field -> (register, immediate) its last compare compared
    equal = set()   # (register, immediate) a fallen-through bne found equal on this path
    for ln in lines:
        mnem, _, ops = ln.partition(" ")
        base = mnem.rstrip("+-")
        cmp = _PPC_CMPI.match(ln)
        if ln.endswith(":") or base in ("b", "blr"):
            src, equal = {}, set()
        elif cmp and int(cmp.group(3)) < 32768:
            src[cmp.group(1) or "cr0"] = (cmp.group(2), int(cmp.group(3)))
        elif isa.cond_branch.fullmatch(base):
            o = ops.split(",")
            fact = src.get(o[0] if len(o) == 2 else "cr0")
            if base == "bne" and fact in equal:
                continue                    # never taken
            if base == "bne" and fact:
                equal.add(fact)             # from here on, its fall-through
        else:
            if _PPC_CR_WRITE.match(mnem):
                src = {}
            if not (mnem.startswith("st") and "u" not in mnem[2:]):     # a store writes no register
                regs = isa.regs(ln)
                equal = {f for f in equal if f[0] not in regs}
                src = {k: f for k, f in src.items() if f[0] not in regs}
        out.append(ln)
    return out


# ---------------------------------------------------------------- x86-64
_X86_FLAGS_WRITE = re.compile(r"^(cmp|test|add|sub|and|or|xor|inc|dec|neg|shl|shr|sal|sar|xadd|cmpxchg)[bwlq]?$")
_X86_NEUTRAL = re.compile(r"^(mov[a-z]*|lea[lq]?|xchg[bwlq]?|[lsm]fence|nop[wl]?)$")      # no flag read or write
_X86_ZERO = re.compile(r"^xor([lq]?) (%[a-z0-9]+),\2$")


def _x86_flags_dead(isa, lines, start, fail):
    """x86-64's flags (_flags_dead): a mnemonic neither known to write them nor known to leave
    them alone is taken to read them."""
    def step(ln):
        kind, target = isa.flow(ln)
        if kind == "ret":
            return "end"
        if kind == "jump":
            return ("jump", target)
        if kind == "cond":
            return "read"                   # a conditional jump reads them
        mnem = ln.replace("lock; ", "").partition(" ")[0]
        if _X86_FLAGS_WRITE.match(mnem):
            return "end"
        return None if _X86_NEUTRAL.match(mnem) else "read"
    return _flags_dead(lines, [start], fail, step)


def zero_moves(isa, lines, fail):
    """x86-64: `xor %r,%r` as `mov $0,%r` where every path writes the flags again before it reads
    them.  The register gets the same 0; herd7 does not know the zeroing idiom, so the xor is a
    read of %r (a dependency the processor does not have) and a write of every flag, register
    events on every candidate: on a split lock order, a fifth of herd7's time (docs/verify.md)."""
    out = []
    for k, ln in enumerate(lines):
        m = _X86_ZERO.match(ln)
        out.append("mov $0,%s" % m.group(2) if m and _x86_flags_dead(isa, lines, k + 1, fail) else ln)
    return out


SIMPLIFY = {"aarch64": cmp0_branches,
            "x86_64": zero_moves,
            "riscv64": lambda isa, lines, fail: settled_branches(isa, fold_constants(isa, lines)),
            "ppc64le": lambda isa, lines, fail: repeated_branches(isa, lines)}
