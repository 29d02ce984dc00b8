"""Judge one C11 probe against its reference.

x86-64: the reference is the asm backend built by the same compiler.  Other
targets: the kernel's own sequence for the probe's ordering class
(kernel_seq.KernelTable).  Verdicts, best first:

  better     fewer instructions, fences or loops than the reference
  identical  the same normalised instructions
  same       a different sequence of the same cost
  n/a        no kernel sequence to compare with
  worse      more instructions, fences, locked instructions, loops, or a library call
  WEAKER     the ordering the kernel class needs is missing: a correctness bug
"""
from dataclasses import dataclass

VERDICTS = ("better", "identical", "same", "n/a", "worse", "WEAKER")
# check-codegen's order: a verdict may move up, never down.
RANK = {"better": 3, "identical": 2, "same": 2, "n/a": 2, "worse": 1, "WEAKER": 0}
_LEVEL = {"full": 2, "rel": 1, "acq": 1}


@dataclass
class Verdict:
    verdict: str
    reason: str         # "-" when there is nothing to say
    ref_n: object       # the reference's instruction count, or None (kernel)
    ref_seq: str        # the reference's instructions, or "kernel: <sequence>"


def missing_ordering(need, c):
    """"" if the probe's facts `c` provide what `need` asks, else why not."""
    if need in ("-", ""):
        return ""
    for item in need.split(" "):
        key, _, want = item.partition("=")
        if key == "pre" and _LEVEL.get(c.pre, 0) < _LEVEL.get(want, 0):
            return "needs %s ordering before the atomic access, has %s" % (want, c.pre)
        if key == "post" and _LEVEL.get(c.post, 0) < _LEVEL.get(want, 0):
            return "needs %s ordering after the atomic access, has %s" % (want, c.post)
        if key == "fence":
            for letter in want:
                if letter not in c.fence_ability:
                    return "needs a fence of kind %s, has %s" % (letter, c.fence_ability)
    return ""


def _plural(n, word):
    return "%d %s%s" % (n, word, "s" if n > 1 else "")


def against_asm(c, r, need):
    """x86-64: C11 facts `c` against the asm backend's `r` (same compiler)."""
    w = missing_ordering(need, c)
    if w:
        return Verdict("WEAKER", w, r.n, r.seq)
    worse = []
    if c.libcalls != "-" and r.libcalls == "-":
        worse.append("out-of-line call " + c.libcalls)
    if c.heavy > r.heavy:
        worse.append("mfence/lfence/sfence where the reference has none")
    if c.full_fences > r.full_fences:
        worse.append("extra fence")
    if c.loops > 0 and r.loops == 0 and r.atomics > 0:
        worse.append("cmpxchg loop where the reference has one locked instruction")
    if c.atomics > r.atomics:
        worse.append("extra locked instruction")
    d = c.n - r.n
    if d > 0:
        worse.append(_plural(d, "more instruction"))
    if worse:
        return Verdict("worse", "; ".join(worse), r.n, r.seq)
    if d < 0 or c.full_fences < r.full_fences or c.loops < r.loops:
        return Verdict("better", _plural(-d, "fewer instruction") if d < 0 else "fewer fences or loops", r.n, r.seq)
    return Verdict("identical" if c.seq == r.seq else "same", "-", r.n, r.seq)


def against_kernel(c, k, shape=None):
    """Other targets: C11 facts `c` against the kernel's sequence `k` (a KernelSeq or None);
    shape: the probe's (gen/gen-probes.awk): a store may not be an RMW where the kernel's is not."""
    ks = k.kernel if k else "?"
    ref = "kernel: " + ks
    w = missing_ordering(k.need, c) if k else ""
    if w:
        return Verdict("WEAKER", w, None, ref)
    if ks == "?":
        if c.libcalls != "-":
            return Verdict("worse", "out-of-line call " + c.libcalls, None, ref)
        return Verdict("n/a", "no kernel sequence to compare with", None, ref)
    kF, kf, kL, kA = k.count("F"), k.count("f"), k.count("L"), k.count("A")
    cF, cf = c.full_fences, c.light_fences
    c_loops = 1 if c.atomics > 0 and c.loops > 0 else 0
    worse = []
    if c.libcalls != "-":
        worse.append("out-of-line call " + c.libcalls)
    if cF > kF:
        worse.append("%s extra full fence%s" % (cF - kF, "s" if cF - kF > 1 else ""))
    elif cF + cf > kF + kf:
        worse.append("extra fence")
    if c_loops > kL and kA > 0:
        worse.append("loop where the kernel has one atomic instruction")
    if shape == "store" and c.atomics > 0 and kA == 0 and kL == 0:
        # gcc-12 on RISC-V: a release store as fence + amoswap, where the kernel stores
        worse.append("an atomic RMW where the kernel has a plain access")
    if worse:
        return Verdict("worse", "; ".join(worse), None, ref)
    if cF + cf < kF + kf or cF < kF:
        return Verdict("better", "fewer fences than the kernel", None, ref)
    if c_loops < kL and c.atomics > 0:
        return Verdict("better", "one atomic instruction where the kernel loops", None, ref)
    return Verdict("same", "-", None, ref)
