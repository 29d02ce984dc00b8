"""One translator per instruction set: objdump's spelling of an instruction
into herd7's, and the few facts the generic pass (translate.py) asks of each:
what branches and where, what calls, what is a stack access, what writes
memory.  What herd7's model of the architecture does not know is left for
herd7 to refuse (the test is then "not judged" with herd7's message): the
translator never invents a meaning for an instruction."""
import re

from . import lean


def forward_must(start, entry, succ, transfer, edge=None, meet=None):
    """A forward must-analysis: {addr: facts on entry to it} for every instruction reached from
    `start`, each facts a dict that keeps a key only where every path into that point gives it the
    same value.  succ: {addr: [successor addrs]}; transfer(addr, facts): the facts after it (a
    new dict); edge(addr, succ addr, facts): those that reach that successor (what a branch's
    outcome tells), if given; meet(addr, facts there or None, facts coming in): the facts at a
    point where paths join, if not the keys on which both agree (it must only ever lose facts,
    or the analysis does not end)."""
    if meet is None:
        meet = lambda b, old, new: new if old is None else {k: v for k, v in old.items() if new.get(k) == v}
    state, todo = {start: meet(start, None, entry)}, [start]
    while todo:
        a = todo.pop()
        after = transfer(a, state[a])
        for b in succ[a]:
            out = edge(a, b, after) if edge else after
            meet_ = meet(b, state.get(b), out)
            if b not in state or meet_ != state[b]:
                state[b] = meet_
                todo.append(b)
    return state


class NotTaken(Exception):
    """The code cannot be judged: the reason, one line."""


def _dec(m):
    v = int(m.group(2), 16)
    return m.group(1) + str(v)


class Isa:
    name = ""
    herd_arch = ""             # the litmus file's first word
    arg_regs = ()              # where the arguments arrive, in order
    spare = ()                 # registers the translator may take (stack slots, the marker)
    jump = ""                  # the unconditional branch
    cond_branch = None         # the conditional branches (a regex on the mnemonic)
    ret_text = ""              # herd7's spelling of a return (-variant telechat: the thread ends)

    def branch_mnem(self, mnem):
        """The mnemonic as the branch tables name it (ppc: without its +/- hint)."""
        return mnem

    def branch(self, i):
        """(target, conditional) or None."""
        m = self.branch_mnem(i.mnem)
        if m == self.jump:
            return int(i.ops[-1], 16), False
        if self.cond_branch.fullmatch(m):
            return int(i.ops[-1], 16), True
        return None

    def reg_key(self, reg):
        """A register as a final condition names it."""
        return reg

    def widen(self, mnem):
        return None

    def prepare(self, insns, args=(), live_out=()):
        """A pass over one function's instructions before translation (in place); args: the
        registers the thread's arguments (shared variables' addresses) arrive in; live_out: the
        registers read after it returns (its observed values)."""
        return insns

    def expand(self, i, insns, spare, fail, notes):
        """herd lines for an instruction herd7's front end lacks, built from instructions it has, or
        None.  spare() takes a register no instruction uses; fail is the label of the thread's
        failure exit (a pass that jumps there is dropped by the filter: it must write nothing)."""
        return None

    def comment_strip(self, s):
        return s

    # a herd line as lean.py reads it: its control flow, the register move or computation it is,
    # the registers it reads; None: lean leaves the ISA's lines as they are
    HERD_REG = None            # a register named in a herd line (group 1: what reg_of takes)

    def reg_of(self, name):
        return name

    def flow(self, ln):
        """("ret" | "jump" | "cond" | None, the label it may go to): the return, the jump and the
        conditional branches as the branch tables name them (case aside: aarch64's are upper case)."""
        mnem, _, ops = ln.partition(" ")
        if mnem == self.ret_text:
            return "ret", None
        m = self.branch_mnem(mnem.lower())
        if m == self.jump:
            return "jump", ops
        if self.cond_branch.fullmatch(m):
            return "cond", ops.split(",")[-1]
        return None, None

    def move(self, ln):
        """(destination, source text) of a register move or computation that writes its whole
        destination from the registers the source text names and does nothing else (no memory, no
        flags), or None."""
        return None

    def entry_value(self, ln):
        """(destination family, ("reg", source family) or ("imm", value)) of a line that sets a whole
        register to a copy of another's whole value, or to a constant its initial value may state
        as it is, and does nothing else (lean.entry_values); None for any other line."""
        return None

    def regs(self, text):
        """The registers an operand text names."""
        return {self.reg_of(m.group(1)) for m in self.HERD_REG.finditer(text)}

    def reads(self, line):
        """The registers a line may read: those it names (x86-64 adds those it reads unnamed)."""
        return self.regs(line)

    def def_use(self, line):
        """(the registers a line certainly sets whole, those it may read): a move or computation
        sets its destination from its sources; another line sets none and reads reads()."""
        mv = self.move(line)
        return ({mv[0]}, self.regs(mv[1])) if mv else (set(), self.reads(line))

    # normal.py's renaming: the families it may rename onto, in the order it takes them (none is a
    # register an instruction reads or writes without naming it: a return's link register, x86's
    # %rax of cmpxchg), a name's (family, part) when its family is one of them, and a part's name
    RENAME_POOL = ()

    def family(self, name):
        return None

    def spell(self, family, part):
        raise NotImplementedError

    def parts(self, family):
        """Every part a family's names may mean."""
        return ()

    def renames(self, line):
        """Whether a herd line names every register it reads or writes (then renaming keeps its meaning)."""
        return True

    def swap_lock_sites(self, lines, fail, spare=None, plain=False, live_out=()):
        """The lock-order split's thread (herd lines): each lock site's acquiring RMW, whose every
        failure leaves by the FAIL exit, as a swap with the same ordering (locksplit.py: the split's
        orders are only fast when herd7 has one RMW event per site, not a CAS's three alternatives or
        a store-exclusive that may fail).  Sound because every execution the filter keeps read the
        expected 0 there, where the swap and the CAS or LL/SC pair that succeeded make the same read
        and write; the swap lacks only the CAS's own compare (a control dependency from an acquire
        read, which orders what follows anyway).  plain: the test's lock sites are its only RMWs
        (locksplit.plain_rmw), so an ISA with no swap in herd7 may take a site as its load and its
        store: each split location has one RMW, which reads the one write co-before its own, so its
        atomicity holds in every execution anyway.  Returns the lines and what the sites became
        ("" when none)."""
        return lines, ""

    @staticmethod
    def _rewrite_sites(lines, site):
        """The lines with each site rewritten, and how many were: site(k) is None, or the lines that
        replace lines[k] and how many lines they replace."""
        out, n, k = [], 0, 0
        while k < len(lines):
            got = site(k)
            if got:
                out += got[0]
                n, k = n + 1, k + got[1]
            else:
                out.append(lines[k])
                k += 1
        return out, n

    @staticmethod
    def _leads_to(lines, label, fail, moves, seen=frozenset()):
        """Whether the code at `label` reaches the jump to `fail` through register moves and jumps alone."""
        try:
            k = lines.index(label + ":")
        except ValueError:
            return False
        return Isa._falls_to(lines, k + 1, fail, moves, seen | {label})

    @staticmethod
    def _falls_to(lines, k, fail, moves, seen=frozenset()):
        """Whether the code from line k on reaches the jump to `fail` through register moves and jumps alone."""
        for ln in lines[k:]:
            if ln.endswith(":"):
                continue
            mnem, _, target = ln.partition(" ")
            if mnem in ("B", "b", "j", "jmp"):
                return target == fail or target not in seen and Isa._leads_to(lines, target, fail, moves, seen)
            if not moves.match(ln):
                return False
        return False


