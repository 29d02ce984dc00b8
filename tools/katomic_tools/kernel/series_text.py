"""The words of `katomic kernel --series`: commit messages and the cover letter.

What each patch does and why is written here once; the figures come from
the kernel.json documents given with --from (Facts), never from this file.
Lines stay within 72 columns (checkpatch wants commit text within 75).
"""
import os
import re
import textwrap

from . import KernelError
from ..common import documents

HOW_TO_MEASURE = ("Not measured for this series.  To measure: katomic kernel --config small "
                  "--cc gcc,clang (and --config defconfig), then katomic kernel --series DIR "
                  "--from OUT to put the figures here.")


def wrap(text):
    """Paragraphs (blank-line separated) wrapped at 72; lines starting with
    two spaces are kept as they are (lists, figures)."""
    out = []
    for para in text.strip("\n").split("\n\n"):
        if para.startswith("  ") or para.startswith("- "):
            for line in para.split("\n"):
                out += textwrap.wrap(line, 72, subsequent_indent="  ", break_long_words=False,
                                     break_on_hyphens=False) or [""]
        else:
            out += textwrap.wrap(" ".join(para.split()), 72, break_long_words=False,
                                 break_on_hyphens=False)
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


class Facts:
    """What kernel.json documents (from `katomic kernel --out DIR`) measured."""

    def __init__(self, dirs=()):
        self.docs = []
        for d in dirs:
            path = d if d.endswith(".json") else os.path.join(d, "kernel.json")
            if not os.path.isfile(path):
                raise KernelError("--from %s: no such file" % path)
            try:
                self.docs.append(documents.read(path, "kernel"))
            except ValueError as e:       # 'FILE: where: what'
                raise KernelError("--from: not a katomic kernel.json document: %s" % e)

    def __bool__(self):
        return bool(self.docs)

    def _each(self, what):
        for doc in self.docs:
            ver = doc.get("source", {}).get("version", "?")
            for x in doc.get(what, []):
                yield ver, x

    def builds(self, arches=("x86_64",)):
        """{(version, config, cc): {variant: build}} of the builds that succeeded."""
        out = {}
        for ver, b in self._each("builds"):
            if b.get("ok") and b.get("arch", "x86_64") in arches:
                out.setdefault((ver, b["config"], b["cc"]), {})[b["variant"]] = b
        return out

    def text_lines(self, arches=("x86_64",)):
        lines = []
        for (ver, config, cc), v in sorted(self.builds(arches).items()):
            s, c = v.get("stock"), v.get("c11")
            if not c:
                continue
            line = "  %s %s, %s%s: text " % (ver, config, cc, _arch(c))
            if s:
                line += "%d -> %d bytes (%+d)" % (s["text_bytes"], c["text_bytes"],
                                                   c["text_bytes"] - s["text_bytes"])
                if "lock_prefixes" in s and "lock_prefixes" in c:
                    line += ", lock prefixes %d -> %d" % (s["lock_prefixes"], c["lock_prefixes"])
            else:
                line += "%d bytes (C11; no stock build measured)" % c["text_bytes"]
            lines.append(line)
        return lines

    def boot_lines(self, arches=("x86_64",), variant="c11"):
        """One line per measured boot of `variant`, with its self-tests and torture."""
        lines = []
        for ver, b in self._each("boots"):
            if b.get("variant") != variant or b.get("arch", "x86_64") not in arches:
                continue
            st = b.get("selftests", [])
            tt = b.get("torture", [])
            passed = [s["name"] for s in st if s.get("status") == "pass"]
            tort = ", ".join("%s/%s %d s %s" % (t.get("name", "?"), t.get("type", ""),
                                               round(t.get("seconds") or 0), t.get("status", "?")) for t in tt)
            lines.append("  %s %s, %s%s, -smp %s: %s; self-tests %d/%d pass (%s)%s" % (
                ver, b["config"], b["cc"], _arch(b), b["smp"], "PASS" if b.get("passed") else "FAIL",
                len(passed), len(st), ", ".join(passed) or "none",
                "; torture: " + tort if tort else ""))
        return lines

    def up_lines(self):
        """The UP lock elision of each C11 x86 build, with the stock kernel's beside it."""
        lines = []
        for (ver, config, cc), v in sorted(self.builds().items()):
            c, s = v.get("c11"), v.get("stock")
            cu = (c or {}).get("up_elision") or {}
            if not cu.get("measured"):
                continue
            line = ("  %s %s, %s: %d sites recorded, %d patched on one CPU, %d left locked "
                    "(vmlinux)" % (ver, config, cc, cu["recorded"], cu.get("recorded_patched", 0),
                                   cu.get("left_locked", 0)))
            su = (s or {}).get("up_elision") or {}
            if su.get("measured"):
                line += "; stock leaves %d" % su.get("left_locked", 0)
            if cu.get("modules"):
                line += "; modules: %d recorded, %d left locked" % (cu.get("modules_recorded", 0),
                                                                    cu.get("modules_left_locked", 0))
            x = c.get("smp_locks_crosscheck") or {}
            if x.get("checked"):
                line += "; objtool and katomic's decoder %s" % ("agree site for site" if x.get("agree")
                                                               else "DISAGREE")
            lines.append(line)
        return lines

    def audit_lines(self):
        lines = []
        for ver, a in self._each("audit"):
            b = a.get("bloat") or {}
            lp = a.get("lock_prefixes") or {}
            if "total_delta" not in b:
                continue
            lines.append("  %s %s, %s: functions' text %+d bytes (%d grown, %d shrunk); "
                         "lock prefixes %s -> %s" % (ver, a.get("config", "?"), a.get("cc", "?"),
                                                     b["total_delta"], b.get("grown", 0), b.get("shrunk", 0),
                                                     lp.get("stock", "?"), lp.get("c11", "?")))
        return lines

    def kept_asm(self):
        for doc in self.docs:
            if doc.get("c11_kept_asm"):
                return doc["c11_kept_asm"]
        return []


