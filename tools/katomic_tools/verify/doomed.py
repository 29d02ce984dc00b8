"""Branches whose taken side always ends at FAIL, sent there directly.

A lock site compiled for riscv64 (a masked sub-word CAS) or by clang for
ppc64le tests the value it read twice: a first branch skips the store when
the lock is busy and joins the path again, where a second test of the same
value sends the busy case to the slow path (FAIL).  herd7 cannot see that
the two tests agree, so it builds both outcomes of each (four paths a site
instead of two), and a four-thread lock test's one order takes it 35 s
instead of 0.2 s (docs/verify.md).  Where the first branch's condition
implies the second's FAIL outcome, jumping to FAIL at the first branch drops
exactly the executions the filter drops anyway.

The implication is shown on bit masks: along the straight-line code from the
load, every register is a constant, the loaded word masked (its value is 0
exactly when the word's bits in the mask are all 0), or unknown; a branch on
a masked value against 0 is taken on "some bit in the mask set" (or its
negation).  If the first branch is taken on "some bit of M1 set" and the
second reaches FAIL on "some bit of M2 set" with M1 within M2, the first
implies the second.  Anything else the evaluator does not know makes the
register unknown, and an unknown never implies.
"""
import re

# what may stand between a branch's target and the jump to FAIL (register moves, as Isa._leads_to takes them)
MOVES = {"riscv64": re.compile(r"^(mv \w+,\w+|li \w+,-?\w+|nop)$"),
         "ppc64le": re.compile(r"^(mr \w+,\w+|li \w+,-?\w+|nop)$")}
WORD = 0xffffffff
FULL = (1 << 64) - 1


def _norm(mask):
    """A mask on the sign-extended word as one on the word (bits 32-63 copy bit 31)."""
    return (mask & WORD) | ((1 << 31) if mask >> 32 else 0)


class _Eval:
    """Symbolic registers of one straight-line stretch: ("c", value), ("m", load, mask) or None."""

    def __init__(self, isa):
        self.isa, self.regs = isa, {}

    def get(self, r):
        if r in ("zero", "x0"):
            return ("c", 0)
        return self.regs.get(r)

    def step(self, ln, k):
        """Update the registers for herd line ln (line index k); False when it leaves the stretch."""
        return (_riscv if self.isa == "riscv64" else _ppc)(self, ln, k)


def _imm(s):
    try:
        return int(s, 0)
    except ValueError:
        return None


def _and(a, b):
    if a and b and a[0] == "c" and b[0] == "c":
        return ("c", a[1] & b[1])
    for x, y in ((a, b), (b, a)):
        if x and y and x[0] == "m" and y[0] == "c":
            return ("m", x[1], x[2] & (y[1] & FULL))
    return None


def _riscv(ev, ln, k):
    if ln.endswith(":"):
        return False
    mnem, _, rest = ln.partition(" ")
    ops = [o.strip() for o in rest.split(",")] if rest else []
    if mnem in ("fence", "nop") or re.match(r"^s[bhwd]$", mnem):
        return True                                    # no register changes
    if re.match(r"^(b[a-z]*|j|jal|jalr|ret|call)$", mnem) or not ops:
        return False
    if mnem in ("lw", "lr.w"):
        ev.regs[ops[0]] = ("m", k, FULL)
        return True
    d = ops[0]
    a = ev.get(ops[1]) if len(ops) > 1 else None
    b = ev.get(ops[2]) if len(ops) > 2 else None
    imm = _imm(ops[-1])
    val = None
    if mnem == "li" and imm is not None:
        val = ("c", imm & FULL)
    elif mnem == "lui" and imm is not None:
        val = ("c", _sext32(imm << 12))
    elif mnem == "mv":
        val = a
    elif mnem in ("addi", "addiw") and a and a[0] == "c" and imm is not None:
        v = (a[1] + imm) & FULL
        val = ("c", v if mnem == "addi" else _sext32(v))
    elif mnem == "and":
        val = _and(a, b)
    elif mnem == "andi" and imm is not None:
        val = _and(a, ("c", imm & FULL))
    elif mnem == "xori" and a and a[0] == "c" and imm is not None:
        val = ("c", (a[1] ^ (imm & FULL)) & FULL)
    elif mnem in ("slli", "sllw") and a:
        sh = imm if mnem == "slli" else (b[1] if b and b[0] == "c" else None)
        if sh is not None and a[0] == "c":
            v = (a[1] << sh) & FULL
            val = ("c", v if mnem == "slli" else _sext32(v))
        elif sh is not None and mnem == "slli":
            val = ("m", a[1], a[2] & (FULL >> sh))      # only whether it is 0 is kept
    elif mnem == "sext.w" and a:
        val = ("c", _sext32(a[1])) if a[0] == "c" else ("m", a[1], a[2] & WORD)
    ev.regs[d] = val                                   # anything else: unknown
    return True


def _sext32(v):
    v &= WORD
    return v | (FULL ^ WORD) if v >> 31 else v