# ---------------------------------------------------------------- AArch64
class AArch64(Isa):
    name = "aarch64"
    herd_arch = "AArch64"
    arg_regs = tuple("x%d" % i for i in range(8))
    spare = tuple("x%d" % i for i in range(28, -1, -1))
    jump, cond_branch, ret_text = "b", re.compile(r"b\.[a-z]+|cbz|cbnz|tbz|tbnz"), "RET"

    def reg_key(self, reg):
        return "X" + reg[1:] if reg[0] in "xw" else reg.upper()

    def is_ret(self, i):
        return i.mnem == "ret"

    def is_call(self, i):
        return i.mnem in ("bl", "blr")

    def writes(self, i):
        """"exclusive" (a store-exclusive: writes only when it succeeds), "rmw", "plain" or None."""
        m = i.mnem
        if m.startswith(("stxr", "stlxr", "stxp", "stlxp")):
            return "exclusive"
        if m.startswith(("swp", "cas", "ldadd", "ldclr", "ldset", "ldeor", "ldsmax", "ldumax", "ldsmin", "ldumin",
                         "stadd", "stclr", "stset", "steor")):
            return "rmw"
        if m.startswith("st"):
            return "plain"
        return None

    def stack(self, i, slots):
        """herd lines for an instruction that touches the stack (sp or x29), None if it does not."""
        ops, m = i.ops, i.mnem
        words = [o.strip("[]!") for o in ops]
        if not any(w in ("sp", "x29") or re.match(r"^\[(sp|x29)\b", o) for w, o in zip(words, ops)):
            return None
        if m in ("mov", "add", "sub") and ops[0] in ("sp", "x29") and (len(ops) < 3 or ops[1] in ("sp", "x29")):
            return []                   # the frame: its size, its pointer
        mem = None
        if m in ("str", "ldr", "stp", "ldp", "strb", "ldrb", "strh", "ldrh", "stur", "ldur"):
            for k, o in enumerate(ops):
                mm = re.match(r"^\[(sp|x29)(?:, #(-?(?:0x)?[0-9a-f]+))?\](!?)$", o)
                if mm:
                    mem = (k, int(mm.group(2) or "0", 0))
                    break
        if mem is None:
            raise NotTaken("a stack access herd7 cannot follow: %s" % i.text)
        k, off = mem
        regs = ops[:k]
        out = []
        size = 8 if regs[0].startswith("x") else 4
        for n, r in enumerate(regs):
            if r in ("x29", "x30"):
                continue                # the frame record: never a value of the test's
            slot = slots.get(off + n * size)
            sreg = ("w" if r.startswith("w") else "x") + slot[1:]
            if m.startswith("st"):
                out.append(self._mov(sreg, r))
            else:
                out.append(self._mov(r, sreg))
        return out

    def _mov(self, dst, src):
        if src in ("xzr", "wzr"):
            return "MOV %s,#0" % self.render_reg(dst)
        return "MOV %s,%s" % (self.render_reg(dst), self.render_reg(src))

    def render_reg(self, r):
        return re.sub(r"\b([wx])(\d+|zr)\b", lambda m: m.group(1).upper() + m.group(2).upper(), r)

    # byte and halfword forms of the memory instructions: their 32-bit form is the same mnemonic without b/h
    _SUBWORD = re.compile(r"^(ldrb|ldrh|strb|strh|ldarb|ldarh|stlrb|stlrh|ldxrb|ldxrh|ldaxrb|ldaxrh|stxrb|stxrh|"
                          r"stlxrb|stlxrh|cas[al]*[bh]|swp[al]*[bh]|ld(add|clr|set|eor)[al]*[bh]|"
                          r"st(add|clr|set|eor)l?[bh])$")

    def widen(self, mnem):
        """The 32-bit form of a byte or halfword memory instruction, or None."""
        if mnem in ("ldrsb", "ldrsh"):
            return None
        return mnem[:-1] if self._SUBWORD.match(mnem) else None

    def render(self, i, label, widen=False):
        """herd's text for the instruction; label(addr) names a branch target."""
        if i.mnem == "clrex":
            return []                   # clears the local monitor only: no access, no order
        br = self.branch(i)
        ops = list(i.ops)
        mnem = i.mnem
        if widen and self.widen(mnem):
            mnem = self.widen(mnem)
        if br:
            ops[-1] = label(br[0])
        text = mnem.upper() + (" " + ",".join(ops) if ops else "")
        text = self.render_reg(text)
        text = re.sub(r"(#-?)0x([0-9a-f]+)", _dec, text)
        if ops and ops[0].startswith("w"):
            # herd7 reads a W register's immediate as signed 32 bits (objdump writes #0xffffffff for -1)
            text = re.sub(r"#(\d+)", lambda mm: "#%d" % (int(mm.group(1)) - (1 << 32) if int(mm.group(1)) >= 1 << 31
                                                        else int(mm.group(1))), text)
        return [text]

    _MOVE = re.compile(r"^MOV [WX]\d+,(?:[WX]\d+|[WX]ZR|#-?\d+)$")
    _CAS = re.compile(r"^CAS(A|AL)H? (W\d+),(W\d+),\[(X\d+)\]$")
    _LDX = re.compile(r"^LD(A?)XRH? (W\d+),\[(X\d+)\]$")
    _STX = re.compile(r"^ST(L?)XRH? (W\d+),(W\d+),\[(X\d+)\]$")

    @staticmethod
    def _num(reg):
        return reg[1:]

    def _set_zero_before(self, lines, k, reg):
        """Whether straight-line code before line k last set reg to 0 (MOV reg,#0)."""
        for ln in reversed(lines[:k]):
            if ln.endswith(":") or ln.split(" ", 1)[0] in ("B", "CBZ", "CBNZ", "TBZ", "TBNZ") or ln.startswith("B."):
                return False
            ops = ln.split(" ", 1)[1].split(",") if " " in ln else []
            if ops and re.match(r"^[WX]\d+$", ops[0]) and self._num(ops[0]) == self._num(reg) \
                    and not ln.startswith(("STR", "STLR", "STUR")):
                return ln in ("MOV W%s,#0" % self._num(reg), "MOV X%s,#0" % self._num(reg),
                              "MOV W%s,WZR" % self._num(reg), "MOV X%s,XZR" % self._num(reg))
        return False

    def _sets(self, line, reg):
        """Whether a register move (_MOVE) writes reg (any size of it)."""
        return self._num(line.split(" ", 1)[1].split(",")[0]) == self._num(reg)

    def _nonzero_exit(self, lines, k, reg, fail):
        """Lines k.. test reg against 0 and leave for FAIL when it is not, through register moves and
        jumps alone, where 0 goes on (clang: the test may come after moves that leave reg alone, and
        take 0 by the branch and the rest by falling through): how many lines that takes, or None."""
        j = k
        while j < len(lines) and self._MOVE.match(lines[j]) and not self._sets(lines[j], reg):
            j += 1
        ln = lines[j] if j < len(lines) else ""
        m = re.match(r"^(CBNZ|CBZ) (W\d+),(\S+)$", ln)
        if m and m.group(2) == reg:
            busy = m.group(1) == "CBNZ"
            n, label = j + 1, m.group(3)
        elif ln == "CMP %s,#0" % reg and re.match(r"^B\.(NE|EQ) \S+$", lines[j + 1] if j + 1 < len(lines) else ""):
            busy = lines[j + 1].startswith("B.NE")
            n, label = j + 2, lines[j + 1][5:]
        else:
            return None
        if self._leads_to(lines, label, fail, self._MOVE) if busy else self._falls_to(lines, n, fail, self._MOVE):
            return n - k
        return None

    def _swap_site(self, lines, k, fail, live):
        ln = lines[k]
        # casa ws,wt,[xn] with ws = 0, then ws != 0 -> FAIL
        m = self._CAS.match(ln)
        if m and self._set_zero_before(lines, k, m.group(2)) and self._nonzero_exit(lines, k + 1, m.group(2), fail):
            return ["SWP%s %s,%s,[%s]" % (m.group(1), m.group(3), m.group(2), m.group(4))], 1
        # ld[a]xr wt,[xn]; cbnz wt,La; [moves]; st[l]xr ws,wv,[xn]; cbnz ws,FAIL; then wt != 0 -> FAIL,
        # at La (gcc: La is a cmp/b.ne after the pair) or La itself (clang).  The moves (clang's
        # `mov wv,#1`) leave wt and xn alone, so they may go before the swap that reads wv.
        # ldaxr/stlxr is not swpal, which also orders what comes after it (aarch64.cat's bob).
        m = self._LDX.match(ln)
        c1 = re.match(r"^CBNZ (W\d+),(\S+)$", lines[k + 1] if k + 1 < len(lines) else "")
        if not (m and c1 and c1.group(1) == m.group(2)):
            return None
        j = k + 2
        while j < len(lines) and self._MOVE.match(lines[j]) and self.reg_of(m.group(2)) not in self.regs(lines[j]) \
                and not self._sets(lines[j], m.group(3)):
            j += 1
        st = self._STX.match(lines[j] if j < len(lines) else "")
        if st and st.group(4) == m.group(3) and not (m.group(1) and st.group(1)) \
                and j + 1 < len(lines) and lines[j + 1] == "CBNZ %s,%s" % (st.group(2), fail) \
                and (st.group(2) == m.group(2) or lean.dead_at(self, live, j + 2, st.group(2))):
            swp = "SWP%s%s %s,%s,[%s]" % (m.group(1) and "A", st.group(1), st.group(3), m.group(2), m.group(3))
            moves = lines[k + 2:j]
            after = lines[j + 2:j + 3] == [c1.group(2) + ":"] and self._nonzero_exit(lines, j + 3, m.group(2), fail)
            if after:
                return moves + [swp] + lines[j + 2:j + 3 + after], j + 3 + after - k
            if self._leads_to(lines, c1.group(2), fail, self._MOVE):
                return moves + [swp, lines[k + 1]], j + 2 - k
        return None

    def swap_lock_sites(self, lines, fail, spare=None, plain=False, live_out=()):
        live = lean.liveness(self, lines, fail, live_out)[0]
        out, n = self._rewrite_sites(lines, lambda k: self._swap_site(lines, k, fail, live))
        return out, "swap" if n else ""

    HERD_REG = re.compile(r"\b[WX](\d+)\b")
    _MOVE_LINE = re.compile(r"^MOV ([WX])(\d+),([WX]\d+|[WX]ZR|#-?\d+)$")

    def reg_of(self, name):
        return "X" + name.lstrip("wxWX")

    RENAME_POOL = tuple(range(29))      # X29 (frame), X30 (RET's link) and SP keep their names

    def family(self, name):
        m = re.fullmatch(r"([WX])(\d+)", name)
        return (int(m.group(2)), m.group(1)) if m and int(m.group(2)) < 29 else None

    def spell(self, family, part):
        return "%s%d" % (part, family)

    def parts(self, family):
        return ("X", "W")

    def renames(self, line):
        return not re.match(r"^CASP", line, re.I)          # a register pair: the second one unnamed

    def move(self, ln):
        m = self._MOVE_LINE.match(ln)
        return ("X" + m.group(2), m.group(3)) if m else None

    # a load sets its destination whole (a W write clears the top half) and reads only its address;
    # a store-exclusive sets its status register, a swap its old-value register, and neither reads it
    _LOAD_DEF = re.compile(r"^LD(?:A?X?R|APR|UR)(?:S?[BH]|SW)? ([WX]\d+),(\[[^\]]*\])$")
    _STX_DEF = re.compile(r"^STL?XR[BH]? (W\d+),((?:[WX]\d+|[WX]ZR),\[X\d+\])$")
    _SWP_DEF = re.compile(r"^SWPA?L?[BH]? ((?:[WX]\d+|[WX]ZR)),([WX]\d+),(\[X\d+\])$")

    def def_use(self, line):
        m = self._LOAD_DEF.match(line) or self._STX_DEF.match(line)
        if m:
            return {self.reg_of(m.group(1))}, self.regs(m.group(2))
        m = self._SWP_DEF.match(line)
        if m:
            return {self.reg_of(m.group(2))}, self.regs(m.group(1) + m.group(3))
        return super().def_use(line)

    def mov_imm(self, reg, v):
        return "MOV %s,#%d" % (self.render_reg(reg), v)

    def entry_value(self, ln):
        # a W destination is zero-extended: a copy of a W register or a negative immediate is not its value
        m = self._MOVE_LINE.match(ln)
        if not m:
            return None
        dest, src = "X" + m.group(2), m.group(3)
        if src in ("XZR", "WZR"):
            return dest, ("imm", 0)
        if src.startswith("#"):
            return (dest, ("imm", int(src[1:]))) if m.group(1) == "X" or int(src[1:]) >= 0 else None
        return (dest, ("reg", src)) if m.group(1) == "X" and src.startswith("X") else None