def _arch(b):
    a = b.get("arch", "x86_64")
    return "" if a == "x86_64" else " (%s)" % a


def _figures(blocks):
    """(title, lines) blocks as text, blank-line separated; a block without lines is left out."""
    return "\n\n".join("%s\n\n%s" % (title, "\n".join(lines)) for title, lines in blocks if lines)


# What each part does and why, in the kernel's voice.
BODY = {
    "atomic": """
With CONFIG_X86_ATOMIC_C11=y, implement arch_atomic_*() and
arch_atomic64_*() with the compiler's __atomic builtins instead of
inline asm.

The compiler then knows what each operation does: it can test the flags
the locked instruction sets instead of materialising a result, choose
the operand forms and keep values in registers across the operation,
all of which an asm statement with a "memory" clobber hides from it.
This takes up the 2016 question of moving the kernel's atomics to C11,
with figures per compiler rather than a choice made for all of them.

Every read-modify-write is __ATOMIC_SEQ_CST.  On x86-64 that is the same
lock-prefixed instruction as any weaker order, and a full compiler
barrier like the asm's "memory" clobber, so smp_mb__before_atomic() and
smp_mb__after_atomic() stay empty.  arch_atomic_read() and
arch_atomic_set() are relaxed accesses through a volatile pointer, the
__READ_ONCE()/__WRITE_ONCE() form.

The option depends on !KCSAN: the compiler's thread sanitizer would
instrument every builtin inside the arch_ layer that KCSAN's wrappers
already cover, noinstr code included.

The headers are generated from one table of operations (katomic's
gen/atomics.tbl), which also generates a user-space library and the
tests that compare the C11 and asm implementations op by op.
""",
    "cmpxchg": """
With CONFIG_X86_ATOMIC_C11=y, implement arch_xchg(), arch_cmpxchg(),
arch_cmpxchg64() and arch_try_cmpxchg*() with __atomic_exchange_n() and
__atomic_compare_exchange_n(), sequentially consistent on success and on
failure, as the locked instructions are.

try_cmpxchg() is where the builtins help most: the compiler reads the
result from ZF and writes the old value back only on failure, as the
asm's CC_SET(z) output does, and can fold the test into the loop.

These stay asm: the _local variants (cmpxchg without a lock prefix,
atomic against this CPU only: C11 has no order or scope for it), the
128-bit cmpxchg (gcc lowers 16-byte builtins to libatomic calls, which
the kernel does not have) and sync_cmpxchg() (memory shared with a
hypervisor).
""",
    "bitops": """
With CONFIG_X86_ATOMIC_C11=y, implement set_bit(), clear_bit(),
change_bit(), the test_and_*() bitops and clear_bit_unlock() with
__atomic_fetch_or/and/xor() on the unsigned long that holds the bit.

The compiler turns a fetch-op whose result is only tested for one bit
into lock bts/btr/btc, and one whose result is unused into lock or/and/
xor, as the asm does.  The non-atomic __ bitops, test_bit() and the
find/ffs helpers are not atomics and stay the kernel's.
""",
    "barrier": """
Add CONFIG_X86_BARRIER_C11: implement smp_mb(), smp_rmb(), smp_wmb(),
smp_store_mb(), smp_store_release() and smp_load_acquire() with C11
fences and atomic accesses.

smp_rmb() and smp_wmb() are compiler barriers on x86 (TSO) and
smp_load_acquire()/smp_store_release() plain accesses; the C11 forms
give the compiler the same freedom with a stated order.  smp_mb() becomes
a sequentially consistent fence: gcc 12 emits lock orq $0,(%rsp) and
clang mfence, where the kernel has lock addl $0,-4(%rsp).  mb(), rmb(), wmb() and the dma_
barriers stay asm: they also order device and non-temporal accesses,
which C11 does not model.  The option is separate because the fence's
instruction is the compiler's choice, not the kernel's.
""",
    "objtool": """
An SMP kernel that boots on one CPU, or loses all but one, drops the
lock prefix of every instruction named in .smp_locks (it becomes a DS
prefix) and restores it before a second CPU comes up
(alternatives_smp_unlock()/alternatives_smp_lock()).  LOCK_PREFIX
records the locks that the kernel's asm writes; locks that the compiler
emits for __atomic builtins are recorded nowhere.

Add objtool --smp-locks: record every lock-prefixed instruction of the
object that .smp_locks does not name yet, in the same format (s32 offsets
to the lock byte, with relocations), so the linker concatenates them
with the assembler's entries, for vmlinux.o and for each module.

Not recorded: locks in text that does not outlive init (.init*,
.exit.text and other sections outside _text.._etext), locks marked
ANNOTATE_KEEP_LOCK (next patch), the full barrier lock add/or $0 to the
stack (__smp_mb(), which virt_mb() relies on even on one CPU), and locks
with an FS/GS prefix.  A new lock inside an alternative's original or
replacement instructions is an error, as is an .smp_locks entry that
names no lock-prefixed instruction.

Nothing enables the option yet.
""",
    "keeplock": """
Some lock prefixes must stay when the kernel runs on one CPU: sync_*()
operate on memory shared with a hypervisor (Xen, Hyper-V), and
edac_atomic_scrub() rewrites memory for the memory controller.

Mark them ANNOTATE_KEEP_LOCK, a label in .discard.keep_lock that objtool
--smp-locks reads and leaves unrecorded.  For the kernel's own asm this
changes nothing: these locks were never in .smp_locks, and the
annotation adds no bytes to the text.
""",
    "smplocks": """
Add CONFIG_X86_ATOMIC_C11_SMP_LOCKS (on with X86_ATOMIC_C11 and SMP):
run objtool --smp-locks on vmlinux.o and on every module, so the lock
prefixes the compiler emits for the C11 atomics are dropped on one CPU
like the LOCK_PREFIX ones of the asm they replace.

With this, an SMP kernel with C11 atomics is built with plain make: no
post-link step and no tool from outside the tree.
""",
    "upmb": """
With X86_ATOMIC_C11_SMP_LOCKS, write smp_mb() with LOCK_PREFIX, so that
an SMP kernel running on one CPU drops its lock too.

smp_mb() orders this CPU's accesses against other CPUs' only; a UP
kernel makes it barrier().  Yet __smp_mb()'s lock addl $0,-4(%rsp) is
in no .smp_locks, because virt_mb() uses it to order against a
hypervisor, which is another CPU even when the guest has one.  So every
inlined copy of it stays locked on one CPU: they are all the lock
prefixes the stock defconfig leaves, and the C11 kernel, which inlines
differently, can leave more copies of the same barrier than stock.
virt_mb() keeps __smp_mb(), unrecorded, and so does
CONFIG_X86_BARRIER_C11, whose smp_mb() is the compiler's fence.
alternatives_smp_lock() puts the prefix back before a second CPU
starts, as for every other .smp_locks entry.
""",
    "generic": """
Add include/asm-generic/{atomic,atomic64,cmpxchg,barrier}-c11.h: the
atomics, xchg/cmpxchg/try_cmpxchg in every order, and the SMP barriers
on the compiler's __atomic builtins, for an architecture to opt in to.
A new port then needs no atomic asm to start with.

C11's orders are not the kernel's everywhere: a fully ordered kernel RMW
is a full barrier, while a C11 SEQ_CST RMW only joins a single total
order of SEQ_CST operations.  atomic-c11-policy.h states, per
architecture, the fences that close that gap, as the architecture's own
asm does: for example arm64's LL/SC fully ordered RMW is ldxr/stlxr then
dmb ish, not a SEQ_CST ldaxr/stlxr loop, and RISC-V's LR/SC cmpxchg is
followed by fence rw,rw.  The kernel's litmus tests, compiled with these
headers for arm64 (LSE and LL/SC) and riscv64, were judged against the
kernel's memory model with herd7 (katomic verify): no test herd7 could
judge allows an outcome the model forbids.

Nothing uses the headers yet.
""",
    "arm64": """
Add CONFIG_ARCH_ATOMIC_C11 to arm64: use the asm-generic C11 atomics and
barriers instead of the LSE and LL/SC asm.  C has no run-time
alternatives, so the choice is made at build time: with
ARM64_LSE_ATOMICS the C code is compiled for ARMv8.1 (LSE in every
instruction; the kernel then needs an LSE CPU), without it for ARMv8.0
(LL/SC).  -mno-outline-atomics either way: the kernel has no
__aarch64_* helpers.  cmpxchg128, the percpu and futex atomics and
__cmpwait stay asm.
""",
    "riscv64": """
Add CONFIG_ARCH_ATOMIC_C11 to riscv: use the asm-generic C11 atomics and
barriers instead of the AMO and LR/SC asm, and asm-generic's atomic
bitops on top of them.  gcc before 13 gets the policy's own mapping,
because its SEQ_CST sequences predate the ISA manual's.
""",
}