def _ppc(ev, ln, k):
    if ln.endswith(":"):
        return False
    mnem, _, rest = ln.partition(" ")
    ops = [o.strip() for o in rest.split(",")] if rest else []
    if mnem in ("lwsync", "sync", "isync", "nop") or re.match(r"^st[bhwd]x?$", mnem):
        return True
    if mnem in ("lwz", "lwarx") and ops:
        ev.regs[ops[0]] = ("m", k, FULL)
        return True
    if mnem in ("cmpwi", "cmplwi", "cmpdi", "cmpldi") and len(ops) == 2 and _imm(ops[1]) == 0:
        a = ev.get(ops[0])
        ev.regs["cr0"] = (("m", a[1], a[2] & (WORD if mnem in ("cmpwi", "cmplwi") else FULL))
                          if a and a[0] == "m" else None)
        return True
    if mnem == "li" and len(ops) == 2 and _imm(ops[1]) is not None:
        ev.regs[ops[0]] = ("c", _imm(ops[1]) & FULL)
        return True
    if mnem == "mr" and len(ops) == 2:
        ev.regs[ops[0]] = ev.get(ops[1])
        return True
    return False                                       # cr0 or a register changed in a way not followed


def _cond(isa, ev, ln):
    """(label, mask, taken_when_set) of a conditional branch on a masked load against 0, or None."""
    if isa == "riscv64":
        m = re.match(r"^(bne|beq) (\w+),(\w+),(\S+)$", ln)
        if not m:
            return None
        a, b = ev.get(m.group(2)), ev.get(m.group(3))
        if b and b == ("c", 0) and a and a[0] == "m":
            return m.group(4), a, m.group(1) == "bne"
        if a and a == ("c", 0) and b and b[0] == "m":
            return m.group(4), b, m.group(1) == "bne"
        return None
    m = re.match(r"^(bne|beq) ([^\s,]+)$", ln)
    a = ev.get("cr0")
    if m and a and a[0] == "m":
        return m.group(2), a, m.group(1) == "bne"
    return None


def _meet(states):
    """The registers every incoming state agrees on."""
    states = [st for st in states if st is not None]
    if not states:
        return {}
    return {r: v for r, v in states[0].items() if v is not None and all(st.get(r) == v for st in states[1:])}


def _states(isa, lines, reachable=None):
    """The registers before each line (None: unreachable), in a forward pass: a label takes what
    every jump to it and the fall-through agree on (nothing, when a reachable jump to it comes
    later: a loop).  A first pass finds what is reachable (a jump after a jump to FAIL is not)."""
    if reachable is None:
        reachable = [st is not None for st in _states(isa, lines, [True] * len(lines))]
    later = set()
    for k, ln in enumerate(lines):
        if not reachable[k]:
            continue
        m = re.search(r"(\w+)$", ln)
        if m and not ln.endswith(":") and (m.group(1) + ":") in lines:
            j = lines.index(m.group(1) + ":")
            if j <= k:
                later.add(m.group(1))
    out, cur, pending = [], {}, {}
    for k, ln in enumerate(lines):
        if ln.endswith(":"):
            label = ln[:-1]
            cur = {} if label in later else _meet(pending.pop(label, []) + ([cur] if cur is not None else []))
        out.append(cur)
        if cur is None or ln.endswith(":"):
            continue
        ev = _Eval(isa)
        ev.regs = dict(cur)
        mnem = ln.partition(" ")[0]
        m = re.search(r"(\w+)$", ln)
        if mnem in ("j", "b", "ret", "blr") or ln.startswith("j "):
            if m and (m.group(1) + ":") in lines:
                pending.setdefault(m.group(1), []).append(dict(cur))
            cur = None
            continue
        if re.match(r"^(b[a-z]*)$", mnem):
            if m and (m.group(1) + ":") in lines:
                pending.setdefault(m.group(1), []).append(dict(cur))
            continue
        if not ev.step(ln, k):
            ev.regs = {r: v for r, v in ev.regs.items() if r != "cr0"}
            d = ln.partition(" ")[2].split(",")[0].strip()
            ev.regs.pop(d, None)                   # what it writes is unknown
        cur = ev.regs
    return out


def redirect(isa, lines, fail, leads_to):
    """lines with each branch that always ends at FAIL when taken jumping to fail; and how many.
    leads_to(label, lines): whether the code at label reaches FAIL through register moves alone."""
    if isa not in ("riscv64", "ppc64le"):
        return lines, 0
    states = _states(isa, lines)
    out, n = list(lines), 0
    for k, ln in enumerate(lines):
        if states[k] is None:
            continue
        ev = _Eval(isa)
        ev.regs = dict(states[k])
        c1 = _cond(isa, ev, ln)
        if not c1 or not c1[2] or c1[0] == fail:
            continue
        label, (_, load, m1) = c1[0], c1[1]
        if label + ":" not in lines[k + 1:]:
            continue
        j = lines.index(label + ":", k + 1)
        ev2 = _Eval(isa)
        ev2.regs = dict(ev.regs)
        for j2 in range(j + 1, len(lines)):
            ln2 = lines[j2]
            c2 = _cond(isa, ev2, ln2)
            if c2:
                lab2, (_, load2, m2), set_taken = c2
                fail_side = leads_to(lab2, lines) if set_taken else _falls_to_fail(lines, j2 + 1, leads_to)
                if load2 == load and fail_side and _norm(m1) & ~_norm(m2) == 0:
                    out[k] = ln[:len(ln) - len(label)] + fail
                    n += 1
                break
            if not ev2.step(ln2, j2):
                break
    return out, n


def _falls_to_fail(lines, k, leads_to):
    """Whether the code from line k on reaches FAIL through register moves alone."""
    return leads_to("Lkv_fallthrough", lines[:k] + ["Lkv_fallthrough:"] + lines[k:])