# ---------------------------------------------------------------- RISC-V
class RiscV(Isa):
    name = "riscv64"
    herd_arch = "RISCV"
    arg_regs = tuple("a%d" % i for i in range(8))
    spare = ("s11", "s10", "s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1", "a7", "a6", "a5", "a4",
             "a3", "a2", "a1", "a0", "t6", "t5", "t4", "t3", "t2", "t1", "t0")
    _BR2 = ("beq", "bne", "blt", "bge", "bltu", "bgeu")
    _BR1 = {"beqz": "beq", "bnez": "bne", "bltz": "blt", "bgez": "bge"}
    jump, cond_branch, ret_text = "j", re.compile("|".join(_BR2 + tuple(_BR1) + ("blez", "bgtz"))), "ret"

    _ABI = dict([("zero", 0), ("ra", 1), ("sp", 2), ("gp", 3), ("tp", 4), ("t0", 5), ("t1", 6), ("t2", 7),
                 ("s0", 8), ("fp", 8), ("s1", 9)] + [("a%d" % k, 10 + k) for k in range(8)] +
                [("s%d" % k, 16 + k) for k in range(2, 12)] + [("t%d" % k, 25 + k) for k in range(3, 7)])

    def reg_key(self, reg):
        return "x%d" % self._ABI[reg] if reg in self._ABI else reg

    def is_ret(self, i):
        return i.mnem == "ret" or (i.mnem == "jr" and i.ops == ["ra"])

    def is_call(self, i):
        return i.mnem in ("call", "jal", "jalr", "tail")

    def writes(self, i):
        m = i.mnem
        if m.startswith("sc."):
            return "exclusive"
        if m.startswith("amo"):
            return "rmw"
        if m in ("sb", "sh", "sw", "sd"):
            return "plain"
        return None

    def stack(self, i, slots):
        text = ",".join(i.ops)
        if not re.search(r"\bsp\b", text):
            return None                 # s0 is a register like any other at -O2 (no frame pointer)
        m = i.mnem
        if m in ("addi", "add") and i.ops[0] == "sp":
            return []
        mem = re.match(r"^(-?\d+)\(sp\)$", i.ops[-1]) if m in ("sd", "sw", "ld", "lw", "lwu", "sb", "lb", "lbu", "sh", "lh", "lhu") else None
        if not mem:
            raise NotTaken("a stack access herd7 cannot follow: %s" % i.text)
        slot = self.reg_key(slots.get(int(mem.group(1))))
        if m.startswith("s"):
            return ["mv %s,%s" % (slot, self.reg_key(i.ops[0]))]
        return ["mv %s,%s" % (self.reg_key(i.ops[0]), slot)]

    # objdump's spellings herd7's RISCV front end lacks, as the instructions they stand for
    _IMM = {"add": "addi", "and": "andi", "or": "ori", "xor": "xori", "sll": "slli", "srl": "srli", "sra": "srai",
            "slt": "slti", "sltu": "sltiu", "addw": "addiw", "sllw": "slliw", "srlw": "srliw", "sraw": "sraiw"}
    _PSEUDO = {"not": lambda d, s: ("xori", [d, s, "-1"]), "neg": lambda d, s: ("sub", [d, "zero", s]),
               "negw": lambda d, s: ("subw", [d, "zero", s]), "sltz": lambda d, s: ("slt", [d, s, "zero"]),
               "sgtz": lambda d, s: ("slt", [d, "zero", s]), "zext.b": lambda d, s: ("andi", [d, s, "255"])}
    _WIDE = {"sb": "sw", "sh": "sw", "lbu": "lwu", "lhu": "lwu"}
    _NOREG = re.compile(r"^(s[bhwd](\.|$)|b|j$|fence|ret|nop|jr)")

    def widen(self, mnem):
        """The 32-bit form of a byte or halfword access (lb/lh sign-extend: not widened)."""
        return self._WIDE.get(mnem)

    def prepare(self, insns, args=(), live_out=()):
        """gcc's masked sub-word LR/SC takes the aligned word of the sub-word's address a and its
        bit offset: `and rd,a,-4` and `and rd,a,3`, which herd7 cannot compute on a symbol.  Where
        a holds a thread argument (a shared variable's address) on every path to that point, they
        are `mv rd,a` and `li rd,0`: the verifier gives each variable a naturally aligned word of
        its own, its sub-word at offset 0 (little-endian).  A `srlw rd,rs,off` (which herd7 lacks)
        whose offset is 0 on every path to it (`li 0`, or a shift of such a 0) becomes `sext.w
        rd,rs` (what srlw by 0 computes).  "On every path" is a forward must-analysis over the
        function's branches: a register keeps a kind (argument address, zero) only where every
        path into a point gives it that kind."""
        if not insns:
            return insns
        by = {i.addr: i for i in insns}
        succ = {}
        for k, i in enumerate(insns):
            br = self.branch(i)
            nxt = [insns[k + 1].addr] if k + 1 < len(insns) and not self.is_ret(i) and not (br and not br[1]) else []
            succ[i.addr] = nxt + ([br[0]] if br and br[0] in by else [])
        state = forward_must(insns[0].addr, {a: "addr" for a in args}, succ,
                             lambda a, kinds: self._kinds(by[a], dict(kinds)))
        for i in insns:
            kinds, ops = state.get(i.addr, {}), i.ops
            split = self._subword(i, kinds)
            if split:
                i.mnem, i.ops = ("mv", ops[:2]) if split == "addr" else ("li", [ops[0], "0"])
                i.notes.append("a sub-word's aligned word and bit offset: each variable naturally aligned, "
                               "its sub-word at offset 0")
            elif i.mnem == "srlw" and len(ops) == 3 and kinds.get(ops[2]) == "zero":
                i.mnem, i.ops = "sext.w", ops[:2]
        return insns

    @staticmethod
    def _subword(i, kinds):
        """`and rd,a,-4` / `and rd,a,3` of an argument's address a: "addr" (the aligned word, a
        itself) or "zero" (the offset); else None."""
        ops = i.ops
        if i.mnem == "and" and len(ops) == 3 and kinds.get(ops[1]) == "addr" and ops[2] in ("3", "-4"):
            return "addr" if ops[2] == "-4" else "zero"
        return None

    def _kinds(self, i, kinds):
        """The register kinds after i (the transfer function of prepare()'s analysis)."""
        ops = i.ops
        if not ops or self._NOREG.match(i.mnem):
            return kinds
        rd, kind = ops[0], self._subword(i, kinds)
        if i.mnem == "mv" and len(ops) == 2:
            kind = kinds.get(ops[1])
        elif i.mnem == "li" and len(ops) == 2 and ops[1] == "0":
            kind = "zero"
        elif i.mnem in ("sll", "slli", "sllw", "slliw") and len(ops) == 3 and kinds.get(ops[1]) == "zero" \
                and re.match(r"^(0x)?[0-9a-f]+$", ops[2]):
            kind = "zero"
        kinds.pop(rd, None)
        if kind:
            kinds[rd] = kind
        return kinds

    def expand(self, i, insns, spare, fail, notes):
        """seqz and snez (sltiu rd,rs,1 and sltu rd,zero,rs, which herd7 lacks) from instructions it
        has, with the same data dependency on rs and no branch (a branch would add a control
        dependency): t = (0 - rs) | rs has its sign bit set exactly when rs != 0; snez is t < 0."""
        if i.mnem not in ("seqz", "snez") or len(i.ops) != 2:
            return None
        rd, rs = (self.reg_key(r) for r in i.ops)
        t = self.reg_key(spare())
        out = ["sub %s,zero,%s" % (t, rs), "or %s,%s,%s" % (t, t, rs), "slt %s,%s,zero" % (rd, t)]
        return out + (["xori %s,%s,1" % (rd, rd)] if i.mnem == "seqz" else [])

    def render(self, i, label, widen=False):
        m, ops = i.mnem, list(i.ops)
        if widen and self.widen(m):
            m = self.widen(m)
        if m in self._PSEUDO and len(ops) == 2:
            m, ops = self._PSEUDO[m](*ops)
        elif m in self._IMM and len(ops) == 3 and re.match(r"^-?(0x)?[0-9a-f]+$", ops[2]) and ops[2] not in self._ABI:
            m = self._IMM[m]
        br = self.branch(i)
        if br:
            ops[-1] = label(br[0])
            if m in self._BR1:
                m, ops = self._BR1[m], [ops[0], "zero", ops[1]]
            elif m == "blez":
                m, ops = "bge", ["zero", ops[0], ops[1]]
            elif m == "bgtz":
                m, ops = "blt", ["zero", ops[0], ops[1]]
        # objdump's ".aqrl" is herd's ".aq.rl"; registers by number (herd7 knows few ABI names)
        m = m.replace(".aqrl", ".aq.rl")
        ops = [re.sub(r"\b[a-z]+\d*\b", lambda mm: self.reg_key(mm.group(0)) if mm.group(0) in self._ABI
                      and mm.group(0) != "zero" else mm.group(0), o) for o in ops]
        text = m + (" " + ",".join(ops) if ops else "")
        text = re.sub(r"(^|[ ,(-])0x([0-9a-f]+)", _dec, text)
        return [text]

    def swap_lock_sites(self, lines, fail, spare=None, plain=False, live_out=()):
        # lr.w r,(a) .. sc.w s,v,(a); bne s,zero,FAIL -> lw; ..; sw; li s,0 (herd7's RISCV has no
        # sub-word swap; the lines between are register arithmetic and forward branches only)
        def site(k):
            m = re.match(r"^lr\.w (x\d+),\((x\d+)\)$", lines[k])
            if not m:
                return None
            j = k + 1
            while j < len(lines) and not re.match(r"^(sc\.|[a-z]+:$|L|lr\.|amo|fence|[ls][bhwd]u? |j)", lines[j]) \
                    and not lines[j].endswith(":"):
                j += 1
            st = re.match(r"^sc\.w (x\d+),(x\d+),\((x\d+)\)$", lines[j]) if j + 1 < len(lines) else None
            if st and st.group(3) == m.group(2) and lines[j + 1] == "bne %s,zero,%s" % (st.group(1), fail):
                return (["lw %s,0(%s)" % (m.group(1), m.group(2))] + lines[k + 1:j] +
                        ["sw %s,0(%s)" % (st.group(2), m.group(2)), "li %s,0" % st.group(1)]), j + 2 - k
            return None
        if not plain:
            return lines, ""
        out, n = self._rewrite_sites(lines, site)
        return out, "plain load and store" if n else ""

    def mov_imm(self, reg, v):
        return "li %s,%d" % (self.reg_key(reg), v)

    _R = r"(x\d+|zero|ra|sp|gp|tp|fp|[ast]\d+)"      # by number, as render writes them, or by ABI name
    HERD_REG = re.compile(r"\b%s\b" % _R)

    def reg_of(self, name):
        return self.reg_key(name)

    RENAME_POOL = tuple(range(5, 32))   # zero, ra (ret's link), sp, gp and tp keep their names
    _ABI_NAME = {n: a for a, n in reversed(list(_ABI.items()))}

    def family(self, name):
        n = int(name[1:]) if re.fullmatch(r"x\d+", name) else self._ABI.get(name)
        return (n, "x" if name[0] == "x" else "abi") if n is not None and n >= 5 else None

    def spell(self, family, part):
        return "x%d" % family if part == "x" else self._ABI_NAME[family]

    def parts(self, family):
        return ("x", "abi")

    def renames(self, line):
        return not line.startswith("amocas.q")               # a register pair: the second one unnamed

    # register computations: they write their first operand from the others and touch no memory
    _PURE = frozenset(("mv", "li", "lui", "sext.w", "add", "sub", "and", "or", "xor", "sll", "srl", "sra", "addw",
                       "subw", "sllw", "srlw", "sraw", "addi", "andi", "ori", "xori", "slli", "srli", "srai",
                       "addiw", "slliw", "srliw", "sraiw"))

    def first_read(self, mnem):
        """Whether the mnemonic's first operand is read, not written (a store, a branch)."""
        return bool(self._NOREG.match(mnem))

    def move(self, ln):
        mnem, _, rest = ln.partition(" ")
        ops = rest.split(",") if rest else []
        if mnem in self._PURE and ops \
                and re.fullmatch(self._R, ops[0]) and self.reg_of(ops[0]) != "x0":
            return self.reg_of(ops[0]), ",".join(ops[1:])
        return None

    def entry_value(self, ln):
        mnem, _, rest = ln.partition(" ")
        ops = rest.split(",")
        if mnem not in ("mv", "li") or len(ops) != 2 or not re.fullmatch(self._R, ops[0]) \
                or self.reg_of(ops[0]) == "x0":
            return None
        if mnem == "li":
            return (self.reg_of(ops[0]), ("imm", int(ops[1]))) if re.fullmatch(r"-?\d+", ops[1]) else None
        return (self.reg_of(ops[0]), ("reg", self.reg_of(ops[1]))) if re.fullmatch(self._R, ops[1]) else None