# checkpatch.pl's warnings that stay, one line each: (type, why).
_MAINT = "FILE_PATH_CHANGES: MAINTAINERS has them: %s"
CHECKPATCH = {
    "atomic": [("VOLATILE: read/set use volatile like __READ_ONCE()/__WRITE_ONCE()"),
               (_MAINT % "ATOMIC INFRASTRUCTURE"),
               ("EMBEDDED_FILENAME: arch/x86/Kconfig sources a file named after it")],
    "cmpxchg": [(_MAINT % "X86 ARCHITECTURE")],
    "bitops": [("VOLATILE: the bitops' own prototypes take volatile unsigned long *"),
               (_MAINT % "X86 ARCHITECTURE")],
    "barrier": [("VOLATILE: smp_load_acquire()/smp_store_release() read as READ_ONCE()"),
                (_MAINT % "X86 ARCHITECTURE")],
    "objtool": [(_MAINT % "OBJTOOL")],
    "generic": [("VOLATILE: read/set use volatile like __READ_ONCE()/__WRITE_ONCE()"),
                ("MACRO_ARG_UNUSED: a policy hook that an arch does not need is empty"),
                (_MAINT % "GENERIC INCLUDE/ASM HEADER FILES")],
    "arm64": [("EMBEDDED_FILENAME: arch/arm64/Kconfig sources a file named after it"),
              (_MAINT % "ARM64 PORT")],
    "riscv64": [("EMBEDDED_FILENAME: arch/riscv/Kconfig sources a file named after it"),
                (_MAINT % "RISC-V ARCHITECTURE")],
}

