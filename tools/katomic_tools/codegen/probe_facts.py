"""Summarise one probe's instructions: what the verdict compares.

ProbeFacts holds, after the trailing return is dropped:
  n          instructions
  atomics    atomic instructions and calls to atomic helpers
  full_fences / light_fences   fences ordering everything / only some pairs
  loops      backward branches;  calls: every call;  libcalls: the atomic helpers called
  pre        ordering before the first atomic access: "none", "rel", "full"
  post       ordering after the last atomic access:   "none", "acq", "full"
  fence_ability  what the fences present can order (letters F A R L S, or "-")
  heavy      x86: mfence/lfence/sfence used (the kernel's smp_mb is a locked op)
  seq        the instructions joined with "; "
"""
from dataclasses import dataclass

from . import isa
from .objdump import is_atomic_helper

LEVEL_NAMES_PRE = ("none", "rel", "full")
LEVEL_NAMES_POST = ("none", "acq", "full")


@dataclass
class ProbeFacts:
    name: str
    n: int
    atomics: int
    full_fences: int
    light_fences: int
    loops: int
    calls: int
    libcalls: str
    pre: str
    post: str
    fence_ability: str
    heavy: int
    seq: str

    def tsv(self):
        """The line disasm.awk used to print (kept for comparing the two)."""
        return "\t".join(str(x) for x in (
            self.name, self.n, self.atomics, self.full_fences, self.light_fences, self.loops, self.calls,
            self.libcalls, self.pre, self.post, self.fence_ability, self.heavy, self.seq))


def summarise(func, arch):
    """ProbeFacts of one objdump.Function."""
    ins = list(func.instructions)
    if ins and isa.is_return(arch, ins[-1].text):
        ins.pop()
    fences = [isa.fence_kind(arch, i.mnemonic, i.operands) for i in ins]
    flags = []
    for i, f in zip(ins, fences):
        a = "" if f else isa.atomic_flags(arch, i.mnemonic, i.operands)
        a = a or i.call_flags
        flags.append(a)
    atomic_at = [k for k, a in enumerate(flags) if a]
    helpers = [i.call for i in ins if i.call and is_atomic_helper(i.call)]
    ability = "".join(isa.FENCE_ABILITY.get(f, "") for f in fences if f)
    pre, post = _ordering(arch, ins, fences, flags, atomic_at)
    return ProbeFacts(
        name=func.name, n=len(ins), atomics=len(atomic_at),
        full_fences=sum(1 for f in fences if f == "FULL"),
        light_fences=sum(1 for f in fences if f and f != "FULL"),
        loops=sum(1 for i in ins if i.backward), calls=sum(1 for i in ins if i.call),
        libcalls=",".join(helpers) or "-",
        pre=LEVEL_NAMES_PRE[pre], post=LEVEL_NAMES_POST[post],
        fence_ability="".join(dict.fromkeys(ability)) or "-",
        heavy=int(any(i.text.startswith(("mfence", "lfence", "sfence")) for i in ins)),
        seq="; ".join(i.text for i in ins) or "-")


def _ordering(arch, ins, fences, flags, atomic_at):
    """(pre, post) levels, 0 none, 1 one-way, 2 full, around the atomic accesses."""
    rel = lambda k: isa.RELEASE_LEVEL.get(fences[k], 0)
    acq = lambda k: isa.ACQUIRE_LEVEL.get(fences[k], 0)
    pre = post = 0
    if atomic_at:
        first, last = atomic_at[0], atomic_at[-1]
        # "Before the atomic access" means before the load-exclusive that starts
        # the first store-exclusive's loop: an earlier ldrexd may be a plain
        # 64-bit read.
        i = next((k for k in range(first, last + 1) if flags[k] and "l" not in flags[k]), last + 1)
        if i <= last and "s" in flags[i]:
            first = next((j for j in range(i, first, -1) if "l" in flags[j]), first)
        pre = max([pre] + [rel(k) for k in range(first)])
        # LL/SC: a successful store-exclusive makes the pair one atomic access,
        # so judge by the success path: a fence before the first
        # store-exclusive (even after its load-exclusive) orders what comes
        # before the whole RMW, and one after it, what comes after.
        sx = next((k for k in range(first, last + 1) if "s" in flags[k]), None)
        if sx is not None:
            pre = max([pre] + [rel(k) for k in range(first, sx)])
            post = max([post] + [acq(k) for k in range(sx + 1, last + 1)])
        for k in range(first, last + 1):
            f = flags[k]
            if "F" in f:
                pre, post = max(pre, 2), max(post, 2)
            if "R" in f:
                pre = max(pre, 1)
            if "A" in f:
                post = max(post, 1)
            if "P" in f:    # riscv AMO.aq: the one access is ordered before everything later
                post = max(post, 2)
        post = max([post] + [acq(k) for k in range(last + 1, len(ins))])
    else:
        pre = max([0] + [rel(k) for k in range(len(ins))])
        post = max([0] + [acq(k) for k in range(len(ins))])
    for i in ins:       # ldar / stlr: acquire load, release store
        if isa.is_acquire_load(arch, i.mnemonic):
            post = max(post, 1)
        if isa.is_release_store(arch, i.mnemonic):
            pre = max(pre, 1)
    return pre, post
