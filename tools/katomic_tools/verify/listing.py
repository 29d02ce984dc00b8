"""The compiled threads as instructions: objdump -dr's text of one object
(functions P0, P1, ...) read into Insn records, with the symbol each call
names (from its relocation) and each branch's target address."""
import re
from dataclasses import dataclass, field

_FUNC = re.compile(r"^([0-9a-f]+) <(P\d+)>:$")
_LOCAL = re.compile(r"^([0-9a-f]+) <(\.L[^>]*)>:$")     # riscv keeps local labels as symbols
_INSN = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
_PREFIXES = ("lock", "rep", "repz", "repnz", "data16", "notrack", "bnd", "cs")
_RELOC = re.compile(r"^\s*([0-9a-f]+): (R_\S+)\s+(\S+)")


@dataclass
class Insn:
    addr: int
    mnem: str                 # lower case, e.g. "ldaddal", "b.ne", "lock"
    ops: list                 # operand strings, as objdump wrote them
    text: str                 # the whole instruction as objdump wrote it
    symbol: str = None        # a relocation on it: the symbol it names (calls)
    reloc: str = None         # that relocation's type
    notes: list = field(default_factory=list)


def split_operands(s):
    """Split at the commas that are not inside brackets or parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _strip_comment(text):
    # objdump's comments: "// #1" (aarch64), "# 8c4 <P1+0x40>" (x86, riscv), "<sym>" targets
    for mark in ("//", " # ", "\t#"):
        i = text.find(mark)
        if i >= 0:
            text = text[:i]
    return text.strip()


def parse(text, names=None):
    """{function name: [Insn]} for the P<n> functions of objdump -dr output (names: a
    regex for other functions to read as well)."""
    funcs, cur, last, labels = {}, None, None, {}
    other = re.compile(r"^([0-9a-f]+) <(%s)>:$" % names) if names else None
    for line in text.splitlines():
        m = _FUNC.match(line) or (other.match(line) if other else None)
        if m:
            cur = last = funcs.setdefault(m.group(2), [])
            continue
        lm = _LOCAL.match(line)
        if lm:
            cur = last                  # the same function goes on
            labels[lm.group(2)] = int(lm.group(1), 16)
            continue
        if re.match(r"^[0-9a-f]+ <", line):
            cur = last = None           # another function
            continue
        if not line.strip():
            cur = None
            continue
        if cur is None:
            continue
        r = _RELOC.match(line)
        if r and cur and "RELAX" not in r.group(2) and cur[-1].symbol is None:
            cur[-1].reloc = r.group(2)
            cur[-1].symbol = r.group(3).split("+")[0].split("-")[0]
            continue
        m = _INSN.match(line)
        if not m:
            continue
        body = m.group(2).strip()
        if not body or body.startswith(".") or body == "...":
            continue                    # data in the text (ppc's traceback words)
        raw = body
        body = _strip_comment(body.replace("\t", " "))
        target = None
        t = re.search(r"([\s,])([0-9a-f]+) <[^>]*>\s*$", body)
        if t:
            target = t.group(2)
            body = body[: t.start()] + t.group(1) + "0x" + target
        if body.startswith("ds ") and len(body) > 3:
            body = body[3:]             # x86's ds segment prefix: a no-op in 64-bit mode (padding)
        parts = body.split(None, 1)
        mnem = parts[0].lower()
        rest = parts[1] if len(parts) > 1 else ""
        if mnem in _PREFIXES and rest:
            # x86 prefixes: "lock xadd %eax,(%rdi)" -> mnem "lock xadd"
            inner = rest.split(None, 1)
            mnem = mnem + " " + inner[0].lower()
            rest = inner[1] if len(inner) > 1 else ""
        ops = split_operands(rest)
        ins = Insn(int(m.group(1), 16), mnem, ops, raw)
        if mnem == "jalr" and cur and cur[-1].mnem == "auipc" and cur[-1].symbol:
            # riscv's call: auipc (which carries the relocation) and jalr are one call
            ins.symbol = cur[-1].symbol
            cur[-1].mnem, cur[-1].ops = "nop", []
        cur.append(ins)
    # riscv: a branch to a local label is left to the linker (relaxation): its encoded offset is
    # 0 in the object, so objdump shows it branching to itself; the relocation names the target
    for insns in funcs.values():
        for i in insns:
            if i.reloc and re.match(r"R_RISCV_(RVC_)?(BRANCH|JAL|JUMP)$", i.reloc) and i.symbol in labels and i.ops:
                i.ops[-1] = "0x%x" % labels[i.symbol]
    return funcs