# The figures each patch carries: (title, lines) blocks, those without lines left out.
_OTHER = ("arm64", "riscv64")
FIGURES = {
    "atomic": lambda F: [("Measured with katomic kernel (text of vmlinux, C11 against stock):", F.text_lines()),
                         ("Audit of the functions that changed:", F.audit_lines())],
    "upmb": lambda F: [("Lock prefixes on one CPU, read back from the running guest:", F.up_lines()),
                       ("The whole x86 series booted under qemu:", F.boot_lines())],
    "generic": lambda F: [("Measured with katomic kernel:", F.text_lines(_OTHER) + F.boot_lines(_OTHER))],
}


def message(part, facts, who, ver):
    """The commit message of `part`: subject, body, figures, Signed-off-by."""
    body = BODY[part["key"]]
    fig = ""
    if part["key"] in FIGURES:
        fig = _figures(FIGURES[part["key"]](facts)) if facts else HOW_TO_MEASURE
    text = part["subject"] + "\n\n" + wrap(body)
    if fig:
        text += "\n" + wrap(fig)
    if CHECKPATCH.get(part["key"]):
        text += "\ncheckpatch.pl warnings left on purpose:\n" + \
            "".join("- %s\n" % w for w in CHECKPATCH[part["key"]])
    return text + "\nSigned-off-by: %s\n" % who


