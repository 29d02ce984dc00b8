"""What each instruction is, per architecture: padding, return, fence, atomic.

ARCH is one of x86_64, aarch64, ppc64le, riscv64, s390x, armhf (the
disassembly's architecture; aarch64-lse and aarch64-no-outline are aarch64).

Fence kinds (fence_kind):
  FULL   orders everything (mfence, a locked op on the stack, dmb ish, sync, fence rw,rw)
  LW     ppc lwsync: everything but store->load
  TSO    riscv fence.tso: the same
  ACQ    load->everything (dmb ishld, isync, fence r,rw)
  REL    everything->store (fence rw,w)
  LD     load->load (lfence, fence r,r)     ST  store->store (sfence, dmb ishst, eieio, fence w,w)
  LIGHT  another riscv fence

Atomic flags (atomic_flags): "" for an ordinary instruction, else "X" plus
  l / s  the load- / store-exclusive half of an LL/SC pair
  A R    acquire / release semantics of the instruction itself
  F      fully ordered on its own (x86 lock, s390 cs, aarch64 *al LSE)
  P      riscv AMO.aq: the access is ordered before everything after it
"""
import re

_COND = "(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)"
_LSE = r"(ld(add|clr|eor|set|smax|smin|umax|umin)|st(add|clr|eor|set|smax|smin|umax|umin)|swp|casp?)"


def is_return(arch, text):
    """The function's return (the audit drops one trailing return)."""
    if arch == "x86_64":
        return re.search(r"^(rep )?retq?$", text) is not None
    if arch == "ppc64le":
        return text == "blr"
    if arch == "s390x":
        return text == "br %r14"
    if arch == "armhf":
        return text == "bx lr"
    return text == "ret"


def is_padding(arch, m, ops):
    """nops, alignment and other instructions that do nothing (dropped)."""
    if re.search(r"^(nop|nopw|nopl|c\.nop|nopr|\.\.\.)$", m) or m.startswith("."):
        return True
    if arch == "x86_64" and (m in ("int3", "endbr64", "data16", "cs", "ds") or (m == "xchg" and ops == "%ax,%ax")):
        return True
    if arch == "ppc64le" and m == "ori" and ops == "r2,r2,0":
        return True
    if arch == "s390x" and m == "bcr" and ops.startswith("0,"):
        return True
    return False


def fence_kind(arch, m, ops):
    """The kind of fence an instruction is (see the module doc), "" if none."""
    if arch == "x86_64":
        if m == "mfence":
            return "FULL"
        if m == "lfence":
            return "LD"
        if m == "sfence":
            return "ST"
        # the kernel's smp_mb: lock or/add $0 to the stack
        if re.search(r"^lock (or|add)[bwlq]?$", m) and re.search(r"^\$0x0,(-0x[0-9a-f]+)?\(%rsp\)$", ops):
            return "FULL"
        return ""
    if arch in ("aarch64", "armhf"):
        if arch == "armhf" and re.search("^(dmb|dsb)%s$" % _COND, m):
            m = m[:3]   # a condition suffix (dmbeq in an IT block) still is the fence
        if m not in ("dmb", "dsb"):
            return ""
        if ops.endswith("st"):
            return "ST"
        if ops.endswith("ld"):
            return "ACQ"
        return "FULL"
    if arch == "ppc64le":
        return {"sync": "FULL", "hwsync": "FULL", "lwsync": "LW", "isync": "ACQ", "eieio": "ST"}.get(m, "")
    if arch == "riscv64":
        if m == "fence.tso":
            return "TSO"
        if m != "fence":
            return ""
        if ops == "":
            return "FULL"
        pred, succ = ops.split(",", 1)[0], ops.rsplit(",", 1)[-1]
        r_w = lambda s: ("r" in s, "w" in s)
        (pr, pw), (sr, sw) = r_w(pred), r_w(succ)
        if pr and pw and sr and sw:
            return "FULL"
        if pr and sr and sw:
            return "ACQ"
        if pr and pw and sw:
            return "REL"
        if pr and sr:
            return "LD"
        if pw and sw:
            return "ST"
        return "LIGHT"
    if arch == "s390x":
        if (m == "bnor" and ops == "%r0") or (m == "bcr" and re.search(r"^1[45],%r0$", ops)) or (m == "br" and ops == "%r0"):
            return "FULL"
        return ""
    return ""