# ---------------------------------------------------------------- POWER (ppc64le)
class Power(Isa):
    name = "ppc64le"
    herd_arch = "PPC"
    arg_regs = tuple("r%d" % i for i in range(3, 11))
    spare = tuple("r%d" % i for i in range(31, 13, -1)) + tuple("r%d" % i for i in range(12, 2, -1))

    _WIDE = {"lharx": "lwarx", "lbarx": "lwarx", "sthcx.": "stwcx.", "stbcx.": "stwcx.", "lbz": "lwz", "lhz": "lwz",
             "stb": "stw", "sth": "stw"}

    def widen(self, mnem):
        return self._WIDE.get(mnem)

    jump, cond_branch, ret_text = "b", re.compile(r"beq|bne|blt|bgt|ble|bge"), "blr"

    def branch_mnem(self, mnem):
        return mnem.rstrip("+-")

    def is_ret(self, i):
        return i.mnem == "blr"

    def is_call(self, i):
        return i.mnem in ("bl", "bctrl")

    def writes(self, i):
        m = i.mnem
        if m.endswith("cx."):
            return "exclusive"
        if m.startswith("st"):
            return "plain"
        return None

    def stack(self, i, slots):
        m, ops = i.mnem, i.ops
        if m in ("mflr", "mtlr"):
            return []                   # the link register's save: no call is left to return from
        if (m in ("addis", "addi") and len(ops) == 3 and ops[0] == "r2" and ops[1] in ("r12", "r2")):
            return []                   # the TOC pointer (a global entry): nothing of the test's
        text = ",".join(ops)
        if not re.search(r"\(r1\)|\br1\b", text):
            return None
        if m in ("stdu", "stwu") and ops[0] == "r1":
            return []
        if m == "addi" and ops[0] == "r1":
            return []
        mem = re.match(r"^(-?\d+)\(r1\)$", ops[-1]) if m in ("std", "stw", "ld", "lwz", "lwa", "stb", "lbz", "sth", "lhz") else None
        if not mem:
            raise NotTaken("a stack access herd7 cannot follow: %s" % i.text)
        slot = slots.get(int(mem.group(1)))
        if m.startswith("st"):
            return ["mr %s,%s" % (slot, ops[0])]
        return ["mr %s,%s" % (ops[0], slot)]

    def prepare(self, insns, args=(), live_out=()):
        """herd7's PPC branches read cr0 only: a compare into another field and the branches on it
        are moved to cr0 when nothing between them writes cr0 (a record form, stwcx.)."""
        # herd7 has no cmpld/cmpldi/cmplw, and an unsigned compare differs from a signed one only in
        # LT/GT: where every branch on its cr field tests EQ, it is the signed compare
        def field(i, n):
            return i.ops[0] if len(i.ops) == n + 1 and re.match(r"^cr[0-7]$", i.ops[0]) else "cr0"
        ordered = {field(i, 1) for i in insns if re.match(r"^b(lt|gt|le|ge)[+-]?$", i.mnem)}
        for i in insns:
            if i.mnem in ("cmpld", "cmpldi", "cmplw") and field(i, 2) not in ordered:
                i.mnem = "cmp" + i.mnem[4:]
        self._sink_cr0_compares(insns, field)
        last_cmp = {}
        for k, i in enumerate(insns):
            m = i.mnem.rstrip("+-")
            if m in ("cmpw", "cmpwi", "cmplw", "cmplwi", "cmpd", "cmpdi", "cmpld", "cmpldi") and \
                    i.ops and re.match(r"^cr[1-7]$", i.ops[0]):
                last_cmp[i.ops[0]] = k
            elif m in ("beq", "bne", "blt", "bgt", "ble", "bge") and len(i.ops) == 2 and re.match(r"^cr[1-7]$", i.ops[0]):
                field = i.ops[0]
                c = last_cmp.get(field)
                if c is None or any(j.mnem.endswith(".") or j.mnem.startswith("cmp") for j in insns[c + 1:k]):
                    raise NotTaken("a branch on %s that herd7's cr0-only branches cannot follow: %s" % (field, i.text))
                if insns[c].ops[0] == field:
                    insns[c].ops = insns[c].ops[1:]
                i.ops = i.ops[1:]
        self._fuse_pairs(insns, set(live_out))
        return insns

    _CR_USE = re.compile(r"^(isel|mfcr|mfocrf|mtcr|mtocrf|mcrf|cr[a-z]+)")   # read or write cr fields
    _READS_ALL = ("st", "cmp", "mt", "tw", "dcb")   # their first operand is read, not written

    def _sink_cr0_compares(self, insns, field):
        """clang interleaves a cr0 compare with the acquire's `cmpd crN,r,r; bne- crN,next; isync`,
        which herd7 can follow only on cr0: `cmpd cr7,r10,r10; cmpldi r10,0; bne- cr7,.+4; isync;
        beq ...`.  Where the crN branch goes to the next instruction (both ways lead there: it
        is there for its control dependency), the cr0 compares between it and its compare move
        to just after it, and the branch goes to them: every path still runs them before cr0 is
        read, with the registers they read unchanged (nothing between writes them, nor reads or
        otherwise writes cr0).  Each moved compare takes an address of its own (the branch's + 1,
        + 2: none of an instruction's)."""
        targets = self._targets(insns)
        k = 0
        while k < len(insns) - 1:
            i = insns[k]
            if not (self.branch(i) and len(i.ops) == 2 and re.match(r"^cr[1-7]$", i.ops[0]) and
                    self.branch(i)[0] == insns[k + 1].addr):
                k += 1
                continue
            c = max((n for n in range(k) if insns[n].mnem.startswith("cmp") and field(insns[n], 2) == i.ops[0]),
                    default=None)
            between = insns[c + 1:k] if c is not None else []
            movers = [j for j in between if j.mnem.startswith("cmp") and field(j, 2) == "cr0"]
            rest = [j for j in between if j not in movers]
            srcs = {o for j in movers for o in j.ops if re.match(r"^r\d+$", o)}
            if (not movers or c is None or any(j.addr in targets for j in between) or
                    any(j.mnem.endswith(".") or self.branch(j) or self._CR_USE.match(j.mnem) or
                        (j.ops and j.ops[0] in srcs and not j.mnem.startswith(("st", "cmp"))) for j in rest)):
                k += 1
                continue
            for j in movers:
                insns.remove(j)
            k = insns.index(i)
            for n, j in enumerate(movers, 1):
                j.addr = i.addr + n
                insns.insert(k + n, j)
            i.ops[-1] = "%x" % movers[0].addr
            k += len(movers) + 1

    def _targets(self, insns):
        return {b[0] for b in map(self.branch, insns) if b}

    def _fuse_pairs(self, insns, live_out):
        """Two register idioms herd7 lacks the first instruction of, each fused into one
        computation (expand()) in the first's place, the second dropped:
        - `cntlzw d,s` ... `srwi e,d,5`: C's `e = (s == 0)` (32 leading zeros only for a zero
          word), as `kv.iszero e,s`;
        - `mfocrf d,128` ... `rlwinm e,d,n,31,31` (n = 1, 2, 3): cr0's LT, GT or EQ bit as 0 or 1
          (spin_trylock's stwcx. success), as `kv.cr0bit e,n`.
        Only where the second is the next instruction to touch d, with no branch or branch target
        between; where e is not d, d must be dead after the second (overwritten or never read
        before the return, and not an observed value), and e neither read nor written between."""
        targets = self._targets(insns)
        def dead_after(d, k):
            for j in insns[k + 1:]:
                if self.is_ret(j):
                    return d not in live_out
                reads = j.ops if j.mnem.startswith(self._READS_ALL) else j.ops[1:]
                if j.addr in targets or self.branch(j) or any(d in o for o in reads):
                    return False
                if j.ops and j.ops[0] == d:
                    return True
            return False
        def touches(r, j):
            return any(re.search(r"\b%s\b" % r, o) for o in j.ops)    # 0(r3) reads r3 too
        for k, i in enumerate(insns):
            if i.mnem == "cntlzw" and len(i.ops) == 2:
                d, s = i.ops
                second = lambda j: (j.mnem == "srwi" and j.ops[1:] == [d, "5"]) or \
                    (j.mnem == "rlwinm" and j.ops[1:] == [d, "27", "5", "31"])
                fused = lambda e, j: ("kv.iszero", [e, s])
            elif i.mnem == "mfocrf" and i.ops[1:] == ["128"]:
                d, s = i.ops[0], None
                second = lambda j: j.mnem == "rlwinm" and len(j.ops) == 5 and j.ops[1] == d and \
                    j.ops[2] in ("1", "2", "3") and j.ops[3:] == ["31", "31"]
                fused = lambda e, j: ("kv.cr0bit", [e, j.ops[2]])
            else:
                continue
            for n, j in enumerate(insns[k + 1:], k + 1):
                if j.addr in targets or self.branch(j):
                    break
                if not touches(d, j):
                    continue
                e = j.ops[0] if second(j) else None
                if e and (e == d or (e != s and dead_after(d, n) and
                                     not any(touches(e, x) for x in insns[k + 1:n]))):
                    i.mnem, i.ops = fused(e, j)
                    j.mnem, j.ops = "nop", []
                break

    def expand(self, i, insns, spare, fail, notes):
        """kv.iszero d,s (_fuse_pairs) from instructions herd7 has, with the same data dependency
        of d on s and no branch (a branch would add a control dependency) nor compare (cr0 may be
        live): t = (0 - s) | s has its sign bit set exactly when s != 0; and with m = 0x80000000
        and divided by m it is 1 or 0.  herd7's PPC values are words (a shift by rlwinm there
        loses bit 31, hence the division); test-translate runs it through herd7."""
        if i.mnem == "kv.cr0bit":
            # herd7's cr0 is the field's nibble (LT 8, GT 4, EQ 2) in mfcr's low bits: the bit, and
            # divided by it, 0 or 1; cr0 read where the mfocrf read it
            d, n = i.ops
            t, m = spare(), spare()
            return ["mfcr %s" % t, "li %s,%d" % (m, 1 << (4 - int(n))), "and %s,%s,%s" % (t, t, m),
                    "divw %s,%s,%s" % (d, t, m)]
        if i.mnem != "kv.iszero":
            return None
        d, s = i.ops
        t, m = spare(), spare()
        return ["li %s,0" % t, "sub %s,%s,%s" % (t, t, s), "or %s,%s,%s" % (t, t, s), "lis %s,-32768" % m,
                "and %s,%s,%s" % (t, t, m), "divw %s,%s,%s" % (t, t, m), "xori %s,%s,1" % (d, t)]

    def render(self, i, label, widen=False):
        m, ops = i.mnem.rstrip("+-"), list(i.ops)
        if widen and self.widen(m):
            m = self.widen(m)
        br = self.branch(i)
        if br:
            ops = [o for o in ops[:-1] if o != "cr0"] + [label(br[0])]
        if m in ("nop",) or (m == "ori" and ops == ["r2", "r2", "0"]):
            return []
        if m in ("srwi", "slwi") and len(ops) == 3:   # herd7 knows only rlwinm, which these are
            n = int(ops[2], 0)
            ops = [ops[0], ops[1]] + (["%d" % (32 - n), "%d" % n, "31"] if m == "srwi" else
                                      ["%d" % n, "0", "%d" % (31 - n)])
            m = "rlwinm"
        if m in ("cmpd", "cmpdi"):
            m = "cmpw" + m[4:]          # herd7 has no cmpd: its cmpw/cmpwi compare the whole register (PPCSem masks
                                        # nothing), which is the doubleword compare; the acquire's ctrl idiom among them
        if m in ("lwarx", "ldarx", "lharx", "lbarx", "stwcx.", "stdcx.", "sthcx.", "stbcx.", "lwzx", "stwx") and ops[1] == "0":
            ops[1] = "r0"               # RA=0 is the number 0: herd reads r0 there as 0 (read_reg_or_zero)
        if len(ops) == 4 and m in ("lwarx", "ldarx") and ops[3] in ("0", "1"):
            ops = ops[:3]               # the EH hint
        if m in ("ldarx", "stdcx."):    # herd7 has only the word forms; without -variant mixed a location
            m = {"ldarx": "lwarx", "stdcx.": "stwcx."}[m]   # is one value whatever the width (as ld/std)
        text = m + (" " + ",".join(ops) if ops else "")
        text = re.sub(r"(^|[ ,(-])0x([0-9a-f]+)", _dec, text)
        return [text]

    def swap_lock_sites(self, lines, fail, spare=None, plain=False, live_out=()):
        # lwarx r,ra,rb; cmpwi r,0; bne ..; stwcx. v,ra,rb; bne FAIL -> lwz; cmpwi; bne; stw: at the
        # store cr0 is the compare's EQ, as a successful stwcx. leaves it (herd7's PPC has no swap)
        def site(k):
            m = re.match(r"^lwarx (r\d+),(r\d+),(r\d+)$", lines[k])
            st = re.match(r"^stwcx\. (r\d+),(r\d+),(r\d+)$", lines[k + 3]) if m and k + 4 < len(lines) else None
            if not (st and st.group(2, 3) == m.group(2, 3) and lines[k + 1] == "cmpwi %s,0" % m.group(1)
                    and lines[k + 2].startswith("bne ") and lines[k + 4] == "bne " + fail):
                return None
            ra, rb = m.group(2, 3)
            load = "lwz %s,0(%s)" % (m.group(1), rb) if ra == "r0" else "lwzx %s,%s,%s" % (m.group(1), ra, rb)
            store = "stw %s,0(%s)" % (st.group(1), rb) if ra == "r0" else "stwx %s,%s,%s" % (st.group(1), ra, rb)
            return [load, lines[k + 1], lines[k + 2], store], 5
        if not plain:
            return lines, ""
        out, n = self._rewrite_sites(lines, site)
        return out, "plain load and store" if n else ""

    def mov_imm(self, reg, v):
        return "li %s,%d" % (reg, v)

    HERD_REG = re.compile(r"\b(r\d+)\b")
    # r0 (a base of 0 in an address), r1 (stack), r2 (TOC) and r13 (thread) keep their names
    RENAME_POOL = tuple(range(3, 13)) + tuple(range(14, 32))

    def family(self, name):
        m = re.fullmatch(r"r(\d+)", name)
        return (int(m.group(1)), "r") if m and int(m.group(1)) in self.RENAME_POOL else None

    def spell(self, family, part):
        return "r%d" % family

    def parts(self, family):
        return ("r",)

    def renames(self, line):
        # register ranges and pairs: registers used without being named
        return not re.match(r"^(lmw|stmw|lswi|lswx|stswi|stswx|lq|stq|lqarx|stqcx\.)(\s|$)", line)
    _MOVE_LINE = re.compile(r"^(?:mr (r\d+),(r\d+)|li (r\d+),(-?\d+))$")

    def move(self, ln):
        m = self._MOVE_LINE.match(ln)
        return (m.group(1), m.group(2)) if m and m.group(1) else (m.group(3), "") if m else None

    def entry_value(self, ln):
        m = self._MOVE_LINE.match(ln)
        if not m or (m.group(1) or m.group(3)) == "r0":
            return None
        return (m.group(1), ("reg", m.group(2))) if m.group(1) else (m.group(3), ("imm", int(m.group(4))))