def cover(plan, facts, ver):
    arches = []
    for a, p in plan:
        name = {"x86_64": "x86", "arm64": "arm64", "riscv64": "riscv"}[a]
        if p["key"] != "generic" and name not in arches:
            arches.append(name)
    subject = "%s: atomics on C11 __atomic builtins" % ", ".join(arches)
    body = """
This series implements the kernel's arch atomics on the compiler's C11
__atomic builtins, behind options that are off by default, so that the
question asked in 2016 ("time to move to C11 atomics?") can be answered
with measurements per compiler and architecture instead of in general.

For x86-64 the C11 code is the same instructions as the asm where the
compiler does well, and the compiler sees through the operations: it
tests flags instead of materialising results and keeps values in
registers.  The compiler's own lock prefixes are recorded in
.smp_locks by objtool, so a kernel booted on one CPU still drops them.
For arm64 and riscv an asm-generic C11 layer is offered as a way to
bring up an architecture without atomic asm; where C11's SEQ_CST is
weaker than the kernel's fully ordered RMW, it adds the fences the
architecture's asm has.

The headers are generated by katomic, a user-space port of this API on
C11 atomics with the instruments behind the figures below (its
gen/atomics.tbl and docs/kernel.md).

Based on Linux %s.
""" % ver
    parts = [wrap(body)]
    kept = facts.kept_asm() if facts else []
    if kept:
        parts.append(wrap("What stays asm, and why:\n\n" + "\n".join(
            "- %s: %s" % (k["what"], k["why"]) for k in kept)))
    parts.append(wrap("""
Compiler limits found on the way (katomic's codegen audit has the
instructions): gcc 12 emits lock addl $1 where the asm has lock incl,
one byte longer (clang 19 emits lock incl); clang 19 does not fold an atomic load into the instruction
that uses it, where gcc does.
"""))
    if facts:
        parts += [wrap(_figures([b])) for b in (
            ("vmlinux text and lock prefixes (C11 against stock):", facts.text_lines()),
            ("Audit of the functions that changed:", facts.audit_lines()),
            ("Boots under qemu (self-tests, locktorture, rcutorture):",
             facts.boot_lines() + facts.boot_lines(_OTHER)),
            ("UP lock elision on one CPU:", facts.up_lines()),
            ("Other architectures:", facts.text_lines(_OTHER))) if b[1]]
    else:
        parts.append(wrap(HOW_TO_MEASURE))
    parts.append(wrap("""
To reproduce: install katomic, then

  katomic kernel --config small --cc gcc,clang
  katomic kernel --arch arm64
  katomic kernel --series DIR --from build/kernel
"""))
    return subject, "\n".join(parts)


def fill_cover(path, plan, facts, who, ver):
    with open(path) as f:
        text = f.read()
    subject, body = cover(plan, facts, ver)
    if "*** SUBJECT HERE ***" not in text or "*** BLURB HERE ***" not in text:
        raise KernelError("%s: git format-patch wrote no cover letter template" % path)
    text = text.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***\n", body)
    with open(path, "w") as f:
        f.write(text)
