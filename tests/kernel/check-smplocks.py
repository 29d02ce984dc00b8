"""make check-kernel: the .smp_locks post-link step on synthetic kernels (TAP-like).

Each synthetic "vmlinux" is linked here from a few lines of assembly with a
linker script shaped like the x86 kernel's: _text.._etext, .init.text,
.altinstructions/.altinstr_replacement, and .smp_locks (the asm's entries,
katomic's reserved room after __katomic_smp_locks_reserve, __smp_locks_end).
The step must add exactly the unrecorded lock sites in _text.._etext (not
the DS-marked one, not .init.text's), keep the asm's entries, be a no-op run
twice, and refuse (exit 1, one line, the file unchanged) a lock in an
alternative's replacement or original bytes, a stale entry, a table too
small (naming the size needed), a vmlinux without the reserved room.
The step is no longer part of the patch (objtool --smp-locks records the
sites at build time: check-objtool-smplocks.py); it stays katomic's decoder,
which `katomic kernel` runs as the cross-check (crosscheck.py).
usage: check-smplocks.py BUILD_DIR CC
"""
import os
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tools", "up"))
from katomic_tools.common.tap import Tap            # noqa: E402
import uplocks                                      # noqa: E402

LDS = """
SECTIONS {
  . = 0x400000;
  .text : { _text = .; *(.text) }
  _etext = .;
  .init.text : { *(.init.text) }
  .altinstructions : { *(.altinstructions) }
  .altinstr_replacement : { *(.altinstr_replacement) }
  . = ALIGN(4096);
  .smp_locks : { __smp_locks = .; *(.smp_locks) @MARK@ . += @RESERVE@; . = ALIGN(@ALIGN@); __smp_locks_end = .; }
  /DISCARD/ : { *(.note*) *(.eh_frame*) *(.comment) }
}
"""

# Sites: A, B, C compiler-like; R recorded by asm (LOCK_PREFIX-style); K marked
# to stay locked (DS before lock); F a fence on the stack (kept); S an atomic on a
# stack object (recorded); I in .init.text.  (check-smplocks-ko.py uses the same.)
# (check-objtool-smplocks.py uses SITES too.)
SITES = """
A: lock xaddl %eax, (%rdi)
B: lock cmpxchgq %rsi, 8(%rdi)
R: lock incl (%rdi)
K: .byte 0x3e; lock decl (%rdi)
C: lock btsq $3, 16(%rdi)
F: lock addl $0, -4(%rsp)
S: lock orq %rax, 8(%rsp)
"""
SITES_ASM = SITES + """  xchgl %eax, (%rdi)
  ret
@TEXT@
"""
INIT_ASM = """
  .section .init.text, "ax"
I: lock orl $1, (%rdi)
  ret
"""
ASM = """
  .text
  .globl _start
_start:
  nop
""" + SITES_ASM + INIT_ASM + """
  .section .smp_locks, "a"
  .long R - .
  .long I - .
@LOCKS@
  .section .altinstructions, "a"
@ALT@
  .section .altinstr_replacement, "ax"
@REPL@
"""
DEFAULT = {"TEXT": "", "LOCKS": "", "ALT": "", "REPL": "nop", "RESERVE": 64, "ALIGN": 64,
           "MARK": "__katomic_smp_locks_reserve = .;"}