def atomic_flags(arch, m, ops):
    """The atomic flags of an instruction (see the module doc), "" if not atomic."""
    if arch == "x86_64":
        if m.startswith("lock "):
            return "XF"
        if re.search(r"^xchg[bwlq]?$", m) and "(" in ops:
            return "XF"
        return ""
    if arch == "aarch64":
        if re.search(r"^ld(a)?x(r|p)[bh]?$", m):
            return "Xl" + ("A" if m.startswith("lda") else "")
        if re.search(r"^st(l)?x(r|p)[bh]?$", m):
            return "Xs" + ("R" if m.startswith("stl") else "")
        if re.search(r"^%s(a|l|al)?[bh]?$" % _LSE, m):
            suffix = re.sub(r"[bh]$", "", re.sub("^" + _LSE, "", m))
            return {"al": "XARF", "a": "XA", "l": "XR"}.get(suffix, "X")
        return ""
    if arch == "ppc64le":
        if re.search(r"^l[bhwdq]arx$", m):
            return "Xl"
        return "Xs" if re.search(r"^st[bhwdq]cx\.$", m) else ""
    if arch == "riscv64":
        if not re.search(r"^(lr|sc|amo[a-z]+)\.[wdbh]", m):
            return ""
        amo = m.startswith("amo")
        f = "Xl" if m.startswith("lr.") else "Xs" if m.startswith("sc.") else "X"
        if m.endswith(".aqrl"):
            return f + "AR" + ("F" if amo else "")
        if m.endswith(".aq"):
            return f + "A" + ("P" if amo else "")
        if m.endswith(".rl"):
            return f + "R"
        return f
    if arch == "s390x":
        if m in ("cs", "csg", "csy", "cds", "cdsg", "cdsy"):
            return "XF"     # compare and swap serialises
        return "X" if re.search(r"^la(a|al|n|o|x)g?$", m) else ""
    if arch == "armhf":
        if re.search(r"^ldrex[bhd]?$", m):
            return "Xl"
        return "Xs" if re.search(r"^strex[bhd]?$", m) else ""
    return ""


def helper_flags(symbol):
    """Atomic flags of a call to an out-of-line atomic helper, from its name."""
    if symbol.startswith("__aarch64_"):
        for suffix, flags in (("_acq_rel", "XAR"), ("_acq", "XA"), ("_rel", "XR"), ("_sync", "XARF")):
            if symbol.endswith(suffix):
                return flags
        return "X"
    if symbol.startswith(("__atomic_", "__sync_")):
        return "XARF"   # the order is passed at run time; taken as asked
    return ""


def is_acquire_load(arch, m):
    """aarch64 ldar / ldapr: a load with acquire semantics."""
    return arch == "aarch64" and re.search(r"^ld(a|apu?)r[bh]?$", m) is not None


def is_release_store(arch, m):
    """aarch64 stlr: a store with release semantics."""
    return arch == "aarch64" and re.search(r"^stl(u)?r[bh]?$", m) is not None


# What each fence kind can order (letters: F full, A acquire, R release, L load-load, S store-store).
FENCE_ABILITY = {"FULL": "FARLS", "LW": "ARLS", "TSO": "ARLS", "ACQ": "AL", "REL": "RS", "LD": "L", "ST": "S"}
# Ordering level a fence gives before (release side) / after (acquire side) an access: 2 full, 1 one-way.
RELEASE_LEVEL = {"FULL": 2, "LW": 1, "TSO": 1, "REL": 1}
ACQUIRE_LEVEL = {"FULL": 2, "LW": 1, "TSO": 1, "ACQ": 1}