# ---------------------------------------------------------------- x86-64
class X86_64(Isa):
    name = "x86_64"
    herd_arch = "X86_64"
    arg_regs = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
    spare = ("r15", "r14", "r13", "r12", "rbx", "rbp", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi", "rdi")
    _JCC = ("je", "jne", "jle", "jl", "jg", "jge", "js", "jns", "jz", "jnz")
    jump, cond_branch, ret_text = "jmp", re.compile("|".join(_JCC)), "ret"
    # herd7's X86_64 flags are not the machine's: an op sets ZF = (result = 0) and SF = (result > 0),
    # a cmp ZF = (a = b) and SF = (a > b); its jgt reads SF, jge ZF|SF, jle !SF, but its jlt reads
    # ZF|!SF (a <= b), its js SF and its jns !SF.  Each x86 condition as (herd7's jcc, negated):
    # jl and js (a < b, result < 0) are "not jge", jns (result >= 0) is jge.
    _JREN = {"je": ("je", False), "jz": ("je", False), "jne": ("jne", False), "jnz": ("jne", False),
             "jg": ("jgt", False), "jge": ("jge", False), "jle": ("jle", False), "jl": ("jge", True),
             "js": ("jge", True), "jns": ("jge", False)}

    def reg_key(self, reg):
        return reg

    _R32 = {"al": "eax", "ax": "eax", "bl": "ebx", "bx": "ebx", "cl": "ecx", "cx": "ecx", "dl": "edx", "dx": "edx",
            "sil": "esi", "si": "esi", "dil": "edi", "di": "edi", "bpl": "ebp", "bp": "ebp"}
    _R32.update({"r%d%s" % (n, s): "r%dd" % n for n in range(8, 16) for s in ("b", "w")})
    _SUB = re.compile(r"^(lock )?(mov|add|xor|or|and|cmp|inc|dec|xchg|cmpxchg)[bw]$")

    def widen(self, mnem):
        if mnem in ("movzwl", "movzbl"):
            return "movl"
        m = self._SUB.match(mnem)
        return (m.group(1) or "") + m.group(2) + "l" if m else None

    def _widen_ops(self, ops):
        return [re.sub(r"%([a-z0-9]+)\b", lambda mm: "%" + self._R32.get(mm.group(1), mm.group(1)), o) for o in ops]

    def is_ret(self, i):
        return i.mnem in ("ret", "retq")

    def is_call(self, i):
        return i.mnem in ("call", "callq")

    def writes(self, i):
        m = i.mnem
        if m.startswith("lock "):
            return "rmw"
        if m.startswith("xchg"):
            return "rmw"
        if i.ops and i.ops[-1].startswith(("(", "-", "0x")) and "(" in i.ops[-1] and not m.startswith("cmp"):
            return "plain"
        return None

    def stack(self, i, slots):
        m, ops = i.mnem, i.ops
        text = ",".join(ops)
        if m.startswith(("push", "pop")):
            slot = slots.get(("push", ops[0]))
            if m.startswith("push"):
                return ["movq %s,%s" % (ops[0], "%" + slot)]
            return ["movq %s,%s" % ("%" + slot, ops[0])]
        if "%rsp" not in text:
            return None
        if m in ("sub", "add") and ops[-1] == "%rsp":
            return []
        if m.startswith("lock ") and re.search(r"\(%rsp\)", text):
            return ["mfence"]           # a locked RMW of the thread's own stack: a full barrier and nothing else
        mem = None
        for k, o in enumerate(ops):
            mm = re.match(r"^(-?0x[0-9a-f]+|-?\d+)?\(%rsp\)$", o)
            if mm:
                mem = (k, int(mm.group(1) or "0", 0))
        if mem is None or not m.startswith("mov"):
            raise NotTaken("a stack access herd7 cannot follow: %s" % i.text)
        k, off = mem
        slot = slots.get(off)
        other = ops[1 - k]
        width = {"l": "d", "b": "b", "w": "w"}
        suffix = ""
        if other.startswith("%e") or re.match(r"%r\d+d$", other):
            suffix = "d"
        sreg = "%" + self._sized(slot, suffix)
        if k == 1:
            return ["mov %s,%s" % (other, sreg)]
        return ["mov %s,%s" % (sreg, other)]

    @staticmethod
    def _r32(reg):
        """%-name of a 64-bit register's low 32 bits."""
        return "%" + (reg + "d" if re.match(r"^r\d+$", reg) else "e" + reg[1:])

    @staticmethod
    def _sized(reg, suffix):
        if not suffix:
            return reg
        legacy = {"rbx": "ebx", "rbp": "ebp"}
        return legacy.get(reg, reg + suffix)

    # the 64-bit register of an 8- or 32-bit name
    _R64 = {"al": "rax", "bl": "rbx", "cl": "rcx", "dl": "rdx", "sil": "rsi", "dil": "rdi", "bpl": "rbp",
            "eax": "rax", "ebx": "rbx", "ecx": "rcx", "edx": "rdx", "esi": "rsi", "edi": "rdi", "ebp": "rbp"}
    _R64.update({"r%d%s" % (n, s): "r%d" % n for n in range(8, 16) for s in ("b", "w", "d", "")})
    _R64.update({r: r for r in ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp")})
    _SETCC = re.compile(r"^set(n?[eglsz]|[gl]e)$")

    def _family(self, op):
        return self._R64.get(op[1:]) if op.startswith("%") else None

    _CALLEE_SAVED = ("%rbx", "%rbp", "%r12", "%r13", "%r14", "%r15")

    def _drop_callee_saves(self, insns):
        """A thread has no caller: the epilogue's `pop` of a callee-saved register, followed by
        nothing but other pops and `ret`, restores a value nothing reads; and a `push` of a register
        whose every pop is such a restore saves it for nobody.  Both become no-ops (their addresses
        stay, a branch may target them), so they take no spare register for their stack slot: a
        thread with five such saves ran out of them (the kernel layer with clang-19)."""
        def restore(k):
            for j in insns[k + 1:]:
                if self.is_ret(j):
                    return True
                if not j.mnem.startswith("pop"):
                    return False
            return False
        pops = {}
        for k, i in enumerate(insns):
            if i.mnem.startswith("pop") and len(i.ops) == 1 and i.ops[0] in self._CALLEE_SAVED:
                pops.setdefault(i.ops[0], []).append(restore(k))
        dead = {r for r, rs in pops.items() if all(rs)}
        for i in insns:
            if i.mnem.startswith(("push", "pop")) and len(i.ops) == 1 and i.ops[0] in dead:
                i.mnem, i.ops = "nop", []

    def prepare(self, insns, args=(), live_out=()):
        """herd7's X86_64 has no setCC and no 8-bit registers: `setCC %Xb` becomes a branch writing
        0 or 1 to all of X, which is what the code computes when X's other bits are zero: the
        setCC is followed by `movzbl %Xb,...` (rewritten as a 64-bit move), or X's last write
        before it is `xor X,X`.  Anything else is not taken."""
        self._drop_callee_saves(insns)
        for k, i in enumerate(insns):
            m = self._SETCC.match(i.mnem)
            if not m:
                continue
            fam = self._family(i.ops[0]) if len(i.ops) == 1 else None
            if fam is None:
                raise NotTaken("a setCC herd7 cannot follow: %s" % i.text)
            nxt = insns[k + 1] if k + 1 < len(insns) else None
            zext = nxt is not None and nxt.mnem == "movzbl" and len(nxt.ops) == 2 and nxt.ops[0] == i.ops[0] \
                and self._family(nxt.ops[1]) is not None
            zeroed = False
            for j in reversed(insns[:k]):
                if j.ops and self._family(j.ops[-1]) == fam and not j.mnem.startswith(("cmp", "test")):
                    zeroed = j.mnem in ("xor", "xorl", "xorq") and len(j.ops) == 2 and j.ops[0] == j.ops[1]
                    break
            if not (zext or zeroed):
                raise NotTaken("a setCC whose register's other bits are not known to be zero: %s" % i.text)
            i.mnem, i.ops = "setcc-full", ["j" + m.group(1), fam]
            if zext:
                nxt.mnem, nxt.ops = "movq", ["%" + fam, "%" + self._family(nxt.ops[1])]
        return insns

    _FLAGS_READ = re.compile(r"^(j(?!mp)|set|cmov|adc|sbb)")
    _FLAGS_WRITE = re.compile(r"^(lock )?(cmp|test|add|sub|and|or|xor|inc|dec|neg|xadd|cmpxchg)")

    def expand(self, i, insns, spare, fail, notes):
        """`lock xadd %r,M` (herd7 has no xadd): r's value added to M, M's old value to r, atomically.
        As a cmpxchg retry: rax (saved) = M; S = rax + r; lock cmpxchg S into M; a failure (M
        changed since the load) jumps to the failure exit; r = rax.  The pass that succeeds is
        the xadd: its cmpxchg reads the value the load read and writes that plus r, atomically;
        a failing pass writes nothing.  The extra plain load before a locked RMW of the same
        location removes no execution (it may read what the RMW reads: TSO orders it before the
        RMW anyway) and adds none (an execution without it is one of the xadd).  The flags the
        xadd sets are not the cmpxchg's: a flag read after it, before a flag write, is refused."""
        if i.mnem in ("movslq", "lea", "leal", "leaq"):
            return self._sext_or_lea(i, insns)
        mm = re.match(r"^lock xadd([lq]?)$", i.mnem)
        if not mm:
            return None
        reg, mem = i.ops
        fam = self._family(reg)
        q = re.match(r"^%r([a-z]{2}|\d+)$", reg)
        if fam is None or not (q or re.match(r"^%(e[a-z]{2}|r\d+d)$", reg)):
            raise NotTaken("a sub-word xadd herd7 cannot follow: %s" % i.text)
        if re.search(r"%(rax|eax)\b", mem):
            raise NotTaken("an xadd through rax (its cmpxchg form needs rax): %s" % i.text)
        j = self._flags_read_after(i, insns)
        if j is not None:
            raise NotTaken("the flags of an xadd read (herd7's cmpxchg form sets other flags): %s" % j.text)
        w = "q" if q else "l"
        sized = (lambda r: "%" + r) if q else self._r32
        acc, add = sized("rax"), sized(spare())
        out = ["mov%s %s,%s" % (w, reg, add)]
        if fam != "rax":
            save = spare()
            out.append("movq %%rax,%%%s" % save)
        out += ["mov%s %s,%s" % (w, mem, acc), "add%s %s,%s" % (w, acc, add),
                "lock; cmpxchg%s %s,%s" % (w, mem, add), "jne %s" % fail]
        if fam != "rax":
            out += ["mov%s %s,%s" % (w, acc, reg), "movq %%%s,%%rax" % save]
        notes.add("lock xadd as a lock cmpxchg retry from a load of its location (herd7 has no xadd)")
        return [re.sub(r"(^|[ ,])(-?)0x([0-9a-f]+)\(", lambda x: x.group(1) + x.group(2) + str(int(x.group(3), 16)) + "(", ln)
                for ln in out]

    def _flags_read_after(self, i, insns):
        """The first instruction after i that reads the flags before any writes them, or None;
        through an unconditional jump to its target (a conditional one reads them)."""
        at = {j.addr: k for k, j in enumerate(insns)}
        k, seen = insns.index(i) + 1, set()
        while k < len(insns) and k not in seen:
            seen.add(k)
            j = insns[k]
            if self._FLAGS_READ.match(j.mnem):
                return j
            if self._FLAGS_WRITE.match(j.mnem) or self.is_ret(j):
                return None
            if j.mnem == self.jump:
                try:
                    br = self.branch(j)
                except ValueError:      # an indirect jump
                    br = None
                t = at.get(br[0]) if br else None
                if t is None:
                    return j            # out of the function: assume read
                k = t
                continue
            k += 1
        return None

    def _sext_or_lea(self, i, insns):
        """Two register computations herd7's X86_64 lacks, from ones it has, with the same data
        dependency and no branch:
        - `movslq %s32,%d64` is `movl %s32,%d32`: herd7 holds a 32-bit result as a signed word
          (a `movl` of 0xffffffff reads back -1), which is the sign extension;
        - `lea k(%b),%d` (no index) is `mov %b,%d; add $k,%d`, the width of %d (a 32-bit `lea`
          keeps the low word).  The add sets flags the lea does not: a flag read after it, before
          a flag write, is refused, as is an index or a symbol (herd7 cannot add to an address)."""
        ops = i.ops
        if i.mnem == "movslq":
            if len(ops) == 2 and self._family(ops[0]) and self._family(ops[1]) and \
                    re.match(r"^%(e[a-z]{2}|r\d+d)$", ops[0]):
                return ["movl %s,%s" % (ops[0], self._r32(self._family(ops[1])))]
            return None                 # a sign-extending load: left to herd7, which refuses it
        mm = re.match(r"^(-?(?:0x)?[0-9a-f]*)\((%[a-z0-9]+)\)$", ops[0]) if len(ops) == 2 else None
        if not mm or not self._family(mm.group(2)) or not self._family(ops[1]) or i.symbol:
            return None
        j = self._flags_read_after(i, insns)
        if j is not None:
            raise NotTaken("the flags read after a lea (herd7's add form sets them): %s" % j.text)
        k = int(mm.group(1) or "0", 0)
        q = re.match(r"^%r([a-z]{2}|\d+)$", ops[1])
        w, src = ("q", "%" + self._family(mm.group(2))) if q else ("l", self._r32(self._family(mm.group(2))))
        out = [] if src == ops[1] else ["mov%s %s,%s" % (w, src, ops[1])]
        return out + (["add%s $%d,%s" % (w, k, ops[1])] if k else [])

    def render(self, i, label, widen=False):
        m, ops = i.mnem, list(i.ops)
        if m == "setcc-full":
            (jcc, neg), reg, base = self._JREN[ops[0]], ops[1], label(i.addr)
            yes, no = ("$0", "$1") if neg else ("$1", "$0")
            return ["%s %ss" % (jcc, base), "movq %s,%%%s" % (no, reg), "jmp %sd" % base,
                    "%ss:" % base, "movq %s,%%%s" % (yes, reg), "%sd:" % base]
        br = self.branch(i)
        if br:
            ops[-1] = label(br[0])
            if m != self.jump:
                m, neg = self._JREN[m]
                if neg:                 # "not jge": over a jump to the target
                    skip = "%s_n%x" % (label(br[0]), i.addr)
                    return ["%s %s" % (m, skip), "jmp %s" % ops[-1], "%s:" % skip]
        if m in ("nop", "nopl", "nopw", "endbr64", "cs nopw", "data16 cs", "xchg %ax,%ax") or m.startswith(("nop", "data16", "cs ")):
            return []
        if widen and (self.widen(m) or any(re.search(r"%(" + "|".join(self._R32) + r")\b", o) for o in ops)):
            m = self.widen(m) or m
            ops = self._widen_ops(ops)
        sub = re.match(r"^(lock )?sub([lq]?)$", m)
        if sub and ops[0].startswith("$"):
            # herd7 has no sub: the same result (and, in herd7's flags, the same flags) as add of -imm
            bits = 32 if sub.group(2) == "l" or re.match(r"%e|%r\d+d$", ops[-1]) else 64
            v = int(ops[0][1:], 0)
            v = v - (1 << bits) if v >= 1 << (bits - 1) else v
            m, ops = (sub.group(1) or "") + "add" + sub.group(2), ["$%d" % -v] + ops[1:]
        if widen and m in ("movzwl", "movzbl") and "(" in ops[0]:
            m = "movl"                  # a zero-extending load of the sub-word: its widened word
        if m.endswith("cmpxchg") or m.endswith("cmpxchgl") or m.endswith("cmpxchgq"):
            ops = ops[::-1]             # herd7 writes cmpxchg mem,reg
        if m == "test" and len(ops) == 2 and ops[0] == ops[1]:
            m, ops = "cmp", ["$0", ops[1]]   # test r,r sets ZF and SF as cmp $0,r does
        text = m + (" " + ",".join(ops) if ops else "")
        if m.startswith("lock "):
            text = "lock; " + text[5:]
        text = re.sub(r"(\$-?)0x([0-9a-f]+)", _dec, text)
        text = re.sub(r"(^|[ ,])(-?)0x([0-9a-f]+)\(", lambda mm: mm.group(1) + mm.group(2) + str(int(mm.group(3), 16)) + "(", text)
        return [text]

    _XMOVE = re.compile(r"^movq? %\w+,%\w+$")
    _CMPXCHG = re.compile(r"^lock; cmpxchg (\([^()]*\)),(%\w+)$")

    def _eax_zero_before(self, lines, k):
        """Whether straight-line code before line k last set %eax to 0."""
        for ln in reversed(lines[:k]):
            if ln.endswith(":") or ln.startswith("j") or "cmpxchg" in ln:
                return False
            if ln in ("xor %eax,%eax", "mov $0,%eax", "movl $0,%eax"):
                return True
            if re.search(r",%[re]?ax\b", ln) or ln.startswith(("xchg", "xadd")):
                return False
        return False

    def swap_lock_sites(self, lines, fail, spare=None, plain=False, live_out=()):
        # lock cmpxchg with %eax = 0, then jne -> FAIL: the kept executions read 0 and wrote the new
        # value, and the compare of two equal values sets the flags the cmpxchg set
        reg = []                                       # one spare for every site: dead after its cmp
        live = lean.liveness(self, lines, fail, live_out)[0]

        def site(k):
            m = self._CMPXCHG.match(lines[k])
            nxt = lines[k + 1] if k + 1 < len(lines) else ""
            # any width (gcc's 16-bit fast path is `cmpxchg %dx`): the compare is %rax's part of it
            part = self._part(m.group(2)[1:]) if m else None
            if not (part is not None and nxt.startswith("jne ")
                    and self._leads_to(lines, nxt[4:], fail, self._XMOVE) and self._eax_zero_before(lines, k)):
                return None
            expected = "%" + self._NAMES["rax"][part]
            if lean.dead_at(self, live, k + 2, m.group(2)[1:]):
                # the new value's register is set again before anything reads it (gcc's second
                # `mov $1,%edx`): the xchg may leave the old value there, no copy, no spare register
                return ["xchg %s,%s" % (m.group(1), m.group(2)), "cmp %s,%s" % (expected, m.group(2))], 1
            if not reg:
                if spare is None:
                    return None
                try:
                    reg.append(spare())
                except NotTaken:
                    return None
            copy = "%" + self._NAMES[reg[0]][part]
            return ["mov %s,%s" % (m.group(2), copy), "xchg %s,%s" % (m.group(1), copy),
                    "cmp %s,%s" % (expected, copy)], 1
        out, n = self._rewrite_sites(lines, site)
        return out, "swap" if n else ""

    def _part(self, name):
        """0, 1, 2, 3: a general register's 64, 32, 16 or low 8 bits; None for a high byte or another name."""
        f = self._PARTS.get(name)
        return self._NAMES[f].index(name) if f and self._NAMES[f].index(name) < 4 else None

    def mov_imm(self, reg, v):
        return "movq $%d,%%%s" % (v, reg)

    HERD_REG = re.compile(r"%(\w+)")
    _MOVE_LINE = re.compile(r"^mov[lq]? (%\w+|\$-?\w+),%(e[a-z]{2}|r[a-z]{2}|r\d+d?)$")
    # every name of every general register's parts (lean's liveness; _R64 is what herd7 takes)
    # (each family's names: 64, 32, 16 and low 8 bits, then the high byte where there is one)
    _NAMES = {"r" + b: ["r" + b, "e" + b, b, b[0] + "l", b[0] + "h"] for b in ("ax", "bx", "cx", "dx")}
    _NAMES.update({"r" + b: ["r" + b, "e" + b, b, b + "l"] for b in ("si", "di", "bp", "sp")})
    _NAMES.update({"r%d" % n: ["r%d%s" % (n, s) for s in ("", "d", "w", "b")] for n in range(8, 16)})
    _PARTS = {p: f for f, names in _NAMES.items() for p in names}
    # mnemonics (without their size letter) that read no register but those they name; any other
    # may read one it does not name (cmpxchg %rax, mul %rdx, push %rsp, rep ...): it reads them all
    _EXPLICIT = re.compile(r"^(lock; )?(mov|movz[bw][lq]?|movs[bw][lq]?|movabs|add|sub|and|or|xor|cmp|test|lea|xchg|"
                           r"inc|dec|neg|not|sh[lr]|sa[lr]|set[a-z]+|j[a-z]+|ret|[lsm]fence|nop)[bwlq]?$")

    def reg_of(self, name):
        return self._PARTS.get(name, "*")

    # %rax (cmpxchg, mul), %rcx (shifts by %cl, rep), %rdx (mul, div) and %rsp keep their names; a
    # thread with a mnemonic outside _EXPLICIT (which may use one unnamed) is not renamed at all
    RENAME_POOL = ("rbx", "rsi", "rdi", "rbp") + tuple("r%d" % n for n in range(8, 16))

    def family(self, name):
        f = self._PARTS.get(name)
        if f not in self.RENAME_POOL or name not in self._NAMES[f]:
            return None
        return f, self._NAMES[f].index(name)

    def spell(self, family, part):
        return self._NAMES[family][part]

    def parts(self, family):
        return range(4)         # a high byte (%bh) has no name in the other families: never renamed

    def renames(self, line):
        # what reads() does not list may use a register unnamed; cmpxchg's %rax is never renamed
        return "*" not in self.reads(line) and not re.search(r"%[a-d]h\b", line)

    def reads(self, text):
        got = self.regs(text)
        mnem = text.split(" ")[0] if not text.startswith("lock; ") else text[:6] + text[6:].split(" ")[0]
        if text.endswith(":") or self._EXPLICIT.match(mnem):
            return got
        if mnem.endswith("cmpxchg") or mnem.endswith("cmpxchgl") or mnem.endswith("cmpxchgq"):
            return got | {"rax"}
        return got | {"*"}

    _LOAD_LINE = re.compile(r"^mov[lq]? ([^,%]*\((%\w+)(?:,%\w+)*\)),%(e[a-z]{2}|r[a-z]{2}|r\d+d?)$")

    def def_use(self, line):
        m = self._LOAD_LINE.match(line)        # a load into a 32- or 64-bit register sets all of it
        if m:
            return {self.reg_of(m.group(3))}, self.regs(m.group(1))
        return super().def_use(line)

    def flow(self, ln):
        # herd7's conditional jumps are not objdump's (jgt, and the negated forms render makes)
        mnem, _, ops = ln.partition(" ")
        if mnem == "ret":
            return "ret", None
        if mnem == "jmp":
            return "jump", ops
        if mnem.startswith("j"):
            return "cond", ops
        return None, None

    def move(self, ln):
        m = self._MOVE_LINE.match(ln)
        return (self.reg_of(m.group(2)), m.group(1)) if m else None

    _ENTRY = re.compile(r"^mov([lq]?) (%\w+|\$-?\d+),%(\w+)$")

    def entry_value(self, ln):
        # a 32-bit destination is zero-extended: a copy of a 32-bit register or a negative immediate
        # into one is not its value; a 64-bit copy or constant is
        m = self._ENTRY.match(ln)
        part, dest = (self._part(m.group(3)), self.reg_of(m.group(3))) if m else (None, None)
        if part not in (0, 1) or dest in ("rsp", "*"):
            return None
        src = m.group(2)
        if src.startswith("$"):
            return (dest, ("imm", int(src[1:]))) if part == 0 or int(src[1:]) >= 0 else None
        return (dest, ("reg", src[1:])) if part == 0 and self._part(src[1:]) == 0 else None


ISAS = {"aarch64": AArch64(), "riscv64": RiscV(), "ppc64le": Power(), "x86_64": X86_64()}