def link(tmp, cc, name, **kw):
    v = dict(DEFAULT, **kw)
    base = os.path.join(tmp, name)
    for ext, text in ((".S", ASM), (".lds", LDS)):
        for k, val in v.items():
            text = text.replace("@%s@" % k, str(val))
        with open(base + ext, "w") as f:
            f.write(text)
    r = subprocess.run([cc, "-nostdlib", "-static", "-no-pie", "-Wl,--build-id=none", "-Wl,-T," + base + ".lds",
                        "-o", base, base + ".S"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode:
        raise RuntimeError("%s: link failed: %s" % (name, r.stdout.strip()[-300:]))
    return base


def step(path, *opts):
    e = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "tools"))
    return subprocess.run([sys.executable, "-m", "katomic_tools.kernel.smplocks"] + list(opts) + [path],
                          env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


def syms(path):
    out = subprocess.run(["nm", path], stdout=subprocess.PIPE, universal_newlines=True).stdout
    return {l.split()[2]: int(l.split()[0], 16) for l in out.splitlines() if len(l.split()) == 3}


def table(path):
    """The .smp_locks slots as absolute targets (None for a zero slot) and the bytes they name."""
    with open(path, "rb") as f:
        data = f.read()
    elf = uplocks.Elf(path, data)
    _, _, _, addr, off, size = elf.section(".smp_locks")
    slots = struct.unpack_from("<%di" % (size // 4), data, off)
    targets = [addr + 4 * i + v if v else None for i, v in enumerate(slots)]

    def byte(a):
        for _, _, _, sa, so, ss in elf.sections:
            if sa <= a < sa + ss:
                return data[so + a - sa]
    return targets, [byte(t) if t else None for t in targets]


def refused(t, r, path, before, *words):
    with open(path, "rb") as f:
        same = f.read() == before
    lines = r.stderr.strip().splitlines()
    return t.check(r.returncode == 1 and len(lines) == 1 and "Traceback" not in r.stderr and same
                   and all(w in lines[0] for w in words),
                   "refused, one line naming %s, file unchanged%s" % (", ".join(words), "" if lines == [] else
                                                                      ": " + lines[0][:160]))


def start(argv, prog, tools, what, sub):
    """(Tap, a fresh BUILD_DIR/sub, CC), or (None, exit status, None): bad usage (2) or a tool
    missing (a note, the empty summary)."""
    if len(argv) != 2:
        print("usage: %s BUILD_DIR CC" % prog, file=sys.stderr)
        return None, 2, None
    out, cc = argv
    t = Tap()
    for tool in tools + (cc,):
        if not shutil.which(tool):
            print("# note: %s not found: %s checks skipped" % (tool, what))
            return None, t.summary(), None
    tmp = os.path.join(out, sub)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    return t, tmp, cc


def main(argv):
    t, tmp, cc = start(argv, "check-smplocks.py", ("objdump", "nm"), "the .smp_locks step's", "smplocks")
    if t is None:
        return tmp

    p = link(tmp, cc, "known")
    s = syms(p)
    r = step(p)
    t.check(r.returncode == 0 and "4 new" in r.stdout, "known sites: 4 new lock sites added (%s)"
            % (r.stdout.strip() or r.stderr.strip()))
    targets, held = table(p)
    used = [x for x in targets if x is not None]
    want = sorted(s[n] for n in ("A", "B", "C", "S", "R", "I"))
    # A..C and R start with the lock byte itself; their labels name it.
    t.check(used == want, "table = the asm's 2 entries + A, B, C and S (an atomic on a stack object), sorted (got %s)" % [hex(x) for x in used])
    t.check(targets[len(used):] == [None] * (len(targets) - len(used)), "the remaining slots are zero")
    t.check(all(h == 0xF0 for h in held if h is not None), "every entry names a 0xf0 byte")
    t.check(s["K"] + 1 not in used, "the DS-marked lock (kept locked) is not recorded")
    t.check(s["F"] not in used and "2 kept locked" in r.stdout, "the fence on the stack (lock addl $0,-4(%rsp)) is not recorded")
    t.check(syms(p)["__smp_locks_end"] == s["__smp_locks_end"], "__smp_locks_end unchanged")
    with open(p, "rb") as f:
        once = f.read()
    r = step(p)
    with open(p, "rb") as f:
        t.check(r.returncode == 0 and "0 new" in r.stdout and f.read() == once, "run twice: nothing new, same bytes")

    # A lock in an alternative's replacement the table lacks.
    p = link(tmp, cc, "repl", REPL="lock incl (%rdi)\n  ret")
    with open(p, "rb") as f:
        before = f.read()
    refused(t, step(p), p, before, "repl", ".altinstr_replacement")

    # A compiler-like lock inside an alternative's original bytes (struct alt_instr: 14 bytes).
    p = link(tmp, cc, "alt", TEXT="X: lock incl 4(%rdi)\n  nop",
             ALT=".long X - .\n  .long Y - .\n  .long 0\n  .byte 4, 4", REPL="Y: nop; nop; nop; nop")
    with open(p, "rb") as f:
        before = f.read()
    refused(t, step(p), p, before, "alt", "alternative", ".altinstructions")

    # A stale table: an entry in _text.._etext that names no lock prefix.
    p = link(tmp, cc, "stale", LOCKS="  .long _start - .")
    with open(p, "rb") as f:
        before = f.read()
    refused(t, step(p), p, before, "stale", "stale", "0x90")

    # Too small: 2 asm entries + 4 new = 6 slots; no room past the asm's entries.
    p = link(tmp, cc, "small", RESERVE=0, ALIGN=4)
    with open(p, "rb") as f:
        before = f.read()
    tab = table(p)[0]
    if len(tab) >= 6:      # the ALIGN(64) left room: the check would test nothing
        t.check(False, "the too-small table has %d slots, the test needs fewer than 6" % len(tab))
    else:
        refused(t, step(p), p, before, "small", "are needed", "reserve at least 16 bytes")

    p = link(tmp, cc, "nomark", MARK="")
    with open(p, "rb") as f:
        before = f.read()
    refused(t, step(p), p, before, "nomark", "__katomic_smp_locks_reserve")

    r = step(os.path.join(tmp, "no-such-vmlinux"))
    t.check(r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1 and "no-such-vmlinux" in r.stderr,
            "a missing file: one line naming it")
    return t.summary()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
