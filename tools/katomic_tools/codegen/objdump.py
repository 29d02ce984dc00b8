"""Parse `objdump -dr` of the probe object into normalised instructions per probe.

Normalisation makes two compilers' code comparable: addresses and padding
(nops, alignment, endbr64) are dropped, a branch inside the function reads
`<+0xOFF>` (offset from the function's start), a call names its target in
brackets (`call <foo> [foo]`, from the relocation), objdump's comments go,
and with canon=True registers are renamed in order of appearance (R1, R2, ...).
"""
import re
from dataclasses import dataclass

from . import isa

_FUNC = re.compile(r"^([0-9a-f]+) <([^>]+)>:$")
_RELOC = re.compile(r"^[ \t]*[0-9a-f]+: R_")
_INSN = re.compile(r"^[ \t]*[0-9a-f]+:\t")
_CALLISH = re.compile(r"^(call|callq|jmp|bl|b|brasl|jg|jgnop|blx|auipc|j|jal|tail)( |$)")
_PREFIX = re.compile(r"^(lock|rep|repz|repnz|notrack|bnd) ")
_TARGET = re.compile(r"[0-9a-f]+ <[^>]+>")
_REGISTER = re.compile(r"%[a-z0-9]+|\b([xwr][0-9]+|[astr][0-9]+|ip|lr)\b")
_HELPER = re.compile(r"^(__atomic_|__sync_|__aarch64_)")


@dataclass
class Instruction:
    text: str           # normalised: "mnemonic operands" (+ " [symbol]" for a call)
    mnemonic: str       # with a lock/rep prefix: "lock cmpxchg"
    operands: str       # as disassembled (before renaming): what isa classifies
    backward: bool      # a branch back inside the function: a loop
    call: str = ""      # the called symbol, from the (last) relocation
    call_flags: str = ""  # isa.helper_flags of the first symbol called (riscv: a
                          # second relocation, R_RISCV_RELAX *ABS*, follows the call's)


@dataclass
class Function:
    name: str
    instructions: list


def _comment_free(arch, text):
    if arch == "aarch64":
        return re.sub(r"[ \t]*//.*$", "", text)
    if arch == "armhf":
        return re.sub(r"[ \t]*@.*$", "", text)
    return re.sub(r"[ \t]+#.*$", "", text)


class _Renamer:
    """canon=True: the same register gets the same name R<n> within one function."""

    def __init__(self):
        self.names = {}

    def __call__(self, ops):
        def one(mo):
            r = mo.group(0)
            if r in ("%rsp", "%rip", "lr"):
                return r
            return self.names.setdefault(r, "R%d" % (len(self.names) + 1))
        return _REGISTER.sub(one, ops)


def parse(text, arch, canon=False, wanted=lambda name: name.startswith("probe_")):
    """Functions whose name `wanted` accepts, in the order of the listing."""
    funcs = []
    cur = None
    base = 0
    rename = None
    for line in text.splitlines():
        mo = _FUNC.match(line)
        if mo:
            name = mo.group(2)
            if wanted(name):
                cur = Function(name, [])
                funcs.append(cur)
                base = int(mo.group(1), 16)
                rename = _Renamer()
            elif not name.startswith("."):
                cur = None      # .L local labels (riscv, s390) stay inside the function
            continue
        if cur is None:
            continue
        if _RELOC.match(line):
            _relocation(cur, line)
            continue
        if _INSN.match(line):
            ins = _instruction(line, arch, cur.name, base, rename if canon else None)
            if ins is not None:
                cur.instructions.append(ins)
    return funcs


def _relocation(func, line):
    """A relocation names the target of the instruction before it (a call)."""
    if not func.instructions:
        return
    ins = func.instructions[-1]
    fields = re.split(r"[ \t]+", re.sub(r"^[ \t]*[0-9a-f]+: ", "", line))
    if len(fields) < 2:
        return
    rtype, sym = fields[0], re.sub(r"[-+]0x[0-9a-f]+$", "", fields[1])
    if not (_CALLISH.search(ins.text) or re.search("(CALL|PLT|JUMP24|JUMP26|REL24)", rtype)):
        return
    if not re.search(r"^(\.|probe_)", sym) or sym == "probe_ext":
        ins.call = sym
        ins.call_flags = ins.call_flags or isa.helper_flags(sym)
        ins.text += " [%s]" % sym


def _instruction(line, arch, fname, base, rename):
    fields = line.split("\t")
    if len(fields) < 3:
        return None     # the continuation of a long instruction's bytes
    addr = int(fields[0].strip().rstrip(":"), 16)
    text = _comment_free(arch, " ".join(fields[2:]))
    text = re.sub(r"[ \t]+", " ", text).strip()
    if not text:
        return None
    # __KA_LOCK_KEEP marks a lock that UP patching must keep with a DS prefix,
    # a no-op in 64-bit mode: the instruction is the locked one.
    text = re.sub(r"^ds lock ", "lock ", text)
    if _PREFIX.search(text):
        w = text.split(" ")
        m = w[0] + " " + w[1]
        ops = text[len(m) + 1:]
    elif " " in text:
        m, ops = text.split(" ", 1)
    else:
        m, ops = text, ""
    if isa.is_padding(arch, m, ops) or text == "(bad)":
        return None
    raw_ops = ops
    backward = False
    mo = _TARGET.search(ops)
    if mo:
        target = mo.group(0)
        taddr = int(target.split(" ")[0], 16)
        local = re.search("<" + re.escape(fname) + r"(\+0x[0-9a-f]+)?>", target) or "<." in target
        if local:
            backward = base <= taddr <= addr
            off = taddr - base
            ops = ops[:mo.start()] + ("<+0x%x>" % off if off >= 0 else "<+-0x%x>" % -off) + ops[mo.end():]
        else:
            ops = re.sub(r"[0-9a-f]+ <", "<", ops, count=1)
    if rename:
        ops = rename(ops)
    return Instruction(m + " " + ops if ops else m, m, raw_ops, backward)


def is_atomic_helper(symbol):
    """__atomic_*, __sync_*, __aarch64_*: an out-of-line atomic (libatomic, outline atomics)."""
    return _HELPER.search(symbol) is not None
